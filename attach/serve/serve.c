/* serve.c - mprof-tui --serve: the HTTP side of the pprof endpoint (the
 * address, libmicrohttpd's daemon, routes, the index page, signals); what
 * a heap request returns is serve_heap.c's. */
#include "attach/serve/serve.h"
#include "attach/live/listing.h"
#include "attach/serve/serve_heap.h"
#include "core/flamegraph.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SERVE_DIR "/dev/shm"
#define SERVE_MAX_SECONDS 3600     /* ?seconds= beyond this is refused */
#define SERVE_MAX_CONNECTIONS 256  /* one thread each */

/* The server's state, shared by the connection threads. */
typedef struct server {
	const sym_opts *so;
	serve_syms *syms;            /* resolvers kept per process */
	pthread_mutex_t mu;
	pthread_cond_t cv;           /* broadcast when stopping and when a request ends */
	int stopping;
	int active;                  /* requests begun and not yet answered */
} server;

/* ---- the address ------------------------------------------------------ */

/* Binds and listens on addr; the socket, or -1 with the reason said. */
static int serve_listen(const char *addr, struct sockaddr_storage *ss, socklen_t *sl)
{
	char host[256];
	const char *port = addr, *colon = strrchr(addr, ':');
	if (addr[0] == '[') {   /* [V6]:PORT */
		const char *close = strchr(addr, ']');
		if (!close || close[1] != ':' || (size_t)(close - addr - 1) >= sizeof(host)) {
			fprintf(stderr, "mprof-tui: --serve: bad address '%s' (want PORT, HOST:PORT or [IPV6]:PORT)\n", addr);
			return -1;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(close - addr - 1), addr + 1);
		port = close + 2;
	} else if (colon && colon != addr) {
		if ((size_t)(colon - addr) >= sizeof(host) || memchr(addr, ':', (size_t)(colon - addr))) {
			fprintf(stderr, "mprof-tui: --serve: bad address '%s' (write an IPv6 address as [ADDR]:PORT)\n", addr);
			return -1;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
		port = colon + 1;
	} else {   /* PORT or :PORT: loopback only */
		snprintf(host, sizeof(host), "127.0.0.1");
		port = colon ? colon + 1 : addr;
	}
	char *end;
	errno = 0;
	long pn = strtol(port, &end, 10);
	if (!*port || *end || errno || pn < 0 || pn > 65535 || *port == '-' || *port == '+' || *port == ' ') {
		fprintf(stderr, "mprof-tui: --serve: bad port '%s' in '%s' (0 to 65535)\n", port, addr);
		return -1;
	}
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
	int ge = getaddrinfo(host, port, &hints, &res);
	if (ge) {
		fprintf(stderr, "mprof-tui: --serve %s: %s\n", addr, ge == EAI_SYSTEM ? strerror(errno) : gai_strerror(ge));
		return -1;
	}
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 128)) {
		fprintf(stderr, "mprof-tui: --serve %s: %s\n", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return -1;
	}
	freeaddrinfo(res);
	*sl = sizeof(*ss);
	if (getsockname(fd, (struct sockaddr *)ss, sl)) {
		fprintf(stderr, "mprof-tui: --serve %s: %s\n", addr, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* "http://HOST:PORT" for the bound address, into buf. */
static void serve_url(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN] = "?";
	int port = 0;
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, h, sizeof(h));
		port = ntohs(a->sin6_port);
		snprintf(buf, len, "http://[%s]:%d", h, port);
		return;
	}
	const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
	inet_ntop(AF_INET, &a->sin_addr, h, sizeof(h));
	port = ntohs(a->sin_port);
	snprintf(buf, len, "http://%s:%d", h, port);
}

/* ---- answers ---------------------------------------------------------- */

/* Queues r (destroyed here) with status; MHD_NO when r is NULL. */
static enum MHD_Result reply(struct MHD_Connection *c, int status, struct MHD_Response *r)
{
	if (!r)
		return MHD_NO;
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ok;
}

/* A plain-text error, as Go's serveError writes one: status, one line. */
static enum MHD_Result reply_error(struct MHD_Connection *c, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum MHD_Result reply_error(struct MHD_Connection *c, int status, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(msg) - 2)
		n = (int)sizeof(msg) - 2;
	msg[n++] = '\n';
	msg[n] = 0;
	struct MHD_Response *r = MHD_create_response_from_buffer((size_t)n, msg, MHD_RESPMEM_MUST_COPY);
	if (r) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
		MHD_add_response_header(r, "X-Go-Pprof", "1");
		MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	}
	return reply(c, status, r);
}

/* Text owned by the response from here on (freed with free()). */
static enum MHD_Result reply_text(struct MHD_Connection *c, char *text, size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	return reply(c, MHD_HTTP_OK, r);
}

/* The index's walk over the segments. */
struct index_ctx {
	FILE *f;
	int shown, others;
};

static int index_row(listing_entry *e, void *ctx)
{
	struct index_ctx *x = ctx;
	if (!e->mine) {
		x->others++;
		return 0;
	}
	if (!e->alive || !e->ok)   /* gone, or unreadable: nothing to serve */
		return 0;
	listing_text t;
	listing_describe(e, &t);
	fprintf(x->f, "<tr><td>%d</td><td>%s</td><td class=num>%s</td><td><a href='heap?pid=%d'>heap</a> "
		      "<a href='allocs?pid=%d'>allocs</a> (<a href='heap?pid=%d&amp;debug=1'>text</a>)</td><td>",
		e->pid, t.started, t.inuse, e->pid, e->pid, e->pid);
	flamegraph_put_escaped(x->f, t.cmd);
	fputs("</td></tr>\n", x->f);
	x->shown++;
	return 0;
}

/* /debug/pprof/: the processes under the hook, like Go's index page. */
static enum MHD_Result serve_index(struct MHD_Connection *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	fputs("<html>\n<head>\n<title>/debug/pprof/</title>\n<style>\n"
	      ".num { text-align: right; }\ntd { padding: 0 1em; }\n</style>\n</head>\n<body>\n"
	      "/debug/pprof/\n<br>\n<p>Processes under libmprof.so that this user owns. "
	      "Set debug=1 as a query parameter to export in legacy text format; "
	      "seconds=N gives the growth over N seconds.</p>\n<br>\n"
	      "<table>\n<thead><td>PID</td><td>Started</td><td>In use</td><td>Profile</td><td>Command</td></thead>\n",
	      f);
	struct index_ctx x = { f, 0, 0 };
	int n = listing_scan(SERVE_DIR, index_row, &x);
	fputs("</table>\n", f);
	if (n < 0)
		fprintf(f, "<p>%s cannot be read: %s</p>\n", SERVE_DIR, strerror(errno));
	else if (!x.shown)
		fputs("<p>No process of this user runs under libmprof.so.</p>\n", f);
	if (x.others)
		fprintf(f, "<p>%d process%s of other users not listed.</p>\n", x.others, x.others == 1 ? "" : "es");
	fputs("<p>\nProfile Descriptions:\n<ul>\n<li><div class=profile-name>heap: </div> Every allocation of the "
	      "process since the hook started, with its call stack: live objects (inuse_space, the default) and "
	      "all allocations (alloc_space). Add seconds=N for the growth over N seconds.</li>\n"
	      "<li><div class=profile-name>allocs: </div> The same profile with all allocations (alloc_space) as "
	      "the default view; where Parca and Pyroscope look for memory by default.</li>\n</ul>\n</p>\n"
	      "</body>\n</html>\n",
	      f);
	if (fclose(f)) {
		free(text);
		return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	return reply_text(c, text, len, "text/html; charset=utf-8");
}

/* The pid of ?pid= (digits only, 1 to INT32_MAX), or -1. */
static int parse_pid(const char *s)
{
	long v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > INT32_MAX)
			return -1;
	}
	return v > 0 ? (int)v : -1;
}

/* With no ?pid=: the one process of this user under the hook. */
struct only_ctx {
	int pid, count;
};

static int only_one(listing_entry *e, void *ctx)
{
	struct only_ctx *o = ctx;
	if (e->mine && e->alive && e->ok) {
		o->pid = e->pid;
		o->count++;
	}
	return 0;
}

/* Waits up to seconds, or until the server stops or the client hangs up:
 * 0 when the time is up, 1 stopping, 2 hung up. */
static int serve_wait(server *sv, struct MHD_Connection *c, int seconds)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	int fd = ci ? ci->connect_fd : -1;
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	int rc = 0;
	pthread_mutex_lock(&sv->mu);
	while (!sv->stopping) {
		struct timespec now, slice;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		/* Look at the client every quarter second: a gone client frees its thread. */
		slice = now;
		slice.tv_nsec += 250000000;
		if (slice.tv_nsec >= 1000000000) {
			slice.tv_sec++;
			slice.tv_nsec -= 1000000000;
		}
		if (slice.tv_sec > end.tv_sec || (slice.tv_sec == end.tv_sec && slice.tv_nsec > end.tv_nsec))
			slice = end;
		pthread_cond_timedwait(&sv->cv, &sv->mu, &slice);
		if (fd >= 0) {
			struct pollfd pf = { .fd = fd, .events = POLLRDHUP };
			if (poll(&pf, 1, 0) > 0 && (pf.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
				rc = 2;
				break;
			}
		}
	}
	if (sv->stopping && !rc)
		rc = 1;
	pthread_mutex_unlock(&sv->mu);
	return rc;
}

/* /debug/pprof/heap[?pid=PID][&seconds=N][&debug=1]; allocs is the same
 * with alloc_space as the default sample type, as Go serves it. */
static enum MHD_Result serve_heap(server *sv, struct MHD_Connection *c, const char *dflt)
{
	const char *ps = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "pid");
	const char *ss = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
	const char *ds = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "debug");
	int pid;
	if (ps) {
		if ((pid = parse_pid(ps)) < 0)
			return reply_error(c, MHD_HTTP_BAD_REQUEST, "invalid value for \"pid\" - must be a process id, not '%.64s'",
					   ps);
	} else {
		struct only_ctx o = { 0, 0 };
		listing_scan(SERVE_DIR, only_one, &o);
		if (!o.count)
			return reply_error(c, MHD_HTTP_NOT_FOUND, "no process of this user runs under libmprof.so");
		if (o.count > 1)
			return reply_error(c, MHD_HTTP_BAD_REQUEST,
					   "%d processes run under libmprof.so: add ?pid=PID (/debug/pprof/ lists them)", o.count);
		pid = o.pid;
	}
	/* As Go's endpoint: a bad number in debug means 0. */
	int debug = ds ? atoi(ds) : 0;
	long seconds = 0;
	if (ss) {
		char *end;
		errno = 0;
		seconds = strtol(ss, &end, 10);
		if (!*ss || *end || errno || seconds <= 0)
			return reply_error(c, MHD_HTTP_BAD_REQUEST,
					   "invalid value for \"seconds\" - must be a positive integer");
		if (seconds > SERVE_MAX_SECONDS)
			return reply_error(c, MHD_HTTP_BAD_REQUEST, "\"seconds\" must be at most %d", SERVE_MAX_SECONDS);
		if (debug)
			return reply_error(c, MHD_HTTP_BAD_REQUEST, "seconds and debug params are incompatible");
	}
	serve_err err = { 0 };
	prof *p = serve_heap_take(SERVE_DIR, pid, &err);
	if (p && seconds) {
		int w = serve_wait(sv, c, (int)seconds);
		if (w) {   /* 2: the client hung up, nobody to answer */
			prof_free(p);
			return w == 2 ? MHD_NO : reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is stopping");
		}
		prof *p1 = serve_heap_take(SERVE_DIR, pid, &err);
		if (!p1) {
			size_t n = strlen(err.e.msg);
			snprintf(err.e.msg + n, sizeof(err.e.msg) - n, " (at the end of the %ld s window)", seconds);
		}
		prof *d = p1 ? serve_heap_delta(p, p1, &err) : NULL;
		prof_free(p);
		prof_free(p1);
		p = d;
	}
	if (!p)
		return reply_error(c, err.status, "%s", err.e.msg);
	if (debug) {
		char *text = NULL;
		size_t len = 0;
		int rc = serve_heap_text(p, pid, sv->so, &text, &len, &err);
		prof_free(p);
		if (rc)
			return reply_error(c, err.status, "%s", err.e.msg);
		return reply_text(c, text, len, "text/plain; charset=utf-8");
	}
	int fd = serve_heap_pprof(p, pid, sv->syms, dflt, &err);
	prof_free(p);
	if (fd < 0)
		return reply_error(c, err.status, "%s", err.e.msg);
	struct stat st;
	if (fstat(fd, &st)) {
		close(fd);
		return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "fstat: %s", strerror(errno));
	}
	struct MHD_Response *r = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);   /* closes fd */
	if (!r) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	MHD_add_response_header(r, "Content-Disposition", "attachment; filename=\"heap\"");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	return reply(c, MHD_HTTP_OK, r);
}

static enum MHD_Result serve_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				     const char *version, const char *upload_data, size_t *upload_data_size,
				     void **con_cls)
{
	server *sv = cls;
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	if (!*con_cls) {   /* counted until serve_done: a stop lets it finish */
		*con_cls = sv;
		pthread_mutex_lock(&sv->mu);
		sv->active++;
		pthread_mutex_unlock(&sv->mu);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		struct MHD_Response *r = MHD_create_response_from_buffer(19, "method not allowed\n", MHD_RESPMEM_PERSISTENT);
		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
	}
	if (!strcmp(url, "/debug/pprof")) {   /* the index's links are relative to the slash */
		struct MHD_Response *r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, "/debug/pprof/");
		return reply(c, MHD_HTTP_MOVED_PERMANENTLY, r);
	}
	if (!strcmp(url, "/debug/pprof/"))
		return serve_index(c);
	if (!strcmp(url, "/debug/pprof/heap"))
		return serve_heap(sv, c, "inuse_space");
	if (!strcmp(url, "/debug/pprof/allocs"))
		return serve_heap(sv, c, "alloc_space");
	return reply_error(c, MHD_HTTP_NOT_FOUND, "404 page not found");
}

/* A request's end (answered, or its connection closed). */
static void serve_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	server *sv = cls;
	(void)c;
	(void)toe;
	if (!*con_cls)
		return;
	*con_cls = NULL;
	pthread_mutex_lock(&sv->mu);
	sv->active--;
	pthread_cond_broadcast(&sv->cv);
	pthread_mutex_unlock(&sv->mu);
}

/* Stops taking connections, wakes the requests that wait (they answer
 * 503) and gives them up to 5 s to be sent before the daemon stops. */
static void serve_stop(server *sv, struct MHD_Daemon *d)
{
	MHD_socket lfd = MHD_quiesce_daemon(d);
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 5;
	pthread_mutex_lock(&sv->mu);
	sv->stopping = 1;
	pthread_cond_broadcast(&sv->cv);
	while (sv->active > 0 && pthread_cond_timedwait(&sv->cv, &sv->mu, &end) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&sv->mu);
	MHD_stop_daemon(d);   /* joins every connection thread */
	if (lfd != MHD_INVALID_SOCKET)
		close(lfd);
}

/* ---- the server ------------------------------------------------------- */

int serve_http(const char *addr, const sym_opts *so)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd = serve_listen(addr, &ss, &sl);
	if (fd < 0)
		return 2;
	server sv = { .so = so, .syms = serve_syms_new(so) };
	if (!sv.syms) {
		fprintf(stderr, "mprof-tui: --serve: out of memory\n");
		close(fd);
		return 1;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&sv.mu, NULL);
	pthread_cond_init(&sv.cv, &ca);
	pthread_condattr_destroy(&ca);
	/* The signals that stop the server go to sigwait below, never to a
	 * connection thread (they inherit this mask). */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* A thread per connection: a ?seconds= request waits without holding
	 * up the others. */
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC, 0, NULL,
		NULL, serve_request, &sv, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED, serve_done, &sv,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVE_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
		MHD_OPTION_END);
	int rc = 0;
	if (!d) {
		fprintf(stderr, "mprof-tui: --serve %s: the HTTP server did not start\n", addr);
		close(fd);
		rc = 2;
		goto out;
	}
	char url[128];
	serve_url(&ss, url, sizeof(url));
	printf("mprof-tui: serving %s/debug/pprof/ (heap?pid=PID); Ctrl-C stops\n", url);
	fflush(stdout);
	int sig = 0;
	while (sigwait(&stop, &sig))
		;
	serve_stop(&sv, d);
	fprintf(stderr, "mprof-tui: stopped serving (%s)\n", strsignal(sig));
out:
	serve_syms_free(sv.syms);
	pthread_cond_destroy(&sv.cv);
	pthread_mutex_destroy(&sv.mu);
	pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
	return rc;
}
