#!/bin/sh
# hook_capture.sh - real programs under libmprof.so: exact in-use bytes and
# objects per leaking function, output and exit status unchanged.
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
P=$TOP/test/progs
CFL="-g -O1 -fno-omit-frame-pointer"

cc $CFL -o "$TMP/leaks" "$P/hook_leaks.c" || { not_ok "build hook_leaks"; exit 0; }

# Plain run first: the hooked one must print and exit the same.
"$TMP/leaks" > "$TMP/plain.out"; plain=$?
MPROF_OUT=$TMP/leaks.pro LD_PRELOAD=$HOOK "$TMP/leaks" > "$TMP/hook.out" 2> "$TMP/hook.err"; st=$?
expect_eq "hook: exit status unchanged" "$st" "$plain"
expect_file_eq "hook: output unchanged" "$TMP/hook.out" "$TMP/plain.out"
expect_eq "hook: nothing on stderr" "$(cat "$TMP/hook.err")" ""
expect_eq "hook: malloc leak" "$(sumf "$TMP/leaks.pro" leak_malloc flat)" "1000 10"
expect_eq "hook: calloc leak" "$(sumf "$TMP/leaks.pro" leak_calloc flat)" "240 5"
expect_eq "hook: realloc leak" "$(sumf "$TMP/leaks.pro" leak_realloc flat)" "4096 1"
expect_eq "hook: posix_memalign leak" "$(sumf "$TMP/leaks.pro" leak_posix_memalign flat)" "448 7"
expect_eq "hook: aligned_alloc leak" "$(sumf "$TMP/leaks.pro" leak_aligned_alloc flat)" "768 3"
expect_eq "hook: memalign leak" "$(sumf "$TMP/leaks.pro" leak_memalign flat)" "400 2"
expect_eq "hook: reallocarray leak" "$(sumf "$TMP/leaks.pro" leak_reallocarray flat)" "120 1"
expect_eq "hook: freed blocks are not in use" "$(sumf "$TMP/leaks.pro" no_leak flat)" "0 0"
alloc=$("$MPROF" --top=flat --alloc --format=tsv --no-symbols --granularity=address "$TMP/leaks.pro" |
	awk -F '\t' 'NR > 1 && index($5, "(no_leak+") { b += $1; o += $2 } END { print b, o }')
# 20 mallocs (1000..1019 B), realloc 10 then 20, valloc 100, pvalloc 100 (page)
expect_eq "hook: freed blocks counted as allocated" "$alloc" "$((20 * 1000 + 190 + 10 + 20 + 100 + 4096)) 24"
expect_eq "hook: main is the root of the leaks (and of stdout's buffer)" "$(sumf "$TMP/leaks.pro" main cum)" "$((7072 + 4096)) 30"
expect_match "hook: dump records the command line and pid" "$("$MPROF" --info "$TMP/leaks.pro" 2>&1 | head -3)" "."

# Every symbol the hook needs is defined (LD_BIND_NOW resolves all at load).
LD_BIND_NOW=1 LD_PRELOAD=$HOOK "$TMP/leaks" > "$TMP/now.out" 2> "$TMP/now.err"; st=$?
expect_eq "hook: loads with LD_BIND_NOW=1 (no undefined symbol)" "$st $(cat "$TMP/now.err")" "$plain "

# skynet v1 dumps read back with the same numbers.
MPROF_FORMAT=skynet MPROF_OUT=$TMP/leaks.v1.pro LD_PRELOAD=$HOOK "$TMP/leaks" > /dev/null
expect_eq "hook: skynet v1 dump" "$(sumf "$TMP/leaks.v1.pro" leak_malloc flat)" "1000 10"

# Frame pointers instead of libunwind.
MPROF_UNWIND=fp MPROF_OUT=$TMP/leaks.fp.pro LD_PRELOAD=$HOOK "$TMP/leaks" > /dev/null
expect_eq "hook: fp unwinding, calloc leak" "$(sumf "$TMP/leaks.fp.pro" leak_calloc flat)" "240 5"
expect_eq "hook: fp unwinding, realloc leak" "$(sumf "$TMP/leaks.fp.pro" leak_realloc flat)" "4096 1"

# The stack cache: one call site, same depth, two outer callers interleaved
# (with and without frame pointers; libunwind and fp; cache on and off).
for opt in "-O1 -fno-omit-frame-pointer" "-O2 -fomit-frame-pointer"; do
	cc -g $opt -o "$TMP/callers" "$P/hook_callers.c" || { not_ok "build hook_callers"; continue; }
	for uw in libunwind fp nocache; do
		case "$uw $opt" in fp*-fomit*) continue ;; esac
		cache=1; u=$uw
		[ "$uw" = nocache ] && { cache=0; u=libunwind; }
		MPROF_CACHE=$cache MPROF_UNWIND=$u MPROF_OUT=$TMP/callers.pro LD_PRELOAD=$HOOK "$TMP/callers"
		expect_eq "hook stack cache ($opt, $uw): first caller" "$(sumf "$TMP/callers.pro" via_a cum)" "48000 3000"
		expect_eq "hook stack cache ($opt, $uw): second caller" "$(sumf "$TMP/callers.pro" via_b cum)" "48000 2000"
	done
done

# MPROF_DEPTH=1 keeps only the leaf.
MPROF_DEPTH=1 MPROF_OUT=$TMP/leaks.d1.pro LD_PRELOAD=$HOOK "$TMP/leaks" > /dev/null
expect_eq "hook: MPROF_DEPTH=1 keeps the leaf" "$(sumf "$TMP/leaks.d1.pro" leak_malloc flat)" "1000 10"
expect_eq "hook: MPROF_DEPTH=1 has no callers" "$(sumf "$TMP/leaks.d1.pro" main cum)" "0 0"

# jemalloc and tcmalloc linked in: the hook forwards to them.
for lib in jemalloc tcmalloc_minimal; do
	if cc $CFL -o "$TMP/leaks_$lib" "$P/hook_leaks.c" -l$lib 2> /dev/null; then
		MPROF_OUT=$TMP/$lib.pro LD_PRELOAD=$HOOK "$TMP/leaks_$lib" > "$TMP/$lib.out"; st=$?
		expect_eq "hook+$lib: exit status unchanged" "$st" 7
		expect_file_eq "hook+$lib: output unchanged" "$TMP/$lib.out" "$TMP/plain.out"
		expect_eq "hook+$lib: malloc leak" "$(sumf "$TMP/$lib.pro" leak_malloc flat)" "1000 10"
		expect_eq "hook+$lib: realloc leak" "$(sumf "$TMP/$lib.pro" leak_realloc flat)" "4096 1"
		expect_eq "hook+$lib: posix_memalign leak" "$(sumf "$TMP/$lib.pro" leak_posix_memalign flat)" "448 7"
		expect_eq "hook+$lib: aligned_alloc leak" "$(sumf "$TMP/$lib.pro" leak_aligned_alloc flat)" "768 3"
		expect_eq "hook+$lib: freed blocks" "$(sumf "$TMP/$lib.pro" no_leak flat)" "0 0"
	else
		not_ok "hook+$lib: cannot link -l$lib (test/deps.sh installs it)"
	fi
done

# The allocators' own API called directly: jemalloc's *allocx, tcmalloc's tc_*.
allocs() { "$MPROF" --top=flat --alloc --objects --format=tsv --no-symbols --granularity=address "$1" |
	awk -F '\t' -v f="($2+" 'NR > 1 && index($5, f) { o += $2 } END { printf "%.0f\n", o }'; }
if cc $CFL -DJE -o "$TMP/ext_je" "$P/hook_extapi.c" -ljemalloc; then
	MPROF_OUT=$TMP/je.pro LD_PRELOAD=$HOOK "$TMP/ext_je" > "$TMP/je.out"; st=$?
	expect_eq "hook mallocx: exit status and output" "$st $(cat "$TMP/je.out")" "0 done"
	expect_eq "hook mallocx: leak" "$(sumf "$TMP/je.pro" leak_mallocx flat)" "400 4"
	expect_eq "hook rallocx: leak (the block resized)" "$(sumf "$TMP/je.pro" leak_rallocx flat)" "300 1"
	expect_eq "hook xallocx: leak (shrunk in place)" "$(sumf "$TMP/je.pro" leak_xallocx flat)" "100 1"
	expect_eq "hook sdallocx, dallocx, free of mallocx blocks: nothing in use" "$(sumf "$TMP/je.pro" no_leak flat)" "0 0"
	expect_eq "hook mallocx: the freed blocks were allocations" "$(allocs "$TMP/je.pro" no_leak)" 3
else
	not_ok "hook mallocx: cannot build against jemalloc (make deps installs libjemalloc-dev)"
fi
if cc $CFL -DTC -o "$TMP/ext_tc" "$P/hook_extapi.c" -ltcmalloc_minimal; then
	MPROF_OUT=$TMP/tc.pro LD_PRELOAD=$HOOK "$TMP/ext_tc" > "$TMP/tc.out"; st=$?
	expect_eq "hook tc_*: exit status and output" "$st $(cat "$TMP/tc.out")" "0 done"
	expect_eq "hook tc_*: leaks (malloc, calloc, memalign, posix_memalign, realloc, new, newarray)" "$(sumf "$TMP/tc.pro" leak_tc flat)" "820 8"
	expect_eq "hook tc_free, tc_delete, tc_deletearray, tc_free_sized, tc_cfree: nothing in use" "$(sumf "$TMP/tc.pro" no_leak flat)" "0 0"
	expect_eq "hook tc_*: the freed blocks were allocations" "$(allocs "$TMP/tc.pro" no_leak)" 5
else
	not_ok "hook tc_*: cannot build against tcmalloc (make deps installs libgoogle-perftools-dev)"
fi

# A program built without -fPIE that takes malloc's address: its PLT stub
# is malloc's address for everyone, and is not the allocator.
if cc $CFL -no-pie -fno-pie -o "$TMP/fnptr" "$P/hook_fnptr.c"; then
	timeout 20 env MPROF_OUT="$TMP/fnptr.pro" LD_PRELOAD="$HOOK" "$TMP/fnptr" > "$TMP/fnptr.out"; st=$?
	expect_eq "hook non-PIE, malloc by address: exit status and output" "$st $(cat "$TMP/fnptr.out")" "0 done"
	expect_eq "hook non-PIE, malloc by address: leak and frees" "$(sumf "$TMP/fnptr.pro" leak_ptr flat) $(sumf "$TMP/fnptr.pro" no_leak flat)" "300 6 0 0"
else
	not_ok "hook non-PIE: build"
fi

# C++ under libstdc++, jemalloc and tcmalloc (both define operator new
# themselves): the hook takes over new and delete, the leaf is the caller.
for lib in "" jemalloc tcmalloc_minimal; do
	if c++ $CFL -o "$TMP/cxx$lib" "$P/hook_cxx.cpp" ${lib:+-l$lib}; then
		[ -z "$lib" ] && "$TMP/cxx" > "$TMP/cxx.plain"
		MPROF_OUT=$TMP/cxx$lib.pro LD_PRELOAD=$HOOK "$TMP/cxx$lib" > "$TMP/cxx$lib.out"; st=$?
		w="hook c++${lib:+ +$lib}"
		expect_eq "$w: exit status" "$st" 0
		expect_file_eq "$w: output unchanged" "$TMP/cxx$lib.out" "$TMP/cxx.plain"
		expect_eq "$w: new, in the caller itself" "$(sumf "$TMP/cxx$lib.pro" _Z8leak_newv flat)" "320 8"
		expect_eq "$w: new[]" "$(sumf "$TMP/cxx$lib.pro" _Z14leak_new_arrayv cum)" "400 4"
		expect_eq "$w: new/delete, new[]/delete[]" "$(sumf "$TMP/cxx$lib.pro" _Z10new_deletev cum)" "0 0"
		expect_eq "$w: vector growth" "$(sumf "$TMP/cxx$lib.pro" _Z11grow_vectorv cum)" "4120 2"
		expect_eq "$w: exception thrown and caught" "$(sumf "$TMP/cxx$lib.pro" _Z8catch_itv cum)" "0 0"
		expect_eq "$w: new throws bad_alloc through the hook; later news recorded" "$(sumf "$TMP/cxx$lib.pro" _Z19bad_alloc_then_leakv flat)" "120 3"
	else
		not_ok "hook c++${lib:+ +$lib}: build"
	fi
done

# 8 threads, 1,000,000 operations, 800 blocks live at the end.
cc $CFL -o "$TMP/threads" "$P/hook_threads.c" -lpthread
MPROF_OUT=$TMP/threads.pro LD_PRELOAD=$HOOK "$TMP/threads" 2> "$TMP/threads.err"; st=$?
expect_eq "hook threads: exit status" "$st" 0
expect_eq "hook threads: live blocks and bytes" "$(sumf "$TMP/threads.pro" thread_alloc flat)" "$(cat "$TMP/threads.err")"
expect_eq "hook threads: every allocation counted" "$("$MPROF" --top=flat --alloc --objects --format=tsv --no-symbols --granularity=address "$TMP/threads.pro" |
	awk -F '\t' 'NR > 1 && index($5, "(thread_alloc+") { o += $2 } END { print o }')" 1000000

# fork: by default a forked child that does not exec writes no dump (a
# shell script would litter); MPROF_FORKS=1 dumps each child beside the
# parent's as STEM.PROGRAM.PID.EXT.
cc $CFL -o "$TMP/fork" "$P/hook_fork.c"
MPROF_OUT=$TMP/fork0.pro LD_PRELOAD=$HOOK "$TMP/fork" > "$TMP/fork0.out"; st=$?
expect_eq "hook fork (default): exit status" "$st" 0
expect_eq "hook fork (default): only the parent's dump" "$(cd "$TMP" && ls fork0*.pro)" "fork0.pro"
MPROF_FORKS=1 MPROF_OUT=$TMP/fork.pro LD_PRELOAD=$HOOK "$TMP/fork" > "$TMP/fork.out"; st=$?
cpid=$(sed -n 's/^child //p' "$TMP/fork.out")
expect_eq "hook fork: exit status" "$st" 0
expect_eq "hook fork: parent's leak in the parent's dump" "$(sumf "$TMP/fork.pro" parent_leak flat)" "1000 2"
expect_eq "hook fork: child's leak not in the parent's dump" "$(sumf "$TMP/fork.pro" child_leak flat)" "0 0"
if [ -f "$TMP/fork.fork.$cpid.pro" ]; then
	expect_eq "hook fork: child's leak in the child's dump" "$(sumf "$TMP/fork.fork.$cpid.pro" child_leak flat)" "900 3"
	expect_eq "hook fork: parent's later leak not in the child's dump" "$(sumf "$TMP/fork.fork.$cpid.pro" parent_leak flat)" "0 0"
else
	not_ok "hook fork: child dump $TMP/fork.fork.$cpid.pro missing" "$(ls "$TMP")"
fi
expect_eq "hook fork: segments removed at exit" "$(ls /dev/shm/mprof-$cpid 2> /dev/null)" ""

# A launcher: the shell the user started writes MPROF_OUT; with
# MPROF_FORKS=1 the program it runs (fork + exec) writes its own dump
# beside it, named by program and pid, so neither overwrites the other.
mkdir "$TMP/launch"
MPROF_FORKS=1 MPROF_OUT=$TMP/launch/o.pro LD_PRELOAD=$HOOK sh -c "'$TMP/leaks' > /dev/null; echo x > /dev/null"; st=$?
expect_eq "hook launcher: the shell's status" "$st" 0
kid=$(cd "$TMP/launch" && ls | grep -v '^o\.pro$')
expect_match "hook launcher: the child's dump is named by program and pid" "$kid" "^o\.leaks\.[0-9]+\.pro$"
expect_eq "hook launcher: the child's leak in its own dump" "$(sumf "$TMP/launch/$kid" leak_malloc flat)" "1000 10"
expect_eq "hook launcher: the shell's dump is MPROF_OUT, without the child's leak" \
	"$(sumf "$TMP/launch/o.pro" leak_malloc flat)" "0 0"
expect_eq "hook launcher: two dumps" "$(ls "$TMP/launch" | wc -l)" 2
# %e and %p name every process's dump; nothing is added to them.
MPROF_OUT=$TMP/launch/%e-%p.pro LD_PRELOAD=$HOOK "$TMP/leaks" > /dev/null
expect_eq "hook: %e and %p in MPROF_OUT" "$(cd "$TMP/launch" && ls | grep -c '^leaks-[0-9]*\.pro$')" 1

# A shell loop of 2,000 subshells leaves one dump, the shell's.
mkdir "$TMP/loop"
(cd "$TMP/loop" && MPROF_OUT=loop.pro LD_PRELOAD=$HOOK bash -c 'i=0; while [ $i -lt 2000 ]; do i=$((i + 1)); x=$(echo $i); done; echo $x') > "$TMP/loop.out"
expect_eq "hook: 2,000 subshells, one dump" "$(cat "$TMP/loop.out") $(ls "$TMP/loop")" "2000 loop.pro"

# A dlopen'd library that is dlclose'd before exit still has its name.
cc $CFL -shared -fPIC -o "$TMP/hook_dlib.so" "$P/hook_dlib.c"
cc $CFL -o "$TMP/dlopen" "$P/hook_dlopen.c" -ldl
MPROF_OUT=$TMP/dl.pro LD_PRELOAD=$HOOK "$TMP/dlopen" "$TMP/hook_dlib.so" > "$TMP/dl.out"; st=$?
expect_eq "hook dlopen: exit status" "$st" 0
expect_eq "hook dlopen: unloaded library's leak by name" "$(sumf "$TMP/dl.pro" lib_alloc flat)" "385 5"
# dlopen allocates through ld.so's inline wrappers named like the
# allocator (rtld-malloc.h): the row is the loader's call site, and no row
# is a frame of the hook or of such a wrapper.
expect_eq "hook dlopen: no allocator wrapper or hook frame as a row" "$("$MPROF" --top=flat --format=tsv --granularity=line "$TMP/dl.pro" |
	awk -F '\t' 'NR > 1 && ($5 ~ /^(malloc|calloc|realloc|free|operator new|operator delete)[ (]/ || $5 ~ /libmprof/)')" ""
expect_match "hook dlopen: module path recorded" \
	"$("$MPROF" --top=flat --format=tsv --no-symbols --granularity=address "$TMP/dl.pro" | grep lib_alloc)" "hook_dlib\.so\(lib_alloc\+0x"
