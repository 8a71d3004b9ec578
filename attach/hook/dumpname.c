/* dumpname.c - the name a dump gets, so that no process's dump overwrites
 * another's: MPROF_OUT with %p (pid) and %e (program) expanded; the process
 * the user started writes that name, every other one (forked, or exec'd by
 * a process that records too) adds ".PROGRAM.PID" before the extension,
 * the parts %e and %p did not already give.  SIGUSR2 dumps end in ".N",
 * triggered ones (dumpon.c) have ".trigger-N" before the extension.
 * Allocation-free: dumps are written from signal handlers too.  Also what
 * exec'd children inherit: MPROF_FOLLOW=0 keeps the hook out of them. */
#include "attach/hook/hook.h"
#include "attach/shared/progname.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char prog_name[48];

int dumpname_init(void)
{
	extern char *program_invocation_short_name;
	progname_clean(prog_name, sizeof(prog_name), program_invocation_short_name);
	/* The parent records too when its segment is there, made by that pid. */
	char path[64];
	snprintf(path, sizeof(path), SEG_PATH_FMT, (int)getppid());
	seg_header hd;
	return seg_file_header(path, &hd) && hd.pid == (int64_t)getppid();
}

/* The name with mid before the extension and seq (when not 0) after it. */
static void name_make(char *dst, size_t cap, const char *pattern, int other, const char *mid, unsigned seq)
{
	char base[4096];
	size_t k = 0;
	int has_pid = 0, has_prog = 0;
	for (const char *s = pattern; *s && k + 64 < sizeof(base); s++) {
		if (s[0] == '%' && s[1] == 'p') {
			k += (size_t)snprintf(base + k, sizeof(base) - k, "%d", (int)getpid());
			has_pid = 1;
			s++;
		} else if (s[0] == '%' && s[1] == 'e') {
			k += (size_t)snprintf(base + k, sizeof(base) - k, "%.40s", prog_name);
			has_prog = 1;
			s++;
		} else {
			base[k++] = *s;
		}
	}
	base[k] = 0;
	char tag[96] = "";
	if (other && !(has_pid && has_prog)) {
		char pid[24];
		snprintf(pid, sizeof(pid), ".%d", (int)getpid());
		snprintf(tag, sizeof(tag), "%s%s%s", has_prog ? "" : ".", has_prog ? "" : prog_name, has_pid ? "" : pid);
	}
	const char *slash = strrchr(base, '/');
	char *dot = strrchr(slash ? slash + 1 : base, '.');
	if (dot == (slash ? slash + 1 : base))
		dot = NULL;   /* a leading dot names a hidden file, not an extension */
	size_t stem = dot ? (size_t)(dot - base) : strlen(base);
	char suffix[24] = "";
	if (seq)
		snprintf(suffix, sizeof(suffix), ".%u", seq);
	snprintf(dst, cap, "%.*s%s%s%s%s", (int)stem, base, tag, mid, base + stem, suffix);
}

void dumpname_path(char *dst, size_t cap, const char *pattern, int other, unsigned seq)
{
	name_make(dst, cap, pattern, other, "", seq);
}

void dumpname_trigger(char *dst, size_t cap, const char *pattern, int other, unsigned n)
{
	char mid[32];
	snprintf(mid, sizeof(mid), ".trigger-%u", n);
	name_make(dst, cap, pattern, other, mid, 0);
}

/* MPROF_FOLLOW=0: blank libmprof out of LD_PRELOAD so exec'd children run
 * without it (the loader splits the list on spaces and colons). */
void dumpname_unfollow(void)
{
	extern char **environ;
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "LD_PRELOAD=", 11))
			continue;
		char *s = *e + 11;
		while (*s) {
			size_t n = strcspn(s, " :");
			char *hit = memmem(s, n, "libmprof", 8);
			if (hit)
				memset(s, ' ', n);
			s += n;
			if (*s)
				s++;
		}
	}
}
