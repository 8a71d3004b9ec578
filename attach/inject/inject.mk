# attach/inject/: loading the hook into a running process. inject.c
# (mprof-tui --inject, --detach) identifies the allocator (allocator.c),
# stops every thread with ptrace at a safe point (safepoint.c, with
# breakpoint.c's debug registers; allocranges.c keeps the stop out of the
# allocators the hook will patch, by attach/shared/allocfam.c's rules) and
# makes one call dlopen; the hook's got.c then redirects the GOT slots.
# Calls go one way: inject.c -> safepoint.c -> allocranges.c, breakpoint.c
# -> coderanges.c (the session's code ranges) and tracee.c (the process's
# status, the clock); inject_int.h is what they share.
ATTACH_SRC += $(wildcard attach/inject/*.c)
