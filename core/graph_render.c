/* graph_render.c - a call graph into a file in the format of its name:
 * .dot written here, .svg/.png/.pdf by graphviz's dot program, which reads
 * the dot text from an unlinked temporary file and writes PATH.tmp (renamed
 * over PATH only when dot succeeds); its complaint becomes the one line the
 * user sees. */
#include "core/graph.h"
#include "core/savefile.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *graph_format(const char *path)
{
	static const char *const fmt[][2] = { { ".dot", "dot" }, { ".gv", "dot" }, { ".svg", "svg" },
					      { ".png", "png" }, { ".pdf", "pdf" } };
	const char *dot = strrchr(path, '.'), *sl = strrchr(path, '/');
	if (!dot || (sl && dot < sl))
		return NULL;
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++)
		if (!strcasecmp(dot, fmt[i][0]))
			return fmt[i][1];
	return NULL;
}

int graph_can_render(void)
{
	/* As posix_spawnp looks: PATH, or the system's default when unset. */
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char f[4096];
		if (snprintf(f, sizeof(f), "%.*s/dot", (int)n, n ? path : ".") < (int)sizeof(f) && !access(f, X_OK))
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

typedef struct graph_job {
	const graph *g;
	const prof *p;
	const prof_nodemap *m;
	const graph_opts *o;
	const char *fmt;
} graph_job;

static int write_dot(FILE *out, void *ctx, prof_error *werr)
{
	const graph_job *j = ctx;
	(void)werr;
	return graph_write_dot(out, j->g, j->p, j->m, j->o);
}

/* dot -Tfmt < the dot text > fd; its first line of complaint in werr. */
static int render(int fd, void *ctx, prof_error *werr)
{
	const graph_job *j = ctx;
	int rc = -1, ep[2] = { -1, -1 };
	FILE *t = tmpfile();
	if (!t) {
		prof_errorf(werr, "temporary file for dot: %s", strerror(errno));
		return -1;
	}
	if (write_dot(t, ctx, werr) || fflush(t) || fseek(t, 0, SEEK_SET)) {
		prof_errorf(werr, "temporary file for dot: %s", strerror(errno ? errno : EIO));
		fclose(t);
		return -1;
	}
	if (pipe2(ep, O_CLOEXEC)) {
		prof_errorf(werr, "pipe: %s", strerror(errno));
		fclose(t);
		return -1;
	}
	char arg[16];
	snprintf(arg, sizeof(arg), "-T%s", j->fmt);
	char *argv[] = { "dot", arg, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fileno(t), 0);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
	pid_t pid;
	int e = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(ep[1]);
	fclose(t);
	if (e) {
		prof_errorf(werr, "cannot run graphviz's dot: %s", strerror(e));
		close(ep[0]);
		return -1;
	}
	/* Read all it says (so it never blocks on a full pipe), keep the first line. */
	char msg[400] = "", buf[512];
	size_t have = 0;
	ssize_t r;
	while ((r = read(ep[0], buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		size_t n = (size_t)r < sizeof(msg) - 1 - have ? (size_t)r : sizeof(msg) - 1 - have;
		memcpy(msg + have, buf, n);
		msg[have += n] = 0;
	}
	close(ep[0]);
	msg[strcspn(msg, "\n")] = 0;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			prof_errorf(werr, "waiting for dot: %s", strerror(errno));
			return -1;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		rc = 0;
	else if (WIFEXITED(st))
		prof_errorf(werr, "dot %s failed (exit %d)%s%s", arg, WEXITSTATUS(st), *msg ? ": " : "", msg);
	else
		prof_errorf(werr, "dot %s killed by signal %d", arg, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return rc;
}

int graph_save(const prof *p, const prof_nodemap *m, const graph_opts *o, const char *path, graph *st,
	       prof_error *err)
{
	const char *fmt = graph_format(path);
	if (!fmt) {
		prof_errorf(err, "%s: a call graph is written as .dot, .svg, .png or .pdf", path);
		return -1;
	}
	if (strcmp(fmt, "dot") && !graph_can_render()) {
		prof_errorf(err, "%s: graphviz's dot program is not on PATH (install graphviz, or write a .dot file)",
			    path);
		return -1;
	}
	graph g;
	if (graph_build(&g, p, m, o)) {
		prof_errorf(err, "%s: out of memory", path);
		return -1;
	}
	graph_job j = { &g, p, m, o, fmt };
	int rc = strcmp(fmt, "dot") ? savefile_fd(path, render, &j, err) : savefile_stream(path, write_dot, &j, err);
	if (st) {   /* the counts, without the arrays freed here */
		*st = g;
		st->nodes = NULL;
		st->edges = NULL;
	}
	graph_free(&g);
	return rc;
}
