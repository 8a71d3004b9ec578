#!/bin/sh
# hook_link: libmprof.so runs inside other people's programs, so what goes
# into it is checked, object by object: no call to the allocator it watches
# (nor to the libc functions that allocate through it), and no analyzer
# code (readers, model, aggregation, views, symbols).
. "$(dirname "$0")/../lib.sh"
san=""
[ "${B:-build}" = build/san ] && san=SANITIZE=1
objs=$(make -s --no-print-directory $san hook-objs)
n=0
for o in $objs; do
	n=$((n + 1))
	if [ ! -f "$o" ]; then
		not_ok "hook object $o is built"
		continue
	fi
	bad=$(nm -u "$o" | awk '{ print $NF }' | sed 's/@.*//' | grep -xE \
		'malloc|calloc|realloc|reallocarray|free|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|strdup|strndup|asprintf|vasprintf|fopen|fdopen|opendir|getline|getdelim|open_memstream|qsort|setenv|putenv|prof_(new|free|load|save|frame_intern|stack_intern)|pro_(v1|native)_read|agg_.*|view_.*|nodemap_.*|sym_.*|diff_.*|export_.*|filter_.*|tree_.*|callgraph_.*' | tr '\n' ' ')
	expect_eq "hook object ${o##*/}: no allocation, no analyzer code" "$bad" ""
done
expect_match "the hook has objects to check" "$n" "^[1-9][0-9]+$"
# The same for the linked library: what it needs from outside.
bad=$(nm -D --undefined-only libmprof.so | awk '{ print $NF }' | sed 's/@.*//' | grep -xE \
	'malloc|calloc|realloc|free|strdup|strndup|asprintf|fopen|opendir|getline|qsort' | tr '\n' ' ')
expect_eq "libmprof.so: imports no allocation function" "$bad" ""
