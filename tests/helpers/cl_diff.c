// SPDX-License-Identifier: MIT
/*
 * cl_diff — the differential test generator's engine
 * (tests/integration/include_differential.sh): random #include layouts and
 * forms, edits between runs, between a compile and its link and during a
 * build, each case run by the real driver without jitcache and then with it.
 *
 *   cl_diff --describe --seed S --first A --count N [--only N,...] [--plain]
 *   cl_diff --root DIR --seed S --first A --count N --phase P --platform NAME
 *           [--only-driver D --drivers K] [--only N,...] [--plain]
 *
 * Case n of seed S is made by a generator seeded with (S, n) alone, so every
 * phase (and a rerun of one case: --first n --count 1) makes the same case:
 * a tree of files under DIR/c<n> (headers whose one line adds a value of
 * their own to `acc`, and may include others), one or two kernel sources,
 * the options, how it is built (clBuildProgram once or twice, or
 * clCompileProgram + clLinkProgram of one or two sources), what happens
 * during the run (a header rewritten between two builds, compiles or a
 * compile and its link; a chdir before the link) and two edits: one
 * between runs (a header's value changed, one created or deleted, the run
 * started in another directory) and one during the build (a header replaced
 * the moment something first opens it: inotify).
 *
 * Phases: B1 = the files as made, B2 = with the edit between runs, both for
 * runs without jitcache; J1 = as B1 plus the edit during the build (the cold
 * run with jitcache), J2 = as B1 (warm), J3 = as B2.  Every phase starts from
 * the case's tree written anew, all its files with one fixed mtime, so only
 * contents differ.  --describe prints "D n TAGS :: WHAT" per case, no
 * OpenCL; otherwise "R n RESULT" per case: each build's error code and, on a
 * platform that runs kernels (PoCL), the value kernel k wrote, else (Intel's
 * simulated GPU) a hash of CL_PROGRAM_BINARIES.  With --drivers K, only the
 * cases with n % K == D are run (each case's driver); with --only, only
 * those listed.  --plain makes each case with its directives in plain forms
 * and LF line ends, all else the same (is a difference one of the forms?).
 * The cases run in a child process: when it dies or hangs (5 minutes) in
 * one, that case's result is "R n crash=..." and a new child goes on from
 * the next case.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- a growing string ---------------------------------------------------------- */
struct str {
	char *p;
	size_t n, cap;
};

static void put(struct str *s, const char *text, size_t n)
{
	if (s->n + n + 1 > s->cap) {
		s->cap = (s->n + n + 1) * 2;
		if (!(s->p = realloc(s->p, s->cap)))
			abort();
	}
	memcpy(s->p + s->n, text, n);
	s->n += n;
	s->p[s->n] = '\0';
}

__attribute__((format(printf, 2, 3))) static void add(struct str *s, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	put(s, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* ---- the generator's random numbers: splitmix64 of (seed, case) -------------------- */
struct rng {
	uint64_t s;
};

static uint64_t next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned pick(struct rng *r, unsigned n)
{
	return (unsigned)(next(r) % n);
}

static int chance(struct rng *r, unsigned percent)
{
	return pick(r, 100) < percent;
}

/* ---- a case ------------------------------------------------------------------ */
/* Where a header can be, relative to the case's directory: the working
 * directory w (and w2, where the run may chdir), two -I directories (the
 * first named as the option names it, its other reading, e.g. i1 for an
 * option "-I'i1'", beside it), and the same first -I relative to w2. */
enum { P_W, P_I1, P_I1ALT, P_I2, P_W2, P_W2I1, NPLACES };
static const char *const place_tag[NPLACES] = { "w", "i1", "i1alt", "i2", "w2", "w2/i1" };

/* The header names, by level: a source includes level 0, a level 0
 * header level 1, a level 1 header level 2; "f.h" only through
 * __has_include. */
static const char *const names[] = { "x.h", "sub/x.h", "p.h", "y.h", "sub/y.h", "z.h", "sub/z.h", "f.h" };
enum { N_X, N_SUBX, N_P, N_Y, N_SUBY, N_Z, N_SUBZ, N_F, NNAMES };
static const int name_level[NNAMES] = { 0, 0, 0, 1, 1, 2, 2, 0 };

/* The name a file included as `name` from a file named `from` has beside
 * it (in the same place), or -1 where the generator has no such name. */
static int beside_name(int from, int name)
{
	int in_sub = from == N_SUBX || from == N_SUBY || from == N_SUBZ;
	if (!in_sub)
		return name;
	return name == N_Y ? N_SUBY : name == N_Z ? N_SUBZ : -1;
}

enum form {
	F_PLAIN, F_SPACES, F_NOSPACE, F_CMT_BEFORE, F_CMT_AFTER, F_CMT_MULTI, F_SPLICE_KW,
	F_SPLICE_NAME, F_SPLICE_HASH, F_FF, F_VT, F_DIGRAPH, F_MACRO_OPT, F_MACRO_SRC,
	F_MACRO_SRC_CMT, F_MACRO_SRC_SPLICE, F_DEAD_LINECMT, F_DEAD_IF0, NFORMS
};
static const char *const form_tag[NFORMS] = {
	"plain", "spaces", "nospace", "cmt-before", "cmt-after", "cmt-multiline", "splice-keyword",
	"splice-name", "splice-hash", "formfeed", "vtab", "digraph", "macro-option", "macro-source",
	"macro-source-after-comment", "macro-source-spliced", "dead-linecomment-splice", "dead-if0"
};

enum eol { EOL_LF, EOL_CRLF, EOL_CR };
static const char *const eol_tag[] = { "lf", "crlf", "cr" };

/* One #include (or #include_next) directive. */
struct directive {
	int name, angle, next, form, macro; /* macro: its number, for INC<n> */
};

struct file {
	int place, name, exists, eol;
	unsigned value;
	int nested; /* has a directive */
	struct directive d;
};

enum mode { M_BUILD, M_BUILD2, M_CL1, M_CL2, M_CLH, NMODES };
static const char *const mode_tag[NMODES] = { "build", "build-twice", "compile-link",
					      "compile2-link", "compile-embedded-link" };
/* What the run does between its steps. */
enum mid { MID_NONE, MID_VALUE, MID_CREATE, MID_DELETE, NMIDS };
static const char *const mid_tag[NMIDS] = { "none", "value", "create", "delete" };
enum edit { E_NONE, E_VALUE, E_CREATE, E_DELETE, E_CWD, NEDITS };
static const char *const edit_tag[NEDITS] = { "none", "value", "create", "delete", "cwd" };

#define MAXFILES 48
#define MAXSITES 3

struct kase {
	unsigned n;
	uint64_t seed;
	struct rng r;
	char dir[PATH_MAX];
	char d1[16], d1alt[16]; /* the first -I directory's name, and its other reading */
	int has_i1, has_i2, i1_abs, i2_abs, i1_joined, i2_joined, i1_dot;
	int nfiles;
	struct file files[MAXFILES];
	int nsites[2];
	struct directive sites[2][MAXSITES];
	int has_site, has_angle, has_form;
	struct str defines; /* -D options of macro forms */
	int nmacros;
	int mode, eol;
	int mid, mid_file, mid_after; /* mid_after: after which compile (CL2: 0 or 1) */
	unsigned mid_value;
	int mid_chdir;
	int edit, edit_file;
	unsigned edit_value;
	int db_file;
	unsigned db_value;
	unsigned embedded_value;
	unsigned used_values[64];
	int nused;
	struct str tags, what;
};

/* A value no other file of the case adds (4 digits: an edit keeps the size). */
static unsigned fresh_value(struct kase *c)
{
	for (;;) {
		unsigned v = 1000 + pick(&c->r, 9000);
		int seen = 0;
		for (int i = 0; i < c->nused; i++)
			seen |= c->used_values[i] == v;
		if (seen)
			continue;
		if (c->nused < (int)(sizeof c->used_values / sizeof *c->used_values))
			c->used_values[c->nused++] = v;
		return v;
	}
}

static void tag(struct kase *c, const char *key, const char *value)
{
	add(&c->tags, "%s%s=%s", c->tags.n ? " " : "", key, value);
}

static int find_file(const struct kase *c, int place, int name)
{
	for (int i = 0; i < c->nfiles; i++)
		if (c->files[i].place == place && c->files[i].name == name)
			return i;
	return -1;
}

/* Places a header of this name may sit in (any -I directory the options name). */
static int place_ok(const struct kase *c, int place)
{
	switch (place) {
	case P_I1:
		return c->has_i1;
	case P_I1ALT:
		return c->has_i1 && c->d1alt[0];
	case P_I2:
		return c->has_i2;
	case P_W2I1:
		return c->has_i1 && !c->i1_abs;
	default:
		return 1;
	}
}

/* A place, by weight; -1 when the one drawn does not exist in this case. */
static int random_place(struct kase *c)
{
	static const unsigned weights[NPLACES] = { 30, 25, 15, 20, 10, 10 };
	unsigned w = pick(&c->r, 110), acc = 0;
	int p = 0;
	while (w >= (acc += weights[p]))
		p++;
	return place_ok(c, p) ? p : -1;
}

static int random_form(struct kase *c, int level)
{
	/* Nearly half the directives plain; the directives that are none
	 * (commented out, #if 0) rarer; the macro forms less often in headers. */
	if (chance(&c->r, 45))
		return F_PLAIN;
	int f = 1 + (int)pick(&c->r, NFORMS - 1);
	if (f >= F_DEAD_LINECMT && !chance(&c->r, 30))
		f = F_PLAIN;
	if (level > 0 && f >= F_MACRO_OPT && f <= F_MACRO_SRC_SPLICE && chance(&c->r, 50))
		f = F_CMT_BEFORE;
	return f;
}

static void new_directive(struct kase *c, struct directive *d, int name, int level)
{
	d->name = name;
	d->angle = chance(&c->r, level == 0 ? 25 : 10);
	d->next = 0;
	d->form = random_form(c, level);
	d->macro = d->form >= F_MACRO_OPT && d->form <= F_MACRO_SRC_SPLICE ? c->nmacros++ : -1;
	if (d->form == F_MACRO_OPT || (d->macro >= 0 && chance(&c->r, 60))) {
		/* A definition in the options: the one used, or a decoy the
		 * source redefines. */
		int decoy = d->form != F_MACRO_OPT;
		const char *nm = names[decoy ? (name == N_P ? N_X : N_P) : name];
		add(&c->defines, " -DINC%d=%c%s%c", d->macro, d->angle ? '<' : '"', nm,
		    d->angle ? '>' : '"');
	}
}

static int add_file(struct kase *c, int place, int name)
{
	int i = find_file(c, place, name);
	if (i >= 0 || c->nfiles == MAXFILES)
		return i;
	struct file *f = &c->files[i = c->nfiles++];
	memset(f, 0, sizeof *f);
	f->place = place;
	f->name = name;
	f->exists = 1;
	f->eol = chance(&c->r, 90) ? EOL_LF : chance(&c->r, 50) ? EOL_CRLF : EOL_CR;
	f->value = fresh_value(c);
	return i;
}

/* Header files of one name: one to three places, sometimes none; the
 * first mostly where a search would find it (w, or an -I directory). */
static void add_files(struct kase *c, int name)
{
	int count = chance(&c->r, 8) ? 0 : 1 + (int)pick(&c->r, 3);
	if (count && chance(&c->r, 85)) {
		static const int reachable[] = { P_W, P_I1, P_I2 };
		int p = reachable[pick(&c->r, 3)];
		if (place_ok(c, p)) {
			add_file(c, p, name);
			count--;
		}
	}
	for (int k = 0; k < 8 && count > 0; k++) {
		int p = random_place(c);
		if (p >= 0 && find_file(c, p, name) < 0 && c->nfiles < MAXFILES - 8) {
			add_file(c, p, name);
			count--;
		}
	}
}

/* A directive in some headers (of levels 0 and 1): a nested include of
 * the next level's name, often with a file of that name beside the header,
 * or an #include_next of its own name.  Marks the names wanted. */
static void add_nested(struct kase *c, int first, int last, int *want)
{
	for (int i = first; i < last; i++) {
		struct file *f = &c->files[i];
		int level = name_level[f->name];
		if (level >= 2 || f->name == N_F)
			continue;
		if ((f->place == P_I1 || f->place == P_I1ALT || f->place == P_W) && chance(&c->r, 20)) {
			f->nested = 1;
			new_directive(c, &f->d, f->name, level + 1);
			f->d.next = 1;
			f->d.angle = chance(&c->r, 50);
			continue;
		}
		if (!chance(&c->r, 40))
			continue;
		f->nested = 1;
		int nm = level == 0 ? (chance(&c->r, 70) ? N_Y : N_SUBY) : N_Z;
		new_directive(c, &f->d, nm, level + 1);
		want[nm] = 1;
		int beside = beside_name(f->name, nm);
		if (beside >= 0 && chance(&c->r, 50))
			add_file(c, f->place, beside);
	}
}

static void describe_dirs(struct kase *c)
{
	static const char *const d1s[][2] = { { "i1", "" }, { "i1", "" }, { "i1", "" },
					      { "q'x", "qx" }, { "'i1'", "i1" }, { "\"i1\"", "i1" } };
	unsigned k = pick(&c->r, 6);
	snprintf(c->d1, sizeof c->d1, "%s", d1s[k][0]);
	snprintf(c->d1alt, sizeof c->d1alt, "%s", d1s[k][1]);
	c->has_i1 = chance(&c->r, 80);
	c->has_i2 = c->has_i1 && chance(&c->r, 60);
	c->i1_abs = chance(&c->r, 30);
	c->i2_abs = chance(&c->r, 50);
	c->i1_joined = chance(&c->r, 40);
	c->i2_joined = chance(&c->r, 40);
	c->i1_dot = chance(&c->r, 20);
	tag(c, "idirs", !c->has_i1 ? "none" : c->has_i2 ? "two" : "one");
	if (!c->has_i1)
		return;
	if (k >= 3)
		tag(c, "idir", d1s[k][0]);
	tag(c, "idir", c->i1_abs ? "absolute" : c->i1_dot ? "dot-relative" : "relative");
	if (c->has_i2 && c->i2_abs != c->i1_abs)
		tag(c, "idir", c->i2_abs ? "absolute" : "relative");
	if (c->i1_joined || (c->has_i2 && c->i2_joined))
		tag(c, "idir", "joined");
}

/* The sources' include sites: one or two in the first, one in the second
 * (the same name as the first's, often: a header both compiles read). */
static void generate_sites(struct kase *c, int nsrc)
{
	for (int s = 0; s < nsrc; s++) {
		c->nsites[s] = 1 + (int)pick(&c->r, s == 1 ? 1 : 2);
		for (int i = 0; i < c->nsites[s]; i++) {
			int nm = s == 1 && i == 0 && chance(&c->r, 60) ? c->sites[0][0].name
								     : (int)pick(&c->r, 3);
			new_directive(c, &c->sites[s][i], nm, 0);
		}
	}
	c->has_site = chance(&c->r, 20);
}

/* Files that do not exist yet, for an edit to create. */
static void add_absent(struct kase *c)
{
	for (int k = 0; k < 3 && c->nfiles < MAXFILES; k++) {
		int p = random_place(c), nm = (int)pick(&c->r, NNAMES);
		if (p < 0 || find_file(c, p, nm) >= 0)
			continue;
		struct file *f = &c->files[c->nfiles++];
		memset(f, 0, sizeof *f);
		f->place = p;
		f->name = nm;
		f->eol = EOL_LF;
		f->value = fresh_value(c);
	}
}

/* The files: of each name a source names (and, as decoys, of others), then
 * of each name those include, level by level. */
static void generate_files(struct kase *c, int nsrc)
{
	int want[NNAMES] = { 0 };
	for (int s = 0; s < nsrc; s++)
		for (int i = 0; i < c->nsites[s]; i++)
			want[c->sites[s][i].name] = 1;
	for (int nm = N_X; nm <= N_P; nm++)
		if (want[nm] || chance(&c->r, 15))
			add_files(c, nm);
	int level0 = c->nfiles;
	add_nested(c, 0, level0, want);
	for (int nm = N_Y; nm <= N_SUBY; nm++)
		if (want[nm])
			add_files(c, nm);
	int level1 = c->nfiles;
	add_nested(c, level0, level1, want);
	if (want[N_Z])
		add_files(c, N_Z);
	if (c->has_site && !chance(&c->r, 30))
		add_files(c, N_F);
	add_absent(c);
}

static void generate(struct kase *c, uint64_t seed, unsigned n, const char *root)
{
	memset(c, 0, sizeof *c);
	c->n = n;
	c->seed = seed;
	c->r.s = seed * 0x2545f4914f6cdd1dull ^ ((uint64_t)n << 20) ^ n;
	next(&c->r);
	snprintf(c->dir, sizeof c->dir, "%s/c%u", root ? root : ".", n);
	unsigned m = pick(&c->r, 100);
	c->mode = m < 40 ? M_BUILD : m < 50 ? M_BUILD2 : m < 65 ? M_CL1 : m < 93 ? M_CL2 : M_CLH;
	c->eol = chance(&c->r, 85) ? EOL_LF : chance(&c->r, 50) ? EOL_CRLF : EOL_CR;
	tag(c, "mode", mode_tag[c->mode]);
	describe_dirs(c);
	int nsrc = c->mode == M_CL2 ? 2 : 1;
	generate_sites(c, nsrc);
	generate_files(c, nsrc);
}

static int random_file(struct kase *c, int exists)
{
	int idx[MAXFILES], k = 0;
	for (int i = 0; i < c->nfiles; i++)
		if (c->files[i].exists == exists)
			idx[k++] = i;
	return k ? idx[pick(&c->r, (unsigned)k)] : -1;
}

/* The run's and the edits' choices, once the files are known. */
static void generate_edits(struct kase *c)
{
	if (c->mode == M_BUILD2 || c->mode == M_CL1 || c->mode == M_CL2 || c->mode == M_CLH) {
		unsigned m = pick(&c->r, 100);
		c->mid = c->mode == M_BUILD2 || m < 60 ? MID_VALUE : m < 72 ? MID_CREATE
			: m < 84 ? MID_DELETE : MID_NONE;
		if (c->mode != M_BUILD2 && chance(&c->r, 15))
			c->mid = MID_NONE;
		c->mid_file = random_file(c, c->mid != MID_CREATE);
		if (c->mid_file < 0)
			c->mid = MID_NONE;
		c->mid_value = fresh_value(c);
		c->mid_after = c->mode == M_CL2 ? (int)pick(&c->r, 2) : 0;
		c->mid_chdir = c->mode != M_BUILD2 && chance(&c->r, 25);
		if (c->mid_chdir)
			tag(c, "chdir", "before-link");
	}
	unsigned e = pick(&c->r, 100);
	c->edit = e < 8 ? E_NONE : e < 58 ? E_VALUE : e < 73 ? E_CREATE : e < 88 ? E_DELETE : E_CWD;
	c->edit_file = c->edit == E_VALUE || c->edit == E_DELETE ? random_file(c, 1)
		: c->edit == E_CREATE ? random_file(c, 0) : -1;
	if ((c->edit == E_VALUE || c->edit == E_DELETE || c->edit == E_CREATE) && c->edit_file < 0)
		c->edit = E_NONE;
	c->edit_value = fresh_value(c);
	c->db_file = chance(&c->r, 15) && c->mode != M_BUILD2 ? random_file(c, 1) : -1;
	c->db_value = fresh_value(c);
	c->embedded_value = fresh_value(c);
}

/* ---- the texts ------------------------------------------------------------------- */
static void eol_convert(struct str *out, const char *text, int eol)
{
	for (const char *p = text; *p; p++) {
		if (*p != '\n')
			put(out, p, 1);
		else
			put(out, eol == EOL_LF ? "\n" : eol == EOL_CRLF ? "\r\n" : "\r",
			    eol == EOL_CRLF ? 2 : 1);
	}
}

/* The directive, in its form, one or more lines ending with '\n'. */
static void render_directive(struct str *s, const struct directive *d)
{
	const char *kw = d->next ? "include_next" : "include";
	char name[64];
	snprintf(name, sizeof name, "%c%s%c", d->angle ? '<' : '"', names[d->name], d->angle ? '>' : '"');
	switch (d->form) {
	case F_SPACES: add(s, " \t# \t%s\t%s\n", kw, name); break;
	case F_NOSPACE: add(s, "#%s%s\n", kw, name); break;
	case F_CMT_BEFORE: add(s, "/* before */ #%s %s\n", kw, name); break;
	case F_CMT_AFTER: add(s, "# /* after */ %s %s\n", kw, name); break;
	case F_CMT_MULTI: add(s, "/* a comment\n   over two lines */ #%s %s\n", kw, name); break;
	case F_SPLICE_KW: add(s, "#inc\\\n%s %s\n", kw + 3, name); break;
	case F_SPLICE_NAME: add(s, "#%s \\\n%s\n", kw, name); break;
	case F_SPLICE_HASH: add(s, "#\\\n%s %s\n", kw, name); break;
	case F_FF: add(s, "\f#%s %s\n", kw, name); break;
	case F_VT: add(s, "\v #%s %s\n", kw, name); break;
	case F_DIGRAPH: add(s, "%%:%s %s\n", kw, name); break;
	case F_MACRO_OPT: add(s, "#%s INC%d\n", kw, d->macro); break;
	case F_MACRO_SRC: add(s, "#define INC%d %s\n#%s INC%d\n", d->macro, name, kw, d->macro); break;
	case F_MACRO_SRC_CMT:
		add(s, "/* here */ #define INC%d %s\n#%s INC%d\n", d->macro, name, kw, d->macro);
		break;
	case F_MACRO_SRC_SPLICE:
		add(s, "#def\\\nine INC%d %s\n#%s INC%d\n", d->macro, name, kw, d->macro);
		break;
	case F_DEAD_LINECMT: add(s, "// not a directive \\\n#%s %s\n", kw, name); break;
	case F_DEAD_IF0: add(s, "#if 0\n#%s %s\n#endif\n", kw, name); break;
	default: add(s, "#%s %s\n", kw, name); break;
	}
}

static void render_file(struct str *out, const struct file *f, unsigned value)
{
	struct str s = { 0 };
	add(&s, "/* %s in %s */\nacc = acc * 31u + %uu;\n", names[f->name], place_tag[f->place], value);
	if (f->nested)
		render_directive(&s, &f->d);
	eol_convert(out, s.p, f->eol);
	free(s.p);
}

static void render_has_include(struct str *s, const struct kase *c)
{
	const char *name = c->has_angle ? "<f.h>" : "\"f.h\"";
	if (c->has_form == 0)
		add(s, "#if __has_include(%s)\n", name);
	else if (c->has_form == 1)
		add(s, "# /* c */ if __has_include(%s)\n", name);
	else
		add(s, "#if defined(__has_include) && \\\n __has_include(%s)\n", name);
	add(s, "acc = acc * 31u + 11u;\n#include %s\n#else\nacc = acc * 31u + 13u;\n#endif\n", name);
}

/* Source s (0, or 1 for CL2's second), with the case's end-of-lines. */
static char *render_source(const struct kase *c, int s)
{
	struct str t = { 0 }, out = { 0 };
	add(&t, "/* case %llu.%u%s */\n", (unsigned long long)c->seed, c->n, s ? " b" : "");
	if (c->mode == M_CL2 && s == 0)
		add(&t, "uint fa(void)\n{\nuint acc = 1u;\n");
	else if (c->mode == M_CL2)
		add(&t, "uint fa(void);\nkernel void k(global uint *out)\n{\nuint acc = 1u;\n");
	else
		add(&t, "kernel void k(global uint *out)\n{\nuint acc = 1u;\n");
	for (int i = 0; i < c->nsites[s]; i++)
		render_directive(&t, &c->sites[s][i]);
	if (c->has_site && s == 0)
		render_has_include(&t, c);
	if (c->mode == M_CL2 && s == 0)
		add(&t, "return acc;\n}\n");
	else if (c->mode == M_CL2)
		add(&t, "out[0] = acc * 1000003u + fa();\n}\n");
	else
		add(&t, "out[0] = acc;\n}\n");
	eol_convert(&out, t.p, c->eol);
	free(t.p);
	return out.p;
}

static void place_dir(const struct kase *c, int place, char *out, size_t size)
{
	const char *rel = place == P_W ? "w" : place == P_W2 ? "w2" : NULL;
	char sub[64];
	if (!rel) {
		snprintf(sub, sizeof sub, "%s/%s", place == P_W2I1 ? "w2" : place == P_I2 && c->i2_abs ? "." : "w",
			 place == P_I1 || place == P_W2I1 ? c->d1 : place == P_I1ALT ? c->d1alt : "i2");
		rel = sub;
	}
	if ((size_t)snprintf(out, size, "%s/%s", c->dir, rel) >= size)
		exit(3); /* the root's path is too long */
}

static char *options(const struct kase *c)
{
	struct str o = { 0 };
	char dir[PATH_MAX];
	if (c->has_i1) {
		if (c->i1_abs)
			place_dir(c, P_I1, dir, sizeof dir);
		else
			snprintf(dir, sizeof dir, "%s%s", c->i1_dot ? "./" : "", c->d1);
		add(&o, "-I%s%s", c->i1_joined ? "" : " ", dir);
	}
	if (c->has_i2) {
		if (c->i2_abs)
			place_dir(c, P_I2, dir, sizeof dir);
		else
			snprintf(dir, sizeof dir, "i2");
		add(&o, " -I%s%s", c->i2_joined ? "" : " ", dir);
	}
	if (c->defines.n)
		put(&o, c->defines.p, c->defines.n);
	if (!o.p)
		add(&o, "%s", "");
	return o.p;
}

/* What the case is made of, in words (c->what) and tags (c->tags). */
static void describe_layout(struct kase *c)
{
	char *opt = options(c);
	struct str *w = &c->what;
	add(w, "options [%s]; sources:", opt);
	free(opt);
	int forms[NFORMS] = { 0 }, next = 0, nested = 0, eols[3] = { 0 }, angle = 0;
	for (int s = 0; s < (c->mode == M_CL2 ? 2 : 1); s++)
		for (int i = 0; i < c->nsites[s]; i++) {
			const struct directive *d = &c->sites[s][i];
			add(w, " %s%s%s%s(%s)", d->angle ? "<" : "\"", names[d->name], d->angle ? ">" : "\"",
			    s ? "[b]" : "", form_tag[d->form]);
			forms[d->form] = 1;
			angle |= d->angle;
		}
	if (c->has_site)
		add(w, " __has_include(%sf.h%s)", c->has_angle ? "<" : "\"", c->has_angle ? ">" : "\"");
	add(w, "; files:");
	for (int i = 0; i < c->nfiles; i++) {
		const struct file *f = &c->files[i];
		if (!f->exists)
			continue;
		add(w, " %s/%s=%u", place_tag[f->place], names[f->name], f->value);
		eols[f->eol] = 1;
		if (f->eol != EOL_LF)
			add(w, "(%s)", eol_tag[f->eol]);
		if (f->nested) {
			add(w, "->%s%s(%s)", f->d.next ? "next:" : "", names[f->d.name], form_tag[f->d.form]);
			forms[f->d.form] = 1;
			angle |= f->d.angle;
			next |= f->d.next;
			nested |= !f->d.next;
		}
	}
	eols[c->eol] = 1;
	if (c->eol != EOL_LF)
		add(w, "; source ends lines with %s", eol_tag[c->eol]);
	for (int f = 0; f < NFORMS; f++)
		if (forms[f])
			tag(c, "form", form_tag[f]);
	if (angle)
		tag(c, "form", "angle");
	for (int e = EOL_CRLF; e <= EOL_CR; e++)
		if (eols[e])
			tag(c, "eol", eol_tag[e]);
	if (next)
		tag(c, "include_next", "yes");
	if (nested)
		tag(c, "nested", "yes");
	if (c->has_site)
		tag(c, "has_include", "yes");
}

/* What happens during and between the runs, in words and tags. */
static void describe_events(struct kase *c)
{
	struct str *w = &c->what;
	if (c->mode == M_CLH)
		add(w, "; embedded header x.h=%u", c->embedded_value);
	if (c->mid != MID_NONE) {
		const struct file *f = &c->files[c->mid_file];
		add(w, "; during the run, %s %s/%s%s%u %s", mid_tag[c->mid], place_tag[f->place],
		    names[f->name], c->mid == MID_DELETE ? "" : "=", c->mid == MID_DELETE ? 0 : c->mid_value,
		    c->mode == M_BUILD2 ? "between the builds"
		    : c->mode == M_CL2 && c->mid_after == 0 ? "between the compiles" : "before the link");
		add(&c->tags, " mid=%s-%s", mid_tag[c->mid],
		    c->mode == M_BUILD2 ? "between-builds" : c->mode == M_CL2 && c->mid_after == 0
			? "between-compiles" : "before-link");
	}
	if (c->mid_chdir)
		add(w, "; chdir to w2 before the link");
	if (c->edit != E_NONE) {
		add(w, "; between runs: %s", edit_tag[c->edit]);
		if (c->edit_file >= 0) {
			const struct file *f = &c->files[c->edit_file];
			add(w, " %s/%s", place_tag[f->place], names[f->name]);
			if (c->edit != E_DELETE)
				add(w, "=%u", c->edit_value);
			add(&c->tags, " edit=%s@%s", edit_tag[c->edit], place_tag[f->place]);
		} else {
			add(w, " (runs in w2)");
			tag(c, "edit", edit_tag[c->edit]);
		}
	}
	if (c->db_file >= 0) {
		const struct file *f = &c->files[c->db_file];
		add(w, "; during the cold build: %s/%s=%u", place_tag[f->place], names[f->name], c->db_value);
		tag(c, "during-build", place_tag[f->place]);
	}
}

/* --plain: the same case with every directive in the plainest form that
 * means the same (a comment, splice, form feed or digraph dropped, CR and
 * CRLF as LF): a difference that goes away is one of the forms. */
static int plain_form(int form)
{
	return form == F_MACRO_SRC_CMT || form == F_MACRO_SRC_SPLICE ? F_MACRO_SRC
		: form == F_DEAD_LINECMT ? F_DEAD_IF0
		: form >= F_MACRO_OPT ? form : F_PLAIN;
}

static void make_plain(struct kase *c)
{
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < c->nsites[s]; i++)
			c->sites[s][i].form = plain_form(c->sites[s][i].form);
	for (int i = 0; i < c->nfiles; i++) {
		c->files[i].d.form = plain_form(c->files[i].d.form);
		c->files[i].eol = EOL_LF;
	}
	c->eol = EOL_LF;
	c->has_form = 0;
}

static int plain;

static void make_case(struct kase *c, uint64_t seed, unsigned n, const char *root)
{
	generate(c, seed, n, root);
	c->has_angle = chance(&c->r, 30);
	c->has_form = (int)pick(&c->r, 3);
	generate_edits(c);
	if (plain)
		make_plain(c);
	describe_layout(c);
	describe_events(c);
}

/* ---- writing the tree ----------------------------------------------------------- */
static void mkdirs(const char *path)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void file_path(const struct kase *c, const struct file *f, char *out, size_t size)
{
	char dir[PATH_MAX];
	place_dir(c, f->place, dir, sizeof dir);
	if ((size_t)snprintf(out, size, "%s/%s", dir, names[f->name]) >= size)
		exit(3);
}

/* Write (or, value 0, delete) one file, its mtime the same fixed time as all. */
static void write_file(const struct kase *c, const struct file *f, unsigned value)
{
	char path[PATH_MAX];
	file_path(c, f, path, sizeof path);
	if (!value) {
		unlink(path);
		return;
	}
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	struct str s = { 0 };
	render_file(&s, f, value);
	char tmp[PATH_MAX + 8];
	snprintf(tmp, sizeof tmp, "%s.new", path);
	FILE *out = fopen(tmp, "wb");
	if (!out || fwrite(s.p, 1, s.n, out) != s.n || fclose(out) != 0) {
		perror(tmp);
		exit(3);
	}
	struct timespec times[2] = { { 1600000000, 0 }, { 1600000000, 0 } };
	utimensat(AT_FDCWD, tmp, times, 0);
	rename(tmp, path);
	free(s.p);
}

static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		struct stat st;
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(sub);
		else
			unlink(sub);
	}
	closedir(d);
	rmdir(path);
}

/* The case's tree as made (and, with_edit, with the edit between runs). */
static void write_tree(const struct kase *c, int with_edit)
{
	char dir[PATH_MAX];
	remove_tree(c->dir);
	static const int always[] = { P_W, P_W2 };
	for (unsigned i = 0; i < 2; i++) {
		place_dir(c, always[i], dir, sizeof dir);
		mkdirs(dir);
	}
	for (int p = P_I1; p <= P_W2I1; p++)
		if (place_ok(c, p)) {
			place_dir(c, p, dir, sizeof dir);
			mkdirs(dir);
		}
	for (int i = 0; i < c->nfiles; i++) {
		const struct file *f = &c->files[i];
		unsigned v = f->exists ? f->value : 0;
		if (with_edit && i == c->edit_file)
			v = c->edit == E_DELETE ? 0 : c->edit_value;
		if (v)
			write_file(c, f, v);
	}
}

static void mid_edit(const struct kase *c)
{
	if (c->mid != MID_NONE)
		write_file(c, &c->files[c->mid_file], c->mid == MID_DELETE ? 0 : c->mid_value);
}

/* ---- the edit during a build: a header replaced when it is first opened -------------- */
struct watch {
	int fd, stop[2];
	pthread_t thread;
	char target[PATH_MAX], replacement[PATH_MAX + 8];
	int fired;
};

static void *watch_thread(void *arg)
{
	struct watch *w = arg;
	struct pollfd p[2] = { { w->fd, POLLIN, 0 }, { w->stop[0], POLLIN, 0 } };
	while (poll(p, 2, -1) < 0 && errno == EINTR)
		;
	if (p[0].revents & POLLIN) {
		rename(w->replacement, w->target);
		w->fired = 1;
	}
	return NULL;
}

static int watch_start(struct watch *w, const struct kase *c)
{
	memset(w, 0, sizeof *w);
	w->fd = -1;
	if (c->db_file < 0)
		return 0;
	const struct file *f = &c->files[c->db_file];
	file_path(c, f, w->target, sizeof w->target);
	snprintf(w->replacement, sizeof w->replacement, "%s/db.new", c->dir);
	struct str s = { 0 };
	render_file(&s, f, c->db_value);
	FILE *out = fopen(w->replacement, "wb");
	if (!out || fwrite(s.p, 1, s.n, out) != s.n || fclose(out) != 0)
		exit(3);
	free(s.p);
	if ((w->fd = inotify_init1(IN_CLOEXEC)) < 0 || pipe2(w->stop, O_CLOEXEC) != 0 ||
	    inotify_add_watch(w->fd, w->target, IN_OPEN) < 0 ||
	    pthread_create(&w->thread, NULL, watch_thread, w) != 0) {
		perror("cl_diff: inotify");
		exit(3);
	}
	return 1;
}

static void watch_stop(struct watch *w)
{
	if (w->fd < 0)
		return;
	if (write(w->stop[1], "", 1) != 1)
		abort();
	pthread_join(w->thread, NULL);
	close(w->fd);
	close(w->stop[0]);
	close(w->stop[1]);
}

/* ---- OpenCL ---------------------------------------------------------------------- */
static cl_device_id device;
static cl_context context;
static int executes; /* kernels really run (PoCL) */

static void open_device(const char *want)
{
	cl_platform_id platforms[16];
	cl_uint n = 0;
	clGetPlatformIDs(16, platforms, &n);
	for (cl_uint i = 0; i < n; i++) {
		char name[256] = "";
		clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
		if (strstr(name, want) &&
		    clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) == CL_SUCCESS) {
			executes = strstr(name, "Portable") != NULL;
			context = clCreateContext(NULL, 1, &device, NULL, NULL, NULL);
			if (context)
				return;
		}
	}
	fprintf(stderr, "cl_diff: no platform matching '%s'\n", want);
	exit(2);
}

static cl_program from_source(const char *text)
{
	cl_int err;
	cl_program p = clCreateProgramWithSource(context, 1, &text, NULL, &err);
	if (!p) {
		fprintf(stderr, "cl_diff: clCreateProgramWithSource: %d\n", err);
		exit(3);
	}
	return p;
}

/* CL_DIFF_LOG=1: each failed step's build log on stderr (to study a case). */
static void show_log(cl_program p, cl_int err)
{
	size_t size = 0;
	char *log;
	if (err == CL_SUCCESS || !getenv("CL_DIFF_LOG") ||
	    clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS ||
	    !(log = calloc(1, size + 1)))
		return;
	clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
	fprintf(stderr, "cl_diff: error %d, build log:\n%s\n", err, log);
	free(log);
}

static uint64_t fnv1a(const void *data, size_t size, uint64_t h)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* What a built program gives: the value kernel k writes, or its binary's hash. */
static void outcome(struct str *r, cl_program p)
{
	if (!executes) {
		size_t size = 0;
		clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
		unsigned char *bin = malloc(size ? size : 1);
		cl_int err = clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
		add(r, " bin=%d:%zu:%016llx", err, size,
		    (unsigned long long)fnv1a(bin, size, 1469598103934665603ull));
		free(bin);
		return;
	}
	cl_int err;
	cl_uint value = 0;
	cl_kernel k = clCreateKernel(p, "k", &err);
	if (!k) {
		add(r, " kernel=%d", err);
		return;
	}
	cl_command_queue q = clCreateCommandQueueWithProperties(context, device, NULL, &err);
	cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof value, NULL, &err);
	size_t one = 1;
	clSetKernelArg(k, 0, sizeof m, &m);
	err = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof value, &value, 0, NULL, NULL);
	add(r, " run=%d value=%u", err, value);
	clReleaseMemObject(m);
	clReleaseCommandQueue(q);
	clReleaseKernel(k);
}

static void build_once(struct str *r, const struct kase *c, const char *opt, struct watch *w, int cold)
{
	char *src = render_source(c, 0);
	cl_program p = from_source(src);
	free(src);
	if (cold)
		watch_start(w, c);
	cl_int err = clBuildProgram(p, 1, &device, opt, NULL, NULL);
	if (cold)
		watch_stop(w);
	add(r, " build=%d", err);
	show_log(p, err);
	if (err == CL_SUCCESS)
		outcome(r, p);
	clReleaseProgram(p);
}

static void compile_link(struct str *r, const struct kase *c, const char *opt, struct watch *w,
			 int cold, const char *w2)
{
	int nsrc = c->mode == M_CL2 ? 2 : 1;
	cl_program objects[2], header = NULL;
	const char *header_name = names[N_X];
	if (c->mode == M_CLH) {
		char text[64];
		snprintf(text, sizeof text, "acc = acc * 31u + %uu;\n", c->embedded_value);
		header = from_source(text);
	}
	int ok = 1;
	for (int s = 0; s < nsrc; s++) {
		char *src = render_source(c, s);
		objects[s] = from_source(src);
		free(src);
		if (cold && s == 0)
			watch_start(w, c);
		cl_int err = clCompileProgram(objects[s], 1, &device, opt, header ? 1 : 0,
					      header ? &header : NULL, header ? &header_name : NULL,
					      NULL, NULL);
		if (cold && s == 0)
			watch_stop(w);
		add(r, " compile=%d", err);
		show_log(objects[s], err);
		ok &= err == CL_SUCCESS;
		if (s == c->mid_after)
			mid_edit(c);
	}
	if (c->mid_chdir && chdir(w2) != 0)
		exit(3);
	if (ok) {
		cl_int err;
		cl_program linked = clLinkProgram(context, 1, &device, NULL, (cl_uint)nsrc, objects,
						  NULL, NULL, &err);
		add(r, " link=%d", err);
		if (linked && err == CL_SUCCESS)
			outcome(r, linked);
		if (linked)
			clReleaseProgram(linked);
	}
	for (int s = 0; s < nsrc; s++)
		clReleaseProgram(objects[s]);
	if (header)
		clReleaseProgram(header);
}

enum phase { B1, B2, J1, J2, J3 };

static void run_case(struct str *r, const struct kase *c, int phase)
{
	int edited = phase == B2 || phase == J3, cold = phase == J1;
	if (edited && c->edit == E_NONE) {
		add(r, " no-edit"); /* nothing to run again */
		return;
	}
	write_tree(c, edited);
	char w[PATH_MAX], w2[PATH_MAX];
	place_dir(c, P_W, w, sizeof w);
	place_dir(c, P_W2, w2, sizeof w2);
	int other = edited && c->edit == E_CWD;
	if (chdir(other ? w2 : w) != 0)
		exit(3);
	char *opt = options(c);
	struct watch watch;
	memset(&watch, 0, sizeof watch);
	watch.fd = -1;
	switch (c->mode) {
	case M_BUILD:
		build_once(r, c, opt, &watch, cold);
		break;
	case M_BUILD2:
		build_once(r, c, opt, &watch, 0);
		mid_edit(c);
		build_once(r, c, opt, &watch, 0);
		break;
	default:
		compile_link(r, c, opt, &watch, cold, other ? w : w2);
		break;
	}
	if (watch.fired)
		add(r, " replaced-during-build");
	free(opt);
}

/* ---- the supervisor: each case in a child, a crash or a hang recorded ------------ */
struct args {
	const char *root, *platform, *only;
	uint64_t seed;
	unsigned first, count, drivers, driver;
	int phase, describe_only;
};

/* Is case n one of this run's: of its driver, and in the --only list? */
static int mine(const struct args *a, unsigned n)
{
	if (a->only) {
		const char *p = a->only;
		char *end;
		for (;;) {
			if (strtoul(p, &end, 10) == n && end != p)
				break;
			if (!*end)
				return 0;
			p = end + 1;
		}
	}
	return a->drivers <= 1 || n % a->drivers == a->driver;
}

static void worker(const struct args *a, unsigned from, int out)
{
	FILE *f = fdopen(out, "w");
	setvbuf(f, NULL, _IOLBF, 0);
	open_device(a->platform);
	for (unsigned n = from; n < a->first + a->count; n++) {
		if (!mine(a, n))
			continue;
		struct kase *c = calloc(1, sizeof *c);
		make_case(c, a->seed, n, a->root);
		fprintf(f, "S %u\n", n);
		struct str r = { 0 };
		run_case(&r, c, a->phase);
		fprintf(f, "R %u%s\n", n, r.p);
		free(r.p);
		free(c->tags.p);
		free(c->what.p);
		free(c->defines.p);
		free(c);
		if (chdir(a->root) != 0)
			exit(3);
	}
	fprintf(f, "E\n");
	fclose(f);
	clReleaseContext(context);
	exit(0);
}

/* Runs workers until every case has a result line; returns 0. */
static int supervise(const struct args *a)
{
	unsigned from = a->first;
	while (from < a->first + a->count) {
		int fds[2];
		if (pipe(fds) != 0)
			return 3;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			close(fds[0]);
			worker(a, from, fds[1]);
		}
		close(fds[1]);
		FILE *in = fdopen(fds[0], "r");
		char line[8192];
		long started = -1;
		int ended = 0;
		struct pollfd p = { fds[0], POLLIN, 0 };
		for (;;) {
			int ready = poll(&p, 1, 300 * 1000);
			if (ready == 0) {
				kill(pid, SIGKILL);
				break;
			}
			if (!fgets(line, sizeof line, in))
				break;
			if (line[0] == 'S')
				started = strtol(line + 2, NULL, 10);
			else if (line[0] == 'R') {
				fputs(line, stdout);
				started = -1;
			} else if (line[0] == 'E')
				ended = 1;
		}
		fclose(in);
		int status = 0;
		waitpid(pid, &status, 0);
		if (ended)
			break;
		if (started < 0) {
			fprintf(stderr, "cl_diff: a worker ended before its first case (status %d)\n",
				status);
			return 3;
		}
		printf("R %ld crash=%s%d\n", started, WIFSIGNALED(status) ? "signal" : "exit",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		from = (unsigned)started + 1;
	}
	fflush(stdout);
	return 0;
}

static int parse(struct args *a, int argc, char **argv)
{
	memset(a, 0, sizeof *a);
	a->platform = "Portable";
	a->root = ".";
	a->count = 1;
	a->phase = -1;
	for (int i = 1; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(k, "--describe") || !strcmp(k, "--plain")) {
			a->describe_only |= !strcmp(k, "--describe");
			plain |= !strcmp(k, "--plain");
			continue;
		}
		if (!v)
			return -1;
		i++;
		if (!strcmp(k, "--root"))
			a->root = v;
		else if (!strcmp(k, "--platform"))
			a->platform = v;
		else if (!strcmp(k, "--seed"))
			a->seed = strtoull(v, NULL, 10);
		else if (!strcmp(k, "--first"))
			a->first = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(k, "--count"))
			a->count = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(k, "--drivers"))
			a->drivers = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(k, "--only"))
			a->only = v;
		else if (!strcmp(k, "--only-driver"))
			a->driver = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(k, "--phase")) {
			static const char *const ph[] = { "B1", "B2", "J1", "J2", "J3" };
			for (int p = 0; p < 5; p++)
				if (!strcmp(v, ph[p]))
					a->phase = p;
		} else
			return -1;
	}
	return a->describe_only || a->phase >= 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct args a;
	if (parse(&a, argc, argv) != 0) {
		fprintf(stderr, "usage: cl_diff --describe --seed S --first A --count N [--only N,...] "
				"[--plain]\n"
				"       cl_diff --root DIR --seed S --first A --count N --phase "
				"B1|B2|J1|J2|J3 --platform NAME [--drivers K --only-driver D] "
				"[--only N,...] [--plain]\n");
		return 2;
	}
	char root[PATH_MAX];
	if (!realpath(a.root, root)) {
		perror(a.root);
		return 2;
	}
	a.root = root;
	if (a.describe_only) {
		for (unsigned n = a.first; n < a.first + a.count; n++) {
			if (a.only && !mine(&a, n))
				continue;
			struct kase *c = calloc(1, sizeof *c);
			make_case(c, a.seed, n, a.root);
			printf("D %u %s :: %s\n", n, c->tags.p, c->what.p);
			free(c->tags.p);
			free(c->what.p);
			free(c->defines.p);
			free(c);
		}
		return 0;
	}
	return supervise(&a);
}
