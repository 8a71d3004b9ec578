/* entry.c - entry-point patching (x86_64): a function's first instructions
 * are decoded with capstone and moved into a trampoline placed within
 * reach (RIP-relative operands and relative branches rewritten for their
 * new place), and a jump to the hook's wrapper is written over them; the
 * wrapper calls the trampoline to run the function.  A prologue that cannot
 * be moved safely is refused with the reason (a branch of the function into
 * the bytes to be overwritten, an instruction that cannot be moved, a
 * function shorter than the jump).  Code pages are writable only while the
 * bytes are written and get their protection back after.  Capstone runs
 * only here, between entry_begin and entry_end, on capmem.c's memory. */
#include "attach/hook/hook.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NEAR_SIZE (64 * 1024)    /* one module's trampolines */
#define SLOT 128                 /* a stub (16 bytes) and a trampoline */
#define STUB 16
#define NEAR_REACH ((1ull << 31) - 2 * NEAR_SIZE)
#define MAX_INS 16

typedef struct area {
	uint64_t lo, hi;   /* the module code it serves (all of it within reach) */
	uint8_t *base;
	size_t used;
} area;

typedef struct patch {
	uint8_t *fn;
	uint8_t n;         /* bytes overwritten at fn */
	int on;
	uint8_t orig[16];
	uint8_t code[16];
} patch;

static area areas[32];
static int nareas;
static area far_area;    /* trampolines that need no reach (absolute jumps only) */
static patch patches[ENTRY_MAX];
static csh cs;
static int cs_ok;

int entry_begin(void)
{
	if (capmem_begin() || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		capmem_end();
		return -1;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);   /* Intel's printer may qsort */
	cs_ok = 1;
	return 0;
}

/* Trampolines are written while their pages are writable; executable, never both, after. */
void entry_end(void)
{
	if (cs_ok)
		cs_close(&cs);
	cs_ok = 0;
	capmem_end();
	for (int i = 0; i < nareas; i++)
		mprotect(areas[i].base, NEAR_SIZE, PROT_READ | PROT_EXEC);
	if (far_area.base)
		mprotect(far_area.base, NEAR_SIZE, PROT_READ | PROT_EXEC);
}

static int fits32(int64_t d)
{
	return d >= INT32_MIN && d <= INT32_MAX;
}

/* A code area within reach of the module's code [lo, hi): an existing one,
 * or a new one mapped in the nearest free range (never above the
 * executable, where brk grows); NULL if there is none. */
static area *near_area(uint64_t lo, uint64_t hi, int is_exe)
{
	for (int i = 0; i < nareas; i++)
		if (areas[i].lo <= lo && areas[i].hi >= hi && areas[i].used + SLOT <= NEAR_SIZE)
			return &areas[i];
	if (nareas == (int)(sizeof(areas) / sizeof(areas[0])))
		return NULL;
	for (int tries = 0; tries < 4; tries++) {
		uint64_t at = procmaps_gap(lo, hi, NEAR_SIZE, NEAR_REACH, is_exe ? hi : 0);
		if (!at)
			return NULL;
		void *p = mmap((void *)(uintptr_t)at, NEAR_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			continue;   /* taken meanwhile: look again */
		if (p != (void *)(uintptr_t)at) {   /* a kernel without MAP_FIXED_NOREPLACE */
			munmap(p, NEAR_SIZE);
			return NULL;
		}
		area *a = &areas[nareas++];
		*a = (area){ lo, hi, p, 0 };
		return a;
	}
	return NULL;
}

static uint8_t *slot_take(area *a)
{
	if (a == &far_area && !far_area.base) {
		far_area.base = hook_map(NEAR_SIZE);
		if (!far_area.base)
			return NULL;
	}
	if (a->used + SLOT > NEAR_SIZE)
		return NULL;
	mprotect(a->base, NEAR_SIZE, PROT_READ | PROT_WRITE);   /* entry_end makes it executable */
	uint8_t *s = a->base + a->used;
	a->used += SLOT;
	memset(s, 0xcc, SLOT);
	return s;
}

/* A decoded instruction of the prologue and what moving it takes. */
enum { I_COPY, I_JMP, I_JCC, I_CALL, I_RIP };

typedef struct dins {
	uint64_t addr, target;
	uint8_t size, kind, cc, disp_off;
	uint8_t bytes[16];
	char text[48];
} dins;

static int is_jcc(unsigned id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB: case X86_INS_JE:
	case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL: case X86_INS_JNE:
	case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS: case X86_INS_JO: case X86_INS_JP:
	case X86_INS_JS:
		return 1;
	}
	return 0;
}

static int in_group(const cs_insn *in, uint8_t g)
{
	for (int i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return 1;
	return 0;
}

/* The target of a relative branch, or 0 when in is not one. */
static uint64_t branch_target(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	if (!in_group(in, X86_GRP_BRANCH_RELATIVE) || !x->op_count || x->operands[0].type != X86_OP_IMM)
		return 0;
	return (uint64_t)x->operands[0].imm;
}

/* Classifies in for moving; 0, or -1 with why. */
static int classify(const cs_insn *in, dins *d, char *why, size_t cap)
{
	const cs_x86 *x = &in->detail->x86;
	memset(d, 0, sizeof(*d));
	d->addr = in->address;
	d->size = (uint8_t)in->size;
	memcpy(d->bytes, in->bytes, in->size);
	snprintf(d->text, sizeof(d->text), "%.15s %.31s", in->mnemonic, in->op_str);
	if (in->id == X86_INS_INT3) {
		snprintf(why, cap, "a breakpoint (int3) is set in its first bytes");
		return -1;
	}
	uint64_t t = branch_target(in);
	if (in_group(in, X86_GRP_BRANCH_RELATIVE)) {
		d->target = t;
		if (in->id == X86_INS_JMP && t)
			d->kind = I_JMP;
		else if (in->id == X86_INS_CALL && t)
			d->kind = I_CALL;
		else if (is_jcc(in->id) && t && (x->opcode[0] & 0xf0) == 0x70)
			d->kind = I_JCC, d->cc = x->opcode[0] & 15;
		else if (is_jcc(in->id) && t && x->opcode[0] == 0x0f && (x->opcode[1] & 0xf0) == 0x80)
			d->kind = I_JCC, d->cc = x->opcode[1] & 15;
		else {
			snprintf(why, cap, "its prologue holds '%s', which cannot be moved", d->text);
			return -1;
		}
		return 0;
	}
	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP) {
			if (!x->encoding.disp_offset || x->encoding.disp_size != 4) {
				snprintf(why, cap, "'%s': no 32-bit displacement to rewrite", d->text);
				return -1;
			}
			d->kind = I_RIP;
			d->disp_off = x->encoding.disp_offset;
			d->target = in->address + in->size + (uint64_t)x->operands[i].mem.disp;
		} else if (x->operands[i].type == X86_OP_REG && x->operands[i].reg == X86_REG_RIP) {
			snprintf(why, cap, "'%s' reads the instruction pointer", d->text);
			return -1;
		}
	return 0;
}

/* An absolute jump to t: jmp *0(%rip); .quad t (14 bytes). */
static size_t emit_abs_jmp(uint8_t *o, uint64_t t)
{
	o[0] = 0xff;
	o[1] = 0x25;
	memset(o + 2, 0, 4);
	memcpy(o + 6, &t, 8);
	return 14;
}

static size_t emit_rel(uint8_t *o, const uint8_t *op, size_t opn, uint64_t at, uint64_t t)
{
	memcpy(o, op, opn);
	int32_t r = (int32_t)(int64_t)(t - (at + opn + 4));
	memcpy(o + opn, &r, 4);
	return opn + 4;
}

/* Writes d moved to address at into o (room bytes); its length, 0 when it
 * cannot be moved there (why says so). */
static size_t relocate(const dins *d, uint8_t *o, size_t room, uint64_t at, char *why, size_t cap)
{
	if (room < 16) {
		snprintf(why, cap, "its moved prologue does not fit a trampoline");
		return 0;
	}
	uint8_t op[2];
	switch (d->kind) {
	case I_JMP:
		op[0] = 0xe9;
		return fits32((int64_t)(d->target - (at + 5))) ? emit_rel(o, op, 1, at, d->target)
							       : emit_abs_jmp(o, d->target);
	case I_JCC:
		op[0] = 0x0f;
		op[1] = (uint8_t)(0x80 | d->cc);
		if (fits32((int64_t)(d->target - (at + 6))))
			return emit_rel(o, op, 2, at, d->target);
		o[0] = (uint8_t)(0x70 | (d->cc ^ 1));   /* the opposite condition skips the jump */
		o[1] = 14;
		return 2 + emit_abs_jmp(o + 2, d->target);
	case I_CALL:
		if (fits32((int64_t)(d->target - (at + 5)))) {
			op[0] = 0xe8;
			return emit_rel(o, op, 1, at, d->target);
		}
		/* call *2(%rip); jmp +8; .quad target */
		o[0] = 0xff, o[1] = 0x15, o[2] = 2, o[3] = o[4] = o[5] = 0, o[6] = 0xeb, o[7] = 8;
		memcpy(o + 8, &d->target, 8);
		return 16;
	case I_RIP: {
		int64_t disp = (int64_t)(d->target - (at + d->size));
		if (!fits32(disp)) {
			snprintf(why, cap, "'%s' refers to data out of the trampoline's reach", d->text);
			return 0;
		}
		memcpy(o, d->bytes, d->size);
		int32_t r = (int32_t)disp;
		memcpy(o + d->disp_off, &r, 4);
		return d->size;
	}
	}
	memcpy(o, d->bytes, d->size);
	return d->size;
}

/* Every relative branch of the function [fn, fn + size): none may land in
 * (fn, fn + n), the bytes the jump overwrites or moves; 0, or -1 with why. */
static int branches_check(uint64_t fn, uint64_t size, uint64_t n, cs_insn *in, char *why, size_t cap)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)fn;
	size_t left = size;
	uint64_t a = fn;
	while (left) {
		const uint8_t *c = code + (a - fn);
		size_t l = left;
		uint64_t at = a;
		if (!cs_disasm_iter(cs, &c, &l, &at, in)) {
			a++;   /* data, or what capstone cannot decode: step over a byte */
			left--;
			continue;
		}
		uint64_t t = branch_target(in);
		if (t > fn && t < fn + n) {
			snprintf(why, cap, "a %s at +0x%llx jumps to +0x%llx, inside the first %llu bytes, which the patch moves",
				 in->mnemonic, (unsigned long long)(a - fn), (unsigned long long)(t - fn),
				 (unsigned long long)n);
			return -1;
		}
		left -= (size_t)(at - a);
		a = at;
	}
	return 0;
}

/* Decodes the instructions covering the first need bytes of fn; their
 * count, or -1 with why. */
static int prologue(uint64_t fn, uint64_t size, size_t need, dins *d, cs_insn *in, char *why, size_t cap)
{
	const uint8_t *c = (const uint8_t *)(uintptr_t)fn;
	size_t l = size < 64 ? size : 64;
	uint64_t at = fn, got = 0;
	int n = 0;
	while (got < need) {
		if (n == MAX_INS || !cs_disasm_iter(cs, &c, &l, &at, in)) {
			snprintf(why, cap, "cannot decode its instruction at +0x%llx", (unsigned long long)got);
			return -1;
		}
		if (classify(in, &d[n], why, cap))
			return -1;
		got += d[n++].size;
	}
	return n;
}

void *entry_prepare(int slot, uint64_t fn, uint64_t size, uint64_t mod_lo, uint64_t mod_hi, int is_exe,
		    void *wrapper, char *why, size_t cap)
{
	if (!cs_ok || slot < 0 || slot >= ENTRY_MAX) {
		snprintf(why, cap, "the disassembler is not ready");
		return NULL;
	}
	area *a = near_area(mod_lo, mod_hi, is_exe);
	size_t need = a ? 5 : 14;
	if (!size) {
		snprintf(why, cap, "its size is unknown (no symbol size), so its branches cannot be checked");
		return NULL;
	}
	if (size < need) {
		snprintf(why, cap, "it is %llu bytes long, shorter than the %zu-byte jump%s", (unsigned long long)size,
			 need, a ? "" : " (no room for a trampoline near it)");
		return NULL;
	}
	cs_insn *in = cs_malloc(cs);
	dins d[MAX_INS];
	int nd = in ? prologue(fn, size, need, d, in, why, cap) : -1;
	if (!in)
		snprintf(why, cap, "the disassembler is out of memory");
	uint64_t moved = 0;
	for (int i = 0; i < nd; i++)
		moved += d[i].size;
	if (nd < 0 || moved > size || branches_check(fn, size, moved, in, why, cap)) {
		if (nd >= 0 && moved > size)
			snprintf(why, cap, "its first instructions run past its end");
		if (in)
			cs_free(in, 1);
		return NULL;
	}
	cs_free(in, 1);
	uint8_t *s = slot_take(a ? a : &far_area);
	if (!s) {
		snprintf(why, cap, "no room for its trampoline");
		return NULL;
	}
	uint8_t *t = s + STUB, *o = t;
	for (int i = 0; i < nd; i++) {
		size_t k = relocate(&d[i], o, (size_t)(s + SLOT - o), (uint64_t)(uintptr_t)o, why, cap);
		if (!k)
			return NULL;   /* the slot is left unused */
		o += k;
	}
	uint64_t back = fn + moved;
	if (s + SLOT - o < 14) {
		snprintf(why, cap, "its moved prologue does not fit a trampoline");
		return NULL;
	}
	uint8_t jmp = 0xe9;
	if (fits32((int64_t)(back - ((uint64_t)(uintptr_t)o + 5))))
		emit_rel(o, &jmp, 1, (uint64_t)(uintptr_t)o, back);
	else
		emit_abs_jmp(o, back);
	patch *p = &patches[slot];
	memset(p, 0, sizeof(*p));
	p->fn = (uint8_t *)(uintptr_t)fn;
	if (a) {   /* jmp stub; the stub: jmp *wrapper */
		emit_abs_jmp(s, (uint64_t)(uintptr_t)wrapper);
		emit_rel(p->code, &jmp, 1, fn, (uint64_t)(uintptr_t)s);
		p->n = 5;
	} else {
		p->n = (uint8_t)emit_abs_jmp(p->code, (uint64_t)(uintptr_t)wrapper);
	}
	memcpy(p->orig, p->fn, p->n);
	return t;
}

/* Writes n bytes at `at` in code: the pages writable for the moment, their
 * protection put back as it was; one 8-byte store when they share an
 * aligned word, so a thread running there sees all or none of them. */
static int code_write(uint8_t *at, const uint8_t *src, size_t n)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t a = (uint64_t)(uintptr_t)at, lo = a & ~(pg - 1), hi = (a + n - 1) & ~(pg - 1);
	int p1 = procmaps_prot(lo), p2 = hi != lo ? procmaps_prot(hi) : p1;
	if (p1 < 0 || p2 < 0)
		return -1;
	if (mprotect((void *)(uintptr_t)lo, pg, p1 | PROT_READ | PROT_WRITE))
		return -1;
	if (hi != lo && mprotect((void *)(uintptr_t)hi, pg, p2 | PROT_READ | PROT_WRITE)) {
		mprotect((void *)(uintptr_t)lo, pg, p1);
		return -1;
	}
	if ((a & 7) + n <= 8) {
		uint64_t *w = (uint64_t *)(uintptr_t)(a & ~7ull), v = *w;
		memcpy((uint8_t *)&v + (a & 7), src, n);
		__atomic_store_n(w, v, __ATOMIC_SEQ_CST);
	} else {
		memcpy(at, src, n);
	}
	mprotect((void *)(uintptr_t)lo, pg, p1);
	if (hi != lo)
		mprotect((void *)(uintptr_t)hi, pg, p2);
	return 0;
}

int entry_apply(int slot)
{
	patch *p = &patches[slot];
	if (!p->fn || p->on)
		return p->on ? 0 : -1;
	if (memcmp(p->fn, p->orig, p->n) || code_write(p->fn, p->code, p->n))
		return -1;   /* changed since it was read: left alone */
	p->on = 1;
	return 0;
}

int entry_restore(int slot)
{
	patch *p = &patches[slot];
	if (!p->fn || !p->on)
		return -1;
	if (memcmp(p->fn, p->code, p->n) || code_write(p->fn, p->orig, p->n))
		return -1;   /* someone else wrote there since: theirs stays */
	p->on = 0;
	return 0;
}
