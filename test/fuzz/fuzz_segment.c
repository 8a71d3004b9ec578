/* fuzz_segment - the live segment's validator and converter (attach/
 * segment_read.c) on arbitrary bytes: seg_validate must accept or refuse
 * without reading outside, and seg_to_prof on what it accepts must stay
 * inside and produce a profile that writes out; the ring's slots decode
 * inside themselves.
 * FUZZ_SEEDS: test/data/segments/small.seg test/data/segments/wait.seg
 * FUZZ_EXTRA: attach/live/segment_read.c attach/live/launch.c attach/proc/*.c attach/shared/elfsym.c attach/shared/mapmem.c attach/shared/progname.c
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include "attach/live/segment_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* Module paths name files the converter opens for symbols: point them at
 * nothing, so the fuzzer never opens whatever path it invents. */
static void blank_paths(uint8_t *buf, size_t len)
{
	seg_header h;
	memcpy(&h, buf, sizeof(h));
	uint64_t off = h.off[SEG_R_MODULES];
	for (uint64_t i = 0; i < h.module_cap; i++) {
		uint64_t at = off + i * sizeof(seg_module) + offsetof(seg_module, path);
		if (at >= len)
			break;
		buf[at] = 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	/* A copy of exactly len bytes (16-aligned, as the regions need), so
	 * ASan sees any read past the end. */
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, len);
	prof_error err;
	if (!seg_validate(buf, len, "fuzz", &err)) {
		/* Every ring slot decodes inside itself, whatever it holds, as
		 * the recorder and the live screens decode it (segment.h). */
		seg_header h;
		memcpy(&h, buf, sizeof(h));
		for (uint64_t i = 0; i < h.ring_cap; i++) {
			seg_slot c;
			memcpy(&c, buf + h.off[SEG_R_RING] + i * sizeof(c), sizeof(c));
			if (c.len > SEG_SLOT_DATA)
				continue;
			seg_event prev = { .time_ns = c.time_ns, .tid = c.tid }, e;
			const uint8_t *p = c.data;
			for (unsigned k = 0; k < c.n && (p = seg_slot_next(p, c.data + c.len, &prev, &e)); k++)
				if (e.tid != c.tid || (e.kind != SEG_EV_ALLOC && e.kind != SEG_EV_FREE))
					abort();
		}
		blank_paths(buf, len);
		prof *p = seg_to_prof(buf, len, "fuzz", &err);
		if (p) {
			int fd = memfd_create("seg", 0);
			if (fd >= 0) {
				if (pro_native_write(p, fd, &err))
					abort();   /* a profile from a segment must write out */
				close(fd);
			}
			prof_free(p);
		}
	}
	free(buf);
	return 0;
}
