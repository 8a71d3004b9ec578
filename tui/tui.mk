# tui/: the screens. The bench tool drives them headless, so it links every
# tui object but main.o.
TUI_LIB_OBJ := $(patsubst %.c,$(B)/%.o,$(filter-out tui/main.c,$(wildcard tui/*.c)))
TOOLS += bench_tui

$(B)/tools/bench_tui: test/tools/bench_tui.c $(TUI_LIB_OBJ) $(LIBS_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(TUI_LIB_OBJ) $(LIBS_ALL) $(NCURSES_LIBS)

# The unit test of the keys drives the screens headless too.
$(B)/test/test_keys: test/unit/test_keys.c $(TUI_LIB_OBJ) $(LIBS_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(TUI_LIB_OBJ) $(LIBS_ALL) $(NCURSES_LIBS) $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
