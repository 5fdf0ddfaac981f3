#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/llama.sh OUTDIR — ipex-llm's llama.cpp (bigdl-core-cpp 2.6.0:
# llama-server, libggml-sycl) as its users run it, on Intel's 2026 driver
# simulating an Arc A770, beside the driver's own cache; then a cache made
# for every Arc target ahead of time.  Runs inside the test bed
# (/opt/jitcache-llama from `make testbed-llama`): bench/run.sh runs it
# there; alone: make bench-llama.  The model is made here
# (examples/llama/make_model.py: a tiny random-weight Q4_0 llama); a client
# on 127.0.0.1 (examples/llama/serve.py) starts llama-server, asks one
# greedy completion of 8 tokens and stops it.
# 1. llama-server, then ollama (`ollama serve`, the model created from a
#    Modelfile), in these ways, each a fresh process; the warm ones
#    interleaved run by run:
#      cold  no cache at all;
#      neo   the driver's cache warm, alone (NEO_CACHE_DIR);
#      jc    jitcache warm, the driver's cache off;
#      both  jitcache and the driver's cache, both warm.
#    Each cache is filled by one run first (its "first run": neo_fill,
#    jc_fill, both_fill).  Figures: time to first token (process start ->
#    first token: the server's start, with every kernel build in its warm-up,
#    plus the request), to the last token, and the process's wall time,
#    medians; the files the driver's cache holds after its fill beside the
#    modules the program creates (what the driver's cache keeps).
# 2. First run warm for every Arc target: the A770 run's recipes are
#    compiled by `jitcache warm --for TARGETS --export PACK` (its time,
#    the pack's size, the machine's load); then for each target, the process
#    simulating it, first runs with an empty cache and the pack as a layer
#    (JITCACHE_LAYERS) interleaved with warm runs (the pack's entries in the
#    process's own cache): time to first token, first against warm, and
#    every build a hit.  Where the simulation cannot run
#    llama.cpp (TESTBED.md: ggml-sycl's device setup fails on the B580's),
#    the modules' creation alone is replayed through the layer (`jitcache
#    warm --for TARGET`: all of them "already cached"), and the table says why.
# 3. The first run's ratio through a registry (with REGISTRY_HOST,
#    REGISTRY_CA and DOCKER_CONFIG: bench/registry_run.sh starts Debian's
#    docker-registry on the loopback, as make bench-llama does): a CI run
#    records llama-server on the A770 with a signing key and the oci://
#    remote, warms it --for a380, and pushes the pack; then an A380's
#    cold run (no cache at all) interleaved with two first runs of a fresh
#    A380 (an empty cache, the public key in trusted_keys): after `jitcache
#    pull` alone, and with only the oci:// remote (read-only).  Time to
#    first token, each first run against the cold run.
# Writes OUTDIR/llama.md and the raw OUTDIR/llama.txt.  Knobs: LLAMA_REPS
# (3), LLAMA_TARGETS (a770,a750,a580,a380,b580,b570,mtl-h,lnl), LLAMA_PACK=0
# (skip part 2), LLAMA_WAYS=0 (part 1 only as far as part 2 needs: the
# llama-server run that records the recipes), LLAMA_REGISTRY=0 (skip part 3).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build-sid}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
OUT=${1:?usage: bench/llama.sh OUTDIR}
REPS=${LLAMA_REPS:-3}
TARGETS=${LLAMA_TARGETS:-a770,a750,a580,a380,b580,b570,mtl-h,lnl}
VENV=${LLAMA_VENV:-/opt/jitcache-llama}
for need in "$B/libjitcache.so" "$B/jitcache-replay" "$VENV/llama/llama-server"; do
	[ -e "$need" ] || { echo "llama bench: $need missing (make testbed-llama; build in the test bed)" >&2; exit 1; }
done
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-llama.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1 # the simulated GPU may write files to the current directory

SIM_BASE=(NEOReadDebugKeys=1 SetCommandStreamReceiver=1 UseAubStream=0 HardwareInfoOverride=1x4x16
	UseExternalAllocatorForSshAndDsh=0 OverrideMaxWorkgroupSize=1024)
present() { # TARGET: the settings that give the process that GPU's identity (bin/warm.c's table)
	case $1 in
	a770) echo "ProductFamilyOverride=acm-g10 ForceDeviceId=56A0 OverrideDeviceName=Intel(R)_Arc(TM)_A770_Graphics" ;;
	a750) echo "ProductFamilyOverride=acm-g10 ForceDeviceId=56A1 OverrideDeviceName=Intel(R)_Arc(TM)_A750_Graphics" ;;
	a580) echo "ProductFamilyOverride=acm-g10 ForceDeviceId=56A2 OverrideDeviceName=Intel(R)_Arc(TM)_A580_Graphics" ;;
	a380) echo "ProductFamilyOverride=dg2-g11-b1 ForceDeviceId=56A5 OverrideDeviceName=Intel(R)_Arc(TM)_A380_Graphics" ;;
	b580) echo "ProductFamilyOverride=bmg-g21 ForceDeviceId=E20B OverrideDeviceName=Intel(R)_Arc(TM)_B580_Graphics" ;;
	b570) echo "ProductFamilyOverride=bmg-g21 ForceDeviceId=E20C OverrideDeviceName=Intel(R)_Arc(TM)_B570_Graphics" ;;
	mtl-h) echo "ProductFamilyOverride=mtl-h ForceDeviceId=7D55 OverrideRevision=8 OverrideDeviceName=Intel(R)_Arc(TM)_Graphics" ;;
	lnl) echo "ProductFamilyOverride=lnl-m ForceDeviceId=64A0 OverrideDeviceName=Intel(R)_Arc(TM)_Graphics" ;;
	esac
}
target_env() { # TARGET -> env arguments (the name's spaces restored)
	local kv
	for kv in $(present "$1"); do printf '%s\n' "${kv//_/ }"; done
}
export HOME=$W/home JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$W/xdg-config
export JITCACHE_LIB=$B/libjitcache.so JITCACHE_ADMIN=$B/jitcache-admin
export LD_LIBRARY_PATH=$VENV/lib:$VENV/llama GGML_SYCL_ENABLE_VMM=0
unset XDG_CACHE_HOME JITCACHE_DIR JITCACHE_LOG JITCACHE_DISABLE JITCACHE_LAYERS LD_PRELOAD NEO_CACHE_DIR
"$VENV/bin/python" "$ROOT/examples/llama/make_model.py" "$W/tiny.gguf" --layers 2 --embd 256 --heads 2 --ff 512 \
	>"$OUT/logs/llama-model" 2>&1 || { echo "llama bench: make_model.py failed" >&2; exit 1; }
raw=$OUT/llama.txt
: >"$raw"
load() { cut -d' ' -f1-3 /proc/loadavg; }

# serve LOG TARGET [ENV...] -- [jitcache run --]: one llama-server process
# and its request; with APP=ollama, `ollama serve` with the model created
# from a Modelfile first.
APP=llama
printf 'FROM %s\nPARAMETER temperature 0\nPARAMETER seed 1\n' "$W/tiny.gguf" >"$W/Modelfile"
serve() {
	local log=$1 target=$2; shift 2
	local env=() jc=() app
	while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	jc=("$@")
	mapfile -t tenv < <(target_env "$target")
	if [ "$APP" = ollama ]; then
		rm -rf "$W/ollama-models"
		app=(--api ollama --create "$W/Modelfile" -n 8 -- "${jc[@]}" "$VENV/llama/ollama" serve)
		env+=(OLLAMA_MODELS=$W/ollama-models OLLAMA_NUM_GPU=999 OLLAMA_INTEL_GPU=true)
	else
		app=(-n 8 -- "${jc[@]}" "$VENV/llama/llama-server" -m "$W/tiny.gguf" -ngl 99 -c 256 --seed 1)
	fi
	env "${SIM_BASE[@]}" "${tenv[@]}" "${env[@]}" "$VENV/bin/python" "$ROOT/examples/llama/serve.py" "${app[@]}" \
		>"$log" 2>&1
}
f() { sed -n "s/^$1: //p" "$2"; }
one() { # KIND REP
	local kind=$1 r=$2 base=${1%_fill} log=$OUT/logs/$APP-$1-$2 env=(NEO_CACHE_PERSISTENT=0) jc=()
	case $base in
	neo | both) env=(NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR=$W/$APP-neo-$base); mkdir -p "$W/$APP-neo-$base" ;;
	esac
	case $base in jc | both) jc=("$ROOT/bin/jitcache" run --) ;; esac
	serve "$log" a770 "${env[@]}" JITCACHE_DIR="$W/$APP-jc-$base" JITCACHE_LOG=debug -- "${jc[@]}" ||
		{ echo "llama bench: $kind failed (log: $log)" >&2; tail -n 5 "$log" >&2; return 1; }
	case $kind in jc | both)
		! grep -q ': miss' "$log" || { echo "llama bench: $kind missed (log: $log)" >&2; return 1; } ;;
	esac
	echo "$APP $kind $r $(f ready "$log") $(f first_token "$log") $(f last_token "$log") $(f wall "$log") $(grep -c ': hit, loaded' "$log")" >>"$raw"
}

failed=0
echo "load_start $(load)" >>"$raw"
kinds=(neo jc both)
apps=(llama ollama)
if [ "${LLAMA_WAYS:-1}" = 0 ]; then # only the recording run part 2 warms from
	apps=() kinds=()
	APP=llama one jc_fill 1 || failed=1
fi
for APP in "${apps[@]}"; do
	for r in $(seq 1 "${LLAMA_REPS_COLD:-1}"); do one cold "$r" || failed=1; done
	for k in "${kinds[@]}"; do one "${k}_fill" 1 || failed=1; done
	{
		echo "files $APP $(find "$W/$APP-neo-neo" -type f | wc -l)"
		echo "spirv $APP $(grep -cE 'zeModuleCreate\)?: miss' "$OUT/logs/$APP-jc_fill-1")"
		echo "native $APP $(grep -c 'passed through (native' "$OUT/logs/$APP-jc_fill-1")"
	} >>"$raw"
	for r in $(seq 1 "$REPS"); do
		for i in "${!kinds[@]}"; do one "${kinds[$(((i + r) % ${#kinds[@]}))]}" "$r" || failed=1; done
	done
done
APP=llama
echo "load_ways $(load)" >>"$raw"

# ---- 2. the eight-target pack -------------------------------------------------------
if [ "${LLAMA_PACK:-1}" != 0 ]; then
	pack=$W/pack.tar.zst
	echo "load_pack_before $(load)" >>"$raw"
	t0=$(date +%s.%N)
	# Its CPU time too (the workers': bash's `time` counts the children it
	# waited for): what the pack costs whatever else the machine runs.
	TIMEFORMAT='%U %S'
	if { time JITCACHE_DIR=$W/llama-jc-jc "$ROOT/bin/jitcache" warm --for "$TARGETS" --export "$pack" \
		>"$OUT/logs/llama-warm-for" 2>&1; } 2>"$W/pack-cpu"; then
		echo "pack_s $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') $(stat -c %s "$pack")" >>"$raw"
		echo "pack_targets $TARGETS" >>"$raw"
		echo "pack_cpu $(cat "$W/pack-cpu")" >>"$raw"
		echo "load_pack_after $(load)" >>"$raw"
		grep '^warm ' "$OUT/logs/llama-warm-for" | sed 's/^/pack_line /' >>"$raw"
		mkdir -p "$W/layer"
		JITCACHE_DIR=$W/layer "$ROOT/bin/jitcache" import "$pack" >"$OUT/logs/llama-import" 2>&1 || failed=1
		for t in ${TARGETS//,/ }; do
			log=$OUT/logs/llama-target-$t
			# The warm run: the pack's entries in the process's own cache.
			mkdir -p "$W/local-$t"
			JITCACHE_DIR=$W/local-$t "$ROOT/bin/jitcache" import "$pack" >/dev/null 2>&1 || failed=1
			ran=1
			for r in $(seq 1 "$REPS"); do
				# The first run: an empty cache, the pack as a layer.
				rm -rf "$W/t-$t"
				for way in first warm; do
					if [ "$way" = first ]; then
						serve "$log-$r" "$t" NEO_CACHE_PERSISTENT=0 JITCACHE_DIR="$W/t-$t" JITCACHE_LAYERS="$W/layer" \
							JITCACHE_LOG=debug -- "$ROOT/bin/jitcache" run -- || { ran=0; break 2; }
						echo "target $t run $(f ready "$log-$r") $(f first_token "$log-$r") $(grep -c ': hit, loaded' "$log-$r") $(grep -c ': miss' "$log-$r")" >>"$raw"
					else
						serve "$log-warm-$r" "$t" NEO_CACHE_PERSISTENT=0 JITCACHE_DIR="$W/local-$t" \
							JITCACHE_LOG=debug -- "$ROOT/bin/jitcache" run -- || failed=1
						echo "target $t warm $(f ready "$log-warm-$r") $(f first_token "$log-warm-$r") $(grep -c ': hit, loaded' "$log-warm-$r") $(grep -c ': miss' "$log-warm-$r")" >>"$raw"
					fi
				done
			done
			[ $ran = 1 ] && continue
			log=$log-$r
			# llama.cpp cannot run on this simulation: the modules' creation
			# alone, through the layer.
			why=$(grep -m1 -oE 'UR_RESULT_ERROR_[A-Z_]+|GGML_ASSERT\([^)]*\)' "$log" || echo "see $log")
			t0=$(date +%s.%N)
			JITCACHE_DIR=$W/t-$t JITCACHE_LAYERS=$W/layer "$ROOT/bin/jitcache" warm --for "$t" \
				>"$log.replay" 2>&1 || failed=1
			echo "target $t replay $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') $(sed -n 's/.*: \([0-9]*\) compiled, \([0-9]*\) already cached, \([0-9]*\) failed.*/\1 \2 \3/p' "$log.replay") ${why// /_}" >>"$raw"
		done
	else
		echo "llama bench: jitcache warm --for failed (log: $OUT/logs/llama-warm-for)" >&2
		tail -n 5 "$OUT/logs/llama-warm-for" >&2
		failed=1
	fi
fi

# ---- 3. the first run's ratio through a registry ---------------------------------------
if [ -n "${REGISTRY_HOST:-}" ] && [ "${LLAMA_REGISTRY:-1}" != 0 ]; then
	R=$W/registry repo=oci://$REGISTRY_HOST/llama/kernels
	mkdir -p "$R"
	"$ROOT/bin/jitcache" keygen "$R/ci.key" >"$OUT/logs/llama-reg-keygen" 2>&1 || failed=1
	ci=(JITCACHE_DIR=$R/ci JITCACHE_SIGNING_KEY=$R/ci.key "JITCACHE_REMOTE=$repo|ca-file=$REGISTRY_CA")
	fresh=(NEO_CACHE_PERSISTENT=0 JITCACHE_TRUSTED_KEYS=$R/ci.key.pub JITCACHE_LOG=debug)
	echo "load_registry_before $(load)" >>"$raw"
	# CI: record on the A770, warm for the A380 (signed; the entries one by
	# one through the remote as well), push the pack.
	if serve "$OUT/logs/llama-reg-record" a770 NEO_CACHE_PERSISTENT=0 "${ci[@]}" -- "$ROOT/bin/jitcache" run -- &&
		env "${ci[@]}" "$ROOT/bin/jitcache" warm --for a380 --export "$R/pack.tar.zst" \
			>"$OUT/logs/llama-reg-warm" 2>&1 &&
		"$ROOT/bin/jitcache" push "$repo:bench" "$R/pack.tar.zst" --for a380 --programs llama-server \
			--ca-file "$REGISTRY_CA" >"$OUT/logs/llama-reg-push" 2>&1; then
		echo "reg_push $(stat -c %s "$R/pack.tar.zst")" >>"$raw"
		for r in $(seq 1 "$REPS"); do
			log=$OUT/logs/llama-reg
			serve "$log-cold-$r" a380 NEO_CACHE_PERSISTENT=0 -- || failed=1
			echo "reg cold $r $(f ready "$log-cold-$r") $(f first_token "$log-cold-$r") 0 0 0" >>"$raw"
			# a fresh A380 that pulls (its GPU asked of the simulated driver)
			rm -rf "$R/pull" "$R/remote"
			mapfile -t tenv < <(target_env a380)
			t0=$(date +%s.%N)
			env "${SIM_BASE[@]}" "${tenv[@]}" JITCACHE_DIR="$R/pull" JITCACHE_TRUSTED_KEYS="$R/ci.key.pub" \
				"$ROOT/bin/jitcache" pull "$repo:bench" --ca-file "$REGISTRY_CA" >"$log-pull-$r.pull" 2>&1 || failed=1
			ps=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
			serve "$log-pull-$r" a380 "${fresh[@]}" JITCACHE_DIR="$R/pull" -- "$ROOT/bin/jitcache" run -- || failed=1
			echo "reg pull $r $(f ready "$log-pull-$r") $(f first_token "$log-pull-$r") $(grep -c ': hit' "$log-pull-$r") $(grep -c ': miss' "$log-pull-$r") $ps" >>"$raw"
			# a fresh A380 with only the oci:// remote
			serve "$log-remote-$r" a380 "${fresh[@]}" JITCACHE_DIR="$R/remote" \
				"JITCACHE_REMOTE=$repo|ca-file=$REGISTRY_CA|read-only" -- "$ROOT/bin/jitcache" run -- || failed=1
			echo "reg remote $r $(f ready "$log-remote-$r") $(f first_token "$log-remote-$r") $(grep -c ': hit' "$log-remote-$r") $(grep -c ': miss' "$log-remote-$r") 0" >>"$raw"
		done
	else
		echo "llama bench: the registry's CI part failed (logs: $OUT/logs/llama-reg-*)" >&2
		failed=1
	fi
	echo "load_registry_after $(load)" >>"$raw"
elif [ "${LLAMA_REGISTRY:-1}" != 0 ]; then
	echo "reg_skip no registry (run through bench/registry_run.sh, as make bench-llama does)" >>"$raw"
fi

python3 - "$raw" >"$OUT/llama.md" <<'PY'
import statistics, sys
rows, kv, targets, pack, reg = {}, {}, [], [], {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] in ("llama", "ollama") and len(f) == 8:
        rows.setdefault((f[0], f[1]), []).append([float(x) for x in f[3:7]] + [int(f[7])])
    elif f[0] == "target":
        targets.append(f[1:])
    elif f[0] == "reg":
        reg.setdefault(f[1], []).append(f[2:])
    elif f[0] == "pack_line":
        pack.append(" ".join(f[1:]))
    elif f[0] in ("files", "spirv", "native"):
        kv[(f[0], f[1])] = f[2]
    else:
        kv[f[0]] = f[1:]
def med(k, fn):
    v = rows.get(k)
    return statistics.median(fn(x) for x in v) if v else None
def cell(k, fn):
    m = med(k, fn)
    return "-" if m is None else "%.2f" % m
ways = [("cold", "cold"), ("neo_fill", "driver cache, first run"), ("neo", "driver cache warm"),
        ("jc_fill", "jitcache, first run"), ("jc", "jitcache warm"), ("both", "both warm")]
for app, title in (("llama", "llama-server"), ("ollama", "ollama serve")):
    if not any(k[0] == app for k in rows):
        continue
    print("| %s (bigdl-core-cpp 2.6.0), simulated A770, 2026 driver | %s |" % (title, " | ".join(w for _, w in ways)))
    print("|---|%s" % ("---|" * len(ways)))
    print("| time to first token (process start -> first token), s | %s |" % " | ".join(cell((app, k), lambda x: x[0] + x[1]) for k, _ in ways))
    print("| time to last token, s | %s |" % " | ".join(cell((app, k), lambda x: x[0] + x[2]) for k, _ in ways))
    print("| first token after the request, s | %s |" % " | ".join(cell((app, k), lambda x: x[1]) for k, _ in ways))
    print("| process wall time, s | %s |" % " | ".join(cell((app, k), lambda x: x[3]) for k, _ in ways))
    print("\n%s: medians of %d warm runs (first runs: 1).  Modules created: %s from SPIR-V (none linked from two "
          "inputs in this build), %s native (oneDNN's, passed through); files in the driver's cache after its first "
          "run: %s.\n" % (title, len(rows.get((app, "jc"), [])), kv.get(("spirv", app), "-"), kv.get(("native", app), "-"),
          kv.get(("files", app), "-")))
print("Load average (1, 5, 15 min) at the start: %s; after: %s." % (" ".join(kv.get("load_start", [])), " ".join(kv.get("load_ways", []))))
if "pack_s" in kv:
    s, size = kv["pack_s"]
    print("\n`jitcache warm --for %s --export` of the A770 llama-server run's recipes: **%s s**, pack %.2f MB "
          "(load average %s before, %s after; 2 cores shared)." % (" ".join(kv.get("pack_targets", [])), s,
          int(size) / 1e6, " ".join(kv.get("load_pack_before", [])), " ".join(kv.get("load_pack_after", []))))
    if "pack_cpu" in kv:
        u, sy = (float(x) for x in kv["pack_cpu"])
        print("\nCPU time of the pack (every worker's): %.1f s user + %.1f s system; on 2 idle cores at least "
              "%.1f s." % (u, sy, (u + sy) / 2))
    print()
    for l in pack:
        print("    " + l)
    # Each target's part of the pack: its workers' time (first start to
    # last end; targets overlap, one pool serves them all) and what it
    # compiled, shared with the target of its IP version, or found.
    import re
    form = re.compile(r"warm (\S+) \(.*IP ([0-9.]+)\)\): (\d+) of \d+ recipes? in ([0-9.]+) s .*?: (\d+) compiled, "
                      r"(?:(\d+) shared with (\S+) \(IP [0-9.]+\), )?(\d+) already cached, (\d+) failed")
    rows_pack = [m.groups() for m in map(form.search, pack) if m]
    if rows_pack:
        print("\n| target | IP version | its workers' time in the pack, s | compiled | shared (with) | already cached | failed |")
        print("|---|---|---|---|---|---|---|")
        for name, ip, done, secs, comp, shared, leader, found, failed in rows_pack:
            print("| %s | %s | %s | %s | %s | %s | %s |" % (name, ip, secs, comp,
                  "%s (%s)" % (shared, leader) if leader else "-", found, failed))
    print("\n| target | first run through the pack (a layer, an empty cache) | time to first token, s | the warm run (entries in its own cache), s | first / warm | hits | misses |")
    print("|---|---|---|---|---|---|---|")
    seen = []
    for t in targets:
        if t[0] in seen:
            continue
        seen.append(t[0])
        first = [x for x in targets if x[0] == t[0] and x[1] == "run"]
        warm = [x for x in targets if x[0] == t[0] and x[1] == "warm"]
        if first:
            ttft = statistics.median(float(x[2]) + float(x[3]) for x in first)
            wttft = statistics.median(float(x[2]) + float(x[3]) for x in warm) if warm else 0
            print("| %s | llama-server (median of %d) | %.2f | %.2f | %.2fx | %s | %s |" % (t[0], len(first), ttft, wttft,
                  ttft / wttft if wttft else 0, "/".join(x[4] for x in first), "/".join(x[5] for x in first)))
        else:
            g = lambda i: t[i] if len(t) > i else "-"
            print("| %s | modules' creation alone, `jitcache warm --for %s` (llama.cpp fails on this simulation: %s) "
                  "| %s (the replay) | - | - | %s already cached | %s compiled, %s failed |"
                  % (t[0], t[0], g(6).replace("_", " "), t[2], g(4), g(3), g(5)))
if reg.get("cold"):
    ttft = lambda way: statistics.median(float(x[1]) + float(x[2]) for x in reg[way]) if reg.get(way) else None
    cold = ttft("cold")
    print("\n| a fresh A380 through a registry (docker-registry on the loopback, htpasswd, TLS) | time to first token, s | against its cold run | hits | misses |")
    print("|---|---|---|---|---|")
    print("| cold run (no cache at all), median of %d | %.2f | 1x | - | - |" % (len(reg["cold"]), cold))
    for way, title in (("pull", "first run after `jitcache pull`"), ("remote", "first run, only the oci:// remote")):
        if reg.get(way):
            v = ttft(way)
            print("| %s, median of %d | %.2f | **%.4fx** | %s | %s |" % (title, len(reg[way]), v, v / cold if cold else 0,
                  "/".join(x[3] for x in reg[way]), "/".join(x[4] for x in reg[way])))
    pulls = [float(x[5]) for x in reg.get("pull", [])]
    print("\nThe pack (%s bytes, signed, pushed `--for a380`); `jitcache pull` itself took %s s (the driver asked "
          "for the GPU, the index, the manifest, the pack, the import).  Load average %s before, %s after." % (
          " ".join(kv.get("reg_push", ["-"])), "/".join("%.2f" % p for p in pulls),
          " ".join(kv.get("load_registry_before", [])), " ".join(kv.get("load_registry_after", []))))
elif "reg_skip" in kv:
    print("\nFirst run through a registry: not measured (%s)." % " ".join(kv["reg_skip"]))
PY
cat "$OUT/llama.md"
exit $failed
