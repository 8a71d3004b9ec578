/* stackunw.c - libdwfl's unwinder over a sample's stack copy: one Dwfl
 * per address space with its modules reported at their load bias, and
 * thread callbacks that hand it the sample (elfutils' linux-pid-attach.c
 * does the same over ptrace; perf's unwind-libdw.c over samples). */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vec.h"
#include "symbols/stackunw.h"

typedef struct umod {
	char *path;
	uint64_t base, end;      /* base = where file offset 0 is */
	int bad;                 /* not ELF: never reported */
} umod;

struct stackunw {
	Dwfl *dwfl;
	int pid;
	int attached;            /* dwfl_attach_state done */
	int memfd;               /* /proc/PID/mem, -1 when not open (yet) */
	int mem_tried;
	umod *mods;
	size_t nmods, cap;
	/* The sample being unwound. */
	int tid;
	const uint64_t *regs;
	const uint8_t *stack;
	uint64_t sp;
	size_t len;
	uint64_t *pcs;
	size_t n, max;
};

static const Dwfl_Callbacks unw_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

stackunw *stackunw_new(int pid)
{
	stackunw *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->pid = pid;
	u->memfd = -1;
	if (!(u->dwfl = dwfl_begin(&unw_callbacks))) {
		free(u);
		return NULL;
	}
	return u;
}

static void mods_free(stackunw *u)
{
	for (size_t i = 0; i < u->nmods; i++)
		free(u->mods[i].path);
	u->nmods = 0;
}

void stackunw_free(stackunw *u)
{
	if (!u)
		return;
	dwfl_end(u->dwfl);
	mods_free(u);
	free(u->mods);
	if (u->memfd >= 0)
		close(u->memfd);
	free(u);
}

/* ---- the thread callbacks: the sample is the one thread ------------------ */

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	stackunw *u = arg;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	stackunw *u = arg;
	if (addr >= u->sp && addr - u->sp + sizeof(*result) <= u->len) {
		memcpy(result, u->stack + (addr - u->sp), sizeof(*result));
		return true;
	}
	/* Outside the copy (a caller's frame beyond it, a CFI expression):
	 * the process itself, while it lives. */
	if (!u->mem_tried) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/mem", u->pid);
		u->memfd = open(path, O_RDONLY | O_CLOEXEC);
		u->mem_tried = 1;
	}
	return u->memfd >= 0 && pread(u->memfd, result, sizeof(*result), (off_t)addr) == (ssize_t)sizeof(*result);
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	stackunw *u = thread_arg;
	return dwfl_thread_state_registers(thread, 0, STACKUNW_NREGS, u->regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* ---- modules --------------------------------------------------------------- */

static int report_one(stackunw *u, umod *m)
{
	Dwfl_Module *dm = dwfl_report_elf(u->dwfl, m->path, m->path, -1, m->base, false);
	m->bad = !dm;
	return dm ? 0 : -1;
}

static void build_id_of(stackunw *u, const umod *m, char *bid, size_t len)
{
	bid[0] = 0;
	Dwfl_Module *dm = dwfl_addrmodule(u->dwfl, m->end - 1);
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dm ? dwfl_module_build_id(dm, &bits, &vaddr) : -1;
	for (int i = 0; i < n && (size_t)(2 * i + 2) < len; i++)
		snprintf(bid + 2 * i, 3, "%02x", bits[i]);
}

int stackunw_map(stackunw *u, const char *path, uint64_t start, uint64_t end, uint64_t pgoff, char *bid,
		 size_t bid_len)
{
	uint64_t base = start - pgoff;
	int overlap = 0;
	for (size_t i = 0; i < u->nmods; i++) {
		umod *m = &u->mods[i];
		if (m->base == base && !strcmp(m->path, path)) {
			if (end > m->end)   /* another segment of the same file */
				m->end = end;
			if (bid)
				build_id_of(u, m, bid, bid_len);
			return m->bad ? -1 : 0;
		}
		overlap |= start < m->end && end > m->base;
	}
	if (vec_grow((void **)&u->mods, &u->cap, u->nmods + 1, sizeof(*u->mods)))
		return -1;
	if (overlap) {   /* the range now holds another file: the older ones there go */
		size_t k = 0;
		for (size_t i = 0; i < u->nmods; i++) {
			if (start < u->mods[i].end && end > u->mods[i].base)
				free(u->mods[i].path);
			else
				u->mods[k++] = u->mods[i];
		}
		u->nmods = k;
	}
	umod *m = &u->mods[u->nmods];
	if (!(m->path = strdup(path)))
		return -1;
	m->base = base;
	m->end = end;
	u->nmods++;
	int rc;
	if (overlap) {
		dwfl_report_begin(u->dwfl);
		for (size_t i = 0; i < u->nmods; i++)
			if (!u->mods[i].bad || &u->mods[i] == m)
				report_one(u, &u->mods[i]);
		rc = m->bad ? -1 : 0;
	} else {
		dwfl_report_begin_add(u->dwfl);
		rc = report_one(u, m);
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (bid)
		build_id_of(u, m, bid, bid_len);
	return rc;
}

void stackunw_reset(stackunw *u)
{
	mods_free(u);
	dwfl_report_begin(u->dwfl);
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (u->memfd >= 0)   /* the new image's memory: reopened on demand */
		close(u->memfd);
	u->memfd = -1;
	u->mem_tried = 0;
}

/* ---- unwinding ------------------------------------------------------------- */

static int cb_frame(Dwfl_Frame *state, void *arg)
{
	stackunw *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	u->pcs[u->n++] = activation ? pc + 1 : pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t stackunw_stack(stackunw *u, int tid, const uint64_t regs[STACKUNW_NREGS], const uint8_t *stack, size_t len,
		      uint64_t *pcs, size_t max)
{
	if (!max || !regs[16])
		return 0;
	u->tid = tid;
	u->regs = regs;
	u->stack = stack;
	u->sp = regs[7];
	u->len = len;
	u->pcs = pcs;
	u->n = 0;
	u->max = max;
	/* The state needs a module to know the machine: attached on the first
	 * unwind that has one. */
	if (!u->attached && u->nmods)
		u->attached = dwfl_attach_state(u->dwfl, NULL, u->pid, &thread_callbacks, u);
	if (u->attached)
		dwfl_getthread_frames(u->dwfl, tid, cb_frame, u);
	if (u->n == 0)   /* no module or no CFI for the pc: the pc alone */
		pcs[u->n++] = regs[16] + 1;
	return u->n;
}
