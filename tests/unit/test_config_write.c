// SPDX-License-Identifier: MIT
/* Unit tests of config/ini_write.c (`jitcache set`): one setting changed,
 * every other line kept, the file replaced whole or not at all. */
#include "config/ini_write.h"
#include "tests/unit/check.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[160];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	static char buf[1 << 17];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* How many files a directory holds: no temporary file may stay. */
static int files_in(const char *d)
{
	int n = 0;
	DIR *dd = opendir(d);
	for (struct dirent *e; dd && (e = readdir(dd));)
		n += e->d_name[0] != '.';
	if (dd)
		closedir(dd);
	return n;
}

/* set(path, section, name, value) on a file holding before: after? */
static int edits(const char *before, const char *section, const char *name, const char *value,
		 const char *after)
{
	char path[256];
	const char *why = NULL;
	snprintf(path, sizeof path, "%s/edit.ini", dir);
	write_file(path, before);
	int ok = jc_ini_set(path, section, name, value, &why) == 0 && !strcmp(read_file(path), after);
	if (!ok)
		printf("     got:\n%s\n     (%s)\n", read_file(path), why ? why : "");
	return ok;
}

static void test_edits(void)
{
	CHECK(edits("[cache]\nmax_size = 1G\n", "cache", "max_size", "20G", "[cache]\nmax_size = 20G\n"),
	      "the line replaced where it is");
	CHECK(edits("; mine\n[cache]\n# cap\nMax_Size=1G ; old\ncompress = 1\n\n[log]\nlevel = info\n",
		    "cache", "max_size", "20G",
		    "; mine\n[cache]\n# cap\nmax_size = 20G\ncompress = 1\n\n[log]\nlevel = info\n"),
	      "comments, blank lines and other settings kept; names ignore case");
	CHECK(edits("[cache]\ncompress = 1\n\n[log]\nlevel = info\n", "cache", "max_size", "2G",
		    "[cache]\ncompress = 1\nmax_size = 2G\n\n[log]\nlevel = info\n"),
	      "a new name goes after its section's last setting");
	CHECK(edits("[log]\nlevel = info\n", "remote", "url", "redis://h",
		    "[log]\nlevel = info\n\n[remote]\nurl = redis://h\n"),
	      "a new section goes at the end");
	CHECK(edits("[log]\nlevel = info", "log", "level", "debug", "[log]\nlevel = debug\n"),
	      "a file without its last newline");
	CHECK(edits("", "cache", "dir", "/x", "[cache]\ndir = /x\n"), "an empty file");
	CHECK(edits("[cache]\nmax_size = 1G\n[log]\nmax_size = 3G\n[cache]\nmax_size = 2G\n", "cache",
		    "max_size", "5G", "[cache]\nmax_size = 5G\n[log]\nmax_size = 3G\n[cache]\n"),
	      "a later line of the name in the section removed (it would win), another section's kept");
	CHECK(edits("[cache]\n", "cache", "max_size", "5G", "[cache]\nmax_size = 5G\n"),
	      "an empty section gets the line");
}

static void test_files(void)
{
	char path[256], sub[256], link[256];
	const char *why = NULL;
	snprintf(sub, sizeof sub, "%s/a/b", dir);
	snprintf(path, sizeof path, "%s/a/b/jitcache.ini", dir);
	CHECK(jc_ini_set(path, "cache", "max_size", "1G", &why) == 0 &&
	      !strcmp(read_file(path), "[cache]\nmax_size = 1G\n"),
	      "a missing file is made, with its directories");
	struct stat st;
	stat(sub, &st);
	CHECK((st.st_mode & 0777) == 0700, "... new directories 0700 (%o)", st.st_mode & 0777);
	stat(path, &st);
	CHECK((st.st_mode & 0777) == 0644, "... the file 0644 (%o)", st.st_mode & 0777);
	chmod(path, 0600);
	CHECK(jc_ini_set(path, "cache", "max_size", "2G", &why) == 0 && stat(path, &st) == 0 &&
	      (st.st_mode & 0777) == 0600, "an existing file keeps its mode");
	CHECK(files_in(sub) == 1, "no temporary file left (%d files)", files_in(sub));

	snprintf(link, sizeof link, "%s/link.ini", dir);
	symlink(path, link);
	CHECK(jc_ini_set(link, "log", "level", "info", &why) == 0 &&
	      lstat(link, &st) == 0 && S_ISLNK(st.st_mode) &&
	      strstr(read_file(path), "level = info"), "a symbolic link is followed, and stays");

	const char *bad[] = { "a\nb", " x", "x ", "redis://h ;comment", "x\t;y" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char before[4096];
		snprintf(before, sizeof before, "%s", read_file(path));
		why = NULL;
		CHECK(jc_ini_set(path, "cache", "dir", bad[i], &why) != 0 && why &&
		      !strcmp(read_file(path), before), "a value an ini line cannot hold is refused "
		      "(%s), the file unchanged", why ? why : "");
	}
	CHECK(jc_ini_value_ok("x;y", &why) && jc_ini_value_ok("", &why), "';' without a space is fine");

	char big[256], *text = malloc(70000);
	snprintf(big, sizeof big, "%s/big.ini", dir);
	memset(text, ';', 69999);
	text[69999] = '\0';
	write_file(big, text);
	free(text);
	why = NULL;
	CHECK(jc_ini_set(big, "cache", "dir", "/x", &why) != 0 && why && strstr(why, big),
	      "a file larger than settings may be: refused, naming it (%s)", why ? why : "");

	if (geteuid() != 0) {
		chmod(sub, 0500);
		CHECK(jc_ini_set(path, "cache", "max_size", "3G", &why) != 0 &&
		      strstr(read_file(path), "max_size = 2G") && files_in(sub) == 1,
		      "a directory that cannot be written: refused, the file unchanged (%s)", why);
		chmod(sub, 0700);
	}
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > 100)
		tmp = "/tmp";
	snprintf(dir, sizeof dir, "%s/jitcache-ini-write-test.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_edits();
	test_files();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_summary();
}
