/* loadhow.c - how libmprof.so came into the process: with the program (LD_PRELOAD,
 * or linked) or dlopened into it while it ran (mprof-tui --inject).  Told
 * from the loader's list alone, never from which malloc the program
 * defines: the loader lists the objects it loads at start (the program,
 * then what LD_PRELOAD names, then the libraries they need, libc among
 * them) before any object dlopen adds later, so a hook listed after libc
 * was dlopened.  An executable that defines and exports its own malloc
 * (skynet) made the old test, "the program's malloc is not the hook's",
 * call a preloaded hook injected: no dump on SIGTERM, its segment left. */
#include "attach/hook/hook.h"
#include "core/path.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

typedef struct load_scan {
	uint64_t self;    /* the hook's load address */
	int libc_seen;    /* libc was listed before the hook */
	int late;         /* the answer, once the hook is reached */
	int found;
} load_scan;

static int load_visit(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	load_scan *s = arg;
	if (info->dlpi_addr == s->self) {
		s->late = s->libc_seen;
		s->found = 1;
		return 1;
	}
	const char *b = path_base(info->dlpi_name ? info->dlpi_name : "");
	if (!strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5))
		s->libc_seen = 1;
	return 0;
}

int hook_loaded_late(void)
{
	static int answer = -1;   /* asked once, at start: the list only grows after us */
	if (answer >= 0)
		return answer;
	Dl_info di;
	load_scan s = { 0, 0, 0, 0 };
	if (dladdr((void *)hook_loaded_late, &di))
		s.self = (uint64_t)(uintptr_t)di.dli_fbase;
	dl_iterate_phdr(load_visit, &s);
	answer = s.found && s.late;
	return answer;
}
