/* serve_syms.c - resolvers kept per process across --serve's requests. */
#include "attach/serve/serve_syms.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One process's resolver. The sym reads its modules from mods, a profile
 * holding only p's module table (frames are asked by address). */
struct serve_sym_use {
	pthread_mutex_t mu;      /* held by the request using it */
	int pid;                 /* under the cache's lock: whose it is (0: nobody's) */
	int open_pid;            /* under mu: whose modules s was opened over */
	int busy;                /* under the cache's lock: requests holding or waiting for it */
	uint64_t used;           /* the cache's clock when last taken */
	prof *mods;              /* owned */
	sym *s;                  /* owned, over mods */
	const prof *p;           /* the profile of the request holding it */
	int own;                 /* an extra one, made when every slot was busy: freed on release */
};

struct serve_syms {
	pthread_mutex_t mu;
	const sym_opts *so;
	uint64_t clock;
	struct serve_sym_use slot[SERVE_SYMS_MAX];
};

serve_syms *serve_syms_new(const sym_opts *so)
{
	serve_syms *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->so = so;
	pthread_mutex_init(&c->mu, NULL);
	for (int i = 0; i < SERVE_SYMS_MAX; i++)
		pthread_mutex_init(&c->slot[i].mu, NULL);
	return c;
}

static void use_drop(serve_sym_use *u)
{
	sym_close(u->s);
	prof_free(u->mods);
	u->s = NULL;
	u->mods = NULL;
	u->open_pid = 0;
}

void serve_syms_free(serve_syms *c)
{
	if (!c)
		return;
	for (int i = 0; i < SERVE_SYMS_MAX; i++) {
		use_drop(&c->slot[i]);
		pthread_mutex_destroy(&c->slot[i].mu);
	}
	pthread_mutex_destroy(&c->mu);
	free(c);
}

/* 1 when a and b map the same files at the same places. */
static int same_modules(const prof *a, const prof *b)
{
	if (a->modules.len != b->modules.len)
		return 0;
	for (size_t i = 0; i < a->modules.len; i++) {
		const prof_module *x = &a->modules.v[i], *y = &b->modules.v[i];
		if (x->base != y->base || x->size != y->size || x->offset != y->offset ||
		    strcmp(prof_strat(a, x->path), prof_strat(b, y->path)))
			return 0;
	}
	return 1;
}

/* Opens u's resolver over a copy of p's module table. 0 or -1 (ENOMEM). */
static int use_open(serve_sym_use *u, const sym_opts *so, const prof *p, int pid)
{
	use_drop(u);
	if (!(u->mods = prof_new()))
		return -1;
	for (size_t i = 0; i < p->modules.len; i++) {
		const prof_module *m = &p->modules.v[i];
		if (prof_module_add(u->mods, prof_strat(p, m->path), prof_strat(p, m->build_id), m->base, m->size,
				    m->offset) == PROF_NONE)
			return -1;
	}
	sym_opts o = *so;
	o.pid = pid;
	if (!(u->s = sym_open(u->mods, &o)))
		return -1;
	u->open_pid = pid;
	return 0;
}

/* export_lines' get: frame f of the request's profile, by its address. */
static size_t use_lines(void *ctx, uint32_t f, export_line *out, size_t cap)
{
	serve_sym_use *u = ctx;
	if (f >= u->p->frames.len)
		return 0;
	return sym_info_lines(sym_resolve(u->s, u->p->frames.v[f].addr, 1), out, cap);
}

serve_sym_use *serve_syms_get(serve_syms *c, const prof *p, int pid, sym **s, export_lines *lines)
{
	serve_sym_use *u = NULL;
	pthread_mutex_lock(&c->mu);
	for (int i = 0; i < SERVE_SYMS_MAX && !u; i++)
		if (c->slot[i].pid == pid)
			u = &c->slot[i];
	/* Else the least recently used slot that nobody holds. */
	for (int i = 0; i < SERVE_SYMS_MAX && !u; i++) {
		serve_sym_use *x = &c->slot[i];
		if (!x->busy && (!u || x->used < u->used))
			u = x;
	}
	if (u) {
		u->pid = pid;   /* nobody holds it, or it is pid's already */
		u->busy++;
		u->used = ++c->clock;
	}
	pthread_mutex_unlock(&c->mu);
	if (!u) {   /* every slot busy: a resolver for this request alone */
		if (!(u = calloc(1, sizeof(*u))))
			return NULL;
		u->own = 1;
		pthread_mutex_init(&u->mu, NULL);
	}
	pthread_mutex_lock(&u->mu);
	/* Another pid's slot (taken over), or the same pid's whose modules moved. */
	if ((u->open_pid != pid || !u->mods || !same_modules(u->mods, p)) && use_open(u, c->so, p, pid)) {
		use_drop(u);
		serve_syms_release(c, u);
		return NULL;
	}
	u->p = p;
	*s = u->s;
	*lines = (export_lines){ use_lines, u };
	return u;
}

void serve_syms_release(serve_syms *c, serve_sym_use *u)
{
	u->p = NULL;
	pthread_mutex_unlock(&u->mu);
	if (u->own) {
		use_drop(u);
		pthread_mutex_destroy(&u->mu);
		free(u);
		return;
	}
	pthread_mutex_lock(&c->mu);
	u->busy--;
	pthread_mutex_unlock(&c->mu);
}
