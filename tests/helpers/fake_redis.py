#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fake_redis.py PORT MODE READY — a TCP server on 127.0.0.1:PORT that is not
Redis, for the remote tier's fault tests.  MODE:
  junk  answer anything with bytes that are not the Redis protocol
  ok    answer every request with "+OK", whatever it asked (a GET gets a
        status reply instead of a value)
  mute  never accept: the listen queue is filled first, so that the
        kernel drops further connection requests and a client's connect()
        waits as for a host that does not answer
Creates the file READY once listening; runs until killed."""
import socket
import sys
import threading

port, mode, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
answer = b"HTTP/1.0 400 Bad Request\r\n\r\n" if mode == "junk" else b"+OK\r\n"


def serve(conn):
    with conn:
        while True:
            try:
                data = conn.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            # One answer per command of a pipeline ("*N" starts each one).
            conn.sendall(answer * max(1, data.count(b"\r\n*") + data.startswith(b"*")))


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
if mode == "mute":
    s.listen(0)
    fillers = []
    for _ in range(4):  # fill the queue; later SYNs get no answer
        c = socket.socket()
        c.setblocking(False)
        c.connect_ex(("127.0.0.1", port))
        fillers.append(c)
    open(ready, "w").close()
    threading.Event().wait()
s.listen(16)
open(ready, "w").close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
