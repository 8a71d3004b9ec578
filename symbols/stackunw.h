/* stackunw.h - a thread's user call stack from a copy of its stack and
 * registers (what perf_event_open's PERF_SAMPLE_STACK_USER and
 * PERF_SAMPLE_REGS_USER give), unwound with libdwfl's CFI unwinder as
 * perf --call-graph=dwarf does: frame pointers are not needed.  x86-64.
 * One stackunw per address space; the modules are reported as the
 * process maps them (from /proc/PID/maps and the kernel's mmap records). */
#ifndef MPROF_SYMBOLS_STACKUNW_H
#define MPROF_SYMBOLS_STACKUNW_H

#include <stddef.h>
#include <stdint.h>

typedef struct stackunw stackunw;

/* The registers a sample carries, in DWARF order: rax rdx rcx rbx rsi rdi
 * rbp rsp r8..r15, rip. */
#define STACKUNW_NREGS 17

/* An unwinder over the address space of pid (read through /proc/PID/mem
 * for addresses outside the stack copy while it lives).  NULL on ENOMEM.
 * Free with stackunw_free. */
stackunw *stackunw_new(int pid);
void stackunw_free(stackunw *u);

/* The file path is mapped at [start, end) from file offset pgoff.  Writes
 * its build-id (lower-case hex, "" when none) into bid.  0, or -1 when the
 * file cannot be read as ELF (its frames stop the unwind). */
int stackunw_map(stackunw *u, const char *path, uint64_t start, uint64_t end, uint64_t pgoff, char *bid,
		 size_t bid_len);
/* The address space was replaced (exec): every module is forgotten. */
void stackunw_reset(stackunw *u);

/* Unwinds thread tid from regs and the stack copy (stack[0] is the byte
 * at regs' rsp, len bytes).  Writes at most max frames into pcs, leaf
 * first, each a return address (an exact pc, such as the leaf's, is
 * written + 1, as the profile model keeps every frame).  Returns the
 * frames written (at least 1 when rip is not 0). */
size_t stackunw_stack(stackunw *u, int tid, const uint64_t regs[STACKUNW_NREGS], const uint8_t *stack, size_t len,
		      uint64_t *pcs, size_t max);

#endif
