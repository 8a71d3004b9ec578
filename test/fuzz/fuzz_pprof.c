/* fuzz_pprof - the pprof protobuf reader (gzipped or raw). */
// FUZZ_SEEDS: test/data/go/*/heap.pb.gz test/data/legacy/*.pb
#define FUZZ_READER pprof_read
#include "test/fuzz/reader.h"
