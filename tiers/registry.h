// SPDX-License-Identifier: MIT
/*
 * registry.h — a client of an OCI registry (the Distribution API: Harbor,
 * Zot, GHCR, ECR, GAR, ACR, Quay, Debian's docker-registry), over the web
 * remotes' HTTP client (http.h: its timeouts, back-off, TLS with ca-file,
 * one line per kind of problem).  Used by the oci:// tier (oci.c: one
 * entry per tag) and by `jitcache push` and `pull` (packs as artifacts).
 *
 *   struct jc_registry *g = jc_registry_open(&spec, &http_opts, cache_dir); // NULL: said why
 *   jc_registry_manifest(g, "jc-<32 hex>", &m, delta)   200: m.body the manifest
 *   jc_registry_blob(g, "sha256:...", max, &b, delta)   200: b.body, its digest checked
 *   jc_registry_put_blob(g, bytes, n, digest_out, delta)          0 stored
 *   jc_registry_put_manifest(g, "TAG", json, n, delta)            0 stored
 *   jc_registry_close(g)
 *
 * Authentication, as every registry client does it: anonymous first; a
 * 401 whose WWW-Authenticate asks for Basic is answered with the user's
 * credentials for HOST[:PORT]; one that asks for Bearer (realm, service,
 * scope) gets a token from the realm (an https:// URL), with those
 * credentials if there are any, and the request is made again with it.
 * The token is kept for the next requests.  Credentials are never in the
 * URL: the first file of these that names the registry (an "auths" entry
 * for HOST[:PORT], with or without https://) gives them:
 *   $REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json,
 *   ~/.config/containers/auth.json (podman, skopeo, buildah),
 *   $DOCKER_CONFIG/config.json or ~/.docker/config.json (docker, oras);
 * only the "auth" field (base64 USER:PASSWORD) is read.  Where none gives
 * one, the credential helper docker's config names for the registry
 * (credHelpers, else credsStore) is only noted (jc_registry_helper): this
 * library never starts a program (it runs inside the user's); the CLI
 * runs docker-credential-NAME itself and gives what it answers
 * (jc_registry_set_credentials).  A refusal after that (401, 403) is said
 * once and the registry skipped for backoff seconds, as any web remote's.
 *
 * Answers: the HTTP status (200, 201, 202, 404...), or -1 (no answer, a
 * timeout, a 5xx: said, the remote skipped for backoff), or
 * JC_REMOTE_REFUSED (the login refused: said).  A blob's bytes are hashed
 * and compared with the digest asked for: one that differs is refused
 * (said once; 0, a bad value counted, as no blob).  Thread-safe, and
 * fork-safe: fork() waits for a request of another thread to let go of the
 * token's lock (held for a copy, never across a wait), so that a child
 * never inherits it held.
 */
#ifndef JITCACHE_REGISTRY_H
#define JITCACHE_REGISTRY_H

#include "tiers/http.h"

#include <stddef.h>
#include <stdint.h>

/* The media types jitcache writes. */
#define JC_OCI_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define JC_OCI_INDEX "application/vnd.oci.image.index.v1+json"
#define JC_OCI_EMPTY "application/vnd.oci.empty.v1+json"
#define JC_OCI_EMPTY_DIGEST "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
#define JC_OCI_ENTRY "application/vnd.jitcache.entry.v1"
#define JC_OCI_PACK "application/vnd.jitcache.pack.v1.tar+zstd"
#define JC_OCI_PACK_CONFIG "application/vnd.jitcache.pack.config.v1+json"
#define JC_OCI_PACK_ARTIFACT "application/vnd.jitcache.pack.v1"

struct jc_registry;

struct jc_registry *jc_registry_open(const struct jc_http_options *o, const char *state_dir);
void jc_registry_close(struct jc_registry *g);
/* oci://HOST[:PORT]/REPOSITORY, for messages. */
const char *jc_registry_url(const struct jc_registry *g);
/* The credential helper docker's config names for this registry when no
 * file gave credentials ("test": docker-credential-test), or "". */
const char *jc_registry_helper(const struct jc_registry *g);
/* Send USER:SECRET (Basic, or to a token realm) from now on: what a
 * helper answered.  0, or -1 (too long, or a ':' in user). */
int jc_registry_set_credentials(struct jc_registry *g, const char *user, const char *secret);
/* Say a problem of the registry's once per flag (*told), not skipping it. */
__attribute__((format(printf, 3, 4)))
void jc_registry_problem(struct jc_registry *g, int *told, const char *fmt, ...);

/* GET the manifest of ref (a tag or a digest); r->body the caller's. */
int jc_registry_manifest(struct jc_registry *g, const char *ref, struct jc_http_reply *r,
			 uint64_t delta[JC_NCOUNTERS]);
/* GET a blob of at most max bytes (more: r->too_large, 0 returned); its
 * digest checked (a mismatch: said, 0 returned). */
int jc_registry_blob(struct jc_registry *g, const char *digest, uint64_t max,
		     struct jc_http_reply *r, uint64_t delta[JC_NCOUNTERS]);
/* Upload a blob (once: one the registry has is not sent again); digest
 * gets "sha256:<64 hex>".  0, or -1 (said). */
int jc_registry_put_blob(struct jc_registry *g, const void *bytes, size_t n, char digest[80],
			 uint64_t delta[JC_NCOUNTERS]);
/* PUT an image manifest (JC_OCI_MANIFEST) under tag.  0, or -1 (said). */
int jc_registry_put_manifest(struct jc_registry *g, const char *tag, const char *json,
			     size_t n, uint64_t delta[JC_NCOUNTERS]);
/* PUT a manifest of media type (JC_OCI_MANIFEST, JC_OCI_INDEX) under ref
 * (a tag, or its digest).  0, or -1 (said). */
int jc_registry_put(struct jc_registry *g, const char *ref, const char *type, const char *json,
		    size_t n, uint64_t delta[JC_NCOUNTERS]);

/* "sha256:<64 hex>" of bytes: the digest a registry names them by. */
void jc_registry_digest(const void *bytes, size_t n, char out[80]);

/* The string value of "name" in a JSON text, the first after from (a
 * loose reader for the manifests, tokens and credential files jitcache
 * reads: no escapes in the values it needs).  Copied to out; 0, or -1 if
 * absent or too long. */
int jc_oci_json_string(const char *from, const char *name, char *out, size_t cap);
/* The number value of "name" after from; -1 if absent. */
int64_t jc_oci_json_number(const char *from, const char *name);

#endif
