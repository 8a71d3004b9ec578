/* prof.c - the profile model's storage: pools, interning, lookups. */
#include "core/prof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

prof *prof_new(void)
{
	prof *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->meta.pid = -1;
	p->meta.cmdline = PROF_NONE;
	p->meta.scale = 1.0;
	return p;
}

void prof_free(prof *p)
{
	if (!p)
		return;
	free(p->frames.v);
	free(p->stack_frames.v);
	free(p->stacks.v);
	free(p->samples.v);
	free(p->modules.v);
	free(p->strs.v);
	u64map_free(&p->frame_index);
	free(p);
}

uint32_t prof_str(prof *p, const char *s, size_t len)
{
	if (p->strs.len + len + 1 > UINT32_MAX - 1)
		return PROF_NONE;
	if (prof_vec_reserve(p->strs, len + 1))
		return PROF_NONE;
	return prof_str_put(p, s, len);
}

/* The frame index's "absent" is the model's. */
_Static_assert(PROF_NONE == U64MAP_NONE, "PROF_NONE is U64MAP_NONE");

uint32_t prof_frame_find(const prof *p, uint64_t addr)
{
	return u64map_get(&p->frame_index, addr);
}

uint32_t prof_frame_intern(prof *p, uint64_t addr)
{
	u64map *ix = &p->frame_index;
	if (!ix->vals && u64map_init(ix, 512))
		return PROF_NONE;
	size_t at = u64map_slot(ix, addr);
	if (ix->vals[at] != U64MAP_NONE)
		return ix->vals[at];
	if (p->frames.len >= PROF_NONE - 1 || prof_vec_reserve(p->frames, 1) ||
	    u64map_add_at(ix, at, addr, (uint32_t)p->frames.len))
		return PROF_NONE;
	uint32_t id = (uint32_t)p->frames.len++;
	p->frames.v[id] = (prof_frame){ .addr = addr, .name = PROF_NONE, .module = PROF_NONE };
	return id;
}

uint32_t prof_stack_add(prof *p, const uint32_t *frames, uint32_t depth)
{
	uint32_t *dst = prof_stack_begin(p, depth);
	if (!dst)
		return PROF_NONE;
	if (depth)
		memcpy(dst, frames, depth * sizeof(*frames));
	return prof_stack_commit(p, depth);
}

uint32_t *prof_stack_begin(prof *p, uint32_t depth)
{
	if (p->stack_frames.len + depth > UINT32_MAX || prof_vec_reserve(p->stack_frames, depth ? depth : 1))
		return NULL;
	return p->stack_frames.v + p->stack_frames.len;
}

uint32_t prof_stack_commit(prof *p, uint32_t depth)
{
	if (p->stacks.len >= PROF_NONE - 1 || prof_vec_reserve(p->stacks, 1))
		return PROF_NONE;
	uint32_t id = (uint32_t)p->stacks.len++;
	p->stacks.v[id] = (prof_stack){ .off = (uint32_t)p->stack_frames.len, .depth = depth };
	p->stack_frames.len += depth;
	return id;
}

uint32_t prof_stack_nostack(prof *p)
{
	uint32_t f = prof_frame_intern(p, 0);
	if (f == PROF_NONE)
		return PROF_NONE;
	if (p->frames.v[f].name == PROF_NONE &&
	    (p->frames.v[f].name = prof_str(p, PROF_NOSTACK_NAME, sizeof(PROF_NOSTACK_NAME) - 1)) == PROF_NONE)
		return PROF_NONE;
	return prof_stack_add(p, &f, 1);
}

int prof_frame_name_truncated(prof *p, uint32_t f)
{
	prof_frame *fr = &p->frames.v[f];
	if (fr->addr != PROF_TRUNCATED_ADDR || fr->name != PROF_NONE || fr->module != PROF_NONE)
		return 0;
	uint32_t s = prof_str(p, PROF_TRUNCATED_NAME, sizeof(PROF_TRUNCATED_NAME) - 1);
	if (s == PROF_NONE)
		return -1;
	p->frames.v[f].name = s;
	return 0;
}

size_t prof_truncated_stacks(const prof *p)
{
	uint32_t f = prof_frame_find(p, PROF_TRUNCATED_ADDR);
	size_t n = 0;
	if (f == PROF_NONE || !prof_frame_is_truncated(p, f))
		return 0;
	for (size_t s = 0; s < p->stacks.len; s++) {
		const prof_stack *st = &p->stacks.v[s];
		n += st->depth && p->stack_frames.v[st->off + st->depth - 1] == f;
	}
	return n;
}

int prof_sample_add(prof *p, uint32_t stack, uint64_t size, uint64_t alloc_objs,
		    uint64_t alloc_bytes, uint64_t free_objs, uint64_t free_bytes)
{
	if (prof_vec_reserve(p->samples, 1))
		return -1;
	p->samples.v[p->samples.len++] = (prof_sample){
		.stack = stack, .size = size,
		.c = { alloc_objs, alloc_bytes, free_objs, free_bytes },
	};
	return 0;
}

uint32_t prof_module_add(prof *p, const char *path, const char *build_id,
			 uint64_t base, uint64_t size, uint64_t offset)
{
	if (prof_vec_reserve(p->modules, 1))
		return PROF_NONE;
	uint32_t ps = prof_str(p, path, strlen(path));
	uint32_t bs = build_id && *build_id ? prof_str(p, build_id, strlen(build_id)) : PROF_NONE;
	if (ps == PROF_NONE)
		return PROF_NONE;
	uint32_t id = (uint32_t)p->modules.len++;
	p->modules.v[id] = (prof_module){ .path = ps, .build_id = bs, .base = base,
					  .size = size, .offset = offset };
	return id;
}

uint32_t prof_module_find(const prof *p, uint64_t addr)
{
	/* Newest first: a library loaded again at an old address wins. */
	for (size_t i = p->modules.len; i-- > 0;) {
		const prof_module *m = &p->modules.v[i];
		if (addr >= m->base && addr - m->base < m->size)
			return (uint32_t)i;
	}
	return PROF_NONE;
}

const char *prof_frame_name(const prof *p, uint32_t frame, char *buf, size_t buflen)
{
	const prof_frame *f = &p->frames.v[frame];
	if (f->name != PROF_NONE)
		return p->strs.v + f->name;
	snprintf(buf, buflen, "0x%llx", (unsigned long long)f->addr);
	return buf;
}
