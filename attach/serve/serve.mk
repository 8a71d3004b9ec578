# attach/serve/: mprof-tui --serve, the pprof endpoint (serve.c: HTTP over
# libmicrohttpd; serve_heap.c: what /debug/pprof/heap returns;
# serve_syms.c: resolvers kept per process across requests).
ATTACH_SRC += $(wildcard attach/serve/*.c)
PKGS       += libmicrohttpd
ATTACH_LIBS += $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
