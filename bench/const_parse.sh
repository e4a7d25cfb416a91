#!/bin/sh
# Reading speed and peak memory of a module holding one large R.const list
# (issue 18, item 4):
#   sh bench/const_parse.sh [N]      N float32 elements, default 1000000
#   LOPT=path/to/other/lopt sh bench/const_parse.sh   to compare two builds
# Prints the file's size; the median of 5 runs of the time --time-passes
# reports for reading and verifying it (with MB/s) and for printing it back;
# and the peak resident set of one run (GNU time -v, when installed), against
# the constant's own bytes. Needs python3 (no NumPy) to write the module.
set -e
N=${1:-1000000}
LOPT=${LOPT:-./lopt}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
f=$dir/const.tir
python3 - "$N" > "$f" <<'PY'
import sys
n = int(sys.argv[1])
vals = ", ".join("%.6g" % (((i * 2654435761) % 1000) / 997.0 - 0.5) for i in range(n))
print("@R.function")
print("def main(x: R.Tensor((%d,), \"float32\")) -> R.Tensor((%d,), \"float32\"):" % (n, n))
print("    c: R.Tensor((%d,), \"float32\") = R.const([%s], \"float32\")" % (n, vals))
print("    y: R.Tensor((%d,), \"float32\") = R.add(x, c)" % n)
print("    return y")
PY
bytes=$(wc -c < "$f")
for i in 1 2 3 4 5; do
    "$LOPT" --time-passes "$f" 2>&1 >/dev/null |
        awk '/reading and verifying/ { r = $1 } /printing the result/ { p = $1 } END { print r, p }'
done > "$dir/times"
read_s=$(awk '{ print $1 }' "$dir/times" | sort -n | sed -n 3p)
print_s=$(awk '{ print $2 }' "$dir/times" | sort -n | sed -n 3p)
echo "file: $bytes bytes, $N float32 elements ($((N * 4)) bytes of data)"
awk -v r="$read_s" -v p="$print_s" -v b="$bytes" 'BEGIN {
    printf "read+verify: median %.3f s, %.1f MB/s\nprint:       median %.3f s, %.1f MB/s\n", r, b / r / 1e6, p, b / p / 1e6 }'
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$LOPT" -o /dev/null "$f" 2>&1 |
        awk -v d=$((N * 4)) '/Maximum resident/ { printf "peak RSS: %d kB, %.1fx the constant data\n", $6, $6 * 1024 / d }'
fi
