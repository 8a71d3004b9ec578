# attach/serve.mk: mprof-tui --serve, the pprof endpoint (serve.c: HTTP
# over libmicrohttpd; serve_heap.c: what /debug/pprof/heap returns;
# serve_syms.c: resolvers kept per process across requests).
CONSUMER_SRC += attach/serve.c attach/serve_heap.c attach/serve_syms.c
PKGS     += libmicrohttpd
MHD_LIBS := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
SYM_LIBS += $(MHD_LIBS)
