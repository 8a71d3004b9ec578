/* slow_audit.c - an LD_AUDIT library whose la_version sleeps 1 s: ld.so
 * loads it before the preloaded libraries, so a program exec'd with it
 * runs for a second with no libmprof.so mapped yet, though it will have
 * it (the moment a live screen must not take for "ran a program without
 * the hook"). */
#include <link.h>
#include <time.h>

unsigned int la_version(unsigned int version)
{
	struct timespec ts = { 1, 0 };
	while (nanosleep(&ts, &ts))
		;
	return version;
}
