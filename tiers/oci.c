// SPDX-License-Identifier: MIT
/* oci.c — the OCI registry tier (oci://HOST[:PORT]/REPOSITORY): entries
 * shared through the registry a fleet already runs for its images
 * (registry.h).  Each entry is one blob, its bytes exactly an entry file's
 * (header + stored payload), so that a value read is verified exactly like
 * one from any other remote (jc_remote_value_check, then signatures under
 * trusted_keys); the blob's digest is checked first.  An entry is found by
 * its tag, jc-<32 hex of the key>, naming a small image manifest (config:
 * the empty descriptor; one layer, the entry, JC_OCI_ENTRY), as ORAS writes
 * artifacts: a lookup is two requests (manifest, blob), a store three or
 * four (the blob, once the empty config, the manifest).
 *
 * No compile lease: a registry has no conditional write (a tag PUT
 * always replaces), so machines sharing only a registry may compile a
 * kernel at once and store the same entry twice (harmless: the later
 * manifest names the same bytes).  Said once, in one line, at the first
 * lookup; for compile-once put a Redis, S3 or WebDAV remote beside it. */
#include "tiers/tier.h"
#include "tiers/registry.h"

#include "store/store.h"
#include "config/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum problem { P_LARGE, P_MANIFEST, P_COUNT };

struct oci {
	struct jc_registry *g;
	uint64_t limit;
	int config_done; /* the empty config blob is there (atomic) */
	int told[P_COUNT];
};

static void oci_load(void)
{
	jc_http_load();
}

static void *oci_open(const struct jc_tier_open *o)
{
	struct jc_http_options ho = {
		.spec = o->spec,
		.connect_timeout = o->opts->connect_timeout,
		.timeout = o->opts->timeout,
		.backoff = o->opts->backoff,
		.limit = o->limit,
	};
	struct oci *t = calloc(1, sizeof *t);
	if (!t || !(t->g = jc_registry_open(&ho, o->state_dir))) {
		free(t);
		return NULL;
	}
	t->limit = o->limit;
	/* a helper is a program: none is started inside the user's */
	if (*jc_registry_helper(t->g))
		jc_log(JC_LOG_WARN, "remote %s: the credentials of docker-credential-%s (docker's "
		       "config) are not used in a program (jitcache starts no process in it): "
		       "`jitcache pull` uses them, or give an \"auth\" (auth.json)",
		       jc_registry_url(t->g), jc_registry_helper(t->g));
	return t;
}

static void tag_of(const struct jc_key *key, char out[40])
{
	char hex[2 * JC_KEY_BYTES + 1];
	jc_key_hex(key, hex);
	snprintf(out, 40, "jc-%s", hex);
}

/* The entry's layer in a manifest: its digest and size; 0 if it has one. */
static int entry_layer(struct oci *t, const char *manifest, char digest[80], int64_t *size)
{
	const char *layers = strstr(manifest, "\"layers\"");
	char type[80];
	if (!layers || jc_oci_json_string(layers, "mediaType", type, sizeof type) != 0 ||
	    strcmp(type, JC_OCI_ENTRY) != 0 || jc_oci_json_string(layers, "digest", digest, 80) != 0 ||
	    (*size = jc_oci_json_number(layers, "size")) < 0) {
		jc_registry_problem(t->g, &t->told[P_MANIFEST], "a jc- tag names a manifest that "
				    "holds no jitcache entry: not read");
		return -1;
	}
	return 0;
}

static int oci_get(void *p, const struct jc_key *key, struct jc_remote_value *v,
		   struct jc_remote_lease **look, uint64_t delta[JC_NCOUNTERS])
{
	struct oci *t = p;
	struct jc_http_reply m, b;
	char tag[40], digest[80];
	int64_t size;
	(void)look;
	memset(v, 0, sizeof *v);
	JC_LOG_ONCE(JC_LOG_INFO, "oci remotes do lookups and stores only: a registry has no "
		    "conditional write, so no compile-once lease (docs/fleets.md)");
	tag_of(key, tag);
	int code = jc_registry_manifest(t->g, tag, &m, delta);
	if (code == 404) {
		free(m.body);
		return 0;
	}
	if (code != 200 || !m.body || entry_layer(t, (char *)m.body, digest, &size) != 0) {
		free(m.body);
		return code == JC_REMOTE_REFUSED ? code : code == 200 ? 0 : -1;
	}
	free(m.body);
	if ((uint64_t)size > t->limit) {
		jc_registry_problem(t->g, &t->told[P_LARGE], "an entry of %lld bytes is larger "
				    "than max_size allows; not read, compiling here", (long long)size);
		delta[JC_REMOTE_CORRUPT]++;
		return 0;
	}
	code = jc_registry_blob(t->g, digest, t->limit, &b, delta);
	if (code != 200 || !b.body) {
		free(b.body);
		/* absent, too large, or not its digest (said): a miss */
		return code == JC_REMOTE_REFUSED ? code : code == 404 || code == 0 ? 0 : -1;
	}
	/* as http.c takes a value: the first 64 bytes the header, the rest the payload */
	size_t head = b.len < JC_ENTRY_HEADER_SIZE ? b.len : JC_ENTRY_HEADER_SIZE;
	memcpy(v->header, b.body, head);
	memmove(b.body, b.body + head, b.len - head);
	v->payload = b.body;
	v->size = b.len;
	return 1;
}

static char *entry_manifest(const char *digest, size_t n, size_t *len)
{
	char *json = malloc(1024);
	if (!json)
		return NULL;
	int k = snprintf(json, 1024,
			 "{\"schemaVersion\":2,\"mediaType\":\"" JC_OCI_MANIFEST "\","
			 "\"artifactType\":\"" JC_OCI_ENTRY "\","
			 "\"config\":{\"mediaType\":\"" JC_OCI_EMPTY "\",\"digest\":\""
			 JC_OCI_EMPTY_DIGEST "\",\"size\":2},"
			 "\"layers\":[{\"mediaType\":\"" JC_OCI_ENTRY "\",\"digest\":\"%s\","
			 "\"size\":%zu}]}", digest, n);
	*len = (size_t)k;
	return json;
}

static int oci_put(void *p, const struct jc_key *key, const void *bytes, size_t n,
		   struct jc_remote_lease **lease, uint64_t delta[JC_NCOUNTERS])
{
	struct oci *t = p;
	char tag[40], digest[80], empty[80];
	size_t len;
	(void)lease;
	if (!__atomic_load_n(&t->config_done, __ATOMIC_ACQUIRE)) {
		if (jc_registry_put_blob(t->g, "{}", 2, empty, delta) != 0)
			return -1;
		__atomic_store_n(&t->config_done, 1, __ATOMIC_RELEASE);
	}
	if (jc_registry_put_blob(t->g, bytes, n, digest, delta) != 0)
		return -1;
	char *json = entry_manifest(digest, n, &len);
	tag_of(key, tag);
	int rc = json ? jc_registry_put_manifest(t->g, tag, json, len, delta) : -1;
	free(json);
	if (rc == 0)
		delta[JC_REMOTE_STORES]++; /* its bytes counted by each request */
	return rc;
}

static void oci_describe(void *p, char *out, size_t size)
{
	snprintf(out, size, "oci %s", jc_registry_url(((struct oci *)p)->g));
}

static void oci_close(void *p)
{
	struct oci *t = p;
	if (t)
		jc_registry_close(t->g);
	free(t);
}

const struct jc_tier_ops jc_tier_oci = {
	.name = "oci",
	.slot = JC_SLOT_OCI,
	.min_connect_timeout = JC_WEB_CONNECT_TIMEOUT,
	.min_timeout = JC_WEB_TIMEOUT,
	.load = oci_load,
	.open = oci_open,
	.get = oci_get,
	.put = oci_put,
	.describe = oci_describe,
	.close = oci_close,
};
