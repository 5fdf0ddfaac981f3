/*
 * test_cl_payload — the bytes of one OpenCL cache entry (shim/cl_payload.c,
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
	struct jc_cl_payload in = { 2, binaries, binary_sizes, logs, log_sizes, 0 }, out;
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
	struct jc_cl_payload fail = { 2, none, no_sizes, logs, log_sizes, CL_BUILD_PROGRAM_FAILURE };
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
	return check_summary();
}
