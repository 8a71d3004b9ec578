/* remote_load.c - what a URL is, and a profile read from a path or from
 * the body of a URL (remote_fetch: libcurl's, or remote_none.c's refusal
 * in a build without libcurl). */
#include <stdlib.h>
#include <string.h>

#include "remote/remote.h"

int remote_is_url(const char *s)
{
	return s && (!strncmp(s, "http://", 7) || !strncmp(s, "https://", 8) ||
		     !strncmp(s, REMOTE_INSECURE, strlen(REMOTE_INSECURE)));
}

prof *remote_load(const char *path, prof_error *err)
{
	if (!remote_is_url(path))
		return prof_load(path, err);
	uint8_t *d = NULL;
	size_t n = 0;
	if (remote_fetch(path, &d, &n, err))
		return NULL;
	prof *p = prof_load_mem(d ? d : (const uint8_t *)"", n, path, err);
	free(d);
	return p;
}
