/* fuzz_folded - the folded stacks reader (both dialects). */
// FUZZ_SEEDS: test/data/folded/*
#define FUZZ_READER folded_read
#include "test/fuzz/reader.h"
