/* help.h - the help screen's text (help.c): every key and what it does;
 * its screen_ops is help_ops (app_state.h). */
#ifndef MPROF_TUI_HELP_H
#define MPROF_TUI_HELP_H

#include <stddef.h>

/* The help screen's lines, every key and what it does (key "": a
 * heading). */
typedef struct help_line {
	const char *key, *what;
} help_line;
extern const help_line help_lines[];
extern const size_t help_count;

#endif
