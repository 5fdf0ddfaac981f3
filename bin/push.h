// SPDX-License-Identifier: MIT
/*
 * push.h — `jitcache push` and `jitcache pull`: packs (what `jitcache
 * export` and `warm --export` write) as OCI artifacts in a registry
 * (tiers/registry.h), the way a release ships its kernels.
 *
 *   jitcache push oci://HOST[:PORT]/REPOSITORY:TAG PACK [--for TARGETS]
 *                 [--programs NAMES] [--ca-file PEM]
 *   jitcache pull oci://HOST[:PORT]/REPOSITORY[:TAG] [--for TARGETS] [--ca-file PEM]
 *
 * push publishes one artifact: an image manifest (artifactType
 * JC_OCI_PACK_ARTIFACT) whose config (JC_OCI_PACK_CONFIG, jitcache's own
 * media type, as ORAS does, which registries older than OCI 1.1 accept)
 * and annotations name the driver and compiler builds it was made with
 * (this machine's: the files and GNU build-ids of libze_intel_gpu.so.1 and
 * libigc), the GPU targets and their IP versions (--for, as given to warm;
 * all: every target warm knows),
 * the programs (--programs) and its entries and recipes, and whose one
 * layer is the pack.  Every entry of the pack must be signed (signing_key
 * when it was made): an unsigned pack is refused in one line.  The
 * manifest is stored by its digest, and the tag names an OCI image index
 * of every pack pushed to it, one per driver, compiler and targets (a push
 * for the same three replaces that one), each entry annotated with them,
 * as registry clients choose an image by platform: one tag serves every
 * driver and GPU of a release.
 *
 * pull fetches the tag (TAG default: latest); of an index it takes the
 * newest pack whose driver and compiler builds are this machine's and
 * whose targets' IP versions include every one of this machine's GPUs
 * (asked of the driver, as warm's workers see them; --for: those targets'
 * instead), and says which in one line, or in one line why none is.  It
 * refuses in one line a pack (a lone manifest, pushed before indexes) that
 * names another driver or compiler build or other GPUs, one whose
 * manifest or blob is not its digest, and one with an unsigned entry, and
 * without trusted_keys pulls nothing (a pack is code); the rest is
 * imported into the cache directory exactly as `jitcache import` takes a
 * file (each signature checked against trusted_keys).
 *
 * Credentials: the registry clients' files, as the oci:// remote's
 * (registry.h); where none names the registry, the credential helper
 * docker's config names for it (credHelpers, else credsStore) is run here,
 * as docker runs it (docker-credential-NAME get), which the library inside
 * a program never does.  Exit status: 0 done, 1 refused or failed, 2 bad usage.
 */
#ifndef JITCACHE_BIN_PUSH_H
#define JITCACHE_BIN_PUSH_H

#include "cache/cache.h"
#include "config/config.h"

#include <stdio.h>

int jc_push_main(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv);
int jc_pull_main(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv);
void jc_push_usage(FILE *out);
void jc_pull_usage(FILE *out);

/* The warm targets' table (warm.c): the IP version of a target's name as
 * text ("12.56.5"), or NULL if none is named so. */
const char *jc_warm_target_ip(const char *name, char buf[32]);
/* ip added to list ("12.56.5,20.1.0", cap bytes) unless it is one of its
 * items already or would not fit: 1 if added. */
int jc_warm_ip_list_add(char *list, size_t cap, const char *ip);
/* The i-th target's name, NULL past the last. */
const char *jc_warm_target_name(size_t i);
/* This machine's GPUs, as its driver shows them to a warm worker that
 * replays nothing: their IP versions ("12.56.5,20.1.0", each once; a
 * driver that reports none: the table's for the device id) into ips, the
 * devices as found into shown.  How many GPUs (0: none), or -1 when one
 * cannot be told (no worker, or a device whose IP version is unknown). */
int jc_warm_this_gpus(char *ips, size_t cap, char *shown, size_t shown_cap);

#endif
