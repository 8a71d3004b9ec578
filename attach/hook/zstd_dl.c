/* zstd_dl.c - the libzstd functions the recorder (attach/shared/
 * record_file.c) calls, defined in the hook (hidden) and forwarded to
 * libzstd.so.1, dlopened at start: the hook does not need it, so a
 * container without it still takes the hook, and MPROF_RECORD alone is
 * refused there (record_start says so). */
#include "attach/hook/hook.h"

#include <dlfcn.h>

/* The declarations without zstd's default visibility: these stay the hook's own. */
#define ZSTDLIB_VISIBLE
#define ZSTDLIB_HIDDEN
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

static struct {
	ZSTD_CCtx *(*create)(ZSTD_customMem);
	size_t (*set)(ZSTD_CCtx *, ZSTD_cParameter, int);
	unsigned (*is_error)(size_t);
	size_t (*free_cctx)(ZSTD_CCtx *);
	const char *(*error_name)(size_t);
	size_t (*reset)(ZSTD_CCtx *, ZSTD_ResetDirective);
	size_t (*stream2)(ZSTD_CCtx *, ZSTD_outBuffer *, ZSTD_inBuffer *, ZSTD_EndDirective);
} z;
static int z_loaded;

int zstd_load(void)
{
	void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
	*(void **)&z.create = dlsym(lib, "ZSTD_createCCtx_advanced");
	*(void **)&z.set = dlsym(lib, "ZSTD_CCtx_setParameter");
	*(void **)&z.is_error = dlsym(lib, "ZSTD_isError");
	*(void **)&z.free_cctx = dlsym(lib, "ZSTD_freeCCtx");
	*(void **)&z.error_name = dlsym(lib, "ZSTD_getErrorName");
	*(void **)&z.reset = dlsym(lib, "ZSTD_CCtx_reset");
	*(void **)&z.stream2 = dlsym(lib, "ZSTD_compressStream2");
	z_loaded = z.create && z.set && z.is_error && z.free_cctx && z.error_name && z.reset && z.stream2;
	return z_loaded ? 0 : -1;
}

int zstd_loaded(void)
{
	return z_loaded;
}

/* Without libzstd no context is made, so no other call is reached. */
ZSTD_CCtx *ZSTD_createCCtx_advanced(ZSTD_customMem mem)
{
	return z_loaded ? z.create(mem) : NULL;
}

size_t ZSTD_CCtx_setParameter(ZSTD_CCtx *c, ZSTD_cParameter p, int v)
{
	return z.set(c, p, v);
}

unsigned ZSTD_isError(size_t code)
{
	return z.is_error(code);
}

size_t ZSTD_freeCCtx(ZSTD_CCtx *c)
{
	return z_loaded ? z.free_cctx(c) : 0;
}

const char *ZSTD_getErrorName(size_t code)
{
	return z.error_name(code);
}

size_t ZSTD_CCtx_reset(ZSTD_CCtx *c, ZSTD_ResetDirective r)
{
	return z.reset(c, r);
}

size_t ZSTD_compressStream2(ZSTD_CCtx *c, ZSTD_outBuffer *out, ZSTD_inBuffer *in, ZSTD_EndDirective e)
{
	return z.stream2(c, out, in, e);
}
