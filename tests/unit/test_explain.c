// SPDX-License-Identifier: MIT
/* Why a miss missed (key/explain.h): two requests' key traces compared,
 * one case per cause `jitcache explain` names, each with the line it
 * must give. */
#include "key/explain.h"
#include "key/fingerprint.h"
#include "tests/unit/check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A Level Zero request, as ze_request.c keys one, with what may vary. */
struct req {
	const char *spirv, *flags, *device, *build_id, *env, *spec;
	uint64_t semantic; /* the input's hash without debug information */
};

static struct jc_miss make(const struct req *r, uint64_t seq, int cause)
{
	struct jc_miss m = { .seq = seq, .pid = 100 + (uint32_t)seq, .cause = (uint8_t)cause };
	struct jc_fp *fp = jc_fp_begin("ze.module");
	jc_fp_u64(fp, "inputs", 1);
	jc_fp_u64(fp, "spec.count", r->spec ? 1 : 0);
	if (r->spec) {
		jc_fp_u64(fp, "spec.id", 7);
		jc_fp_bytes(fp, "spec.value", r->spec, strlen(r->spec));
	}
	jc_fp_bytes(fp, "spirv", r->spirv, strlen(r->spirv));
	jc_fp_note_u64(fp, "spirv.semantic", r->semantic);
	jc_fp_str(fp, "flags", r->flags);
	jc_fp_bytes(fp, "device", r->device, strlen(r->device));
	jc_fp_str(fp, "lib", "libigc.so.2");
	jc_fp_bytes(fp, "lib.build-id", r->build_id, strlen(r->build_id));
	jc_fp_u64(fp, "env.count", r->env ? 1 : 0);
	if (r->env)
		jc_fp_str(fp, "env", r->env);
	jc_fp_end(fp, &m.key);
	const uint8_t *t;
	m.trace_len = jc_fp_trace_of(&m.key, &t);
	memcpy(m.trace, t, m.trace_len);
	return m;
}

/* The line for a request changed as `changed` after base was recorded. */
static const char *explain(const struct req *base, const struct req *changed, int cause,
			   char *out, size_t size)
{
	static struct jc_miss seen[2];
	seen[0] = make(base, 1, JC_CAUSE_NOT_FOUND);
	seen[1] = make(changed, 2, cause);
	return jc_explain(&seen[1], seen, 2, out, size);
}

/* The ring keeps the last JC_MISS_RING misses, whole, in a file of one size. */
static void test_ring(void)
{
	char dir[] = "/tmp/jc-explain.XXXXXX", path[64];
	struct stat st;
	struct jc_miss *v = NULL;
	size_t n = 0;
	if (!mkdtemp(dir))
		return;
	const struct req r = { "S", "-O1", "d", "\x01", NULL, NULL, 0 };
	int ok = 1;
	for (int i = 0; i < 200; i++) {
		struct jc_miss m = make(&r, 0, JC_CAUSE_NOT_FOUND);
		m.pid = (uint32_t)i;
		ok &= jc_misses_add(dir, 0600, &m) == 0 && m.seq == (uint64_t)i + 1;
		if (i == 2) { /* a ring not full yet: the slots written so far */
			CHECK(jc_misses_read(dir, &v, &n) == 0 && n == 3 && v[0].seq == 1 &&
			      v[2].seq == 3 && v[2].pid == 2, "3 misses are read back, oldest first (%zu)", n);
			free(v);
		}
	}
	CHECK(ok, "200 misses recorded, numbered 1..200");
	CHECK(jc_misses_read(dir, &v, &n) == 0 && n == JC_MISS_RING && v[0].seq == 200 - JC_MISS_RING + 1 &&
	      v[n - 1].seq == 200 && v[n - 1].pid == 199 && v[n - 1].trace_len > 0 &&
	      !memcmp(v[n - 1].trace, v[0].trace, v[0].trace_len),
	      "the last %d are read back, oldest first, whole (%zu)", JC_MISS_RING, n);
	snprintf(path, sizeof path, "%s/misses", dir);
	CHECK(stat(path, &st) == 0 && st.st_size == 4096 + JC_MISS_RING * JC_MISS_RECORD,
	      "the file keeps its one size (%lld bytes)", (long long)st.st_size);
	free(v);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	char line[640];
	const struct req base = { "SPIRV-A", "-O2", "dev-a", "\x01\x02\x03", "IGC_X=1", "v1", 0 };
	struct req r;
	const char *what;

	struct jc_miss only = make(&base, 1, JC_CAUSE_NOT_FOUND);
	what = jc_explain(&only, &only, 1, line, sizeof line);
	CHECK(!strcmp(what, "new") && strstr(line, "never seen before"), "first request: %s", line);

	r = base, r.spirv = "SPIRV-B";
	what = explain(&base, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "new"), "another program input is not compared: %s", line);

	r = base, r.flags = "-O3";
	what = explain(&base, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "options") && strstr(line, "'-O2' -> '-O3'"), "build options: %s", line);

	r = base, r.build_id = "\x01\x02\x04";
	what = explain(&base, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "driver") && strstr(line, "libigc.so.2") && strstr(line, "010203 -> 010204"),
	      "driver or compiler build: %s", line);

	r = base, r.device = "dev-b";
	what = explain(&base, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "device"), "device: %s", line);

	r = base, r.env = "IGC_X=2";
	what = explain(&base, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "env") && strstr(line, "IGC_X: 1 -> 2"), "environment: %s", line);

	r = base, r.env = NULL;
	what = explain(&base, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "env") && strstr(line, "IGC_X: 1 -> (unset)"), "environment unset: %s",
	      line);

	r = base, r.spec = "v2";
	what = explain(&base, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "spec") && strstr(line, "specialization constant 7"), "spec constant: %s",
	      line);

	/* A device's fields, where its identity is traced (the IP version as
	 * 12.55.8; 22.43's device id and simulated stepping). */
	static const struct { const char *label; uint64_t a, b; const char *want; } dev[] = {
		{ "device.ip", 0x30dc008, 0x30dc004, "IP version 12.55.8 -> 12.55.4" },
		{ "device.id", 0x56a0, 0x56a5, "device id 0x56a0 -> 0x56a5" },
		{ "device.revision", 4, 8, "simulated stepping (OverrideRevision) 4 -> 8" },
	};
	for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) {
		struct jc_miss dm[2];
		for (int j = 0; j < 2; j++) {
			dm[j] = (struct jc_miss){ .seq = (uint64_t)j + 1, .pid = 7 };
			struct jc_fp *fp = jc_fp_begin("ze.module");
			jc_fp_bytes(fp, "spirv", "S", 1);
			jc_fp_u64(fp, dev[i].label, j ? dev[i].b : dev[i].a);
			jc_fp_end(fp, &dm[j].key);
			const uint8_t *t;
			dm[j].trace_len = jc_fp_trace_of(&dm[j].key, &t);
			memcpy(dm[j].trace, t, dm[j].trace_len);
		}
		what = jc_explain(&dm[1], dm, 2, line, sizeof line);
		CHECK(!strcmp(what, "device") && strstr(line, dev[i].want), "device: %s: %s",
		      dev[i].label, line);
	}

	/* Another input with the same hash without debug information: said so;
	 * with another hash too: never seen before. */
	struct req sb = base;
	sb.semantic = 0x1234;
	r = sb, r.spirv = "SPIRV-A-with-OpLine";
	what = explain(&sb, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "debug") && strstr(line, "differs only in debug information"),
	      "debug information only: %s", line);
	r.semantic = 0x5678;
	what = explain(&sb, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "new"), "another input, not only debug information: %s", line);

	r = base;
	what = explain(&base, &r, JC_CAUSE_NOT_FOUND, line, sizeof line);
	CHECK(!strcmp(what, "evicted") && strstr(line, "evicted or removed"),
	      "the same request again: %s", line);

	what = explain(&base, &r, JC_CAUSE_CORRUPT, line, sizeof line);
	CHECK(!strcmp(what, "damaged"), "damaged: %s", line);
	what = explain(&base, &r, JC_CAUSE_UNREACHABLE, line, sizeof line);
	CHECK(!strcmp(what, "unreachable"), "unreachable: %s", line);
	what = explain(&base, &r, JC_CAUSE_LOGIN_REFUSED, line, sizeof line);
	CHECK(!strcmp(what, "login_refused") && strstr(line, "refused the login"),
	      "a login refused is not a server that did not answer: %s", line);
	what = explain(&base, &r, JC_CAUSE_UNTRUSTED, line, sizeof line);
	CHECK(!strcmp(what, "not_trusted"), "untrusted: %s", line);
	what = explain(&base, &r, JC_CAUSE_REJECTED, line, sizeof line);
	CHECK(!strcmp(what, "rejected"), "refused by the driver: %s", line);
	what = explain(&base, &r, JC_CAUSE_CHANGED, line, sizeof line);
	CHECK(!strcmp(what, "changed") && strstr(line, "changed while the compiler read it"),
	      "a file changed during the compile: %s", line);
	{ /* the same request after one whose result was not stored */
		struct jc_miss was[2] = { make(&base, 1, JC_CAUSE_CHANGED),
					  make(&base, 2, JC_CAUSE_NOT_FOUND) };
		what = jc_explain(&was[1], was, 2, line, sizeof line);
		CHECK(!strcmp(what, "changed") && strstr(line, "whose result was not stored"),
		      "the same request after a changed file: %s", line);
	}

	struct jc_miss seen[2] = { make(&base, 1, JC_CAUSE_NOT_FOUND), make(&base, 2, 0) };
	seen[1].flags = JC_MISS_BUILD_FAILED;
	jc_explain(&seen[1], seen, 2, line, sizeof line);
	CHECK(strstr(line, "the build failed") != NULL, "a failed build is said: %s", line);

	/* Keys are what they were: the trace changes no key. */
	struct jc_fp *fp = jc_fp_begin("x");
	jc_fp_str(fp, "s", "abc");
	jc_fp_u64(fp, "n", 5);
	struct jc_key k1, k2;
	jc_fp_end(fp, &k1);
	fp = jc_fp_begin("x");
	jc_fp_bytes(fp, "s", "abc", 3);
	uint64_t five = 5;
	jc_fp_bytes(fp, "n", &five, sizeof five);
	jc_fp_end(fp, &k2);
	CHECK(!memcmp(&k1, &k2, sizeof k1), "a string and a number key as the same bytes did");
	test_ring();
	return check_summary();
}
