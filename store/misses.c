// SPDX-License-Identifier: MIT
/* misses.c — the ring of recent misses (misses.h). */
#include "store/misses.h"

#include "store/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096
#define RECORDS_AT PAGE
#define FILE_SIZE (RECORDS_AT + JC_MISS_RING * JC_MISS_RECORD)
#define VERSION 1
#define WAIT 0.5
_Static_assert(PAGE % JC_MISS_RECORD == 0, "a record never crosses a page");

static void misses_path(const char *dir, char path[PATH_MAX])
{
	snprintf(path, PATH_MAX, "%s/misses", dir);
}

static void fresh(uint8_t *buf)
{
	memcpy(buf, "jcmisses", 8);
	jc_put_le64(buf + 8, VERSION);
}

/* A new file in place (fsutil.h: jc_fs_put_record): 0 or -1. */
static int create(const char *dir, mode_t mode, int replace, int from)
{
	char path[PATH_MAX];
	misses_path(dir, path);
	return jc_fs_put_record(dir, path, FILE_SIZE, mode, replace, from, fresh) < 0 ? -1 : 0;
}

static int open_checked(const char *dir, int flags)
{
	char path[PATH_MAX];
	struct stat st;
	uint8_t head[16];
	misses_path(dir, path);
	int fd = jc_fs_open_file(AT_FDCWD, path, flags, 0);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != FILE_SIZE ||
	    pread(fd, head, 16, 0) != 16 || memcmp(head, "jcmisses", 8) != 0 ||
	    jc_get_le64(head + 8) != VERSION) {
		close(fd);
		errno = EBADMSG;
		return -1;
	}
	return fd;
}

static void done(int fd)
{
	jc_fs_unlock_range(fd, 0, 0);
	close(fd);
}

static void encode(const struct jc_miss *m, uint8_t rec[JC_MISS_RECORD])
{
	memset(rec, 0, JC_MISS_RECORD);
	jc_put_le64(rec, m->seq);
	jc_put_le64(rec + 8, (uint64_t)m->when_ns);
	jc_put_le64(rec + 16, (uint64_t)m->pid | (uint64_t)m->cause << 32 | (uint64_t)m->flags << 40 |
			      (uint64_t)m->trace_len << 48);
	memcpy(rec + 24, m->key.bytes, JC_KEY_BYTES);
	memcpy(rec + 40, m->program, sizeof m->program);
	memcpy(rec + 64, m->trace, m->trace_len);
}

static int decode(const uint8_t rec[JC_MISS_RECORD], struct jc_miss *m)
{
	uint64_t w = jc_get_le64(rec + 16);
	m->seq = jc_get_le64(rec);
	m->when_ns = (int64_t)jc_get_le64(rec + 8);
	m->pid = (uint32_t)w;
	m->cause = (uint8_t)(w >> 32);
	m->flags = (uint8_t)(w >> 40);
	m->trace_len = (size_t)(w >> 48);
	if (!m->seq || m->trace_len > JC_MISS_TRACE_MAX)
		return -1;
	memcpy(m->key.bytes, rec + 24, JC_KEY_BYTES);
	memcpy(m->program, rec + 40, sizeof m->program);
	m->program[sizeof m->program - 1] = '\0';
	memcpy(m->trace, rec + 64, m->trace_len);
	return 0;
}

int jc_misses_add(const char *dir, mode_t mode, struct jc_miss *m)
{
	uint8_t head[8], rec[JC_MISS_RECORD];
	int fd = open_checked(dir, O_RDWR);
	if (fd < 0 && (errno == ENOENT || errno == EBADMSG || errno == JC_ENOTREG) &&
	    create(dir, mode, errno != ENOENT, -1) == 0)
		fd = open_checked(dir, O_RDWR);
	if (fd < 0)
		return -1;
	/* Readable by others (before 2026-11): whoever opened it could hold
	 * its lock.  A private copy takes its place (as DIR/stats, stats.c). */
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_mode & 0007) && create(dir, mode, 1, fd) == 0) {
		close(fd);
		if ((fd = open_checked(dir, O_RDWR)) < 0)
			return -1;
	}
	if (jc_fs_lock_range(fd, F_WRLCK, 0, PAGE, WAIT) != 0 || pread(fd, head, 8, 16) != 8) {
		done(fd);
		return -1;
	}
	uint64_t n = jc_get_le64(head);
	m->seq = n + 1;
	if (m->trace_len > JC_MISS_TRACE_MAX)
		m->trace_len = 0;
	encode(m, rec);
	jc_put_le64(head, n + 1);
	int rc = pwrite(fd, rec, JC_MISS_RECORD, RECORDS_AT + (off_t)(n % JC_MISS_RING) * JC_MISS_RECORD) ==
			 JC_MISS_RECORD && pwrite(fd, head, 8, 16) == 8 ? 0 : -1;
	done(fd);
	return rc;
}

static int by_seq(const void *a, const void *b)
{
	const struct jc_miss *x = a, *y = b;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int jc_misses_read(const char *dir, struct jc_miss **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	int fd = open_checked(dir, O_RDONLY);
	if (fd < 0)
		return -1;
	/* Only the slots written so far: a ring not yet full (a new cache
	 * directory, as in a first run) is read as far as it goes, not 260 KiB
	 * on every miss that says its cause. */
	uint8_t head[8], *buf = NULL;
	struct jc_miss *v = NULL;
	size_t slots = 0;
	int rc = jc_fs_lock_range(fd, F_RDLCK, 0, PAGE, WAIT) == 0 && pread(fd, head, 8, 16) == 8 ? 0 : -1;
	if (rc == 0) {
		uint64_t written = jc_get_le64(head);
		slots = written < JC_MISS_RING ? (size_t)written : JC_MISS_RING;
		buf = malloc(slots * JC_MISS_RECORD + 1); /* + 1: never a request for */
		v = calloc(slots + 1, sizeof *v);         /* nothing, which may be NULL */
		rc = buf && v && pread(fd, buf, slots * JC_MISS_RECORD, RECORDS_AT) ==
					 (ssize_t)(slots * JC_MISS_RECORD) ? 0 : -1;
	}
	done(fd);
	for (size_t i = 0; rc == 0 && i < slots; i++)
		if (decode(buf + i * JC_MISS_RECORD, &v[*n]) == 0)
			(*n)++;
	free(buf);
	if (rc != 0) {
		free(v);
		*n = 0;
		return -1;
	}
	qsort(v, *n, sizeof *v, by_seq);
	*out = v;
	return 0;
}
