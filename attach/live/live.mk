# attach/live/: a process under the hook seen through its segment: the
# reader and checks (segment_read.c), the live follower (follow.c),
# snapshots, the listing of hooked processes and the sweep of dead ones'
# segments, the launcher (-- CMD), sampling requests, recording from
# outside (--record --attach), heap windows (--window), triggered dumps
# (--dump-on).
ATTACH_SRC += $(wildcard attach/live/*.c)
# Where make install puts the hook, the launcher's last guess.
$(B)/attach/live/launch.o: CFLAGS += -DMPROF_PREFIX=\"$(PREFIX)\"
TOOLS += bench_live follow_gap
