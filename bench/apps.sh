#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/apps.sh OUTDIR — programs nobody here wrote, as their users run them,
# on PoCL (the CPU), side by side in one run:
#   hashcat  `hashcat -m 0 -a 3 HASH ?d?d?d` (Debian's hashcat: every program
#            built with clCompileProgram + clLinkProgram); its own kernel
#            cache is XDG_CACHE_HOME/hashcat/kernels, "off" = its directories
#            (that one and ~/.local/share/hashcat) emptied first;
#   ffmpeg   an OpenCL filter chain (avgblur_opencl, unsharp_opencl,
#            sobel_opencl) over 20 test frames, `-f framemd5`; it has no cache
#            of its own, PoCL's kernel cache stands for it.
# Ways, in this order: none (no jitcache, its own cache off), jc_cold and
# jc_warm (jitcache alone, an empty cache then the same), own_cold and
# own_warm (its own cache alone), both (jitcache warm and its own cache
# warm).  PoCL's kernel cache is off (POCL_KERNEL_CACHE=0) except where it
# stands for the program's own.  Every way's output must equal none's
# (hashcat's cracked line, ffmpeg's frame hashes): a row that differs says
# DIFFERENT.  Figures: wall and user+system CPU seconds, the CPU ratio to
# none, and jitcache's exit line.  Writes OUTDIR/apps.md and OUTDIR/apps.txt
# ("apps APP WAY WALL CPU SAME HITS MISSES STORES").
# Knobs: APPS_BENCH (default "hashcat ffmpeg"), APPS_BENCH_WAYS.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init apps build "${1:-}"
APPS=${APPS_BENCH:-hashcat ffmpeg}
WAYS=${APPS_BENCH_WAYS:-none jc_cold jc_warm own_cold own_warm both}
bench_need "make" "$B/libjitcache.so" "$ROOT/bin/jitcache"
bench_isolate
export XDG_CACHE_HOME=$HOME/.cache
clinfo -l 2>/dev/null | grep -q "Portable Computing Language" ||
	{ echo "apps bench: PoCL is not installed (pocl-opencl-icd)" >&2; exit 1; }
cd "$W" || exit 1
echo -n 123 | md5sum | cut -d' ' -f1 >hash.txt
: >"$OUT/apps.txt"

hashcat_run() { # OWN(0/1) -> stdout: the cracked line
	[ "$1" = 1 ] || rm -rf "$XDG_CACHE_HOME/hashcat" "$HOME/.local/share/hashcat"
	hashcat -m 0 -a 3 hash.txt '?d?d?d' --potfile-disable -D 1 --quiet
}

ffmpeg_run() { # OWN(0/1) -> stdout: the frames' hashes
	[ "$1" = 1 ] && export POCL_KERNEL_CACHE=1
	ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc=size=320x240:rate=10 -frames:v 20 \
		-init_hw_device opencl=ocl:0.0 -filter_hw_device ocl -vf \
		"format=yuv420p,hwupload,avgblur_opencl=sizeX=3,unsharp_opencl,sobel_opencl,hwdownload,format=yuv420p" \
		-f framemd5 -
}

one() { # APP WAY
	local app=$1 way=$2 own=0 jc=0
	case $way in jc_*) jc=1 ;; own_*) own=1 ;; both) jc=1 own=1 ;; esac
	[ "$way" = jc_cold ] && rm -rf "$W/jc"
	[ "$way" = own_cold ] && rm -rf "$XDG_CACHE_HOME/hashcat" "$HOME/.local/share/hashcat" "$W/pocl"
	local t0 t1 log=$OUT/logs/$app-$way
	t0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
	local start end
	start=$(date +%s.%N)
	(
		export POCL_KERNEL_CACHE=0 POCL_CACHE_DIR=$W/pocl JITCACHE_DIR=$W/jc JITCACHE_LOG=info
		if [ "$jc" = 1 ]; then export LD_PRELOAD=$B/libjitcache.so; fi
		"${app}_run" "$own"
	) >"$log.out" 2>"$log.err"
	end=$(date +%s.%N)
	t1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
	local cpu wall same=same counts
	cpu=$(echo "($t1 - $t0) / $(getconf CLK_TCK)" | bc -l)
	wall=$(echo "$end - $start" | bc -l)
	[ "$way" = none ] && cp "$log.out" "$W/$app.expected"
	cmp -s "$log.out" "$W/$app.expected" && [ -s "$log.out" ] || same=DIFFERENT
	counts=$(sed -n 's/.*jitcache: \([0-9]*\) hits, \([0-9]*\) misses, \([0-9]*\) stores.*/\1 \2 \3/p' "$log.err" | tail -n 1)
	printf 'apps %s %s %.2f %.2f %s %s\n' "$app" "$way" "$wall" "$cpu" "$same" "${counts:-- - -}" |
		tee -a "$OUT/apps.txt"
}

for app in $APPS; do
	command -v "$app" >/dev/null || { echo "apps bench: $app not installed, skipped" >&2; continue; }
	for way in $WAYS; do one "$app" "$way"; done
done

{
	echo "| program | way | wall s | CPU s | CPU / none | output | hits | misses | stores |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk '$3 == "none" { base[$2] = $5 }
	     { ratio = base[$2] > 0 ? sprintf("%.3fx", $5 / base[$2]) : "-"
	       printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, ratio,
		      $6, $7, $8, $9 }' "$OUT/apps.txt"
} >"$OUT/apps.md"
cat "$OUT/apps.md"
