/* procfs.h - what the consumer side reads about another process from
 * /proc: its state, its start, a one-line file such as its comm. */
#ifndef MPROF_PROCFS_H
#define MPROF_PROCFS_H

#include <stddef.h>
#include <stdint.h>

/* /proc/PID/stat read into buf; returns its fields after the command
 * (from the state on: "S 1 ..."), or NULL when unreadable. */
const char *proc_stat_fields(int pid, char *buf, size_t len);
/* 1 when pid no longer runs (gone, a zombie or dead). */
int proc_gone(int pid);
/* 1 when pid is gone or goes within ms: a process in the middle of its
 * exit has lost its memory and threads before it is a zombie. */
int proc_gone_within(int pid, int ms);
/* When pid started (unix ns), from /proc: btime + starttime; -1. */
int64_t proc_start_ns(int pid);
/* 1 when pid runs and is the process that started at start_ns (unix ns),
 * not a later one given its pid. */
int proc_runs_since(int pid, int64_t start_ns);
/* 1 when pid maps libmprof.so, 0 when it does not (a process that ran a
 * new program after the hook was injected keeps its pid and its segment,
 * but no hook), -1 when its maps cannot be read. */
int proc_has_hook(int pid);
/* 1 when a mapping's path is libmprof.so: by its name, or the memfd an
 * injection into another mount namespace loads it from. */
int proc_is_hook_path(const char *path);
/* The process id s spells (decimal, 1 to INT32_MAX), or -1. */
int proc_pid_arg(const char *s);
/* What /proc/PID/status says of who pid is and who traces it. */
typedef struct proc_status {
	long uid[4];       /* real, effective, saved, file-system; -1 when not said */
	long tracer;       /* TracerPid, 0 none */
	long nspid;        /* its pid in its own (innermost) pid namespace: NSpid's last; -1 unsaid */
} proc_status;
/* Reads it; -1 when there is no such process. */
int proc_status_read(int pid, proc_status *st);
/* 1 when pid lives in another namespace of kind ns ("mnt", "pid") than
 * we do (a container's process seen from the host), 0 in ours or when
 * unreadable. */
int proc_other_ns(int pid, const char *ns);
/* The process's short name from /proc/PID/comm ("" when unreadable). */
void proc_comm(int pid, char *buf, size_t len);
/* The one message for a pid no process has. */
#define PROC_NONE_FMT "no process %d"
/* The first line of path without its newline; "" when unreadable. */
void file_first_line(const char *path, char *buf, size_t len);

#endif
