#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The docs' recipes as written (issue 36: docs/fleets.md's nginx recipe
# failed with HTTP 500, then 413).  Every fenced block of the fleet pages
# (docs/fleets.md, fleets-redis.md, fleets-web-s3.md: PAGES below) is
# taken from its page and run in page order against real servers on the
# loopback (nginx, Redis; the Redis recipe's own redis-server, which its
# `systemctl restart redis-server` starts from the redis.conf the page
# changes) and a real Level Zero program (simulated Arc):
# sh blocks as shell commands; nginx blocks saved as the file the page names;
# ini blocks checked by `jitcache config` and used by the sh blocks after them
# in their section; Dockerfile blocks as the commands a build runs (COPY,
# RUN, ENV; FROM ignored).  A block the page marks
# `<!-- docs_fleets.sh: not run: WHY -->` is only counted, with its WHY.
# Only hosts, ports, paths and the user's program are rewritten, by the
# table REWRITES below, which is printed.  Then the README's install lines:
# its apt-get packages are real and the ones `make demo` installs, and
# `make`, then `sudo make install`, gives a working command with its man page
# (`pip install .` is wheel.sh's).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
. "$ROOT/tests/integration/remote_common.bash"
# remote_common.bash's EXIT trap stops only Redis: stop nginx, the Redis
# recipe's server, and remove $U too.
trap 'stop_all_redis; stop_recipe_redis; [ "${KEEP:-0}" = 1 ] || cleanup_dirs' EXIT
need_ze
need_redis
command -v nginx >/dev/null || { check "nginx installed (make deps)" false; finish; exit; }
command -v curl >/dev/null || { check "curl installed (make deps)" false; finish; exit; }

# nginx's worker runs as www-data, as Debian's nginx.conf says; what it serves
# and writes lies under $U, which it can reach ($T is 0700).
U=$(mktemp -d /tmp/jitcache-docs-fleets.XXXXXX)
chmod 755 "$U"
CLEANUP_DIRS="$CLEANUP_DIRS $U"
ROOTED=0
[ "$(id -u)" -eq 0 ] && id www-data >/dev/null 2>&1 && ROOTED=1

check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
# The user's program, wherever the page runs one.
cat >"$T/app" <<EOF
#!/bin/sh
exec "$EXAMPLE" "$T/reduce.spv"
EOF
chmod +x "$T/app"
start_redis docs
PORT=$(free_port)
# The Redis recipe's server: Debian's redis-server as the page's
# `systemctl restart redis-server` starts it, from its redis.conf (made
# below, as Debian ships it but for the port and paths).
RPORT=$(free_port)
RDIR=$T/redis-recipe
stop_recipe_redis() {
	local pid
	pid=$(cat "$RDIR/redis.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null
	for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.025; done
	rm -f "$RDIR/redis.pid"
}

# ---- the rewrites: hosts, ports, paths, the user's program --------------------
cat >"$T/rewrites" <<EOF
cache.lan:8080|127.0.0.1:$PORT
listen 8080;|listen 127.0.0.1:$PORT;
redis://cache.internal:6379|redis://127.0.0.1:$REDIS_PORT_docs
https://packs.example.com/packs/2026.11|http://127.0.0.1:$PORT/packs/2026.11
https://packs.example.com/a770|http://127.0.0.1:$PORT/packs/a770
/srv/jitcache|$U/srv/jitcache
/etc/nginx/|$U/etc/nginx/
/etc/jitcache/ci.key.pub|$T/work/ci.key.pub
/tmp/another-machine|$T/another-machine
/tmp/machine-b|$T/machine-b
bind 10.0.0.5|bind 127.0.0.1
jitcache@cache.internal:6379|jitcache@127.0.0.1:$RPORT
/etc/redis/|$T/etc/redis/
/opt/jitcache-layer|$U/opt/jitcache-layer
/var/cache/jitcache|$T/image-cache
/tmp/jitcache.tar.zst|$T/image-tmp/jitcache.tar.zst
COPY jitcache.tar.zst /tmp/|COPY jitcache.tar.zst $T/image-tmp/
python train.py|$T/app
python warmup.py|$T/app
./my-workload --smoke-test|$T/app
./app|$T/app
EOF
echo "docs_fleets: rewrites (page -> test):"
sed 's/^/  /; s/|/  ->  /' "$T/rewrites"

# ---- the blocks, in page order -------------------------------------------------
# The pages in the order they run: the signed pack (fleets-web-s3.md) is
# served by the nginx site that page's recipe sets up before it.  A block
# ahead of a page's first section (its opening) runs as section
# "(opening of PAGE)", on a machine of its own.
PAGES="fleets.md fleets-redis.md fleets-web-s3.md"
python3 - "$T/rewrites" "$T/blocks" $(printf "$ROOT/docs/%s " $PAGES) <<'PY'
import os, re, sys
rewrites, out, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
pairs = [l.rstrip("\n").split("|", 1) for l in open(rewrites) if "|" in l]
os.makedirs(out)
n = 0
for page in pages:
    lines = open(page, encoding="utf-8").read().split("\n")
    section, note, i = "(opening of %s)" % os.path.basename(page), None, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:]
        m = re.match(r"^\s*<!-- docs_fleets\.sh: not run: (.+) -->$", line)
        if m:
            note = m.group(1)
        f = re.match(r"^(\s*)```(\S*)\s*$", line)
        if f:
            indent, lang = f.group(1), f.group(2)
            body = []
            i += 1
            while not re.match(r"^\s*```\s*$", lines[i]):
                body.append(lines[i][len(indent):])
                i += 1
            n += 1
            text = "\n".join(body) + "\n"
            for a, b in pairs:
                text = text.replace(a, b)
            base = os.path.join(out, "%02d" % n)
            open(base + "." + (lang or "none"), "w").write(text)
            open(base + ".section", "w").write(section + "\n")
            if note:
                open(base + ".skip", "w").write(note + "\n")
            note = None
        i += 1

PY
nblocks=$(ls "$T"/blocks/*.section 2>/dev/null | wc -l)
check "docs/fleets*.md: its fenced blocks read ($nblocks)" test "$nblocks" -ge 14
for f in "$T"/blocks/*.none; do
	[ -e "$f" ] && check "docs/fleets*.md: block ${f##*/} names its language" false
done

# The environment the page's commands run in: `jitcache` on PATH, `sudo`
# (the test runs as root, or not at all for what needs root), and `nginx`
# meaning the test's nginx, which includes sites-enabled/* as Debian's does.
mkdir -p "$T/bin" "$T/work" "$U/etc/nginx/sites-available" "$U/etc/nginx/sites-enabled" "$U/nginx/tmp"
mkdir -p "$T/etc/redis" "$RDIR"
# Debian's /etc/redis/redis.conf, what the recipe relies on: the default
# user open to local clients, a port and a place to run.
cat >"$T/etc/redis/redis.conf" <<EOF
bind 127.0.0.1 -::1
protected-mode yes
port $RPORT
daemonize yes
pidfile $RDIR/redis.pid
logfile $RDIR/log
dir $RDIR
save ""
appendonly no
EOF
ln -s "$ROOT/bin/jitcache" "$T/bin/jitcache"
# dav-ext loaded as Debian's modules-enabled/ does once libnginx-mod-http-dav-ext is in.
cat >"$U/nginx/nginx.conf" <<EOF
load_module /usr/lib/nginx/modules/ngx_http_dav_ext_module.so;
daemon off;
worker_processes 1;
user www-data www-data;
pid $U/nginx/nginx.pid;
error_log $U/nginx/error.log;
events { worker_connections 64; }
http {
	access_log $U/nginx/access.log;
	client_body_temp_path $U/nginx/tmp/body;
	proxy_temp_path $U/nginx/tmp/proxy;
	fastcgi_temp_path $U/nginx/tmp/fastcgi;
	uwsgi_temp_path $U/nginx/tmp/uwsgi;
	scgi_temp_path $U/nginx/tmp/scgi;
	include $U/etc/nginx/sites-enabled/*;
}
EOF
cat >"$T/prelude.sh" <<EOF
sudo() { "\$@"; }
nginx() { command nginx -p "$U/nginx" -e "$U/nginx/error.log" -c "$U/nginx/nginx.conf" "\$@"; }
$(declare -f stop_recipe_redis)
RDIR=$RDIR
systemctl() {
	[ "\$*" = "restart redis-server" ] || { echo "systemctl \$*: not in this test" >&2; return 1; }
	stop_recipe_redis
	redis-server "$T/etc/redis/redis.conf" || return 1
	for _ in \$(seq 1 200); do
		redis-cli -p $RPORT ping 2>&1 | grep -qE 'PONG|NOAUTH' && return 0
		sleep 0.025
	done
	return 1
}
export PATH="$T/bin:\$PATH" JITCACHE_LOG=info
EOF
if [ $ROOTED = 1 ]; then
	nginx -p "$U/nginx" -e "$U/nginx/error.log" -c "$U/nginx/nginx.conf" 2>>"$U/nginx/error.log" &
	SERVER_PIDS[nginx]=$!
	sleep 0.5
	check "nginx started (no site yet), workers as www-data" kill -0 "${SERVER_PIDS[nginx]}"
fi

# What the blocks the page does not run would have left: a warm cache
# ($T/work/warm, the Docker step's) and a signed pack (pack.tar.zst, the
# warm --for step's, made here on this machine's own driver).
(cd "$T/work" && JITCACHE_DIR=$T/work/warm "$JITCACHE" run -- "$T/app" >/dev/null 2>&1)

config="" section=""
ran=0 skipped=0
for s in "$T"/blocks/*.section; do
	base=${s%.section}
	n=${base##*/}
	# Each section starts on a machine of its own: an empty cache directory,
	# and an empty team Redis (a page's opening may have filled it).
	if [ "$(cat "$s")" != "$section" ]; then
		section=$(cat "$s") config=""
		export JITCACHE_DIR=$T/machine-$n
		rcli docs flushall >/dev/null
	fi
	block=$(ls "$base".* | grep -v -e '\.section$' -e '\.skip$' | head -n 1)
	lang=${block##*.}
	if [ -e "$base.skip" ]; then
		skipped=$((skipped + 1))
		echo "docs_fleets: block $n ($lang, $section): not run: $(cat "$base.skip")"
		check "block $n: the page says why it is not run" test -s "$base.skip"
		continue
	fi
	case $lang in
	nginx)
		cp "$block" "$T/work/jitcache.conf"
		check "block $n (nginx, $section): saved as jitcache.conf" test -s "$T/work/jitcache.conf"
		ran=$((ran + 1))
		;;
	ini)
		cp "$block" "$T/work/$n.ini"
		(cd "$T/work" && JITCACHE_CONFIG=$T/work/$n.ini "$JITCACHE" config) >"$T/work/$n.out" 2>&1
		check "block $n (ini, $section): jitcache config takes it (exit 0, no complaint)" \
			sh -c "test $? -eq 0 && ! grep -qi -e unknown -e invalid -e ignored -e error '$T/work/$n.out'"
		check "block $n (ini, $section): its url is the effective remote (its user info shown as ***)" \
			grep -qF "$(sed -n 's/^url = //p' "$block" | cut -d' ' -f1 | cut -d'|' -f1 | sed 's|//[^/]*@|//***@|')" "$T/work/$n.out"
		config=$T/work/$n.ini
		ran=$((ran + 1))
		;;
	sh)
		if [ $ROOTED = 0 ] && case $section in *nginx*) true ;; *) false ;; esac; then
			skip "block $n (sh, $section): needs root (nginx's worker user www-data)"
			skipped=$((skipped + 1))
			continue
		fi
		(cd "$T/work" && JITCACHE_CONFIG=${config:-/dev/null} bash -e -c ". '$T/prelude.sh'; $(cat "$block")") \
			>"$T/work/$n.out" 2>&1
		check "block $n (sh, $section): runs as written (exit $?; output: $n.out)" test $? -eq 0
		ran=$((ran + 1))
		;;
	dockerfile)
		# The commands a build runs: COPY and RUN in the build's directory, ENV kept.
		sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$block" | awk '
			/^FROM / { next }
			/^COPY / { print "mkdir -p \"$(dirname " $3 ")\" && cp " $2 " " $3; next }
			/^RUN / { sub(/^RUN /, ""); print; next }
			/^ENV / { sub(/^ENV /, "export "); print; next }' >"$block.sh"
		# Each starts from the image with the archive copied in (the first's COPY).
		mkdir -p "$T/image-tmp" && cp "$T/work/jitcache.tar.zst" "$T/image-tmp/"
		(cd "$T/work" && bash -e -c ". '$T/prelude.sh'; . '$block.sh'") >"$T/work/$n.out" 2>&1
		check "block $n (Dockerfile, $section): its COPY, RUN and ENV run as written" test $? -eq 0
		sed -n 's/^export //p' "$block.sh" >"$T/work/$n.env"
		ran=$((ran + 1))
		;;
	*)
		check "block $n: a language this test knows ($lang)" false
		;;
	esac
	# What each runnable block is for, checked after it.
	case "$section|$(cat "$block")" in
	*"Read-only layers"*) ;;
	"(opening of fleets.md)|"*)
		check "block $n: the page's opening line ran the program and stored through Redis" \
			grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/work/$n.out" ;;
	"(opening of"*"|"*"jitcache run"*)
		check "block $n: the page's opening line ran the program under jitcache" \
			grep -q '^jitcache: [0-9]* hits, [0-9]* misses' "$T/work/$n.out" ;;
	"The remote tier"*"|"*)
		check "block $n: the program ran and stored through Redis (a miss, a store)" \
			grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/work/$n.out" ;;
	"A Redis server for the team|"*"systemctl restart"*)
		pw=$(head -n 1 "$T/work/redis.password")
		check "Redis recipe: the server runs with the page's settings; the jitcache user logs in" \
			test "$(redis-cli -p "$RPORT" --user jitcache --pass "$pw" --no-auth-warning getrange jitcache:none 0 1 2>&1)" = ""
		check "... the default user is off (a client without the password: NOAUTH)" \
			sh -c "redis-cli -p '$RPORT' get x 2>&1 | grep -q NOAUTH"
		check "... the jitcache user may not run what jitcache does not send (FLUSHALL: NOPERM)" \
			sh -c "redis-cli -p '$RPORT' --user jitcache --pass '$pw' --no-auth-warning flushall 2>&1 | grep -q NOPERM"
		check "... nor touch other keys (NOPERM)" \
			sh -c "redis-cli -p '$RPORT' --user jitcache --pass '$pw' --no-auth-warning set other 1 2>&1 | grep -q NOPERM" ;;
	"A Redis server for the team|"*"install -m 600"*)
		check "Redis recipe: the password file is mode 0600" \
			test "$(stat -c %a "$T/home/.config/jitcache/redis.password")" = 600 ;;
	"A Redis server for the team|"*"machine-b"*)
		check "Redis recipe: the first run logged in and stored (a miss, a store; nothing said of the remote)" \
			sh -c "grep '^jitcache: [0-9]* hits' '$T/work/$n.out' | head -n 1 | grep -q '0 hits, 1 misses, 1 stores' &&
				! grep -q '^jitcache: remote' '$T/work/$n.out'"
		check "another machine's first run hit through Redis (its own cache was empty)" \
			sh -c "grep '^jitcache: [0-9]* hits' '$T/work/$n.out' | sed -n 2p | grep -q '^jitcache: 1 hits, 0 misses'"
		check "... its stats say so (hits by tier: redis)" grep -q 'hits by tier.*redis 1' "$T/work/$n.out" ;;
	"A web server for the team: nginx|"*"nginx -s reload"*)
		base_url=http://127.0.0.1:$PORT
		wait_http "$base_url/cache/" || true
		head -c 2000000 /dev/urandom >"$T/big"
		code=$(curl -s -o /dev/null -w '%{http_code}' -T "$T/big" "$base_url/cache/ab/00000000000000000000000000000000")
		check "nginx: a 2 MB PUT into /cache/ is stored (HTTP $code; nginx's 1 MB default says 413)" \
			sh -c "test '$code' = 201 || test '$code' = 204"
		check "nginx: ... as www-data, in a directory nginx made" \
			sh -c "test \"\$(stat -c %U '$U/srv/jitcache/cache/ab')\" = www-data"
		check "nginx: GET gives it back" sh -c "curl -sf '$base_url/cache/ab/00000000000000000000000000000000' | cmp -s - '$T/big'"
		echo small >"$T/small"
		code=$(curl -s -o /dev/null -w '%{http_code}' -T "$T/small" "$base_url/packs/x")
		check "nginx: /packs/ is read-only (PUT: HTTP $code)" test "$code" = 403
		lease=$base_url/cache/leases/00000000000000000000000000000000
		curl -s -o /dev/null -T "$T/small" "$lease"
		code=$(curl -s -o /dev/null -w '%{http_code}' -X LOCK "$lease")
		again=$(curl -s -o /dev/null -w '%{http_code}' -X LOCK "$lease")
		check "nginx: /cache/ holds leases (LOCK: HTTP $code, then $again: Locked)" \
			sh -c "test '$code' = 200 && test '$again' = 423" ;;
	"A web server for the team: nginx|"*"another-machine"*)
		check "the first run stored (a miss, a store)" \
			sh -c "grep '^jitcache: [0-9]* hits' '$T/work/$n.out' | head -n 1 | grep -q '0 hits, 1 misses, 1 stores'"
		check "another machine's first run hit through nginx (its own cache was empty)" \
			sh -c "grep '^jitcache: [0-9]* hits' '$T/work/$n.out' | sed -n 2p | grep -q '^jitcache: 1 hits, 0 misses'"
		check "... the entry is a file on the server" \
			test "$(find "$U/srv/jitcache/cache" -mindepth 2 -type f -name '????????????????????????????????' | wc -l)" -ge 2 ;;
	"A signed pack"*"|"*"keygen"*)
		check "block $n: the key pair made" test -s "$T/work/ci.key.pub"
		# The pack the warm --for step makes, on this machine's driver: signed.
		(cd "$T/work" && JITCACHE_DIR=$T/work/pack-cache JITCACHE_SIGNING_KEY=$T/work/ci.key JITCACHE_RECIPES=1 \
			"$JITCACHE" run -- "$T/app" >/dev/null 2>&1 &&
		 JITCACHE_DIR=$T/work/pack-cache "$JITCACHE" export pack.tar.zst >/dev/null 2>&1)
		check "(the pack the page's warm --export makes, made here on this driver)" test -s "$T/work/pack.tar.zst" ;;
	"A signed pack"*"|"*"tar --zstd"*)
		check "block $n: the pack is published under /packs/" \
			sh -c "ls '$U/srv/jitcache/packs/2026.11'/??/* >/dev/null" ;;
	"A signed pack"*"|"*"trusted_keys"*)
		if [ $ROOTED = 1 ]; then
			(cd "$T/work" && JITCACHE_CONFIG=$config JITCACHE_DIR=$T/fresh JITCACHE_LOG=info "$JITCACHE" run -- "$T/app") >"$T/work/$n.run" 2>&1
			check "with it, a fresh machine's first run is all hits from the pack, signature checked" \
				grep -q '^jitcache: 1 hits, 0 misses' "$T/work/$n.run"
			"$JITCACHE" keygen "$T/other.key" other >/dev/null 2>&1
			sed "s|$T/work/ci.key.pub|$T/other.key.pub|" "$config" >"$T/other.ini"
			(cd "$T/work" && JITCACHE_CONFIG=$T/other.ini JITCACHE_DIR=$T/fresh2 JITCACHE_LOG=info "$JITCACHE" run -- "$T/app") >"$T/work/$n.run2" 2>&1
			check "... and one trusting another key compiles instead" \
				grep -q '^jitcache: 0 hits, 1 misses' "$T/work/$n.run2"
		fi ;;
	"Containers"*"|"*"jitcache export"*)
		check "block $n: the export is written" test -s "$T/work/jitcache.tar.zst" ;;
	"Containers"*"|"*"JITCACHE_LAYERS"*)
		(cd "$T/work" && export $(cat "$T/work/$n.env") && JITCACHE_DIR=$T/container JITCACHE_LOG=info "$JITCACHE" run -- "$T/app") >"$T/work/$n.run" 2>&1
		check "a container from that image: its first run hits from the layer" \
			grep -q '^jitcache: 1 hits, 0 misses' "$T/work/$n.run" ;;
	"Containers"*"|"*"jitcache import"*)
		(cd "$T/work" && export $(cat "$T/work/$n.env") && JITCACHE_LOG=info "$JITCACHE" run -- "$T/app") >"$T/work/$n.run" 2>&1
		check "a container from that image: its first run hits in the imported cache" \
			grep -q '^jitcache: 1 hits, 0 misses' "$T/work/$n.run" ;;
	esac
done
echo "docs_fleets: $ran blocks run, $skipped not run (the page says why)"
check "every block the page does not exempt ran ($ran of $nblocks; $skipped exempt)" test "$ran" -eq $((nblocks - skipped))

# ---- the README's install lines --------------------------------------------------
sed -n '/^## Install$/,/^## /p' "$ROOT/README.md" | grep '^    ' | sed 's/^    //; s/  *#.*//' >"$T/install"
apt=$(grep 'apt-get install build-essential' "$T/install" | sed 's/.*apt-get install *//')
check "README: the build dependencies' apt-get install line" test -n "$apt"
sh "$ROOT/tests/install-deps.sh" --list demo >"$T/demo.pkgs"
for p in $apt; do
	check "README's apt-get: $p is a package this machine has installed, and make demo's" \
		sh -c "dpkg-query -W -f='\${Status}' '$p' 2>/dev/null | grep -q 'ok installed' && grep -qx '$p' '$T/demo.pkgs'"
done
check "README: pip install . (wheel.sh runs it from a clean clone)" grep -qx 'pip install .' "$T/install"
check "README: make, then sudo make install" grep -q '`make [&][&] sudo make install`' "$ROOT/README.md"
# PREFIX rewritten to a directory of the test's; the build is the one under test.
(cd "$ROOT" && make -s BUILD="$B" all && make -s BUILD="$B" PREFIX="$U/prefix" install) >"$T/install.log" 2>&1
check "make && make install (PREFIX=$U/prefix): exit 0" test $? -eq 0
check "the installed jitcache --version" \
	sh -c "env -u JITCACHE_LIB -u JITCACHE_ADMIN '$U/prefix/bin/jitcache' --version | grep -q '^jitcache '"
check "man finds jitcache(1) through the prefix's bin/ on PATH" \
	sh -c "env -u MANPATH PATH='$U/prefix/bin:/usr/bin:/bin' man -w jitcache | grep -qx '$U/prefix/share/man/man1/jitcache.1'"
(cd "$T/work" && env -u JITCACHE_LIB -u JITCACHE_ADMIN JITCACHE_DIR=$T/installed JITCACHE_LOG=info "$U/prefix/bin/jitcache" run -- "$T/app") \
	>"$T/installed.out" 2>&1
check "the installed jitcache run: a real compile, stored" grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/installed.out"
finish
