/* rec_text.h - a recording said in one line (rec_text.c), shared by the
 * batch reports and the UI so neither calls into the other. */
#ifndef MPROF_TUI_REC_TEXT_H
#define MPROF_TUI_REC_TEXT_H

#include <stddef.h>

#include "core/recording.h"

/* One line saying where the recording ends and why (its process looked
 * up: an open recording of a running process is still being written). */
void rec_end_line(const recording *r, char *buf, size_t len);
/* One line describing a moment: "12.345 s, 9.77 MiB in use". */
void rec_moment_text(const recording *r, char *buf, size_t len);

#endif
