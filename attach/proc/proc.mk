# attach/proc/: another process read from /proc (its state, its start, its
# one-line files, its maps: maps.c), for every mprof-tui side of attach/.
ATTACH_SRC += $(wildcard attach/proc/*.c)
