#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""examples/llama/serve.py [options] -- SERVER-COMMAND...: runs an LLM server
as its users do and asks it one completion over HTTP on 127.0.0.1, as a
client would: starts the command (with --host 127.0.0.1 --port PORT added
for llama-server; OLLAMA_HOST for ollama), waits until it answers, sends the
request (streamed, greedy: temperature 0, a fixed seed), then stops the
server's process group with SIGINT (as Ctrl-C does) and waits for it.  Prints, one per line:
  ready: S          process start -> the server answers its health check
  created: S        (--create) process start -> the model created
  first_token: S    request sent -> first generated token received
  last_token: S     request sent -> last token received
  tokens: ID ...    the generated token ids (llama-server's return_tokens)
  text: JSON        the generated text
  wall: S           process start -> process exit
  exit: N           the server's exit status (-N: killed by signal N;
                    bigdl-core-cpp 2.6.0's llama-server aborts on every
                    shutdown: "terminate called without an active exception")
Exit status: 0 when the request was answered.
  serve.py --api llama --prompt "once upon a time" -n 8 -- llama-server -m M -ngl 99
  serve.py --api ollama --model tiny --create Modelfile -n 8 -- ollama serve"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(proc, url, limit):
    """Until url answers 200 (or the process ends, or limit seconds pass)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def post_stream(url, body):
    """POST body (JSON), read the streamed answer: [(time, chunk)]."""
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    out = []
    with urllib.request.urlopen(req, timeout=600) as r:
        for line in r:
            line = line.strip()
            if line.startswith(b"data: "):
                line = line[6:]
            if not line or line == b"[DONE]":
                continue
            out.append((time.monotonic(), json.loads(line)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--api", choices=("llama", "ollama"), default="llama")
    ap.add_argument("--prompt", default="once upon a time")
    ap.add_argument("--model", default="tiny", help="ollama: the model's name")
    ap.add_argument("--create", metavar="MODELFILE",
                    help="ollama: first `ollama create MODEL -f MODELFILE` (the ollama beside the server's)")
    ap.add_argument("-n", type=int, default=8)
    ap.add_argument("--ready-limit", type=float, default=600)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    port = free_port()
    env = dict(os.environ)
    if a.api == "llama":
        cmd = cmd + ["--host", "127.0.0.1", "--port", str(port)]
        health = "http://127.0.0.1:%d/health" % port
    else:
        env["OLLAMA_HOST"] = "127.0.0.1:%d" % port
        health = "http://127.0.0.1:%d/api/version" % port
    t0 = time.monotonic()
    # Its own process group, stopped as Ctrl-C stops it: SIGINT to the whole
    # group (ipex-llm's ollama is a wrapper that runs ollama-lib with system(),
    # which ignores SIGINT itself; ollama-lib starts a runner process).
    proc = subprocess.Popen(cmd, env=env, start_new_session=True)
    ok = False
    try:
        if not wait_ready(proc, health, a.ready_limit):
            print("serve.py: the server did not answer %s" % health, file=sys.stderr)
            return 1
        print("ready: %.3f" % (time.monotonic() - t0), flush=True)
        if a.create:
            ollama = next(c for c in cmd if os.path.basename(c) == "ollama")
            subprocess.run([ollama, "create", a.model, "-f", a.create], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            print("created: %.3f" % (time.monotonic() - t0), flush=True)
        sent = time.monotonic()
        if a.api == "llama":
            chunks = post_stream("http://127.0.0.1:%d/completion" % port, {
                "prompt": a.prompt, "n_predict": a.n, "temperature": 0, "seed": 1,
                "ignore_eos": True, "return_tokens": True, "stream": True, "cache_prompt": False})
            toks = [(t, c.get("tokens", []), c.get("content", "")) for t, c in chunks]
        else:
            chunks = post_stream("http://127.0.0.1:%d/api/generate" % port, {
                "model": a.model, "prompt": a.prompt, "raw": True, "stream": True,
                "options": {"temperature": 0, "seed": 1, "num_predict": a.n}})
            toks = [(t, [], c.get("response", "")) for t, c in chunks]
        got = [x for x in toks if x[1] or x[2]]
        if got:
            print("first_token: %.3f" % (got[0][0] - sent))
            print("last_token: %.3f" % (got[-1][0] - sent))
        print("tokens: %s" % " ".join(str(i) for x in toks for i in x[1]))
        print("text: %s" % json.dumps("".join(x[2] for x in toks)), flush=True)
        ok = bool(got)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGINT)
            rc = proc.wait(timeout=120)
        except ProcessLookupError:
            rc = proc.wait()
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
        print("wall: %.3f" % (time.monotonic() - t0))
        print("exit: %d" % rc, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
