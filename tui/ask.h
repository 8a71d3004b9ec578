/* ask.h - the ask line: the one question a key handler leaves for the
 * event loop (app.c reads the answer on the status line once the key is
 * handled and hands it to the asker's callback). The asker fills it through
 * app_prompt and returns REACT_PROMPT; no handler reads a line itself. */
#ifndef MPROF_TUI_ASK_H
#define MPROF_TUI_ASK_H

struct app;
/* What a REACT_PROMPT reads: answer gets the line typed (never NULL: Esc
 * says "cancelled" instead), with arg and dflt as the asker left them. */
typedef struct app_ask {
	char lead[600];
	char dflt[512];
	int arg;
	char keys[16];     /* a choice: the keys that answer (one each), "" for a line */
	void (*answer)(struct app *a, const char *text);
} app_ask;

/* Asks lead on the status line; the answer goes to fn with arg and dflt
 * kept in a->ask. Returns REACT_PROMPT for the key handler to return. */
int app_prompt(struct app *a, void (*fn)(struct app *a, const char *text), int arg, const char *dflt,
	       const char *lead);

/* Asks lead as a choice of one key among keys (lower case; Enter gives
 * dflt when there is one, Esc cancels, any other key asks again); the
 * answer is the key, as a one-character string. */
int app_choose(struct app *a, void (*fn)(struct app *a, const char *text), const char *keys, char dflt,
	       const char *lead);

#endif
