#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The HTTP(S) tier's client (tiers/http.h) against a real web server:
# nginx (Debian's nginx-light, WebDAV PUT) started here on 127.0.0.1, plain
# and with TLS (a CA and certificates made here, one expired), and a small
# fault server (tests/helpers/fault_http.py) for what nginx cannot be made
# to do.  Entries are put and got back with tests/helpers/jc_http_tool and
# checked as entry files; each fault costs one line, bounded time, and -1.
. "$(dirname "$0")/../lib.sh"
TOOL=$B/tests/jc_http_tool
if [ ! -x "$TOOL" ] || ! command -v nginx >/dev/null || ! command -v openssl >/dev/null; then
	check "jc_http_tool built (make tests), nginx-light and openssl installed (make deps)" false
	finish; exit $?
fi
mkdir -p "$T/state"

# tool NAME ARGS...: jc_http_tool (its back-off file in $T/state, no
# back-off unless -b), output in $T/NAME.out; killed if it runs 30 s
tool() {
	local name=$1; shift
	timeout 30 "$TOOL" -d "$T/state" "$@" >"$T/$name.out" 2>&1
	echo $? >"$T/$name.rc"
}
has() { grep -qE -- "$2" "$T/$1.out"; }
said() { [ "$(grep -c '^jitcache: ' "$T/$1.out")" = "${2:-1}" ]; }  # N lines from jitcache
ended() { [ "$(cat "$T/$1.rc")" != 124 ]; }                     # not killed by timeout
hex() { "$TOOL" x path "$1"; }

# libcurl is loaded by jc_http_open, not before.
tool maps http://127.0.0.1:1/x maps
check "libcurl is not mapped before an HTTP tier is used (opened: settings only), and is after" has maps '^before=0 opened=0 after=1$'

start_nginx_dav "$T/nginx"
check "nginx started" test -n "${NGINX_URL:-}"
R=$T/nginx/root
h=$(hex a)

# ---- entries put and got back, each layout -------------------------------
tool put "$NGINX_URL/cache" put a 1000
check "put stores the entry (201 from WebDAV)" has put '^put 0$'
check "put counts one store and the bytes out" has put 'errors=0 corrupt=0 in=0 out=1064 stores=1'
check "subdirs layout: PATH/<2 hex>/<32 hex>, as the cache directory and a layer" \
	test -f "$R/cache/${h:0:2}/$h"
tool get "$NGINX_URL/cache" get a 1000
check "get finds it, and it checks as an entry with put's data" has get '^get 1 ok$'
check "get counts the bytes in" has get 'errors=0 corrupt=0 in=1064 out=0'
check "get and put said nothing" said get 0
tool absent "$NGINX_URL/cache" get b
check "an absent key is a miss (0), not an error" has absent '^get 0$'
check "a miss counts no error" has absent 'errors=0'
tool flat -l flat "$NGINX_URL/flat" put a 1000
check "flat layout: PATH/<32 hex>" test -f "$R/flat/$h"
tool flatget -l flat "$NGINX_URL/flat" get a 1000
check "flat layout: got back" has flatget '^get 1 ok$'
tool bazel -l bazel "$NGINX_URL/bz/" put a 1000
check "bazel layout: PATH/ac/<64 hex> (ccache's: the digits twice)" test -f "$R/bz/ac/$h$h"
tool bazelget -l bazel "$NGINX_URL/bz" get a 1000
check "bazel layout: got back" has bazelget '^get 1 ok$'
mkdir -p "$R/served/${h:0:2}" && cp "$R/cache/${h:0:2}/$h" "$R/served/${h:0:2}/"
tool served "$NGINX_URL/served" get a 1000
check "a directory laid out as the cache's is served as it is" has served '^get 1 ok$'

tool threads "$NGINX_URL/threads" threads 40
check "a writer thread puts while the program's thread gets: every get sound, every put stored" \
	has threads '^threads ok'
tool fork "$NGINX_URL/cache" fork a
check "a fork()ed child gets on a connection of its own; the parent's still serves it" \
	has fork '^fork parent=1 child=1 parent-again=1$'
tool put5k "$NGINX_URL/cache" put a5k 5000
tool bench "$NGINX_URL/cache" bench a5k 200
check "200 lookups of one entry: every one a hit" has bench 'hits=200/200'
sed -n 's/^bench/nginx loopback GET hit (5 KB entry):/p' "$T/bench.out"

# ---- bad objects ----------------------------------------------------------------
tool big "$NGINX_URL/cache" put big 3000000
tool bigget -m 100000 "$NGINX_URL/cache" get big
check "an object larger than the limit is a miss" has bigget '^get 0$'
check "... not read (no byte in), counted as a bad value" has bigget 'corrupt=1 in=0 '
check "... said once" said bigget 1
check "... in one line that says so" has bigget 'larger than max_size allows'
hb=$(hex b)
mkdir -p "$R/cache/${hb:0:2}" && cp "$R/cache/$(hex big | cut -c1-2)/$(hex big)" "$R/cache/${hb:0:2}/$hb"
tool other "$NGINX_URL/cache" get b
check "another key's object is got, and refused by the check" has other '^get 1 corrupt'
in=$(sed -n 's/.* in=\([0-9]*\) .*/\1/p' "$T/other.out")
check "... from its header: not read whole ($in of 3000064 bytes)" test "${in:-3000064}" -lt 3000000
head -c 1064 /dev/urandom >"$R/cache/${h:0:2}/$h"
tool garbled "$NGINX_URL/cache" get a 1000
check "an object of garbage is refused by the check" has garbled '^get 1 corrupt'

# ---- URLs and auth files ------------------------------------------------------------
tool userinfo "http://u:p@127.0.0.1:1/x" get a
check "credentials in a URL: the tier is not opened" has userinfo '^open failed$'
check "... one line says where they go, without the password" eval 'has userinfo "auth[-_]file" && ! has userinfo u:p@'
tool badurl "ftp://127.0.0.1/x" get a
check "a URL of another scheme: not opened, one line" said badurl 1
stop_server nginx
NGINX_EXTRA='if ($http_authorization != "Bearer tok-3141") { return 401; }' \
	start_nginx_dav "$T/nginx-bearer"
printf 'Bearer tok-3141\n' >"$T/bearer" && chmod 600 "$T/bearer"
printf 'Bearer wrong\n' >"$T/wrong" && chmod 600 "$T/wrong"
tool bput -a "$T/bearer" "$NGINX_URL/c" put a 1000
tool bget -a "$T/bearer" "$NGINX_URL/c" get a 1000
check "bearer token from the auth file: put and get" \
	eval 'has bput "^put 0$" && has bget "^get 1 ok$"'
tool bnone "$NGINX_URL/c" get a
check "no credentials where they are needed: -1" has bnone '^get -1$'
check "... counted as an error" has bnone 'errors=1'
check "... one line naming HTTP 401" eval 'said bnone 1 && has bnone "HTTP 401"'
tool bwrong -a "$T/wrong" "$NGINX_URL/c" put a 1000
check "wrong credentials: put fails with one line" eval 'has bwrong "^put -1$" && said bwrong 1'
chmod 644 "$T/bearer"
tool bopen -a "$T/bearer" "$NGINX_URL/c" get a
check "an auth file others can read: not opened, one line saying chmod 600" \
	eval 'has bopen "^open failed$" && said bopen 1 && has bopen "chmod 600"'
stop_server nginx
printf 'jit:{PLAIN}pass-2718\n' >"$T/htpasswd"
NGINX_EXTRA="auth_basic jc; auth_basic_user_file $T/htpasswd;" start_nginx_dav "$T/nginx-basic"
printf 'jit:pass-2718\n' >"$T/basic" && chmod 600 "$T/basic"
tool uput -a "$T/basic" "$NGINX_URL/c" put a 1000
tool uget -a "$T/basic" "$NGINX_URL/c" get a 1000
check "basic auth (USER:PASSWORD) from the auth file: put and get" \
	eval 'has uput "^put 0$" && has uget "^get 1 ok$"'
tool unone "$NGINX_URL/c" get a
check "basic auth refused without the file: -1, one line" eval 'has unone "^get -1$" && said unone 1'
stop_server nginx

# ---- TLS -----------------------------------------------------------------------------------
C=$T/certs
mkdir -p "$C"
(
	cd "$C" || exit 1
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
		-out ca.pem -days 2 -subj /CN=jitcache-test-ca
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key \
		-out srv.csr -subj /CN=127.0.0.1
	printf 'subjectAltName=IP:127.0.0.1\n' >ext
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
		-extfile ext -out srv.pem
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days -1 \
		-extfile ext -out expired.pem
) >"$T/openssl.log" 2>&1
check "a test CA and certificates made" test -s "$C/expired.pem"
start_nginx_dav "$T/nginx-tls" "$C/srv.pem" "$C/srv.key"
tool tput -c "$C/ca.pem" "$NGINX_URL/c" put a 1000
tool tget -c "$C/ca.pem" "$NGINX_URL/c" get a 1000
check "https with the server's CA (ca_file): put and get" \
	eval 'has tput "^put 0$" && has tget "^get 1 ok$"'
tool tsys "$NGINX_URL/c" get a
check "https is verified: the system's store does not know the test CA: -1" has tsys '^get -1$'
check "... one line about the certificate" eval 'said tsys 1 && has tsys "TLS failed.*certificate"'
stop_server nginx
start_nginx_dav "$T/nginx-expired" "$C/expired.pem" "$C/srv.key"
tool texp -c "$C/ca.pem" "$NGINX_URL/c" get a
check "an expired certificate: -1" has texp '^get -1$'
check "... one line saying it expired" eval 'said texp 1 && has texp "expired"'
stop_server nginx

# ---- faults: one line each, bounded time, -1 -------------------------------------------------
port=$(free_port)
tool down -t 2 -T 1 "http://127.0.0.1:$port/c" get a
check "server down: -1, counted" eval 'has down "^get -1$" && has down "errors=1"'
check "server down: one line" eval 'said down 1 && has down "cannot connect"'
tool down_put -t 2 -T 1 "http://127.0.0.1:$port/c" put a 10
check "server down: put -1 too" has down_put '^put -1$'
tool back1 -b 30 -t 2 -T 1 "http://127.0.0.1:$port/c" get a
tool back2 -b 30 -t 2 -T 1 "http://127.0.0.1:$port/c" get a
check "after a failure the remote is skipped for backoff s, by another process too (no try)" \
	eval 'has back2 "^get -1$" && has back2 "errors=0" && said back2 0'
fault() { # MODE: start the fault server on $port
	rm -f "$T/ready"
	python3 "$ROOT/tests/helpers/fault_http.py" "$1" "$port" "$T/ready" &
	SERVER_PIDS[fault]=$!
	for i in $(seq 1 100); do [ -e "$T/ready" ] && return 0; sleep 0.05; done
	return 1
}
for mode in drip hang close garbage 500 redirect; do
	port=$(free_port)
	fault $mode
	tool "f-$mode" -t 1.5 -T 1 "http://127.0.0.1:$port/c" get a
	check "fault $mode: get -1" has "f-$mode" '^get -1$'
	check "fault $mode: within the timeout (not killed), one line" \
		eval "ended f-$mode && said f-$mode 1"
	tool "p-$mode" -t 1.5 -T 1 "http://127.0.0.1:$port/c" put a 100000
	check "fault $mode: put -1 too, within the timeout, one line" \
		eval "has p-$mode '^put -1$' && ended p-$mode && said p-$mode 1"
	stop_server fault
done
check "drip: the whole answer is bounded" has f-drip 'no whole answer to GET within 1.5 s'
check "garbage: said to be not HTTP" has f-garbage 'not HTTP'
check "500: said as a server failure" has f-500 'HTTP 500'
check "redirect: not followed, said" has f-redirect 'redirect .* not followed'
port=$(free_port)
fault endless
tool f-endless -m 1000000 -t 20 "http://127.0.0.1:$port/c" get a
check "an endless answer of no length: refused from its first 64 bytes (web_bounds.sh: the rest)" \
	eval 'has f-endless "^get 1 corrupt .*bad magic" && ended f-endless'
stop_server fault
check "no sanitizer report from any run (SANITIZE builds)" \
	eval '! grep -lE "Sanitizer|runtime error" "$T"/*.out'
finish
