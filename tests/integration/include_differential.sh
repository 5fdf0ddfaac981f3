#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: 1,000 generated cases, several minutes of real compiles
# The differential test generator: random #include layouts and forms, edits
# between runs, between a compile and its link and during a build, each case
# built by the real driver without jitcache and with it (cold, warm, and
# after the edit), what it computes compared (PoCL runs the kernel; Intel's
# simulated Arc cannot, so there the native binary, which is deterministic
# and holds every value the headers add, is compared).  tests/helpers/cl_diff.c
# makes and runs the cases; this runs its phases and counts the differences.
#
#   DIFF_CASES=N   cases (1000)          DIFF_SEED=S   the generator's seed (44;
#   DIFF_FIRST=N   first case number (0)               "random": a new one)
#   DIFF_EACH=1    every case on both drivers (default: case n on driver n % 2)
#   DIFF_ONLY=N,N  only these cases (of DIFF_FIRST..+DIFF_CASES)
#   DIFF_PLAIN=1   every directive in its plainest form, LF line ends (does a
#                  difference go away?  then it is one of the forms)
#   DIFF_POCL_CACHE=1  PoCL's own cache on, a fresh one per phase (default: off,
#                  so that both sides compile)
#   DIFF_SELFTEST=1  the "with jitcache" phases with JITCACHE_DISABLE=1: must
#                  find no difference, or the harness itself is not deterministic
#
# Each difference is printed with the seed, the case number, the phase, both
# results, what the case is and the command that runs it again alone; then the
# differences by category (the generator's tags).  One pass or fail per case.
. "$(dirname "$0")/../lib.sh"
# DIFF_POCL_CACHE=1: PoCL's own kernel cache on (its default), a fresh one
# for each phase, so that a warm phase with jitcache starts from jitcache's
# entries alone (PoCL's cache directories, shim/cl/cl_pocl.h).
export POCL_KERNEL_CACHE=${DIFF_POCL_CACHE:-0}
sim_dg2
CASES=${DIFF_CASES:-1000}
FIRST=${DIFF_FIRST:-0}
SEED=${DIFF_SEED:-44}
[ "$SEED" = random ] && SEED=$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')
DIFF=$B/tests/cl_diff

platforms=() labels=()
if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	platforms+=(Portable) labels+=(pocl)
else
	skip "PoCL is not installed (pocl-opencl-icd): no case runs its kernels"
fi
if clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	platforms+=(Intel) labels+=(intel)
else
	skip "Intel's OpenCL driver does not show a simulated GPU (intel-opencl-icd)"
fi
if [ "${#platforms[@]}" -eq 0 ]; then
	finish; exit
fi
echo "     seed $SEED, cases $FIRST..$((FIRST + CASES - 1)), drivers: ${labels[*]}" \
	"($([ "${DIFF_EACH:-0}" = 1 ] && echo 'each case on each' || echo 'case n on driver n % '${#platforms[@]}))"

# What every phase passes the generator besides the phase.
gen=(--seed "$SEED" --first "$FIRST" --count "$CASES")
[ -n "${DIFF_ONLY:-}" ] && gen+=(--only "$(echo "$DIFF_ONLY" | tr ' ' ,)")
[ "${DIFF_PLAIN:-0}" = 1 ] && gen+=(--plain)
"$DIFF" --describe --root "$T" "${gen[@]}" >cases.txt

# phase LABEL PLATFORM INDEX PHASE [jitcache]: one phase of every case of
# this driver, its "R n RESULT" lines in LABEL.PHASE.
phase() {
	local label=$1 platform=$2 index=$3 ph=$4 split=() run=()
	[ "${DIFF_EACH:-0}" = 1 ] || split=(--drivers "${#platforms[@]}" --only-driver "$index")
	[ "${5:-}" = jitcache ] && run=(env JITCACHE_DIR="$T/cache-$label" "$JITCACHE" run --)
	[ "$POCL_KERNEL_CACHE" = 1 ] && run=(env POCL_CACHE_DIR="$T/pocl-cache-$label-$ph" "${run[@]}")
	[ "${5:-}" = jitcache ] && [ "${DIFF_SELFTEST:-0}" = 1 ] && run=(env JITCACHE_DISABLE=1 "${run[@]}")
	mkdir -p "$T/$label"
	"${run[@]}" "$DIFF" --root "$T/$label" "${gen[@]}" --phase "$ph" --platform "$platform" "${split[@]}" >"$label.$ph" 2>"$label.$ph.err"
}
# counts LABEL: the hits and misses in that driver's cache so far.
counts() {
	echo "$(stats_in "$T/cache-$1" hits) $(stats_in "$T/cache-$1" misses)"
}

for i in "${!platforms[@]}"; do
	label=${labels[$i]} platform=${platforms[$i]}
	start=$(date +%s) line=""
	for ph in B1 B2 J1 J2 J3; do
		[ "$ph" != B1 ] && [ ! -s "$label.B1" ] && break # no case of this driver
		s=$(date +%s) before=$(counts "$label")
		phase "$label" "$platform" "$i" $ph $([ "${ph#J}" != "$ph" ] && echo jitcache)
		read -r h0 m0 <<<"$before"
		read -r h1 m1 <<<"$(counts "$label")"
		line="$line $ph $(( $(date +%s) - s )) s"
		[ "${ph#J}" != "$ph" ] && line="$line ($((${h1:-0} - ${h0:-0})) hits, $((${m1:-0} - ${m0:-0})) misses)"
		line="$line,"
	done
	echo "     $label: $(wc -l <"$label.B1") cases in $(( $(date +%s) - start )) s:$line" \
		"$(cat "$label".J[123] 2>/dev/null | grep -c 'crash=') crashes with jitcache," \
		"$(cat "$label".B[12] 2>/dev/null | grep -c 'crash=') without"
	rm -rf "${T:?}/$label"
done

# Compare: J1 (cold) with B1 unless the case edits a header during the cold
# build (then the compiler may have read either text); J2 (warm) with B1; J3
# (warm, after the edit between runs) with B2.
awk -v seed="$SEED" -v build="$BUILD" -v each="${DIFF_EACH:-0}" -v plain="${DIFF_PLAIN:-0}" '
FNR == 1 { n = split(FILENAME, part, "."); file = part[n]; label = part[1] }
file == "txt" {
	id = $2; sub(/^D [0-9]+ /, ""); split($0, dw, " :: ")
	tags[id] = dw[1]; what[id] = dw[2]; next
}
{ id = $2; r = $0; sub(/^R [0-9]+ ?/, "", r); res[label, file, id] = r; if (file == "B1") { cases[label, id] = 1; order[++ncases] = label SUBSEP id } }
function differ(l, id, a, b, why,    ra, rb) {
	ra = res[l, a, id]; rb = res[l, b, id]
	sub(/ replaced-during-build$/, "", rb)
	if (ra == rb) return 0
	printf "DIFF %s case %d (seed %s), %s: without jitcache [%s], with [%s]\n", l, id, seed, why, ra, rb
	return 1
}
# What shows a difference: the event of the case that the results point to.
function cause(l, id, db, early, after,    t, all) {
	all = res[l, "J1", id] res[l, "J2", id] res[l, "J3", id]
	t = tags[id]
	if (all ~ /crash=/) return "a crash with jitcache"
	if (db && early) return "a header replaced during the cold build"
	if (t ~ /mode=build-twice/ && early) return "a second build in one process after an edit"
	if (t ~ /mid=|chdir=/ && early) return "an edit or a chdir between a compile and its link"
	if (after) return "the edit between runs"
	return "none of these (warm)"
}
END {
	for (k = 1; k <= ncases; k++) {
		split(order[k], lk, SUBSEP); l = lk[1]; id = lk[2]
		db = tags[id] ~ /during-build=/
		cold = db ? 0 : differ(l, id, "B1", "J1", "cold (J1 vs B1)")
		warm = differ(l, id, "B1", "J2", "warm (J2 vs B1)")
		after = differ(l, id, "B2", "J3", "warm after the edit between runs (J3 vs B2)")
		bad = cold + warm + after
		if (bad) shows[cause(l, id, db, cold + warm, after)]++
		if (db) {
			dbn++
			r = res[l, "J1", id]; replaced += r ~ /replaced-during-build/
			sub(/ replaced-during-build$/, "", r); seen += r != res[l, "B1", id]
		}
		ntags = split(tags[id], t, " ")
		for (j = 1; j <= ntags; j++) { total[t[j]]++; if (bad) faults[t[j]]++ }
		if (bad) {
			failed++
			printf "     case %d: %s\n     what: %s\n", id, tags[id], what[id]
			printf "     again: DIFF_SEED=%s DIFF_FIRST=%d DIFF_CASES=1%s%s BUILD=%s bash tests/integration/include_differential.sh\n", \
				seed, id, each ? " DIFF_EACH=1" : "", plain ? " DIFF_PLAIN=1" : "", build
		} else passed++
	}
	printf "     %d cases compared, %d differ; %d edited a header during the cold build (%d replaced, the compiler read the new text in %d)\n", \
		passed + failed, failed, dbn, replaced, seen
	if (failed) {
		print "     differences by what shows them:"
		for (c in shows) printf "%6d  %s\n", shows[c], c | "sort -rn"
		close("sort -rn")
		print "     differences by category (cases that differ / cases with the tag):"
		for (t2 in faults) printf "%6d / %-6d %s\n", faults[t2], total[t2], t2 | "sort -rn"
		close("sort -rn")
	}
	printf "%d %d\n", passed, failed > "tally"
}' cases.txt $(for l in "${labels[@]}"; do [ -s "$l.B1" ] && echo "$l.B1 $l.B2 $l.J1 $l.J2 $l.J3"; done)
read -r p f <tally
PASSED=$((PASSED + p)) FAILED=$((FAILED + f))
finish
