#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Never worse than running without jitcache (issue 26): the run started the
# moment the previous one ended is warm, also on a machine loaded at twice
# its cores; concurrent cold processes compile each build once; the exit
# line and `jitcache stats` count every store when the program ends; and
# jitcache touches nothing of the program's: its descriptors, its children,
# its directory, its temporary files.  No check waits for anything between
# a program's end and the next run.
#
# On every driver here: PoCL (OpenCL, kernels run), Intel's driver simulating
# an Arc GPU (OpenCL and Level Zero; Debian 12's, and the 2026 one in the
# test bed).  NVIDIA's: tests/device/.
. "$(dirname "$0")/../lib.sh"
export JITCACHE_LOG=info POCL_KERNEL_CACHE=0
CLB=$B/tests/cl_build
HOSTILE=$B/tests/cl_hostile
ZE=$B/tests/ze_client

# ---- a busy machine: two spinning processes per core -------------------------
SPIN=""
spin_start() {
	local i
	for i in $(seq 1 $((2 * $(nproc)))); do
		(trap - EXIT; while :; do :; done) &
		SPIN="$SPIN $!"
	done
}
spin_stop() {
	[ -n "$SPIN" ] && kill $SPIN 2>/dev/null && wait $SPIN 2>/dev/null
	SPIN=""
}
trap 'spin_stop; cleanup_dirs' EXIT

# 24 kernels, about a second of compiler work on either driver.
for i in $(seq 1 24); do cat <<CL
kernel void k$i(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	float v = in[i];
	for (int j = 0; j < $((i % 5 + 2)); j++)
		v = sin(v) * 0.5f + cos(v * $i.0f) / (1.0f + fabs(v));
	if (i < n)
		out[i] = v + exp(-v * v) * $i;
}
CL
done > k24.cl

# run NAME CMD...: CMD under jitcache, its output in NAME.out/NAME.err.
run() {
	local name=$1; shift
	LD_PRELOAD=$LIB "$@" >"$name.out" 2>"$name.err"
}

# back_to_back WHAT CMD...: on the busy machine, a cold run, then at once a
# warm one: the warm one hits everything the cold one compiled; the cold
# one's exit line and the statistics count its stores as it ends.
back_to_back() {
	local what=$1; shift
	rm -rf "$JITCACHE_DIR"
	spin_start
	run b2b-cold "$@"
	local stored_now
	stored_now=$(stats_field stores)
	run b2b-warm "$@"
	spin_stop
	local misses stores hits
	misses=$(summary misses b2b-cold.err) stores=$(summary stores b2b-cold.err)
	hits=$(summary hits b2b-warm.err)
	echo "     $what, busy machine: cold $misses misses, $stores stores; warm right after: $hits hits, $(summary misses b2b-warm.err) misses"
	check "$what, busy: the cold run compiles ($misses misses)" positive "$misses"
	check "$what, busy: its exit line counts every store ($stores of $misses)" same "$stores" "$misses"
	check "$what, busy: jitcache stats counts them as it ends ($stored_now)" same "$stored_now" "$misses"
	check "$what, busy: the run right after hits all of them ($hits of $misses)" same "$hits" "$misses"
	check "$what, busy: ... and misses none" same "$(summary misses b2b-warm.err)" 0
}

# at_once WHAT CMD...: four cold processes at once compile the build once.
at_once() {
	local what=$1; shift
	rm -rf "$JITCACHE_DIR"
	local i pids=""
	for i in 1 2 3 4; do
		LD_PRELOAD=$LIB "$@" >"once-$i.out" 2>"once-$i.err" &
		pids="$pids $!"
	done
	wait $pids
	local misses=0 hits=0
	for i in 1 2 3 4; do
		misses=$((misses + $(summary misses "once-$i.err")))
		hits=$((hits + $(summary hits "once-$i.err")))
	done
	echo "     $what, 4 cold processes at once: $misses misses (compiles), $hits hits, $(stats_field stores) stores"
	check "$what, 4 at once: one compile" same "$misses" 1
	check "$what, 4 at once: the other three wait and hit" same "$hits" 3
	check "$what, 4 at once: one store" same "$(stats_field stores)" 1
}

# ---- PoCL ---------------------------------------------------------------------
if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	back_to_back "PoCL" "$CLB" --platform Portable --source k24.cl --run k1
	at_once "PoCL" "$CLB" --platform Portable --source k24.cl

	# Includes found through "..", from a source directory.
	mkdir -p proj/src proj/include
	echo '#define SCALE 2.0f' >proj/include/scale.h
	cat >proj/src/k.cl <<'CL'
#include "scale.h"
kernel void twice(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		out[i] = in[i] * SCALE + 1;
}
CL
	rm -rf "$JITCACHE_DIR"
	(cd proj/src && run ../../inc-cold "$CLB" --platform Portable --source k.cl --options "-I ../include" --run twice --verify)
	(cd proj/src && run ../../inc-warm "$CLB" --platform Portable --source k.cl --options "-I ../include" --run twice --verify)
	check "-I ../include: cold stores" grep -q '^jitcache: 0 hits, 1 misses, 1 stores' inc-cold.err
	check "-I ../include: the next run hits" grep -q '^jitcache: 1 hits, 0 misses' inc-warm.err
	check "-I ../include: results right" grep -q '^verify=ok' inc-warm.out

	# The program closes every descriptor it did not open and opens its own:
	# jitcache writes into none of them and closes none, and still stores.
	rm -rf "$JITCACHE_DIR"
	run fds "$HOSTILE" --platform Portable --source k24.cl --own "$T/own.log"
	check "closefrom(3): the program's descriptors are still its file" grep -q '^own_fds=ok' fds.out
	check "closefrom(3): its file holds its eight lines and nothing else" \
		cmp own.log <(for k in $(seq 1 8); do echo "line $k of the program"; done)
	check "closefrom(3): both builds stored all the same" grep -q '^jitcache: 0 hits, 2 misses, 2 stores' fds.err
	run fds-warm "$HOSTILE" --platform Portable --source k24.cl --own "$T/own2.log"
	check "closefrom(3): the next run hits both" grep -q '^jitcache: 2 hits, 0 misses' fds-warm.err

	# A relative LD_PRELOAD and a program that changes into a directory
	# others can write: nothing is run from there (a planted program).
	mkdir -p app/lib evil/lib
	cp "$LIB" app/lib/libjitcache.so
	cp "$B/libjitcache-core.so" app/lib/libjitcache-core.so.1
	cp "$B/jitcache-replay" app/lib/ 2>/dev/null
	chmod 1777 evil
	printf '#!/bin/sh\ntouch %s/planted-ran\n' "$T" >evil/lib/jitcache-replay
	: >evil/lib/libjitcache.so # what the relative name now leads to
	: >evil/lib/libjitcache-core.so.1 # and its core
	chmod 755 evil/lib/jitcache-replay
	(cd app && LD_PRELOAD=lib/libjitcache.so "$HOSTILE" --platform Portable --source ../k24.cl --chdir "$T/evil" >../planted.out 2>../planted.err)
	check "relative LD_PRELOAD, chdir into a writable directory: builds" grep -q '^build2=0' planted.out
	check_not "... and no program found there was run" test -e "$T/planted-ran"

	# A relative JITCACHE_DIR means the directory it named when the program
	# started, after a chdir() too, and in the children it starts elsewhere.
	rm -rf app/rel other sub
	mkdir -p other app/sub
	(cd app && JITCACHE_DIR=rel LD_PRELOAD=$LIB "$HOSTILE" --platform Portable --source ../k24.cl --chdir "$T/other" >../rel.out 2>../rel.err)
	check "relative JITCACHE_DIR and chdir(): both builds stored where it named at start" test "$(entries "$T/app/rel")" -eq 2
	check_not "... none in the directory changed to" test -e "$T/other/rel"
	(cd app && JITCACHE_DIR=rel LD_PRELOAD=$LIB "$HOSTILE" --platform Portable --source ../k24.cl >../rel2.out 2>../rel2.err)
	check "... and the next run from where it started hits both" grep -q '^jitcache: 2 hits, 0 misses' rel2.err
	(cd app && JITCACHE_DIR=rel LD_PRELOAD=$LIB sh -c 'cd sub && exec "$0" --platform Portable --source ../../k24.cl' "$HOSTILE" >../child.out 2>../child.err)
	check "a child started from another directory uses the same cache (2 hits)" grep -q '^jitcache: 2 hits, 0 misses' child.err
	check_not "... not one of its own under that directory" test -e "$T/app/sub/rel"

	# Nothing left running or lying around when the program ends, or is
	# killed: no process of jitcache's under a parent that reaps nothing
	# (a container's PID 1; here a child subreaper), nothing in TMPDIR.
	rm -rf "$JITCACHE_DIR" tmpdir && mkdir tmpdir
	cat >reaper.py <<'PY'
import ctypes, os, subprocess, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
left = []
for pid in os.listdir("/proc"):
    try:
        with open("/proc/%s/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid():
            left.append(pid + ":" + fields[0])
    except (OSError, ValueError, IndexError):
        pass
print("left=%d %s" % (len(left), " ".join(left)))
PY
	TMPDIR=$T/tmpdir LD_PRELOAD=$LIB python3 reaper.py "$HOSTILE" --platform Portable --source k24.cl >reaper.out 2>&1
	check "no process of jitcache's left once the program ended (as PID 1 sees it)" grep -q '^left=0' reaper.out
	check "nothing left in TMPDIR" test -z "$(ls -A tmpdir)"
	rm -rf "$JITCACHE_DIR"
	TMPDIR=$T/tmpdir LD_PRELOAD=$LIB "$HOSTILE" --platform Portable --source k24.cl >killed.out 2>&1 &
	pid=$!
	for i in $(seq 1 600); do grep -q build1= killed.out && break; sleep 0.05; done
	kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
	check "killed with SIGKILL mid-run: nothing left in TMPDIR" test -z "$(ls -A tmpdir)"
	# Only this program's processes (its TMPDIR): tests/run.sh runs another
	# script beside this one, with the same library.
	check_not "... nor any process running the library" \
		sh -c "for m in \$(grep -l '$B/libjitcache' /proc/[0-9]*/maps 2>/dev/null); do
			tr '\\0' '\\n' <\"\${m%/maps}/environ\" 2>/dev/null | grep -qx 'TMPDIR=$T/tmpdir' && exit 0
		done; exit 1"
else
	skip "PoCL is not installed: its cases are not run"
fi

# ---- Intel's driver, simulating an Arc GPU -----------------------------------------
sim_dg2
if clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	back_to_back "Intel OpenCL" "$CLB" --platform Intel --source k24.cl
	at_once "Intel OpenCL" "$CLB" --platform Intel --source k24.cl
else
	skip "Intel's OpenCL driver does not show a simulated GPU"
fi
if command -v ocloc >/dev/null && [ -x "$ZE" ] && [ -z "$(ldd "$LIB" | grep libasan)" ] &&
	ocloc compile -q -spv_only -file k24.cl -device dg2 -output k24 -output_no_suffix >ocloc.log 2>&1; then
	back_to_back "Level Zero" "$ZE" link k24.spv
	at_once "Level Zero" "$ZE" link k24.spv
else
	skip "no Level Zero driver or ocloc here"
fi

finish
