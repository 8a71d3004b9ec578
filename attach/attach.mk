# attach/: the preload hook (producer) and the segment consumer.
# The hook links core's writers (they never allocate) plus prof.c, which the
# readers in the same files need; the hook itself never calls prof.c.
HOOK_SRC += attach/hook.c attach/unwind.c attach/stackcache.c attach/stacks.c attach/live.c attach/ring.c \
	attach/modules.c attach/elfsym.c attach/dump.c attach/mapmem.c \
	core/pro_native.c core/pro_v1.c core/wbuf.c core/prof.c core/loadutil.c
HOOK_LIBS += -lunwind
CONSUMER_SRC += attach/segment_read.c attach/snapshot.c attach/elfsym.c attach/mapmem.c

# Frame pointers in the hook itself, so MPROF_UNWIND=fp can walk out of it.
$(B)/pic/attach/%.o: CFLAGS += -fno-omit-frame-pointer

# Recording (MPROF_RECORD, mprof-tui --record) and sampling (MPROF_SAMPLE).
HOOK_SRC += attach/sample.c attach/record.c attach/record_hook.c
HOOK_LIBS += -lm
CONSUMER_SRC += attach/record.c attach/record_attach.c
