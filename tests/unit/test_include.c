// SPDX-License-Identifier: MIT
/*
 * test_include — #include directives of OpenCL C sources, resolved as the
 * compiler resolves them and hashed into the build's key (key/include.c,
 * through key/cl_request.h as the OpenCL shim uses it).  Runs in a fresh
 * temporary directory.  The small-stack case failed before key/ existed:
 * the resolver kept 16 KB of path buffers on the stack per nesting level.
 */
#include "key/cl_request.h"
#include "key/include.h"
#include "tests/unit/check.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static int no_devices(void *ctx, struct jc_fp *fp)
{
	jc_fp_u64(fp, "device.count", 0);
	return 0;
}

/* The key of a build of `source` with `options`: 0 if cacheable. */
static int key_of(const char *source, const char *options, struct jc_key *key)
{
	struct jc_cl_input in;
	if (jc_cl_input_source(&in, 1, &source, NULL) != 0)
		return -2;
	int rc = jc_cl_key(&in, options, no_devices, NULL, key);
	jc_cl_input_free(&in);
	return rc;
}

static int same(const struct jc_key *a, const struct jc_key *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* ---- scanning ------------------------------------------------------------- */

struct seen {
	char got[8][64];
	int n;
	int pieces; /* collect the pieces of __has_include's name too */
};

static int collect(void *ctx, char kind, const char *name, size_t len)
{
	struct seen *s = ctx;
	if ((kind == '_' && !s->pieces) || kind == 'm' || kind == 'f')
		return 0;
	if (s->n < 8)
		snprintf(s->got[s->n++], 64, "%c%.*s", kind, (int)len, name);
	return 0;
}

static void test_scan(void)
{
	const char *text = "#include \"a.h\"\n  #  include\t<b/c.h>\n#include MACRO\n"
			   "#includes \"no.h\"\nint x; // #include \"not at line start\"\n"
			   "#include \"last.h\"";
	struct seen s = { .n = 0 };
	CHECK(jc_include_scan(text, strlen(text), collect, &s) == 0, "a text scans");
	CHECK(s.n == 4, "four directives found (%d)", s.n);
	CHECK(strcmp(s.got[0], "\"a.h") == 0 && strcmp(s.got[1], "<b/c.h") == 0 &&
	      strcmp(s.got[2], "?MACRO") == 0 && strcmp(s.got[3], "\"last.h") == 0,
	      "quoted, angled, through a macro, at the end without a newline");
	s = (struct seen){ .pieces = 1 };
	CHECK(jc_include_scan("int x, has, y, x;", 17, collect, &s) == 0 && s.n == 2 &&
		      strcmp(s.got[0], "_has") == 0 && strcmp(s.got[1], "_x") == 0,
	      "the pieces of __has_include's name, each once (%d: %s %s)", s.n, s.got[0], s.got[1]);
	s = (struct seen){ .n = 0 };
	CHECK(jc_include_scan("#include \"open", 14, collect, &s) == 0 && s.n == 1 &&
	      s.got[0][0] == '?', "an unclosed name counts as unknown");
}

/* The same text scanned again: its calls are kept from the first scan
 * that reached its end, and made again in the same order. */
static int stop_at(void *ctx, char kind, const char *name, size_t len)
{
	int *left = ctx;
	(void)kind, (void)name, (void)len;
	return --*left == 0 ? 7 : 0;
}

static void test_scan_again(void)
{
	const char *text = "#define A 1\n#include \"one.h\"\n#include <two.h>\n#undef A\n";
	int left = 2;
	CHECK(jc_include_scan(text, strlen(text), stop_at, &left) == 7 && left == 0,
	      "a scan stops at the first nonzero answer, and returns it");
	struct seen a = { .n = 0 }, b = { .n = 0 };
	CHECK(jc_include_scan(text, strlen(text), collect, &a) == 0 && a.n == 4 &&
		      strcmp(a.got[0], "dA") == 0 && strcmp(a.got[1], "\"one.h") == 0 &&
		      strcmp(a.got[2], "<two.h") == 0 && strcmp(a.got[3], "dA") == 0,
	      "after a scan that stopped early, the next sees every directive (%d)", a.n);
	CHECK(jc_include_scan(text, strlen(text), collect, &b) == 0 && b.n == a.n &&
		      memcmp(a.got, b.got, sizeof a.got) == 0,
	      "scanned again: the same calls, in the same order (%d)", b.n);
	left = 3;
	CHECK(jc_include_scan(text, strlen(text), stop_at, &left) == 7 && left == 0,
	      "scanned again, it still stops at the first nonzero answer");
	const char *other = "#define A 1\n#include \"own.h\"\n#include <two.h>\n#undef A\n";
	struct seen c = { .n = 0 };
	CHECK(strlen(other) == strlen(text) &&
		      jc_include_scan(other, strlen(other), collect, &c) == 0 && c.n == 4 &&
		      strcmp(c.got[1], "\"own.h") == 0,
	      "a text of the same size with other bytes: its own directives (%s)", c.got[1]);
}

/* ---- resolving ------------------------------------------------------------ */

static void test_resolve(void)
{
	struct jc_key k1, k2, k3;
	write_file("a.h", "#define A 1\n");
	CHECK(key_of("#include \"a.h\"\nkernel void k(){}", NULL, &k1) == 0,
	      "an include in the current directory is found");
	CHECK(key_of("#include \"a.h\"\nkernel void k(){}", NULL, &k2) == 0 && same(&k1, &k2),
	      "the same files give the same key");
	write_file("a.h", "#define A 2\n");
	CHECK(key_of("#include \"a.h\"\nkernel void k(){}", NULL, &k3) == 0 && !same(&k1, &k3),
	      "a changed header changes the key");
	/* A header scanned before (its calls kept, include.c) that now
	 * includes another file of the same name's length: that one is
	 * followed, and its own changes key. */
	write_file("x.h", "#define X 1\n");
	write_file("y.h", "#define Y 1\n");
	write_file("a.h", "#include \"x.h\"\n");
	CHECK(key_of("#include \"a.h\"\n", NULL, &k1) == 0 && key_of("#include \"a.h\"\n", NULL,
										&k2) == 0 && same(&k1, &k2),
	      "a header that includes another: the same key twice");
	write_file("a.h", "#include \"y.h\"\n");
	CHECK(key_of("#include \"a.h\"\n", NULL, &k2) == 0 && !same(&k1, &k2),
	      "the header now includes another file: another key");
	write_file("y.h", "#define Y 2\n");
	CHECK(key_of("#include \"a.h\"\n", NULL, &k3) == 0 && !same(&k2, &k3),
	      "and a change of that file changes the key");
	write_file("x.h", "#define X 2\n");
	CHECK(key_of("#include \"a.h\"\n", NULL, &k1) == 0 && same(&k1, &k3),
	      "the file it no longer includes does not");

	mkdir("inc", 0700);
	mkdir("inc dir", 0700);
	write_file("inc/top.h", "#include \"nested.h\"\n");
	write_file("inc/nested.h", "#define N 1\n");
	write_file("inc dir/spaced.h", "#define S 1\n");
	CHECK(key_of("#include <top.h>\n", "-I inc", &k1) == 0,
	      "-I dir: found, and what it includes beside it");
	CHECK(key_of("#include <top.h>\n", "-Iinc", &k2) == 0, "-Idir: found");
	write_file("inc/nested.h", "#define N 2\n");
	CHECK(key_of("#include <top.h>\n", "-I inc", &k2) == 0 && !same(&k1, &k2),
	      "a changed nested header changes the key");
	CHECK(key_of("#include <spaced.h>\n", "-cl-std=CL2.0 -I \"inc dir\"", &k1) == 0,
	      "a quoted -I directory with a space");
	/* Found nowhere: the compiler's own header, or not compiled: keyed by name. */
	CHECK(key_of("#include <top.h>\n", NULL, &k1) == 0, "not in any directory: keyed by name");
	CHECK(key_of("#include <elsewhere.h>\n", NULL, &k2) == 0 && !same(&k1, &k2),
	      "another missing name, another key");
	CHECK(key_of("#include \"top.h\"\n", NULL, &k2) == 0 && !same(&k1, &k2),
	      "\"name\" and <name> differ");
	CHECK(key_of("#include \"nowhere.h\"\n", NULL, &k1) == 0, "a missing file: keyed by name");
	write_file("nowhere.h", "#define W 1\n");
	CHECK(key_of("#include \"nowhere.h\"\n", NULL, &k2) == 0 && !same(&k1, &k2),
	      "the file appearing later changes the key");
	/* The other include paths are searched as -I ones (issue 44). */
	CHECK(key_of("#include <top.h>\n", "-isystem inc", &k1) == 0 &&
	      key_of("#include <top.h>\n", "-iquote inc", &k2) == 0,
	      "-isystem and -iquote directories: searched, keyed");
	setenv("CPATH", "/nowhere:inc", 1);
	CHECK(key_of("#include <top.h>\n", NULL, &k1) == 0, "CPATH's directories: searched, keyed");
	write_file("inc/nested.h", "#define N 3\n");
	CHECK(key_of("#include <top.h>\n", NULL, &k2) == 0 && !same(&k1, &k2),
	      "a file found through CPATH changes the key");
	unsetenv("CPATH");
	CHECK(key_of("#include <top.h>\n", "-iprefix inc/ -iwithprefix x", &k1) == -1,
	      "-iprefix: the compiler searches where jitcache does not: not cached");
	CHECK(key_of("#include HEADER\n", NULL, &k1) == -1, "an include through a macro: not cached");
	CHECK(key_of("#include \"inc\"\n", NULL, &k1) == 0, "a directory is not a header: by name");

	write_file("loop1.h", "#ifndef L1\n#define L1\n#include \"loop2.h\"\n#endif\n");
	write_file("loop2.h", "#ifndef L2\n#define L2\n#include \"loop1.h\"\n#endif\n");
	CHECK(key_of("#include \"loop1.h\"\n#include \"loop1.h\"\n", NULL, &k1) == 0,
	      "files that include each other, and repeats, are hashed once each");
}

/* A chain d0.h -> d1.h -> ... -> d{n-1}.h in directory `dir`. */
static void make_chain(const char *dir, int n)
{
	char path[256], text[256];
	mkdir(dir, 0700);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/d%d.h", dir, i);
		if (i + 1 < n)
			snprintf(text, sizeof text, "#include \"d%d.h\"\n", i + 1);
		else
			snprintf(text, sizeof text, "#define DEEPEST %d\n", i);
		write_file(path, text);
	}
}

static void test_limits(void)
{
	struct jc_key k;
	make_chain("deep", JC_INCLUDE_MAX_DEPTH);
	CHECK(key_of("#include <d0.h>\n", "-I deep", &k) == 0,
	      "%d nested includes: cached", JC_INCLUDE_MAX_DEPTH);
	make_chain("deeper", JC_INCLUDE_MAX_DEPTH + 1);
	CHECK(key_of("#include <d0.h>\n", "-I deeper", &k) == -1,
	      "%d nested includes: not cached", JC_INCLUDE_MAX_DEPTH + 1);

	/* Names and directories no path can hold: never truncated into
	 * another file's name, but not cached. */
	size_t long_len = PATH_MAX + 100;
	char *name = malloc(long_len + 16), *options = malloc(long_len + 16);
	memset(name, 'n', long_len);
	strcpy(name + long_len, ".h");
	char *source = malloc(long_len + 32);
	snprintf(source, long_len + 32, "#include \"%s\"\n", name);
	CHECK(key_of(source, NULL, &k) == -1, "a name longer than PATH_MAX: not cached");
	/* The whole option is the directory, never its first characters. */
	strcpy(options, "-I");
	memset(options + 2, 'd', long_len);
	options[long_len + 2] = '\0';
	CHECK(key_of("#include <a.h>\n", options, &k) == -1,
	      "an -I directory longer than PATH_MAX: not cached");
	free(name);
	free(options);
	free(source);
}

/* The resolver on a thread with a small stack: a host's threads may have
 * 64 KB (musl's default is 128 KB), and the stack used must not grow with
 * path lengths.  In a child process, so that a crash is a failed check. */
static void *deep_on_small_stack(void *arg)
{
	struct jc_key k;
	*(int *)arg = key_of("#include <d0.h>\n", "-I deep", &k);
	return NULL;
}

static void test_small_stack(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		pthread_attr_t attr;
		pthread_t t;
		int rc = -9;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		if (pthread_create(&t, &attr, deep_on_small_stack, &rc) != 0)
			_exit(2);
		pthread_join(t, NULL);
		_exit(rc == 0 ? 0 : 1);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%d nested includes resolved on a thread with a 64 KB stack (%s %d)",
	      JC_INCLUDE_MAX_DEPTH, WIFSIGNALED(status) ? "killed by signal" : "exit",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* hashcat's way: #include M2S(INCLUDE_PATH/file.h), the macros from -D. */
static void test_macro_include(void)
{
	static const char src[] = "#ifdef KERNEL_STATIC\n#include M2S(INCLUDE_PATH/m.h) // x\n#endif\n"
				  "kernel void k(){}";
	const char *opts = "-D KERNEL_STATIC -D INCLUDE_PATH=mdir -D XM2S(x)=#x -D M2S(x)=XM2S(x)";
	const char *opts2 = "-D KERNEL_STATIC -D INCLUDE_PATH=mdir2 -D XM2S(x)=#x -D M2S(x)=XM2S(x)";
	struct jc_key k1, k2, k3, k4;
	mkdir("mdir", 0700);
	mkdir("mdir2", 0700);
	write_file("mdir/m.h", "#define M 1\n");
	write_file("mdir2/m.h", "#define M 2\n");
	CHECK(key_of(src, opts, &k1) == 0, "an include through the options' macros is keyed");
	write_file("mdir/m.h", "#define M 3\n");
	CHECK(key_of(src, opts, &k2) == 0 && !same(&k1, &k2),
	      "the file it names changes the key");
	CHECK(key_of(src, opts2, &k3) == 0 && !same(&k2, &k3), "another INCLUDE_PATH: another key");
	CHECK(key_of(src, "-D INCLUDE_PATH=mdir -DXM2S(x)=#x -DM2S(x)=XM2S(x)", &k4) == 0,
	      "-DNAME as one token too");
	CHECK(key_of(src, NULL, &k4) == -1, "a macro the options do not define: not cached");
	CHECK(key_of(src, "-D INCLUDE_PATH=mdir -D XM2S(x)=#x -D M2S(x)=XM2S(x) -U M2S", &k4) == -1,
	      "one the options undefine again: not cached");
	CHECK(key_of("#define INCLUDE_PATH other\n#include M2S(INCLUDE_PATH/m.h)\n", opts, &k4) == -1,
	      "one the source defines itself: not cached");
	CHECK(key_of("#include M2S(INCLUDE_PATH/__OPENCL_VERSION__.h)\n", opts, &k4) == -1,
	      "a name the compiler may define: not cached");
}


/* ---- issue 44: every form of directive, every place a driver looks -------- */

/* The first directive jc_include_scan() reports for text (n bytes), as
 * "KIND NAME", or "" for none. */
static const char *first_directive(const char *text, size_t n, char out[64])
{
	struct seen s = { .n = 0 };
	jc_include_scan(text, n, collect, &s);
	for (int i = 0; i < s.n; i++)
		if (!strchr("d#_mf", s.got[i][0])) {
			snprintf(out, 64, "%s", s.got[i]);
			return out;
		}
	out[0] = '\0';
	return out;
}

static void test_scan_forms(void)
{
	static const struct {
		const char *text, *want;
	} forms[] = {
		{ "/* c */ #include \"a.h\"\n", "\"a.h" },
		{ "# /* c */ include \"a.h\"\n", "\"a.h" },
		{ "#include /* c */ <a.h> // c\n", "<a.h" },
		{ "#/*\n*/include \"a.h\"\n", "\"a.h" },
		{ "#include \\\n \"a.h\"\n", "\"a.h" },
		{ "#inc\\\nlude \"a.h\"\n", "\"a.h" },
		{ "#inc\\  \r\nlude \"a.h\"\n", "\"a.h" },
		{ "\f\v #include \"a.h\"\n", "\"a.h" },
		{ "int x;\r#include \"a.h\"\r", "\"a.h" },
		{ "int x;\r\n#\tinclude\f\"a.h\"\r\n", "\"a.h" },
		{ "%:include <a.h>\n", "<a.h" },
		{ "%: include_next <a.h>\n", "<a.h" },
		{ "#include_next \"a.h\"\n", "\"a.h" },
		{ "#import \"a.h\"\n", "\"a.h" },
		{ "#include <a//b.h>\n", "<a//b.h" },
		{ "#include <a/*b*/c.h>\n", "<a/*b*/c.h" },
		{ "#if __has_include(\"a.h\")\n#endif\n", "\"a.h" },
		{ "#if 1 && __has_include_next ( <a.h> )\n#endif\n", "<a.h" },
		{ "#if __has_include(<a//b.h>)\n#endif\n", "<a//b.h" },
		{ "#if __has_include(X)\n#endif\n", "!__has_include without a literal name" },
		{ "#define H __has_include\n", "!__has_include without a literal name" },
		{ "#if __has_embed(\"a.h\")\n#endif\n", "!__has_embed" },
		{ "#embed \"a.h\"\n", "!an #embed directive" },
		{ "# /**/ embed <a.h>\n", "!an #embed directive" },
		{ "#pragma GCC dependency \"a.h\"\n", "!a #pragma that may read a file" },
		{ "_Pragma(\"GCC dependency \\\"a.h\\\"\")\n", "!a _Pragma that may read a file" },
		{ "?\?=include \"a.h\"\n", "!a trigraph" },
		{ "#define C(a, b) a##b\n#if C(__has_, include)(\"a.h\")\n#endif\n",
		  "!a part of __has_include's name" },
	};
	char got[64];
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		first_directive(forms[i].text, strlen(forms[i].text), got);
		CHECK(!strcmp(got, forms[i].want), "form %zu found as %s (%s)", i, forms[i].want, got);
	}
	/* Not directives: in a comment, a string, or after code on a line. */
	static const char *const none[] = {
		"/*\n#include \"a.h\"\n*/\n",
		"// x \\\n#include \"a.h\"\n",
		"int x; /*\n*/ #include \"a.h\"\n",
		"#if defined(__has_include) || defined __has_include_next\n#endif\n"
		"#ifdef __has_include\n#endif\n",
		"char *s = \"__has_include(\";\nchar c = '\"'; // #include \"a.h\"\n",
		"#define CAT(a, b) a##b\nint CAT(x, y);\n",
	};
	for (size_t i = 0; i < sizeof none / sizeof *none; i++)
		CHECK(!*first_directive(none[i], strlen(none[i]), got), "text %zu: no directive (%s)",
		      i, got);
}

/* The key of `source` with `options` changes when `file` is rewritten. */
static int keyed(const char *source, const char *options, const char *file)
{
	struct jc_key k1, k2;
	static int n;
	char text[64];
	snprintf(text, sizeof text, "#define EDIT %d\n", ++n);
	write_file(file, text);
	if (key_of(source, options, &k1) != 0)
		return 0;
	snprintf(text, sizeof text, "#define EDIT %d\n", ++n);
	write_file(file, text);
	return key_of(source, options, &k2) == 0 && !same(&k1, &k2);
}

static void test_forms_keyed(void)
{
	static const char *const sources[] = {
		"/* c */ #include \"f.h\"\n", "# /* c */ include \"f.h\"\n",
		"#include /* c */ \"f.h\"\n", "#include \\\n \"f.h\"\n", "#inc\\\nlude \"f.h\"\n",
		"\f#include \"f.h\"\n", "int x;\r#include \"f.h\"\r\n", "%:include \"f.h\"\n",
		"#include_next \"f.h\"\n", "#import <f.h>\n",
	};
	for (size_t i = 0; i < sizeof sources / sizeof *sources; i++)
		CHECK(keyed(sources[i], NULL, "f.h"), "include form %zu: the header is keyed", i);
	struct jc_key k;
	CHECK(key_of("#embed \"f.h\"\n", NULL, &k) == -1 &&
	      key_of("?\?=include \"f.h\"\n", NULL, &k) == -1,
	      "#embed, a trigraph: not cached");
}

static void test_has_include(void)
{
	static const char src[] = "#if __has_include(\"h1.h\")\n#define V 2\n#endif\n";
	struct jc_key k1, k2, k3;
	unlink("h1.h");
	CHECK(key_of(src, NULL, &k1) == 0, "__has_include(\"x\"): cached");
	write_file("h1.h", "\n");
	CHECK(key_of(src, NULL, &k2) == 0 && !same(&k1, &k2), "the file appearing changes the key");
	write_file("h1.h", "#define H 1\n");
	CHECK(key_of(src, NULL, &k3) == 0 && !same(&k2, &k3), "and its contents");
	mkdir("hd", 0700);
	CHECK(key_of("#if __has_include_next(<h2.h>)\n#endif\n", "-I hd", &k1) == 0,
	      "__has_include_next(<x>)");
	write_file("hd/h2.h", "\n");
	CHECK(key_of("#if __has_include_next(<h2.h>)\n#endif\n", "-I hd", &k2) == 0 && !same(&k1, &k2),
	      "the file appearing in an -I directory changes the key");
	CHECK(key_of("#define N \"h1.h\"\n#if __has_include(N)\n#endif\n", NULL, &k1) == -1,
	      "__has_include through a macro: not cached");
	CHECK(key_of("#if HI(\"h1.h\")\n#endif\n", "-D HI=__has_include", &k1) == -1,
	      "__has_include from the options' macros: not cached");
	CHECK(key_of("#define C(a, b) a##b\n#if C(__has_, include)(\"h1.h\")\n#endif\n", NULL, &k1) == -1,
	      "__has_include pasted together: not cached");
	CHECK(key_of("#define C(a, b) a##b\n#if C(P, _include)(\"h1.h\")\n#endif\n", "-DP=__has",
		     &k1) == -1,
	      "pasted with a piece from the options: not cached");
	CHECK(key_of("#define C(a, b) a##b\nkernel void C(k, 1)(){}\n", NULL, &k1) == 0,
	      "pasting alone: cached");
	CHECK(key_of("#define C(a, b, c) a##b##c\n#if C(_, _has, _include)(\"h1.h\")\n#endif\n", NULL,
		     &k1) == -1,
	      "__has_include pasted from one-character pieces on: not cached");
	CHECK(key_of("#define C(a, b) a##b\n#if C(__, has_include)(\"h1.h\")\n#endif\n", NULL, &k1) == -1,
	      "... from two-character pieces on: not cached");
	CHECK(key_of("#define C(a, b) a##b\n#define D(a, b) C(a, b)\n"
		     "#if D(X, has_include)(\"h1.h\")\n#endif\n", "-DX=__", &k1) == -1,
	      "... the first piece from the options: not cached");
	write_file("piece.h", "#define X __\n");
	CHECK(key_of("#include \"piece.h\"\n#define C(a, b) a##b\n#define D(a, b) C(a, b)\n"
		     "#if D(X, has_include)(\"h1.h\")\n#endif\n", NULL, &k1) == -1,
	      "... a piece from a header: not cached");
	CHECK(key_of("#define C(a, b) a##b\n#define CAT3(a, b, c) a##b##c\n"
		     "kernel void C(k, _)(){}\nkernel void CAT3(__, k, 1)(){}\nint inc, x;\n", NULL,
		     &k1) == 0,
	      "pasting beside _ and __ and some pieces, but not all of the name's: cached "
	      "(OpenVINO's kernels)");
	CHECK(key_of("#define C(a, b) a##b\n#define TWO 2\nint h, a, s, _, i, n, c, l, u, d, e;\n"
		     "kernel void C(__, k)(){}\n#if TWO > 1 && defined(C)\n#endif\n", NULL, &k1) == 0,
	      "... every letter of it there, but no #if reaches a paste: cached");
	CHECK(key_of("#define C(a, b) a##b\n#define V C(x, y)\n#define W V\n"
		     "int h, a, s, _, i, n, c, l, u, d, e;\n#if W\n#endif\n", NULL, &k1) == -1,
	      "... every letter there, an #if reaching a paste through two macros: not cached");
	CHECK(key_of("#define C(a, b) a##b\nint h, a, s, _, i, n, c, l, u, d, e;\n"
		     "#if UNSEEN(1)\n#endif\n", NULL, &k1) == -1,
	      "... an #if calling a macro no text defines (the compiler's?): not cached");
	CHECK(key_of("#define C(a, b) a##b\nint has, inc, next, lude;\n"
		     "kernel void C(k, 1)(){}\n#if INC_NEXT\n#endif\n", NULL, &k1) == 0,
	      "pasting beside words that are parts of the name, but no prefix of it: cached "
	      "(oneDNN's kernels)");
}

static void test_search_order(void)
{
	mkdir("od", 0700);
	write_file("od/x.h", "#define X 1\n");
	CHECK(keyed("#include \"x.h\"\n", "-I od", "x.h"),
	      "#include \"x.h\" with ./x.h and -I od/x.h: ./x.h is keyed");
	mkdir("od2", 0700);
	CHECK(keyed("#include <y.h>\n", "-Iod -I od2", "od2/y.h"),
	      "-Iod (joined) then -I od2: the second directory's file is keyed");
	CHECK(keyed("#include <y.h>\n", "-Iod -Iod2", "od2/y.h"),
	      "-Iod then -Iod2, both joined: the second directory's file is keyed");
	CHECK(keyed("#include <x.h>\n", "-I od", "x.h"),
	      "#include <x.h> with ./x.h and -I od/x.h: ./x.h is keyed (PoCL reads it)");
	CHECK(keyed("#include INC\n", "-I od -DINC=<x.h>", "x.h"),
	      "-DINC=<x.h>: ./x.h is keyed");
	CHECK(keyed("#include \"x.h\"\n", "-I od", "od/x.h"), "and -I od/x.h too");
	write_file("od/top.h", "#include <y.h>\n");
	write_file("od/y.h", "#define Y 1\n");
	CHECK(keyed("#include <top.h>\n", "-I od", "y.h"),
	      "a nested include: ./y.h keyed beside od/y.h");
	CHECK(keyed("#include <top.h>\n", "-I od", "od/y.h"), "and od/y.h");
	mkdir("q'x", 0700);
	CHECK(keyed("#include <qh.h>\n", "-I q'x", "q'x/qh.h"),
	      "-I q'x (PoCL takes the quote as it is): q'x/qh.h keyed");
	mkdir("qx", 0700);
	CHECK(keyed("#include <qh.h>\n", "-I q'x", "qx/qh.h"), "and qx/qh.h (a shell's split)");
	CHECK(keyed("kernel void k(){}\n", "-include fi.h", "fi.h"), "-include FILE: keyed");
	struct jc_key k;
	CHECK(key_of("#include INC\n", "-I od \"-DINC=<x.h>\"", &k) == -1,
	      "the two ways to split the options define INC differently: not cached");
}

static void test_source_defines(void)
{
	struct jc_key k;
	write_file("x.h", "#define X 1\n");
	write_file("y.h", "#define Y 1\n");
	CHECK(key_of("/* c */ #define INC <y.h>\n#include INC\n", "-DINC=<x.h>", &k) == -1,
	      "INC redefined after a comment: not cached");
	CHECK(key_of("#def\\\nine INC <y.h>\n#include INC\n", "-DINC=<x.h>", &k) == -1,
	      "INC redefined across a backslash-newline: not cached");
	CHECK(key_of("%:undef INC\n#include INC\n", "-DINC=<x.h>", &k) == -1,
	      "INC undefined with %%:undef: not cached");
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/jc-test-include.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || chdir(dir) != 0) {
		perror("temporary directory");
		return 1;
	}
	test_scan();
	test_scan_again();
	test_resolve();
	test_limits();
	test_small_stack();
	test_macro_include();
	test_scan_forms();
	test_forms_keyed();
	test_has_include();
	test_search_order();
	test_source_defines();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (chdir("/") != 0 || system(cmd) != 0)
		perror("cleaning up");
	return check_summary();
}
