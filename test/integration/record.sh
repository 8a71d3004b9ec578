#!/bin/sh
# record.sh - recordings (MPROF_RECORD=DIR, mprof-tui --record) and time
# travel in batch: a heap with a known peak at a known moment, rotation,
# the producer waiting instead of dropping, sampling, --at / --diff-at /
# --leaks / --temporary, bad input.
. "$(dirname "$0")/../lib.sh"
HOOK=$TOP/libmprof.so
P=$TOP/test/progs
CFL="-g -O1 -fno-omit-frame-pointer"
cc $CFL -o "$TMP/peak" "$P/rec_peak.c" || { not_ok "build rec_peak"; exit 0; }
cc $CFL -o "$TMP/work" "$P/rec_work.c" || { not_ok "build rec_work"; exit 0; }

# row FUNC [mprof args...]: "bytes objects" of FUNC's flat row (0 0 if none).
row() {
	f=$1
	shift
	"$MPROF" --top=flat --format=tsv "$@" 2> /dev/null |
		awk -F '\t' -v f="$f" '$5 == f { b = $1; o = $2 } END { printf "%d %d\n", b, o }'
}
info_field() { "$MPROF" --info "$1" | sed -n "s/^$2 \([0-9]*\).*/\1/p"; }

# The peak: peak_fn holds 100 x 102400 B from about 1.3 s to 1.8 s; nothing
# else is alive then (the program uses no stdio), so the peak is exact.
MPROF_RECORD=$TMP/r1 LD_PRELOAD=$HOOK "$TMP/peak"
expect_eq "record: program exit status unchanged" "$?" 0
expect_eq "record: one file for the process" "$(ls "$TMP/r1" | grep -c '^mprof-[0-9]*\.000001\.rec$')" 1
expect_eq "record: the peak is exactly 10,240,000 bytes" "$(info_field "$TMP/r1" peak)" 10240000
pt=$("$MPROF" --info "$TMP/r1" | sed -n 's/^peak .* at \([0-9.]*\) s.*/\1/p')
expect_match "record: the peak comes after peak_fn's 1 s of allocations ($pt s)" "$pt" '^1\.[0-9]*$'
expect_eq "record: exactly one bucket marked PEAK" "$("$MPROF" --info "$TMP/r1" | grep -c PEAK)" 1
expect_eq "record: --at peak: peak_fn holds all of it" "$(row peak_fn --at peak "$TMP/r1")" "10240000 100"
expect_eq "record: --at end (after the fall): peak_fn holds nothing" "$(row peak_fn --at end "$TMP/r1")" "0 0"
expect_eq "record: --at end: after_fn's block" "$(row after_fn --at end "$TMP/r1")" "4096 1"
expect_eq "record: --at 0.1 (before anything)" "$(row peak_fn --at 0.1 "$TMP/r1")" "0 0"
mid=$(row peak_fn --at 0.8s "$TMP/r1")
expect_match "record: --at 0.8s: part of the rise ($mid)" "$mid" '^[1-9][0-9]*00 [1-9][0-9]?$'
expect_eq "record: --diff-at start peak: peak_fn grew by all of it" \
	"$(row peak_fn --diff-at start peak "$TMP/r1")" "10240000 100"
expect_eq "record: --diff-at peak end: peak_fn fell by all of it" \
	"$(row peak_fn --diff-at peak end "$TMP/r1")" "-10240000 -100"
expect_eq "record: --leaks start end: only after_fn's block is alive at the end" \
	"$(row after_fn --leaks start end "$TMP/r1") $(row peak_fn --leaks start end "$TMP/r1")" "4096 1 0 0"
run_status "$MPROF" --at peak --top=flat "$TMP/r1"
expect_match "record: the text report says which moment" "$OUT" '^# the heap at 1\.[0-9]* s, 9\.77 MiB in use'
run_status "$MPROF" --at soon "$TMP/r1"
expect_eq "record: a bad time: exit status 2" "$STATUS" 2
expect_match "record: a bad time: one line" "$ERR" "'soon' is not a time"
run_status "$MPROF" --at 99s --top=flat "$TMP/r1"
expect_eq "record: a time past the end: exit status 2, nothing reported" "$STATUS $OUT" "2 "
expect_match "record: a time past the end: says where the end is" "$ERR" "'99s' is past the end of the recording \([0-9.]+ s; 'end' is that moment\)"
run_status "$MPROF" --at 1s --top=flat "$DATA/test_mem.pro"
expect_eq "record: --at on a profile file: exit status 2" "$STATUS" 2
expect_eq "record: --at on a profile file: says what it wants" "$ERR" \
	"mprof-tui: $DATA/test_mem.pro: not a recording (a directory MPROF_RECORD wrote, or one of its .rec files)"
one=$(ls "$TMP"/r1/*.rec | head -1)
expect_eq "record: one .rec file opens alone (--at peak)" "$(row peak_fn --at peak "$one")" "10240000 100"
run_status "$MPROF" --info "$one"
expect_match "record: --info on one .rec file names its pid" "$OUT" "^recording .*: pid [1-9][0-9]*, 1 file"
run_status "$MPROF" --leaks start end --top=flat "$TMP/r1"
expect_match "record: --leaks is headed as leaks" "$OUT" "^-+leaked space ranking-+$"
run_status "$MPROF" --temporary --top=flat "$TMP/r1"
expect_match "record: --temporary is headed as temporaries" "$OUT" "^-+temporary space ranking-+$"
run_status "$MPROF" --diff-at start end --top=flat "$TMP/r1"
expect_match "record: --diff-at is headed as growth" "$OUT" "^-+inuse growth space ranking-+$"

# A known workload recorded into small files (64 KiB compressed: 6 or
# more), 3 kept: the state at the end is still exact (every file starts with
# a checkpoint of every stack).
truth=$(MPROF_RECORD=$TMP/r2 MPROF_RECORD_SIZE=65536 MPROF_RECORD_FILES=3 LD_PRELOAD=$HOOK "$TMP/work" 200000)
n=$(ls "$TMP/r2" | wc -l)
expect_eq "rotation: 3 files kept" "$n" 3
expect_eq "rotation: the first file was deleted" "$(ls "$TMP/r2" | grep -c '\.000001\.rec$')" 0
ib=$(echo "$truth" | awk '{ print $8, $6 }')
expect_eq "rotation: inuse at the end exact from the files that remain" "$(row work_fn "$TMP/r2")" "$ib"
for f in "$TMP"/r2/*.rec; do
	mkdir -p "$TMP/one"
	rm -f "$TMP"/one/*
	cp "$f" "$TMP/one/"
	got=$("$MPROF" --info "$TMP/one" 2>&1 | head -1)
	expect_match "rotation: $(basename "$f") opens on its own" "$got" '^recording .*: pid [0-9]+, 1 file'
done

# The producer waits instead of dropping: a ring of 256 events.
MPROF_RING=256 MPROF_RECORD=$TMP/r3 LD_PRELOAD=$HOOK "$TMP/work" 20000 > "$TMP/w3"
i3=$("$MPROF" --info "$TMP/r3")
expect_match "wait: the producer waited and the recording says so" "$i3" '^waits [1-9][0-9]* \('
expect_match "wait: no event lost" "$i3" 'events lost 0,'
expect_eq "wait: inuse exact" "$(row work_fn "$TMP/r3")" "$(awk '{ print $8, $6 }' "$TMP/w3")"

# Sampling at 64 KiB: totals within 10 % of the truth, marked as estimates.
truth=$(MPROF_SAMPLE=65536 MPROF_RECORD=$TMP/r4 LD_PRELOAD=$HOOK "$TMP/work" 200000)
ab=$(echo "$truth" | awk '{ print $4 }')
ib=$(echo "$truth" | awk '{ print $8 }')
ga=$(row work_fn --alloc "$TMP/r4" | cut -d' ' -f1)
gi=$(row work_fn "$TMP/r4" | cut -d' ' -f1)
within() { awk -v g="$1" -v t="$2" 'BEGIN { d = (g - t) / t; if (d < 0) d = -d; exit !(d <= 0.10) }'; }
if within "$ga" "$ab"; then ok "sample 64 KiB: alloc bytes $ga within 10 % of $ab"; else not_ok "sample 64 KiB: alloc bytes" "got $ga, truth $ab"; fi
if within "$gi" "$ib"; then ok "sample 64 KiB: inuse bytes $gi within 10 % of $ib"; else not_ok "sample 64 KiB: inuse bytes" "got $gi, truth $ib"; fi
run_status "$MPROF" --top=flat "$TMP/r4"
expect_match "sample: the report says the numbers are estimates" "$OUT" '^# ESTIMATES: one allocation sampled per 65536 bytes'
# A dump of a sampled run is scaled back too (per stack, by its mean size).
MPROF_SAMPLE=65536 MPROF_OUT=$TMP/s.pro LD_PRELOAD=$HOOK "$TMP/work" 200000 > /dev/null
gd=$(row work_fn --alloc "$TMP/s.pro" | cut -d' ' -f1)
if within "$gd" "$ab"; then ok "sample 64 KiB: the dump's alloc bytes $gd within 10 % of $ab"; else not_ok "sample 64 KiB: dump alloc bytes" "got $gd, truth $ab"; fi

# Sampled large blocks (test/progs/rec_big.c): at 512 KiB a 1 MiB block
# stands for 1.156 blocks; each event's weight is dithered by its
# allocation's position, so the count is unbiased (rounded per event it
# would be 13.5 % short), and a file opened alone, from the writer's
# checkpoint, ends where the whole recording does.
cc $CFL -o "$TMP/big" "$P/rec_big.c" || not_ok "build rec_big"
MPROF_SAMPLE=524288 MPROF_RECORD=$TMP/r8 MPROF_RECORD_SIZE=1536 MPROF_RECORD_FILES=5 LD_PRELOAD=$HOOK "$TMP/big" > /dev/null
ga=$(row big_temp --alloc "$TMP/r8" | cut -d' ' -f2)
if awk -v g="$ga" 'BEGIN { exit !(g >= 2880 && g <= 3120) }'; then ok "sample 512 KiB: big_temp's 3,000 x 1 MiB counted as $ga objects (within 4 %)"
else not_ok "sample 512 KiB: big_temp's 3,000 x 1 MiB objects" "got $ga (13.5 % short is rounding per event)"; fi
expect_match "sample 512 KiB: the recording rotated (a later file starts from a checkpoint)" "$(ls "$TMP/r8" | wc -l)" '^[2-9]$'
mkdir -p "$TMP/last"
cp "$(ls "$TMP"/r8/*.rec | tail -1)" "$TMP/last/"
expect_eq "sample 512 KiB: the last file alone ends as the whole recording (the writer weighs as the reader)" \
	"$(row big_temp --alloc "$TMP/last") $(row big_kept "$TMP/last")" "$(row big_temp --alloc "$TMP/r8") $(row big_kept "$TMP/r8")"
# A version 2 recording (weights rounded) still opens, with its peak.
expect_eq "a version 2 recording still opens: its peak" "$(info_field "$DATA/recordings/peak-v2.rec" peak)" 10240000
# Version 4 (a free of its chunk says the change in its age): rec_work
# 300 7, whose work_fn keeps 43 blocks of 167,451 bytes; also with its
# inner chunks uncompressed (a fuzz seed that reaches the decoder). The
# binary it recorded (/tmp/bb/work) existed only where the fixture was
# made, so the frames are read as recorded (--no-symbols reads no module
# file, not even this machine's libc): work_fn is work+0x1306.
wfn='/tmp/bb/work(+0x1306) [0x5630381d0306]'
expect_eq "version 4: work_fn's 43 kept blocks" "$(row "$wfn" --no-symbols "$DATA/recordings/work-v4.rec")" "167451 43"
expect_eq "version 4, chunks uncompressed: the same" "$(row "$wfn" --no-symbols "$DATA/recordings/work-v4-plain.rec")" "167451 43"

# --temporary: work_fn frees 9 of 10 blocks before its next allocation.
MPROF_RECORD=$TMP/r6 LD_PRELOAD=$HOOK "$TMP/work" 50000 > /dev/null
expect_eq "temporary: work_fn's 45,000 immediate frees" "$(row work_fn --temporary "$TMP/r6" | cut -d' ' -f2)" 45000

# A program nobody here wrote, without symbols for its own code: a
# recording names unresolved frames as the dump of the same run does
# (module + offset), and its totals at the end are the dump's.
if command -v sqlite3 > /dev/null 2>&1; then
	sh "$TOP/test/progs/sqlite_work.sh" 2000 > "$TMP/sq.sql"
	: > "$TMP/init.sql"
	HOME=$TMP TZ=UTC MPROF_RECORD=$TMP/r7 MPROF_OUT=$TMP/sq.pro LD_PRELOAD=$HOOK \
		sqlite3 -init "$TMP/init.sql" :memory: < "$TMP/sq.sql" > /dev/null
	"$MPROF" --top=flat --alloc "$TMP/r7" | sed 1d > "$TMP/r7.txt"
	"$MPROF" --top=flat --alloc "$TMP/sq.pro" > "$TMP/sq.txt"
	expect_match "sqlite3: the recording names libsqlite3's frames by module + offset" "$(cat "$TMP/r7.txt")" \
		'libsqlite3\.so\.0\(\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]'
	expect_eq "sqlite3: no bare address in the recording's table" "$(grep -cE ' 0x[0-9a-f]+$' "$TMP/r7.txt")" 0
	expect_file_eq "sqlite3: the recording's table at the end is the dump's" "$TMP/r7.txt" "$TMP/sq.txt"
else
	ok "sqlite3 # SKIP sqlite3 is not installed (apt-get install sqlite3)"
fi

# mprof-tui --record DIR --attach PID: a recorder from outside.
LD_PRELOAD=$HOOK "$TMP/peak" &
pid=$!
for i in $(seq 1 100); do [ -e /dev/shm/mprof-$pid ] && break; sleep 0.02; done
run_status "$MPROF" --record "$TMP/r5" --attach "$pid"
wait "$pid"
expect_eq "--record --attach: exit status 0 when the process ends" "$STATUS" 0
expect_match "--record --attach: summary" "$ERR" 'recorded [0-9]+ events of pid'
expect_eq "--record --attach: the peak" "$(row peak_fn --at peak "$TMP/r5")" "10240000 100"

# A thread that allocates, then sleeps for good and is never joined: its
# staged events reach the recording while it sleeps (a sweep publishes its
# slot), not only at exit, and at exit all of them are there.
cc $CFL -o "$TMP/parked" "$P/rec_parked.c" -lpthread || not_ok "build rec_parked"
MPROF_RECORD=$TMP/r9 LD_PRELOAD=$HOOK "$TMP/parked"
expect_eq "parked thread: its blocks at the end" "$(row parked_fn --at end "$TMP/r9")" "5000000 50"
expect_eq "parked thread: its blocks at 0.5 s, while every thread sleeps" "$(row parked_fn --at 0.5s "$TMP/r9")" "5000000 50"
# parked_outside DIR GO [quiet]: rec_parked under the hook, recorded from
# outside into DIR; it starts once GO exists, made when the recorder reads.
# (PROG: another program to run so; ENVS: its environment.)
parked_outside() {
	env $ENVS LD_PRELOAD=$HOOK "${PROG:-$TMP/parked}" "$2" $3 &
	pid=$!
	for i in $(seq 1 100); do [ -e /dev/shm/mprof-$pid ] && break; sleep 0.02; done
	"$MPROF" --record "$1" --attach "$pid" > /dev/null 2> "$1.err" &
	rpid=$!
	for i in $(seq 1 100); do grep -q 'recording pid' "$1.err" && break; sleep 0.02; done
	touch "$2"
	wait "$pid"
	wait "$rpid"
}
# The same from outside (no recorder thread in the process): the main
# thread's own slots sweep the sleeper's during its busy 300 ms, the
# exit the rest.
parked_outside "$TMP/r10" "$TMP/go"
expect_eq "parked thread, --record --attach: its blocks at the end" "$(row parked_fn --at end "$TMP/r10")" "5000000 50"
endt=$("$MPROF" --info "$TMP/r10" | sed -n 's/^events .* \.\. \([0-9.]*\) s$/\1/p')
before=$(awk -v t="$endt" 'BEGIN { printf "%.3fs", t - 0.1 }')
expect_eq "parked thread, --record --attach: its blocks 0.1 s before the end ($before)" \
	"$(row parked_fn --at "$before" "$TMP/r10")" "5000000 50"
# Every thread quiet until the exit: the exit's sweep alone publishes them.
parked_outside "$TMP/r11" "$TMP/go2" quiet
expect_eq "parked thread, quiet to the exit, --record --attach: its blocks at the end" \
	"$(row parked_fn --at end "$TMP/r11")" "5000000 50"

# Blocks freed by another thread before their allocation left the
# allocating thread's stage (handoff_fn), and frees still staged when the
# block made next at the address arrives (reuse_fn); each address made
# again at once (glibc without tcache gives it back), sizes 100 and 104 from
# one stack: the writer pairs each free with its own allocation, so
# nothing of either is alive at the end, nothing leaks, and the end equals
# the exit dump.
cc $CFL -o "$TMP/handoff" "$P/rec_handoff.c" -lpthread || not_ok "build rec_handoff"
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MPROF_RECORD=$TMP/r12 MPROF_OUT=$TMP/handoff.pro LD_PRELOAD=$HOOK \
	"$TMP/handoff"
expect_eq "handoff: all 400 blocks recorded" "$(row handoff_fn --at end --alloc "$TMP/r12")" "40800 400"
expect_eq "handoff: nothing of handoff_fn alive at the end" "$(row handoff_fn --at end "$TMP/r12")" "0 0"
expect_eq "handoff: --leaks start end: none of handoff_fn's" "$(row handoff_fn --leaks start end "$TMP/r12")" "0 0"
expect_eq "handoff: all 400 blocks of reuse_fn recorded" "$(row reuse_fn --at end --alloc "$TMP/r12")" "40800 400"
expect_eq "handoff: nothing of reuse_fn alive at the end" "$(row reuse_fn --at end "$TMP/r12")" "0 0"
expect_eq "handoff: --leaks start end: none of reuse_fn's" "$(row reuse_fn --leaks start end "$TMP/r12")" "0 0"
hd=$(ls "$TMP"/handoff.pro* | head -1)
expect_eq "handoff: the end's table equals the exit dump's" \
	"$("$MPROF" --at end --top=flat --format=tsv "$TMP/r12" 2> /dev/null | grep -v '^#')" \
	"$("$MPROF" --top=flat --format=tsv "$hd")"
PROG=$TMP/handoff ENVS=GLIBC_TUNABLES=glibc.malloc.tcache_count=0 parked_outside "$TMP/r13" "$TMP/go3"
expect_eq "handoff, --record --attach: nothing of handoff_fn alive at the end" \
	"$(row handoff_fn --at end "$TMP/r13")" "0 0"
expect_eq "handoff, --record --attach: --leaks start end: none of handoff_fn's" \
	"$(row handoff_fn --leaks start end "$TMP/r13")" "0 0"
expect_eq "handoff, --record --attach: nothing of reuse_fn alive at the end, no leak" \
	"$(row reuse_fn --at end "$TMP/r13") $(row reuse_fn --leaks start end "$TMP/r13")" "0 0 0 0"

# Three threads reusing one address: the free of the second block at it
# arrives while the first waits, the first's free later (rec_reuse3.c).
# Every block is freed once in the recording, as in the program.
cc $CFL -o "$TMP/reuse3" "$P/rec_reuse3.c" -lpthread || not_ok "build rec_reuse3"
MPROF_RECORD=$TMP/r14 LD_PRELOAD=$HOOK "$TMP/reuse3"
expect_eq "reuse by three threads: all 200 blocks recorded" "$(row make_fn --at end --alloc "$TMP/r14")" "12800 200"
expect_eq "reuse by three threads: nothing alive at the end, no leak" \
	"$(row make_fn --at end "$TMP/r14") $(row make_fn --leaks start end "$TMP/r14")" "0 0 0 0"
# Recorded from outside after a block was made: its free is not taken for
# the block made next at its address, which stays alive to the end.
PROG=$TMP/reuse3 parked_outside "$TMP/r15" "$TMP/go4"
expect_eq "a block made before the recording, freed in it: the next at its address stays a leak" \
	"$(row make_fn --leaks start end "$TMP/r15")" "64 1"
# From outside with nothing alive at the start, the crossing above, then a
# third block at the address freed by another thread: that free takes the
# second block, so the first block's free finds none waiting; the third's
# allocation, coming after the recorder stopped waiting, pays it.
PROG=$TMP/reuse3 parked_outside "$TMP/r16" "$TMP/go5" owed
expect_eq "reuse by three threads, a free owed its block, --record --attach: all 15 blocks recorded" \
	"$(row make_fn --at end --alloc "$TMP/r16")" "960 15"
expect_eq "reuse by three threads, a free owed its block, --record --attach: nothing alive at the end, no leak" \
	"$(row make_fn --at end "$TMP/r16") $(row make_fn --leaks start end "$TMP/r16")" "0 0 0 0"

# Bad input: an empty directory, a file that is not a recording, a cut file.
# The program rebuilt since the run (another build-id, same code): its
# frames show module + offset, and stderr says why, once, as for a dump.
cc $CFL -Wl,--build-id=sha1 -o "$TMP/moved" "$P/rec_peak.c" || not_ok "build rec_peak as moved"
MPROF_RECORD=$TMP/rebuilt LD_PRELOAD=$HOOK "$TMP/moved"
cc $CFL -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 -o "$TMP/moved" "$P/rec_peak.c" ||
	not_ok "rebuild moved"
run_status "$MPROF" --at peak --top=flat --format=tsv "$TMP/rebuilt"
expect_eq "rebuilt program: one line on stderr says why its names are missing" \
	"$(printf '%s\n' "$ERR" | grep -v '^# ')" "mprof-tui: $TMP/moved: build-id differs; its frames show module+offset"
expect_eq "rebuilt program: peak_fn is not named" "$(printf '%s\n' "$OUT" | awk -F '\t' '$5 == "peak_fn"' | wc -l)" 0
expect_match "rebuilt program: its 10,240,000 bytes are under module + offset" \
	"$(printf '%s\n' "$OUT" | awk -F '\t' '$1 == 10240000 && $2 == 100 { print $5 }')" \
	"^$TMP/moved\(\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]$"

mkdir "$TMP/empty"
run_status "$MPROF" --at peak "$TMP/empty"
expect_eq "bad: empty directory: status 2" "$STATUS" 2
expect_match "bad: empty directory: says why" "$ERR" 'no recording files'
mkdir "$TMP/bad"
yes 'not a recording' | head -c 4000 > "$TMP/bad/mprof-1.000001.rec"
run_status "$MPROF" --at peak "$TMP/bad"
expect_eq "bad: garbage file: status 2" "$STATUS" 2
expect_match "bad: garbage file: offset and reason" "$ERR" 'mprof-1.000001.rec: offset 0: not an mprof recording'
mkdir "$TMP/cut"
f=$(ls "$TMP"/r1/*.rec)
head -c $(( $(stat -c %s "$f") - 100 )) "$f" > "$TMP/cut/$(basename "$f")"
run_status "$MPROF" --info "$TMP/cut"
expect_match "bad: a file cut short still opens and says so" "$OUT" 'files cut short 1'
# A recording of the previous format (32-byte events, before compression).
run_status "$MPROF" --info "$DATA/recordings/peak-v1.rec"
expect_eq "bad: a version 1 recording: status 2, nothing on stdout" "$STATUS $OUT" "2 "
expect_eq "bad: a version 1 recording: one line saying so" "$ERR" \
	"mprof-tui: $DATA/recordings/peak-v1.rec: offset 8: recording version 1, written by an earlier mprof: this one reads versions 2 to 5"
exit 0
