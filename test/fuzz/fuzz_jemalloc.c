/* fuzz_jemalloc - the jemalloc heap_v2 reader. */
// FUZZ_SEEDS: test/data/jemalloc/*.heap
#define FUZZ_READER jemalloc_read
#include "test/fuzz/reader.h"
