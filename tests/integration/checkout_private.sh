#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: re-runs quick scripts from a 0700 copy of the checkout (a property of the suite)
# The suite must not depend on where it is checked out, nor on the mode of
# that place.  CI systems and scripts clone into `mktemp -d` (mode 0700),
# where no other user can reach the checkout's build/, and may set a private
# $TMPDIR.  This runs, from a copy of the checkout and its build in a 0700
# directory and with a private $TMPDIR, every test that runs programs as
# another user: the scripts that call lib.sh's user_setup, and the unit test
# of cache/ that drops to another uid.  It also checks that no script runs a
# program as another user any other way (a lint: setpriv, su, runuser, or
# as_user given a path into the checkout), so that new tests stay covered.
. "$(dirname "$0")/../lib.sh"

scripts=$(grep -l 'user_setup' "$ROOT"/tests/integration/*.sh | grep -v "/checkout_private.sh$")
check "some scripts run programs as another user" test -n "$scripts"

# ---- the lint ------------------------------------------------------------------
# Lines inside here-documents are data or scripts run elsewhere (a chroot's root
# in install_routes.sh, the README's lines in docs_readme.sh): not looked at.
outside_heredocs() {
	awk 'FNR == 1 { term = "" }
	term != "" { t = $0; if (strip) sub(/^\t+/, "", t); if (t == term) term = ""; next }
	{
		print FILENAME ":" FNR ":" $0
		if (match($0, /(^|[^<])<<-?[[:space:]]*[\047"]?[A-Za-z_][A-Za-z_0-9]*/)) {
			h = substr($0, RSTART, RLENGTH)
			sub(/^[^<]?<</, "", h)
			strip = (h ~ /^-/)
			gsub(/^-?[[:space:]]*[\047"]?/, "", h)
			term = h
		}
	}' "$@"
}
bad=$(outside_heredocs "$ROOT"/tests/integration/*.sh "$ROOT"/tests/integration/*.bash 2>/dev/null |
	grep -E '^[^:]*:[0-9]+:(|.*[;&|({]|.*\$\()[[:space:]]*(setpriv|runuser|su|sudo)[[:space:]]' |
	grep -v '/checkout_private.sh:')
# The lint must still see a switch outside a here-document, and skip one inside.
printf 'cat <<-EOF\n\tsudo x\n\tEOF\n( su - bob -c true )\n' >"$T/lint.sh"
check "the lint sees a switch outside a here-document only" \
	test "$(outside_heredocs "$T/lint.sh" | grep -cE ':[0-9]+:(|.*[;&|({])[[:space:]]*(su|sudo)[[:space:]]')" = 1
check "no script switches users but through lib.sh's as_user${bad:+ (found: $bad)}" test -z "$bad"
bad=$(grep -nE 'as_user.*"?\$(LIB|B|ROOT|CLIENT|DLOPEN|EXAMPLE|JITCACHE)([/"[:space:]]|$)' \
	"$ROOT"/tests/integration/*.sh | grep -v ':[[:space:]]*#')
check "as_user is never given a path into the checkout${bad:+ (found: $bad)}" test -z "$bad"

# ---- the private copy ----------------------------------------------------------
P=$T/private
mkdir -m 0700 "$P" "$P/tmp"
mkdir "$P/checkout"
tar -C "$ROOT" --exclude=./.git --exclude='./build*' --exclude='./.venv*' -cf - . |
	tar -C "$P/checkout" -xf -
cp -a "$B" "$P/checkout/build"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	check_not "the other user cannot read the private copy's library" \
		setpriv --reuid="$OTHER_UID" --regid="$OTHER_GID" --clear-groups -- \
		test -r "$P/checkout/build/libjitcache.so"
fi

for s in $scripts; do
	name=$(basename "$s" .sh)
	(cd "$P/checkout" && TMPDIR=$P/tmp BUILD=build ./tests/run.sh "$name") >"$T/$name.out" 2>&1
	last=$(tail -n 1 "$T/$name.out")
	check "$name from a 0700 checkout, private TMPDIR: $last" \
		grep -qE '^[1-9][0-9]* passed, 0 failed' <(echo "$last")
	grep -E '^(FAIL|skip) ' "$T/$name.out" | sed 's/^/     /'
done
unit=$P/checkout/build/tests/test_cache
if [ -x "$unit" ]; then
	TMPDIR=$P/tmp "$unit" >"$T/test_cache.out" 2>&1
	check "test_cache from a 0700 checkout, private TMPDIR: $(tail -n 1 "$T/test_cache.out")" \
		grep -qE '^[1-9][0-9]* passed, 0 failed' <(tail -n 1 "$T/test_cache.out")
	grep -E '^FAIL|skipped' "$T/test_cache.out" | sed 's/^/     /'
else
	skip "no build/tests/test_cache (make tests)"
fi

finish
