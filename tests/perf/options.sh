# tests/perf/options.sh - the option combinations checked against stackcollapse-perf.pl:
# name of the expected file -> options (the same spelling for flamekit and the perl).
declare -A FK_PERF_OPTS=(
	[default]=""
	[pid]="--pid"
	[tid]="--tid"
	[kernel]="--kernel"
	[jit]="--jit"
	[all]="--all"
	[addrs]="--addrs"
	[all-addrs-tid]="--all --addrs --tid"
	[ev-task-clock]="--event-filter task-clock"
	[samples]="--samples"
)
