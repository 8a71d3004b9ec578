/* serve_syms.h - --serve's resolvers, kept across requests: one per
 * process (at most SERVE_SYMS_MAX, the least recently used given up), so
 * that a scrape does not read and decompress every module's debug info
 * again. A resolver serves one request at a time; it is opened again when
 * the process's module table changes (a dlopen, a reused pid). */
#ifndef MPROF_SERVE_SYMS_H
#define MPROF_SERVE_SYMS_H

#include "symbols/sym.h"

#define SERVE_SYMS_MAX 16

typedef struct serve_syms serve_syms;
typedef struct serve_sym_use serve_sym_use;

/* A cache over so's paths (copied by sym_open; so must live as long).
 * NULL on ENOMEM. Free with serve_syms_free once no request runs. */
serve_syms *serve_syms_new(const sym_opts *so);
void serve_syms_free(serve_syms *c);

/* A resolver for p, a profile of pid, held until serve_syms_release:
 * *s is it, and export_lines' get over *lines resolves p's frames by
 * address through it. NULL on ENOMEM. */
serve_sym_use *serve_syms_get(serve_syms *c, const prof *p, int pid, sym **s, export_lines *lines);
void serve_syms_release(serve_syms *c, serve_sym_use *u);

#endif
