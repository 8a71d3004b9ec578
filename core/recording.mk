# core/recording.mk: the recording bench tool (open a recording, jump to moments).
TOOLS += bench_rec
