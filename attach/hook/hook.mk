# attach/hook/: libmprof.so, and nothing else. Every file here goes into the
# hook; it links core's writers and the loader helpers, which never
# allocate, and no reader, aggregation or view code (test/integration/
# hook_link.sh checks the objects). elfsym.c, mapmem.c, record.c and
# allocfam.c are linked by mprof-tui too (segment names, the recording
# writer, the injection's view of the allocators the hook patches).
HOOK_SRC += attach/hook/hook.c attach/hook/hook_ext.c attach/hook/unwind.c attach/hook/stackcache.c \
	attach/hook/stacks.c attach/hook/live.c attach/hook/ring.c attach/hook/modules.c attach/hook/elfsym.c \
	attach/hook/dump.c attach/hook/mapmem.c attach/hook/sample.c attach/hook/record.c \
	attach/hook/record_hook.c attach/hook/record_file.c attach/hook/record_pairs.c attach/hook/record_held.c attach/hook/got.c attach/hook/resolve.c attach/hook/dumpname.c \
	attach/hook/segment_create.c attach/hook/say.c attach/hook/arena.c attach/hook/dumps.c attach/hook/fatalsig.c attach/hook/procfns.c \
	attach/hook/epoch.c \
	core/pro_native_write.c core/pro_v1_write.c core/wbuf.c core/loadutil.c core/atomicfile.c
HOOK_LIBS += -lunwind -lm
# The recorder's compression; zstd gets the writer's mmap'd memory, never malloc.
HOOK_LIBS += $(shell pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
# The writers' and elfsym.c's v1 names (allocation-free, like them).
HOOK_SRC += core/v1name.c
# Preloaded or injected, from the loader's list.
HOOK_SRC += attach/hook/loadhow.c

# Frame pointers in the hook itself, so MPROF_UNWIND=fp can walk out of it.
$(HOOK_B)/attach/hook/%.o: CFLAGS += -fno-omit-frame-pointer
# A throwing operator new unwinds through its wrapper's cleanup.
$(HOOK_B)/attach/hook/hook_ext.o: CFLAGS += -fexceptions
# The entry patcher's disassembler: capstone, linked in statically with its
# symbols hidden (a host's own capstone is left alone, and no libcapstone
# is needed where the hook runs); its one qsort goes to capmem.c's.
HOOK_SRC += attach/hook/allocfam.c attach/hook/allocators.c attach/hook/entry.c attach/hook/entry_wrap.c \
	attach/hook/capmem.c attach/hook/procmaps.c
HOOK_LIBS += -l:libcapstone.a -Wl,--exclude-libs,libcapstone.a -Wl,--wrap=qsort
$(HOOK_B)/attach/hook/entry_wrap.o: CFLAGS += -fexceptions
