/* The spool directory of a program's helper (see spool.h). */
#include "cache/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REQUEST ".recipe" /* the end of a request's name */

#ifndef JC_LIBEXECDIR
#define JC_LIBEXECDIR "/usr/local/libexec/jitcache"
#endif

int jc_spool_helper(const char *library, char real[PATH_MAX], char out[PATH_MAX])
{
	const char *env = getenv("JITCACHE_REPLAY");
	if (!library || !realpath(library, real))
		return -1;
	if (env && *env) {
		snprintf(out, PATH_MAX, "%s", env);
		return access(out, X_OK);
	}
	int dir = (int)(strrchr(real, '/') - real); /* a real path has one */
	const char *where[] = { "jitcache-replay", "../libexec/jitcache-replay",
				"../libexec/jitcache/jitcache-replay" };
	for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
		snprintf(out, PATH_MAX, "%.*s/%s", dir, real, where[i]);
		if (access(out, X_OK) == 0)
			return 0;
	}
	snprintf(out, PATH_MAX, "%s/jitcache-replay", JC_LIBEXECDIR);
	return access(out, X_OK);
}

int jc_spool_make(struct jc_spool *s)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(s->dir, sizeof s->dir, "%s/jitcache-spool.XXXXXX",
			 tmp && *tmp == '/' ? tmp : "/tmp");
	s->serial = 0;
	if (n <= 0 || (size_t)n >= sizeof s->dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(s->dir) ? 0 : -1;
}

int jc_spool_put(struct jc_spool *s, const void *bytes, size_t size)
{
	char tmp[PATH_MAX], name[PATH_MAX];
	unsigned long n = __atomic_add_fetch(&s->serial, 1, __ATOMIC_RELAXED);
	snprintf(tmp, sizeof tmp, "%s/.%ld-%lu", s->dir, (long)getpid(), n);
	snprintf(name, sizeof name, "%s/%ld-%012lu" REQUEST, s->dir, (long)getpid(), n);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == ENOENT ? -2 : -1;
	const char *p = bytes;
	size_t left = size;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		left -= (size_t)w;
	}
	if (close(fd) != 0 || left || rename(tmp, name) != 0) {
		int gone = errno == ENOENT;
		unlink(tmp);
		return gone ? -2 : -1;
	}
	return 0;
}

void jc_spool_unput(struct jc_spool *s)
{
	char name[PATH_MAX];
	snprintf(name, sizeof name, "%s/%ld-%012lu" REQUEST, s->dir, (long)getpid(),
		 __atomic_load_n(&s->serial, __ATOMIC_RELAXED));
	unlink(name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the requests in d, sorted; *n of them (NULL if none). */
static char **requests(DIR *d, size_t *n)
{
	char **names = NULL, **grown;
	struct dirent *e;
	*n = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < sizeof REQUEST ||
		    strcmp(e->d_name + len - (sizeof REQUEST - 1), REQUEST) != 0 ||
		    !(grown = realloc(names, (*n + 1) * sizeof *names)))
			continue;
		names = grown;
		if ((names[*n] = strdup(e->d_name)))
			(*n)++;
	}
	if (*n)
		qsort(names, *n, sizeof *names, by_name);
	return names;
}

int jc_spool_take(const char *dir, void (*fn)(void *ctx, const void *bytes, size_t size),
		  void *ctx)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n;
	char **names = requests(d, &n);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int fd = openat(dirfd(d), names[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		void *bytes = NULL;
		int whole = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			    st.st_size < (1 << 30) && (bytes = malloc((size_t)st.st_size + 1)) &&
			    read(fd, bytes, (size_t)st.st_size) == st.st_size;
		unlinkat(dirfd(d), names[i], 0);
		if (whole)
			fn(ctx, bytes, (size_t)st.st_size);
		free(bytes);
		if (fd >= 0)
			close(fd);
		free(names[i]);
	}
	free(names);
	closedir(d);
	return (int)n;
}

void jc_spool_remove(const struct jc_spool *s)
{
	rmdir(s->dir);
}
