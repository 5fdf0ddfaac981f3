#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""oci_fault.py — the registry faults oci_registry.sh needs beside the real
registry (Debian's docker-registry), which cannot be made to show them:

  oci_fault.py 500 CERT KEY
      an HTTPS server on 127.0.0.1 (a free port, printed on stdout once
      listening) that answers every request with HTTP 500; runs until killed
  oci_fault.py put-manifest HOST CA REPO TAG NEW_TAG DOCKER_CONFIG_JSON
      copies REPO:TAG's manifest (a tag's index: its newest pack's) to
      REPO:NEW_TAG with its org.jitcache.driver annotation naming another
      driver build (credentials: the config's)
"""
import base64
import http.server
import json
import socketserver
import ssl
import sys
import urllib.request


class Fail(http.server.BaseHTTPRequestHandler):
    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        body = b'{"errors":[{"code":"UNKNOWN","message":"injected"}]}'
        self.send_response(500)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_HEAD = do_PUT = do_POST = answer

    def log_message(self, *args):
        pass


def serve_500(cert, key):
    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
    server = Server(("127.0.0.1", 0), Fail)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def put_manifest(host, ca, repo, tag, new_tag, config):
    auth = json.load(open(config))["auths"][host]["auth"]
    ctx = ssl.create_default_context(cafile=ca)
    url = f"https://{host}/v2/{repo}/manifests/"
    mt = "application/vnd.oci.image.manifest.v1+json"
    hdr = {"Authorization": "Basic " + auth, "Accept": mt + ", application/vnd.oci.image.index.v1+json"}
    get = lambda ref: json.load(urllib.request.urlopen(urllib.request.Request(url + ref, headers=hdr),
                                                       context=ctx))
    m = get(tag)
    if "manifests" in m:  # the tag's index of packs: its newest
        m = get(m["manifests"][-1]["digest"])
    m["annotations"]["org.jitcache.driver"] = "libze_intel_gpu.so.1.3.99999 build-id 00"
    req = urllib.request.Request(url + new_tag, data=json.dumps(m).encode(), method="PUT",
                                 headers=dict(hdr, **{"Content-Type": mt}))
    print(urllib.request.urlopen(req, context=ctx).status)


if sys.argv[1] == "500":
    serve_500(sys.argv[2], sys.argv[3])
elif sys.argv[1] == "put-manifest":
    put_manifest(*sys.argv[2:8])
else:
    sys.exit(__doc__)
