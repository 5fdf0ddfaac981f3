#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The web remote's bounds however an answer is framed, and what a miss
# costs (issue 35, items 5 and 11), against nginx (WebDAV) and the fault
# server (tests/helpers/fault_http.py) serving nginx's files chunked, or
# without any length:
#   - a body of no stated length is held to what its first 64 bytes say:
#     one that is not the key's entry is not read past them, one whose header
#     claims more than max_size is not read either, one longer than its
#     header says is cut there; each in little time and memory, as with a
#     Content-Length;
#   - a sound entry sent chunked, or ended by closing, is a hit;
#   - a miss asks each web remote once: the look after the compile-once
#     lock does not ask again a remote that just answered "absent" (with
#     2-second 404s: one answer's time, not two).
. "$(dirname "$0")/../lib.sh"
TOOL=$B/tests/jc_http_tool LOOKUP=$B/tests/jc_lookup
if [ ! -x "$TOOL" ] || [ ! -x "$LOOKUP" ] || ! command -v nginx >/dev/null; then
	check "jc_http_tool and jc_lookup built (make tests), nginx-light installed (make deps)" false
	finish; exit $?
fi
mkdir -p "$T/state"
check "nginx started" start_nginx_dav "$T/ng"
R=$T/ng/root

# tool NAME ARGS...: jc_http_tool, 60 s at most; "SECONDS KB" in NAME.time
tool() {
	local name=$1; shift
	/usr/bin/time -f "%e %M" -o "$T/$name.time" timeout 60 "$TOOL" -d "$T/state" "$@" \
		>"$T/$name.out" 2>&1
}
has() { grep -qE -- "$2" "$T/$1.out"; }
small() { read -r secs kb < <(tail -n 1 "$T/$1.time") && ge "$2" "$secs" && [ "$kb" -lt "$3" ]; }
# little: within SECONDS, and within 8 MB of a lookup that found nothing
little() { small "$1" "$2" $((BASE_KB + 8192)); }
took() { tail -n 1 "$T/$1.time" | awk '{printf "%s s, %.1f MB", $1, $2 / 1024}'; }
fault() { # MODE [ROOT]: the fault server on a new $port
	port=$(free_port)
	rm -f "$T/ready"
	python3 "$ROOT/tests/helpers/fault_http.py" "$1" "$port" "$T/ready" "${2:-}" &
	SERVER_PIDS[fault]=$!
	for i in $(seq 1 100); do [ -e "$T/ready" ] && return 0; sleep 0.05; done
	return 1
}

tool put-a "$NGINX_URL/c" put a 30000000
tool put-b "$NGINX_URL/c" put b 50000000
check "two entries stored on nginx (30 MB, 50 MB)" eval 'has put-a "^put 0$" && has put-b "^put 0$"'
tool none "$NGINX_URL/c" get nothing-there
BASE_KB=$(awk '{ print $2 }' "$T/none.time")
echo "     a lookup that finds nothing: $(took none)"
# The same bytes as another key's: every byte after the header is sound.
mkdir -p "$R/c/$("$TOOL" x path z | cut -c1-2)"
cp "$R/c/$("$TOOL" x path a | cut -c1-2)/$("$TOOL" x path a)" \
	"$R/c/$("$TOOL" x path z | cut -c1-2)/$("$TOOL" x path z)"

# ---- bodies of no stated length --------------------------------------------------------
fault endless
tool endless -m 200000000 -t 20 "http://127.0.0.1:$port/c" get a
check "zeros without end, chunked, max_size 200 MB: refused from their first bytes ($(took endless))" \
	eval 'has endless "^get 1 corrupt .*bad magic" && little endless 2'
stop_server fault
for mode in chunked unframed; do
	fault $mode "$R"
	tool "$mode" -t 20 "http://127.0.0.1:$port/c" get a 30000000
	check "$mode: a sound 30 MB entry is a hit, its data put's ($(took $mode))" has $mode '^get 1 ok$'
	tool "$mode-other" -m 200000000 -t 20 "http://127.0.0.1:$port/c" get z
	check "$mode: another key's entry, max_size 200 MB: refused from its first bytes ($(took $mode-other))" \
		eval "has $mode-other '^get 1 corrupt .*another key' && little $mode-other 2"
	tool "$mode-large" -m 10000000 -t 20 "http://127.0.0.1:$port/c" get b
	check "$mode: a 50 MB entry, max_size 10 MB: refused unread ($(took $mode-large))" \
		eval "has $mode-large '^get 1 corrupt .*larger than max_size' && little $mode-large 2"
	stop_server fault
done
fault overlong "$R"
tool overlong -m 200000000 -t 20 "http://127.0.0.1:$port/c" get a 30000000
check "a sound entry followed by zeros without end: refused at the size its header says ($(took overlong))" \
	eval 'has overlong "^get 1 corrupt .*size does not match" && small overlong 2 $((BASE_KB + 100000))'
stop_server fault

# ---- a miss asks each web remote once -----------------------------------------------------
fault slow404
K=0123456789abcdef0123456789abcdef
JITCACHE_REMOTE=http://127.0.0.1:$port/c JITCACHE_DIR=$T/node-slow \
	/usr/bin/time -f "%e %M" -o "$T/slow.time" timeout 60 "$LOOKUP" $K >"$T/slow.out" 2>&1
# (and the compile lease one more: the first miss of a process PUTs
# leases/README, whose 404 means the server holds no leases)
check "a miss, 404s that take 2 s: the lookup and the look after the lock take one answer, the lease one ($(took slow))" \
	eval 'has slow " miss " && small slow 5.5 65536'
JITCACHE_REMOTE=http://127.0.0.1:$port/c JITCACHE_DIR=$T/node-slow \
	/usr/bin/time -f "%e %M" -o "$T/slow2.time" timeout 60 "$LOOKUP" $K $K >"$T/slow2.out" 2>&1
check "... the same key asked twice by a program: asked twice ($(took slow2))" \
	eval '[ "$(grep -c " miss " "$T/slow2.out")" = 2 ] && ! small slow2 3.5 65536'
stop_server fault
check "no sanitizer report from any run (SANITIZE builds)" \
	eval '! grep -lE "Sanitizer|runtime error" "$T"/*.out'
finish
