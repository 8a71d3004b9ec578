/* remote_none.c - remote_fetch in a build without libcurl (its headers
 * were missing when mprof-tui was built): every URL is refused in one
 * line that says how to get a build that fetches. */
#include "remote/remote.h"

void remote_set_timeout(double seconds)
{
	(void)seconds;
}

int remote_fetch(const char *url, uint8_t **data, size_t *len, prof_error *err)
{
	*data = NULL;
	*len = 0;
	prof_errorf(err, "%s: this mprof-tui was built without libcurl: it reads no URL "
		    "(install libcurl4-openssl-dev, or run make deps, then make)", url);
	return -1;
}
