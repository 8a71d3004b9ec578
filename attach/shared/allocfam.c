/* allocfam.c - which functions make an allocator that symbol interposition
 * does not reach, told from symbol names alone: jemalloc under any prefix
 * (a <prefix>mallctl beside <prefix>malloc and <prefix>free), tcmalloc
 * (tc_malloc) linked into the executable, mimalloc (mi_malloc), an
 * executable's own malloc and free, and the functions MPROF_FUNCS names.
 * For each: its members (role and where the size and the pointer are) and
 * which symbols are its code.  No I/O: the hook (allocators.c) and
 * mprof-tui (attach/inject/allocranges.c, the injection's safe point) share it. */
#include "attach/shared/allocfam.h"
#include "attach/shared/segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M(n, r, a, b) { n, r, a, b },
#define C_FAMILY                                                                                     \
	M("malloc", AF_ALLOC, 0, 0) M("calloc", AF_CALLOC, 0, 1) M("realloc", AF_REALLOC, 0, 1)     \
	M("free", AF_FREE, 0, 0) M("cfree", AF_FREE, 0, 0) M("posix_memalign", AF_PMEMALIGN, 0, 2)  \
	M("aligned_alloc", AF_ALLOC, 1, 0) M("memalign", AF_ALLOC, 1, 0) M("valloc", AF_ALLOC, 0, 0) \
	M("pvalloc", AF_ALLOC, 0, 0)
#define CXX_OPS                                                                                      \
	M("_Znwm", AF_ALLOC, 0, 0) M("_Znam", AF_ALLOC, 0, 0) M("_ZnwmRKSt9nothrow_t", AF_ALLOC, 0, 0) \
	M("_ZnamRKSt9nothrow_t", AF_ALLOC, 0, 0) M("_ZnwmSt11align_val_t", AF_ALLOC, 0, 0)           \
	M("_ZnamSt11align_val_t", AF_ALLOC, 0, 0)                                                      \
	M("_ZnwmSt11align_val_tRKSt9nothrow_t", AF_ALLOC, 0, 0)                                        \
	M("_ZnamSt11align_val_tRKSt9nothrow_t", AF_ALLOC, 0, 0) M("_ZdlPv", AF_FREE, 0, 0)            \
	M("_ZdaPv", AF_FREE, 0, 0) M("_ZdlPvm", AF_FREE, 0, 0) M("_ZdaPvm", AF_FREE, 0, 0)             \
	M("_ZdlPvRKSt9nothrow_t", AF_FREE, 0, 0) M("_ZdaPvRKSt9nothrow_t", AF_FREE, 0, 0)             \
	M("_ZdlPvSt11align_val_t", AF_FREE, 0, 0) M("_ZdaPvSt11align_val_t", AF_FREE, 0, 0)           \
	M("_ZdlPvmSt11align_val_t", AF_FREE, 0, 0) M("_ZdaPvmSt11align_val_t", AF_FREE, 0, 0)         \
	M("_ZdlPvSt11align_val_tRKSt9nothrow_t", AF_FREE, 0, 0)                                        \
	M("_ZdaPvSt11align_val_tRKSt9nothrow_t", AF_FREE, 0, 0)

/* jemalloc's API after its prefix; unprefixed, its C++ operators too. */
static const af_member je_members[] = {
	M("malloc", AF_ALLOC, 0, 0) M("calloc", AF_CALLOC, 0, 1) M("realloc", AF_REALLOC, 0, 1)
	M("free", AF_FREE, 0, 0) M("posix_memalign", AF_PMEMALIGN, 0, 2) M("aligned_alloc", AF_ALLOC, 1, 0)
	M("memalign", AF_ALLOC, 1, 0) M("valloc", AF_ALLOC, 0, 0) M("mallocx", AF_ALLOC, 0, 0)
	M("rallocx", AF_RALLOCX, 0, 1) M("xallocx", AF_XALLOCX, 0, 1) M("sdallocx", AF_FREE, 0, 0)
	M("dallocx", AF_FREE, 0, 0) CXX_OPS { NULL, 0, 0, 0 }
};

/* tcmalloc in an executable: the C family and the operators are its own. */
static const af_member tc_members[] = {
	C_FAMILY CXX_OPS
	M("tc_malloc", AF_ALLOC, 0, 0) M("tc_malloc_skip_new_handler", AF_ALLOC, 0, 0)
	M("tc_calloc", AF_CALLOC, 0, 1) M("tc_realloc", AF_REALLOC, 0, 1) M("tc_free", AF_FREE, 0, 0)
	M("tc_free_sized", AF_FREE, 0, 0) M("tc_cfree", AF_FREE, 0, 0) M("tc_memalign", AF_ALLOC, 1, 0)
	M("tc_posix_memalign", AF_PMEMALIGN, 0, 2) M("tc_valloc", AF_ALLOC, 0, 0)
	M("tc_pvalloc", AF_ALLOC, 0, 0) M("tc_new", AF_ALLOC, 0, 0) M("tc_newarray", AF_ALLOC, 0, 0)
	M("tc_new_nothrow", AF_ALLOC, 0, 0) M("tc_newarray_nothrow", AF_ALLOC, 0, 0)
	M("tc_new_aligned", AF_ALLOC, 0, 0) M("tc_newarray_aligned", AF_ALLOC, 0, 0)
	M("tc_new_aligned_nothrow", AF_ALLOC, 0, 0) M("tc_newarray_aligned_nothrow", AF_ALLOC, 0, 0)
	M("tc_delete", AF_FREE, 0, 0) M("tc_deletearray", AF_FREE, 0, 0) M("tc_delete_sized", AF_FREE, 0, 0)
	M("tc_deletearray_sized", AF_FREE, 0, 0) M("tc_delete_nothrow", AF_FREE, 0, 0)
	M("tc_deletearray_nothrow", AF_FREE, 0, 0) M("tc_delete_aligned", AF_FREE, 0, 0)
	M("tc_deletearray_aligned", AF_FREE, 0, 0) M("tc_delete_sized_aligned", AF_FREE, 0, 0)
	M("tc_deletearray_sized_aligned", AF_FREE, 0, 0) M("tc_delete_aligned_nothrow", AF_FREE, 0, 0)
	M("tc_deletearray_aligned_nothrow", AF_FREE, 0, 0) { NULL, 0, 0, 0 }
};

/* mimalloc's own API; in an executable that overrides malloc, that too. */
static const af_member mi_members[] = {
	M("mi_malloc", AF_ALLOC, 0, 0) M("mi_zalloc", AF_ALLOC, 0, 0) M("mi_calloc", AF_CALLOC, 0, 1)
	M("mi_mallocn", AF_CALLOC, 0, 1) M("mi_realloc", AF_REALLOC, 0, 1) M("mi_free", AF_FREE, 0, 0)
	M("mi_cfree", AF_FREE, 0, 0) M("mi_free_size", AF_FREE, 0, 0) M("mi_free_aligned", AF_FREE, 0, 0)
	M("mi_free_size_aligned", AF_FREE, 0, 0) M("mi_malloc_aligned", AF_ALLOC, 0, 0)
	M("mi_zalloc_aligned", AF_ALLOC, 0, 0) M("mi_calloc_aligned", AF_CALLOC, 0, 1)
	M("mi_realloc_aligned", AF_REALLOC, 0, 1) M("mi_new", AF_ALLOC, 0, 0) M("mi_new_aligned", AF_ALLOC, 0, 0)
	M("mi_new_nothrow", AF_ALLOC, 0, 0) M("mi_new_aligned_nothrow", AF_ALLOC, 0, 0)
	M("mi_new_n", AF_CALLOC, 0, 1) C_FAMILY CXX_OPS { NULL, 0, 0, 0 }
};

/* An executable's own malloc family. */
static const af_member own_members[] = { C_FAMILY CXX_OPS { NULL, 0, 0, 0 } };

const af_member *af_members(int kind)
{
	switch (kind) {
	case SEG_AK_JEMALLOC: return je_members;
	case SEG_AK_TCMALLOC: return tc_members;
	case SEG_AK_MIMALLOC: return mi_members;
	case SEG_AK_OWN: return own_members;
	}
	return NULL;
}

/* The name without a compiler's suffix (.cold, .part.0, .localalias). */
static size_t stem_len(const char *name)
{
	const char *d = strchr(name, '.');
	return d && d != name ? (size_t)(d - name) : strlen(name);
}

int af_member_of(int kind, const char *prefix, const char *name)
{
	const af_member *m = af_members(kind);
	size_t pl = kind == SEG_AK_JEMALLOC ? strlen(prefix) : 0;
	if (!m || strncmp(name, prefix, pl))
		return -1;
	for (int i = 0; m[i].name; i++) {
		/* jemalloc's operators are its own only when it is unprefixed. */
		if (m[i].name[0] == '_' && pl)
			continue;
		if (!strcmp(name + pl, m[i].name))
			return i;
	}
	return -1;
}

int af_code_of(int kind, const char *prefix, const char *name)
{
	size_t n = stem_len(name);
	char s[256];
	if (n >= sizeof(s))
		n = sizeof(s) - 1;
	memcpy(s, name, n);
	s[n] = 0;
	if (af_member_of(kind, prefix, s) >= 0)
		return 1;
	switch (kind) {
	case SEG_AK_JEMALLOC:   /* its private namespace is je_ whatever the prefix */
		return (prefix[0] && !strncmp(s, prefix, strlen(prefix))) || !strncmp(s, "je_", 3) ||
		       !strncmp(s, "mallctl", 7) || !strcmp(s, "malloc_stats_print") || !strcmp(s, "malloc_usable_size");
	case SEG_AK_TCMALLOC:
		return !strncmp(s, "tc_", 3) || strstr(s, "tcmalloc") || strstr(s, "TCMalloc") ||
		       strstr(s, "MallocExtension") || strstr(s, "MallocHook") || strstr(s, "SpinLock") ||
		       !strncmp(s, "_ZN4base8internal", 17) || !strncmp(s, "__libc_", 7);
	case SEG_AK_MIMALLOC:
		return !strncmp(s, "mi_", 3) || !strncmp(s, "_mi_", 4);
	}
	return 0;
}

/* The names whose presence af_finish asks about. */
static const struct {
	const char *name;
	unsigned bit;
} marks[] = {
	{ "tc_malloc", AF_HAS_TC_MALLOC }, { "tc_free", AF_HAS_TC_FREE }, { "mi_malloc", AF_HAS_MI_MALLOC },
	{ "mi_free", AF_HAS_MI_FREE }, { "malloc", AF_HAS_MALLOC }, { "free", AF_HAS_FREE },
};

void af_note(af_scan *sc, const char *name)
{
	size_t n = strlen(name);
	if (n >= 7 && !strcmp(name + n - 7, "mallctl") && n - 7 < sizeof(sc->je[0]) && sc->nje < AF_MAX_PREFIX) {
		for (int i = 0; i < sc->nje; i++)
			if (strlen(sc->je[i]) == n - 7 && !strncmp(sc->je[i], name, n - 7))
				return;
		memcpy(sc->je[sc->nje], name, n - 7);
		sc->je[sc->nje++][n - 7] = 0;
		return;
	}
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (!strcmp(name, marks[i].name))
			sc->has |= marks[i].bit;
}

int af_finish(const af_scan *sc, int is_exe, int (*has)(void *arg, const char *name), void *arg,
	      af_found *out, int max)
{
	int n = 0, c_family = 0;
	for (int i = 0; i < sc->nje && n < max; i++) {
		char a[64], b[64];
		snprintf(a, sizeof(a), "%smalloc", sc->je[i]);
		snprintf(b, sizeof(b), "%sfree", sc->je[i]);
		/* Unprefixed in a library: interposition and GOT slots reach it. */
		if ((!sc->je[i][0] && !is_exe) || !has(arg, a) || !has(arg, b))
			continue;
		out[n].kind = SEG_AK_JEMALLOC;
		snprintf(out[n++].prefix, sizeof(out[0].prefix), "%s", sc->je[i]);
		c_family |= !sc->je[i][0];
	}
	if (is_exe && (sc->has & (AF_HAS_TC_MALLOC | AF_HAS_TC_FREE)) == (AF_HAS_TC_MALLOC | AF_HAS_TC_FREE) &&
	    n < max) {
		out[n].kind = SEG_AK_TCMALLOC;
		snprintf(out[n++].prefix, sizeof(out[0].prefix), "tc_");
		c_family = 1;
	}
	if ((sc->has & (AF_HAS_MI_MALLOC | AF_HAS_MI_FREE)) == (AF_HAS_MI_MALLOC | AF_HAS_MI_FREE) && n < max) {
		out[n].kind = SEG_AK_MIMALLOC;
		snprintf(out[n++].prefix, sizeof(out[0].prefix), "mi_");
		c_family |= is_exe;
	}
	if (is_exe && !c_family && (sc->has & (AF_HAS_MALLOC | AF_HAS_FREE)) == (AF_HAS_MALLOC | AF_HAS_FREE) &&
	    n < max) {
		out[n].kind = SEG_AK_OWN;
		out[n++].prefix[0] = 0;
	}
	return n;
}

/* ---- MPROF_FUNCS ---------------------------------------------------------- */

static const struct {
	const char *name;
	int role, a0, a1;
} user_roles[] = {
	{ "malloc", AF_ALLOC, 1, 0 }, { "calloc", AF_CALLOC, 1, 2 },
	{ "free", AF_FREE, 1, 0 }, { "realloc", AF_REALLOC, 1, 2 },
};

/* One "NAME:ROLE[:N[:M]]" of len bytes; 0, or -1 with why. */
static int user_one(const char *s, size_t len, af_user *u, char *why, size_t cap)
{
	char buf[160];
	if (len >= sizeof(buf)) {
		snprintf(why, cap, "'%.40s...' is too long", s);
		return -1;
	}
	memcpy(buf, s, len);
	buf[len] = 0;
	char *f[4] = { buf, NULL, NULL, NULL };
	int nf = 1;
	for (char *p = buf; *p && nf < 4; p++)
		if (*p == ':') {
			*p = 0;
			f[nf++] = p + 1;
		}
	if (nf < 2 || !f[0][0] || strlen(f[0]) >= sizeof(u->name)) {
		snprintf(why, cap, "'%s': want NAME:ROLE (malloc, calloc, free or realloc)", buf);
		return -1;
	}
	size_t r = 0;
	while (r < sizeof(user_roles) / sizeof(user_roles[0]) && strcmp(user_roles[r].name, f[1]))
		r++;
	if (r == sizeof(user_roles) / sizeof(user_roles[0])) {
		snprintf(why, cap, "%s: role '%s' is not malloc, calloc, free or realloc", f[0], f[1]);
		return -1;
	}
	int arg[2] = { user_roles[r].a0, user_roles[r].a1 };
	int want = user_roles[r].a1 ? 2 : 1;
	for (int i = 2; i < nf; i++) {
		char *end;
		long v = strtol(f[i], &end, 10);
		if (i - 2 >= want || *end || v < 1 || v > 6) {
			snprintf(why, cap, "%s: argument numbers are 1 to 6, %d of them for %s", f[0], want,
				 user_roles[r].name);
			return -1;
		}
		arg[i - 2] = (int)v;
	}
	snprintf(u->name, sizeof(u->name), "%s", f[0]);
	u->m.name = u->name;
	u->m.role = (unsigned char)user_roles[r].role;
	u->m.a0 = (unsigned char)(arg[0] - 1);
	u->m.a1 = (unsigned char)(arg[1] ? arg[1] - 1 : 0);
	return 0;
}

int af_user_parse(const char *spec, af_user *out, int max, char *why, size_t cap)
{
	int n = 0;
	why[0] = 0;
	for (const char *s = spec; s && *s;) {
		size_t len = strcspn(s, ", \t\n");
		if (len) {
			if (n == max) {
				snprintf(why, cap, "more than %d functions", max);
				return -1;
			}
			if (user_one(s, len, &out[n], why, cap))
				return -1;
			n++;
		}
		s += len;
		if (*s)
			s++;
	}
	return n;
}
