/* pprof.c - stub */
#include "core/foreign.h"
int pprof_sniff(const uint8_t *d, size_t len) { (void)d; (void)len; return 0; }
int pprof_read(prof *p, const prof_src *src, prof_error *err) { (void)p; prof_errorf(err, "%s: pprof: not yet", src->name); return -1; }
