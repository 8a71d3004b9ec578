# symbols/: libdw, and libstdc++ for __cxa_demangle (what eu-addr2line -C uses).
SYM_LIBS += -lstdc++
TOOLS += sym_dump bench_sym
