# SPDX-License-Identifier: MIT
# examples/venv.sh — sourced by examples/*/setup.sh: the one way this
# project makes a virtual environment from pinned PyPI wheels (project-local
# by default, never system-wide; the test bed's under /opt, through
# tests/testbed/*-env.sh).
#
#   . "$root/examples/venv.sh"
#   pinned_venv NAME VENV PYTHON REQUIREMENTS LOG ABOUT [FINISH]
#
# Returns at once when VENV's stamp holds the pins of REQUIREMENTS (and
# $PIN_EXTRA, e.g. a checksum of other things FINISH fetches).  Otherwise it
# makes VENV afresh with PYTHON, installs the pins with pip (no pip cache:
# these wheels are large), runs FINISH if given (a function of the caller,
# which finds the environment in $venv; its output goes to LOG too), keeps
# git out of VENV and writes the stamp ($STAMP, default .jitcache-pins).
# pip's output goes to LOG; on failure the script exits with its last 30
# lines.  NAME and ABOUT (the download's size) are for the messages.
# PIP_NO_DEPS=1 installs the pins alone (a REQUIREMENTS that lists every
# package itself, for a wheel whose declared dependencies are not needed).
pinned_venv() {
	name=$1 venv=$2 py=$3 req=$4 log=$5 about=$6 finish=${7:-}
	stamp=$venv/${STAMP:-.jitcache-pins}
	want="$(grep -v '^#' "$req" | sort | tr '\n' ' ')${PIN_EXTRA:+ $PIN_EXTRA}"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
		return 0
	fi
	mkdir -p "$(dirname "$log")"
	start=$(date +%s)
	echo "installing $name into $venv ($(basename "$req"); $about; log: $log)"
	if ! { rm -rf "$venv" && "$py" -m venv "$venv" &&
		"$venv/bin/python" -m pip install --no-cache-dir --disable-pip-version-check \
			${PIP_NO_DEPS:+--no-deps} -r "$req" &&
		{ [ -z "$finish" ] || "$finish"; }; } >"$log" 2>&1; then
		echo "setup.sh: installing $name failed; the last 30 lines of $log:" >&2
		tail -n 30 "$log" >&2
		exit 1
	fi
	# Keep git away from it even before .gitignore names it (as Python 3.13's venv does).
	echo '*' > "$venv/.gitignore"
	echo "$want" > "$stamp"
	echo "$name environment ready in $(( $(date +%s) - start )) s: $(du -sh "$venv" | cut -f1) in $venv"
}
