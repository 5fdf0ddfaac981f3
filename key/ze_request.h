// SPDX-License-Identifier: MIT
/*
 * ze_request.h — a Level Zero module request as the key sees it, and its key.
 *
 * A request is one SPIR-V input, or several to be linked into one module
 * (ze_module_program_exp_desc_t).  Each input brings its build flags and
 * specialization constants; the driver's pointers are borrowed, not copied.
 *
 *   struct jc_ze_input in = { spirv, size, flags, n, ids, values };
 *   if (jc_ze_key(1, &in, &device_identity, &key) == 0) ...cacheable...
 *
 * device_identity is the hash of the device and its drivers, which the
 * caller asks the driver for.  jc_ze_key() returns -1, after one info-level
 * line (once per process), when a specialization constant is not a scalar
 * the SPIR-V declares (its value's size is then unknown, key/spirv.h) or a
 * value pointer is NULL; then the call must pass through uncached.  This file
 * knows no Level Zero types: the fields are those of ze_module_constants_t.
 */
#ifndef JITCACHE_KEY_ZE_REQUEST_H
#define JITCACHE_KEY_ZE_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"

struct jc_ze_input {
	const uint8_t *spirv;
	size_t size;
	const char *flags;              /* NULL: none */
	uint32_t n_constants;
	const uint32_t *constant_ids;
	const void *const *constant_values;
};

int jc_ze_key(uint32_t count, const struct jc_ze_input *inputs, const struct jc_key *device,
	      struct jc_key *key);

#endif
