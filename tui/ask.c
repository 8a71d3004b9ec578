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
	return REACT_PROMPT;
}
