// SPDX-License-Identifier: MIT
/*
 * test_key — the parts of key/ below the requests: the fingerprint, the
 * memo, the compiler environment, GNU build-ids (from memory and from
 * files), the identity of compiler libraries, and the Level Zero request's
 * key.  Library copies live in a fresh temporary directory.
 */
#include "key/compiler.h"
#include "key/elfnote.h"
#include "key/fingerprint.h"
#include "key/memo.h"
#include "key/ze_request.h"
#include "tests/helpers/ze_spec_module.h"
#include "tests/unit/check.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static int same(const struct jc_key *a, const struct jc_key *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* ---- fingerprint ---------------------------------------------------------- */

static void two_strings(const char *a, const char *b, struct jc_key *k)
{
	struct jc_fp *fp = jc_fp_begin("test");
	jc_fp_str(fp, "x", a);
	jc_fp_str(fp, "x", b);
	jc_fp_end(fp, k);
}

static void test_fingerprint(void)
{
	struct jc_key k1, k2;
	two_strings("ab", "c", &k1);
	two_strings("a", "bc", &k2);
	CHECK(!same(&k1, &k2), "fields are length-prefixed: ab|c is not a|bc");
	two_strings("", "c", &k1);
	two_strings(NULL, "c", &k2);
	CHECK(!same(&k1, &k2), "NULL and \"\" differ");
	two_strings("a", "b", &k1);
	two_strings("a", "b", &k2);
	CHECK(same(&k1, &k2), "the same fields give the same key");
	struct jc_fp *fp = jc_fp_begin("other");
	jc_fp_str(fp, "x", "a");
	jc_fp_str(fp, "x", "b");
	jc_fp_end(fp, &k2);
	CHECK(!same(&k1, &k2), "the api label is in the key");
	jc_fp_str(NULL, "x", "a");
	jc_fp_end(NULL, &k1);
	CHECK(k1.bytes[0] == 0 && k1.bytes[15] == 0, "a NULL fingerprint does nothing");
}

/* ---- memo ------------------------------------------------------------------ */

JC_MEMO(small, 2);

static void test_memo(void)
{
	int a, b, c;
	struct jc_key ka = { { 1 } }, kb = { { 2 } }, kc = { { 3 } }, out;
	CHECK(jc_memo_get(&small, &a, &out) == -1, "unknown handle: -1");
	jc_memo_put(&small, &a, &ka);
	jc_memo_put(&small, &a, &kb);
	CHECK(jc_memo_get(&small, &a, &out) == 0 && same(&out, &ka), "the first put counts");
	jc_memo_put(&small, &b, &kb);
	jc_memo_put(&small, &c, &kc);
	CHECK(jc_memo_get(&small, &b, &out) == 0 && same(&out, &kb), "second handle kept");
	CHECK(jc_memo_get(&small, &c, &out) == -1, "a full table just forgets");
}

/* ---- environment ----------------------------------------------------------- */

static void env_key(const char *const *env, struct jc_key *k)
{
	struct jc_fp *fp = jc_fp_begin("env");
	jc_fp_environment_of(fp, env);
	jc_fp_end(fp, k);
}

static void test_environment(void)
{
	struct jc_key base, k;
	const char *e0[] = { "PATH=/bin", "IGC_Opt=1", "POCL_DEVICES=cpu", NULL };
	const char *e1[] = { "POCL_DEVICES=cpu", "HOME=/x", "IGC_Opt=1", NULL };
	const char *e2[] = { "PATH=/bin", "IGC_Opt=2", "POCL_DEVICES=cpu", NULL };
	const char *e3[] = { "PATH=/bin", "IGC_Opt=1", "POCL_DEVICES=cpu", "POCL_KERNEL_CACHE=0",
		       "POCL_CACHE_DIR=/c", "CUDA_CACHE_PATH=/c", "NEO_CACHE_DIR=/c", NULL };
	const char *e4[] = { "PATH=/bin", "IGC_Opt=1", "POCL_DEVICES=cpu", "UseBindlessMode=0", NULL };
	const char *e5[] = { "NEOReadDebugKeys=1", "PATH=/bin", "IGC_Opt=1", "POCL_DEVICES=cpu", NULL };
	const char *e6[] = { "NEOReadDebugKeys=1", "PATH=/bin", "IGC_Opt=1", "POCL_DEVICES=cpu",
		       "UseBindlessMode=0", NULL };
	const char *e7[] = { "NEOReadDebugKeys=0", "PATH=/bin", "IGC_Opt=1", "POCL_DEVICES=cpu",
		       "UseBindlessMode=0", NULL };
	const char *e8[] = { "NEOReadDebugKeys=0", "PATH=/bin", "IGC_Opt=1", "POCL_DEVICES=cpu", NULL };
	env_key(e0, &base);
	env_key(e1, &k);
	CHECK(same(&base, &k), "order and unrelated variables do not matter");
	env_key(e2, &k);
	CHECK(!same(&base, &k), "an IGC_ value matters");
	env_key(e3, &k);
	CHECK(same(&base, &k), "cache switches do not matter");
	env_key(e4, &k);
	CHECK(same(&base, &k), "CamelCase variables without NEOReadDebugKeys do not matter");
	env_key(e5, &k);
	CHECK(same(&base, &k), "NEOReadDebugKeys=1 alone does not matter");
	env_key(e6, &k);
	CHECK(!same(&base, &k), "with NEOReadDebugKeys=1 a debug key matters");
	env_key(e8, &base);
	env_key(e7, &k);
	CHECK(same(&base, &k), "with NEOReadDebugKeys=0 it does not");
}

/* The stepping a driver without an IP version is told to simulate: keyed
 * (another entry), as the driver reads it (only with NEOReadDebugKeys, in
 * any of NEO's forms). */
static void revision_key(struct jc_key *k)
{
	struct jc_fp *fp = jc_fp_begin("ze.device");
	jc_fp_neo_revision_override(fp);
	jc_fp_end(fp, k);
}

static void test_revision_override(void)
{
	struct jc_key none, r4, r8, k;
	unsetenv("OverrideRevision");
	unsetenv("NEO_OverrideRevision");
	setenv("NEOReadDebugKeys", "1", 1);
	revision_key(&none);
	setenv("OverrideRevision", "4", 1);
	revision_key(&r4);
	setenv("OverrideRevision", "8", 1);
	revision_key(&r8);
	CHECK(!same(&none, &r4) && !same(&r4, &r8), "each simulated stepping its own identity");
	unsetenv("OverrideRevision");
	setenv("NEO_OverrideRevision", "4", 1);
	revision_key(&k);
	CHECK(same(&k, &r4), "NEO_OverrideRevision is the same key");
	setenv("NEOReadDebugKeys", "0", 1);
	revision_key(&k);
	CHECK(same(&k, &none), "without NEOReadDebugKeys the driver reads none: none keyed");
	unsetenv("NEO_OverrideRevision");
	unsetenv("NEOReadDebugKeys");
}

/* Each variable, added to a simulated GPU's environment: does it change the key? */
static int changes_key(const char *var)
{
	const char *sim[] = { "NEOReadDebugKeys=1", "SetCommandStreamReceiver=1",
		"ProductFamilyOverride=dg2", "PATH=/bin", NULL, NULL };
	struct jc_key base, k;
	env_key(sim, &base);
	sim[4] = var;
	env_key(sim, &k);
	return !same(&base, &k);
}

static int changes_key_plain(const char *var)
{
	const char *plain[] = { "PATH=/bin", NULL, NULL };
	struct jc_key base, k;
	env_key(plain, &base);
	plain[1] = var;
	env_key(plain, &k);
	return !same(&base, &k);
}

static void test_environment_lists(void)
{
	static const char *const in_key[] = {
		"NEO_FP64_EMULATION=1", "ZET_ENABLE_PROGRAM_DEBUGGING=1",
		"ZET_ENABLE_PROGRAM_INSTRUMENTATION=1", "ONEAPI_PVC_SEND_WAR_WA=0", "CM_FE_DIR=/x",
		"IGC_EnableZEBinary=0", "OverrideDefaultFP64Settings=1",
	};
	for (size_t i = 0; i < sizeof in_key / sizeof *in_key; i++) {
		CHECK(changes_key(in_key[i]), "%s is in the key", in_key[i]);
		CHECK(changes_key_plain(in_key[i]), "%s is in the key without NEOReadDebugKeys",
		      in_key[i]);
	}
	static const char *const debug_keys[] = {
		"UseBindlessMode=0", "NEO_L0_UseBindlessMode=0", "NEO_UseBindlessMode=0",
		"NEO_OCL_UseBindlessMode=0", "DisableZebin=1", "Printf=1", "Logarithm=1",
	};
	for (size_t i = 0; i < sizeof debug_keys / sizeof *debug_keys; i++) {
		CHECK(changes_key(debug_keys[i]), "debug key %s is in the key", debug_keys[i]);
		CHECK(!changes_key_plain(debug_keys[i]),
		      "... but not without NEOReadDebugKeys (%s)", debug_keys[i]);
	}
	static const char *const left_out[] = {
		"SetCommandStreamReceiver=2", "UseAubStream=0", "ProductFamilyOverride=bmg",
		"ForceDeviceId=56A0", "OverrideRevision=8", "HardwareInfoOverride=2x4x16",
		"OverrideDeviceName=Intel(R) Arc(TM) B580 Graphics",
		"UseExternalAllocatorForSshAndDsh=0", "OverrideMaxWorkgroupSize=1024",
		"NEO_L0_OverrideMaxWorkgroupSize=1024", "PrintDebugMessages=0", "PrintDebugSettings=1",
		"LogApiCalls=1", "NEO_CACHE_PERSISTENT=0", "IGC_ShaderDumpEnable=1",
		"ZE_AFFINITY_MASK=0", "ZES_ENABLE_SYSMAN=1",
	};
	for (size_t i = 0; i < sizeof left_out / sizeof *left_out; i++)
		CHECK(!changes_key(left_out[i]), "%s is left out of the key", left_out[i]);
	const char *prefixed[] = { "NEO_L0_NEOReadDebugKeys=1", "UseBindlessMode=0", NULL };
	const char *none[] = { "UseBindlessMode=0", NULL };
	struct jc_key a, b;
	env_key(prefixed, &a);
	env_key(none, &b);
	CHECK(!same(&a, &b), "NEOReadDebugKeys counts with a prefix too");
}

/* The key format: a known request's key, from this version and from version
 * 1 (recorded from the code before this version).  A change to what a key
 * hashes changes the first: bump JC_KEY_VERSION then, so that no entry of
 * the old format is ever looked up, and record the new value here. */
static void test_key_version(void)
{
	const char *env[] = { "NEOReadDebugKeys=1", "ProductFamilyOverride=dg2",
			      "NEO_FP64_EMULATION=1", "IGC_Opt=1", NULL };
	struct jc_fp *fp = jc_fp_begin("ze.module");
	jc_fp_bytes(fp, "spirv", "\x03\x02\x23\x07", 4);
	jc_fp_str(fp, "flags", "");
	jc_fp_environment_of(fp, env);
	struct jc_key k;
	jc_fp_end(fp, &k);
	char hex[2 * JC_KEY_BYTES + 1];
	jc_key_hex(&k, hex);
	CHECK(JC_KEY_VERSION == 2, "key version 2");
	CHECK(strcmp(hex, "7a52dfa8aa2868edfeda6a8847af86f9") == 0,
	      "the key format is version 2's (%s)", hex);
	CHECK(strcmp(hex, "0cfa6246017c6eab8cc99ee4d87aa8c4") != 0,
	      "version 1's key for the same request is another: its entries are never looked up");
}

/* ---- build-ids --------------------------------------------------------------- */

struct image {
	const char *name;
	char path[PATH_MAX];
	uint8_t id[JC_BUILD_ID_MAX];
	size_t n;
};

static int find_image(struct dl_phdr_info *info, size_t size, void *data)
{
	struct image *f = data;
	const char *slash = strrchr(info->dlpi_name, '/');
	if (!slash || strcmp(slash + 1, f->name) != 0)
		return 0;
	snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
	for (int i = 0; i < info->dlpi_phnum && !f->n; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE)
			f->n = jc_elf_notes_build_id(
				(const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr),
				info->dlpi_phdr[i].p_filesz, f->id, sizeof f->id);
	return 1;
}

static void test_build_ids(void)
{
	struct image libc = { .name = "libc.so.6" };
	CHECK(dl_iterate_phdr(find_image, &libc) == 1, "libc is loaded (%s)", libc.path);
	uint8_t id[JC_BUILD_ID_MAX];
	int fd = open(libc.path, O_RDONLY);
	size_t n = fd >= 0 ? jc_elf_file_build_id(fd, id, sizeof id) : 0;
	if (fd >= 0)
		close(fd);
	CHECK(n > 0 && n == libc.n && memcmp(id, libc.id, n) == 0,
	      "libc's build-id from memory is its file's (%zu bytes)", n);
	CHECK(jc_elf_notes_build_id(libc.id, 0, id, sizeof id) == 0, "no notes: none");

	/* A note by hand: name "GNU", type 3, 4 bytes of id, after another note. */
	uint32_t notes[] = { 4, 4, 1, 0x00554e47, 0xdeadbeef,
			     4, 4, 3, 0x00554e47, 0x04030201 };
	CHECK(jc_elf_notes_build_id(notes, sizeof notes, id, sizeof id) == 4 && id[0] == 1 &&
	      id[3] == 4, "the build-id note after another note");
	CHECK(jc_elf_notes_build_id(notes, sizeof notes, id, 3) == 0, "longer than cap: none");
	CHECK(jc_elf_notes_build_id(notes, sizeof notes - 1, id, sizeof id) == 0,
	      "a note cut short: none");
	notes[5] = 0xfffffffcu; /* namesz that would wrap a 32-bit offset */
	CHECK(jc_elf_notes_build_id(notes, sizeof notes, id, sizeof id) == 0,
	      "a huge name size: none, no read outside");
}

/* ---- library identity -------------------------------------------------------- */

static char dir[PATH_MAX];

static void copy_file(const char *from, const char *name)
{
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s/%s'", from, dir, name);
	if (system(cmd) != 0)
		fprintf(stderr, "test_key: %s failed\n", cmd);
}

static void lib_path(const char *name, char out[2 * PATH_MAX])
{
	snprintf(out, 2 * PATH_MAX, "%s/%s", dir, name);
}

/* Each list is identified once per process, by its address: every check
 * uses a list of its own. */
#define LIST(var) static const char *const var[] = { "libjc_a.so", "libjc_b.so", NULL }
LIST(l_before_load);
LIST(l_first);
LIST(l_again);
LIST(l_changed);
LIST(l_restored);
LIST(l_absent);
LIST(l_stat1);
LIST(l_stat2);

static void identity(const char *const *list, struct jc_key *k)
{
	struct jc_fp *fp = jc_fp_begin("libs");
	jc_fp_libraries(fp, list);
	jc_fp_end(fp, k);
}

static void test_libraries(void)
{
	/* Two small libraries jitcache itself needs, to copy. */
	struct image zstd = { .name = "libzstd.so.1" }, inih = { .name = "libinih.so.1" };
	void *z = dlopen("libzstd.so.1", RTLD_NOW), *i = dlopen("libinih.so.1", RTLD_NOW);
	if (!z || !i || dl_iterate_phdr(find_image, &zstd) != 1 ||
	    dl_iterate_phdr(find_image, &inih) != 1) {
		CHECK(0, "libzstd and libinih can be loaded");
		return;
	}
	char a[2 * PATH_MAX], b[2 * PATH_MAX];
	lib_path("libjc_a.so", a);
	lib_path("libjc_b.so", b);
	copy_file(zstd.path, "libjc_a.so");
	copy_file(zstd.path, "libjc_b.so");
	struct jc_key k0, k1, k2, k;
	/* Nothing loaded: every library is absent. */
	identity(l_before_load, &k0);
	void *handle = dlopen(a, RTLD_NOW | RTLD_LOCAL);
	CHECK(handle != NULL, "a copy of libzstd loads as libjc_a.so");
	identity(l_first, &k1);
	CHECK(!same(&k0, &k1), "once one is loaded, the list is found");
	identity(l_again, &k2);
	CHECK(same(&k1, &k2), "the same libraries, the same identity");

	/* libjc_b.so is not loaded: found beside libjc_a.so, and read from its
	 * file (the lazily loaded compiler). */
	copy_file(inih.path, "libjc_b.so");
	identity(l_changed, &k);
	CHECK(!same(&k1, &k), "another build of a library not yet loaded changes the key");
	copy_file(zstd.path, "libjc_b.so");
	identity(l_restored, &k);
	CHECK(same(&k1, &k), "the first build again: the first key again");
	unlink(b);
	identity(l_absent, &k);
	CHECK(!same(&k1, &k), "a library gone changes the key");

	/* Without a build-id: size, mtime and inode. */
	char cmd[6 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "objcopy --remove-section=.note.gnu.build-id '%s' '%s' 2>/dev/null",
		 zstd.path, b);
	if (system(cmd) == 0) {
		identity(l_stat1, &k1);
		struct timeval old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
		utimes(b, old);
		identity(l_stat2, &k2);
		CHECK(!same(&k1, &k2), "without a build-id, a new mtime changes the key");
	} else {
		printf("skip without a build-id: objcopy not available\n");
	}
	if (handle)
		dlclose(handle);
	dlclose(z);
	dlclose(i);
}

/* ---- the Level Zero request ---------------------------------------------------- */

static void test_ze_request(void)
{
	uint32_t module[128];
	size_t words = spec_module(module);
	uint32_t ids[] = { 7 };
	uint32_t v1 = 3, v2 = 4;
	const void *values1[] = { &v1 }, *values2[] = { &v2 }, *none[] = { NULL };
	struct jc_key device = { { 9 } }, other = { { 8 } }, k1, k2;
	struct jc_ze_input in = { (const uint8_t *)module, 4 * words, NULL, 1, ids, values1 };
	CHECK(jc_ze_key(1, &in, &device, &k1) == 0, "a module with a spec constant is keyed");
	in.constant_values = values2;
	CHECK(jc_ze_key(1, &in, &device, &k2) == 0 && !same(&k1, &k2),
	      "another constant value, another key");
	in.constant_values = values1;
	CHECK(jc_ze_key(1, &in, &other, &k2) == 0 && !same(&k1, &k2),
	      "another device, another key");
	in.flags = "";
	CHECK(jc_ze_key(1, &in, &device, &k2) == 0 && same(&k1, &k2),
	      "empty flags are no flags");
	in.flags = "-ze-opt-disable";
	CHECK(jc_ze_key(1, &in, &device, &k2) == 0 && !same(&k1, &k2), "flags are in the key");
	in.flags = NULL;
	in.constant_values = none;
	CHECK(jc_ze_key(1, &in, &device, &k2) == -1, "a NULL constant value: not cached");
	uint32_t unknown[] = { 42 };
	in.constant_values = values1;
	in.constant_ids = unknown;
	CHECK(jc_ze_key(1, &in, &device, &k2) == -1, "an undeclared SpecId: not cached");
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/jc-test-key.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("temporary directory");
		return 1;
	}
	test_fingerprint();
	test_memo();
	test_environment();
	test_revision_override();
	test_environment_lists();
	test_key_version();
	test_build_ids();
	test_libraries();
	test_ze_request();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		perror("cleaning up");
	return check_summary();
}
