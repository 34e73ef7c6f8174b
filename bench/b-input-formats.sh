#!/usr/bin/env bash
# b-input-formats.sh - `flamekit collapse` throughput on the multi-line formats (stap,
# dtrace, gdb, bpftrace, perf-report), as MB/s and as a ratio to `wc -l` of the same file
# in the same run; and peak RSS for 1x vs 4x input of the same stacks (streaming: RSS
# must not grow with input size). Inputs are generated once, seeded, under
# FK_BENCH_CACHE (/tmp/fk-bench-formats); FK_BENCH_MB sets their size (64). Best of
# FK_BENCH_RUNS (3) runs; CPU = user + sys.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
FLAMEKIT=$BUILD/flamekit
MB=${FK_BENCH_MB:-64}
RUNS=${FK_BENCH_RUNS:-3}
CACHE=${FK_BENCH_CACHE:-/tmp/fk-bench-formats}
mkdir -p "$CACHE"

# gen FORMAT REPEAT: 20,000 distinct stacks (5-40 frames from 2,000 names), written
# REPEAT times over until the file holds MB megabytes per repeat.
gen() {
	perl -e '
	my ($fmt, $mb, $rep) = @ARGV;
	srand(7);
	my @names = map { sprintf("ns%d::Type<int>::method_%d", $_ % 37, $_) } 1 .. 2000;
	my @st;
	for (1 .. 20000) { my $d = 5 + int(rand(36)); push @st, [ map { $names[int(rand(@names))] } 1 .. $d ] }
	my $out = "";
	my $bytes = 0;
	my $limit = $mb * 1e6;
	my $i = 0;
	print "Attaching 1 probe...\n\n\n" if $fmt eq "bpftrace";
	print "CPU     ID                    FUNCTION:NAME\n  0  64091  :tick-60s\n\n" if $fmt eq "dtrace";
	print "# Overhead  Command  Symbol\n# ........  .......  ......\n#\n" if $fmt eq "perf-report";
	for my $r (1 .. $rep) {
		my $b = 0;
		for (my $k = 0; $b < $limit; $k++) {
			my $s = $st[$k % @st];
			my $n = 1 + $k % 97;
			my $t = "";
			if ($fmt eq "stap") {
				$t .= sprintf(" 0x%016x : %s+0x%x/0x200 [/usr/lib/libapp.so]\n", 0x400000 + $_, $s->[$_], $_ * 8) for reverse 0 .. $#$s;
				$t .= "\t$n\n";
			} elsif ($fmt eq "dtrace") {
				$t .= "              libapp.so`$s->[$_]+0x" . sprintf("%x", $_ * 8) . "\n" for reverse 0 .. $#$s;
				$t .= "              $n\n\n";
			} elsif ($fmt eq "gdb") {
				$t .= "Thread 1 (Thread 0x7f00 (LWP 42) \"app\"):\n";
				my $f = 0;
				$t .= sprintf("#%-2d 0x%016x in %s (this=0x5555, x=%d) at app.cc:%d\n", $f++, 0x400000 + $_, $s->[$_], $_, $_) for reverse 0 .. $#$s;
				$t .= "\n";
			} elsif ($fmt eq "bpftrace") {
				$t .= "\@[\n";
				$t .= "    $s->[$_]+" . ($_ * 8) . "\n" for reverse 0 .. $#$s;
				$t .= "]: $n\n";
			} else {
				$t .= "    1.00%  app      [.] $s->[-1]\n" if $k % 5 == 0;
				$t .= "$n " . join(";", @$s) . "\n";
			}
			print $t;
			$b += length $t;
		}
	}' "$1" "$MB" "$2"
}

best_of() { # CMD...: "wall cpu maxrss_kb" of the fastest of $RUNS runs
	local best="" r
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -o "$CACHE/time.out" -f '%e %U %S %M' "$@" > /dev/null 2>&1 || true
		r=$(tail -1 "$CACHE/time.out" | awk '{printf "%.3f %.3f %d", $1, $2 + $3, $4}')
		if [ -z "$best" ] || awk -v a="$r" -v b="$best" 'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1])}'; then
			best=$r
		fi
	done
	echo "$best"
}

echo "b-input-formats: ${MB} MB inputs, best of $RUNS (ratios to wc -l of the same file, same run)"
for fmt in stap dtrace gdb bpftrace perf-report; do
	in1=$CACHE/$fmt-$MB.txt in4=$CACHE/$fmt-$MB-x4.txt
	[ -s "$in1" ] || { gen $fmt 1 > "$in1.tmp" && mv "$in1.tmp" "$in1"; }
	[ -s "$in4" ] || { gen $fmt 4 > "$in4.tmp" && mv "$in4.tmp" "$in4"; }
	cat "$in1" "$in4" > /dev/null
	bytes=$(stat -c %s "$in1")
	w=$(best_of wc -l "$in1")
	c=$(best_of "$FLAMEKIT" collapse --format "$fmt" -o /dev/null "$in1")
	c4=$(best_of "$FLAMEKIT" collapse --format "$fmt" -o /dev/null "$in4")
	awk -v f="$fmt" -v b="$bytes" -v w="$w" -v c="$c" -v c4="$c4" 'BEGIN {
		split(w, x, " "); split(c, y, " "); split(c4, z, " ");
		printf "  %-12s collapse cpu %6.3f s (%6.1f MB/s)  cpu/wc %6.1fx  wall/wc %6.1fx  rss %4d MB, 4x input %4d MB (%+.1f%%)\n",
			f, y[2], b / (y[2] > 0 ? y[2] : 1e-9) / 1e6, y[2] / (x[2] > 0 ? x[2] : 0.001),
			y[1] / (x[1] > 0 ? x[1] : 0.001), y[3] / 1024, z[3] / 1024, (z[3] - y[3]) * 100 / y[3] }'
done
