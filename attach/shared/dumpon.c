/* dumpon.c - the trigger syntax (dumpon.h): parsed in the hook at start
 * (MPROF_DUMP_ON) and by mprof-tui before it asks a hook (--dump-on), so a
 * bad value is refused the same way by both.  No allocation, errno kept. */
#include "attach/shared/dumpon.h"
#include "core/bytes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number at *s, advancing it; -1 when there is none or it overflows. */
static int num_at(const char **s, uint64_t *v)
{
	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(*s, &end, 10);
	if (errno)
		return -1;
	*s = end;
	*v = x;
	return 0;
}

/* SIZE (bytes with K/M/G/T) or, when pct_ok, N% (1..100), up to end. */
static int size_of(const char *s, const char *end, int pct_ok, dumpon_trig *t)
{
	uint64_t v;
	if (num_at(&s, &v) || !v)
		return -1;
	if (s + 1 == end && *s == '%') {
		if (!pct_ok || v > 100)
			return -1;
		t->pct = (uint32_t)v;
		t->size = v;
		return 0;
	}
	int shift = 0;
	if (s + 1 == end && strchr("kKmMgGtT", *s))
		shift = *s == 'k' || *s == 'K' ? 10 : *s == 'm' || *s == 'M' ? 20 : *s == 'g' || *s == 'G' ? 30 : 40;
	else if (s != end)
		return -1;
	if (v > (UINT64_MAX >> 1) >> shift)
		return -1;
	t->size = v << shift;
	return 0;
}

/* TIME: N ms, s, m or h, up to end; at most a day, at least 20 ms. */
static int time_of(const char *s, const char *end, uint64_t *ms)
{
	uint64_t v;
	if (num_at(&s, &v))
		return -1;
	size_t n = (size_t)(end - s);
	uint64_t mul = n == 2 && !strncmp(s, "ms", 2) ? 1 : n == 1 && *s == 's' ? 1000 : n == 1 && *s == 'm' ? 60000
		     : n == 1 && *s == 'h' ? 3600000 : 0;
	if (!mul || v > 86400000 / mul || v * mul < 20)
		return -1;
	*ms = v * mul;
	return 0;
}

static int one(const char *s, const char *end, dumpon_trig *t)
{
	memset(t, 0, sizeof(*t));
	const char *colon = memchr(s, ':', (size_t)(end - s));
	size_t kl = colon ? (size_t)(colon - s) : (size_t)(end - s);
	if (kl == 7 && !strncmp(s, "memhigh", 7) && !colon) {
		t->kind = DUMPON_MEMHIGH;
		return 0;
	}
	if (!colon)
		return -1;
	if (kl == 4 && !strncmp(s, "heap", 4)) {
		t->kind = DUMPON_HEAP;
		return size_of(colon + 1, end, 1, t);
	}
	if (kl == 3 && !strncmp(s, "rss", 3)) {
		t->kind = DUMPON_RSS;
		return size_of(colon + 1, end, 1, t);
	}
	if (kl == 6 && !strncmp(s, "growth", 6)) {
		t->kind = DUMPON_GROWTH;
		const char *slash = memchr(colon + 1, '/', (size_t)(end - colon - 1));
		return slash && !size_of(colon + 1, slash, 0, t) ? time_of(slash + 1, end, &t->window_ms) : -1;
	}
	return -1;
}

int dumpon_parse(const char *s, dumpon_spec *out, char *why, size_t cap)
{
	int saved = errno;
	memset(out, 0, sizeof(*out));
	int rc = 0;
	if (!s || !*s || strlen(s) >= DUMPON_SPEC_MAX) {
		snprintf(why, cap, "'%.64s': empty or longer than %d characters", s ? s : "", DUMPON_SPEC_MAX - 1);
		rc = -1;
	}
	while (!rc && *s) {
		const char *end = s + strcspn(s, ",");
		if (out->n == DUMPON_MAX) {
			snprintf(why, cap, "more than %d triggers", DUMPON_MAX);
			rc = -1;
		} else if (one(s, end, &out->t[out->n])) {
			snprintf(why, cap, "'%.*s' is none of heap:SIZE, rss:SIZE, growth:SIZE/TIME, memhigh "
				 "(SIZE: 512M, 1G or 80%%; TIME: 500ms, 10s, 5m, 1h)", (int)(end - s < 64 ? end - s : 64), s);
			rc = -1;
		} else {
			out->n++;
			s = *end ? end + 1 : end;
			if (*end && !*s) {
				snprintf(why, cap, "a trigger is missing after the last comma");
				rc = -1;
			}
		}
	}
	errno = saved;
	return rc;
}

void dumpon_describe(const dumpon_trig *t, char *buf, size_t cap)
{
	char sz[40];
	if (t->pct)
		snprintf(sz, sizeof(sz), "%u%% of the cgroup's memory.max", t->pct);
	else
		bytes_exact(sz, sizeof(sz), t->size);
	switch (t->kind) {
	case DUMPON_HEAP: snprintf(buf, cap, "heap in use reaches %s", sz); break;
	case DUMPON_RSS: snprintf(buf, cap, "resident set reaches %s", sz); break;
	case DUMPON_GROWTH:
		snprintf(buf, cap, "heap in use grows by %s within %llu ms", sz, (unsigned long long)t->window_ms);
		break;
	case DUMPON_MEMHIGH: snprintf(buf, cap, "the cgroup's memory.high is hit (memory.events high rises)"); break;
	default: snprintf(buf, cap, "?"); break;
	}
}
