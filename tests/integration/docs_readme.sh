#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Every command block of README.md runs, as docs_fleets.sh runs
# docs/fleets.md's (issue 45 item 5: the README's CI line
# `JITCACHE_STRICT=error ./app` checked nothing, since nothing preloaded the
# library).  Each block (indented four spaces, or fenced) is taken from the
# page; each of its lines runs in page order, in the block's own shell, on a
# real Level Zero program (simulated Arc) and a cache directory of the
# block's, unless the line is in EXEMPT below with the reason it is not run
# here (installing, or the test suite itself) and the test that runs it
# (install_routes.sh runs the Install section's, in a clean Debian 12).  A line the page gains is run, or the test fails until it is
# exempted with its reason; an exemption the page no longer has fails too.
# Only the user's program and the library's installed path are rewritten
# (REWRITES, printed).  Then what the lines are for: the Run lines cache the
# program, the See-that-it-works lines say what they promise, and the CI
# line fails a compile the cache does not cover.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze

check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
cat >"$T/app" <<EOF
#!/bin/sh
exec "$EXAMPLE" "$T/reduce.spv"
EOF
chmod +x "$T/app"

# ---- the exemptions: LINE|WHY (the line as the page has it, comment cut) --------
cat >"$T/exempt" <<'EOF'
sudo apt-get install build-essential pkg-config libzstd-dev libxxhash-dev libinih-dev libhiredis-dev libsodium-dev opencl-c-headers|installs system-wide; install_routes.sh runs it in a clean Debian 12 chroot
make deb && sudo apt install ./dist/jitcache_*.deb|installs system-wide; install_routes.sh runs it in a clean Debian 12 chroot
sudo apt-get install pipx && pipx install .|installs system-wide and into ~/.local; install_routes.sh runs it in a clean Debian 12 chroot
. ~/.profile|the user's start-up file; install_routes.sh runs it in a clean Debian 12 chroot
sudo apt-get install python3-venv|installs system-wide; install_routes.sh runs it in a clean Debian 12 chroot
python3 -m venv ~/venv && . ~/venv/bin/activate|makes a venv in ~; install_routes.sh runs it in a clean Debian 12 chroot
pip install .|installs into that venv; install_routes.sh runs it in a clean Debian 12 chroot
make demo|installs the driver and loaders system-wide; demo.sh runs examples/demo.sh
make check|the test suite this test is part of
EOF
# ---- the rewrites: the user's program, the installed library ----------------------
cat >"$T/rewrites" <<EOF
python train.py|$T/app
/usr/local/lib/libjitcache.so.1|$LIB
./app|$T/app
EOF
echo "docs_readme: rewrites (page -> test):"
sed 's/^/  /; s/|/  ->  /' "$T/rewrites"

# Blocks: indented four spaces after a blank line (Markdown's indented code)
# or fenced; one file per block, its lines with their comments cut.
python3 - "$ROOT/README.md" "$T/blocks" <<'PY'
import os, re, sys
page, out = sys.argv[1:3]
os.makedirs(out)
lines = open(page, encoding="utf-8").read().split("\n")
blocks, i, prev_blank, fenced = [], 0, True, None
while i < len(lines):
    line = lines[i]
    f = re.match(r"^```", line)
    if f and fenced is None:
        fenced = []
    elif f:
        blocks.append(fenced)
        fenced = None
    elif fenced is not None:
        fenced.append(line)
    elif prev_blank and line.startswith("    ") and line.strip():
        body = []
        while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
            body.append(lines[i][4:])
            i += 1
        blocks.append(body)
        prev_blank = True
        continue
    prev_blank = not line.strip()
    i += 1
for n, body in enumerate(blocks, 1):
    cmds = [re.sub(r"\s+#.*$", "", l).strip() for l in body]
    with open(os.path.join(out, "%02d" % n), "w") as f:
        f.write("".join(c + "\n" for c in cmds if c))
PY
nblocks=$(ls "$T/blocks" | wc -l)
check "README.md: its command blocks read ($nblocks)" test "$nblocks" -ge 4

mkdir -p "$T/bin" "$T/work"
ln -s "$ROOT/bin/jitcache" "$T/bin/jitcache"
ran=0 exempt=0
: >"$T/exempt.used"
for block in "$T"/blocks/*; do
	n=${block##*/}
	export JITCACHE_DIR=$T/block-$n
	: >"$T/work/$n.sh"
	while IFS= read -r line; do
		why=$(awk -F'|' -v l="$line" '$1 == l { print $2 }' "$T/exempt")
		if [ -n "$why" ]; then
			echo "docs_readme: block $n: not run: $line ($why)"
			echo "$line" >>"$T/exempt.used"
			exempt=$((exempt + 1))
			continue
		fi
		while IFS='|' read -r a b; do line=${line//"$a"/"$b"}; done <"$T/rewrites"
		printf '%s\n' "$line" >>"$T/work/$n.sh"
		ran=$((ran + 1))
	done <"$block"
	[ -s "$T/work/$n.sh" ] || continue
	(cd "$T/work" && PATH="$T/bin:$PATH" bash -e "$T/work/$n.sh") >"$T/work/$n.out" 2>&1
	check "block $n runs as written (exit $?): $(tr '\n' ';' <"$T/work/$n.sh")" test $? -eq 0
	# What each block is for, checked after it.
	case $(cat "$block") in
	*"jitcache run -- python train.py"*"LD_PRELOAD="*)
		check "Run: jitcache run cached the program, and the LD_PRELOAD line hit it" \
			test "$(stats_in "$JITCACHE_DIR" stores) $(stats_in "$JITCACHE_DIR" hits)" = "1 1" ;;
	*"jitcache stats"*"jitcache explain"*)
		check "See that it works: the exit line, with its hits, misses and stores" \
			grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/work/$n.out"
		check "... stats: hits by tier and misses by cause" \
			sh -c "grep -q '^hits by tier' '$T/work/$n.out' && grep -q '^misses by cause' '$T/work/$n.out'"
		check "... explain: why the miss missed" grep -q 'never seen before' "$T/work/$n.out" ;;
	esac
done
echo "docs_readme: $ran lines run, $exempt exempt"
check "README.md: some lines run ($ran)" test "$ran" -ge 5
while IFS='|' read -r line why; do
	check "exemption still on the page: $line" grep -qxF "$line" "$T/exempt.used"
done <"$T/exempt"

# ---- the CI line: a compile the cache does not cover fails ------------------------
ci=$(cat "$T"/blocks/* | grep 'JITCACHE_STRICT=error')
check "README: a CI line with JITCACHE_STRICT=error ($ci)" test -n "$ci"
while IFS='|' read -r a b; do ci=${ci//"$a"/"$b"}; done <"$T/rewrites"
(cd "$T/work" && JITCACHE_DIR=$T/ci-cold PATH="$T/bin:$PATH" bash -c "$ci") >"$T/ci-cold.out" 2>&1
check "the CI line on a cache without the program's kernels fails (exit $?)" test $? -ne 0
check "... saying why" grep -q 'JITCACHE_STRICT=error refused a compile' "$T/ci-cold.out"
(cd "$T/work" && JITCACHE_DIR=$T/ci-cold PATH="$T/bin:$PATH" "$JITCACHE" run -- "$T/app") >/dev/null 2>&1
(cd "$T/work" && JITCACHE_DIR=$T/ci-cold PATH="$T/bin:$PATH" bash -c "$ci") >"$T/ci-warm.out" 2>&1
check "... and passes once the cache covers them (exit $?)" test $? -eq 0
finish
