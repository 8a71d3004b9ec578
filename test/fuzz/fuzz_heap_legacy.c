/* fuzz_heap_legacy - the gperftools and Go legacy text reader. */
// FUZZ_SEEDS: test/data/gperftools/*.heap test/data/go/*/heap.debug1.txt
#define FUZZ_READER heap_legacy_read
#include "test/fuzz/reader.h"
