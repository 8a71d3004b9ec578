# remote/: profiles over HTTP(S) with libcurl (remote.c): mprof-tui URL,
# --top/--info/--diff/exports on a URL and --attach URL fetch here, into
# memory; core/ does no network. Its archive is linked into mprof-tui
# (and whatever links the tui objects) only. Without libcurl's headers
# (libcurl4-openssl-dev, make deps installs it) mprof-tui is built with
# remote_none.c, which refuses every URL in one line, and make says so;
# HAVE_CURL=0 builds that way on purpose.
HAVE_CURL   ?= $(if $(shell pkg-config --exists libcurl 2>/dev/null && echo 1),1,0)
ifeq ($(HAVE_CURL),1)
REMOTE_SRC  := remote/remote.c remote/remote_load.c
PKGS        += libcurl
REMOTE_LIBS += $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl)
else
REMOTE_SRC  := remote/remote_none.c remote/remote_load.c
$(info mprof: libcurl not found (make deps installs libcurl4-openssl-dev): mprof-tui is built without URLs)
endif
REMOTE_OBJ  := $(REMOTE_SRC:%.c=$(B)/%.o)
LIBS_DEP    := $(B)/libmprof-remote.a $(LIBS_DEP)

$(B)/libmprof-remote.a: $(REMOTE_OBJ)
	@mkdir -p $(B)
	rm -f $@ && ar rcs $@ $^
