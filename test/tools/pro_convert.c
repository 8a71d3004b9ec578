/* pro_convert IN OUT v1|native - rewrites a profile in another format. */
#include <stdio.h>
#include <string.h>

#include "core/load.h"

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[3], "v1") && strcmp(argv[3], "native"))) {
		fprintf(stderr, "usage: pro_convert IN OUT v1|native\n");
		return 2;
	}
	prof_error err;
	prof *p = prof_load(argv[1], &err);
	if (!p) {
		fprintf(stderr, "pro_convert: %s\n", err.msg);
		return 2;
	}
	int r = prof_save(p, argv[2], strcmp(argv[3], "v1") ? PROF_FMT_NATIVE : PROF_FMT_V1, &err);
	if (r)
		fprintf(stderr, "pro_convert: %s\n", err.msg);
	prof_free(p);
	return r ? 1 : 0;
}
