#!/bin/sh
# SPDX-License-Identifier: MIT
# packaging/man/make-man.sh ADMIN VERSION < jitcache.1.in > jitcache.1 — fills
# the man page's template: @COMMANDS@ with the command lines of `ADMIN
# help --all` (up to its settings), @SETTINGS@ with `ADMIN settings --man`,
# @VERSION@, and @DATE@ (the last commit's date, so that a rebuild is the same).
set -eu
admin=$1 version=$2
date=$(git -C "$(dirname "$0")" log -1 --format=%cs 2>/dev/null || date -u +%F)
cmds=$(mktemp) settings=$(mktemp)
trap 'rm -f "$cmds" "$settings"' EXIT
"$admin" help --all | sed -n '1,/^Settings:/p' | sed '$d' | sed -e '/^$/d' -e 's/^       //' \
	-e 's/\\/\\e/g' -e 's/-/\\-/g' >"$cmds"
"$admin" settings --man >"$settings"
while IFS= read -r line; do
	case $line in
	@COMMANDS@) cat "$cmds" ;;
	@SETTINGS@) cat "$settings" ;;
	*) printf '%s\n' "$line" | sed -e "s/@VERSION@/$version/g" -e "s/@DATE@/$date/g" ;;
	esac
done
