# attach/faults/: physical memory by call stack, from a process's page
# faults sampled with perf events (mprof-tui --faults).
ATTACH_SRC += $(wildcard attach/faults/*.c)
