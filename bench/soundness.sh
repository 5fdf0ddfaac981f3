#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/soundness.sh — the key soundness benchmark (issue 31 item 2): does a
# cache's key change exactly when the driver's code would?  Each case changes
# one thing from a base request and says the verdict it must get: "miss"
# (the driver compiles other code, or may: a stale hit would load the wrong
# binary) or "hit" (the same code: a miss is a spurious recompile).  Every
# case is run through three keys, each from a cache holding only the base
# request's entry:
#   jitcache  this build under `jitcache run`; a miss must also be explained
#             right: `jitcache explain`'s cause for it is checked;
#   driver    the driver's own cache alone: Intel's 2026 driver's persistent
#             cache (NEO_CACHE_PERSISTENT=1, NEO_CACHE_DIR), Debian 12's
#             22.43 cl_cache (a cl_cache directory in the current
#             directory; OpenCL only: 22.43 caches no Level Zero module);
#             a miss stores a new file in that cache; a run that stores
#             none is a hit, except on the 2026 driver with an IGC_*
#             variable set, which silently switches its cache off (the
#             run compiles in about the cold time: each run's
#             NAME-driver.why log says files before and after, and times);
#   envhash   a whole-environment hash, as chipStar keyed its cache: every
#             environment variable, the program input's bytes, the build
#             options, the specialization constants and the driver's
#             version (its package's), nothing else.
# Runs on the driver it finds: Debian 12's (the host) or Intel's 2026 stack
# (inside the test bed: tests/testbed/run env BUILD=build-sid bash
# bench/soundness.sh OUT).  Writes OUT/soundness-DRIVER.tsv (one line a
# case: name, verdict, jitcache, explain cause wanted, explain cause got,
# driver, envhash) and OUT/soundness-DRIVER.md (the table, and the tally),
# and the run's logs in OUT/logs/soundness-DRIVER/.
#   SOUND_CASES="a b": only those cases (a test's shorter run).
# Upgrades are simulated without touching the machine's files: in a private
# mount namespace (unshare -m, root only) a copy of the library whose
# GNU build-id note differs (what another build of it has) is bind-mounted
# over the installed file; its version strings, path and name are unchanged,
# as with chipStar's IGC 2.38 -> 2.40 under one driver version.  Without
# root those two cases are not run (n/a).
# Exit status: 0 if every case ran (verdicts are reported, not judged here:
# tests/integration/key_soundness.sh judges jitcache's).
set -u
. "$(dirname "$0")/lib.sh"
bench_init soundness build "${1:-}"
bench_isolate
bench_need "make tests examples" "$B/libjitcache.so" "$B/tests/ze_client" "$B/tests/ze_spec_spirv" \
	"$B/tests/cl_build" "$B/jitcache-admin"
command -v ocloc >/dev/null || { echo "soundness bench: ocloc missing (make deps)" >&2; exit 1; }
JC=$ROOT/bin/jitcache
if [ "${JITCACHE_TESTBED_DRIVER:-}" = neo-2026 ]; then
	DRV=neo-2026
	driver_version=$(dpkg-query -W -f='${Version}' libze-intel-gpu1 2>/dev/null)
else
	DRV=debian12
	driver_version=$(dpkg-query -W -f='${Version}' intel-opencl-icd 2>/dev/null)
fi
LOGS=$OUT/logs/soundness-$DRV
rm -rf "$LOGS" && mkdir -p "$LOGS"
TSV=$OUT/soundness-$DRV.tsv
: >"$TSV"
cd "$W" || exit 1 # the simulated GPU writes .aub files to the current directory
unset LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$B/lib
unset NEO_CACHE_PERSISTENT NEO_CACHE_DIR

# ---- the simulated GPUs ----------------------------------------------------------
# sim PRODUCT [DEVICE-ID] [REVISION]: the variables of the simulation (TESTBED.md 1, 4)
sim_vars() {
	local v=(NEOReadDebugKeys=1 SetCommandStreamReceiver=1 "ProductFamilyOverride=$1")
	[ -n "${2:-}" ] && v+=("ForceDeviceId=$2")
	[ -n "${3:-}" ] && v+=("OverrideRevision=$3")
	if [ $DRV = neo-2026 ]; then
		v+=(UseAubStream=0 HardwareInfoOverride=1x4x16 UseExternalAllocatorForSshAndDsh=0
			OverrideMaxWorkgroupSize=1024)
	else
		v+=(OverrideMaxWorkgroupSize=256)
	fi
	printf '%s\n' "${v[@]}"
}
if [ $DRV = neo-2026 ]; then
	BASE_GPU="acm-g10 56A0"   # Arc A770, IP 12.55.8
	SAME_IP_GPU="acm-g10 56A1" # Arc A750, IP 12.55.8
	OTHER_IP_GPU="bmg-g21 E20B" # Arc B580, IP 20.1.0
	# The A770's B0 stepping, 12.55.4 (the driver reports the IP version
	# of the stepping a product name sets; OverrideRevision changes IGC's
	# code but not the IP version the simulation reports: not a GPU).
	STEP_BASE=ze OTHER_STEP_GPU="dg2-g10-b0 56A0" STEP_GPU=$BASE_GPU
	IGC=libigc.so.2
else
	BASE_GPU="dg2 56A0"
	SAME_IP_GPU="dg2 56A1"
	OTHER_IP_GPU="tgllp"
	# 22.43 reports no IP version: the stepping is the simulated revision
	STEP_BASE=mtl STEP_GPU="dg2 56A0 4" OTHER_STEP_GPU="dg2 56A0 8"
	IGC=libigc.so.1
fi
mapfile -t BASE_SIM < <(sim_vars $BASE_GPU)

# ---- inputs --------------------------------------------------------------------
mkdir -p in/inc in/elsewhere
ocloc compile -q -spv_only -file "$ROOT/examples/kernels/reduce.cl" -device dg2 \
	-output in/reduce -output_no_suffix >"$LOGS/ocloc.log" 2>&1 || { cat "$LOGS/ocloc.log" >&2; exit 1; }
cp in/reduce.spv in/elsewhere/copy.spv
# With debug information (-g), and the same with a comment line first:
# other line numbers and source name, the same code.
cp "$ROOT/examples/kernels/reduce.cl" in/reduce.cl
(printf '// one more line\n'; cat in/reduce.cl) >in/reduce2.cl
for f in reduce:g reduce2:g2; do
	ocloc compile -q -spv_only -file "in/${f%%:*}.cl" -device dg2 -output "in/${f#*:}" -output_no_suffix \
		-options -g >>"$LOGS/ocloc.log" 2>&1 || { cat "$LOGS/ocloc.log" >&2; exit 1; }
done
"$B/tests/ze_spec_spirv" in/spec.spv >/dev/null || exit 1
echo '#define SCALE 1.75f' >in/inc/scale.h
printf '#include "scale.h"\n' | cat - "$ROOT/tests/integration/compute.cl" >in/k.cl
touch -d '2020-01-01 00:00' in/inc/scale.h

# A library of the driver with another build-id: a copy whose GNU build-id
# note's last byte differs, its version strings untouched.
rebuild_lib() { # SONAME OUT
	local real
	real=$(ldconfig -p | awk -v n="$1" '$1 == n && /x86-64/ { print $NF; exit }')
	[ -n "$real" ] && real=$(readlink -f "$real") && [ -r "$real" ] || return 1
	cp "$real" "$2" && python3 - "$2" <<'EOF' && echo "$real"
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
for i in range(phnum):
    ptype, _, off, _, _, filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
    if ptype != 4:  # PT_NOTE
        continue
    at = off
    while at + 12 <= off + filesz:
        namesz, descsz, ntype = struct.unpack_from("<III", data, at)
        desc = at + 12 + ((namesz + 3) & ~3)
        if ntype == 3 and data[at + 12:at + 15] == b"GNU":
            data[desc + descsz - 1] ^= 0x5a
            open(path, "wb").write(data)
            sys.exit(0)
        at = desc + ((descsz + 3) & ~3)
sys.exit(1)
EOF
}
# A mount namespace of its own for each such run: unshare -m makes it
# private; where / cannot be made so (inside the test bed's chroot, whose
# tests/testbed/run namespace is private already), it keeps the propagation
# it has, but only if no mount is shared (no "shared:" in mountinfo): no mount
# ever reaches the machine's namespace.
CAN_MOUNT=0 UNSHARE=(unshare -m)
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	if unshare -m true 2>/dev/null; then
		CAN_MOUNT=1
	elif ! grep -q 'shared:' /proc/self/mountinfo &&
		unshare -m --propagation unchanged true 2>/dev/null; then
		CAN_MOUNT=1 UNSHARE=(unshare -m --propagation unchanged)
	fi
fi
if [ $CAN_MOUNT = 1 ]; then
	IGC_REAL=$(rebuild_lib $IGC "$W/igc-rebuilt.so") || IGC_REAL=""
	NEO_REAL=$(rebuild_lib libze_intel_gpu.so.1 "$W/neo-rebuilt.so") || NEO_REAL=""
fi

# ---- the cases -----------------------------------------------------------------
# Each: NAME VERDICT BASE CAUSE, and what changes from the base request in
# C_ENV (VAR=value added), C_SIM (another simulated GPU), C_ARGS (the
# client's arguments), C_CWD (another directory), C_MOUNT (a library
# bind-mounted: "COPY REAL"), C_PREP (a command run before it, C_UNDO after).
# Bases: ze (reduce.spv, no flags), spec (spec.spv with SpecId 7 = 3), cl
# (k.cl with -I inc through OpenCL from source); zeg (reduce.cl's SPIR-V
# with debug information); mtl (22.43's stepping: a
# DG2 at revision 4, against 8).
CASES=()
defcase() { CASES+=("$1"); }
setcase() {
	C_ENV=() C_SIM=() C_ARGS=() C_CWD="" C_MOUNT="" C_PREP="" C_UNDO="" C_NA=""
	case $1 in
	igc_upgrade) C_VERDICT=miss C_BASE=ze C_CAUSE=driver
		if [ -n "${IGC_REAL:-}" ]; then C_MOUNT="$W/igc-rebuilt.so $IGC_REAL"
		else C_NA="needs root and unshare -m to put another build of $IGC in place"; fi ;;
	neo_upgrade) C_VERDICT=miss C_BASE=ze C_CAUSE=driver
		if [ -n "${NEO_REAL:-}" ]; then C_MOUNT="$W/neo-rebuilt.so $NEO_REAL"
		else C_NA="needs root and unshare -m to put another build of libze_intel_gpu in place"; fi ;;
	igc_key) C_VERDICT=miss C_BASE=ze C_CAUSE=env C_ENV=(IGC_DisableLoopUnroll=1) ;;
	neo_key) C_VERDICT=miss C_BASE=ze C_CAUSE=env C_ENV=(UseBindlessMode=0) ;;
	neo_key_prefixed) C_VERDICT=miss C_BASE=ze C_CAUSE=env C_ENV=(NEO_L0_UseBindlessMode=0) ;;
	neo_release_key) C_VERDICT=miss C_BASE=ze C_CAUSE=env C_ENV=(OverrideDefaultFP64Settings=1) ;;
	fp64_emulation) C_VERDICT=miss C_BASE=ze C_CAUSE=env C_ENV=(NEO_FP64_EMULATION=1) ;;
	program_debugging) C_VERDICT=miss C_BASE=ze C_CAUSE=env C_ENV=(ZET_ENABLE_PROGRAM_DEBUGGING=1) ;;
	build_options) C_VERDICT=miss C_BASE=ze C_CAUSE=options C_ARGS=(-f -cl-fast-relaxed-math) ;;
	spec_constant) C_VERDICT=miss C_BASE=spec C_CAUSE=spec C_ARGS=(-c "7=4") ;;
	include_contents) C_VERDICT=miss C_BASE=cl C_CAUSE=include
		C_PREP="echo '#define SCALE 2.5f' >in/inc/scale.h"
		C_UNDO="echo '#define SCALE 1.75f' >in/inc/scale.h; touch -d '2020-01-01 00:00' in/inc/scale.h" ;;
	other_ip_version) C_VERDICT=miss C_BASE=ze C_CAUSE=device; mapfile -t C_SIM < <(sim_vars $OTHER_IP_GPU) ;;
	other_stepping) C_VERDICT=miss C_BASE=$STEP_BASE C_CAUSE=device; mapfile -t C_SIM < <(sim_vars $OTHER_STEP_GPU) ;;
	other_spirv) C_VERDICT=miss C_BASE=ze C_CAUSE=new C_ARGS=(in/spec.spv) ;;
	debug_info_only) C_VERDICT=miss C_BASE=zeg C_CAUSE=debug C_ARGS=(in/g2.spv) ;;
	pbs) C_VERDICT=hit C_BASE=ze C_ENV=(PBS_JOBID=4242.pbs PBS_NODEFILE=/var/spool/pbs/aux/4242 PBS_O_WORKDIR=/home/u) ;;
	pals) C_VERDICT=hit C_BASE=ze C_ENV=(PALS_RANKID=3 PALS_LOCAL_RANKID=1 PALS_NODEID=7) ;;
	slurm) C_VERDICT=hit C_BASE=ze C_ENV=(SLURM_JOB_ID=991 SLURM_PROCID=5 SLURM_LOCALID=1 SLURM_NODELIST=n[1-8]) ;;
	ompi) C_VERDICT=hit C_BASE=ze C_ENV=(OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_SIZE=16) ;;
	pmi) C_VERDICT=hit C_BASE=ze C_ENV=(PMI_RANK=5 PMI_SIZE=16 PMI_FD=9) ;;
	mpi_localrankid) C_VERDICT=hit C_BASE=ze C_ENV=(MPI_LOCALRANKID=1 MPI_LOCALNRANKS=4) ;;
	hostname) C_VERDICT=hit C_BASE=ze C_ENV=(HOSTNAME=x1000c0s0b0n1) ;;
	pwd) C_VERDICT=hit C_BASE=ze C_CWD=in/elsewhere ;;
	tmpdir) C_VERDICT=hit C_BASE=ze C_ENV=("TMPDIR=$W/in/elsewhere") ;;
	omp_num_threads) C_VERDICT=hit C_BASE=ze C_ENV=(OMP_NUM_THREADS=7) ;;
	ze_affinity_mask) C_VERDICT=hit C_BASE=ze C_ENV=(ZE_AFFINITY_MASK=0) ;;
	oneapi_device_selector) C_VERDICT=hit C_BASE=ze C_ENV=(ONEAPI_DEVICE_SELECTOR=level_zero:0) ;;
	include_touched) C_VERDICT=hit C_BASE=cl C_PREP="touch in/inc/scale.h"
		C_UNDO="touch -d '2020-01-01 00:00' in/inc/scale.h" ;;
	same_ip_other_id) C_VERDICT=hit C_BASE=ze; mapfile -t C_SIM < <(sim_vars $SAME_IP_GPU)
		[ $DRV = debian12 ] && C_NA="22.43 reports no IP version: another device id may be another GPU, kept apart" ;;
	spirv_other_path) C_VERDICT=hit C_BASE=ze C_ARGS=(in/elsewhere/copy.spv) ;;
	neo_key_unread) C_VERDICT=hit C_BASE=ze C_ENV=(NEOReadDebugKeys=0 UseBindlessMode=0)
		C_NA="the simulated GPU needs NEOReadDebugKeys=1: no device without it" ;;
	*) echo "soundness bench: no case $1" >&2; return 1 ;;
	esac
	return 0
}
for c in igc_upgrade neo_upgrade igc_key neo_key neo_key_prefixed neo_release_key neo_key_unread \
	fp64_emulation program_debugging build_options spec_constant include_contents other_ip_version \
	other_stepping other_spirv debug_info_only pbs pals slurm ompi pmi mpi_localrankid hostname pwd tmpdir \
	omp_num_threads ze_affinity_mask oneapi_device_selector include_touched same_ip_other_id \
	spirv_other_path; do
	defcase "$c"
done
[ -n "${SOUND_CASES:-}" ] && read -r -a CASES <<<"$SOUND_CASES"

# ---- running a request -------------------------------------------------------------
# request BASE WAY LOG [client args...]: one run of the base's program with
# the current C_* changes, WAY jitcache / driver / env (prints the
# environment the program would see, NUL-separated, instead of running it).
request() {
	local base=$1 way=$2 log=$3 prog args=() sim=("${BASE_SIM[@]}") cwd=$W
	case $base in
	ze) prog=("$B/tests/ze_client" link) args=("$W/in/reduce.spv") ;;
	zeg) prog=("$B/tests/ze_client" link) args=("$W/in/g.spv") ;;
	spec) prog=("$B/tests/ze_client" link) args=(-c "7=3" "$W/in/spec.spv") ;;
	mtl) prog=("$B/tests/ze_client" link) args=("$W/in/reduce.spv"); mapfile -t sim < <(sim_vars $STEP_GPU) ;;
	cl) prog=("$B/tests/cl_build" --platform Intel --source "$W/in/k.cl" --options "-I $W/in/inc") ;;
	esac
	if [ ${#C_ARGS[@]} -gt 0 ]; then
		case ${C_ARGS[0]} in
		-c) args=("${C_ARGS[@]}" "${args[@]: -1}") ;; # another value for the base's constant
		-*) args=("${C_ARGS[@]}" "${args[@]}") ;;
		*) args=("$W/${C_ARGS[0]}") ;;
		esac
	fi
	[ ${#C_SIM[@]} -gt 0 ] && sim=("${C_SIM[@]}")
	[ -n "$C_CWD" ] && cwd=$W/$C_CWD
	local run=(env -u ProductFamilyOverride -u ForceDeviceId -u OverrideRevision "${sim[@]}" "${C_ENV[@]}")
	case $way in
	jitcache) run+=(NEO_CACHE_PERSISTENT=0 "$JC" run --) ;;
	plain) run+=(NEO_CACHE_PERSISTENT=0) ;;
	driver) run+=(NEO_CACHE_PERSISTENT=1 "NEO_CACHE_DIR=$W/neo-case") ;;
	env) (cd "$cwd" && "${run[@]}" env -0); return ;;
	esac
	run+=("${prog[@]}" "${args[@]}")
	if [ -n "$C_MOUNT" ]; then
		set -- $C_MOUNT
		(cd "$cwd" && "${UNSHARE[@]}" sh -c 'mount --bind "$0" "$1" && shift && exec "$@"' "$1" "$2" \
			"${run[@]}") >"$log" 2>&1
	else
		(cd "$cwd" && "${run[@]}") >"$log" 2>&1
	fi
}
# its program input's bytes and its options, for the whole-environment hash
envhash() { # BASE
	local base=$1 file=$W/in/reduce.spv opts="" spec=""
	case $base in
	spec) file=$W/in/spec.spv spec="7=3" ;;
	cl) file=$W/in/k.cl opts="-I inc" ;;
	zeg) file=$W/in/g.spv ;;
	esac
	if [ ${#C_ARGS[@]} -gt 0 ]; then
		case ${C_ARGS[0]} in
		-f) opts=${C_ARGS[1]} ;;
		-c) spec=${C_ARGS[1]} ;;
		*) file=$W/${C_ARGS[0]} ;;
		esac
	fi
	{
		request "$base" env /dev/null | LC_ALL=C sort -z
		cat "$file"
		printf '\0%s\0%s\0%s' "$opts" "$spec" "$driver_version"
	} | sha256sum | cut -c1-16
}
built() { grep -q "result 0x0 kernels [1-9]\|^build=0 " "$1"; }
create_s() { sed -n 's/^zeModuleCreate: \([0-9.]*\) s.*/\1/p; s/^build=0 seconds=\([0-9.]*\)/\1/p' "$1" | head -n 1; }
files_in() { find "$1" -type f 2>/dev/null | wc -l; }

# ---- the bases: each primed once, in a cache of its own for each way --------------
declare -A PRIMED COLD ENVHASH
prime() { # BASE
	local base=$1
	[ -n "${PRIMED[$base]:-}" ] && return 0
	local C_ENV=() C_SIM=() C_ARGS=() C_CWD="" C_MOUNT=""
	rm -rf "$W/base-$base" && mkdir -p "$W/base-$base/jc" "$W/base-$base/neo" "$W/base-$base/cl"
	JITCACHE_DIR=$W/base-$base/jc JITCACHE_LOG=info request "$base" jitcache "$LOGS/base-$base-jitcache"
	if ! grep -q "jitcache: 0 hits, 1 misses, 1 stores" "$LOGS/base-$base-jitcache"; then
		echo "soundness bench: the base request $base stored nothing (log: $LOGS/base-$base-jitcache)" >&2
		return 1
	fi
	# The driver's cache: 22.43's is a cl_cache directory in the current
	# directory (OpenCL only); the 2026 driver's NEO_CACHE_DIR.
	rm -rf "$W/neo-case" && mkdir -p "$W/neo-case"
	local d=$W/cl_cache
	rm -rf "$d" && mkdir -p "$d"
	request "$base" driver "$LOGS/base-$base-driver"
	cp -a "$W/neo-case/." "$W/base-$base/neo/"
	cp -a "$d/." "$W/base-$base/cl/"
	rm -rf "$d"
	# the cold time, without any cache
	request "$base" plain "$LOGS/base-$base-cold"
	COLD[$base]=$(create_s "$LOGS/base-$base-cold")
	ENVHASH[$base]=$(envhash "$base")
	PRIMED[$base]=1
}

# driver_cache_used BASE: whether this driver keeps this base's builds
driver_cache_used() {
	[ $DRV = neo-2026 ] || [ "$1" = cl ]
}

# ---- run each case ------------------------------------------------------------------
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' case verdict jitcache cause_wanted cause_got driver envhash >"$TSV"
for name in "${CASES[@]}"; do
	setcase "$name" || exit 1
	if [ -n "$C_NA" ]; then
		printf '%s\t%s\tn/a\t-\t-\tn/a\tn/a\t%s\n' "$name" "$C_VERDICT" "$C_NA" >>"$TSV"
		echo "soundness: $name: n/a ($C_NA)" >&2
		continue
	fi
	base=$C_BASE
	prime "$base" || exit 1
	log=$LOGS/$name
	# A case the driver itself cannot build is not a case here (the 2026
	# driver's simulation builds nothing with program debugging).
	request "$base" plain "$log-plain"
	if ! built "$log-plain"; then
		why=$(grep -m1 'result 0x\|^build=' "$log-plain" || tail -n 1 "$log-plain")
		printf '%s\t%s\tn/a\t-\t-\tn/a\tn/a\tthe driver builds nothing with it (%s)\n' \
			"$name" "$C_VERDICT" "$why" >>"$TSV"
		echo "soundness: $name: n/a (the driver builds nothing with it)" >&2
		continue
	fi
	[ -n "$C_PREP" ] && eval "$C_PREP"
	# jitcache
	rm -rf "$W/jc-case" && cp -a "$W/base-$base/jc" "$W/jc-case"
	JITCACHE_DIR=$W/jc-case JITCACHE_LOG=info request "$base" jitcache "$log-jitcache"
	if grep -q "^jitcache: 1 hits, 0 misses" "$log-jitcache"; then jc=hit
	elif grep -q "^jitcache: 0 hits, 1 misses" "$log-jitcache"; then jc=miss
	else jc="failed"; fi
	got=-
	if [ $jc = miss ]; then
		JITCACHE_DIR=$W/jc-case "$JC" explain --json --last >"$log-explain" 2>&1
		got=$(python3 -c 'import json,sys; v=json.load(sys.stdin); print(v[-1]["cause"])' \
			<"$log-explain" 2>/dev/null || echo "?")
		JITCACHE_DIR=$W/jc-case "$JC" explain --last >"$log-explain.txt" 2>&1
	fi
	# the driver's cache
	drv=n/a
	if driver_cache_used "$base"; then
		rm -rf "$W/neo-case" "$W/cl_cache" && cp -a "$W/base-$base/neo" "$W/neo-case" &&
			cp -a "$W/base-$base/cl" "$W/cl_cache"
		[ -n "$C_CWD" ] && rm -rf "$W/$C_CWD/cl_cache" && cp -a "$W/base-$base/cl" "$W/$C_CWD/cl_cache"
		before=$(( $(files_in "$W/neo-case") + $(files_in "$W/cl_cache") ))
		request "$base" driver "$log-driver"
		after=$(( $(files_in "$W/neo-case") + $(files_in "$W/cl_cache") ))
		t=$(create_s "$log-driver")
		echo "cache files $before -> $after, built in ${t:-?} s (cold ${COLD[$base]:-?} s)" >"$log-driver.why"
		if [ "$after" -gt "$before" ]; then drv=miss
		elif [ $DRV = neo-2026 ] && printf '%s\n' "${C_ENV[@]}" | grep -q '^IGC_'; then
			drv=miss # the driver's cache is off (it compiled: see the time)
		else drv=hit; fi
		rm -rf "$W/cl_cache" "$W/$C_CWD/cl_cache" 2>/dev/null
	fi
	eh=$([ "$(envhash "$base")" = "${ENVHASH[$base]}" ] && echo hit || echo miss)
	[ -n "$C_UNDO" ] && eval "$C_UNDO"
	cause_wanted=${C_CAUSE:--}
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$C_VERDICT" "$jc" "$cause_wanted" "$got" "$drv" "$eh" >>"$TSV"
	echo "soundness: $name: must $C_VERDICT: jitcache $jc${got:+ ($got)}, driver $drv, envhash $eh" >&2
done

# ---- the table ----------------------------------------------------------------------
python3 - "$TSV" "$OUT/soundness-$DRV.md" "$DRV" "$driver_version" <<'EOF'
import sys
tsv, md, drv, version = sys.argv[1:5]
rows = [l.rstrip("\n").split("\t") for l in open(tsv)][1:]
def mark(verdict, got):
    if got in ("n/a", "failed"):
        return got
    if got == verdict:
        return got
    return got + (" **stale**" if verdict == "miss" else " **spurious**")
ways = {"jitcache": 2, "driver": 5, "envhash": 6}
tally = {w: [0, 0, 0, 0] for w in ways}  # right, stale, spurious, n/a
out = []
out.append("| case | must | jitcache | explain cause | driver's cache | whole-environment hash |")
out.append("|---|---|---|---|---|---|")
for r in rows:
    name, verdict = r[0], r[1]
    for w, i in ways.items():
        g = r[i]
        t = tally[w]
        if g in ("n/a", "failed"):
            t[3] += 1
        elif g == verdict:
            t[0] += 1
        elif verdict == "miss":
            t[1] += 1
        else:
            t[2] += 1
    cause = "-" if r[2] != "miss" else (r[4] if r[4] == r[3] else "%s (wanted %s)" % (r[4], r[3]))
    note = (" (%s)" % r[7]) if len(r) > 7 else ""
    out.append("| %s%s | %s | %s | %s | %s | %s |" % (name.replace("_", " "), note, verdict,
               mark(verdict, r[2]), cause, mark(verdict, r[5]), mark(verdict, r[6])))
out.append("")
out.append("| key | right | stale hits | spurious misses | not run |")
out.append("|---|---|---|---|---|")
for w, t in tally.items():
    out.append("| %s | %d | %d | %d | %d |" % (w, *t))
open(md, "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
