/* maps.h - the memory map that gperftools, jemalloc and Google's heapz
 * append to their heap profiles (MAPPED_LIBRARIES: or --- Memory map: ---),
 * read into the model's modules. */
#ifndef MPROF_MAPS_H
#define MPROF_MAPS_H

#include "core/load.h"
#include "core/textscan.h"

/* Is l the line that starts the trailer (either marker)? */
int maps_is_trailer(tspan l);
/* Reads maps lines from t to its end, /proc maps lines or "start-end: path
 * [@ offset]" ones, with "name=value" lines defining $name for later paths:
 * consecutive lines of one file become one module (base = start of its
 * first line, offset = that line's file offset); anonymous mappings are
 * skipped. 0, or -1 with err naming the line. */
int maps_read(prof *p, tscan *t, const char *name, prof_error *err);
/* Sets every frame's module to the module holding its address. */
void maps_assign_frames(prof *p);
/* Is frame f's module file called like base (libjemalloc.so.2 ~ "libjemalloc")? */
int maps_frame_in(const prof *p, uint32_t f, const char *base);
/* Is module m's file called like base? */
int maps_module_is(const prof *p, uint32_t m, const char *base);

#endif
