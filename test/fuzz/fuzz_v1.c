/* fuzz_v1 - the skynet v1 reader on its own, then a write and re-read
 * that must agree. */
// FUZZ_SEEDS: test/data/*.pro
#include "test/fuzz/roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	prof_error err;
	prof *p = prof_new();
	prof_src src = { .data = data, .len = len, .name = "fuzz" };
	if (p && !pro_v1_read(p, &src, &err))
		fuzz_roundtrip(p, PROF_FMT_V1);
	prof_free(p);
	return 0;
}
