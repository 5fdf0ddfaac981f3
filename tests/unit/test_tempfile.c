// SPDX-License-Identifier: MIT
/* A file written whole or not at all (config/tempfile.h): put in place by
 * rename or link, and no temporary file left behind, whatever happened. */
#include "config/tempfile.h"
#include "tests/unit/check.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file's content (at most 63 bytes), or "" if none. */
static const char *content(const char *path)
{
	static char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

/* How many ".tmp.*" files dir holds. */
static int temps(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		n += strncmp(de->d_name, ".tmp.", 5) == 0;
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	char dir[] = "/tmp/jc-tempfile.XXXXXX", a[PATH_MAX], sub[PATH_MAX], tmp[PATH_MAX];
	CHECK(mkdtemp(dir) != NULL, "a directory to work in");
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(sub, sizeof sub, "%s/sub", dir);

	CHECK(jc_temp_put(AT_FDCWD, dir, "one", 3, 0600, a, JC_TEMP_RENAME) == 1 &&
	      !strcmp(content(a), "one"), "a new file put in place");
	CHECK(jc_temp_put(AT_FDCWD, dir, "two", 3, 0600, a, JC_TEMP_RENAME | JC_TEMP_SYNC) == 1 &&
	      !strcmp(content(a), "two"), "renamed over the old one (fsync'd first)");
	CHECK(jc_temp_put(AT_FDCWD, dir, "three", 5, 0600, a, JC_TEMP_LINK) == 0 &&
	      !strcmp(content(a), "two"), "linked: the file already there is kept");
	CHECK(jc_temp_put(AT_FDCWD, dir, "four", 4, 0600, a, JC_TEMP_LINK_OR_RENAME) == 0 &&
	      !strcmp(content(a), "two"), "linked or renamed: the file already there is kept");
	CHECK(mkdir(sub, 0700) == 0 && mkdir(strcat(strcpy(tmp, sub), "/x"), 0700) == 0,
	      "a directory in the way");
	CHECK(jc_temp_put(AT_FDCWD, dir, "five", 4, 0600, sub, JC_TEMP_RENAME) == -1,
	      "renamed over a directory that is not empty: fails");
	CHECK(temps(dir) == 0, "no temporary file left, put in place or not (%d)", temps(dir));

	int fd = jc_temp_open_beside(AT_FDCWD, a, 0600, tmp);
	CHECK(fd >= 0 && !strncmp(tmp, dir, strlen(dir)) && strstr(tmp, "/.tmp."),
	      "opened beside its target (%s)", tmp);
	jc_temp_discard(AT_FDCWD, fd, tmp);
	CHECK(temps(dir) == 0 && !strcmp(content(a), "two"), "discarded: gone, target untouched");

	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	fd = jc_temp_open(dfd, ".", 0600, tmp);
	CHECK(fd >= 0 && write(fd, "six", 3) == 3 &&
	      jc_temp_commit(dfd, fd, tmp, "b", JC_TEMP_RENAME) == 1,
	      "names relative to a directory held open");
	snprintf(a, sizeof a, "%s/b", dir);
	CHECK(!strcmp(content(a), "six") && temps(dir) == 0, "... put there, nothing left");
	close(dfd);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return check_summary();
}
