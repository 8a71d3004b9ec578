#!/bin/sh
# sqlite_work.sh N [localtime] - prints a deterministic sqlite3 script: a
# table, N inserts in one transaction, an index, two queries (and a
# local-time conversion with "localtime"). Used by
# test/integration/sqlite_heaptrack.sh and test/bench/record.sh.
awk -v q="'" -v n="$1" -v lt="${2:-}" 'BEGIN {
	print "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, payload BLOB);"
	print "BEGIN;"
	for (i = 1; i <= n; i++)
		printf "INSERT INTO t(name, grp, payload) VALUES (%sname-%d-%s%s, %d, zeroblob(%d));\n",
			q, i, substr("abcdefghijklmnopqrstuvwxyz", 1, i % 27), q, i % 97, (i * 13) % 200
	print "COMMIT;"
	print "CREATE INDEX t_grp ON t(grp, name);"
	print "SELECT grp, count(*), sum(length(payload)), max(name) FROM t GROUP BY grp ORDER BY 2 DESC, 1 LIMIT 5;"
	print "SELECT count(*), sum(id) FROM t WHERE name LIKE " q "name-1%" q " AND grp BETWEEN 10 AND 40;"
	if (lt != "")
		print "SELECT datetime(1700000000, " q "unixepoch" q ", " q "localtime" q ");"
}'
