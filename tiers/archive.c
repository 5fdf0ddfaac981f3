// SPDX-License-Identifier: MIT
/* archive.c — tar (ustar) members in zstd frames: the writer and the reader
 * behind jc_cache_export() and jc_cache_import() (cache/transfer.c). */
#include "tiers/archive.h"

#include "store/fsutil.h"
#include "config/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define BLOCK 512
#define ZSTD_LEVEL 3
#define ZSTD_MAGIC 0xFD2FB528u /* a frame's first 4 bytes, little-endian */

/* Where the ustar header fields are. */
enum { NAME = 0, MODE = 100, UID = 108, GID = 116, SIZE = 124, MTIME = 136, CHKSUM = 148,
       TYPE = 156, MAGIC = 257, VERSION = 263, PREFIX = 345 };

static void say(FILE *msgs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(FILE *msgs, const char *fmt, ...)
{
	va_list ap;
	if (!msgs)
		return;
	va_start(ap, fmt);
	vfprintf(msgs, fmt, ap);
	va_end(ap);
	fputc('\n', msgs);
}

/* ---- tar headers ------------------------------------------------------------ */

static void put_octal(uint8_t *field, size_t width, uint64_t v)
{
	/* width-1 digits and a NUL, as ustar wants */
	for (size_t i = width - 1; i-- > 0; v >>= 3)
		field[i] = (uint8_t)('0' + (v & 7));
	field[width - 1] = '\0';
}

static unsigned header_sum(const uint8_t h[BLOCK])
{
	unsigned sum = 0;
	for (int i = 0; i < BLOCK; i++)
		sum += i >= CHKSUM && i < CHKSUM + 8 ? ' ' : h[i];
	return sum;
}

static void make_header(uint8_t h[BLOCK], const char *name, int64_t mtime_s, uint64_t size,
			int is_dir)
{
	memset(h, 0, BLOCK);
	snprintf((char *)h + NAME, 100, "%s%s", name, is_dir ? "/" : "");
	put_octal(h + MODE, 8, is_dir ? 0755 : 0644);
	put_octal(h + UID, 8, 0);
	put_octal(h + GID, 8, 0);
	put_octal(h + SIZE, 12, size);
	put_octal(h + MTIME, 12, mtime_s > 0 ? (uint64_t)mtime_s : 0);
	h[TYPE] = is_dir ? '5' : '0';
	memcpy(h + MAGIC, "ustar", 6);
	memcpy(h + VERSION, "00", 2);
	snprintf((char *)h + CHKSUM, 8, "%06o", header_sum(h));
	h[CHKSUM + 7] = ' ';
}

/* An octal field (or GNU's base-256 for large values); -1 if malformed. */
static int get_number(const uint8_t *field, size_t width, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	if (field[0] & 0x80) {
		for (i = 1; i < width; i++) {
			if (v >> 56)
				return -1;
			v = v << 8 | field[i];
		}
		return *out = v, 0;
	}
	while (i < width && field[i] == ' ')
		i++;
	size_t digits = 0;
	for (; i < width && field[i] >= '0' && field[i] <= '7'; i++, digits++) {
		if (v >> 60)
			return -1;
		v = v << 3 | (uint64_t)(field[i] - '0');
	}
	for (; i < width; i++)
		if (field[i] != ' ' && field[i] != '\0')
			return -1;
	return digits ? (*out = v, 0) : -1;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* ---- writer ----------------------------------------------------------------- */

struct jc_archive_writer {
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd;
	FILE *msgs;
	ZSTD_CCtx *cctx;
	void *buf;
	size_t cap;
	uint64_t written;
};

struct jc_archive_writer *jc_archive_create(const char *path, FILE *msgs)
{
	struct jc_archive_writer *w = calloc(1, sizeof *w);
	if (!w || strlen(path) >= sizeof w->path) {
		say(msgs, "cannot write %s: %s", path, w ? "path too long" : "out of memory");
		free(w);
		return NULL;
	}
	snprintf(w->path, sizeof w->path, "%s", path);
	w->msgs = msgs;
	w->cap = ZSTD_CStreamOutSize();
	w->buf = malloc(w->cap);
	w->cctx = ZSTD_createCCtx();
	w->fd = w->buf && w->cctx ? jc_temp_open_beside(AT_FDCWD, path, 0666, w->tmp) : -1;
	if (w->fd < 0) {
		say(msgs, "cannot create a file beside %s: %s", path,
		    w->buf && w->cctx ? strerror(errno) : "out of memory");
		ZSTD_freeCCtx(w->cctx);
		free(w->buf);
		free(w);
		return NULL;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	return w;
}

/* Compress n bytes into the current frame; with end, finish the frame. */
static int feed(struct jc_archive_writer *w, const void *p, size_t n, ZSTD_EndDirective end)
{
	ZSTD_inBuffer in = { p, n, 0 };
	size_t left;
	do {
		ZSTD_outBuffer out = { w->buf, w->cap, 0 };
		left = ZSTD_compressStream2(w->cctx, &out, &in, end);
		if (ZSTD_isError(left)) {
			say(w->msgs, "cannot compress %s: %s", w->path, ZSTD_getErrorName(left));
			return -1;
		}
		struct iovec iov = { w->buf, out.pos };
		if (jc_fs_write_all(w->fd, &iov, 1) != 0) {
			say(w->msgs, "cannot write %s: %s", w->path, strerror(errno));
			return -1;
		}
		w->written += out.pos;
	} while (end == ZSTD_e_continue ? in.pos < in.size : left != 0);
	return 0;
}

/* One member (header, data, padding) as one frame. */
int jc_archive_add(struct jc_archive_writer *w, const char *name, int64_t mtime_s,
		   const void *data, size_t size, int is_dir)
{
	static const uint8_t zeros[BLOCK];
	uint8_t h[BLOCK];
	if (strlen(name) > 98 || size > 077777777777ull) {
		say(w->msgs, "cannot archive %s: name or size too large for a tar header", name);
		return -1;
	}
	make_header(h, name, mtime_s, is_dir ? 0 : size, is_dir);
	size_t pad = is_dir ? 0 : (BLOCK - size % BLOCK) % BLOCK;
	/* The header in a block of its own: a member cut short or damaged
	 * after it can still be named. */
	return feed(w, h, BLOCK, ZSTD_e_flush) != 0 ||
	       (!is_dir && feed(w, data, size, ZSTD_e_continue) != 0) ||
	       feed(w, zeros, pad, ZSTD_e_end) != 0 ? -1 : 0;
}

uint64_t jc_archive_written(const struct jc_archive_writer *w)
{
	return w->written;
}

static void free_writer(struct jc_archive_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	ZSTD_freeCCtx(w->cctx);
	free(w->buf);
	free(w);
}

void jc_archive_abandon(struct jc_archive_writer *w)
{
	if (!w)
		return;
	jc_temp_discard(AT_FDCWD, w->fd, w->tmp);
	w->fd = -1;
	free_writer(w);
}

int jc_archive_commit(struct jc_archive_writer *w)
{
	static const uint8_t end[2 * BLOCK];
	int rc = feed(w, end, sizeof end, ZSTD_e_end);
	if (close(w->fd) != 0 && rc == 0) {
		say(w->msgs, "cannot write %s: %s", w->path, strerror(errno));
		rc = -1;
	}
	w->fd = -1;
	if (rc == 0 && jc_temp_place(AT_FDCWD, w->tmp, w->path, JC_TEMP_RENAME) < 0) {
		say(w->msgs, "cannot rename the new archive to %s: %s", w->path, strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		unlink(w->tmp); /* if not gone already */
	free_writer(w);
	return rc;
}

/* ---- reader ----------------------------------------------------------------- */

struct jc_archive_reader {
	FILE *file;
	uint64_t max_member;
	ZSTD_DCtx *dctx;          /* NULL: an uncompressed tar */
	uint8_t *inbuf, *outbuf;
	size_t incap, outcap;
	ZSTD_inBuffer in;
	size_t out_pos, out_len;  /* decompressed bytes not yet pulled */
	int in_eof;
	int frame_open;           /* a zstd frame is begun and not finished */
	int damaged;              /* a zstd frame failed: skip to the next one */
	int members;              /* regular files handed out so far */
	int headers;              /* good tar headers read so far */
	int pending;              /* header holds the next member's header */
	uint8_t header[BLOCK];
	uint64_t consumed;        /* archive bytes read so far */
	char skipped[200];        /* why, for a damaged stretch skipped over */
	char err[160];            /* why the reading stopped or a frame failed */
	jc_archive_check_fn *check; /* judges a member from its first bytes */
	void *check_arg;
	jc_archive_sink_fn *sink;   /* takes the data of the members it lets through */
	void *sink_arg;
};

static void set_err(struct jc_archive_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_err(struct jc_archive_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
}

/* Read raw bytes into the input buffer; 0 at the end of the file. */
static size_t read_input(struct jc_archive_reader *r)
{
	if (r->in_eof)
		return 0;
	size_t n = fread(r->inbuf, 1, r->incap, r->file);
	r->consumed += n;
	if (n == 0) {
		r->in_eof = 1;
		if (ferror(r->file))
			set_err(r, "read error: %s", strerror(errno));
	}
	r->in = (ZSTD_inBuffer){ r->inbuf, n, 0 };
	return n;
}

/* Make more decompressed bytes available, at most limit (so that a header
 * is decoded before the data after it is checked): 1 if some are, 2 at the
 * end of a frame (none yet), 0 at the end of the input, -1 on a damaged
 * frame. */
static int refill(struct jc_archive_reader *r, size_t limit)
{
	r->out_pos = r->out_len = 0;
	if (r->damaged)
		return -1;
	if (!r->dctx) {
		if (r->in.pos == r->in.size && read_input(r) == 0)
			return 0;
		size_t n = r->in.size - r->in.pos;
		memcpy(r->outbuf, (const uint8_t *)r->in.src + r->in.pos, n);
		r->in.pos = r->in.size;
		r->out_len = n;
		return 1;
	}
	for (;;) {
		if (r->in.pos == r->in.size && read_input(r) == 0)
			return 0;
		ZSTD_outBuffer out = { r->outbuf, limit < r->outcap ? limit : r->outcap, 0 };
		size_t ret = ZSTD_decompressStream(r->dctx, &out, &r->in);
		if (ZSTD_isError(ret)) {
			r->damaged = 1;
			set_err(r, "damaged compressed data (%s)", ZSTD_getErrorName(ret));
			return -1;
		}
		r->frame_open = ret != 0;
		r->out_len = out.pos;
		if (out.pos)
			return 1;
		if (ret == 0)
			return 2;
	}
}

/* Copy up to n decompressed bytes to dst (NULL: discard them); returns how
 * many there were before the end of the input or a damaged frame. */
static size_t pull(struct jc_archive_reader *r, void *dst, size_t n)
{
	size_t got = 0;
	while (got < n) {
		if (r->out_pos == r->out_len) {
			int rc = refill(r, n - got);
			if (rc <= 0)
				break;
			continue;
		}
		size_t k = r->out_len - r->out_pos;
		if (k > n - got)
			k = n - got;
		if (dst)
			memcpy((uint8_t *)dst + got, r->outbuf + r->out_pos, k);
		r->out_pos += k;
		got += k;
	}
	return got;
}

/* After a damaged frame: find the next frame's magic number and start
 * decoding there.  0 if found, -1 at the end of the input. */
static int resync(struct jc_archive_reader *r)
{
	uint32_t window = 0;
	ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
	r->damaged = 0;
	r->out_pos = r->out_len = 0;
	for (;;) {
		while (r->in.pos < r->in.size) {
			uint8_t b = ((const uint8_t *)r->in.src)[r->in.pos++];
			window = window >> 8 | (uint32_t)b << 24;
			if (window != ZSTD_MAGIC)
				continue;
			/* Hand the magic number, already passed, to the decoder. */
			static const uint8_t magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
			ZSTD_inBuffer m = { magic, 4, 0 };
			ZSTD_outBuffer out = { r->outbuf, r->outcap, 0 };
			size_t ret = ZSTD_decompressStream(r->dctx, &out, &m);
			r->frame_open = 1;
			return ZSTD_isError(ret) ? -1 : 0;
		}
		if (read_input(r) == 0)
			return -1;
	}
}

void jc_archive_set_sink(struct jc_archive_reader *r, jc_archive_sink_fn *sink, void *arg)
{
	r->sink = sink;
	r->sink_arg = arg;
}

void jc_archive_set_check(struct jc_archive_reader *r, jc_archive_check_fn *check, void *arg)
{
	r->check = check;
	r->check_arg = arg;
}

struct jc_archive_reader *jc_archive_open(FILE *file, uint64_t max_member)
{
	struct jc_archive_reader *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->file = file;
	r->max_member = max_member;
	r->incap = ZSTD_DStreamInSize();
	r->outcap = ZSTD_DStreamOutSize();
	r->inbuf = malloc(r->incap);
	r->outbuf = malloc(r->outcap);
	if (!r->inbuf || !r->outbuf) {
		jc_archive_close(r);
		return NULL;
	}
	/* zstd or plain tar: look at the first 4 bytes, then hand them on. */
	size_t n = fread(r->inbuf, 1, 4, file);
	r->in = (ZSTD_inBuffer){ r->inbuf, n, 0 };
	r->consumed = n;
	if (n == 4 && (uint32_t)(r->inbuf[0] | r->inbuf[1] << 8 | r->inbuf[2] << 16 |
				 (uint32_t)r->inbuf[3] << 24) == ZSTD_MAGIC) {
		r->dctx = ZSTD_createDCtx();
		r->frame_open = 1;
		if (!r->dctx) {
			jc_archive_close(r);
			return NULL;
		}
	}
	return r;
}

void jc_archive_close(struct jc_archive_reader *r)
{
	if (!r)
		return;
	ZSTD_freeDCtx(r->dctx);
	free(r->inbuf);
	free(r->outbuf);
	free(r);
}

const char *jc_archive_error(const struct jc_archive_reader *r)
{
	return r->err;
}

void jc_archive_member_free(struct jc_archive_member *m)
{
	free(m->data);
	m->data = NULL;
}

/* The member's name, prefix included, with unprintable bytes as '?'. */
static void member_name(const uint8_t h[BLOCK], char out[260])
{
	char raw[260];
	int ustar = memcmp(h + MAGIC, "ustar", 5) == 0;
	if (ustar && h[PREFIX])
		snprintf(raw, sizeof raw, "%.155s/%.100s", (const char *)h + PREFIX,
			 (const char *)h + NAME);
	else
		snprintf(raw, sizeof raw, "%.100s", (const char *)h + NAME);
	size_t i = 0;
	for (; raw[i]; i++)
		out[i] = raw[i] >= 0x20 && raw[i] < 0x7f ? raw[i] : '?';
	out[i] = '\0';
}

/* Where reading a member's data is. */
struct span {
	uint64_t have, cap; /* bytes read (kept or not); bytes of m->data */
	int keep;           /* keep the data (in m->data, or given to the sink) */
	int sink;           /* the data goes to r->sink, not to m->data */
};

/* Read n more bytes of member m (data, then padding), keeping what is data
 * while sp->keep; memory grows with what arrives, never to a size only
 * claimed, and stays one small buffer for a sink.  0, or -1 if the archive
 * ends or fails first. */
static int read_span(struct jc_archive_reader *r, struct jc_archive_member *m, uint64_t n,
		     struct span *sp)
{
	uint8_t piece[64 << 10];
	uint64_t end = sp->have + n;
	while (sp->have < end) {
		uint64_t most = sp->sink ? sizeof piece : (1u << 20);
		uint64_t step = end - sp->have > most ? most : end - sp->have;
		uint64_t into = sp->keep && sp->have < m->size
			? (m->size - sp->have < step ? m->size - sp->have : step) : 0;
		if (into && !sp->sink && sp->have + into > sp->cap) {
			uint64_t cap = sp->cap * 2 > sp->have + into ? sp->cap * 2 : sp->have + into;
			cap = cap > m->size ? m->size : cap;
			void *p = realloc(m->data, (size_t)cap);
			if (!p) {
				jc_archive_member_free(m);
				sp->keep = 0, into = 0;
				m->why = "out of memory";
			} else {
				m->data = p;
				sp->cap = cap;
			}
		}
		size_t want = (size_t)(into ? into : step);
		uint8_t *to = !into ? NULL : sp->sink ? piece : (uint8_t *)m->data + sp->have;
		if (pull(r, to, want) < want)
			return -1;
		const char *why = into && sp->sink ? r->sink(r->sink_arg, m->name, piece, want) : NULL;
		if (why)
			sp->keep = 0, m->why = why;
		sp->have += want;
	}
	return 0;
}

/* Read a member's data and padding: 0, or -1 if the archive ends or fails
 * first.  Data beyond limit bytes, or that the check refuses from its first
 * bytes, is read past and not kept (m->why says why); with a sink, what the
 * check took goes to the sink. */
static int read_data(struct jc_archive_reader *r, struct jc_archive_member *m, uint64_t limit)
{
	uint64_t padded = m->size + (BLOCK - m->size % BLOCK) % BLOCK;
	struct span sp = { .keep = m->size <= limit };
	if (!sp.keep)
		m->why = "larger than the limit for an entry (max_size)";
	if (sp.keep && limit && r->check) {
		uint64_t first = m->size < BLOCK ? m->size : BLOCK;
		if (read_span(r, m, first, &sp) != 0)
			return -1;
		const char *why = sp.keep ? r->check(r->check_arg, m->name, m->data, (size_t)first,
						     m->size) : NULL;
		if (!why && sp.keep && r->sink && !(why = r->sink(r->sink_arg, m->name, NULL, m->size)) &&
		    !(why = r->sink(r->sink_arg, m->name, m->data, (size_t)first)))
			sp.sink = 1;
		if (why || sp.sink) {
			jc_archive_member_free(m);
			sp.keep = !why;
			m->why = why;
		}
	}
	if (read_span(r, m, padded - sp.have, &sp) != 0)
		return -1;
	if (!sp.keep || sp.sink)
		jc_archive_member_free(m);
	else if (!m->data && !(m->data = malloc(1))) /* an empty file is still a file */
		m->why = "out of memory";
	m->sunk = sp.keep && sp.sink;
	return 0;
}

/* A damaged frame or an archive cut short inside member m. */
static int refuse_member(struct jc_archive_reader *r, struct jc_archive_member *m)
{
	jc_archive_member_free(m);
	if (r->damaged) {
		m->why = "damaged in the archive";
		if (resync(r) == 0) /* said here: the next member starts afresh */
			r->err[0] = '\0';
	} else
		m->why = r->dctx && !r->frame_open ? "cut short (damaged archive)"
						   : "cut short (the archive is truncated)";
	return 1;
}

/* Where the reading cannot go on: say why, unless already said. */
static int stop(struct jc_archive_reader *r, const char *why)
{
	if (strncmp(r->err, "read error", 10) != 0)
		set_err(r, "%s", why);
	r->damaged = 0;
	return -1;
}

/* The end marker was read: the frame holding it must end whole, or the
 * archive was cut (0 if sound, -1). */
static int check_end(struct jc_archive_reader *r)
{
	uint8_t second[BLOCK];
	pull(r, second, BLOCK); /* the marker's second block, if there */
	if (!r->dctx || !r->frame_open || r->out_pos < r->out_len)
		return 0; /* one frame for all, as `tar --zstd` writes: data follows */
	int rc = refill(r, r->outcap);
	if (rc == 0)
		return stop(r, "the archive's end marker is cut short (truncated)");
	if (rc < 0)
		r->damaged = 0; /* r->err says why */
	return rc < 0 ? -1 : 0;
}

/* Read the next header block: 1, 0 at a clean end, -1 where reading
 * cannot go on, 2 where a damaged stretch was skipped (r->err says so). */
static int next_header(struct jc_archive_reader *r, uint8_t h[BLOCK])
{
	int damage = 0;
	for (int skipped = 0;; skipped++) {
		if (r->damaged) {
			damage = 1;
			if (resync(r) != 0)
				return stop(r, "damaged compressed data, and no whole member after it");
		}
		size_t got = pull(r, h, BLOCK);
		if (r->damaged)
			continue; /* resync above */
		if (got < BLOCK && r->headers == 0)
			return stop(r, got == 0 && r->dctx ? "empty or truncated archive"
							   : "not a tar archive");
		if (got < BLOCK)
			return stop(r, "the archive ends without its end marker (truncated)");
		if (all_zero(h, BLOCK))
			return check_end(r);
		uint64_t sum;
		if (get_number(h + CHKSUM, 8, &sum) == 0 && sum == header_sum(h)) {
			r->headers++;
			if (damage) {
				r->damaged = 0;
				return 2; /* the header just read is given next time */
			}
			return 1;
		}
		if (r->headers == 0 && skipped == 0)
			return stop(r, "not a tar archive");
		/* A bad header: look for the next good one, block by block. */
		if (!damage)
			set_err(r, "a damaged tar header");
		damage = 1;
	}
}

int jc_archive_next(struct jc_archive_reader *r, struct jc_archive_member *m)
{
	for (;;) {
		uint8_t *h = r->header;
		memset(m, 0, sizeof *m);
		int rc = r->pending ? 1 : next_header(r, h);
		r->pending = 0;
		if (rc <= 0)
			return rc;
		if (rc == 2) {
			/* Say what was skipped; the good header after it comes next. */
			r->pending = 1;
			snprintf(m->name, sizeof m->name, "(unknown: damaged before byte %llu)",
				 (unsigned long long)(r->consumed - (r->in.size - r->in.pos)));
			snprintf(r->skipped, sizeof r->skipped, "%s; skipped to the next member", r->err);
			m->why = r->skipped;
			r->err[0] = '\0';
			return 1;
		}
		member_name(h, m->name);
		uint64_t mtime = 0;
		if (get_number(h + SIZE, 12, &m->size) != 0)
			return stop(r, "a tar header with a bad size field");
		if (get_number(h + MTIME, 12, &mtime) == 0 && mtime <= INT64_MAX)
			m->mtime_s = (int64_t)mtime;
		char type = (char)h[TYPE];
		int regular = type == '0' || type == '\0' || type == '7';
		/* Directories, pax and GNU metadata: passed over. */
		int metadata = type == '5' || type == 'x' || type == 'g' || type == 'L' || type == 'K';
		if (read_data(r, m, regular ? r->max_member : 0) != 0)
			return refuse_member(r, m);
		/* The member's frame should end here: its checksum is checked now,
		 * so that damage is blamed on this member, not the next. */
		if (r->dctx && r->frame_open && r->out_pos == r->out_len && refill(r, r->outcap) < 0)
			return refuse_member(r, m);
		if (regular) {
			r->members++;
			return 1;
		}
		jc_archive_member_free(m);
		if (!metadata) {
			m->why = "not a regular file";
			return 1;
		}
	}
}
