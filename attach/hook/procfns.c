/* procfns.c - the process's own calls that decide what becomes of its
 * segment, wrapped beside the allocator: its exit (_exit, _Exit: dumps.c),
 * the dispositions of fatal signals (sigaction, signal: fatalsig.c) and
 * its user and group ids (here).  A process that changes its effective
 * uid (a root master's worker dropping to nobody) could no longer remove
 * a segment its old uid owns in the sticky /dev/shm: the segment is handed
 * to the new uid and gid first (while the old ones may still chown), and
 * back if the call fails.  Preloaded, these names are the hook's;
 * injected, got.c points the program's GOT slots at them (hook_proc_fns),
 * and leaves them so at --detach, so the segment still goes at exit. */
#include "attach/hook/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static dev_t seg_dev;
static ino_t seg_ino;

void procfns_seg_made(int fd)
{
	struct stat st;
	if (!fstat(fd, &st)) {
		seg_dev = st.st_dev;
		seg_ino = st.st_ino;
	}
}

/* Gives this process's segment (the file it made, nothing put in its
 * place) to uid and gid ((uid_t)-1, (gid_t)-1: unchanged) where it is
 * not theirs already. */
static void seg_give(uid_t uid, gid_t gid)
{
	seg_header *h = hook_seg;
	if (!h)
		return;
	char path[64];
	snprintf(path, sizeof(path), SEG_PATH_FMT, (int)h->pid);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	struct stat st;
	if (!fstat(fd, &st) && st.st_dev == seg_dev && st.st_ino == seg_ino &&
	    ((uid != (uid_t)-1 && st.st_uid != uid) || (gid != (gid_t)-1 && st.st_gid != gid)) &&
	    fchown(fd, uid, gid)) {
		/* not permitted (yet): the call after will try again */
	}
	close(fd);
}

typedef struct ids {
	uid_t u;
	gid_t g;
} ids;

/* Before a set*id call that makes uid, gid effective ((uid_t)-1: unchanged). */
static ids id_before(uid_t uid, gid_t gid)
{
	ids was = { geteuid(), getegid() };
	if ((uid != (uid_t)-1 && uid != was.u) || (gid != (gid_t)-1 && gid != was.g))
		seg_give(uid, gid);
	return was;
}

/* After it: the segment is the effective ids' (or again the old ones'). */
static int id_after(int r, ids was)
{
	int e = errno;
	if (r)
		seg_give(was.u, was.g);
	else
		seg_give(geteuid(), getegid());
	errno = e;
	return r;
}

enum { PF_SETUID, PF_SETEUID, PF_SETREUID, PF_SETRESUID, PF_SETGID, PF_SETEGID, PF_SETREGID, PF_SETRESGID,
       PF_EXIT, PF_EXIT2, PF_SIGACTION, PF_SIGNAL, PF_COUNT };

#define REAL(i, type) ((type)hook_fn_real(&hook_proc_fns[i]))

EXPORT int setuid(uid_t u)
{
	ids w = id_before(u, (gid_t)-1);
	return id_after(REAL(PF_SETUID, int (*)(uid_t))(u), w);
}

EXPORT int seteuid(uid_t u)
{
	ids w = id_before(u, (gid_t)-1);
	return id_after(REAL(PF_SETEUID, int (*)(uid_t))(u), w);
}

EXPORT int setreuid(uid_t r, uid_t e)
{
	ids w = id_before(e, (gid_t)-1);
	return id_after(REAL(PF_SETREUID, int (*)(uid_t, uid_t))(r, e), w);
}

EXPORT int setresuid(uid_t r, uid_t e, uid_t s)
{
	ids w = id_before(e, (gid_t)-1);
	return id_after(REAL(PF_SETRESUID, int (*)(uid_t, uid_t, uid_t))(r, e, s), w);
}

EXPORT int setgid(gid_t g)
{
	ids w = id_before((uid_t)-1, g);
	return id_after(REAL(PF_SETGID, int (*)(gid_t))(g), w);
}

EXPORT int setegid(gid_t g)
{
	ids w = id_before((uid_t)-1, g);
	return id_after(REAL(PF_SETEGID, int (*)(gid_t))(g), w);
}

EXPORT int setregid(gid_t r, gid_t e)
{
	ids w = id_before((uid_t)-1, e);
	return id_after(REAL(PF_SETREGID, int (*)(gid_t, gid_t))(r, e), w);
}

EXPORT int setresgid(gid_t r, gid_t e, gid_t s)
{
	ids w = id_before((uid_t)-1, e);
	return id_after(REAL(PF_SETRESGID, int (*)(gid_t, gid_t, gid_t))(r, e, s), w);
}

HOOK_GOT_ALIAS(setuid) HOOK_GOT_ALIAS(seteuid) HOOK_GOT_ALIAS(setreuid) HOOK_GOT_ALIAS(setresuid)
HOOK_GOT_ALIAS(setgid) HOOK_GOT_ALIAS(setegid) HOOK_GOT_ALIAS(setregid) HOOK_GOT_ALIAS(setresgid)
extern __typeof(_exit) got__exit;
extern __typeof(_Exit) got__Exit;
extern __typeof(sigaction) got_sigaction;
extern __typeof(signal) got_signal;

hook_fn hook_proc_fns[PF_COUNT + 1] = {
	[PF_SETUID] = { "setuid", (void *)got_setuid, 1, NULL, 0 },
	[PF_SETEUID] = { "seteuid", (void *)got_seteuid, 1, NULL, 0 },
	[PF_SETREUID] = { "setreuid", (void *)got_setreuid, 1, NULL, 0 },
	[PF_SETRESUID] = { "setresuid", (void *)got_setresuid, 1, NULL, 0 },
	[PF_SETGID] = { "setgid", (void *)got_setgid, 1, NULL, 0 },
	[PF_SETEGID] = { "setegid", (void *)got_setegid, 1, NULL, 0 },
	[PF_SETREGID] = { "setregid", (void *)got_setregid, 1, NULL, 0 },
	[PF_SETRESGID] = { "setresgid", (void *)got_setresgid, 1, NULL, 0 },
	[PF_EXIT] = { "_exit", (void *)got__exit, 1, NULL, 0 },
	[PF_EXIT2] = { "_Exit", (void *)got__Exit, 1, NULL, 0 },
	[PF_SIGACTION] = { "sigaction", (void *)got_sigaction, 1, NULL, 0 },
	[PF_SIGNAL] = { "signal", (void *)got_signal, 1, NULL, 0 },
	[PF_COUNT] = { NULL, NULL, 0, NULL, 0 },
};
