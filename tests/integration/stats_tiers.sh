#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Statistics per tier (issue 31 item 3) and the wall time waited (issue 27
# item 8), with real OpenCL builds on PoCL:
# - counts reach `jitcache stats` while the process runs, and stay after it
#   is killed with SIGKILL (a server that never exits normally);
# - hits by tier (local store, each layer), misses by cause (found nowhere,
#   damaged, untrusted, tier unreachable), builds failed, stores by tier,
#   time saved as CPU and wall, hit rate, since when; `stats --zero`;
# - `stats --json` (schema 2), `stats --prometheus` (text exposition format),
#   `stats_log` (one JSON line per process);
# - the exit line: "H hits, M misses, S stores; compiling avoided: W s (C s
#   of CPU)".
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0
CLB=$B/tests/cl_build
need_pocl
cd "$T" || exit 1
cp "$ROOT/tests/integration/compute.cl" k.cl
build() { # NAME [cl_build args]: one build of k.cl through jitcache
	local name=$1; shift
	JITCACHE_LOG=info "$JITCACHE" run -- "$CLB" --platform Portable --source k.cl --options "-DSCALE=1.75f" "$@" \
		>"$name.out" 2>"$name.err"
}
# json EXPR [FILE]: a value of `jitcache stats --json` (or FILE's last line),
# as Python prints it.
json() {
	if [ $# -gt 1 ]; then tail -n 1 "$2"; else "$JITCACHE" stats --json; fi |
		python3 -c 'import json, sys; s = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}

# ---- a miss, stored; the exit line has both times ----------------------------
build cold
check "cold: 1 miss, 1 store" grep -q "jitcache: 0 hits, 1 misses, 1 stores; " cold.err
check "miss found nowhere: counted by cause" test "$(json 's["misses_by_cause"]["not_found"]')" = 1
check "stores by tier: 1 local, 0 pending" \
	test "$(json 's["stores_by_tier"]["local"], s["stores_by_tier"]["pending"]')" = "(1, 0)"

# ---- a server: builds (a hit), then sleeps until killed ------------------------
JITCACHE_LOG=info "$JITCACHE" run -- "$CLB" --platform Portable --source k.cl --options "-DSCALE=1.75f" --sleep \
	>server.out 2>server.err &
server=$!
for _ in $(seq 600); do grep -q '^sleeping' server.out && break; sleep 0.1; done
check "the server built and sleeps" grep -q '^sleeping' server.out
check "while the server runs, its hit is in jitcache stats" test "$(stats_field hits)" = 1
check "... from the local store (hits_by_tier)" test "$(json 's["hits_by_tier"]["local"]')" = 1
kill -TERM "$server" 2>/dev/null
sleep 0.2
kill -KILL "$server" 2>/dev/null
wait "$server" 2>/dev/null
check_not "the server never exited normally (no exit line)" grep -q "jitcache: .* hits" server.err
check "after SIGTERM, SIGKILL: its hit is still counted" test "$(stats_field hits)" = 1
check "... and the time it saved, CPU and wall (wall >= CPU > 0)" \
	test "$(json 's["saved_s"]["wall"] >= s["saved_s"]["cpu"] > 0')" = True

# ---- the exit line ------------------------------------------------------------
build warm
check "warm: exit line keeps its prefix: the compiling avoided, wall then CPU" \
	grep -Eq "jitcache: 1 hits, 0 misses, 0 stores; compiling avoided: [0-9]+\.[0-9]{2} s \([0-9]+\.[0-9]{2} s of CPU\) \(cache " warm.err
check "hit rate 2 of 3 lookups" test "$(json 's["hit_rate"]')" = 0.6667

# ---- stats --prometheus -------------------------------------------------------
"$JITCACHE" stats --prometheus >prom.txt
check "prometheus: every sample is a valid line after its HELP and TYPE, hits agree" \
	python3 - prom.txt "$(json 's["hits_by_tier"]["local"]')" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
typed, local = set(), None
sample = re.compile(r'^(jitcache_[a-z_]+)\{dir="(?:[^"\\]|\\.)*"(,[a-z_]+="[^"]*")*\} (-?[0-9.e+]+)$')
for l in lines:
    m = re.match(r'^# TYPE (\S+) (counter|gauge)$', l)
    if m:
        typed.add(m.group(1)); continue
    if l.startswith('# HELP '):
        continue
    m = sample.match(l)
    assert m, "bad line: " + l
    assert m.group(1) in typed, "no TYPE before " + l
    if m.group(1) == 'jitcache_hits_total' and 'tier="local"' in l:
        local = float(m.group(3))
assert local == float(sys.argv[2]), (local, sys.argv[2])
assert any(l.startswith('jitcache_saved_seconds_total{') and 'clock="wall"' in l for l in lines)
PY

# ---- misses by cause ----------------------------------------------------------
entry=$(find "$JITCACHE_DIR" -mindepth 2 -type f -regex '.*/[0-9a-f][0-9a-f]/[0-9a-f]*' |
	while read -r f; do [ "$(od -An -tu1 -j12 -N1 "$f" | tr -d ' ')" = 0 ] && echo "$f"; done)
printf 'X' | dd of="$entry" bs=1 seek=70 conv=notrunc 2>/dev/null
build damaged
check "a damaged entry: 1 miss counted as damaged" test "$(json 's["misses_by_cause"]["damaged"]')" = 1
check "... and the flat corrupt counter, as a grep of the JSON (stats_field) reads it" \
	test "$(stats_field corrupt) $(stats_field untrusted)" = "1 0"
printf 'kernel void compute(global float *o) { o[0] = ; }\n' >bad.cl
JITCACHE_LOG=info "$JITCACHE" run -- "$CLB" --platform Portable --source bad.cl >bad.out 2>&1
check "a build that fails: counted in build_failed" \
	test "$(json 's["misses_by_cause"]["build_failed"]')" = 1
JITCACHE_DIR=$T/unreach JITCACHE_REMOTE=redis://127.0.0.1:1 build unreachable
check "Redis unreachable: the miss is counted so" \
	test "$(JITCACHE_DIR=$T/unreach json 's["misses_by_cause"]["unreachable"]')" = 1
# The first cache as a read-only layer of a new one: a hit of layer 1.
JITCACHE_DIR=$T/second JITCACHE_LAYERS=$T/cache build layer
check "a hit from layer 1" test "$(JITCACHE_DIR=$T/second json 's["hits_by_tier"]["layer"]')" = "[1]"
"$JITCACHE" keygen key >/dev/null 2>&1
JITCACHE_DIR=$T/third JITCACHE_LAYERS=$T/cache JITCACHE_TRUSTED_KEYS=$T/key.pub build untrusted
check "an unsigned layer entry with trusted_keys: the miss is counted as untrusted" \
	test "$(JITCACHE_DIR=$T/third json 's["misses_by_cause"]["not_trusted"]')" = 1

# ---- stats_log ----------------------------------------------------------------
JITCACHE_STATS_LOG=$T/stats.jsonl build logged
JITCACHE_STATS_LOG=$T/stats.jsonl build logged2
check "stats_log: one line per process" test "$(wc -l <stats.jsonl)" = 2
check "stats_log: program, pid, hits by tier, misses by cause, seconds saved" \
	test "$(json 's["program"], s["pid"] > 0, s["hits_by_tier"]["local"], s["misses_by_cause"]["not_found"], s["saved_s"]["wall"] > 0' stats.jsonl)" = "('cl_build', True, 1, 0, True)"

# ---- since, --zero ------------------------------------------------------------
since=$(json 's["since"]')
check "since: when the counters started (a Unix time)" test "$since" -gt 0
before=$(date +%s)
check "stats --zero" "$JITCACHE" stats --zero
check "after --zero: every counter 0, since now" \
	test "$(json 's["hits"], s["misses"], s["hits_by_tier"]["local"], s["saved_s"]["cpu"], s["since"] >= '"$before")" = "(0, 0, 0, 0.0, True)"
"$JITCACHE" stats >human.txt
check "stats (text): hits by tier, misses by cause, both times saved, since" \
	sh -c 'grep -q "^hits by tier  *local 0$" human.txt && grep -q "^misses by cause " human.txt && grep -q "^JIT time saved  *0.0 s CPU, 0.0 s wall" human.txt && grep -q "^counted since  *[0-9]" human.txt'
finish
