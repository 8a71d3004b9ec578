# attach/shared/: what both binaries link: the segment's layout (segment.h),
# the recording writer (record*.c: the hook records from inside, mprof-tui
# --record --attach from outside), a module's ELF symbols read without
# malloc (elfsym.c), mmap'd memory (mapmem.c), the allocator families the
# hook patches (allocfam.c), the one parser of the numeric MPROF_* settings
# (settings.c), the triggers of triggered dumps (dumpon.c), a program's
# name in a dump's file name (progname.c). Nothing here
# allocates through malloc; these
# headers are the only ones of attach/ that both sides include.
SHARED_SRC := $(wildcard attach/shared/*.c)
HOOK_SRC   += $(SHARED_SRC)
ATTACH_SRC += $(SHARED_SRC)
# In the hook, with frame pointers like the hook's own code (MPROF_UNWIND=fp).
$(HOOK_B)/attach/shared/%.o: CFLAGS += -fno-omit-frame-pointer
