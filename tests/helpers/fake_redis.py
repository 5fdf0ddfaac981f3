#!/usr/bin/env python3
"""fake_redis.py PORT MODE — a TCP server on 127.0.0.1:PORT that is not
Redis, for the remote tier's fault tests.  MODE:
  junk  answer anything with bytes that are not the Redis protocol
  ok    answer every request with "+OK", whatever it asked (a GET gets a
        status reply instead of a value)
Runs until killed."""
import socket
import sys
import threading

port, mode = int(sys.argv[1]), sys.argv[2]
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
s.listen(16)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
