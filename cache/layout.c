/* layout.c — where a cache's files are, and reading or removing one entry
 * file: what every other file of cache/ builds on (see internal.h). */
#include "cache/internal.h"

#include "cache/fsutil.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void jc_key_hex(const struct jc_key *key, char out[2 * JC_KEY_BYTES + 1])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < JC_KEY_BYTES; i++) {
		out[2 * i] = digits[key->bytes[i] >> 4];
		out[2 * i + 1] = digits[key->bytes[i] & 15];
	}
	out[2 * JC_KEY_BYTES] = '\0';
}

void jc_subdir_path(const struct jc_cache *c, int sub, char path[PATH_MAX])
{
	snprintf(path, PATH_MAX, "%s/%02x", c->dir, sub);
}

void jc_file_path(const struct jc_cache *c, int sub, const char *name, char path[PATH_MAX])
{
	snprintf(path, PATH_MAX, "%s/%02x/%s", c->dir, sub, name);
}

void jc_file_id_of(const struct stat *st, struct jc_file_id *id)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->mtime_ns = jc_fs_mtime_ns(st);
}

/* A plain payload this large is mapped instead of read.  Reading copies it
 * into fresh heap memory, which costs a page fault per page on the first
 * hit of a process: 7-10 ms for an 8 MB module on a 2-core VM, where
 * mapping the page cache costs well under 1 ms (the checksum's pass faults
 * the pages in, 16 at a time).  Not MAP_POPULATE: measured 0.8-2 ms slower
 * end to end.  Small payloads are cheaper to read than to map and unmap. */
#define JC_MAP_MIN (64 * 1024)

/* Hand out the payload of a plain entry as a read-only mapping of its file:
 * 0 with *status set (OK, or CORRUPT on a checksum mismatch), or -1 when
 * the file cannot be mapped and should be read instead.  Entry files are
 * written once and renamed into place, never rewritten or truncated, so
 * the mapping stays whole while the caller uses it, even if the entry is
 * evicted or replaced meanwhile (the name goes, the file stays until
 * unmapped).  Only someone else writing or truncating the file in place
 * during a hit could change the pages after their checksum or take them
 * away (SIGBUS): the price of not copying, as for any mapped cache. */
static int map_entry(int fd, const uint8_t raw[JC_ENTRY_HEADER_SIZE],
		     const struct jc_entry_header *h, uint64_t file_size, struct jc_entry *out,
		     enum jc_entry_status *status, const char **why)
{
	if (file_size > SIZE_MAX)
		return -1;
	uint8_t *map = mmap(NULL, (size_t)file_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	uint8_t *payload = map + JC_ENTRY_HEADER_SIZE;
	if (jc_entry_checksum(raw, payload, h->stored_size) != h->checksum) {
		munmap(map, (size_t)file_size);
		*why = "checksum mismatch";
		*status = JC_ENTRY_CORRUPT;
		return 0;
	}
	out->data = payload;
	out->size = h->data_size;
	out->compile_ns = h->compile_ns;
	out->map = map;
	out->map_size = (size_t)file_size;
	*status = JC_ENTRY_OK;
	return 0;
}

enum jc_entry_status jc_read_entry(int fd, const struct jc_key *key, uint64_t limit,
				   struct jc_entry *out, const char **why)
{
	uint8_t raw[JC_ENTRY_HEADER_SIZE] = { 0 };
	struct jc_entry_header h;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "not a readable regular file";
		return JC_ENTRY_UNREADABLE;
	}
	uint64_t size = (uint64_t)st.st_size;
	if (size >= JC_ENTRY_HEADER_SIZE && jc_fs_read_all(fd, raw, sizeof raw) != 0) {
		*why = strerror(errno);
		return JC_ENTRY_UNREADABLE;
	}
	enum jc_entry_status status = jc_entry_check_header(raw, size, key, &h, why);
	if (status == JC_ENTRY_OK)
		status = jc_entry_check_limit(&h, limit, why);
	if (status != JC_ENTRY_OK)
		return status;
	if (!(h.flags & JC_ENTRY_ZSTD) && h.stored_size >= JC_MAP_MIN &&
	    map_entry(fd, raw, &h, size, out, &status, why) == 0)
		return status;
	void *stored = malloc(h.stored_size ? h.stored_size : 1);
	if (!stored) {
		*why = "out of memory";
		return JC_ENTRY_UNREADABLE;
	}
	if (jc_fs_read_all(fd, stored, h.stored_size) != 0) {
		int eof = errno == EIO;
		*why = eof ? "file ends early" : strerror(errno);
		free(stored);
		return eof ? JC_ENTRY_CORRUPT : JC_ENTRY_UNREADABLE;
	}
	return jc_entry_finish(raw, &h, stored, out, why);
}

int jc_remove_entry(struct jc_cache *c, int sub, const char *name,
		    const struct jc_file_id *expect)
{
	char path[PATH_MAX];
	struct jc_usage u;
	struct stat st;
	struct jc_file_id now;
	jc_file_path(c, sub, name, path);
	int lock = jc_usage_lock(c->dir, sub, &u); /* without it, remove anyway */
	int rc = lstat(path, &st);
	if (rc == 0) {
		jc_file_id_of(&st, &now);
		if (expect && (expect->dev != now.dev || expect->ino != now.ino ||
			       expect->mtime_ns != now.mtime_ns))
			rc = -1; /* replaced or used since: not ours to remove */
		else
			rc = unlink(path);
	}
	if (lock >= 0 && rc == 0) {
		u.size = jc_sub_sat(u.size, (uint64_t)st.st_size);
		u.count = jc_sub_sat(u.count, 1);
		if (u.count == 0)
			u.size = 0, u.oldest_ns = 0;
		jc_usage_commit(lock, sub, &u);
	} else if (lock >= 0) {
		jc_usage_release(lock);
	}
	return rc;
}

void jc_entry_free(struct jc_entry *entry)
{
	if (entry->map)
		munmap(entry->map, entry->map_size);
	else
		free(entry->data);
	entry->data = entry->map = NULL;
	entry->size = entry->map_size = 0;
}
