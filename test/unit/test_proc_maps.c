/* test_proc_maps.c - the one /proc/PID/maps reader of the mprof-tui side
 * (attach/proc/maps.h): this process's own maps, checked against what it
 * knows of itself (its code, its stack, the vDSO, one entry per line), and
 * a crafted text with the odd lines the kernel writes (a path with spaces,
 * "(deleted)", [vdso], anonymous) and ones it does not (a line cut at the
 * end, one without an inode, one longer than the reader's buffer). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "attach/proc/maps.h"

static int own_code(void)
{
	return 1;
}

/* The entry of r holding addr (copied, path into buf), or 0 if none. */
static int entry_of(int pid, uint64_t addr, proc_map *out, char *buf, size_t len)
{
	proc_maps r;
	proc_map m;
	int found = 0;
	assert_int_equal(proc_maps_open(&r, pid), 0);
	while (!found && proc_maps_next(&r, &m))
		if (addr >= m.lo && addr < m.hi) {
			*out = m;
			snprintf(buf, len, "%s", m.path);
			out->path = buf;
			found = 1;
		}
	proc_maps_close(&r);
	return found;
}

static void own_maps(void **state)
{
	(void)state;
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	proc_map m;

	/* Our code: executable, our file, its device and inode. */
	assert_true(entry_of(getpid(), (uint64_t)(uintptr_t)&own_code, &m, path, sizeof(path)));
	assert_string_equal(m.path, exe);
	assert_int_equal(m.perms[0], 'r');
	assert_int_equal(m.perms[2], 'x');
	struct stat st;
	assert_int_equal(stat(exe, &st), 0);
	assert_int_equal(m.inode, (uint64_t)st.st_ino);
	char dev[16];
	snprintf(dev, sizeof(dev), "%02x:%02x", major(st.st_dev), minor(st.st_dev));
	assert_string_equal(m.dev, dev);
	assert_true(m.lo < m.hi && m.offset % 4096 == 0);

	/* Our stack, anonymous memory, and the vDSO the kernel names. */
	int local = 0;
	assert_true(entry_of(getpid(), (uint64_t)(uintptr_t)&local, &m, path, sizeof(path)));
	assert_string_equal(m.path, "[stack]");
	assert_memory_equal(m.perms, "rw", 2);
	assert_string_equal(m.dev, "00:00");
	assert_int_equal(m.inode, 0);
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	if (vdso) {
		assert_true(entry_of(getpid(), vdso, &m, path, sizeof(path)));
		assert_string_equal(m.path, "[vdso]");
	}

	/* Every line an entry, in address order, none overlapping. */
	FILE *fp = fopen("/proc/self/maps", "re");
	assert_non_null(fp);
	int lines = 0, c;
	while ((c = getc(fp)) != EOF)
		lines += c == '\n';
	fclose(fp);
	proc_maps r;
	assert_int_equal(proc_maps_open(&r, getpid()), 0);
	int entries = 0;
	uint64_t last = 0;
	while (proc_maps_next(&r, &m)) {
		assert_true(m.lo >= last && m.lo < m.hi);
		assert_null(strchr(m.path, '\n'));
		last = m.hi;
		entries++;
	}
	proc_maps_close(&r);
	assert_true(entries > 5);
	assert_in_range(entries, lines - 2, lines + 2);   /* a mapping may come or go between the reads */

	/* No such process: -1 and errno. */
	assert_int_equal(proc_maps_open(&r, INT_MAX), -1);
}

#define HDR "7f0000000000-7f0000001000 r-xp 00001000 fd:01 1234                       "

static void crafted(void **state)
{
	(void)state;
	/* A line longer than the buffer whose rest would read as a mapping of
	 * its own: only its first part is an entry. */
	static char text[16384];
	char *t = text;
	t += sprintf(t, "%s", HDR "/usr/lib/with space/lib x.so\n");
	t += sprintf(t, "%s", "7f0000001000-7f0000002000 r--p 00000000 103:02 99 /tmp/gone.so (deleted)\n");
	t += sprintf(t, "%s", "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]\n");
	t += sprintf(t, "%s", "7f0000002000-7f0000003000 rw-p 00000000 00:00 0 \n");
	t += sprintf(t, "%s", "7f0000003000-7f0000004000 r-xp 00000000 fd:01\n");   /* no inode */
	t += sprintf(t, "%s", "not a maps line at all\n");
	t += sprintf(t, "%s", HDR "/long");
	size_t head = strlen(HDR "/long");
	while ((size_t)(t - text) < head + 5000)
		*t++ = 'a';
	t += sprintf(t, "%s", "\n");
	/* the rest of the long line, as a line of its own, would be this */
	size_t cut = (size_t)(strstr(text, HDR "/long") - text) + PROC_MAPS_LINE - 1;
	memcpy(text + cut, "7f0000009000-7f000000a000 r-xp 0 0:0 1 /fake", 44);
	t += sprintf(t, "%s", "7f000000a000-7f000000b000 r-xp 00000000 fd:01 7 /after-long\n");
	t += sprintf(t, "%s", "7f000000b000-7f000000c000 r-x");   /* cut at the end, no newline */

	FILE *fp = fmemopen(text, (size_t)(t - text), "r");
	assert_non_null(fp);
	proc_maps r;
	proc_map m;
	proc_maps_from(&r, fp);

	assert_int_equal(proc_maps_next(&r, &m), 1);
	assert_int_equal(m.lo, 0x7f0000000000ULL);
	assert_int_equal(m.hi, 0x7f0000001000ULL);
	assert_string_equal(m.perms, "r-xp");
	assert_int_equal(m.offset, 0x1000);
	assert_string_equal(m.dev, "fd:01");
	assert_int_equal(m.inode, 1234);
	assert_string_equal(m.path, "/usr/lib/with space/lib x.so");

	assert_int_equal(proc_maps_next(&r, &m), 1);
	assert_string_equal(m.dev, "103:02");
	assert_int_equal(m.inode, 99);
	assert_string_equal(m.path, "/tmp/gone.so (deleted)");

	assert_int_equal(proc_maps_next(&r, &m), 1);
	assert_string_equal(m.path, "[vdso]");
	assert_int_equal(m.lo, 0x7ffd00000000ULL);

	assert_int_equal(proc_maps_next(&r, &m), 1);
	assert_string_equal(m.perms, "rw-p");
	assert_string_equal(m.path, "");

	/* the line without an inode and the stray text are skipped */
	assert_int_equal(proc_maps_next(&r, &m), 1);
	assert_int_equal(m.lo, 0x7f0000000000ULL);
	assert_int_equal(strlen(m.path), PROC_MAPS_LINE - 1 - strlen(HDR));
	assert_memory_equal(m.path, "/longaaaa", 9);

	assert_int_equal(proc_maps_next(&r, &m), 1);
	assert_string_equal(m.path, "/after-long");

	assert_int_equal(proc_maps_next(&r, &m), 0);   /* the cut last line is none */
	proc_maps_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_maps),
		cmocka_unit_test(crafted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
