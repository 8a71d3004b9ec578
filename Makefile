# mprof - memory profiler for native Linux programs.
# make            build ./mprof-tui (and ./libmprof.so)
# make deps       install the Debian build dependencies (apt-get) when missing
# make check      deps, build, every test; last line "N passed, N failed, N skipped"
# make bench      performance figures with their targets
# make demo       run demo/leaky_server under the hook and open the live screen on it
# make install    PREFIX=/usr/local DESTDIR=

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
PKGS    := ncursesw libdw libelf libunwind libunwind-ptrace zlib libzstd
OPT     ?= -O2 -g
CFLAGS  ?= $(OPT)
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -I. -MMD -MP
ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
# A sanitized build (SANITIZE=1) lives apart so the two never mix; the hook
# is never sanitized and has one build (HOOK_B).
HOOK_B  := build/pic
ifeq ($(SANITIZE),1)
B       := build/san
TUI_BIN := build/san/mprof-tui
else
B       := build
TUI_BIN := mprof-tui
endif

# Fragments and the generated .d files define rules too: plain `make` is all.
.DEFAULT_GOAL := all

# Each folder's fragment (FOLDER/FOLDER.mk) says which binary its files go
# into: HOOK_SRC is libmprof.so; ATTACH_SRC (libmprof-attach.a), SYM_SRC
# (libmprof-sym.a), CORE_SRC (libmprof-core.a), remote/ (libmprof-remote.a)
# and TUI_SRC are mprof-tui.
CORE_SRC    := $(wildcard core/*.c)
SYM_SRC     := $(wildcard symbols/*.c)
TUI_SRC     := $(wildcard tui/*.c)
ATTACH_SRC  :=
ATTACH_LIBS :=
HOOK_SRC    :=
HOOK_LIBS   :=
REMOTE_LIBS :=
TOOLS       := gen_v1 bench_load pro_convert
# What mprof-tui, the tools and the unit tests link, in dependency order.
LIBS_DEP = $(B)/libmprof-attach.a $(B)/libmprof-sym.a $(B)/libmprof-core.a
# Fragments may add to these (a folder's own build rules live beside it).
-include $(wildcard attach/*/*.mk symbols/*.mk tui/*.mk core/*.mk remote/*.mk)

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
NCURSES_LIBS = $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)
DW_LIBS     = $(shell pkg-config --libs libdw libelf 2>/dev/null || echo -ldw -lelf)
Z_LIBS      = $(shell pkg-config --libs zlib 2>/dev/null || echo -lz)
ZSTD_LIBS   = $(shell pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
UNW_LIBS    = $(shell pkg-config --libs libunwind-ptrace libunwind-generic 2>/dev/null)
CORE_LIBS   = $(Z_LIBS) $(ZSTD_LIBS) -lm -lpthread
SYM_LIBS   += $(DW_LIBS)

CORE_OBJ     := $(CORE_SRC:%.c=$(B)/%.o)
SYM_OBJ      := $(SYM_SRC:%.c=$(B)/%.o)
TUI_OBJ      := $(TUI_SRC:%.c=$(B)/%.o)
ATTACH_OBJ   := $(ATTACH_SRC:%.c=$(B)/%.o)
HOOK_OBJ     := $(HOOK_SRC:%.c=$(HOOK_B)/%.o)

all: $(TUI_BIN) $(if $(HOOK_SRC),libmprof.so $(if $(filter 1,$(SANITIZE)),$(B)/libmprof.so))

# The sanitized mprof-tui finds the (never sanitized) hook beside it.
$(B)/libmprof.so: libmprof.so
	@mkdir -p $(B)
	ln -sf ../../libmprof.so $@

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

# The hook is built position-independent and without sanitizers: it runs in
# other people's processes.  One build of it, whatever SANITIZE says.
$(HOOK_B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fsanitize=%,$(CFLAGS)) $(PKG_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/libmprof-core.a: $(CORE_OBJ)
	@mkdir -p $(B)
	rm -f $@ && ar rcs $@ $^
$(B)/libmprof-sym.a: $(SYM_OBJ)
	@mkdir -p $(B)
	rm -f $@ && ar rcs $@ $^
$(B)/libmprof-attach.a: $(ATTACH_OBJ)
	@mkdir -p $(B)
	rm -f $@ && ar rcs $@ $^

LIBS_ALL = $(LIBS_DEP) $(REMOTE_LIBS) $(ATTACH_LIBS) $(SYM_LIBS) $(UNW_LIBS) $(CORE_LIBS)

$(TUI_BIN): $(TUI_OBJ) $(LIBS_DEP)
	@mkdir -p $(B)
	$(CC) $(LDFLAGS) -o $@ $(TUI_OBJ) $(LIBS_ALL) $(NCURSES_LIBS)

# The hook's objects, for test/integration/hook_link.sh.
hook-objs:
	@echo $(HOOK_OBJ)

libmprof.so: $(HOOK_OBJ)
	$(CC) -shared -fPIC -o $@ $(HOOK_OBJ) $(HOOK_LIBS) -ldl -lpthread -Wl,-z,nodelete

# The demo: a little request server whose upload handler leaks (demo/), built
# as a user would build a program to profile (debug info, frame pointers,
# never sanitized: it runs under the hook), launched under mprof-tui.
DEMO_BIN    := demo/leaky_server
DEMO_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -Wall -Wextra

# ---- tests ----------------------------------------------------------------
UNIT_SRC := $(wildcard test/unit/*.c)
UNIT_BIN := $(UNIT_SRC:test/unit/%.c=$(B)/test/%)
TEST_HELPERS := $(wildcard test/unit/helpers/*.c)

$(B)/test/%: test/unit/%.c $(TEST_HELPERS) $(LIBS_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(TEST_HELPERS) $(LIBS_ALL) $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

tests: all $(UNIT_BIN) tools $(DEMO_BIN)
tools: $(TOOLS:%=$(B)/tools/%)

$(B)/tools/%: test/tools/%.c $(LIBS_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(LIBS_ALL)

deps:
	@sh test/deps.sh

check: deps
	@$(MAKE) --no-print-directory tests
	@B=$(B) MPROF_BIN=$(abspath $(TUI_BIN)) sh test/run.sh

bench: all tools
	@sh test/bench/run.sh

$(DEMO_BIN): demo/leaky_server.c
	$(CC) $(DEMO_CFLAGS) -o $@ $<

demo: deps
	@$(MAKE) --no-print-directory all $(DEMO_BIN)
	./mprof-tui -- $(DEMO_BIN)

# libFuzzer targets over every reader (test/fuzz/fuzz_*.c), built with clang.
fuzz:
	@sh test/fuzz/run.sh build $${FUZZ_SECONDS:-60}

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man3 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(TUI_BIN) $(DESTDIR)$(PREFIX)/bin/
	if [ -f libmprof.so ]; then install -m 755 libmprof.so $(DESTDIR)$(PREFIX)/lib/; fi
	install -m 644 man/mprof-tui.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/mprof-pro.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	if [ -f man/libmprof.3 ]; then install -m 644 man/libmprof.3 $(DESTDIR)$(PREFIX)/share/man/man3/; fi

clean:
	rm -rf $(B) mprof-tui libmprof.so $(DEMO_BIN)

.PHONY: all deps check tests tools bench demo fuzz install clean hook-objs
-include $(shell find $(B) $(HOOK_B) -name '*.d' 2>/dev/null | sort -u)
