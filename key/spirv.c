// SPDX-License-Identifier: MIT
/* A bounded scan of a SPIR-V module's declarations (see spirv.h). */
#include "key/spirv.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define SPIRV_MAGIC 0x07230203u
#define SPIRV_HEADER_WORDS 5

enum {
	OP_TYPE_BOOL = 20,
	OP_TYPE_INT = 21,
	OP_TYPE_FLOAT = 22,
	OP_SPEC_CONSTANT_TRUE = 48,
	OP_SPEC_CONSTANT_FALSE = 49,
	OP_SPEC_CONSTANT = 50,
	OP_FUNCTION = 54,
	OP_DECORATE = 71,
	DECORATION_SPEC_ID = 1,
};

/* The module as 32-bit words, in either byte order. */
struct words {
	const uint8_t *bytes;
	size_t count;
	int swapped;
};

static uint32_t word(const struct words *w, size_t i)
{
	uint32_t v;
	memcpy(&v, w->bytes + 4 * i, sizeof v); /* the module may be unaligned */
	return w->swapped ? __builtin_bswap32(v) : v;
}

/* Calls visit() for each instruction before the first function (where all
 * decorations, types and constants live).  Returns -1 on a malformed stream. */
typedef void visit_fn(const struct words *w, size_t at, uint32_t opcode, uint32_t length,
		      void *ctx);

static int scan(const struct words *w, visit_fn *visit, void *ctx)
{
	for (size_t at = SPIRV_HEADER_WORDS; at < w->count;) {
		uint32_t first = word(w, at);
		uint32_t opcode = first & 0xffffu, length = first >> 16;
		if (length == 0 || length > w->count - at)
			return -1;
		if (opcode == OP_FUNCTION)
			break;
		visit(w, at, opcode, length, ctx);
		at += length;
	}
	return 0;
}

struct wanted {
	uint32_t count;
	const uint32_t *spec_ids;
	uint32_t *target; /* result id of the decorated constant, 0 = not seen */
	uint32_t *type;   /* its type id */
	uint32_t *sizes;
};

/* Pass 1: SpecId decorations, then the spec constants they decorate (the
 * logical layout puts decorations first). */
static void find_constants(const struct words *w, size_t at, uint32_t opcode,
			   uint32_t length, void *ctx)
{
	struct wanted *q = ctx;
	if (opcode == OP_DECORATE && length >= 4 && word(w, at + 2) == DECORATION_SPEC_ID) {
		for (uint32_t i = 0; i < q->count; i++)
			if (q->spec_ids[i] == word(w, at + 3))
				q->target[i] = word(w, at + 1);
	} else if ((opcode == OP_SPEC_CONSTANT || opcode == OP_SPEC_CONSTANT_TRUE ||
		    opcode == OP_SPEC_CONSTANT_FALSE) && length >= 3) {
		for (uint32_t i = 0; i < q->count; i++)
			if (q->target[i] && q->target[i] == word(w, at + 2))
				q->type[i] = word(w, at + 1);
	}
}

/* Pass 2: the scalar types of those constants. */
static void find_types(const struct words *w, size_t at, uint32_t opcode, uint32_t length,
		       void *ctx)
{
	struct wanted *q = ctx;
	uint32_t bits;
	if (opcode == OP_TYPE_BOOL && length >= 2)
		bits = 8;
	else if ((opcode == OP_TYPE_INT && length >= 4) || (opcode == OP_TYPE_FLOAT && length >= 3))
		bits = word(w, at + 2);
	else
		return;
	if (bits == 0 || bits % 8 || bits > 64)
		return; /* leaves the size unknown */
	for (uint32_t i = 0; i < q->count; i++)
		if (q->type[i] && q->type[i] == word(w, at + 1))
			q->sizes[i] = bits / 8;
}

int jc_spirv_spec_sizes(const void *module, size_t size, uint32_t count,
			const uint32_t *spec_ids, uint32_t *sizes)
{
	if (!module || size % 4 || size < 4 * SPIRV_HEADER_WORDS)
		return -1;
	struct words w = { .bytes = module, .count = size / 4 };
	uint32_t magic = word(&w, 0);
	if (magic != SPIRV_MAGIC) {
		w.swapped = 1;
		if (word(&w, 0) != SPIRV_MAGIC)
			return -1;
	}
	if (count == 0)
		return 0;
	/* Each constant needs a decoration of 4 words: more cannot be real. */
	if (!spec_ids || !sizes || count > w.count / 4)
		return -1;
	uint32_t *ids = calloc(2 * (size_t)count, sizeof *ids);
	if (!ids)
		return -1;
	struct wanted q = { count, spec_ids, ids, ids + count, sizes };
	memset(sizes, 0, count * sizeof *sizes);
	int ok = scan(&w, find_constants, &q) == 0 && scan(&w, find_types, &q) == 0;
	for (uint32_t i = 0; ok && i < count; i++)
		ok = sizes[i] != 0;
	free(ids);
	return ok ? 0 : -1;
}

/* ---- debug information (jc_spirv_semantic_hash) ---------------------- */

enum {
	OP_SOURCE_CONTINUED = 2, OP_SOURCE = 3, OP_SOURCE_EXTENSION = 4, OP_NAME = 5,
	OP_MEMBER_NAME = 6, OP_STRING = 7, OP_LINE = 8, OP_EXTENSION = 10,
	OP_EXT_INST_IMPORT = 11, OP_EXT_INST = 12, OP_NO_LINE = 317, OP_MODULE_PROCESSED = 330,
};

/* The literal string of an instruction from word `from` on, within it. */
static int string_starts(const struct words *w, size_t at, uint32_t length, uint32_t from,
			 const char *prefix)
{
	size_t n = strlen(prefix);
	if (from >= length || (length - from) * 4 < n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = word(w, at + from + i / 4);
		if ((char)(v >> (8 * (i % 4))) != prefix[i])
			return 0;
	}
	return 1;
}

static int is_debug_set(const struct words *w, size_t at, uint32_t length)
{
	return string_starts(w, at, length, 2, "NonSemantic.") ||
	       string_starts(w, at, length, 2, "OpenCL.DebugInfo.") ||
	       string_starts(w, at, length, 2, "DebugInfo");
}

uint64_t jc_spirv_semantic_hash(const void *module, size_t size)
{
	if (!module || size % 4 || size < 4 * SPIRV_HEADER_WORDS)
		return 0;
	struct words w = { .bytes = module, .count = size / 4 };
	if (word(&w, 0) != SPIRV_MAGIC) {
		w.swapped = 1;
		if (word(&w, 0) != SPIRV_MAGIC)
			return 0;
	}
	/* the result ids of debug sets' imports: few (one or two a module) */
	uint32_t sets[8];
	size_t n_sets = 0;
	XXH3_state_t *st = XXH3_createState();
	if (!st)
		return 0;
	XXH3_64bits_reset(st);
	for (size_t i = 0; i < SPIRV_HEADER_WORDS; i++) {
		if (i == 3)
			continue; /* the id bound */
		uint32_t v = word(&w, i);
		XXH3_64bits_update(st, &v, sizeof v);
	}
	for (size_t at = SPIRV_HEADER_WORDS; at < w.count;) {
		uint32_t first = word(&w, at);
		uint32_t opcode = first & 0xffffu, length = first >> 16;
		if (length == 0 || length > w.count - at)
			break; /* the rest, as it is */
		int debug = 0;
		switch (opcode) {
		case OP_SOURCE_CONTINUED: case OP_SOURCE: case OP_SOURCE_EXTENSION: case OP_NAME:
		case OP_MEMBER_NAME: case OP_STRING: case OP_LINE: case OP_NO_LINE:
		case OP_MODULE_PROCESSED:
			debug = 1;
			break;
		case OP_EXTENSION:
			debug = string_starts(&w, at, length, 1, "SPV_KHR_non_semantic_info");
			break;
		case OP_EXT_INST_IMPORT:
			if (length >= 3 && is_debug_set(&w, at, length)) {
				debug = 1;
				if (n_sets < sizeof sets / sizeof *sets)
					sets[n_sets++] = word(&w, at + 1);
			}
			break;
		case OP_EXT_INST:
			for (size_t i = 0; length >= 4 && i < n_sets && !debug; i++)
				debug = word(&w, at + 3) == sets[i];
			break;
		}
		if (!debug)
			for (uint32_t i = 0; i < length; i++) {
				uint32_t v = word(&w, at + i);
				XXH3_64bits_update(st, &v, sizeof v);
			}
		at += length;
	}
	uint64_t h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return h ? h : 1;
}
