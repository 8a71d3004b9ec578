/* leaky_server.c - the program `make demo` runs under mprof.
 *
 * A little request server with a bug to find. It serves a stream of made-up
 * requests (no network: main() generates them, about 200 a second) through
 * four handlers, as a small HTTP service would:
 *
 *   handle_get_user     formats a JSON reply in a temporary buffer, frees it
 *   handle_search       splits the query into a temporary token array, frees it
 *   handle_login        keeps a session in a fixed-size table; an old session
 *                       is freed when its slot is reused (memory that stays in
 *                       use, but does not grow)
 *   handle_upload       THE LEAK: stores each upload's metadata in a record
 *                       that is linked into a list nobody ever trims, so a few
 *                       hundred bytes stay in use per upload request
 *
 * At start-up server_init() allocates a 16 KiB connection table: it is the
 * biggest thing in use for the first second or two, then handle_upload
 * passes it and stays on top of mprof-tui's in-use view.
 *
 * Runs until SIGTERM or SIGINT (what mprof-tui sends when you quit) or until
 * SECONDS have passed (argument 1; default 300, so it never runs on forever
 * when left alone). It returns from main() on each, so the hook removes its
 * /dev/shm/mprof-PID segment as the program exits.
 *
 * Built by `make demo` with -g -O1 -fno-omit-frame-pointer. The handlers are
 * noinline so that each stays a frame of its own, as it would in a bigger
 * program. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

enum { MAX_CONNS = 128, MAX_SESSIONS = 32, MAX_TOKENS = 16 };

struct request {
	unsigned long id;
	const char *method;
	const char *path;
	const char *body;
};

struct connection {       /* one slot of the connection table */
	int fd;
	unsigned long requests;
	char peer[112];
};

struct session {
	unsigned long user_id;
	char token[40];
	char user_agent[80];
};

struct upload_meta {      /* kept for an "audit index" that is never trimmed */
	struct upload_meta *next;
	unsigned long request_id;
	size_t size;
	char file_name[64];
	char content_type[32];
	char checksum[65];
};

static volatile sig_atomic_t stop_requested;
static struct connection *connections;
static struct session *sessions[MAX_SESSIONS];
static struct upload_meta *upload_index;   /* the leak: only ever grows */
static unsigned long served[4];

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

NOINLINE void server_init(void)
{
	connections = calloc(MAX_CONNS, sizeof(*connections));
	if (!connections) {
		perror("leaky_server: connection table");
		exit(1);
	}
	for (int i = 0; i < MAX_CONNS; i++)
		connections[i].fd = -1;
}

/* GET /users/ID: the reply is built in a temporary buffer, sent, freed. */
NOINLINE size_t handle_get_user(const struct request *rq)
{
	size_t cap = 512 + rq->id % 256;
	char *reply = malloc(cap);
	if (!reply)
		return 0;
	int n = snprintf(reply, cap, "{\"id\":%lu,\"name\":\"user%lu\",\"path\":\"%s\"}", rq->id % 1000,
			 rq->id % 1000, rq->path);
	size_t sent = n > 0 ? (size_t)n : 0;
	free(reply);
	return sent;
}

/* GET /search?q=...: the query is split into words held in a temporary
 * array of copies; all of them are freed before the reply goes out. */
NOINLINE size_t handle_search(const struct request *rq)
{
	const char *q = strchr(rq->path, '=');
	q = q ? q + 1 : "";
	char **tokens = calloc(MAX_TOKENS, sizeof(*tokens));
	if (!tokens)
		return 0;
	int n = 0;
	while (*q && n < MAX_TOKENS) {
		size_t len = strcspn(q, "+");
		tokens[n] = malloc(len + 1);
		if (!tokens[n])
			break;
		memcpy(tokens[n], q, len);
		tokens[n++][len] = 0;
		q += len;
		q += *q == '+';
	}
	size_t hits = 0;
	for (int i = 0; i < n; i++) {
		hits += strlen(tokens[i]);
		free(tokens[i]);
	}
	free(tokens);
	return hits;
}

/* POST /login: a new session replaces the oldest one in a fixed table. */
NOINLINE size_t handle_login(const struct request *rq)
{
	struct session *s = malloc(sizeof(*s));
	if (!s)
		return 0;
	s->user_id = rq->id % 1000;
	snprintf(s->token, sizeof(s->token), "tok-%08lx", rq->id * 2654435761UL);
	snprintf(s->user_agent, sizeof(s->user_agent), "%s", rq->body);
	size_t slot = rq->id % MAX_SESSIONS;
	free(sessions[slot]);   /* the old session is done: no leak here */
	sessions[slot] = s;
	return sizeof(*s);
}

/* POST /upload: the body is "stored" and its metadata recorded in the audit
 * index. The bug: records are added to the index and never removed. */
NOINLINE size_t handle_upload(const struct request *rq)
{
	struct upload_meta *m = malloc(sizeof(*m));
	if (!m)
		return 0;
	m->request_id = rq->id;
	m->size = strlen(rq->body);
	snprintf(m->file_name, sizeof(m->file_name), "upload-%lu.bin", rq->id);
	snprintf(m->content_type, sizeof(m->content_type), "application/octet-stream");
	for (int i = 0; i < 64; i++)
		m->checksum[i] = "0123456789abcdef"[(rq->id >> (i % 16)) & 15];
	m->checksum[64] = 0;
	m->next = upload_index;
	upload_index = m;
	return m->size;
}

/* The router: method and path to handler. */
NOINLINE size_t dispatch(const struct request *rq)
{
	struct connection *c = &connections[rq->id % MAX_CONNS];
	c->requests++;
	if (!strcmp(rq->method, "GET") && !strncmp(rq->path, "/users/", 7))
		return served[0]++, handle_get_user(rq);
	if (!strcmp(rq->method, "GET") && !strncmp(rq->path, "/search", 7))
		return served[1]++, handle_search(rq);
	if (!strcmp(rq->method, "POST") && !strcmp(rq->path, "/login"))
		return served[2]++, handle_login(rq);
	if (!strcmp(rq->method, "POST") && !strcmp(rq->path, "/upload"))
		return served[3]++, handle_upload(rq);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double limit = argc > 1 ? atof(argv[1]) : 300;
	if (limit <= 0)
		limit = 300;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	static const struct request kinds[] = {
		{ 0, "GET", "/users/42", "" },
		{ 0, "GET", "/search?q=memory+leak+in+production", "" },
		{ 0, "POST", "/login", "curl/7.88.1" },
		{ 0, "POST", "/upload", "PNG image data, 1024 x 768, 8-bit/color RGBA" },
		{ 0, "GET", "/users/7", "" },
		{ 0, "GET", "/search?q=heap+profile", "" },
	};
	server_init();
	printf("leaky_server: pid %ld, serving for at most %.0f s\n", (long)getpid(), limit);
	fflush(stdout);
	double t0 = now_s();
	unsigned long id = 0;
	while (!stop_requested && now_s() - t0 < limit) {
		for (int i = 0; i < 10 && !stop_requested; i++) {   /* a burst of requests */
			struct request rq = kinds[id % (sizeof(kinds) / sizeof(kinds[0]))];
			rq.id = ++id;
			dispatch(&rq);
		}
		struct timespec pause = { 0, 50 * 1000 * 1000 };   /* about 200 requests a second */
		nanosleep(&pause, NULL);
	}
	printf("leaky_server: %s after %lu requests (users %lu, search %lu, login %lu, upload %lu)\n",
	       stop_requested ? "stopped" : "time is up", id, served[0], served[1], served[2], served[3]);
	/* A clean shutdown frees what it owns: the sessions and the connection
	 * table. The upload index is forgotten: that is the leak. */
	for (int i = 0; i < MAX_SESSIONS; i++)
		free(sessions[i]);
	free(connections);
	return 0;
}
