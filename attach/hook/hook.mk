# attach/hook/: libmprof.so, and nothing else. Every file here goes into the
# hook and into nothing else; with them, attach/shared/ (shared.mk) and
# core's writers, which never allocate, and no reader, aggregation or view
# code (test/integration/hook_link.sh checks the objects).
HOOK_SRC += $(wildcard attach/hook/*.c) \
	core/pro_native_write.c core/pro_v1_write.c core/wbuf.c core/loadutil.c core/atomicfile.c \
	core/prof_peak.c core/bytes.c
# libunwind and libzstd are dlopened at start (unwind.c, zstd_dl.c), never
# needed: a container without them still takes the hook.
HOOK_LIBS += -lm
# The writers' and elfsym.c's v1 names (allocation-free, like them).
HOOK_SRC += core/v1name.c

# Frame pointers in the hook itself, so MPROF_UNWIND=fp can walk out of it.
$(HOOK_B)/attach/hook/%.o: CFLAGS += -fno-omit-frame-pointer
# A throwing operator new unwinds through its wrapper's cleanup.
$(HOOK_B)/attach/hook/hook_ext.o: CFLAGS += -fexceptions
# The entry patcher's disassembler: capstone, linked in statically with its
# symbols hidden (a host's own capstone is left alone, and no libcapstone
# is needed where the hook runs); its one qsort goes to capmem.c's.
HOOK_LIBS += -l:libcapstone.a -Wl,--exclude-libs,libcapstone.a -Wl,--wrap=qsort
$(HOOK_B)/attach/hook/entry_wrap.o: CFLAGS += -fexceptions
