#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trickle_proxy.py PORT TARGET_PORT READY — a TCP proxy on 127.0.0.1:PORT
to 127.0.0.1:TARGET_PORT that passes requests on at once but answers
slowly: 512 bytes every 0.3 s, the link of a client whose every read(2)
returns well within its timeout while the answer as a whole takes seconds.
Creates the file READY once listening; runs until killed."""
import socket
import sys
import threading
import time

port, target, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]


def upstream(client, server):
    try:
        while True:
            data = client.recv(1 << 16)
            if not data:
                break
            server.sendall(data)
    except OSError:
        pass


def serve(client):
    server = socket.create_connection(("127.0.0.1", target))
    threading.Thread(target=upstream, args=(client, server), daemon=True).start()
    try:
        while True:
            data = server.recv(512)
            if not data:
                break
            client.sendall(data)
            time.sleep(0.3)
    except OSError:
        pass
    client.close()
    server.close()


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(16)
open(ready, "w").close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
