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
};

static int collect(void *ctx, char kind, const char *name, size_t len)
{
	struct seen *s = ctx;
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
	s.n = 0;
	CHECK(jc_include_scan("#include \"open", 14, collect, &s) == 0 && s.n == 1 &&
	      s.got[0][0] == '?', "an unclosed name counts as unknown");
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
	CHECK(key_of("#include <top.h>\n", "-isystem inc", &k1) == -1,
	      "missing while -isystem adds a path jitcache does not search: not cached");
	CHECK(key_of("#include <top.h>\n", "-iquote inc", &k1) == -1, "-iquote too");
	setenv("CPATH", "inc", 1);
	CHECK(key_of("#include <top.h>\n", NULL, &k1) == -1, "missing while CPATH is set: not cached");
	unsetenv("CPATH");
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
	test_resolve();
	test_limits();
	test_small_stack();
	test_macro_include();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (chdir("/") != 0 || system(cmd) != 0)
		perror("cleaning up");
	return check_summary();
}
