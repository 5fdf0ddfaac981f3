// SPDX-License-Identifier: MIT
/* Unit tests of the remotes' back-off file (tiers/client.h): shared by the
 * processes of a cache directory, and only ever in that directory, as a
 * regular file.  The cases of issue 35: the directory's path, given as
 * /proc/self/fd/N, leads to the program's own directory once the program
 * put one of its own under N (item 8); a directory renamed and made again;
 * a FIFO planted under the file's name (item 3). */
#include "tiers/client.h"
#include "config/clock.h"
#include "config/log.h"
#include "store/fsutil.h"
#include "tests/unit/cache_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>

/* How many files named remote-*.down dir holds. */
static int down_files(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strncmp(e->d_name, "remote-", 7) == 0 && strstr(e->d_name, ".down") != NULL;
	if (d)
		closedir(d);
	return n;
}

/* The name of where's back-off file, as a failure writes it in a scratch
 * directory. */
static void down_name(const char *where, char out[256])
{
	char dir[256];
	struct jc_backoff b;
	DIR *d;
	struct dirent *e;
	snprintf(dir, 256, "%s/name-%s", test_root, where + 5);
	mkdir(dir, 0700);
	jc_backoff_init(&b, dir, where, 30);
	jc_backoff_start(&b);
	out[0] = '\0';
	for (d = opendir(dir); d && (e = readdir(d));)
		if (e->d_name[0] != '.')
			snprintf(out, 256, "%s", e->d_name);
	if (d)
		closedir(d);
}

static void test_shared(void)
{
	char dir[256];
	struct jc_backoff a, b;
	test_path(dir, "shared");
	mkdir(dir, 0700);
	jc_backoff_init(&a, dir, "http:x", 30);
	jc_backoff_init(&b, dir, "http:x", 30);
	CHECK(!jc_backoff_active(&a) && !jc_backoff_active(&b), "no back-off at first");
	jc_backoff_start(&a);
	CHECK(down_files(dir) == 1, "a failure writes one back-off file in the directory");
	CHECK(jc_backoff_active(&b), "another process of the directory takes the back-off");
}

static void test_reused_descriptor(void)
{
	char cache[256], program[256], held[64];
	struct jc_backoff b;
	test_path(cache, "cache");
	test_path(program, "program");
	mkdir(cache, 0700);
	mkdir(program, 0700);
	int fd = open(cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(held, sizeof held, "/proc/self/fd/%d", fd);
	jc_backoff_init(&b, held, "http:y", 30);
	/* the program closes the descriptor and puts its own directory there */
	int theirs = open(program, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dup2(theirs, fd);
	close(theirs);
	jc_backoff_start(&b);
	CHECK(down_files(program) == 0,
	      "a reused descriptor: no back-off file in the program's directory");
	CHECK(down_files(cache) == 0, "... nor anywhere else");
	CHECK(jc_backoff_active(&b), "... the back-off still holds in this process");
	char file[600], name[256];
	down_name("http:y", name);
	snprintf(file, sizeof file, "%s/%s", program, name);
	FILE *f = fopen(file, "w");
	if (f) {
		fprintf(f, "%lld\n", (long long)(jc_wall_ns() + 10000000000LL));
		fclose(f);
	}
	b.until = 0;
	CHECK(!jc_backoff_active(&b), "... and a file the program has there is not read");
	close(fd);
}

static void test_renamed(void)
{
	char dir[256], old[300];
	struct jc_backoff b;
	test_path(dir, "renamed");
	snprintf(old, sizeof old, "%s.old", dir);
	mkdir(dir, 0700);
	jc_backoff_init(&b, dir, "http:z", 30);
	rename(dir, old);
	mkdir(dir, 0700);
	jc_backoff_start(&b);
	CHECK(down_files(dir) == 0 && down_files(old) == 0,
	      "a directory renamed and made again: no back-off file in either");
}

static void test_fifo(void)
{
	char dir[256], fifo[600], name[256];
	struct jc_backoff b;
	test_path(dir, "fifo");
	mkdir(dir, 0700);
	jc_backoff_init(&b, dir, "http:f", 30);
	down_name("http:f", name);
	snprintf(fifo, sizeof fifo, "%s/%s", dir, name);
	mkfifo(fifo, 0600);
	double t0 = now_s();
	CHECK(!jc_backoff_active(&b), "a FIFO in place of the back-off file: no back-off");
	jc_backoff_start(&b);
	CHECK(now_s() - t0 < 1, "... read and written without blocking (%.3f s)", now_s() - t0);
	struct stat st;
	CHECK(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "... and left as it is");
}

__attribute__((format(printf, 4, 5)))
static void problem(int *told, const char *shown, const struct jc_backoff *down,
		    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	jc_remote_problem(told, shown, down, fmt, ap);
	va_end(ap);
}

/* A remote's problems, said once per flag (jc_log_first()), the back-off
 * they started said with them: what stderr shows. */
static void test_problem(void)
{
	char file[256], said[1024] = "";
	int told[2] = { 0, 0 };
	struct jc_backoff b;
	test_path(file, "stderr");
	jc_backoff_init(&b, NULL, "http:p", 7.5);
	int saved = dup(2), fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	dup2(fd, 2);
	problem(&told[0], "http://h/c", &b, "cannot connect (%s)", "refused");
	problem(&told[0], "http://h/c", &b, "cannot connect again");
	problem(&told[1], "http://h/c", NULL, "HTTP %d", 500);
	dup2(saved, 2);
	close(saved);
	ssize_t n = pread(fd, said, sizeof said - 1, 0);
	close(fd);
	said[n > 0 ? n : 0] = '\0';
	CHECK(!strcmp(said, "jitcache: remote http://h/c: cannot connect (refused); not using it "
			    "for 7.5 s (local cache only)\njitcache: remote http://h/c: HTTP 500\n"),
	      "one line per flag, the back-off with it:\n%s", said);
	int flag = 0;
	CHECK(jc_log_first(&flag) == 1 && flag && jc_log_first(&flag) == 0,
	      "jc_log_first: 1 the first time, 0 after");
}

int main(void)
{
	util_init();
	test_problem();
	test_shared();
	test_reused_descriptor();
	test_renamed();
	test_fifo();
	util_cleanup();
	return check_summary();
}
