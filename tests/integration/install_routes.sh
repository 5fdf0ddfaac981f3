#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs the clean Debian 12 chroot (make debroot), root, and PyPI
# Every install route README.md and docs/install.md give runs as written on
# a stock Debian 12 (issue 45 item 1: `make deb` stopped at "dh is missing",
# `pip install .` fails under PEP 668, pipx gave no man page), and the
# README's on the test bed's Debian sid (`make testbed`; skipped without it).  Each command
# block of the README's Install section and of docs/install.md's routes
# (the page up to its apt hook, file listings aside) is taken from the page,
# comments cut, and run line by line, in one shell, by a user "alice" with
# sudo, in a clone of this checkout, in a clean Debian 12 chroot (`make
# debroot`, an overlay of its own per route, so every route starts from the
# same clean system: the apt line of the build dependencies run, nothing
# else).  Each route then, in the same shell: the installed `jitcache` runs a
# Level Zero program (examples/ze_module, simulated Arc on Intel's NEO
# 22.43; on sid NEO 26) cold, then warm, with alice's default cache; its man page shows
# (`jitcache man`, and `man jitcache` where the page says so).  The pages'
# claims are checked too: `pip install .` and `--user` outside a venv fail
# with externally-managed-environment; the package's size is the one
# docs/install.md states.  Set-up that is not the user's (alice, sudo without
# a password, apt answering yes for her, what a stock install has that the
# chroot may lack, the host's network set-up) is said in the chroot's script.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
DEBROOT=${JITCACHE_DEBROOT:-/var/tmp/jitcache-deb12}
TESTBED=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
if [ ! -x "$DEBROOT/usr/bin/apt-get" ]; then
	check "the clean Debian 12 chroot is there (make debroot)" false; finish; exit
fi
if [ "$(id -u)" -ne 0 ]; then
	skip "not root: the chroot's overlays need mounts"; finish; exit
fi
# The chroot is the lower layer of every overlay here: deb_install.sh, which
# installs into it, waits (tests/run.sh runs two tests at a time).
exec 9>"$DEBROOT.lock" && flock -s 9
check "SPIR-V built with ocloc (on the host)" spirv reduce "$KERNELS/reduce.cl"
cp "$EXAMPLE" "$T/app"

# ---- the routes, from the pages ---------------------------------------------------
# blocks/NAME: a block's lines, comments cut; NAME says where it is from.
python3 - "$ROOT/README.md" "$ROOT/docs/install.md" "$T/blocks" <<'PY'
import os, re, sys
readme, install, out = sys.argv[1:4]
os.makedirs(out)
def blocks(text):
    lines, found, i, prev_blank = text.split("\n"), [], 0, True
    while i < len(lines):
        if prev_blank and lines[i].startswith("    ") and lines[i].strip():
            body = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            found.append([re.sub(r"\s+#.*$", "", l).strip() for l in body if l.strip()])
            prev_blank = True
            continue
        prev_blank = not lines[i].strip()
        i += 1
    return found
text = open(readme, encoding="utf-8").read()
section = text[text.index("\n## Install\n"):]
section = section[:section.index("\n## ", 1)]
pages = [("readme", blocks(section))]
text = open(install, encoding="utf-8").read()
pages.append(("install", [b for b in blocks(text[:text.index("\n### ")])
                          if not b[0].startswith("/")]))   # not dpkg -c's listing
for page, found in pages:
    for n, body in enumerate(found, 1):
        with open(os.path.join(out, "%s-%02d" % (page, n)), "w") as f:
            f.write("".join(l + "\n" for l in body))
PY
ls "$T/blocks" >"$T/blocks.list"
check "README's Install section and docs/install.md: their blocks read ($(wc -l <"$T/blocks.list"))" \
	test "$(grep -c '^readme-' "$T/blocks.list")" -ge 4 -a "$(grep -c '^install-' "$T/blocks.list")" -ge 4
# The build dependencies' line, the same on both pages, runs first, once.
base=$T/blocks/readme-01
check "README's first install block is the build dependencies' apt line" \
	grep -q '^sudo apt-get install build-essential ' "$base"
check "docs/install.md lists the same build dependencies (the same line, a block of its own)" \
	sh -c "for b in '$T'/blocks/install-*; do cmp -s \"\$b\" '$base' && exit 0; done; exit 1"
# The routes: every other block, each once (the pages share some).
routes=""
for b in "$T"/blocks/readme-* "$T"/blocks/install-*; do
	cmp -s "$b" "$base" && continue
	for r in $routes; do cmp -s "$b" "$T/blocks/$r" && continue 2; done
	routes="$routes ${b##*/}"
done
readme_routes=$(for r in $routes; do case $r in readme-*) echo "$r" ;; esac; done)
echo "install_routes: routes:"
for r in $routes; do echo "  $r: $(tr '\n' ';' <"$T/blocks/$r")"; done

# ---- the chroot: an overlay on a clean system, one per stage ------------------------
# in_root LOWER UPPER SCRIPT: SCRIPT as root in the overlay of UPPER over
# LOWER (a colon list), $T visible at its path; the mounts vanish with it.
in_root() {
	mkdir -p "$2" "$2.work" "$2.mnt"
	unshare -m --propagation private sh -c '
		lower=$1 up=$2 T=$3 script=$4 m=$2.mnt
		mount -t overlay overlay -o "lowerdir=$lower,upperdir=$up,workdir=$up.work" "$m" &&
		mount -t proc proc "$m/proc" && mount --rbind /dev "$m/dev" &&
		mount --rbind /sys "$m/sys" && mkdir -p "$m$T" && mount --bind "$T" "$m$T" || exit 125
		exec chroot "$m" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
			bash "$script"' sh "$1" "$2" "$T" "$3"
}
# A clone of this checkout as it is now (committed, and the changes not yet).
git -c advice.detachedHead=false clone -q "$ROOT" "$T/src" &&
	(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf -) | tar -xf - -C "$T/src"
check "a clone of the checkout, with its uncommitted changes" test -f "$T/src/Makefile"
# The host's network set-up, which a machine on its network has too: the
# certificate authorities it adds (a proxy's) and pip's reading of them.
mkdir -p "$T/hostnet"
cp /usr/local/share/ca-certificates/*.crt /etc/pip.conf "$T/hostnet/" 2>/dev/null
chmod a+rx "$T"
chmod -R a+rX "$T/hostnet" "$T/src" "$T/blocks" "$T/app" "$T/reduce.spv"

# on_system NAME ROOT "ROUTES" "SIMULATION": the base (a stock install's user
# with sudo, the clone in her home, the build dependencies' line run as
# written), then each route over it in an overlay of its own, then pip
# outside a venv.
on_system() {
	local sys=$1 root=$2 routes=$3 simulate=$4 r o rc kb said how f
	local S=$T/$sys
	mkdir -p "$S/out" && chmod 777 "$S/out"
	cat >"$S/base-root.sh" <<SH
set -e
# Not the user's commands: the machine's installer made alice, of group sudo
# (here without a password prompt); apt answers yes for her as she would.
export DEBIAN_FRONTEND=noninteractive
useradd -m -s /bin/bash alice
echo 'APT::Get::Assume-Yes "true";' >/etc/apt/apt.conf.d/99assume-yes
echo 'debconf debconf/frontend select Noninteractive' | debconf-set-selections
# The host's network set-up (above).
for f in "$T"/hostnet/*.crt; do [ -f "\$f" ] && cp "\$f" /usr/local/share/ca-certificates/; done
update-ca-certificates >/dev/null 2>&1 || true
[ -f "$T/hostnet/pip.conf" ] && cp "$T/hostnet/pip.conf" /etc/pip.conf
apt-get update -qq
# What a stock install has (sudo, man-db) where the chroot lacks it (the test bed).
command -v sudo >/dev/null && command -v man >/dev/null || apt-get install -qq sudo man-db >/dev/null
echo 'alice ALL=(ALL) NOPASSWD:ALL' >/etc/sudoers.d/alice
cp -a "$T/src" /home/alice/jitcache && chown -R alice: /home/alice/jitcache
# The page's line, as alice.
su - alice -c "cd jitcache && bash -e '$base'" </dev/null
SH
	in_root "$root" "$S/base" "$S/base-root.sh" >"$S/base.out" 2>&1
	rc=$?
	check "$sys: the build dependencies' line, as written (exit $rc)" test $rc -eq 0
	[ $rc -eq 0 ] || { tail -n 20 "$S/base.out"; return; }
	for r in $routes; do
		o=$S/out/$r
		mkdir -p "$o" && chmod 777 "$o"
		{ cat "$T/blocks/$r"; cat <<SH; } >"$S/$r.sh"
# ---- the test's, after the page's lines, in the same shell ----
set +e
echo "route: jitcache is \$(command -v jitcache)"
for d in dist/jitcache_*.deb; do [ -f "\$d" ] && stat -c %s "\$d" >"$o/deb-size"; done
jitcache man 2>"$o/jitcache-man.err" | grep -c 'JITCACHE_DIR=' >"$o/jitcache-man"
man jitcache 2>/dev/null | grep -c 'JITCACHE_DIR=' >"$o/man"
mkdir -p ~/run && cd ~/run
export $simulate
for run in cold warm; do JITCACHE_LOG=info jitcache run -- "$T/app" "$T/reduce.spv" >"$o/ze-\$run.out" 2>&1; done
SH
		chmod a+r "$S/$r.sh"
		printf 'set -e\nsu - alice -c "cd jitcache && bash -e %s" </dev/null\n' "$S/$r.sh" >"$S/$r-root.sh"
		in_root "$S/base:$root" "$S/layer-$r" "$S/$r-root.sh" >"$S/$r.out" 2>&1
		rc=$?
		check "$sys: route $r runs as written (exit $rc): $(tr '\n' ';' <"$T/blocks/$r")" test $rc -eq 0
		[ $rc -eq 0 ] || tail -n 25 "$S/$r.out"
		check "$sys: route $r: the Level Zero program cold: compiled and stored" \
			grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$o/ze-cold.out"
		check "$sys: route $r: ... then warm: loaded from the cache" \
			grep -q '^jitcache: 1 hits, 0 misses' "$o/ze-warm.out"
		check "$sys: route $r: jitcache man shows the page" test "$(cat "$o/jitcache-man" 2>/dev/null)" -gt 0
		case $(cat "$T/blocks/$r") in
		*"pipx install"*) ;;   # Debian 12's pipx links no man page: the pages say so
		*) check "$sys: route $r: man jitcache finds the page" test "$(cat "$o/man" 2>/dev/null)" -gt 0 ;;
		esac
		# The size docs/install.md gives is Debian 12's build (sid's compiler and
		# debhelper make another).
		if [ -s "$o/deb-size" ] && [ "$sys" = debian12 ]; then
			kb=$(( ($(cat "$o/deb-size") + 512) / 1024 ))
			said=$(sed -n 's/^ *make deb .*(\([0-9]*\) KB[^)]*)$/\1/p' "$ROOT/docs/install.md")
			check "$sys: route $r: the package is $kb KB, as docs/install.md says (${said:-no size} KB, within 3%)" \
				test -n "$said" -a $(( (kb - ${said:-0}) * 100 )) -le $(( 3 * ${said:-0} )) \
				-a $(( (${said:-0} - kb) * 100 )) -le $(( 3 * ${said:-0} ))
		fi
		rm -rf "$S/layer-$r" "$S/layer-$r.work"
	done

	# What the pages say fails: pip outside a venv (PEP 668).
	cat >"$S/pep668.sh" <<SH
sudo apt-get install -qq python3-pip >/dev/null 2>&1 || echo "no pip"
pip install . >"$S/out/pip.out" 2>&1; echo "pip install . \$?"
pip install --user . >"$S/out/pip-user.out" 2>&1; echo "pip install --user . \$?"
SH
	chmod a+r "$S/pep668.sh"
	printf 'su - alice -c "cd jitcache && bash %s" </dev/null\n' "$S/pep668.sh" >"$S/pep668-root.sh"
	in_root "$S/base:$root" "$S/layer-pep668" "$S/pep668-root.sh" >"$S/pep668.out" 2>&1
	for how in "pip install ." "pip install --user ."; do
		f=$S/out/pip.out; [ "$how" = "pip install ." ] || f=$S/out/pip-user.out
		check "$sys: '$how' outside a venv fails, as the pages say: externally-managed-environment" \
			sh -c "grep -qx '$how [1-9][0-9]*' '$S/pep668.out' && grep -q 'externally-managed-environment' '$f'"
	done
	rm -rf "$S/layer-pep668" "$S/layer-pep668.work" "$S/base" "$S/base.work"
}

SIM_NEO22="NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2 OverrideMaxWorkgroupSize=256"
# Intel's 2026 driver simulates it with a few more settings (tests/lib.sh's sim).
SIM_NEO26="NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2 UseAubStream=0
	HardwareInfoOverride=1x4x16 UseExternalAllocatorForSshAndDsh=0 OverrideMaxWorkgroupSize=1024
	NEO_CACHE_PERSISTENT=0"
on_system debian12 "$DEBROOT" "$routes" "$(echo $SIM_NEO22)"
if [ -x "$TESTBED/usr/bin/apt-get" ]; then
	on_system sid "$TESTBED" "$readme_routes" "$(echo $SIM_NEO26)"
else
	skip "the test bed's Debian sid is not there (make testbed): the README's routes not run on it"
fi
for page in README.md docs/install.md; do
	check "$page says so (PEP 668, externally-managed-environment)" \
		sh -c "tr '\n' ' ' <'$ROOT/$page' | grep -q 'externally-managed-environment.*PEP 668\|PEP 668.*externally-managed-environment'"
done
finish
