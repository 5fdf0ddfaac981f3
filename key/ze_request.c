// SPDX-License-Identifier: MIT
/* The key of a Level Zero module request (see ze_request.h). */
#include "key/ze_request.h"

#include "config/log.h"
#include "key/compiler.h"
#include "key/fingerprint.h"
#include "key/spirv.h"

#include <stdlib.h>

/* The driver and compiler libraries whose builds decide the native code.
 * IGC comes first: Intel's driver loads it at zeInit, so it is always found
 * loaded, and the others are then found beside it whether or not they are
 * loaded, or loaded under another name (jc_fp_libraries() looks beside the
 * first one found).  IGC 2.x (libigc.so.2, libigdfcl.so.2: Intel's drivers
 * since 2025) and 1.x are both listed: a name that is absent is hashed as
 * absent.  The Level Zero loader compiles nothing and is left out: whether
 * a program reached the driver through it must not change the key. */
static const char *const ze_compiler_libs[] = {
	"libigc.so.2", "libigdfcl.so.2", "libigc.so.1", "libigdfcl.so.1",
	"libze_intel_gpu.so.1", NULL,
};

static int hash_constants(struct jc_fp *fp, const struct jc_ze_input *in)
{
	uint32_t n = in->n_constants;
	jc_fp_u64(fp, "spec.count", n);
	if (n == 0)
		return 0;
	uint32_t *sizes = malloc(n * sizeof *sizes);
	if (!sizes || jc_spirv_spec_sizes(in->spirv, in->size, n, in->constant_ids, sizes) != 0) {
		free(sizes);
		JC_LOG_ONCE(JC_LOG_INFO, "zeModuleCreate with specialization constants that the "
			    "SPIR-V does not declare as scalars: not cached");
		return -1;
	}
	int ok = 1;
	for (uint32_t i = 0; i < n && ok; i++) {
		ok = in->constant_values[i] != NULL;
		jc_fp_u64(fp, "spec.id", in->constant_ids[i]);
		if (ok)
			jc_fp_bytes(fp, "spec.value", in->constant_values[i], sizes[i]);
	}
	free(sizes);
	return ok ? 0 : -1;
}

int jc_ze_key(uint32_t count, const struct jc_ze_input *inputs, const struct jc_key *device,
	      struct jc_key *key)
{
	struct jc_fp *fp = jc_fp_begin("ze.module");
	if (!fp)
		return -1;
	int ok = 1;
	jc_fp_u64(fp, "inputs", count);
	for (uint32_t i = 0; i < count && ok; i++) {
		const struct jc_ze_input *in = &inputs[i];
		jc_fp_bytes(fp, "spirv", in->spirv, in->size);
		if (i == 0) /* explain's "differs only in debug information" */
			jc_fp_note_u64(fp, "spirv.semantic", jc_spirv_semantic_hash(in->spirv, in->size));
		/* The driver reads no flags and empty flags alike. */
		jc_fp_str(fp, "flags", in->flags ? in->flags : "");
		ok = hash_constants(fp, in) == 0;
	}
	jc_fp_bytes(fp, "device", device->bytes, sizeof device->bytes);
	jc_fp_libraries(fp, ze_compiler_libs);
	jc_fp_environment(fp);
	jc_fp_end(fp, key);
	return ok ? 0 : -1;
}
