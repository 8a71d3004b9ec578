/* test_sym.c - the resolver through its public API: recorded v1 names
 * taken apart (cut ones too), Go-style names, demangling, the module
 * table with build-id checks against this very binary, node maps, and a
 * node's source location following the metric (issue 20 item 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/agg.h"
#include "symbols/nodeloc.h"
#include "symbols/sym.h"

static uint32_t named(prof *p, uint64_t addr, const char *name)
{
	uint32_t f = prof_frame_intern(p, addr);
	if (name)
		p->frames.v[f].name = prof_str(p, name, strlen(name));
	return f;
}

static void test_recorded_names(void **state)
{
	(void)state;
	prof *p = prof_new();
	char cut_sym[81], cut_path[81];
	/* 80 bytes: cut inside the symbol, and cut inside the path. */
	static const char long_sym[] =
		"/opt/game-server/deploy/production/skynet/luaclib/skynet.so(luaseri_pack_something+0x81) [0x7f]";
	static const char long_path[] =
		"/opt/game-server/deploy/production/a/very/deep/folder/tree/that/goes/on/and/on/skynet.so(+0x4) [0x1]";
	memcpy(cut_sym, long_sym, 80);
	memcpy(cut_path, long_path, 80);
	cut_sym[80] = cut_path[80] = 0;
	uint32_t f[9];
	f[0] = named(p, 0x1000, "./app(f+0x4) [0x1000]");
	f[1] = named(p, 0x1010, "./app(+0x14) [0x1010]");
	f[2] = named(p, 0x2000, "./app(_ZN5store4Pool4grabEm+0x1a) [0x2000]");
	f[3] = named(p, 0x3000, "strings.(*Builder).Grow");
	f[4] = named(p, 0x4000, "[0x4000]");
	f[5] = named(p, 0x5000, cut_sym);
	f[6] = named(p, 0x6000, cut_path);
	f[7] = named(p, 0x7000, NULL);
	f[8] = named(p, 0x1020, "./app(f+0x24) [0x1020]");
	sym_opts o = { .no_symbols = 1 };
	sym *s = sym_open(p, &o);
	assert_non_null(s);
	const sym_info *si = sym_frame(s, f[0]);
	assert_string_equal(si->module, "./app");
	assert_string_equal(sym_func_name(si), "f");
	assert_int_equal(si->source, SYM_SRC_RECORDED);
	si = sym_frame(s, f[1]);
	assert_string_equal(si->module, "./app");
	assert_int_equal(si->source, SYM_SRC_RAW);
	assert_string_equal(sym_func_name(si), "./app(+0x14) [0x1010]");
	assert_string_equal(sym_func_name(sym_frame(s, f[2])), "store::Pool::grab(unsigned long)");
	si = sym_frame(s, f[3]);
	assert_null(si->module);
	assert_string_equal(sym_func_name(si), "strings.(*Builder).Grow");
	si = sym_frame(s, f[4]);
	assert_null(si->module);
	assert_int_equal(si->source, SYM_SRC_RAW);
	si = sym_frame(s, f[5]);
	assert_string_equal(si->module, "/opt/game-server/deploy/production/skynet/luaclib/skynet.so");
	assert_int_equal(si->source, SYM_SRC_RAW); /* the symbol's end was cut */
	si = sym_frame(s, f[6]);
	assert_null(si->module); /* the path itself was cut: unknown */
	si = sym_frame(s, f[7]);
	assert_string_equal(si->raw, "0x7000");
	assert_int_equal(si->source, SYM_SRC_RAW);
	/* With no_symbols nothing is looked for, so nothing is missing. */
	const sym_missing_module *mm;
	assert_int_equal(sym_missing(s, &mm), 0);
	/* Function granularity: both "f" frames are one node. */
	prof_nodemap m;
	assert_int_equal(sym_nodemap(&m, p, s, SYM_GRAN_FUNCTION), 0);
	assert_int_equal(m.off[f[0] + 1] - m.off[f[0]], 1);
	assert_int_equal(m.nodes[m.off[f[0]]], m.nodes[m.off[f[8]]]);
	assert_string_equal(nodemap_name(&m, m.nodes[m.off[f[0]]]), "f");
	assert_int_equal(m.flags[m.nodes[m.off[f[0]]]] & AGG_NODE_INLINE, 0);
	/* The cut name keeps its address so two cut names never merge. */
	assert_non_null(strstr(nodemap_name(&m, m.nodes[m.off[f[5]]]), " [0x5000]"));
	nodemap_free(&m);
	assert_int_equal(sym_nodemap(&m, p, s, SYM_GRAN_MODULE), 0);
	assert_string_equal(nodemap_name(&m, m.nodes[m.off[f[1]]]), "./app");
	assert_string_equal(nodemap_name(&m, m.nodes[m.off[f[4]]]), "[unknown]");
	nodemap_free(&m);
	sym_close(s);
	prof_free(p);
}

/* A function of this binary to resolve through the module table. */
__attribute__((noinline)) int sym_test_target(int x)
{
	return x * 3 + 1;
}

/* This executable's path and the start of its mapping at offset 0. */
static int self_map(char *path, size_t len, uint64_t *base)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);
	if (n <= 0)
		return -1;
	path[n] = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4600], file[4096];
	unsigned long long lo, hi, off;
	int found = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &lo, &hi, &off, file) == 4 &&
		    off == 0 && !strcmp(file, path)) {
			*base = lo;
			found = 0;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

static void test_module_table(void **state)
{
	(void)state;
	char path[4096];
	uint64_t base = 0;
	assert_int_equal(self_map(path, sizeof(path), &base), 0);
	uint64_t ret = (uint64_t)(uintptr_t)&sym_test_target + 1; /* as a return address */
	/* Right file, no build-id: found, resolves from DWARF. */
	prof *p = prof_new();
	prof_module_add(p, path, NULL, base, 1 << 24, 0);
	sym *s = sym_open(p, &(sym_opts){ 0 });
	assert_int_equal(sym_modules_found(s), 1);
	const sym_info *si = sym_resolve(s, ret, 1);
	assert_int_equal(si->source, SYM_SRC_DWARF);
	assert_string_equal(sym_func_name(si), "sym_test_target");
	assert_string_equal(si->module, path);
	assert_ptr_equal(sym_resolve(s, ret, 1), si); /* cached */
	char text[512];
	sym_chain_text(si, text, sizeof(text));
	assert_true(!strncmp(text, "sym_test_target\n", 16));
	assert_non_null(strstr(text, "test_sym.c:"));
	/* The exact pc (not a return address) is the same function. */
	assert_string_equal(sym_func_name(sym_resolve(s, ret - 1, 0)), "sym_test_target");
	sym_close(s);
	prof_free(p);
	/* A recorded build-id that this file does not have: missing, once. */
	p = prof_new();
	prof_module_add(p, path, "00ff00ff00ff", base, 1 << 24, 0);
	s = sym_open(p, &(sym_opts){ 0 });
	const sym_missing_module *mm;
	assert_int_equal(sym_missing(s, &mm), 1);
	assert_string_equal(mm[0].path, path);
	assert_string_equal(mm[0].why, "build-id differs");
	si = sym_resolve(s, ret, 1);
	assert_int_equal(si->source, SYM_SRC_RAW);
	assert_string_equal(si->module, path);
	sym_close(s);
	prof_free(p);
	/* A path that does not exist here. */
	p = prof_new();
	prof_module_add(p, "/nonexistent/dir/libgone.so", NULL, 0x7f0000000000, 1 << 20, 0);
	s = sym_open(p, &(sym_opts){ 0 });
	assert_int_equal(sym_missing(s, &mm), 1);
	assert_string_equal(mm[0].why, "not found");
	sym_close(s);
	prof_free(p);
}

/* The address a call here returns to: a frame as unwinders record it. */
__attribute__((noinline, noipa)) static uint64_t sym_test_return(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

/* Two calls, each on a line of its own: two frames of one function. */
__attribute__((noinline, noipa)) static void sym_test_two_lines(uint64_t ra[2], int line[2])
{
	ra[0] = sym_test_return(); line[0] = __LINE__;
	ra[1] = sym_test_return(); line[1] = __LINE__;
}

/* The line sym_node_locs gives the node of frame f for metric. */
static int loc_line(const prof *p, sym *s, uint32_t f, enum agg_metric metric)
{
	prof_nodemap m;
	sym_node_loc (*loc)[AGG_NMETRIC];
	assert_int_equal(sym_nodemap(&m, p, s, SYM_GRAN_FUNCTION), 0);
	uint32_t node = m.nodes[m.off[f]];
	assert_string_equal(nodemap_name(&m, node), "sym_test_two_lines");
	assert_int_equal(sym_node_locs(&loc, p, &m, s), 0);
	const sym_node_loc *l = &loc[node][metric];
	const sym_info *si = sym_frame(s, l->frame);
	assert_int_equal(sym_node_level(&m, l->frame, node), l->level);
	assert_true(l->level < si->nchain);
	int line = si->chain[l->level].line;
	free(loc);
	nodemap_free(&m);
	return line;
}

/* Samples at frames f[0] and f[1] of this binary (counters as given). */
static prof *two_line_prof(const char *path, uint64_t base, const uint64_t ra[2], uint32_t f[2],
			   const uint64_t c[2][4])
{
	prof *p = prof_new();
	assert_non_null(p);
	prof_module_add(p, path, NULL, base, 1 << 24, 0);
	for (int i = 0; i < 2; i++) {
		f[i] = prof_frame_intern(p, ra[i]);
		assert_int_equal(prof_sample_add(p, prof_stack_add(p, &f[i], 1), 0, c[i][0], c[i][1], c[i][2], c[i][3]), 0);
	}
	return p;
}

static void test_node_loc_metric(void **state)
{
	(void)state;
	char path[4096];
	uint64_t base = 0, ra[2];
	int line[2];
	assert_int_equal(self_map(path, sizeof(path), &base), 0);
	sym_test_two_lines(ra, line);
	assert_int_not_equal(line[0], line[1]);
	/* Line 0 allocated 4096 B and freed them; line 1 keeps 64 B. */
	uint32_t f[2];
	prof *p = two_line_prof(path, base, ra, f, (const uint64_t[2][4]){ { 1, 4096, 1, 4096 }, { 1, 64, 0, 0 } });
	sym *s = sym_open(p, &(sym_opts){ 0 });
	assert_non_null(s);
	assert_int_equal(sym_frame(s, f[0])->source, SYM_SRC_DWARF);
	assert_int_equal(loc_line(p, s, f[0], AGG_INUSE_BYTES), line[1]);
	assert_int_equal(loc_line(p, s, f[0], AGG_INUSE_OBJS), line[1]);
	assert_int_equal(loc_line(p, s, f[0], AGG_ALLOC_BYTES), line[0]);
	assert_int_equal(loc_line(p, s, f[0], AGG_ALLOC_OBJS), line[0]);   /* 1 and 1: the lower frame */
	sym_close(s);
	prof_free(p);
	/* A diff: line 0 shrank by 5000 B in use (its counters wrap), line 1
	 * grew by 64 B; the bigger change is line 0's. */
	p = two_line_prof(path, base, ra, f, (const uint64_t[2][4]){ { 0, 0, 2, 5000 }, { 1, 64, 0, 0 } });
	s = sym_open(p, &(sym_opts){ 0 });
	assert_non_null(s);
	assert_int_equal(loc_line(p, s, f[0], AGG_INUSE_BYTES), line[0]);
	assert_int_equal(loc_line(p, s, f[0], AGG_INUSE_OBJS), line[0]);
	assert_int_equal(loc_line(p, s, f[0], AGG_ALLOC_BYTES), line[1]);
	sym_close(s);
	prof_free(p);
}

static void test_granularity_names(void **state)
{
	(void)state;
	assert_int_equal(sym_gran_parse("function"), SYM_GRAN_FUNCTION);
	assert_int_equal(sym_gran_parse("line"), SYM_GRAN_LINE);
	assert_int_equal(sym_gran_parse("address"), SYM_GRAN_ADDRESS);
	assert_int_equal(sym_gran_parse("module"), SYM_GRAN_MODULE);
	assert_int_equal(sym_gran_parse("func"), -1);
	assert_string_equal(sym_gran_name(SYM_GRAN_LINE), "line");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_names),
		cmocka_unit_test(test_module_table),
		cmocka_unit_test(test_node_loc_metric),
		cmocka_unit_test(test_granularity_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
