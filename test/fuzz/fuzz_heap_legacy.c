/* fuzz_heap_legacy - the legacy text reader: gperftools, tcmalloc (heap_v2,
 * growth, %warn), Go debug=1, both memory-map trailers, empty stacks. */
// FUZZ_SEEDS: test/data/gperftools/*.heap test/data/go/*/heap.debug1.txt test/data/legacy/*
#define FUZZ_READER heap_legacy_read
#include "test/fuzz/reader.h"
