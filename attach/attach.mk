# attach/: a running process seen from mprof-tui: the segment reader and
# snapshots, recording from outside (--record), with the hook's files the
# consumer shares (attach/hook/hook.mk says which).
CONSUMER_SRC += attach/segment_read.c attach/snapshot.c attach/hook/elfsym.c attach/hook/mapmem.c
CONSUMER_SRC += attach/hook/record.c attach/hook/record_file.c attach/hook/record_pairs.c attach/hook/record_held.c attach/record_attach.c attach/sample_ctl.c
CONSUMER_SRC += attach/faults.c attach/faults_run.c
