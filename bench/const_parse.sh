#!/bin/sh
# Reading speed and peak memory of a module holding one large R.const list
# (issue 18, item 4):
#   sh bench/const_parse.sh [N [M]]  N float32 elements in the text (default
#                                    1000000), M in an .npz (default 25000000)
#   LOPT=path/to/other/lopt sh bench/const_parse.sh   to compare two builds
# Prints the file's size; the median of 5 runs of the time --time-passes
# reports for reading and verifying it (with MB/s) and for printing it back;
# and the peak resident set of one run (GNU time -v, when installed), against
# the constant's own bytes; then the same for M elements read with
# --constants from an .npz archive. Needs python3 (no NumPy) to write the files.
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

# The same data kept out of the text, as TVM prints weights
# (metadata["relax.expr.Constant"][0]) and read with --constants from an
# .npz archive (written here without NumPy, as np.savez lays it out):
# M float32 elements, default 25000000 (100 MB). --emit=dot, which prints no
# constant data, keeps printing out of the figure.
M=${2:-25000000}
python3 - "$M" "$dir/w.npz" <<'PY'
import array, random, struct, sys, zipfile
m, path = int(sys.argv[1]), sys.argv[2]
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % m
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
data = array.array("f", [((i * 2654435761) % 1000) / 997.0 - 0.5 for i in range(min(m, 1 << 20))])
with zipfile.ZipFile(path, "w") as z, z.open("arr_0.npy", "w", force_zip64=True) as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    for done in range(0, m, len(data)):
        f.write(data[: min(len(data), m - done)].tobytes())
PY
printf '@R.function\ndef main(x: R.Tensor((%d,), "float32")):\n    return R.add(x, metadata["relax.expr.Constant"][0])\n' "$M" > "$dir/w.tir"
for i in 1 2 3 4 5; do
    "$LOPT" --constants="$dir/w.npz" --emit=dot --time-passes -o /dev/null "$dir/w.tir" 2>&1 |
        awk '/reading and verifying/ { print $1 }'
done > "$dir/wtimes"
wread=$(sort -n "$dir/wtimes" | sed -n 3p)
awk -v r="$wread" -v b=$((M * 4)) 'BEGIN { printf "--constants .npz of %d bytes: read+verify median %.3f s, %.0f MB/s\n", b, r, b / r / 1e6 }'
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$LOPT" --constants="$dir/w.npz" --emit=dot -o /dev/null "$dir/w.tir" 2>&1 |
        awk -v d=$((M * 4)) '/Maximum resident/ { printf "peak RSS: %d kB, %.1fx the constant data\n", $6, $6 * 1024 / d }'
fi
