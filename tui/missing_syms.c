/* missing_syms.c - modules whose symbols could not be read, said to the
 * user once each with what their frames show instead: on stderr (batch
 * reports) or on the first status line (the screens). */
#include <stdio.h>

#include "core/safetext.h"
#include "symbols/sym.h"
#include "tui/app_state.h"
#include "tui/missing_syms.h"

void app_say_missing(struct sym *sy, const char *then)
{
	const sym_missing_module *mm;
	size_t n = sy ? sym_missing(sy, &mm) : 0;
	char safe[1024];
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "mprof-tui: %s: %s; its frames %s\n", text_safe(mm[i].path, safe, sizeof(safe)),
			mm[i].why, then);
}

void app_missing_status(app *a, const char *then)
{
	const sym_missing_module *mm;
	size_t n = a->sy ? sym_missing(a->sy, &mm) : 0;
	if (!n)
		return;
	size_t at = (size_t)snprintf(a->v.status, sizeof(a->v.status), "%zu module%s without symbols: ", n,
				     n > 1 ? "s" : "");
	char safe[1024];
	for (size_t i = 0; i < n && at < sizeof(a->v.status); i++)
		at += (size_t)snprintf(a->v.status + at, sizeof(a->v.status) - at, "%s%s (%s)", i ? ", " : "",
				       text_safe(mm[i].path, safe, sizeof(safe)), mm[i].why);
	if (at < sizeof(a->v.status))
		snprintf(a->v.status + at, sizeof(a->v.status) - at, " (their frames %s)", then);
}
