// SPDX-License-Identifier: MIT
/*
 * test_cl_payload — the bytes of one OpenCL cache entry (shim/cl/cl_payload.c,
 * compiled in): what is encoded decodes the same, and anything that is not
 * exactly one well-formed record is refused.  Every buffer decoded is a copy
 * of exactly its size, so that AddressSanitizer catches a read past it.
 */
#include "shim/cl/cl_payload.c"
#include "tests/unit/check.h"

static int decode_copy(const void *bytes, size_t size, struct jc_cl_payload *p, void **copy)
{
	*copy = malloc(size ? size : 1);
	memcpy(*copy, bytes, size);
	return jc_cl_payload_decode(*copy, size, p);
}

int main(void)
{
	const unsigned char bin0[] = "binary zero", bin1[] = { 1 };
	const unsigned char *binaries[] = { bin0, bin1 };
	size_t binary_sizes[] = { sizeof bin0, sizeof bin1 };
	const char *logs[] = { "warning: x\n", "" };
	size_t log_sizes[] = { 12, 0 };
	struct jc_cl_payload in = { .ndev = 2, .binaries = binaries, .binary_sizes = binary_sizes,
				    .logs = logs, .log_sizes = log_sizes }, out;
	void *bytes, *copy;
	size_t size;
	CHECK(jc_cl_payload_encode(&in, &bytes, &size) == 0, "two devices encode");
	CHECK(decode_copy(bytes, size, &out, &copy) == 0, "and decode");
	CHECK(out.ndev == 2 && out.binary_sizes[0] == sizeof bin0 && out.binary_sizes[1] == 1 &&
	      memcmp(out.binaries[0], bin0, sizeof bin0) == 0 && out.binaries[1][0] == 1 &&
	      out.log_sizes[0] == 12 && memcmp(out.logs[0], logs[0], 12) == 0 &&
	      out.log_sizes[1] == 0, "the same binaries and logs, in order");
	jc_cl_payload_free(&out);
	free(copy);

	unsigned char *bad = malloc(size + 1);
	int refused = 1;
	for (size_t cut = 0; cut < size; cut++) /* every shorter prefix */
		refused &= decode_copy(bytes, cut, &out, &copy) == -1, free(copy);
	CHECK(refused, "every truncation is refused");
	memcpy(bad, bytes, size);
	bad[size] = 0;
	CHECK(decode_copy(bad, size + 1, &out, &copy) == -1, "a trailing byte is refused");
	free(copy);
	struct { size_t at; unsigned char value; const char *what; } damage[] = {
		{ 0, 'X', "magic" }, { 4, 2, "version" }, { 8, 0, "no devices" },
		{ 9, 1, "258 devices" }, { 12, 1, "the reserved word" },
		{ 16, 0, "an empty binary" }, { 23, 0x80, "a huge binary size" },
		{ 31, 0x80, "a huge log size" },
	};
	for (size_t i = 0; i < sizeof damage / sizeof *damage; i++) {
		memcpy(bad, bytes, size);
		bad[damage[i].at] = damage[i].value;
		CHECK(decode_copy(bad, size, &out, &copy) == -1, "refused: %s", damage[i].what);
		free(copy);
	}
	free(bad);
	free(bytes);

	/* A failure record: version 2, the error, logs only. */
	const unsigned char *none[] = { NULL, NULL };
	size_t no_sizes[] = { 0, 0 };
	struct jc_cl_payload fail = { .ndev = 2, .binaries = none, .binary_sizes = no_sizes,
				      .logs = logs, .log_sizes = log_sizes,
				      .status = CL_BUILD_PROGRAM_FAILURE };
	CHECK(jc_cl_payload_encode(&fail, &bytes, &size) == 0, "a failure record encodes");
	CHECK(decode_copy(bytes, size, &out, &copy) == 0 && out.status == CL_BUILD_PROGRAM_FAILURE &&
	      out.ndev == 2 && out.binary_sizes[0] == 0 && out.log_sizes[0] == 12 &&
	      memcmp(out.logs[0], logs[0], 12) == 0, "and decodes with its error and logs");
	jc_cl_payload_free(&out);
	free(copy);
	bad = malloc(size);
	memcpy(bad, bytes, size);
	bad[4] = 1; /* version 1 with a status */
	CHECK(decode_copy(bad, size, &out, &copy) == -1, "refused: a status in a version 1 record");
	free(copy);
	memcpy(bad, bytes, size);
	memset(bad + 12, 0, 4); /* version 2 without one */
	CHECK(decode_copy(bad, size, &out, &copy) == -1, "refused: a failure record without its error");
	free(copy);
	free(bad);
	free(bytes);
	fail.binary_sizes = binary_sizes; /* binaries in a failure record */
	fail.binaries = binaries;
	CHECK(jc_cl_payload_encode(&fail, &bytes, &size) == 0 &&
	      decode_copy(bytes, size, &out, &copy) == -1, "refused: a failure record with binaries");
	free(copy);
	free(bytes);

	/* Version 3: the kernels' attributes after the logs. */
	const char *names[] = { "fixed", "plain" };
	const char *attrs[] = { "__attribute__((reqd_work_group_size(8, 1, 1 )))", "" };
	size_t name_sizes[] = { 6, 6 }, attr_sizes[] = { strlen(attrs[0]) + 1, 1 };
	in.kernels_known = 1;
	in.nkernels = 2;
	in.kernel_names = names;
	in.name_sizes = name_sizes;
	in.attributes = attrs;
	in.attribute_sizes = attr_sizes;
	CHECK(jc_cl_payload_encode(&in, &bytes, &size) == 0 && ((uint32_t *)bytes)[1] == 3,
	      "with kernels' attributes: version 3");
	CHECK(decode_copy(bytes, size, &out, &copy) == 0 && out.kernels_known &&
	      out.nkernels == 2 && !strcmp(out.kernel_names[1], "plain") &&
	      !strcmp(out.attributes[0], attrs[0]) && out.attributes[1][0] == '\0' &&
	      out.binary_sizes[0] == sizeof bin0 && out.log_sizes[0] == 12,
	      "and decodes with binaries, logs and attributes");
	jc_cl_payload_free(&out);
	free(copy);
	bad = malloc(size);
	memcpy(bad, bytes, size);
	bad[size - 1] = 'x'; /* the last string not terminated */
	CHECK(decode_copy(bad, size, &out, &copy) == -1, "refused: an unterminated attribute");
	free(copy);
	CHECK(decode_copy(bytes, size - 1, &out, &copy) == -1, "refused: a short kernels section");
	free(copy);
	free(bad);
	free(bytes);
	return check_summary();
}
