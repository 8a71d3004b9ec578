/* serve.h - mprof-tui --serve ADDR: an HTTP server (libmicrohttpd) that
 * answers /debug/pprof/ and /debug/pprof/heap?pid=PID as Go's
 * net/http/pprof does, for the processes under the hook that the serving
 * user owns, so go tool pprof, Parca and Pyroscope scrape them. Read-only:
 * it maps segments and reads /proc, never writes to or signals a process. */
#ifndef MPROF_SERVE_H
#define MPROF_SERVE_H

#include "symbols/sym.h"

/* Serves on addr ("PORT", ":PORT", "HOST:PORT", "[V6]:PORT"; loopback
 * when only a port is given) until SIGINT, SIGTERM or SIGHUP. so gives the
 * symbol paths (--root, --search-path). Returns the exit status: 0 when
 * stopped by a signal, 2 when addr is bad or cannot be bound (said). */
int serve_http(const char *addr, const sym_opts *so);

#endif
