/* names.h - how a node's name is shown in a row of limited width: an
 * unresolved frame as module file + offset (what tells its rows apart),
 * a long C++ name cut inside its argument list, never in its function
 * name. Names themselves (batch output, filters, diff keys) are not
 * changed. No I/O. */
#ifndef MPROF_NAMES_H
#define MPROF_NAMES_H

#include <stddef.h>

#include "core/prof.h"

/* "dir/skynet.so(+0xb55d) [0x7f..]" or "0x7f..." inside one of p's modules
 * (p may be NULL) -> "skynet.so+0xb55d"; "dir/skynet(skynet_send+0x67)
 * [0x55..]" -> "skynet_send+0x67"; in buf. Any other name as it is. */
const char *name_short(const prof *p, const char *name, char *buf, size_t len);
/* An export's name for a frame: name_short's when stable (with symbols:
 * the same in every run), else the name as recorded. */
static inline const char *stable_name(const prof *p, const char *name, int stable, char *buf, size_t len)
{
	return stable ? name_short(p, name, buf, len) : name;
}
/* Where name's C++ argument list is: *open at its '(', *close at its ')'.
 * -1 when it has none worth cutting (empty, or a recorded path). */
int name_args(const char *name, size_t *open, size_t *close);
/* name in at most width columns (one per UTF-8 character): when it is too
 * long and has an argument list, the list is cut in the middle (ell marks
 * the cut) and the function name kept whole, its qualifiers
 * cut from the front only when even "f(ell)" does not fit. Returns name
 * unchanged when it fits or has no argument list (the caller cuts its end),
 * else buf. */
const char *name_fit(const char *name, int width, const char *ell, char *buf, size_t len);

#endif
