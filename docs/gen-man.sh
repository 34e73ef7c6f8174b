#!/usr/bin/env bash
# docs/gen-man.sh FLAMEKIT > docs/flamekit.1 - builds the man page from the
# program's own --help texts, so the two cannot drift (tests/core/t-docs.sh
# checks that the committed page is current).
set -eu
fk=${1:-build/flamekit}
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/"; }
ver=$("$fk" --version | awk '{print $2}')
cat <<EOT
.TH FLAMEKIT 1 "" "flamekit $ver" "User Commands"
.SH NAME
flamekit \\- turn sampled stack traces into folded stacks and flame graphs
.SH SYNOPSIS
.B flamekit
.I command
[\\fIoptions\\fR] [\\fIFILE\\fR...]
.SH DESCRIPTION
flamekit reads stack samples (perf script text, perf report \\-g folded, SystemTap,
GDB backtraces, DTrace, bpftrace, eu\\-stack, go tool pprof \\-raw, jstack, macOS sample,
folded stacks, flamekit samples), folds them, and
renders interactive SVG flame graphs and heat maps.
.PP
.nf
EOT
"$fk" --help | esc
echo ".fi"
for cmd in $("$fk" --help | awk '/^commands:/{f=1;next} f && /^  [a-z]/{print $1}'); do
	echo ".SH \"FLAMEKIT $(echo "$cmd" | tr a-z A-Z)\""
	echo ".nf"
	"$fk" "$cmd" --help | esc
	echo ".fi"
done
cat <<EOT
.SH FILES
The formats read and written are described in docs/formats.md of the source tree.
.SH SEE ALSO
.BR perf (1),
.BR perf-flame (1),
.BR gdb (1),
.BR stap (1)
EOT
