#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fault_http.py MODE PORT READY — an HTTP server on 127.0.0.1:PORT that
misbehaves in one way, for the faults the real servers (nginx, radosgw)
cannot be made to show.  Creates the file READY once listening; runs until
killed.  Modes, for every request:
  drip      a 200 answer with a Content-Length, one byte every 0.2 s
  hang      reads the request, never answers
  close     accepts the connection and closes it at once, reading nothing
  garbage   random bytes that are not HTTP, then closes
  500       HTTP 500, a short body
  redirect  HTTP 302 to another host
  endless   a 200 answer without a length (chunked), zero bytes without end
  slowput   GET and HEAD: 404 at once; PUT: the body read, never answered
  slow404   GET and HEAD: 404 after 2 s; PUT: 201 at once (body read)
  nobucket  every request: S3's 404 NoSuchBucket after 0.2 s (a far or busy
            server without the bucket)
With a fourth argument ROOT (a directory of files, as nginx's root):
  chunked   GET: the file at the request's path, chunked (no length); 404 if none
  unframed  GET: the same without a length or chunks, ended by closing
  overlong  GET: the same chunked, then zeros without end
"""
import os
import socket
import sys
import threading
import time

mode, port, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
root = sys.argv[4] if len(sys.argv) > 4 else None


def read_request(c):
    """The request's method, once it is read whole; None at the end."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = c.recv(65536)
        if not more:
            return None
        data += more
    method = data.split(b" ", 1)[0]
    global path
    path = data.split(b" ", 2)[1].decode()
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            left = int(line.split(b":")[1]) - len(body)
            while left > 0:
                more = c.recv(min(left, 65536))
                if not more:
                    return None
                left -= len(more)
    return method


def answer(c, status, body=b"", extra=b""):
    c.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Length: " + str(len(body)).encode() +
              b"\r\n" + extra + b"\r\n" + body)


def serve(c):
    try:
        if mode == "close":
            return
        while (method := read_request(c)):
            if mode == "drip":
                for ch in b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 100000:
                    c.sendall(bytes([ch]))
                    time.sleep(0.2)
            elif mode == "hang":
                time.sleep(3600)
            elif mode == "slowput":
                if method == b"PUT":
                    time.sleep(3600)
                answer(c, b"404 Not Found")
            elif mode == "slow404":
                if method == b"PUT":
                    answer(c, b"201 Created")
                else:
                    time.sleep(2)
                    answer(c, b"404 Not Found")
            elif mode == "nobucket":
                time.sleep(0.2)
                answer(c, b"404 Not Found", b"<Error><Code>NoSuchBucket</Code></Error>",
                       b"Content-Type: application/xml\r\n")
            elif mode in ("chunked", "unframed", "overlong"):
                try:
                    with open(os.path.join(root, path.lstrip("/")), "rb") as f:
                        body = f.read()
                except OSError:
                    answer(c, b"404 Not Found")
                    continue
                if mode == "unframed":
                    c.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body)
                    return
                c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                for i in range(0, len(body), 1000):
                    piece = body[i:i + 1000]
                    c.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
                if mode == "chunked":
                    c.sendall(b"0\r\n\r\n")
                    continue
                chunk = b"10000\r\n" + b"\0" * 0x10000 + b"\r\n"
                while True:
                    c.sendall(chunk)
            elif mode == "garbage":
                c.sendall(os.urandom(4096))
                return
            elif mode == "500":
                answer(c, b"500 Internal Server Error", b"broken\n")
            elif mode == "redirect":
                answer(c, b"302 Found", b"", b"Location: http://elsewhere.invalid/x\r\n")
            elif mode == "endless":
                c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                chunk = b"10000\r\n" + b"\0" * 0x10000 + b"\r\n"
                while True:
                    c.sendall(chunk)
    except OSError:
        pass
    finally:
        c.close()


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(16)
open(ready, "w").close()
while True:
    conn, _ = s.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
