#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/hit.sh OUTDIR — what a hit costs beyond what it must (issue 37), side
# by side in one run with the driver's native-binary load of the same module.
# Run by `make bench` (section "hit") and `make bench-hit` (~1 min).
#
# The module m of bench/make_spirv.sh is compiled once on the simulated Arc
# (Debian 12's driver) and its native binary saved (bench/ze_bench spirv
# --save-native).  Then, interleaved HIT_REPS (5) times:
#   native  a fresh process's first zeModuleCreate(NATIVE) of that binary,
#           no jitcache (bench/ze_bench native): what any cache hands to;
#   local   bench/tier_latency local: HIT_N (300) entries of the binary's
#   layer   size, each looked up once, from the local store / a read-only
#           layer, and beside each lookup the floors of reading the entry's
#           bytes and one add to the shared counters (see tier_latency.c);
#   local_4k, layer_4k   the same with entries of 4 KiB (a small kernel).
# Each tier_latency is its own process, as a program's hits are.
# Prints, times in ms:
#   hit_native REP CREATE_MS
#   hit_tier TIER REP get_p50 get_p99 floor_p50 own_p50 own_p99 count_p50 count_p99 own_read_p50
# (get: the first lookup of each key; floor: the faster of read() and mmap
# with each page faulted in; own: per key, the best of 4 lookups less the
# best floor, its count included: the path, the header, the checksum over
# every byte, the recency mark, the counters), then the medians over
# the repetitions, the counters' share of own and own against the native load:
#   hit_cost TIER get_p50 own_p50 own_p99 count_p50 count_p99 count_share native_ms own_over_native own_read_p50
# (own_read: the hit beyond a read() of every byte of the entry, where own
# is beyond the cheaper floor that maps it and touches a byte a page; the
# difference is mostly the checksum's pass over every byte)
#   hit_load LOADAVG (at the end, from /proc/loadavg)
# The remote tiers' hit times are bench/web.sh's web_latency rows.
set -u
. "$(dirname "$0")/lib.sh"
bench_init hit build "${1:-}"
bench_isolate
ZB=$B/bench/ze_bench TL=$B/bench/tier_latency
bench_need "make bench" "$ZB" "$TL"
N=${HIT_N:-300} REPS=${HIT_REPS:-5}
cd "$W" || exit 1 # the simulation's .aub files land here
[ -r "$OUT/spirv/m.spv" ] || "$ROOT/bench/make_spirv.sh" "$OUT/spirv" >/dev/null || exit 1
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export OverrideMaxWorkgroupSize=256
ldd "$ZB" 2>/dev/null | grep -q 'libze_loader.so.1 => /' ||
	export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset JITCACHE_REMOTE JITCACHE_LAYERS JITCACHE_TRUSTED_KEYS JITCACHE_SIGNING_KEY

"$ZB" spirv "$OUT/spirv/m.spv" --save-native "$W/m.native" >"$OUT/logs/hit-native.log" 2>&1 ||
	{ echo "hit bench: ze_bench spirv failed (see $OUT/logs/hit-native.log)" >&2; exit 1; }
SIZE=$(stat -c %s "$W/m.native")
echo "hit_module m native_bytes=$SIZE"
status=0
for rep in $(seq 1 "$REPS"); do
	if line=$("$ZB" native "$W/m.native" 2>>"$OUT/logs/hit-native.log"); then
		echo "$line" | sed -n "s/.*create_s=\([0-9.]*\).*/\1/p" |
			awk -v r="$rep" '{ printf "hit_native %d %.3f\n", r, $1 * 1e3 }'
	else
		echo "hit bench: ze_bench native failed" >&2
		status=1
	fi
	for row in "local $SIZE" "layer $SIZE" "local_4k 4096" "layer_4k 4096"; do
		read -r tier size <<<"$row"
		rm -rf "$W/tl-w" "$W/tl-r"
		line=$("$TL" "${tier%_4k}" "$W/tl-w" "$W/tl-r" "$N" "$size" 2>>"$OUT/logs/hit-tier.err") || {
			echo "hit bench: tier_latency $tier failed: $line" >&2
			status=1
			continue
		}
		echo "$line" | awk -v t="$tier" -v r="$rep" '{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			f = v["map_p50_ms"] < v["read_p50_ms"] ? v["map_p50_ms"] : v["read_p50_ms"]
			print "hit_tier", t, r, v["p50_ms"], v["p99_ms"], f, v["own_p50_ms"], v["own_p99_ms"],
			      v["count_p50_ms"], v["count_p99_ms"], v["own_read_p50_ms"] }'
	done
done >"$W/hit.raw"
cat "$W/hit.raw"
awk 'function med(s,   n, a, i, j, x) { n = split(s, a, " ")
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	$1 == "hit_native" { nat = nat " " $3 }
	$1 == "hit_tier" { t[$2] = 1; for (k = 4; k <= 11; k++) c[$2, k] = c[$2, k] " " $k }
	END { nm = med(nat)
		for (tier in t) {
			own = med(c[tier, 7]); cnt = med(c[tier, 9])
			printf "hit_cost %s %.4f %.4f %.4f %.4f %.4f %.3f %.3f %.4f %.4f\n", tier, med(c[tier, 4]), own,
			       med(c[tier, 8]), cnt, med(c[tier, 10]), (own > 0 ? cnt / own : 0), nm, (nm > 0 ? own / nm : 0),
			       med(c[tier, 11]) } }' "$W/hit.raw"
echo "hit_load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
