# attach/follow.mk: the live consumer (mprof-tui --attach, -- CMD): the
# segment mirror and ring drain, the listing of attachable processes, the
# launcher. The bench tool drives the drain and a refresh headless.
CONSUMER_SRC += attach/follow.c attach/listing.c attach/segment_sweep.c attach/launch.c attach/procfs.c
# The heap over a window of a running process (--window), over the follower
# and the injection.
CONSUMER_SRC += attach/window.c


# Where make install puts the hook, the launcher's last guess.
$(B)/attach/launch.o: CFLAGS += -DMPROF_PREFIX=\"$(PREFIX)\"
TOOLS += bench_live follow_gap
