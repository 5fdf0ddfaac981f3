#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# What users read agrees with the code: `jitcache --help`, `jitcache config`,
# `jitcache stats` and the settings table (docs/configuration.md) show every setting of
# config/settings.h's JC_SETTINGS with the default written there, and
# `jitcache --version` and the library carry the Makefile's VERSION; links
# resolve, and quoted figures stand in their sources.
# The table is read here with sed, independently of the C code that prints it.
. "$(dirname "$0")/../lib.sh"

if [ ! -x "$B/jitcache-admin" ]; then
	check "jitcache-admin built ($B/jitcache-admin)" false
	finish
	exit $?
fi

# "section|name|KIND|default|ENV" for each X(...) line of the table.
sed -n 's/^[[:space:]]*X(\([a-z_]*\), *\([a-z_]*\), *\([A-Z]*\), *[a-z_]*, *"\([^"]*\)", *"\([A-Z_]*\)".*/\1|\2|\3|\4|\5/p' \
	"$ROOT/config/settings.h" >"$T/table"
n=$(wc -l <"$T/table")
check "settings.h's table read ($n settings)" test "$n" -ge 7

"$JITCACHE" help --all >"$T/help" 2>&1
check "help --all: exit status 0" test $? -eq 0
env -u JITCACHE_DIR -u JITCACHE_RECIPES "$JITCACHE" config >"$T/config" 2>&1
"$JITCACHE" stats >"$T/stats" 2>&1
# The help entry of one variable, its wrapped lines joined.
entry() { awk -v v="  $1=" 'index($0, v) == 1 { on = 1; print; next }
	on && /^  [^ ]/ { exit } on { print }' "$T/help" | tr -s ' \n' ' '; }
while IFS='|' read -r sec name kind def env; do
	check "help --all: $env ([$sec] $name)" grep -q "^  $env=" "$T/help"
	if [ -n "$def" ]; then
		check "help --all: $env says (default $def)" grep -qF "(default $def)" <(entry "$env")
		check "config: $sec.$name = $def (default)" \
			grep -qE "^$sec\\.$name +=  *$(printf '%s' "$def" | sed 's/[.[*^$]/\\&/g') +\\(default;" "$T/config"
	else
		check "config: $sec.$name shown with its computed default (or none)" \
			grep -qE "^$sec\\.$name +=  *[^ ].* +\\(default;" "$T/config"
	fi
	# An empty default is computed where the meaning says so, else "none".
	shown='(see meaning)'
	grep -A1 "X($sec, *$name," "$ROOT/config/settings.h" | grep -q default || shown=none
	check "docs: a row for $env with default ${def:-$shown}" \
		grep -qF "| \`$env\` | \`[$sec] $name\` | ${def:+\`}${def:-$shown}${def:+\`} |" "$ROOT/docs/configuration.md"
done <"$T/table"
check "help --all: no variable it does not know" \
	test "$(grep -oE '^  JITCACHE_[A-Z_]+=' "$T/help" | grep -vc '^  JITCACHE_LIB=')" -eq "$n"

sed -n '/^<!-- settings: begin -->$/,/^<!-- settings: end -->$/p' "$ROOT/docs/configuration.md" | sed '1d;$d' >"$T/readme"
"$JITCACHE" settings --markdown >"$T/markdown"
check "docs: the settings table is 'jitcache settings --markdown' (paste it there)" \
	cmp -s "$T/readme" "$T/markdown"

max=$(awk -F'|' '$2 == "max_size" { print $4 }' "$T/table")
check "stats: the cap shown as written ($max)" grep -qE "^size .* of $max \\(" "$T/stats"

version=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
check "--version: jitcache $version (the Makefile's VERSION)" \
	test "$("$JITCACHE" --version | head -n 1)" = "jitcache $version"
check "the library carries the same version" grep -qa "jitcache $version" "$LIB"
check "... and its soname's major number" \
	sh -c "objdump -p '$LIB' | grep -q 'SONAME *libjitcache.so.${version%%.*}\$'"

# The wheel's name: README.md and docs/install.md say to build the wheel and
# install it from dist/ under the Makefile's WHEEL_NAME (wheel.sh checks the
# wheel's metadata carries it), and what `pip install WHEEL_NAME` will do
# once published; no page tells anyone to run `pip install jitcache`, an
# unrelated project on PyPI (prose may warn against it, a command line may not).
name=$(sed -n 's/^WHEEL_NAME *:= *//p' "$ROOT/Makefile")
check "Makefile: WHEEL_NAME is set ($name)" test -n "$name"
python3 - "$ROOT" "$name" >"$T/pipnames" 2>&1 <<'PY'
import os, re, sys
root, name = sys.argv[1:3]
stem = re.sub(r"[-_.]+", "_", name).lower()
ok = {f"dist/{stem}-*.whl", name}
pages = ["README.md"] + ["docs/" + f for f in sorted(os.listdir(root + "/docs")) if f.endswith(".md")]
bad = 0
for page in pages:
    text = open(os.path.join(root, page), encoding="utf-8").read()
    for n, line in enumerate(text.splitlines(), 1):
        command = line.startswith(("    ", "\t"))
        for m in re.finditer(r"pip3? (?:un)?install +((?:-\S+ +)*)([^\s`;,)]+)", line):
            what = m.group(2)
            if "jitcache" not in what or what in ok or (what == "jitcache" and not command):
                continue
            print(f"{page}:{n}: pip install {what}: neither dist/{stem}-*.whl nor {name}")
            bad += 1
wants = {"README.md": ("pip install .", f"pip install {name}`"),
         "docs/install.md": ("pip install .", "make wheel", f"pip install dist/{stem}-*.whl",
                             f"pip install {name}`")}
for page, want_all in wants.items():
    text = open(os.path.join(root, page), encoding="utf-8").read()
    for want in want_all:
        if want not in text:
            print(f"{page}: does not say `{want}`")
            bad += 1
print(f"{bad} wrong")
PY
check "README and docs: pip installs . or $name, built by make wheel into dist/ ($(tail -n 1 "$T/pipnames"))" \
	grep -q '^0 wrong$' "$T/pipnames"
grep -v '^0 wrong$' "$T/pipnames" | head -n 10

# The README is the front door, the rest is in docs/: every page linked from
# it, every relative link and #anchor in any of them leads somewhere.
# A front door (issue 36): what it is first, then install, run, check,
# what it adds, the stacks, how to try and test it, the docs; no lab notes.
check "README: the sections in a newcomer's order" \
	test "$(grep '^## ' "$ROOT/README.md" | tr '\n' '|')" = \
	"## Install|## Run|## See that it works|## What it adds over the driver's own cache|## Supported stacks|## Try it, test it|## Documentation|"
check "README: no comment or marker ahead of the first sentence" \
	sh -c "! sed -n '1,/^## /p' '$ROOT/README.md' | grep -q '<!--'"
check "README: what it is, in at most 3 lines after the title and tagline" \
	test "$(sed -n '1,/^## /p' "$ROOT/README.md" | sed '1,3d;/^## /d;/^$/d' | wc -l)" -le 3
check "README: no lab-notebook text (stop N, commit ids)" \
	sh -c "! grep -nE '\\bstop [0-9]+|\\b[0-9a-f]{7}:' '$ROOT/README.md'"
for want in 'jitcache run -- ' 'jitcache stats' 'jitcache explain' 'make demo' 'make check ' 'make check-all' \
	'pip install .' 'docs/benchmarks.md' 'LICENSE'; do
	check "README: says $want" grep -qF -- "$want" "$ROOT/README.md"
done
check "README: at most 100 lines ($(wc -l <"$ROOT/README.md"))" test "$(wc -l <"$ROOT/README.md")" -le 100
for page in "$ROOT"/docs/*.md; do
	check "README links docs/${page##*/}" grep -qF "](docs/${page##*/}" "$ROOT/README.md"
done
python3 - "$ROOT" >"$T/links" 2>&1 <<'PY'
import os, re, sys
root = sys.argv[1]
def slug(t):
    return re.sub(r'[^\w\- ]', '', t.strip().lower()).replace(' ', '-')
def anchors(path):
    heads, fence = set(), False
    for line in open(path):
        m = re.match(r'^#{1,6} (.*)$', line.rstrip('\n'))
        if m:
            heads.add(slug(m.group(1)))
    return heads
files = [os.path.join(root, 'README.md')] + sorted(
    os.path.join(root, 'docs', f) for f in os.listdir(os.path.join(root, 'docs')) if f.endswith('.md'))
bad = 0
for f in files:
    for m in re.finditer(r'\[[^\]]*\]\(([^)\s]+)\)', open(f).read()):
        target = m.group(1)
        if re.match(r'^[a-z]+:', target):
            continue
        path, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            print(f'{os.path.relpath(f, root)}: {target}: no such file'); bad += 1
        elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
            print(f'{os.path.relpath(f, root)}: {target}: no such heading'); bad += 1
print(f'{bad} broken')
PY
check "README and docs/: every relative link and anchor resolves ($(tail -n 1 "$T/links"))" \
	grep -q '^0 broken$' "$T/links"
grep -v '^0 broken$' "$T/links" | head -n 10

# The user pages scan (issue 45 item 8: 51k words in 9 pages, fleets.md 875
# lines, house words in user pages): each opens with what a user runs, a
# command block in its first screen (25 lines); none is over 400 lines; the
# project's own words (rooms, doors, a look, said) stay in design.md, whose
# glossary defines each.  The user pages are README.md and docs/*.md but
# design.md (the developers' page).
python3 - "$ROOT" >"$T/scan" 2>&1 <<'PY'
import os, re, sys
root = sys.argv[1]
EXEMPT = {"design.md"}
HOUSE = re.compile(r"\b(rooms?|doors?|said|(?:a|first|one more|each|the) looks?)\b", re.I)
pages = ["README.md"] + ["docs/" + f for f in sorted(os.listdir(os.path.join(root, "docs")))
                         if f.endswith(".md") and f not in EXEMPT]
bad = 0
for page in pages:
    lines = open(os.path.join(root, page), encoding="utf-8").read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > 400:
        print(f"{page}: {len(lines)} lines (at most 400: split it)")
        bad += 1
    first = lines[:25]
    fenced = any(re.match(r"^```(sh|bash|console)?$", l) for l in first)
    indented = any(l.startswith("    ") and l.strip() and (i == 0 or not first[i - 1].strip())
                   for i, l in enumerate(first))
    if not (fenced or indented):
        print(f"{page}: no command block in its first 25 lines (open with what a user runs)")
        bad += 1
    text = re.sub(r"\s+", " ", "\n".join(lines))
    for word in sorted(set(m.group(0).lower() for m in HOUSE.finditer(text))):
        print(f"{page}: the house word '{word}' (design.md's glossary says what to write)")
        bad += 1
design = open(os.path.join(root, "docs/design.md"), encoding="utf-8").read()
glossary = design[design.find("## Glossary"):] if "## Glossary" in design else ""
for word in ("room", "door", "look", "said"):
    if f"| {word} |" not in glossary:
        print(f"docs/design.md: its glossary does not define '{word}'")
        bad += 1
print(f"{len(pages)} user pages, {bad} problems")
PY
check "docs: user pages open with a command, at most 400 lines, no house words; design.md's glossary ($(tail -n 1 "$T/scan"))" \
	grep -q ' 0 problems$' "$T/scan"
grep -v ' 0 problems$' "$T/scan" | head -n 20

# Figures come from their sources: every row of every table in
# docs/benchmarks*.md is one that `make bench` wrote into bench/results.md
# (or bench/nvidia-results.md), and every figure in the README's
# supported-stacks table stands in the page it comes from (docs/benchmarks*.md,
# docs/how-it-works*.md, the bench results, or the README's own demo output).
python3 - "$ROOT" >"$T/figures" 2>&1 <<'PY'
import os, re, sys
root = sys.argv[1]
def text(p):
    return open(root + "/" + p, encoding="utf-8").read()
results = set(l.strip() for p in ("bench/results.md", "bench/nvidia-results.md")
              for l in text(p).splitlines())
bench = ["docs/" + f for f in sorted(os.listdir(root + "/docs")) if f.startswith("benchmarks")]
bad = 0
for page, n, l in ((p, n, l) for p in bench for n, l in enumerate(text(p).splitlines(), 1)):
    if l.startswith("|") and l.strip() not in results:
        print("%s:%d: a table row bench/results.md does not have: %s" % (page, n, l[:100]))
        bad += 1
readme = text("README.md")
stacks = readme[readme.index("## Supported stacks"):readme.index("## Documentation")]
sources = readme[:readme.index("## Supported stacks")] + "".join(
    text(p) for p in bench + ["bench/results.md", "bench/nvidia-results.md"] +
    ["docs/" + f for f in sorted(os.listdir(root + "/docs")) if f.startswith("how-it-works")])
for l in stacks.splitlines():
    if not l.startswith("| ") or l.startswith("| stack"):
        continue
    for fig in re.findall(r"\d+\.\d+", l.strip("|").split("|")[-1]):
        if not re.search(r"(?<![\d.])" + re.escape(fig) + r"(?![\d])", sources):
            print("README.md: %s (%s) is in no source" % (fig, l.split("|")[1].strip()[:50]))
            bad += 1
print("%d unsourced" % bad)
PY
check "figures: docs/benchmarks*.md's tables and the README's stacks come from their sources ($(tail -n 1 "$T/figures"))" \
	grep -q '^0 unsourced$' "$T/figures"
grep -v '^0 unsourced$' "$T/figures" | head -n 10

# Every figure has its source (issue 30: figures that did not reproduce).
# A figure is a measured time, speed-up, share or rate ("12.2 s", "453x",
# "-74%", "2.48/s"), or a table cell that is a decimal number, outside `code`.
# Each line of README.md and docs/*.md that holds one must follow a marker,
# which covers what follows it up to the next heading or marker:
#   <!-- figures: SOURCE | machine: MACHINE | load: LOAD -->
# SOURCE names a make target (`make bench-pyopencl`) or a script of the
# checkout (`bench/warm.sh`) that measures them again; MACHINE and LOAD say
# what they were measured on and beside what.  Figures that are no
# measurement of ours (a setting, an example of an output's form, a figure
# others reported) follow <!-- figures: not measured: WHY --> instead.
python3 - "$ROOT" >"$T/sourced" 2>&1 <<'PY'
import os, re, sys
root = sys.argv[1]
makefiles = ["Makefile"] + ["mk/" + f for f in sorted(os.listdir(os.path.join(root, "mk"))) if f.endswith(".mk")]
targets = set(re.findall(r"^([a-z][a-z0-9-]*):", "".join(open(os.path.join(root, f)).read() for f in makefiles), re.M))
FIG = re.compile(r"(?<![\w.-])[~+-]?\d+(?:[.,]\d+)?(?:-\d+(?:\.\d+)?)? ?"
                 r"(?:s|ms|µs|us|ns|min|minutes|seconds|hours|x|%|/s)(?!\w)")
DECIMAL = re.compile(r"\|\s*[~+-]?\d+\.\d+\s*(?=\|)")  # a table cell that is a number alone
MARK = re.compile(r"^<!-- figures: (.*) -->$")
pages = ["README.md"] + ["docs/" + f for f in sorted(os.listdir(os.path.join(root, "docs")))
                         if f.endswith(".md")]
bad = marks = 0
for page in pages:
    mark = None
    for n, line in enumerate(open(os.path.join(root, page), encoding="utf-8").read().splitlines(), 1):
        m = MARK.match(line.strip())
        if m:
            marks += 1
            mark = n
            source, *rest = [f.strip() for f in m.group(1).split(" | ")]
            if source.startswith("not measured: ") and len(source) > 20 and not rest:
                continue
            fields = dict(f.partition(": ")[::2] for f in rest)
            named = [("make " + t, t in targets) for t in re.findall(r"make ([a-z][a-z0-9-]*)", source)] + \
                    [(f, os.path.isfile(os.path.join(root, f)))
                     for f in re.findall(r"[\w./-]+\.(?:sh|py|c)\b", source)]
            if not named or not all(there for _, there in named):
                gone = ", ".join(what for what, there in named if not there)
                print(f"{page}:{n}: the marker names " +
                      (f"what does not exist: {gone}" if named else f"no make target or script: {source}"))
                bad += 1
            for k in ("machine", "load"):
                if not fields.get(k):
                    print(f"{page}:{n}: the marker says no {k}")
                    bad += 1
            continue
        if re.match(r"^#{1,6} ", line):
            mark = None
            continue
        text = re.sub(r"\]\([^)]*\)", "]", re.sub(r"`[^`]*`", "", line))
        figs = FIG.findall(text) + [c.strip("| ") for c in DECIMAL.findall(text)]
        if figs and mark is None:
            print(f"{page}:{n}: {', '.join(figs[:3])} with no source: {line.strip()[:80]}")
            bad += 1
print(f"{marks} markers, {bad} unsourced")
PY
check "figures: every one in README.md and docs/ follows a marker naming its source, machine and load ($(tail -n 1 "$T/sourced"))" \
	grep -q ' 0 unsourced$' "$T/sourced"
grep -v ' 0 unsourced$' "$T/sourced" | head -n 10

# The man page (make man: packaging/man/jitcache.1.in filled from the code)
# renders without a warning and has every setting and command.
MAN=$B/jitcache.1
if [ -s "$MAN" ] && command -v man >/dev/null; then
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$MAN" >"$T/man.txt" 2>"$T/man.err"
	check "man page: renders ($(wc -l <"$T/man.txt") lines)" test -s "$T/man.txt"
	check "man page: no groff warning" test ! -s "$T/man.err"
	while IFS='|' read -r sec name kind def env; do
		check "man page: $env ([$sec] $name${def:+, default $def})" \
			sh -c "grep -q '^       $env=' '$T/man.txt' && grep -qF '[$sec] $name' '$T/man.txt'"
	done <"$T/table"
	for cmd in run stats verify trim clear export import keygen warm config settings; do
		check "man page: the $cmd command" grep -q "^       jitcache $cmd" "$T/man.txt"
	done
else
	check "man page built ($MAN: make man) and man installed" false
fi

finish
