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
#            of its own, PoCL's kernel cache stands for it;
#   pyopencl Debian's pyopencl: clrandom, reductions, scans and a radix sort
#            on seeded random inputs (bench/pyopencl_apps.py); its own cache
#            is XDG_CACHE_HOME/pyopencl, "off" = PYOPENCL_NO_CACHE=1;
#   tinygrad tinygrad from PyPI (make tinygrad-env: .venv-tinygrad, or
#            TINYGRAD_PYTHON) on OpenCL: a small network trained one step,
#            a matmul, reductions and a scan on seeded random inputs
#            (bench/tinygrad_apps.py); its own cache is its CACHEDB of
#            compiled programs, "off" = CACHELEVEL=0;
#   opencv   Debian's python3-opencv, its T-API on PoCL's device: filters,
#            edges, morphology, a warp over a seeded random image
#            (bench/opencv_apps.py); its own cache is its OpenCL binary
#            cache (OPENCV_OPENCL_CACHE_DIR), "off" = _CACHE_ENABLE=0.
# Ways, in this order: none (no jitcache, its own cache off), jc_cold and
# jc_warm (jitcache alone, an empty cache then the same), own_cold and
# own_warm (its own cache alone), both (jitcache warm and its own cache
# warm).  PoCL's kernel cache is off (POCL_KERNEL_CACHE=0) except where it
# stands for the program's own.  Every way's output must equal none's
# (hashcat's cracked line, ffmpeg's frame hashes): a row that differs says
# DIFFERENT.  PoCL's own cache (the driver's, on by default) beside
# jitcache, the program's own cache off: driver_cold and driver_warm (PoCL's
# alone), driver_jc_cold (both empty, jitcache on), driver_added (PoCL's
# warm, jitcache added empty), driver_both (both warm) and driver_node
# (PoCL's emptied, jitcache's entries alone); their CPU is also given
# against driver_warm.  Figures: wall and user+system CPU seconds, the CPU ratios to
# none, to driver_warm and to own_warm, and jitcache's exit line.  Writes OUTDIR/apps.md and OUTDIR/apps.txt
# ("apps APP WAY WALL CPU SAME HITS MISSES STORES").
# Then APPS_ROUNDS rounds (default 3; 0: none) of driver_warm, driver_added
# and driver_both again, one after the other, each round's two ratios to its
# own driver_warm, and their medians (OUTDIR/rounds.txt, the second table of
# apps.md): what jitcache added to a warm PoCL cache costs, measured against
# the run beside it (one run of each way moved by 10-25% on a busy machine).
# Then, where `perf record` works (APPS_PERF=0: not), one more driver_added
# and driver_both each under `perf record --call-graph dwarf`: jitcache's own
# share of the run's CPU samples and where in jitcache they fell
# (bench/own_share.py; OUTDIR/share.txt, the third table), a figure that
# does not move with the machine's load as the ratios do.
# Knobs: APPS_BENCH (default: all five), APPS_BENCH_WAYS, APPS_ROUNDS, APPS_PERF.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init apps build "${1:-}"
APPS=${APPS_BENCH:-hashcat ffmpeg pyopencl tinygrad opencv}
TINYGRAD_PYTHON=${TINYGRAD_PYTHON:-$ROOT/.venv-tinygrad/bin/python}
WAYS=${APPS_BENCH_WAYS:-none jc_cold jc_warm own_cold own_warm both driver_cold driver_warm driver_added driver_both driver_node driver_jc_cold}
bench_need "make" "$B/libjitcache.so" "$ROOT/bin/jitcache"
bench_isolate
export XDG_CACHE_HOME=$HOME/.cache
clinfo -l 2>/dev/null | grep -q "Portable Computing Language" ||
	{ echo "apps bench: PoCL is not installed (pocl-opencl-icd)" >&2; exit 1; }
cd "$W" || exit 1
echo -n 123 | md5sum | cut -d' ' -f1 >hash.txt
: >"$OUT/apps.txt"
: >"$OUT/rounds.txt"
: >"$OUT/share.txt"
WRAP=()
PERF_OK=0
[ "${APPS_PERF:-1}" = 1 ] && perf record -q -o "$W/probe.data" -- true >/dev/null 2>&1 && PERF_OK=1
rm -f "$W/probe.data"

hashcat_run() { # OWN(0/1) -> stdout: the cracked line
	[ "$1" = 1 ] || rm -rf "$XDG_CACHE_HOME/hashcat" "$HOME/.local/share/hashcat"
	"${WRAP[@]}" hashcat -m 0 -a 3 hash.txt '?d?d?d' --potfile-disable -D 1 --quiet
}

ffmpeg_run() { # OWN(0/1) -> stdout: the frames' hashes
	[ "$1" = 1 ] && export POCL_KERNEL_CACHE=1
	"${WRAP[@]}" ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc=size=320x240:rate=10 -frames:v 20 \
		-init_hw_device opencl=ocl:0.0 -filter_hw_device ocl -vf \
		"format=yuv420p,hwupload,avgblur_opencl=sizeX=3,unsharp_opencl,sobel_opencl,hwdownload,format=yuv420p" \
		-f framemd5 -
}

pyopencl_run() { # OWN(0/1) -> stdout: the results' hash
	if [ "$1" = 1 ]; then unset PYOPENCL_NO_CACHE; else export PYOPENCL_NO_CACHE=1; fi
	"${WRAP[@]}" /usr/bin/python3 "$ROOT/bench/pyopencl_apps.py"
}

tinygrad_run() { # OWN(0/1) -> stdout: the results' hash
	if [ "$1" = 1 ]; then unset CACHELEVEL; else export CACHELEVEL=0; fi
	DEV=CL "${WRAP[@]}" "$TINYGRAD_PYTHON" "$ROOT/bench/tinygrad_apps.py"
}

opencv_run() { # OWN(0/1) -> stdout: the results' hash
	export OPENCV_OPENCL_DEVICE=:CPU: OPENCV_OPENCL_CACHE_ENABLE=$1 \
		OPENCV_OPENCL_CACHE_DIR=$XDG_CACHE_HOME/opencv-cl
	"${WRAP[@]}" /usr/bin/python3 "$ROOT/bench/opencv_apps.py"
}

one() { # APP WAY
	local app=$1 way=$2 own=0 jc=0 driver=0
	case $way in jc_*) jc=1 ;; own_*) own=1 ;; both) jc=1 own=1 ;; esac
	case $way in driver_*) driver=1 ;; esac
	case $way in driver_added | driver_both | driver_node | driver_jc_cold) jc=1 ;; esac
	[ "$way" = jc_cold ] && rm -rf "$W/jc"
	[ "$way" = own_cold ] && rm -rf "$XDG_CACHE_HOME/hashcat" "$HOME/.local/share/hashcat" "$W/pocl" \
		"$XDG_CACHE_HOME/pyopencl" "$XDG_CACHE_HOME/tinygrad" "$XDG_CACHE_HOME/opencv-cl"
	case $way in driver_cold | driver_node | driver_jc_cold) rm -rf "$W/pocl-own" ;; esac
	case $way in driver_added | driver_jc_cold) rm -rf "$W/jc-driver" ;; esac
	local t0 t1 log=$OUT/logs/$app-$way
	t0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
	local start end
	start=$(date +%s.%N)
	(
		export POCL_KERNEL_CACHE=0 POCL_CACHE_DIR=$W/pocl JITCACHE_DIR=$W/jc JITCACHE_LOG=info
		if [ "$driver" = 1 ]; then
			export POCL_KERNEL_CACHE=1 POCL_CACHE_DIR=$W/pocl-own JITCACHE_DIR=$W/jc-driver
		fi
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
		tee -a "${ROWS:-$OUT/apps.txt}"
}

for app in $APPS; do
	case $app in
	pyopencl) /usr/bin/python3 -c 'import pyopencl' 2>/dev/null ;;
	tinygrad) "$TINYGRAD_PYTHON" -c 'import tinygrad' 2>/dev/null ;;
	opencv) /usr/bin/python3 -c 'import cv2' 2>/dev/null ;;
	*) command -v "$app" >/dev/null ;;
	esac || { echo "apps bench: $app not installed, skipped" >&2; continue; }
	for way in $WAYS; do one "$app" "$way"; done
	for _ in $(seq "${APPS_ROUNDS:-3}"); do
		for way in driver_warm driver_added driver_both; do ROWS=$OUT/rounds.txt one "$app" "$way"; done
	done
	[ "$PERF_OK" = 1 ] || continue
	for way in driver_added driver_both; do
		WRAP=(perf record -q -F 1999 --call-graph dwarf,16384 -o "$W/perf.data" --)
		ROWS=$W/perf-rows.txt one "$app" "$way"
		WRAP=()
		share=$(python3 "$ROOT/bench/own_share.py" "$W/perf.data") &&
			echo "share $app $way $share" >>"$OUT/share.txt"
		rm -f "$W/perf.data"
	done
done

{
	echo "| program | way | wall s | CPU s | CPU / none | CPU / driver_warm | CPU / own_warm | output | hits | misses | stores |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	awk '$3 == "none" { base[$2] = $5 } $3 == "driver_warm" { warm[$2] = $5 }
	     $3 == "own_warm" { own[$2] = $5 }
	     { rows[NR] = $0 }
	     END { for (i = 1; i <= NR; i++) { split(rows[i], f, " ")
	       ratio = base[f[2]] > 0 ? sprintf("%.3fx", f[5] / base[f[2]]) : "-"
	       wr = warm[f[2]] > 0 ? sprintf("%.2fx", f[5] / warm[f[2]]) : "-"
	       ow = own[f[2]] > 0 ? sprintf("%.2fx", f[5] / own[f[2]]) : "-"
	       printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[2], f[3], f[4],
		      f[5], ratio, wr, ow, f[6], f[7], f[8], f[9] } }' "$OUT/apps.txt"
	if [ -s "$OUT/rounds.txt" ]; then
		echo
		echo "| program | rounds | driver_added / driver_warm, median (each round) | driver_both / driver_warm, median (each round) | outputs |"
		echo "|---|---|---|---|---|"
		awk 'function median(list, n,   i, j, t, v) { n = split(list, v, " ")
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
		     $3 == "driver_warm" { warm = $5 }
		     $3 == "driver_added" && warm > 0 { added[$2] = added[$2] sprintf(" %.3f", $5 / warm) }
		     $3 == "driver_both" && warm > 0 { both[$2] = both[$2] sprintf(" %.3f", $5 / warm); n[$2]++ }
		     $6 != "same" { diff[$2] = 1 }
		     !($2 in n) { n[$2] = 0; order[++apps] = $2 }
		     END { for (i = 1; i <= apps; i++) { a = order[i]
			printf "| %s | %d | %.3fx (%s) | %.3fx (%s) | %s |\n", a, n[a], median(added[a]), substr(added[a], 2),
			       median(both[a]), substr(both[a], 2), diff[a] ? "DIFFERENT" : "same" } }' "$OUT/rounds.txt"
	fi
	if [ -s "$OUT/share.txt" ]; then
		echo
		echo "| program | way | CPU samples | jitcache's own | share | where |"
		echo "|---|---|---|---|---|---|"
		awk '{ where = ""; for (i = 6; i <= NF; i++) where = where (i > 6 ? ", " : "") $i
		       printf "| %s | %s | %d | %d | %.2f%% | %s |\n", $2, $3, $4, $5, $4 ? 100 * $5 / $4 : 0, where }' "$OUT/share.txt"
	fi
} >"$OUT/apps.md"
cat "$OUT/apps.md"
