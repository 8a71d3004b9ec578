# attach/inject.mk: loading the hook into a running process. inject.c
# (mprof-tui --inject, --detach) identifies the allocator (allocator.c),
# stops the target with ptrace and makes it call dlopen; the hook's got.c
# then redirects the program's GOT slots.
CONSUMER_SRC += attach/inject.c attach/safepoint.c attach/allocator.c
