/* safetext.h - names made safe for a terminal. A profile is input from
 * anywhere: a function, module or command name may hold ESC sequences or
 * other control bytes that a terminal would obey. They are shown escaped
 * (\x1b); printable UTF-8 passes unchanged. No I/O. */
#ifndef MPROF_SAFETEXT_H
#define MPROF_SAFETEXT_H

#include <stddef.h>

/* 1 when s[0..n) holds nothing a terminal could take for a control: no C0
 * or C1 control, no DEL, no byte outside valid UTF-8. */
int text_is_safe(const char *s, size_t n);
/* Writes s[0..n) escaped into dst (cap bytes, always terminated, cut at a
 * whole escape); returns the length the whole text needs (without the NUL),
 * at most 4 n. */
size_t text_escape(char *dst, size_t cap, const char *s, size_t n);
/* s itself when it is safe, else its escaped form in buf (cut to cap). */
const char *text_safe(const char *s, char *buf, size_t cap);

#endif
