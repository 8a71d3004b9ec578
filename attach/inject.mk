# attach/inject.mk: loading the hook into a running process. got.c (in the
# hook) redirects the program's GOT slots; inject.c (mprof-tui --inject,
# --detach) stops the target with ptrace and makes it call dlopen.
HOOK_SRC += attach/got.c
CONSUMER_SRC += attach/inject.c attach/allocator.c
# The C++ operators and the allocators' own entry points; -fexceptions so a
# throwing operator new unwinds through the wrapper's cleanup.
HOOK_SRC += attach/hook_ext.c
$(B)/pic/attach/hook_ext.o: CFLAGS += -fexceptions
