#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""oci_bearer.py CERT KEY USER PASSWORD LOG — a small OCI registry on
127.0.0.1 (HTTPS, a free port printed on stdout once listening) that takes
only Bearer tokens, as every public registry does: a request without one is
answered 401 with `WWW-Authenticate: Bearer realm=".../token",
service="jc-test",scope="repository:NAME:pull,push"`; GET /token with Basic
USER:PASSWORD gives {"token": ...}.  Blobs and manifests are kept in memory
(the Distribution API's upload, blob and manifest requests, enough for
jitcache's client).  Each request is logged to LOG, one line: METHOD PATH
AUTH-SCHEME.  Runs until killed.  (Debian's docker-registry takes tokens
only from a token server of its own: this stands in for both.)"""
import base64
import hashlib
import http.server
import json
import socketserver
import ssl
import sys
import threading

cert, key, user, password, logfile = sys.argv[1:6]
TOKEN = "tok-" + hashlib.sha256(password.encode()).hexdigest()[:16]
blobs, manifests, lock = {}, {}, threading.Lock()
log = open(logfile, "a", buffering=1)


class Registry(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def handle_any(self):
        auth = self.headers.get("Authorization", "")
        log.write("%s %s %s\n" % (self.command, self.path.split("?")[0], auth.split(" ")[0] or "-"))
        data = self.body()
        if self.path.startswith("/token"):
            ok = auth == "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
            return self.reply(200, json.dumps({"token": TOKEN}).encode()) if ok else self.reply(401)
        if auth != "Bearer " + TOKEN:
            port = self.server.server_address[1]
            repo = self.path.split("/")[2:4]
            return self.reply(401, b"{}", [("WWW-Authenticate",
                              f'Bearer realm="https://127.0.0.1:{port}/token",service="jc-test",'
                              f'scope="repository:{"/".join(repo)}:pull,push"')])
        path, _, query = self.path.partition("?")
        parts = path.split("/")
        with lock:
            if "/blobs/uploads/" in path and self.command == "POST":
                return self.reply(202, b"", [("Location", path + "u1")])
            if "/blobs/uploads/" in path and self.command == "PUT":
                digest = query.split("digest=")[1].split("&")[0]
                blobs[digest] = data
                return self.reply(201)
            if parts[-2] == "blobs":
                b = blobs.get(parts[-1])
                return self.reply(200, b) if b is not None else self.reply(404)
            if parts[-2] == "manifests" and self.command == "PUT":
                manifests[parts[-1]] = data
                return self.reply(201)
            if parts[-2] == "manifests":
                m = manifests.get(parts[-1])
                return self.reply(200, m, [("Content-Type", "application/vnd.oci.image.manifest.v1+json")]) \
                    if m is not None else self.reply(404)
        return self.reply(404)

    do_GET = do_HEAD = do_PUT = do_POST = handle_any

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Registry)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
