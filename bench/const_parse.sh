#!/bin/sh
# Reading speed and peak memory of a module holding one large R.const list
# (issue 18, item 4):
#   sh bench/const_parse.sh [N [M]]  N float32 elements in the text (default
#                                    1000000), M in an .npz (default 25000000)
#   LOPT=path/to/other/lopt sh bench/const_parse.sh   to measure another build
#   LOPT_OLD=path/to/old/lopt                        and that one too, run
#                                                    alternately (side by side)
#   RUNS=5                                           runs per figure (medians)
# Prints the file's size; the median of the runs of the time --time-passes
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
RUNS=${RUNS:-5}
echo "file: $bytes bytes, $N float32 elements ($((N * 4)) bytes of data)"
# one build's figures, its runs interleaved with the other's
: > "$dir/times.new"; : > "$dir/times.old"
for i in $(seq "$RUNS"); do
    for which in old new; do
        bin=$LOPT
        if [ "$which" = old ]; then
            [ -n "${LOPT_OLD:-}" ] || continue
            bin=$LOPT_OLD
        fi
        "$bin" --time-passes "$f" 2>&1 >/dev/null |
            awk '/reading and verifying/ { r = $1 } /printing the result/ { p = $1 } END { print r, p }' >> "$dir/times.$which"
    done
done
report() {
    read_s=$(awk '{ print $1 }' "$dir/times.$1" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    print_s=$(awk '{ print $2 }' "$dir/times.$1" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    awk -v r="$read_s" -v p="$print_s" -v b="$bytes" -v w="$2" 'BEGIN {
        printf "%sread+verify: median %.3f s, %.1f MB/s\n%sprint:       median %.3f s, %.1f MB/s\n", w, r, b / r / 1e6, w, p, b / p / 1e6 }'
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v "$3" -o /dev/null "$f" 2>&1 |
            awk -v d=$((N * 4)) -v w="$2" '/Maximum resident/ { printf "%speak RSS: %d kB, %.1fx the constant data\n", w, $6, $6 * 1024 / d }'
    fi
}
# Printing's CPU time, which other load disturbs less than the wall clock:
# the median task-clock (perf stat) of reading and printing, less that of
# reading alone (--emit=dot prints no constant data).
cpu_print() {
    command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock -o "$dir/p" true >/dev/null 2>&1 || return 0
    : > "$dir/all"; : > "$dir/readonly"
    for i in $(seq "$RUNS"); do
        perf stat -x, -e task-clock -o "$dir/p" "$1" -o /dev/null "$f" && grep task-clock "$dir/p" | cut -d, -f1 >> "$dir/all"
        perf stat -x, -e task-clock -o "$dir/p" "$1" --emit=dot -o /dev/null "$f" && grep task-clock "$dir/p" | cut -d, -f1 >> "$dir/readonly"
    done
    a=$(sort -g "$dir/all" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    r=$(sort -g "$dir/readonly" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    awk -v a="$a" -v r="$r" -v b="$bytes" -v w="$2" 'BEGIN {
        printf "%sprint CPU:   %.1f ms (median %.1f ms read+print, less %.1f ms reading), %.1f MB/s\n", w, a - r, a, r, b / (a - r) / 1e3 }'
}
if [ -n "${LOPT_OLD:-}" ]; then
    cpu_print "$LOPT_OLD" "old  "
    cpu_print "$LOPT" "new  "
    report old "old  " "$LOPT_OLD"
    report new "new  " "$LOPT"
    "$LOPT_OLD" "$f" > "$dir/old.out"
    "$LOPT" "$f" > "$dir/new.out"
    cmp -s "$dir/old.out" "$dir/new.out" && echo "old and new print the same bytes" || echo "old and new print DIFFERENT bytes"
else
    cpu_print "$LOPT" ""
    report new "" "$LOPT"
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
for i in $(seq "$RUNS"); do
    "$LOPT" --constants="$dir/w.npz" --emit=dot --time-passes -o /dev/null "$dir/w.tir" 2>&1 |
        awk '/reading and verifying/ { print $1 }'
done > "$dir/wtimes"
wread=$(sort -g "$dir/wtimes" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
awk -v r="$wread" -v b=$((M * 4)) 'BEGIN { printf "--constants .npz of %d bytes: read+verify median %.3f s, %.0f MB/s\n", b, r, b / r / 1e6 }'
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$LOPT" --constants="$dir/w.npz" --emit=dot -o /dev/null "$dir/w.tir" 2>&1 |
        awk -v d=$((M * 4)) '/Maximum resident/ { printf "peak RSS: %d kB, %.1fx the constant data\n", $6, $6 * 1024 / d }'
fi
