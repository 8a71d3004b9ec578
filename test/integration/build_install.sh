#!/bin/sh
# make install puts the binaries and man pages under DESTDIR/PREFIX.
. "$(dirname "$0")/../lib.sh"
make -s install DESTDIR="$TMP/root" PREFIX=/opt/mprof > "$TMP/log" 2>&1
expect_eq "make install exits 0" $? 0
for f in bin/mprof-tui share/man/man1/mprof-tui.1 share/man/man5/mprof-pro.5; do
	if [ -f "$TMP/root/opt/mprof/$f" ]; then ok "installed $f"; else not_ok "installed $f" "$(cat "$TMP/log")"; fi
done
if [ -f libmprof.so ]; then
	if [ -f "$TMP/root/opt/mprof/lib/libmprof.so" ]; then ok "installed lib/libmprof.so"; else not_ok "installed lib/libmprof.so"; fi
fi
run_status "$TMP/root/opt/mprof/bin/mprof-tui" --top=flat -n 1 "$DATA/test_mem.pro"
expect_match "the installed binary runs" "$OUT" "^1th "
# deps: with everything installed it does nothing and says nothing.
expect_eq "make deps is silent when all is present" "$(make -s --no-print-directory deps 2>&1)" ""
# Plain `make` is `make all`, even with the rules the fragments and the
# generated .d files add (a tool's rule once became the default goal, and
# `make` after an edit rebuilt only that tool).
san=""
[ "${B:-build}" = build/san ] && san=SANITIZE=1
run_status make -n --no-print-directory $san -W tui/main.c -W attach/hook/hook.c
expect_match "plain make relinks mprof-tui after an edit" "$OUT" "-o ([a-z/]*/)?mprof-tui "
expect_match "plain make relinks libmprof.so after an edit" "$OUT" "-o libmprof.so "

# The man page documents every option --help lists, and its SYNOPSIS shows
# every way to run the program that --help's usage lines show.
man_text=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' man/mprof-tui.1)
missing=""
for o in $("$MPROF" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	printf '%s\n' "$man_text" | grep -q -- "$o\\b" || missing="$missing $o"
done
expect_eq "mprof-tui(1) documents every option of --help" "$missing" ""
syn=$(printf '%s\n' "$man_text" | sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p')
missing=""
for o in $("$MPROF" --help | sed -n '1,/^$/p' | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	printf '%s\n' "$syn" | grep -q -- "$o\\b" || missing="$missing $o"
done
expect_eq "mprof-tui(1)'s SYNOPSIS has every option of --help's usage lines" "$missing" ""
