/* cmd_serve.c - mprof-tui --serve [HOST:]PORT: the processes under the hook
 * served as Go's net/http/pprof does (attach/serve/'s serve_http); its
 * entry of the command table, which takes no file or command. */
#include <getopt.h>
#include <stdio.h>
#include "attach/serve/serve.h"
#include "tui/cmd.h"

static const cmd_text serve_help[] = {
	{ SLOT_USE_SERVE,
	  "       mprof-tui --serve [HOST:]PORT\n" },
	{ SLOT_LIVE_SERVE,
	  "  --serve [HOST:]PORT  serve the processes under the hook that this user\n"
	  "                       owns as Go's net/http/pprof does, for go tool pprof,\n"
	  "                       Parca and Pyroscope: /debug/pprof/ lists them,\n"
	  "                       /debug/pprof/heap?pid=PID is one's heap (gzipped\n"
	  "                       pprof; &seconds=N its growth over N seconds;\n"
	  "                       &debug=1 text), allocs?pid=PID the same with\n"
	  "                       alloc_space first. PORT alone listens on 127.0.0.1;\n"
	  "                       0.0.0.0:PORT or [::]:PORT on every address.\n"
	  "                       Read-only; runs until SIGINT or SIGTERM\n" },
	{ 0, NULL },
};

static int serve_run(cli *c, int argc, char **argv)
{
	if (optind != argc) {
		fprintf(stderr, "mprof-tui: --serve takes no file or command ('%s')\n", argv[optind]);
		return EXIT_BAD;
	}
	return serve_http(c->serve_addr, &c->so);
}

static int serve_claims(const cli *c)
{
	return c->serve_addr != NULL;
}

const cmd cmd_serve = {
	.name = "--serve",
	.takes = CMD_BIT(OPT_SERVE) | CMD_SYMS,
	.help = serve_help,
	.claims = serve_claims,
	.run = serve_run,
	.keeps_shm = 1,
};
