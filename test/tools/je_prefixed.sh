#!/bin/sh
# je_prefixed.sh OUT.a - Debian's static jemalloc (libjemalloc_pic.a, from
# libjemalloc-dev) with its public symbols renamed je_* (malloc -> je_malloc,
# mallctl -> je_mallctl, malloc_conf -> je_malloc_conf ...), as skynet's
# build gets it from --with-jemalloc-prefix=je_.  Link with -lpthread -lm -ldl.
set -e
out=${1:?usage: je_prefixed.sh OUT.a}
lib=$(ls /usr/lib/*/libjemalloc_pic.a 2> /dev/null | head -1)
[ -n "$lib" ] || { echo "je_prefixed.sh: no libjemalloc_pic.a (apt-get install libjemalloc-dev)" >&2; exit 1; }
syms=$(mktemp)
trap 'rm -f "$syms"' EXIT
# Its own global names: those not already in its private namespace (je_),
# not C++ (its operators stay as they are) and not the linker's DW.ref.
nm -g --defined-only "$lib" 2> /dev/null | awk 'NF == 3 && $3 !~ /^(je_|_Z|DW\.)/ { print $3, "je_" $3 }' |
	sort -u > "$syms"
objcopy --redefine-syms="$syms" "$lib" "$out"
