#!/usr/bin/env bash
# tests/perf/record.sh - regenerate the perf script recordings in tests/perf/data and their
# expected folded outputs. Not run by `make test`: it needs perf, a compiler and an oracle,
# FlameGraph's stackcollapse-perf.pl, which is not part of this repository:
#   bash tests/perf/record.sh /tmp/stackcollapse-perf.pl
# Then review `git diff tests/perf/data` and commit.
set -eu
ORACLE=${1:?usage: record.sh PATH/TO/stackcollapse-perf.pl}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/data
W=$(mktemp -d /tmp/fk-perf-rec.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

gcc -O1 -g -fno-omit-frame-pointer -o fk-perf-fp "$HERE/prog/fk-perf-fp.c"
g++ -O1 -g -fno-omit-frame-pointer -o fk-perf-cxx "$HERE/prog/fk-perf-cxx.cc"
gcc -O2 -g -o fk-perf-inline "$HERE/prog/fk-perf-inline.c"

rec() { perf record -q "$@" 2>/dev/null; }
# frame pointers, default perf script fields (TID only, period, event)
rec -F 499 -e cpu-clock -g -o fp.data ./fk-perf-fp 0.6
perf script -i fp.data > "$DATA/fp.perf-script" 2>/dev/null
# PID/TID and CPU fields, as the perl's usage text recommends for --pid/--tid
perf script -i fp.data -F comm,pid,tid,time,period,event,ip,sym,dso > "$DATA/fp-tid.perf-script" 2>/dev/null
# C++: lambda, operator(), template, anonymous namespace
rec -F 499 -e cpu-clock -g -o cxx.data ./fk-perf-cxx 0.6
perf script -i cxx.data > "$DATA/cxx.perf-script" 2>/dev/null
# two events in one recording: the first one is kept by default
rec -F 299 -e cpu-clock,task-clock -g -o ev.data ./fk-perf-fp 0.4
perf script -i ev.data > "$DATA/events.perf-script" 2>/dev/null
# DWARF unwinding of an -O2 program with inlined functions
rec -F 199 -e cpu-clock --call-graph dwarf,8192 -o dw.data ./fk-perf-inline 0.4
perf script -i dw.data > "$DATA/dwarf.perf-script" 2>/dev/null
# no callchain at all: one line per sample, no blank lines
rec -F 499 -e cpu-clock -o nc.data ./fk-perf-fp 0.3
perf script -i nc.data > "$DATA/nocallchain.perf-script" 2>/dev/null
# whole system for a moment: idle task, kernel threads, comms with spaces, other programs
rec -F 199 -e cpu-clock -a -g -o sys.data sleep 0.3
perf script -i sys.data > "$DATA/system.perf-script" 2>/dev/null

# the recordings name the binaries under $W: give them a stable path
sed -i "s|$W/|/tmp/fk-perf-rec/|g" "$DATA"/*.perf-script
for f in "$DATA"/*.perf-script; do
	if [ "$(stat -c %s "$f")" -gt 300000 ]; then zstd -q -19 -f --rm "$f"; fi
done
bash "$HERE/expect.sh" "$ORACLE"
