/* allocs_ui.c - the allocator table in words (see allocs_ui.h); the
 * segment reader (attach/live/segment_read.c) validates and copies it. */
#include "tui/allocs_ui.h"
#include "attach/live/dumpon_ctl.h"
#include "attach/proc/procfs.h"
#include "attach/live/sample_ctl.h"
#include "attach/live/segment_read.h"
#include "core/path.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(const seg_alloc *a)
{
	switch (a->kind) {
	case SEG_AK_SYSTEM:
		return !strncmp(path_base(a->path), "libc.so", 7) ? "glibc" : "malloc";
	case SEG_AK_JEMALLOC: return "jemalloc";
	case SEG_AK_TCMALLOC: return "tcmalloc";
	case SEG_AK_MIMALLOC: return "mimalloc";
	case SEG_AK_OWN: return "its own malloc";
	case SEG_AK_USER: return "MPROF_FUNCS";
	}
	return "an allocator";
}

static const char *how_name(uint32_t how)
{
	switch (how) {
	case SEG_HOW_INTERPOSED: return "interposed";
	case SEG_HOW_GOT: return "GOT slots";
	case SEG_HOW_ENTRY: return "entry-patched";
	case SEG_HOW_REFUSED: return "refused";
	}
	return "?";
}

void allocs_describe(const seg_alloc *a, char *buf, size_t cap)
{
	int provider_row = a->how == SEG_HOW_INTERPOSED || a->how == SEG_HOW_GOT;
	snprintf(buf, cap, "%s%s%s%s in %s: %s%s%s%s", provider_row ? "the program's malloc: " : "", kind_name(a),
		 a->prefix[0] && a->kind == SEG_AK_JEMALLOC ? " " : "", a->kind == SEG_AK_JEMALLOC ? a->prefix : "",
		 a->path[0] ? a->path : "?", how_name(a->how),
		 a->how == SEG_HOW_ENTRY || a->how == SEG_HOW_REFUSED ? ": " : "",
		 a->how == SEG_HOW_ENTRY || a->how == SEG_HOW_REFUSED ? a->note : "",
		 (a->flags & SEG_AF_RESTORED) ? " (restored at the detach)" : "");
}

int allocs_print(FILE *out, const void *data, size_t len, const char *lead, int others_only)
{
	seg_alloc t[SEG_ALLOC_CAP];
	int n = seg_allocs_copy(data, len, t, SEG_ALLOC_CAP), printed = 0;
	for (int i = 0; i < n; i++) {
		if (others_only && (t[i].how == SEG_HOW_INTERPOSED || t[i].how == SEG_HOW_GOT))
			continue;
		char line[1024];
		allocs_describe(&t[i], line, sizeof(line));
		fprintf(out, "%s%s\n", lead, line);
		printed++;
	}
	return printed;
}

void allocs_summary(const void *data, size_t len, char *buf, size_t cap)
{
	seg_alloc t[SEG_ALLOC_CAP];
	int n = seg_allocs_copy(data, len, t, SEG_ALLOC_CAP);
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < n && used < cap; i++) {
		if (t[i].how == SEG_HOW_INTERPOSED || t[i].how == SEG_HOW_GOT)
			continue;
		int k = snprintf(buf + used, cap - used, "%s%s%s%s: %s", used ? "; " : "",
				 t[i].kind == SEG_AK_JEMALLOC ? t[i].prefix : "", t[i].kind == SEG_AK_JEMALLOC && t[i].prefix[0] ? " " : "",
				 kind_name(&t[i]), (t[i].flags & SEG_AF_RESTORED) ? "restored" : how_name(t[i].how));
		if (k < 0)
			break;
		used += (size_t)k;
	}
}

int allocs_info_print(const char *pid_arg)
{
	seg_map m;
	seg_header hc;
	int pid = seg_open_arg(&m, "--info --attach", pid_arg, &hc, 0, stderr);
	if (pid < 0)
		return 2;
	char cmd[sizeof(hc.cmdline)];
	snprintf(cmd, sizeof(cmd), "%.*s", (int)strnlen(hc.cmdline, sizeof(hc.cmdline) - 1), hc.cmdline);
	printf("process %d: %s\n", pid, cmd);
	printf("hook: %s\n", !(hc.flags & SEG_FLAG_LATE) ? "preloaded (LD_PRELOAD)"
			     : (hc.flags & SEG_FLAG_DETACHED) ? "injected, detached" : "injected");
	printf("unwinder: %s\n", hc.unwind == SEG_UNWIND_LIBUNWIND ? "libunwind"
				  : hc.unwind == SEG_UNWIND_FP ? "frame pointers (MPROF_UNWIND=fp)"
				  : "frame pointers (libunwind.so.8 could not be loaded in the process)");
	char smp[200];
	sample_ctl_text(m.h, smp, sizeof(smp));
	printf("recording: %s\n", smp);
	seg_since_text(&hc, smp, sizeof(smp));
	printf("counts: %s\n", smp);
	char trig[2400];
	if (dumpon_ctl_text(m.h, m.len, &hc, trig, sizeof(trig)))
		printf("triggered dumps: %s\n", trig);
	printf("allocators:\n");
	if (!allocs_print(stdout, m.h, m.len, "  ", 0))
		printf("  (not recorded: the hook in this process predates the allocator table)\n");
	seg_close(&m);
	return fflush(stdout) ? 1 : 0;
}
