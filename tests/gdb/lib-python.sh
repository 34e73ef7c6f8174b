# tests/gdb/lib-python.sh - sourced by the t-python-* tests after lib-gdb.sh: the real
# interpreter (Debian 12's python3.11) and its test programs in tests/gdb/py/.
PY=${FK_PYTHON311:-/usr/bin/python3.11}
[ -x "$PY" ] || skip "no $PY (Debian 12's python3.11 is what --python reads)"
"$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' ||
	skip "$PY is not CPython 3.11"
PYDIR=$FK_TOP/tests/gdb/py
# lines of FOLDED matching REGEX, counted: sum of the counts
count() { awk -v re="$2" '$0 ~ re {m += $NF} END {print m + 0}' "$1"; }
