#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/web.sh OUTDIR — the remote tiers side by side in one run (issue 29),
# against servers this script starts on 127.0.0.1 (loopback: the network
# costs next to nothing, so these are the tiers' own costs): Redis, nginx's
# WebDAV (HTTP) and Ceph's radosgw (S3, from the test bed: make testbed-s3).
# Run by `make bench` (section "web") and `make bench-web`.
#
# 1. Hit latency by tier: bench/tier_latency stores WEB_N (200) entries of
#    WEB_SIZE (262144) bytes, then times one lookup of each from a cache
#    that has them only in that tier: local, layer, Redis, HTTP, S3.
#    Prints "web_latency TIER p50_ms p99_ms first_ms" (first: the process's
#    first lookup, which opens the remote and loads its client library).
#    Then the stores as the program waits for them (the local store and
#    the queueing for a remote) and, per value, the wait at the program's
#    end for the remote writes still queued: "web_put TIER p50_ms p99_ms
#    end_ms_per_value".  Then a burst of WEB_BURST (500) stores of 64 KB and
#    the time the remote writes take to drain after it: "web_burst TIER
#    drain_ms=X" (within exit_wait, 2 s, none is dropped).
# 2. First run from a signed pack on a static server against cold: the
#    module m of bench/make_spirv.sh on the simulated Arc (Debian 12
#    driver), zeModuleCreate of a fresh process (bench/ze_bench):
#      cold   no jitcache
#      pack   jitcache, an empty cache directory, the pack (jitcache export
#             of a signed cache, unpacked under nginx's root) as a read-only
#             remote with trusted_keys
#    interleaved WEB_REPS (5) times.  Prints "web_pack KIND REP CREATE_S".
# 3. A cold run's wall time with a writable web remote against none: the
#    same module, a fresh cache directory and a fresh server path each time
#    (so it compiles and stores), interleaved WEB_REPS times.  Prints
#    "web_write KIND REP WALL_S".
# 4. What a fresh process pays for a remote: module creation with a local
#    hit, no remote against a web remote set (not asked: nothing loaded),
#    and a remote hit from an empty directory, Redis against HTTP (libcurl
#    loaded by the process).  Prints "web_proc KIND REP CREATE_S".
# Then the ratios of the medians: "web_ratio NAME VALUE".
set -u
. "$(dirname "$0")/lib.sh"
bench_init web build "${1:-}"
bench_isolate
ZB=$B/bench/ze_bench TL=$B/bench/tier_latency
bench_need "make bench" "$ZB" "$TL" "$B/libjitcache.so" "$B/tests/jc_http_tool"
command -v nginx >/dev/null || { echo "web bench: nginx missing (make deps)" >&2; exit 1; }
N=${WEB_N:-200} SIZE=${WEB_SIZE:-262144} REPS=${WEB_REPS:-5}
T=$W # the servers' helpers keep their files under $T
. "$ROOT/tests/servers.bash"
bench_at_exit stop_servers
cd "$W" || exit 1 # the simulation's .aub files land here
[ -r "$OUT/spirv/m.spv" ] || "$ROOT/bench/make_spirv.sh" "$OUT/spirv" >/dev/null || exit 1
MOD=$OUT/spirv/m.spv
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export OverrideMaxWorkgroupSize=256
ldd "$ZB" 2>/dev/null | grep -q 'libze_loader.so.1 => /' ||
	export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset JITCACHE_REMOTE JITCACHE_LAYERS JITCACHE_TRUSTED_KEYS JITCACHE_SIGNING_KEY
status=0

# ---- the servers ----------------------------------------------------------------
start_nginx_dav "$W/ng" >"$OUT/logs/web-nginx.log" 2>&1 || { echo "web bench: nginx did not start" >&2; exit 1; }
RPORT=$(free_port)
redis-server --bind 127.0.0.1 --port "$RPORT" --save '' --appendonly no --dir "$W" \
	--logfile "$W/redis.log" &
RPID=$!
bench_at_exit 'kill $RPID 2>/dev/null; wait $RPID 2>/dev/null'
for _ in $(seq 1 200); do redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.025; done
have_s3=0
if start_radosgw "$W/rgw" >"$OUT/logs/web-radosgw.log" 2>&1 && s3_make_bucket jitcache-bench; then
	have_s3=1
else
	echo "web bench: radosgw did not start (make testbed-s3): no S3 row" >&2
	status=1
fi

# ---- 1. hit latency by tier -------------------------------------------------------
latency() { # TIER MODE [ENV...]
	local tier=$1 mode=$2 line
	shift 2
	rm -rf "$W/tl-w" "$W/tl-r"
	line=$(env "$@" "$TL" "$mode" "$W/tl-w" "$W/tl-r" "$N" "$SIZE" 2>>"$OUT/logs/web-latency.err") || {
		echo "web bench: tier_latency $tier failed: $line" >&2
		return 1
	}
	echo "$line" | awk -v t="$tier" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print "web_latency", t, v["p50_ms"], v["p99_ms"], v["first_ms"] }'
}
latency local local || status=1
latency layer layer || status=1
latency redis remote JITCACHE_REMOTE="redis://127.0.0.1:$RPORT" || status=1
latency http remote JITCACHE_REMOTE="$NGINX_URL/lat" || status=1
[ "$have_s3" = 1 ] && { latency s3 remote JITCACHE_REMOTE="s3://jitcache-bench/lat" || status=1; }
# the stores, as the program waits for them, and the end's wait for the writes
put() { # TIER [ENV...]
	local tier=$1 line
	shift
	rm -rf "$W/tl-w"
	line=$(env "$@" "$TL" put "$W/tl-w" - "$N" "$SIZE" 2>>"$OUT/logs/web-latency.err") || return 1
	echo "$line" | awk -v t="$tier" -v n="$N" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "web_put %s %s %s %.3f\n", t, v["p50_ms"], v["p99_ms"], v["flush_ms"] / n }'
}
put none || status=1
put redis JITCACHE_REMOTE="redis://127.0.0.1:$RPORT" || status=1
put http JITCACHE_REMOTE="$NGINX_URL/put" || status=1
[ "$have_s3" = 1 ] && { put s3 JITCACHE_REMOTE="s3://jitcache-bench/put" || status=1; }
# a burst: WEB_BURST (500) stores of 64 KB in a program's last moment, and the
# time its remote writes then take to drain (up to JC_REMOTE_WRITERS threads;
# what exit_wait, 2 s by default, does not cover is dropped)
burst() { # TIER [ENV...]
	local tier=$1 line
	shift
	rm -rf "$W/tl-w"
	line=$(env "$@" "$TL" put "$W/tl-w" - "${WEB_BURST:-500}" 65536 2>>"$OUT/logs/web-latency.err") || return 1
	echo "$line" | awk -v t="$tier" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "web_burst %s drain_ms=%s\n", t, v["flush_ms"] }'
}
burst redis JITCACHE_REMOTE="redis://127.0.0.1:$RPORT" || status=1
burst http JITCACHE_REMOTE="$NGINX_URL/burst" || status=1
[ "$have_s3" = 1 ] && { burst s3 JITCACHE_REMOTE="s3://jitcache-bench/burst" || status=1; }

# ---- 2. first run from a signed pack ----------------------------------------------
zb() { # LOG ENV...: one ze_bench process; prints its create_s
	local log=$1
	shift
	env "$@" "$ZB" spirv "$MOD" >"$log" 2>&1 || { echo "web bench: ze_bench failed ($*)" >&2; tail -n 5 "$log" >&2; return 1; }
	sed -n 's/^ze_bench .*create_s=\([0-9.]*\).*/\1/p' "$log"
}
"$B/jitcache-admin" keygen "$W/ci.key" "bench CI" >/dev/null 2>&1
zb "$W/ci.log" JITCACHE_DIR="$W/ci" JITCACHE_SIGNING_KEY="$W/ci.key" LD_PRELOAD="$B/libjitcache.so" >/dev/null || exit 1
JITCACHE_DIR=$W/ci "$B/jitcache-admin" export "$W/pack.tar.zst" >/dev/null 2>&1
mkdir -p "$W/ng/root/pack" && tar --zstd -xf "$W/pack.tar.zst" -C "$W/ng/root/pack" || exit 1
for r in $(seq 1 "$REPS"); do
	for kind in cold pack; do
		case $kind in
		cold) t=$(zb "$W/cold.log") ;;
		pack) rm -rf "$W/fresh"
			t=$(zb "$W/pack.log" JITCACHE_DIR="$W/fresh" LD_PRELOAD="$B/libjitcache.so" \
				JITCACHE_REMOTE="$NGINX_URL/pack|read-only" JITCACHE_TRUSTED_KEYS="$W/ci.key.pub" \
				JITCACHE_LOG=info)
			grep -q '^jitcache: 1 hits, 0 misses' "$W/pack.log" ||
				{ echo "web bench: the pack run did not hit" >&2; status=1; } ;;
		esac || { status=1; continue; }
		echo "web_pack $kind $r $t" | tee -a "$W/lines"
	done
done

# ---- 3. a cold run with a writable web remote -----------------------------------------
wall() { # LOG ENV...: the process's wall time
	local t0 t1 log=$1
	shift
	t0=$(date +%s.%N)
	env "$@" "$ZB" spirv "$MOD" >"$log" 2>&1 || return 1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
for r in $(seq 1 "$REPS"); do
	for kind in none http; do
		rm -rf "$W/wr"
		env=(JITCACHE_DIR="$W/wr" LD_PRELOAD="$B/libjitcache.so" JITCACHE_LOG=info)
		[ "$kind" = http ] && env+=(JITCACHE_REMOTE="$NGINX_URL/w$r")
		t=$(wall "$W/write.log" "${env[@]}") || { status=1; continue; }
		grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$W/write.log" ||
			{ echo "web bench: the $kind run did not store" >&2; status=1; }
		[ "$kind" = http ] && ! grep -q 'also to the remote' "$W/write.log" &&
			{ echo "web bench: the http run's value did not reach the server" >&2; status=1; }
		echo "web_write $kind $r $t" | tee -a "$W/lines"
	done
done
# ---- 4. what a process pays for a remote ------------------------------------------
# module creation of a fresh process: a local hit with no remote, a local hit
# with a web remote set (not asked: nothing loaded), and a remote hit from an
# empty cache directory through Redis and through the web server (libcurl
# loaded and TLS started by that process)
zb "$W/fill-r.log" JITCACHE_DIR="$W/fill-r" JITCACHE_REMOTE="redis://127.0.0.1:$RPORT $NGINX_URL/proc" \
	JITCACHE_REMOTE_EXIT_WAIT=60 LD_PRELOAD="$B/libjitcache.so" >/dev/null || status=1
for r in $(seq 1 "$REPS"); do
	for kind in local local_web_set redis_hit http_hit; do
		case $kind in
		local) t=$(zb "$W/proc.log" JITCACHE_DIR="$W/fill-r" LD_PRELOAD="$B/libjitcache.so") ;;
		local_web_set) t=$(zb "$W/proc.log" JITCACHE_DIR="$W/fill-r" LD_PRELOAD="$B/libjitcache.so" \
			JITCACHE_REMOTE="$NGINX_URL/proc") ;;
		redis_hit) rm -rf "$W/e"
			t=$(zb "$W/proc.log" JITCACHE_DIR="$W/e" LD_PRELOAD="$B/libjitcache.so" \
				JITCACHE_REMOTE="redis://127.0.0.1:$RPORT" JITCACHE_LOG=info) ;;
		http_hit) rm -rf "$W/e"
			t=$(zb "$W/proc.log" JITCACHE_DIR="$W/e" LD_PRELOAD="$B/libjitcache.so" \
				JITCACHE_REMOTE="$NGINX_URL/proc" JITCACHE_LOG=info) ;;
		esac || { status=1; continue; }
		case $kind in *_hit) grep -q '^jitcache: 1 hits, 0 misses' "$W/proc.log" ||
			{ echo "web bench: the $kind run did not hit" >&2; status=1; } ;; esac
		echo "web_proc $kind $r $t" | tee -a "$W/lines"
	done
done

# ---- ratios of the medians ---------------------------------------------------------
awk '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ v[$1 " " $2] = v[$1 " " $2] " " $4 }
END {
	c = median(v["web_pack cold"]); p = median(v["web_pack pack"])
	if (c > 0) printf "web_ratio pack_over_cold %.4f (module creation: pack %.3f s, cold %.3f s; goal <= 0.05)\n", p / c, p, c
	n = median(v["web_write none"]); h = median(v["web_write http"])
	if (n > 0) printf "web_ratio write_tier_over_none %.4f (cold run wall: http remote %.3f s, none %.3f s; goal <= 1.02)\n", h / n, h, n
	l = median(v["web_proc local"]); w = median(v["web_proc local_web_set"])
	if (l > 0) printf "web_ratio local_hit_web_set_over_none %.4f (module creation: %.4f s against %.4f s)\n", w / l, w, l
	rh = median(v["web_proc redis_hit"]); hh = median(v["web_proc http_hit"])
	if (rh > 0) printf "web_ratio http_hit_over_redis_hit %.4f (a fresh process: %.4f s against %.4f s; the difference is loading libcurl)\n", hh / rh, hh, rh
}' "$W/lines"
exit $status
