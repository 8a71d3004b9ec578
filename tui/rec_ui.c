#include <stdio.h>
#include "tui/rec.h"
int tui_rec(recording *r, const rec_opts *o)
{
	(void)r; (void)o;
	fprintf(stderr, "mprof-tui: no UI yet\n");
	return 2;
}
