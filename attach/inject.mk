# attach/inject.mk: loading the hook into a running process. inject.c
# (mprof-tui --inject, --detach) identifies the allocator (allocator.c),
# stops the target with ptrace and makes it call dlopen; the hook's got.c
# then redirects the program's GOT slots and patches the entry points of the
# allocators interposition does not reach (allocranges.c keeps the safe
# point out of their code, with the hook's rules in allocfam.c).
CONSUMER_SRC += attach/inject.c attach/safepoint.c attach/breakpoint.c attach/allocator.c attach/allocranges.c attach/hook/allocfam.c
