#!/bin/sh
# SPDX-License-Identifier: MIT
# packaging/debian/make-ini.sh ADMIN — /etc/jitcache.ini for the package:
# every setting of `ADMIN settings` (the code's table), commented out, in
# its section, with its default and meaning.
set -eu
cat <<'HEAD'
# /etc/jitcache.ini — jitcache's system-wide settings (jitcache(1); the README
# and the docs: /usr/share/doc/jitcache/).
# Read first: a user's ~/.config/jitcache/jitcache.ini (`jitcache set`
# writes it), then $JITCACHE_CONFIG, then environment variables override
# the settings they name, and only those.  Every setting is shown with its
# default, commented out: uncomment and change what you need.
HEAD
"$1" settings --markdown | sed -n 's/^| `\([A-Z_]*\)` | `\[\([a-z]*\)\] \([a-z_]*\)` | \(.*\) | \(.*\) |$/\2|\3|\4|\5|\1/p' |
while IFS='|' read -r sec name def help env; do
	if [ "$sec" != "${last:-}" ]; then printf '\n[%s]\n' "$sec"; last=$sec; fi
	def=$(printf '%s' "$def" | sed 's/^ *`\(.*\)` *$/\1/; s/^ *\((see meaning)\|none\) *$//')
	printf '%s (%s)\n' "$(printf '%s' "$help" | sed 's/ *$//')" "$env" | fold -s -w 76 | sed 's/ *$//; s/^/# /'
	printf ';%s =%s\n' "$name" "${def:+ $def}"
done
