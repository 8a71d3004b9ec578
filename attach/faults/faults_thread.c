/* faults_thread.c - the screens' reader: faults_poll on a thread of its
 * own, a bounded number of samples per hold of the lock, and faults_sync,
 * which copies under that lock what the sampled profile gained into the
 * screens' mirror and says what changed. */
#include "attach/faults/faults_int.h"

#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

void faults_reader_boost(void)
{
	/* The kernel drops what the rings cannot hold while the reader waits
	 * for a CPU: ahead of ordinary work when allowed (CAP_SYS_NICE). */
	setpriority(PRIO_PROCESS, (id_t)gettid(), FAULTS_READER_NICE);
}

static void *reader(void *arg)
{
	faults *f = arg;
	faults_reader_boost();
	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&f->lock);
		long n = faults_poll(f, 512);   /* a bounded hold: the screens sync between */
		pthread_mutex_unlock(&f->lock);
		if (n <= 0) {
			struct timespec ts = { 0, n < 0 ? 100000000 : 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int faults_thread_start(faults *f)
{
	if (pthread_mutex_init(&f->lock, NULL))
		return -1;
	if (pthread_create(&f->thread, NULL, reader, f)) {
		pthread_mutex_destroy(&f->lock);
		return -1;
	}
	f->threaded = 1;
	return 0;
}

static int mirror_fill(const prof *p, prof *m)
{
	int ch = 0;
	if (m->modules.len < p->modules.len || m->frames.len < p->frames.len)
		ch |= FAULTS_SYNC_FRAMES;
	for (size_t i = 0; i < p->modules.len; i++) {
		const prof_module *pm = &p->modules.v[i];
		if (i < m->modules.len) {
			if (m->modules.v[i].size != pm->size) {
				m->modules.v[i].size = pm->size;
				ch |= FAULTS_SYNC_FRAMES;
			}
		} else if (prof_module_add(m, prof_strat(p, pm->path), prof_strat(p, pm->build_id), pm->base, pm->size,
					   pm->offset) == PROF_NONE) {
			return -1;
		}
	}
	for (size_t i = m->frames.len; i < p->frames.len; i++) {
		const prof_frame *pf = &p->frames.v[i];
		uint32_t x = prof_frame_intern(m, pf->addr);
		if (x != i)
			return -1;
		m->frames.v[x].module = pf->module;
		if (pf->name != PROF_NONE) {
			const char *nm = prof_strat(p, pf->name);
			if ((m->frames.v[x].name = prof_str(m, nm, strlen(nm))) == PROF_NONE)
				return -1;
		}
	}
	if (m->stacks.len < p->stacks.len)
		ch |= FAULTS_SYNC_STACKS;
	for (size_t i = m->stacks.len; i < p->stacks.len; i++)
		if (prof_stack_add(m, prof_stack_frames(p, (uint32_t)i), p->stacks.v[i].depth) == PROF_NONE)
			return -1;
	for (size_t i = 0; i < p->samples.len; i++) {
		const prof_sample *ps = &p->samples.v[i];
		if (i >= m->samples.len) {
			if (prof_sample_add(m, ps->stack, ps->size, 0, 0, 0, 0))
				return -1;
			ch |= FAULTS_SYNC_STACKS;
		}
		if (memcmp(&m->samples.v[i].c, &ps->c, sizeof(ps->c))) {
			m->samples.v[i].c = ps->c;
			ch |= FAULTS_SYNC_COUNTS;
		}
	}
	if (m->meta.cmdline == PROF_NONE && p->meta.cmdline != PROF_NONE) {
		const char *c = prof_strat(p, p->meta.cmdline);
		m->meta.cmdline = prof_str(m, c, strlen(c));
	}
	m->meta.format = p->meta.format;
	m->meta.pid = p->meta.pid;
	m->meta.time = p->meta.time;
	m->meta.scale = p->meta.scale;
	m->meta.dropped = p->meta.dropped;
	return ch;
}

int faults_sync(faults *f, prof *mirror, faults_stats *st, unsigned *gen)
{
	if (f->threaded)
		pthread_mutex_lock(&f->lock);
	*gen = f->gen;
	*st = f->st;
	int rc = mirror_fill(f->p, mirror);
	if (f->threaded)
		pthread_mutex_unlock(&f->lock);
	return rc;
}
