#!/bin/sh
# Parse+print throughput of lopt on a generated module of N bindings, against
# `cat` of the same file in the same run; peak memory against the file size.
# Usage: sh bench/parse_print.sh [N] [runs]   (defaults 100000 and 7)
# Prints medians. Needs GNU time (/usr/bin/time) for peak memory.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-100000}
runs=${2:-7}
LOPT=${LOPT:-$top/lopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v n="$n" -f "$top/bench/gen_bindings.awk" > "$tmp/big.tir"
bytes=$(wc -c < "$tmp/big.tir")

now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: > "$tmp/lopt.t"; : > "$tmp/cat.t"
for r in $(seq "$runs"); do
    t0=$(now); "$LOPT" "$tmp/big.tir" > "$tmp/out.tir"; t1=$(now)
    cat "$tmp/big.tir" > "$tmp/cat.out"; t2=$(now)
    echo "$t1 - $t0" | bc -l >> "$tmp/lopt.t"
    echo "$t2 - $t1" | bc -l >> "$tmp/cat.t"
done
cmp -s "$tmp/big.tir" "$tmp/out.tir" && same=yes || same=no
lt=$(median < "$tmp/lopt.t")
ct=$(median < "$tmp/cat.t")
mem=unknown
if [ -x /usr/bin/time ]; then
    mem=$(/usr/bin/time -f %M "$LOPT" "$tmp/big.tir" 2>&1 >/dev/null | tail -n 1)
fi
awk -v b="$bytes" -v lt="$lt" -v ct="$ct" -v mem="$mem" -v n="$n" -v same="$same" 'BEGIN {
    printf "bindings            %d\n", n
    printf "file size           %.1f MB\n", b / 1e6
    printf "lopt parse+print    %.3f s median, %.1f MB/s\n", lt, b / 1e6 / lt
    printf "cat                 %.4f s median, %.1f MB/s\n", ct, b / 1e6 / ct
    printf "lopt / cat time     %.1fx\n", lt / ct
    if (mem != "unknown")
        printf "peak memory         %.1f MB, %.1fx the file size\n", mem / 1024, mem * 1024 / b
    printf "output == input     %s\n", same
}'
