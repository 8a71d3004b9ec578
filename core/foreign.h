/* foreign.h - readers of other profilers' formats (detected by content in
 * load.c): legacy text heap profiles (gperftools, Go debug=1), jemalloc
 * heap_v2, folded stacks and pprof protobuf. Each fills p and returns 0,
 * or -1 with err saying "FILE: line N: ..." or "FILE: offset N: ...". */
#ifndef MPROF_FOREIGN_H
#define MPROF_FOREIGN_H

#include "core/load.h"

int heap_legacy_read(prof *p, const prof_src *src, prof_error *err);
int jemalloc_read(prof *p, const prof_src *src, prof_error *err);
int folded_read(prof *p, const prof_src *src, prof_error *err);
int pprof_read(prof *p, const prof_src *src, prof_error *err);

/* Content sniffers for prof_detect: 1 when the bytes look like the format. */
int folded_sniff(const uint8_t *d, size_t len);
int pprof_sniff(const uint8_t *d, size_t len);

#endif
