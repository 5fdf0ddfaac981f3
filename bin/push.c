// SPDX-License-Identifier: MIT
/* push.c — `jitcache push` and `pull`: packs as OCI artifacts.  See push.h. */
#include "bin/push.h"

#include "bin/admin.h"
#include "cache/transfer.h"
#include "key/elfnote.h"
#include "store/entry.h"
#include "store/fsutil.h"
#include "tiers/archive.h"
#include "tiers/registry.h"
#include "config/remote_url.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A pack larger is not pushed or pulled (a pack of eight targets of
 * llama.cpp: 6 MB). */
#define PACK_MAX (2ull << 30)
/* A pack's transfer, however slow, is done within this. */
#define PACK_TIMEOUT 600.0

/* ---- this machine's driver and compiler ------------------------------------------ */

/* The file a library name leads to (LD_LIBRARY_PATH, then the system's
 * directories), resolved; 0 if found. */
static int find_library(const char *name, char *out, size_t cap)
{
	char dirs[PATH_MAX * 2], path[PATH_MAX + 64];
	const char *ld = getenv("LD_LIBRARY_PATH");
	snprintf(dirs, sizeof dirs, "%s%s/usr/lib/x86_64-linux-gnu:/usr/lib64:/usr/local/lib:/usr/lib",
		 ld ? ld : "", ld && *ld ? ":" : "");
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof path, "%s/%s", d, name);
		if (access(path, R_OK) == 0 && realpath(path, out) && strlen(out) < cap)
			return 0;
	}
	return -1;
}

/* "FILE build-id HEX" of the first of names found, or "none". */
static void library_id(const char *const names[], char *out, size_t cap)
{
	char file[PATH_MAX];
	uint8_t id[64];
	snprintf(out, cap, "none");
	for (const char *const *n = names; *n; n++) {
		if (find_library(*n, file, sizeof file) != 0)
			continue;
		int fd = open(file, O_RDONLY | O_CLOEXEC);
		size_t len = fd >= 0 ? jc_elf_file_build_id(fd, id, sizeof id) : 0;
		if (fd >= 0)
			close(fd);
		const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		size_t used = (size_t)snprintf(out, cap, "%s build-id ", base);
		for (size_t i = 0; i < len && used + 3 < cap; i++)
			used += (size_t)snprintf(out + used, cap - used, "%02x", id[i]);
		if (!len)
			snprintf(out + used, cap - used, "unknown");
		return;
	}
}

static void driver_id(char *out, size_t cap)
{
	static const char *const names[] = { "libze_intel_gpu.so.1", NULL };
	library_id(names, out, cap);
}

static void compiler_id(char *out, size_t cap)
{
	static const char *const names[] = { "libigc.so.2", "libigc.so.1", NULL };
	library_id(names, out, cap);
}

/* ---- packs ------------------------------------------------------------------------ */

struct pack {
	uint8_t *bytes;
	size_t size;
	uint64_t entries, recipes, unsigned_n, other;
};

static int read_pack(const char *path, struct pack *p)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	memset(p, 0, sizeof *p);
	if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > PACK_MAX) {
		fprintf(stderr, "jitcache: %s is not a pack that can be read (%s)\n", path,
			f ? "not a regular file of 2 GiB at most" : "cannot open it");
		if (f)
			fclose(f);
		return -1;
	}
	p->size = (size_t)st.st_size;
	p->bytes = malloc(p->size ? p->size : 1);
	int ok = p->bytes && fread(p->bytes, 1, p->size, f) == p->size;
	fclose(f);
	if (!ok)
		fprintf(stderr, "jitcache: cannot read %s\n", path);
	return ok ? 0 : -1;
}

/* Count the pack's entries and recipes, and those not signed. */
static int scan_pack(struct pack *p, const char *shown)
{
	FILE *f = fmemopen(p->bytes, p->size, "rb");
	struct jc_archive_reader *r = f ? jc_archive_open(f, PACK_MAX) : NULL;
	struct jc_archive_member m;
	int rc;
	if (!r) {
		if (f)
			fclose(f);
		fprintf(stderr, "jitcache: %s cannot be read as a pack\n", shown);
		return -1;
	}
	while ((rc = jc_archive_next(r, &m)) > 0) {
		if (m.data && m.size >= JC_ENTRY_HEADER_SIZE) {
			uint32_t flags = (uint32_t)(jc_get_le64((uint8_t *)m.data + 8) >> 32);
			flags & JC_ENTRY_RECIPE ? p->recipes++ : p->entries++;
			p->unsigned_n += !(flags & JC_ENTRY_SIGNED);
		} else {
			p->other++;
		}
		jc_archive_member_free(&m);
	}
	if (rc < 0)
		fprintf(stderr, "jitcache: %s is not a whole pack (%s)\n", shown, jc_archive_error(r));
	jc_archive_close(r);
	fclose(f);
	return rc < 0 ? -1 : 0;
}

/* ---- credential helpers ------------------------------------------------------------- */

extern char **environ;

/* Start docker-credential-NAME get, host on its stdin; its stdout's fd,
 * or -1 (said). */
static int start_helper(char *prog, const char *host, pid_t *pid)
{
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(out, O_CLOEXEC) != 0) {
		close(in[0]), close(in[1]);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	char get[] = "get", *argv[] = { prog, get, NULL };
	int rc = posix_spawnp(pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]), close(out[1]);
	if (rc != 0) {
		fprintf(stderr, "jitcache: cannot run %s, the credential helper docker's config "
			"names (%s); trying without credentials\n", prog, strerror(rc));
		close(in[1]), close(out[0]);
		return -1;
	}
	void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* a helper that reads nothing */
	ssize_t w = write(in[1], host, strlen(host));
	(void)w;
	signal(SIGPIPE, old);
	close(in[1]);
	return out[0];
}

/* Credentials from the helper docker's config names for the registry, as
 * docker runs it (docker-credential-NAME get; the registry's host on its
 * stdin; {"Username": ..., "Secret": ...} on its stdout).  The CLI only:
 * the library never starts a program inside the user's.  One that fails
 * is said in one line, and the registry tried without. */
static void helper_credentials(struct jc_registry *g, const char *host)
{
	const char *name = jc_registry_helper(g);
	char prog[96], text[16384], user[256], secret[8192];
	pid_t pid;
	int status = 0, fd;
	size_t n = 0;
	ssize_t got;
	if (!*name)
		return;
	snprintf(prog, sizeof prog, "docker-credential-%s", name);
	if ((fd = start_helper(prog, host, &pid)) < 0)
		return;
	while (n + 1 < sizeof text && (got = read(fd, text + n, sizeof text - 1 - n)) > 0)
		n += (size_t)got;
	text[n] = '\0';
	close(fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		 jc_oci_json_string(text, "Username", user, sizeof user) == 0 &&
		 jc_oci_json_string(text, "Secret", secret, sizeof secret) == 0 &&
		 jc_registry_set_credentials(g, user, secret) == 0;
	if (!ok)
		fprintf(stderr, "jitcache: %s get gave no credentials for %s (%s %d); trying "
			"without\n", prog, host, WIFEXITED(status) ? "exit" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	explicit_bzero(text, sizeof text);
	explicit_bzero(secret, sizeof secret);
}

/* ---- the registry ------------------------------------------------------------------ */

static struct jc_registry *open_registry(const struct jc_config *cfg, const char *url,
					 const char *ca_file, struct jc_remote_spec *sp,
					 int need_tag)
{
	const char *why;
	memset(sp, 0, sizeof *sp);
	sp->kind = JC_REMOTE_OCI;
	if (jc_remote_url_oci(url, &sp->at.registry, &why) != 0 ||
	    (need_tag && !sp->at.registry.tag[0])) {
		fprintf(stderr, "jitcache: %s is not oci://HOST[:PORT]/REPOSITORY%s (%s)\n", url,
			need_tag ? ":TAG" : "[:TAG]", need_tag && !why ? "no tag" : why ? why : "no tag");
		return NULL;
	}
	snprintf(sp->url, sizeof sp->url, "%s", url);
	snprintf(sp->ca_file, sizeof sp->ca_file, "%s", ca_file ? ca_file : "");
	struct jc_http_options o = {
		.spec = sp,
		.connect_timeout = cfg->remote_connect_timeout > 5 ? cfg->remote_connect_timeout : 5,
		.timeout = PACK_TIMEOUT,
		.backoff = 0,
		.limit = PACK_MAX,
	};
	struct jc_registry *g = jc_registry_open(&o, NULL);
	if (g)
		helper_credentials(g, sp->at.registry.host);
	return g;
}

/* Text for a JSON string: no quote, backslash or control character. */
static void plain(const char *in, char *out, size_t cap)
{
	size_t i = 0;
	for (; *in && i + 1 < cap; in++)
		out[i++] = (*in == '"' || *in == '\\' || (unsigned char)*in < ' ') ? '_' : *in;
	out[i] = '\0';
}

/* "a380=12.56.5,b580=20.1.0": each target with its IP version. */
static int targets_text(const char *list, char *out, size_t cap)
{
	char copy[1024], ip[32];
	size_t used = 0;
	out[0] = '\0';
	snprintf(copy, sizeof copy, "%s", list ? list : "");
	if (strcmp(copy, "all") == 0) /* every target warm --for all covers */
		for (size_t i = 0, n = 0; jc_warm_target_name(i) && n + 16 < sizeof copy; i++)
			n += (size_t)snprintf(copy + n, sizeof copy - n, "%s%s", i ? "," : "",
					      jc_warm_target_name(i));
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const char *v = jc_warm_target_ip(t, ip);
		if (!v && strcmp(t, "this") != 0) {
			fprintf(stderr, "jitcache: --for names an unknown target '%s' "
				"(jitcache warm --list-targets)\n", t);
			return -1;
		}
		used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s%s%s%s",
					 used ? "," : "", t, v ? "=" : "", v ? v : "");
	}
	return 0;
}

static char *pack_json(const char *fmt_head, const char *driver, const char *compiler,
		       const char *targets, const char *programs, const struct pack *p)
{
	char *json = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&json, &n);
	if (!f)
		return NULL;
	fprintf(f, "%s\"org.jitcache.driver\":\"%s\",\"org.jitcache.compiler\":\"%s\","
		"\"org.jitcache.targets\":\"%s\",\"org.jitcache.programs\":\"%s\","
		"\"org.jitcache.entries\":\"%llu\",\"org.jitcache.recipes\":\"%llu\","
		"\"org.jitcache.signed\":\"yes\"}", fmt_head, driver, compiler, targets, programs,
		(unsigned long long)p->entries, (unsigned long long)p->recipes);
	fclose(f);
	return json;
}

static char *pack_manifest(const char *config_digest, size_t config_size, const char *digest,
			   size_t size, const char *title, const char *annotations)
{
	char *json = NULL, date[32];
	size_t n = 0;
	time_t now = time(NULL);
	struct tm tm;
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	FILE *f = open_memstream(&json, &n);
	if (!f)
		return NULL;
	fprintf(f, "{\"schemaVersion\":2,\"mediaType\":\"" JC_OCI_MANIFEST "\","
		"\"artifactType\":\"" JC_OCI_PACK_ARTIFACT "\","
		"\"config\":{\"mediaType\":\"" JC_OCI_PACK_CONFIG "\",\"digest\":\"%s\",\"size\":%zu},"
		"\"layers\":[{\"mediaType\":\"" JC_OCI_PACK "\",\"digest\":\"%s\",\"size\":%zu,"
		"\"annotations\":{\"org.opencontainers.image.title\":\"%s\"}}],"
		"\"annotations\":{\"org.opencontainers.image.created\":\"%s\",%s}",
		config_digest, config_size, digest, size, title, date, annotations + 1);
	fclose(f);
	return json;
}

/* ---- indexes: one tag, a pack per driver and GPU set ----------------------------------- */

/* The next object of a JSON array at *at (braces matched, strings
 * skipped): its start and length, *at moved past it; -1 at the end. */
static int next_object(const char **at, const char **obj, size_t *len)
{
	const char *p = *at + strspn(*at, " \t\r\n,");
	if (*p != '{')
		return -1;
	int depth = 0, in_string = 0;
	for (const char *q = p; *q; q++) {
		if (in_string && *q == '\\' && q[1])
			q++;
		else if (in_string)
			in_string = *q != '"';
		else if (*q == '"')
			in_string = 1;
		else if (*q == '{')
			depth++;
		else if (*q == '}' && --depth == 0) {
			*obj = p, *len = (size_t)(q + 1 - p), *at = q + 1;
			return 0;
		}
	}
	return -1;
}

/* The first object of the array "manifests" of an index, or NULL if the
 * text is not an index. */
static const char *index_entries(const char *json)
{
	const char *m = strstr(json, "\"manifests\"");
	m = m ? m + strlen("\"manifests\"") : NULL;
	m = m ? m + strspn(m, " \t\r\n") : NULL;
	m = m && *m == ':' ? m + 1 + strspn(m + 1, " \t\r\n") : NULL;
	return m && *m == '[' ? m + 1 : NULL;
}

/* What a pack's annotations say it was built for. */
struct built_for {
	char driver[512], compiler[512], targets[1024];
};

static void read_built_for(const char *from, struct built_for *b)
{
	const char *ann = from ? strstr(from, "\"annotations\"") : NULL;
	if (!ann || jc_oci_json_string(ann, "org.jitcache.driver", b->driver, sizeof b->driver))
		snprintf(b->driver, sizeof b->driver, "(none named)");
	if (!ann || jc_oci_json_string(ann, "org.jitcache.compiler", b->compiler, sizeof b->compiler))
		snprintf(b->compiler, sizeof b->compiler, "(none named)");
	if (!ann || jc_oci_json_string(ann, "org.jitcache.targets", b->targets, sizeof b->targets))
		b->targets[0] = '\0';
}

static int same_build(const struct built_for *a, const struct built_for *b)
{
	return !strcmp(a->driver, b->driver) && !strcmp(a->compiler, b->compiler) &&
	       !strcmp(a->targets, b->targets);
}

/* An index's entry for a pack's manifest: the manifest's digest, size
 * and what it was built for, as annotations registry tools show. */
static void index_entry(FILE *f, const char *digest, size_t size, const struct built_for *b)
{
	fprintf(f, "{\"mediaType\":\"" JC_OCI_MANIFEST "\",\"artifactType\":\""
		JC_OCI_PACK_ARTIFACT "\",\"digest\":\"%s\",\"size\":%zu,\"annotations\":{"
		"\"org.jitcache.driver\":\"%s\",\"org.jitcache.compiler\":\"%s\","
		"\"org.jitcache.targets\":\"%s\"}}", digest, size, b->driver, b->compiler,
		b->targets);
}

/* The entries the tag holds now, but one for the same build (replaced),
 * written to f each with a comma after it: an index's, or a pack's lone
 * manifest pushed before indexes.  0, or -1 (said: the tag holds
 * something else, or the registry did not answer). */
static int keep_others(struct jc_registry *g, const char *tag, const char *shown,
		       const struct built_for *mine, FILE *f, int *kept)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct jc_http_reply r;
	struct built_for b;
	int code = jc_registry_manifest(g, tag, &r, delta), rc = 0;
	const char *body = (const char *)r.body, *at, *obj;
	size_t len;
	char type[128] = "", digest[80];
	if (code == 404) {
		free(r.body);
		return 0;
	}
	if (code != 200 || !body) {
		rc = -1;
	} else if ((at = index_entries(body))) {
		while (next_object(&at, &obj, &len) == 0) {
			char *one = strndup(obj, len);
			read_built_for(one, &b);
			if (one && !same_build(&b, mine))
				fprintf(f, "%s,", one), (*kept)++;
			free(one);
		}
	} else if (jc_oci_json_string(body, "artifactType", type, sizeof type) == 0 &&
		   strcmp(type, JC_OCI_PACK_ARTIFACT) == 0) {
		read_built_for(body, &b);
		jc_registry_digest(r.body, r.len, digest);
		if (!same_build(&b, mine))
			index_entry(f, digest, r.len, &b), fputc(',', f), (*kept)++;
	} else {
		fprintf(stderr, "jitcache: push: %s holds something that is not a jitcache pack; "
			"not replaced\n", shown);
		rc = -1;
	}
	free(r.body);
	return rc;
}

/* The index the tag gets: the pack's manifest (its digest and size) and
 * the others kept, newest last.  NULL if it cannot be made (said). */
static char *pack_index(struct jc_registry *g, const char *tag, const char *shown,
			const char *digest, size_t size, const struct built_for *mine, int *kept)
{
	char *json = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&json, &n);
	if (!f)
		return NULL;
	fputs("{\"schemaVersion\":2,\"mediaType\":\"" JC_OCI_INDEX "\",\"artifactType\":\""
	      JC_OCI_PACK_ARTIFACT "\",\"manifests\":[", f);
	int rc = keep_others(g, tag, shown, mine, f, kept);
	index_entry(f, digest, size, mine);
	fputs("]}", f);
	fclose(f);
	if (rc != 0)
		free(json), json = NULL;
	return json;
}

/* ---- push ---------------------------------------------------------------------------- */

void jc_push_usage(FILE *out)
{
	fputs("       jitcache push oci://HOST[:PORT]/REPO:TAG PACK [--for TARGETS]\n"
	      "                     [--programs NAMES] [--ca-file PEM]\n"
	      "                                      publish a signed pack (export, warm --export)\n"
	      "                                      as an OCI artifact naming this machine's\n"
	      "                                      driver and compiler, the targets and programs\n",
	      out);
}

struct args {
	const char *for_list, *programs, *ca_file;
};

static int parse_args(const char *cmd, int argc, char **argv, struct args *a, int operands)
{
	static const struct option longopts[] = {
		{ "for", required_argument, NULL, 'f' }, { "programs", required_argument, NULL, 'p' },
		{ "ca-file", required_argument, NULL, 'c' }, { NULL, 0, NULL, 0 },
	};
	int opt, pull = strcmp(cmd, "pull") == 0;
	memset(a, 0, sizeof *a);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (opt == 'c')
			a->ca_file = optarg;
		else if (opt == 'f')
			a->for_list = optarg;
		else if (opt == 'p' && !pull)
			a->programs = optarg;
		else
			return jc_admin_bad_option(cmd, opt, argv, longopts);
	}
	if (argc - optind != operands)
		return jc_admin_usage_error(cmd, pull ? "takes one oci://HOST/REPO[:TAG]"
						      : "takes oci://HOST/REPO:TAG and a PACK");
	return 0;
}

/* The blobs, the pack's manifest (by its digest), then the tag's index
 * with it: one tag holds a pack per driver, compiler and targets. */
static int push_pack(struct jc_registry *g, const struct jc_registry_url *u, const char *file,
		     const struct pack *p, const char *annotations, const struct built_for *b)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	char config_digest[80], digest[80], title[256], mdigest[80], shown[1200];
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	int kept = 0;
	plain(base, title, sizeof title);
	snprintf(shown, sizeof shown, "oci://%s/%s:%s", u->host, u->repo, u->tag);
	if (jc_registry_put_blob(g, annotations, strlen(annotations), config_digest, delta) != 0 ||
	    jc_registry_put_blob(g, p->bytes, p->size, digest, delta) != 0)
		return -1;
	char *m = pack_manifest(config_digest, strlen(annotations), digest, p->size, title,
				annotations), *ix = NULL;
	if (m)
		jc_registry_digest(m, strlen(m), mdigest);
	int rc = m ? jc_registry_put(g, mdigest, JC_OCI_MANIFEST, m, strlen(m), delta) : -1;
	if (rc == 0 && !(ix = pack_index(g, u->tag, shown, mdigest, strlen(m), b, &kept)))
		rc = -1;
	if (rc == 0)
		rc = jc_registry_put(g, u->tag, JC_OCI_INDEX, ix, strlen(ix), delta);
	free(m);
	free(ix);
	if (rc == 0)
		printf("pushed %s (%llu entries, %llu recipes, %zu bytes, signed) to "
		       "%s as %s, beside %d other pack%s\n", file, (unsigned long long)p->entries,
		       (unsigned long long)p->recipes, p->size, shown, mdigest, kept,
		       kept == 1 ? "" : "s");
	return rc;
}

int jc_push_main(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	struct args a;
	struct pack p;
	struct jc_remote_spec sp;
	struct built_for b;
	char programs[1024], head[8];
	(void)c;
	int rc = parse_args("push", argc, argv, &a, 2);
	if (rc)
		return rc;
	const char *url = argv[optind], *file = argv[optind + 1];
	if (targets_text(a.for_list, b.targets, sizeof b.targets) != 0)
		return JC_EXIT_USAGE;
	if (read_pack(file, &p) != 0 || scan_pack(&p, file) != 0) {
		free(p.bytes);
		return JC_EXIT_FAILED;
	}
	if (p.unsigned_n || !p.entries) {
		fprintf(stderr, "jitcache: push: %s %s; not pushed (set signing_key, then warm "
			"--export or export again)\n", file, p.entries ? "holds unsigned entries"
			: "holds no entry");
		free(p.bytes);
		return JC_EXIT_FAILED;
	}
	struct jc_registry *g = open_registry(cfg, url, a.ca_file, &sp, 1);
	driver_id(b.driver, sizeof b.driver);
	compiler_id(b.compiler, sizeof b.compiler);
	plain(a.programs ? a.programs : "", programs, sizeof programs);
	snprintf(head, sizeof head, "{");
	char *ann = g ? pack_json(head, b.driver, b.compiler, b.targets, programs, &p) : NULL;
	rc = ann && push_pack(g, &sp.at.registry, file, &p, ann, &b) == 0 ? 0 : JC_EXIT_FAILED;
	if (rc && g)
		fprintf(stderr, "jitcache: push: %s not pushed to %s\n", file, url);
	free(ann);
	free(p.bytes);
	jc_registry_close(g);
	return rc;
}

/* ---- pull ----------------------------------------------------------------------------- */

void jc_pull_usage(FILE *out)
{
	fputs("       jitcache pull oci://HOST[:PORT]/REPO[:TAG] [--for TARGETS] [--ca-file PEM]\n"
	      "                                      import the signed pack pushed there (TAG:\n"
	      "                                      latest) for this machine's driver and GPUs\n"
	      "                                      (--for: these targets' GPUs instead)\n",
	      out);
}

/* This machine, as a pack must match it: its driver and compiler builds
 * and its GPUs' IP versions (asked of the driver when first needed). */
struct machine {
	struct built_for b;
	const char *for_list; /* --for: these targets' GPUs instead */
	char ips[256], gpus[600];
	int n_gpus;           /* -2: not asked yet; -1: cannot be told */
};

static void ask_gpus(struct machine *me)
{
	char ip[32];
	if (me->n_gpus != -2)
		return;
	if (!me->for_list) {
		me->n_gpus = jc_warm_this_gpus(me->ips, sizeof me->ips, me->gpus, sizeof me->gpus);
		return;
	}
	char copy[1024];
	me->n_gpus = 0;
	me->ips[0] = '\0';
	snprintf(copy, sizeof copy, "%s", me->for_list);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (jc_warm_target_ip(t, ip))
			me->n_gpus += jc_warm_ip_list_add(me->ips, sizeof me->ips, ip);
	snprintf(me->gpus, sizeof me->gpus, "--for %s", me->for_list);
}

/* Whether targets ("a380=12.56.5,b580=20.1.0") cover every GPU of this
 * machine.  A pack naming none was made for its pusher's own GPUs, which
 * it does not say: taken (its entries' keys name their devices). */
static int gpus_covered(const char *targets, struct machine *me)
{
	if (!targets[0])
		return 1;
	ask_gpus(me);
	if (me->n_gpus <= 0)
		return 0;
	char copy[256];
	snprintf(copy, sizeof copy, "%s", me->ips);
	for (char *save = NULL, *ip = strtok_r(copy, ",", &save); ip;
	     ip = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(ip);
		int found = 0;
		for (const char *p = targets; !found && (p = strstr(p, ip)); p++)
			found = p > targets && p[-1] == '=' && (p[n] == ',' || !p[n]);
		if (!found)
			return 0;
	}
	return 1;
}

/* This machine's GPUs, for messages. */
static const char *gpus_text(struct machine *me)
{
	static char text[700];
	if (me->n_gpus > 0)
		return me->ips;
	snprintf(text, sizeof text, "%s (%s)", me->n_gpus ? "cannot be told" : "none", me->gpus);
	return text;
}

/* Does the manifest name this machine's driver, compiler and GPUs?  0 if
 * so; else one line said why not. */
static int pack_matches(const char *manifest, const char *shown, struct machine *me)
{
	char type[128];
	struct built_for b;
	if (jc_oci_json_string(manifest, "artifactType", type, sizeof type) != 0 ||
	    strcmp(type, JC_OCI_PACK_ARTIFACT) != 0) {
		fprintf(stderr, "jitcache: pull: %s is not a jitcache pack; nothing imported\n", shown);
		return -1;
	}
	read_built_for(strstr(manifest, "\"annotations\":{\"org.opencontainers.image.created\""),
		       &b);
	static const char *const what[] = { "driver", "compiler" };
	for (int i = 0; i < 2; i++) {
		const char *want = i ? b.compiler : b.driver, *have = i ? me->b.compiler : me->b.driver;
		if (strcmp(want, have) != 0) {
			fprintf(stderr, "jitcache: pull: %s was built for another %s (%s; this machine "
				"has %s); nothing imported\n", shown, what[i], want, have);
			return -1;
		}
	}
	if (!gpus_covered(b.targets, me)) {
		fprintf(stderr, "jitcache: pull: %s was built for other GPUs (%s; this machine's: "
			"%s%s); nothing imported\n", shown, b.targets, gpus_text(me),
			me->n_gpus < 0 ? ", name them with --for" : "");
		return -1;
	}
	return 0;
}

/* The index's entry for this machine: the newest whose driver and
 * compiler are this machine's and whose targets cover its GPUs.  0 (said
 * which, on stdout), or -1 (said why none). */
static int choose(const char *index, const char *shown, struct machine *me, char digest[80])
{
	struct built_for b, chosen;
	int n = 0, other_build = 0, other_gpus = 0, found = 0;
	const char *obj;
	size_t len;
	for (const char *at = index_entries(index); at && next_object(&at, &obj, &len) == 0; n++) {
		char *one = strndup(obj, len), d[80];
		read_built_for(one, &b);
		if (!one || jc_oci_json_string(one, "digest", d, sizeof d) != 0)
			other_build++;
		else if (strcmp(b.driver, me->b.driver) || strcmp(b.compiler, me->b.compiler))
			other_build++;
		else if (!gpus_covered(b.targets, me))
			other_gpus++;
		else
			snprintf(digest, 80, "%s", d), chosen = b, found = 1;
		free(one);
	}
	if (found)
		printf("pull: %s: chose the pack for %s (this machine's driver and compiler, "
		       "GPUs %s) of %d: %s\n", shown, chosen.targets[0] ? chosen.targets
		       : "its pusher's GPUs", me->n_gpus == -2 ? "not asked" : gpus_text(me), n,
		       digest);
	else
		fprintf(stderr, "jitcache: pull: none of the %d packs of %s is for this machine "
			"(%d for another driver or compiler, %d for other GPUs; this machine's "
			"GPUs: %s%s); nothing imported\n", n, shown, other_build, other_gpus,
			gpus_text(me), me->n_gpus < 0 ? ", name them with --for" : "");
	return found ? 0 : -1;
}

/* The pack's layer: its digest and size; 0 if there is one. */
static int pack_layer(const char *manifest, char digest[80], int64_t *size)
{
	const char *layers = strstr(manifest, "\"layers\"");
	char type[80];
	if (!layers || jc_oci_json_string(layers, "mediaType", type, sizeof type) != 0 ||
	    strcmp(type, JC_OCI_PACK) != 0 || jc_oci_json_string(layers, "digest", digest, 80) != 0)
		return -1;
	*size = jc_oci_json_number(layers, "size");
	return *size >= 0 ? 0 : -1;
}

/* Import the pack's bytes as `jitcache import` takes a file. */
static int import_bytes(struct jc_cache *c, const struct pack *p, const char *shown)
{
	char tmp[] = "/tmp/jitcache-pull.XXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0 || write(fd, p->bytes, p->size) != (ssize_t)p->size) {
		fprintf(stderr, "jitcache: pull: cannot write %s\n", tmp);
		if (fd >= 0)
			close(fd), unlink(tmp);
		return JC_EXIT_FAILED;
	}
	close(fd);
	struct jc_transfer t;
	int rc = jc_cache_import(c, tmp, stderr, &t);
	unlink(tmp);
	if (rc < 0)
		return JC_EXIT_FAILED;
	printf("pulled %s: imported %llu entries and %llu recipes, %llu already present, "
	       "%llu refused\n", shown, (unsigned long long)(t.entries),
	       (unsigned long long)t.recipes, (unsigned long long)t.present,
	       (unsigned long long)t.refused);
	return t.refused ? JC_EXIT_FAILED : 0;
}

/* The manifest of ref: a tag's index leads to the pack chosen for this
 * machine (fetched by its digest, and checked against it).  200, or
 * another answer (-2: said here). */
static int fetch_manifest(struct jc_registry *g, const char *ref, const char *shown,
			  struct machine *me, struct jc_http_reply *m)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	char digest[80], got[80];
	int code = jc_registry_manifest(g, ref, m, delta);
	if (code != 200 || !m->body || !index_entries((char *)m->body))
		return code;
	int chosen = choose((char *)m->body, shown, me, digest);
	free(m->body);
	m->body = NULL;
	if (chosen != 0)
		return -2;
	code = jc_registry_manifest(g, digest, m, delta);
	if (code != 200 || !m->body)
		return code;
	jc_registry_digest(m->body, m->len, got);
	if (strcmp(digest, got) == 0)
		return code;
	fprintf(stderr, "jitcache: pull: %s: manifest %.20s... is not what its digest says; "
		"nothing imported\n", shown, digest);
	return -2;
}

static int fetch_pack(struct jc_registry *g, const char *tag, const char *shown,
		      struct machine *me, struct pack *p)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct jc_http_reply m, b;
	char digest[80];
	int64_t size;
	int code = fetch_manifest(g, tag, shown, me, &m), rc = -1;
	if (code == 404)
		fprintf(stderr, "jitcache: pull: %s does not exist; nothing imported\n", shown);
	else if (code >= 0 && (code != 200 || !m.body)) /* (-1 and refusals: said) */
		fprintf(stderr, "jitcache: pull: %s cannot be read (HTTP %d); nothing imported\n",
			shown, code);
	else if (code != 200 || !m.body)
		;
	else if (pack_matches((char *)m.body, shown, me) != 0)
		;
	else if (pack_layer((char *)m.body, digest, &size) != 0 || (uint64_t)size > PACK_MAX)
		fprintf(stderr, "jitcache: pull: %s holds no pack jitcache reads; nothing imported\n",
			shown);
	else if ((code = jc_registry_blob(g, digest, PACK_MAX, &b, delta)) != 200 || !b.body) {
		if (code > 0) /* (-1, 0: not its digest, and refusals: said) */
			fprintf(stderr, "jitcache: pull: %s: its pack cannot be read (HTTP %d); "
				"nothing imported\n", shown, code);
		free(b.body);
	} else
		*p = (struct pack){ .bytes = b.body, .size = b.len }, rc = 0;
	free(m.body);
	return rc;
}

int jc_pull_main(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	struct args a;
	struct pack p = { 0 };
	struct jc_remote_spec sp;
	char shown[1200];
	int rc = parse_args("pull", argc, argv, &a, 1);
	if (rc)
		return rc;
	const char *url = argv[optind];
	if (!cfg->trusted_keys[0]) {
		fprintf(stderr, "jitcache: pull: a pack is code: set trusted_keys to the public key "
			"it was signed with; nothing pulled\n");
		return JC_EXIT_FAILED;
	}
	char named[1024];
	if (a.for_list && targets_text(a.for_list, named, sizeof named) != 0)
		return JC_EXIT_USAGE;
	struct jc_registry *g = open_registry(cfg, url, a.ca_file, &sp, 0);
	if (!g)
		return JC_EXIT_FAILED;
	const struct jc_registry_url *u = &sp.at.registry;
	const char *tag = u->tag[0] ? u->tag : "latest";
	struct machine me = { .for_list = a.for_list, .n_gpus = -2 };
	driver_id(me.b.driver, sizeof me.b.driver);
	compiler_id(me.b.compiler, sizeof me.b.compiler);
	snprintf(shown, sizeof shown, "oci://%s/%s:%s", u->host, u->repo, tag);
	rc = JC_EXIT_FAILED;
	if (fetch_pack(g, tag, shown, &me, &p) == 0 && scan_pack(&p, shown) == 0) {
		if (p.unsigned_n)
			fprintf(stderr, "jitcache: pull: %s holds %llu unsigned entries; nothing "
				"imported\n", shown, (unsigned long long)p.unsigned_n);
		else
			rc = import_bytes(c, &p, shown);
	}
	free(p.bytes);
	jc_registry_close(g);
	return rc;
}
