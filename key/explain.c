// SPDX-License-Identifier: MIT
/* explain.c — naming what changed between two requests (explain.h). */
#include "key/explain.h"

#include "key/fingerprint.h"
#include "config/escape.h"

/* Names and values are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A trace read into named fields: "options", "env NAME", "spec ID",
 * "include PATH", "lib NAME build-id", "input 0"... each with its value
 * as text.  Both came from the program (its options, environment, include
 * paths): they are kept escaped (config/escape.h), so that no byte of them
 * reaches a report or a terminal as it is. */
#define MAX_FIELDS 160
struct field {
	char name[4 * 200 + 1];
	char value[4 * JC_FP_TEXT_MAX + 1];
};
struct fields {
	size_t n;
	struct field f[MAX_FIELDS];
};

static void add(struct fields *fs, const char *name, const char *value)
{
	if (fs->n == MAX_FIELDS)
		return;
	struct field *f = &fs->f[fs->n++];
	jc_escape_text(f->name, sizeof f->name, name, strlen(name));
	jc_escape_text(f->value, sizeof f->value, value, strlen(value));
}

/* One field of a trace: its label, kind (key/fingerprint.h) and value. */
struct raw_field {
	char label[256];
	int kind;
	const uint8_t *v;
	size_t vn;
};

/* The field of trace t (len bytes) at *at, which is moved past it.  0, or
 * -1 at the end. */
static int next_field(const uint8_t *t, size_t len, size_t *at, struct raw_field *f)
{
	size_t i = *at;
	if (i + 1 > len)
		return -1;
	size_t ln = t[i];
	if (i + 1 + ln + 3 > len)
		return -1;
	f->kind = t[i + 1 + ln];
	f->vn = t[i + 2 + ln] | (size_t)t[i + 3 + ln] << 8;
	f->v = t + i + 4 + ln;
	if (i + 4 + ln + f->vn > len)
		return -1;
	memcpy(f->label, t + i + 1, ln);
	f->label[ln] = '\0';
	*at = i + 4 + ln + f->vn;
	return 0;
}

/* Its value as text, not yet escaped. */
static void value_text(const struct raw_field *f, char value[JC_FP_TEXT_MAX + 1])
{
	if (f->kind == JC_FP_TEXT)
		snprintf(value, JC_FP_TEXT_MAX + 1, "%.*s",
			 (int)(f->vn < JC_FP_TEXT_MAX ? f->vn : JC_FP_TEXT_MAX), (const char *)f->v);
	else if (f->kind == JC_FP_HASH && f->vn == 16) {
		unsigned long long h, n;
		memcpy(&h, f->v, 8);
		memcpy(&n, f->v + 8, 8);
		snprintf(value, JC_FP_TEXT_MAX + 1, "%016llx (%llu bytes)", h, n);
	} else
		snprintf(value, JC_FP_TEXT_MAX + 1, "(none)");
}

/* The labels of a program's input ("input N") and of its hash without
 * debug information ("semantic"), as the keys write them. */
static int input_label(const char *label)
{
	return !strcmp(label, "spirv") || !strcmp(label, "input") || !strcmp(label, "il") ||
	       !strcmp(label, "source");
}

static int semantic_label(const char *label)
{
	return !strcmp(label, "spirv.semantic") || !strcmp(label, "input.semantic");
}

static void parse(const uint8_t *t, size_t len, struct fields *fs)
{
	char lib[128] = "", inc[160] = "", spec[24] = "", name[200], value[JC_FP_TEXT_MAX + 1];
	struct raw_field f;
	const char *label = f.label;
	int inputs = 0, flags = 0;
	fs->n = 0;
	for (size_t at = 0; next_field(t, len, &at, &f) == 0;) {
		value_text(&f, value);
		if (!strcmp(label, "lib") || !strcmp(label, "lib.absent")) {
			snprintf(lib, sizeof lib, "%s", value);
			snprintf(name, sizeof name, "lib %s", lib);
			add(fs, name, label[3] ? "absent" : "present");
		} else if (!strncmp(label, "lib.", 4)) {
			snprintf(name, sizeof name, "lib %s %s", lib, label + 4);
			add(fs, name, value);
		} else if (!strcmp(label, "env")) {
			char *eq = strchr(value, '=');
			if (eq)
				*eq = '\0';
			snprintf(name, sizeof name, "env %s", value);
			add(fs, name, eq ? eq + 1 : "");
		} else if (!strcmp(label, "spec.id")) {
			snprintf(spec, sizeof spec, "%s", value);
		} else if (!strcmp(label, "spec.value")) {
			snprintf(name, sizeof name, "spec %s", spec);
			add(fs, name, value);
		} else if (!strcmp(label, "include")) {
			snprintf(inc, sizeof inc, "%s", value);
		} else if (!strcmp(label, "include.content")) {
			snprintf(name, sizeof name, "include %s", inc);
			add(fs, name, value);
		} else if (!strcmp(label, "include.absent")) {
			add(fs, "include.absent", value);
		} else if (!strncmp(label, "include.", 8)) {
			snprintf(name, sizeof name, "include %s", value);
			add(fs, name, label + 8);
		} else if (input_label(label)) {
			snprintf(name, sizeof name, "input %d", inputs++);
			add(fs, name, value);
		} else if (semantic_label(label)) {
			add(fs, "semantic", value); /* of the first input */
		} else if (!strcmp(label, "flags")) {
			snprintf(name, sizeof name, "flags %d", flags++);
			add(fs, name, value);
		} else if (strcmp(label, "env.count") && strcmp(label, "spec.count") &&
			   strcmp(label, "!")) {
			add(fs, label, value);
		}
	}
}

/* What the search for the nearest earlier request compares first: the
 * values parse() names "api", "input 0" and "semantic", not yet escaped
 * (escaping never maps two texts to one, so these compare as those do).
 * Found without parsing every field: a miss is compared with a whole
 * ring of records, of which few are for its input. */
struct ids {
	char api[JC_FP_TEXT_MAX + 1], input[JC_FP_TEXT_MAX + 1], semantic[JC_FP_TEXT_MAX + 1];
	int has_api, has_input, has_semantic;
};

static void ids_of(const uint8_t *t, size_t len, struct ids *id)
{
	struct raw_field f;
	const char *label = f.label;
	id->has_api = id->has_input = id->has_semantic = 0;
	for (size_t at = 0; next_field(t, len, &at, &f) == 0;) {
		char *to = NULL;
		int *has = NULL;
		if (!strcmp(label, "api"))
			to = id->api, has = &id->has_api;
		else if (input_label(label))
			to = id->input, has = &id->has_input;
		else if (semantic_label(label))
			to = id->semantic, has = &id->has_semantic;
		if (has && !*has) {
			value_text(&f, to);
			*has = 1;
		}
	}
}

static const char *value_of(const struct fields *fs, const char *name)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].name, name))
			return fs->f[i].value;
	return NULL;
}

static const char *shorter(const char *v, char buf[40])
{
	if (!v)
		return "(unset)";
	snprintf(buf, 40, "%.16s%s", v, strlen(v) > 16 ? "..." : "");
	return buf;
}

/* An IP version as Level Zero and OpenCL give it (major << 22 | minor << 14
 * | revision) in its usual form, 12.55.8. */
static const char *ip_text(const char *v, char buf[40])
{
	if (!v)
		return "(none)";
	char *end;
	unsigned long ip = strtoul(v, &end, 10);
	if (*end || !ip)
		return v;
	snprintf(buf, 40, "%lu.%lu.%lu", ip >> 22, (ip >> 14) & 0xff, ip & 0x3fff);
	return buf;
}

/* The device's identity changed: which field of it (the IP version with its
 * stepping, the device id, the simulated revision, the driver's version),
 * old -> new, where the trace has them (a digest alone: "another GPU"). */
static void device_change(const char *n, const char *old, const char *now, char *out, size_t size)
{
	char o[40], w[40];
	if (!strcmp(n, "device.ip") || !strcmp(n, "device.intel-ip-version"))
		snprintf(out, size, "device changed: IP version %s -> %s (another GPU or stepping)",
			 ip_text(old, o), ip_text(now, w));
	else if (!strcmp(n, "device.id") || !strcmp(n, "device.intel-id"))
		snprintf(out, size, "device changed: device id 0x%lx -> 0x%lx",
			 old ? strtoul(old, NULL, 10) : 0, now ? strtoul(now, NULL, 10) : 0);
	else if (!strcmp(n, "device.revision"))
		snprintf(out, size, "device changed: simulated stepping (OverrideRevision) %s -> %s",
			 old ? old : "(unset)", now ? now : "(unset)");
	else if (!strcmp(n, "device"))
		snprintf(out, size, "device changed (another GPU, IP version or stepping)");
	else
		snprintf(out, size, "device changed: %s: %s -> %s", n, shorter(old, o), shorter(now, w));
}

/* How many fields differ between a and b. */
static size_t count_differences(const struct fields *a, const struct fields *b)
{
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		const struct fields *x = pass ? a : b, *y = pass ? b : a;
		for (size_t i = 0; i < x->n; i++) {
			const char *vy = value_of(y, x->f[i].name);
			n += pass ? !vy : !vy || strcmp(vy, x->f[i].value);
		}
	}
	return n;
}

/* The first difference of b (new) from a (old), worded, in out. */
static const char *differ(const struct fields *a, const struct fields *b, char *out, size_t size)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct fields *x = pass ? a : b, *y = pass ? b : a;
		for (size_t i = 0; i < x->n; i++) {
			const char *n = x->f[i].name;
			const char *vx = x->f[i].value, *vy = value_of(y, n);
			if (vy && !strcmp(vx, vy))
				continue;
			const char *old = pass ? vx : vy, *now = pass ? vy : vx;
			char o[40], w[40];
			if (!strncmp(n, "lib ", 4)) {
				/* build-ids in full: two builds' may share their first
				 * bytes (and sizes, mtimes are short anyway) */
				snprintf(out, size, "driver or compiler build changed: %s: %s -> %s", n + 4,
					 old ? old : "(absent)", now ? now : "(absent)");
				return "driver";
			}
			if (!strncmp(n, "device", 6) || !strncmp(n, "driver", 6)) {
				device_change(n, old, now, out, size);
				return "device";
			}
			if (!strcmp(n, "options") || !strncmp(n, "flags", 5)) {
				snprintf(out, size, "build options: '%s' -> '%s'", old ? old : "",
					 now ? now : "");
				return "options";
			}
			if (!strncmp(n, "spec ", 5)) {
				snprintf(out, size, "specialization constant %s: %s -> %s", n + 5,
					 old ? "a value" : "(unset)", now ? "another value" : "(unset)");
				return "spec";
			}
			if (!strncmp(n, "env ", 4)) {
				snprintf(out, size, "environment variable %s: %s -> %s", n + 4,
					 old ? old : "(unset)", now ? now : "(unset)");
				return "env";
			}
			if (!strcmp(n, "include.absent")) {
				snprintf(out, size, "a file appeared or went away where an "
						    "#include is looked for");
				return "include";
			}
			if (!strncmp(n, "include ", 8)) {
				snprintf(out, size, "included file %s: contents changed", n + 8);
				return "include";
			}
			if (!strncmp(n, "input ", 6)) {
				snprintf(out, size, "another program input (input %s)", n + 6);
				return "input";
			}
			snprintf(out, size, "%s: %s -> %s", n, shorter(old, o), shorter(now, w));
			return "unknown";
		}
	}
	return NULL;
}

/* An earlier miss of the same key whose result was not stored, since a
 * file it covers changed during the compile (JC_CAUSE_CHANGED); NULL if
 * none. */
static const struct jc_miss *not_stored(const struct jc_miss *m, const struct jc_miss *seen,
					size_t n)
{
	for (size_t i = n; i-- > 0;)
		if ((!m->seq || seen[i].seq < m->seq) && seen[i].cause == JC_CAUSE_CHANGED &&
		    memcmp(&seen[i].key, &m->key, sizeof m->key) == 0)
			return &seen[i];
	return NULL;
}

const char *jc_explain(const struct jc_miss *m, const struct jc_miss *seen, size_t n,
		       char *out, size_t size)
{
	static const char *const causes[] = {
		[JC_CAUSE_CORRUPT] = "the entry was found damaged (removed, compiled again)",
		[JC_CAUSE_REJECTED] = "the driver refused the entry (removed, compiled again)",
		[JC_CAUSE_UNTRUSTED] = "the entry found was not signed by a trusted key",
		[JC_CAUSE_UNREACHABLE] = "its server did not answer (Redis, a web server or S3)",
		[JC_CAUSE_CHANGED] = "a file the key covers changed while the compiler read it "
				     "(the result was used, not stored)",
		[JC_CAUSE_LOGIN_REFUSED] = "its server refused the login (Redis: the password, "
					   "the user, or its ACL; see the warning at its first refusal)",
	};
	static const char *const names[] = { [JC_CAUSE_CORRUPT] = "damaged",
		[JC_CAUSE_REJECTED] = "rejected", [JC_CAUSE_UNTRUSTED] = "not_trusted",
		[JC_CAUSE_UNREACHABLE] = "unreachable", [JC_CAUSE_CHANGED] = "changed",
		[JC_CAUSE_LOGIN_REFUSED] = "login_refused" };
	const char *failed = m->flags & JC_MISS_BUILD_FAILED ? "; the build failed" : "";
	if (m->cause >= JC_CAUSE_CORRUPT && m->cause <= JC_CAUSE_LOGIN_REFUSED) {
		snprintf(out, size, "%s%s", causes[m->cause], failed);
		return names[m->cause];
	}
	struct fields *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	struct ids *mine = malloc(sizeof *mine), *its = malloc(sizeof *its);
	const char *what = "unknown";
	if (!a || !b || !mine || !its) {
		snprintf(out, size, "found nowhere%s", failed);
		goto done;
	}
	parse(m->trace, m->trace_len, b);
	/* The nearest earlier request for the same program input: of those
	 * recorded before it, the one that differs in the fewest fields (the
	 * most recent of them on a tie). */
	ids_of(m->trace, m->trace_len, mine);
	const struct jc_miss *e = NULL;
	size_t best = SIZE_MAX, more = 0;
	for (size_t i = n; mine->has_api && mine->has_input && i-- > 0;) {
		if ((m->seq && seen[i].seq >= m->seq) || !seen[i].trace_len)
			continue;
		ids_of(seen[i].trace, seen[i].trace_len, its);
		if (!its->has_api || !its->has_input || strcmp(mine->api, its->api) ||
		    strcmp(mine->input, its->input))
			continue;
		parse(seen[i].trace, seen[i].trace_len, a);
		size_t d = count_differences(a, b);
		if (d < best) {
			best = d;
			e = &seen[i];
		}
	}
	/* None for this input: one whose input differs only in debug
	 * information (the same semantic hash), if any. */
	const struct jc_miss *d = NULL;
	for (size_t i = n; !e && mine->has_semantic && mine->has_api && i-- > 0;) {
		if ((m->seq && seen[i].seq >= m->seq) || !seen[i].trace_len)
			continue;
		ids_of(seen[i].trace, seen[i].trace_len, its);
		if (its->has_api && its->has_semantic && !strcmp(mine->api, its->api) &&
		    !strcmp(mine->semantic, its->semantic)) {
			d = &seen[i];
			break;
		}
	}
	if (e)
		parse(e->trace, e->trace_len, a);
	char diff[512];
	if (!m->trace_len) {
		snprintf(out, size, "found nowhere (no trace of its key was recorded)%s", failed);
	} else if (!e && d) {
		what = "debug";
		snprintf(out, size, "the input differs only in debug information from pid %u's "
			 "(comments, white space, line numbers, names)%s", d->pid, failed);
	} else if (!e) {
		what = "new";
		snprintf(out, size, "never seen before (no earlier request for this input among "
			 "the last %d misses)%s", JC_MISS_RING, failed);
	} else if ((what = differ(a, b, diff, sizeof diff))) {
		/* each field that differs (or is in one only) counts once */
		more = best > 1;
		if (more)
			snprintf(out, size, "%s (and other fields of the key)%s", diff, failed);
		else
			snprintf(out, size, "%s%s", diff, failed);
	} else if ((d = not_stored(m, seen, n))) {
		what = "changed";
		snprintf(out, size, "the same request as pid %u's, whose result was not stored: a "
			 "file the key covers changed while the compiler read it%s", d->pid, failed);
	} else {
		what = "evicted";
		snprintf(out, size, "the same request as pid %u's: its entry was evicted or "
			 "removed%s", e->pid, failed);
	}
done:
	free(a);
	free(b);
	free(mine);
	free(its);
	return what;
}
