/* ask.c - the ask line's question (see ask.h): what a key handler asks,
 * kept in the app until the event loop reads the answer. */
#include <stdio.h>

#include "tui/app_state.h"
#include "tui/ask.h"

int app_prompt(app *a, void (*fn)(app *a, const char *text), int arg, const char *dflt, const char *lead)
{
	a->ask.answer = fn;
	a->ask.arg = arg;
	snprintf(a->ask.dflt, sizeof(a->ask.dflt), "%s", dflt ? dflt : "");
	snprintf(a->ask.lead, sizeof(a->ask.lead), "%s", lead);
	a->ask.keys[0] = 0;
	return REACT_PROMPT;
}

int app_choose(app *a, void (*fn)(app *a, const char *text), const char *keys, char dflt, const char *lead)
{
	char d[2] = { dflt, 0 };
	int r = app_prompt(a, fn, 0, d, lead);
	snprintf(a->ask.keys, sizeof(a->ask.keys), "%s", keys);
	return r;
}
