#!/bin/sh
# Parse+print throughput of lopt on a generated module of N bindings, against
# `cat` of the same file in the same run; peak memory against the file size.
# Then lopt against mlir-opt on the same chain of N additions in one
# function: lopt reads and prints N annotated R.add bindings, mlir-opt-15
# N arith.addf on tensors (both texts generated here, each tool verifying
# and printing its module back), run alternately.
# Usage: sh bench/parse_print.sh [N] [runs]   (defaults 100000 and 7)
# Prints medians (and, with perf, the chain's CPU times: minimum and median).
# Needs GNU time (/usr/bin/time) for peak memory, and
# mlir-opt-15 (Debian's mlir-15-tools) for the comparison: run as root
# outside CI, the script installs it when it is missing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-100000}
runs=${2:-7}
LOPT=${LOPT:-$top/lopt}
MLIR_OPT=${MLIR_OPT:-mlir-opt-15}
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

# The chain of additions, in both tools' texts.
if ! command -v "$MLIR_OPT" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && [ -z "${CI:-}" ] &&
   command -v apt-get >/dev/null 2>&1; then
    echo "installing mlir-15-tools for $MLIR_OPT ..."
    apt-get install -y -qq mlir-15-tools >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq mlir-15-tools >/dev/null 2>&1; } || true
fi
if ! command -v "$MLIR_OPT" >/dev/null 2>&1; then
    echo "mlir-opt          skipped: $MLIR_OPT not found (apt-get install mlir-15-tools)"
    exit 0
fi
awk -v n="$n" 'BEGIN {
    t = "R.Tensor((1, 64, 56, 56), dtype=\"float32\")"
    print "@R.function"
    print "def main(x: " t ") -> " t ":"
    print "    lv0: " t " = R.add(x, x)"
    for (i = 1; i < n; i++)
        print "    lv" i ": " t " = R.add(lv" (i - 1) ", x)"
    print "    return lv" (n - 1)
}' > "$tmp/chain.tir"
awk -v n="$n" 'BEGIN {
    t = "tensor<1x64x56x56xf32>"
    print "func.func @main(%x: " t ") -> " t " {"
    print "  %v0 = arith.addf %x, %x : " t
    for (i = 1; i < n; i++)
        print "  %v" i " = arith.addf %v" (i - 1) ", %x : " t
    print "  return %v" (n - 1) " : " t
    print "}"
}' > "$tmp/chain.mlir"
: > "$tmp/lc.t"; : > "$tmp/mc.t"
for r in $(seq "$runs"); do
    t0=$(now); "$LOPT" "$tmp/chain.tir" > "$tmp/chain.out.tir"; t1=$(now)
    "$MLIR_OPT" "$tmp/chain.mlir" > "$tmp/chain.out.mlir"; t2=$(now)
    echo "$t1 - $t0" | bc -l >> "$tmp/lc.t"
    echo "$t2 - $t1" | bc -l >> "$tmp/mc.t"
done
cmp -s "$tmp/chain.tir" "$tmp/chain.out.tir" && same=yes || same=no
adds=$(grep -c 'arith.addf' "$tmp/chain.out.mlir" || true)
lc=$(median < "$tmp/lc.t")
mc=$(median < "$tmp/mc.t")
awk -v n="$n" -v lc="$lc" -v mc="$mc" -v same="$same" -v adds="$adds" -v lb="$(wc -c < "$tmp/chain.tir")" \
    -v mb="$(wc -c < "$tmp/chain.mlir")" 'BEGIN {
    printf "chain of %d additions in one function\n", n
    printf "  lopt (R.add)      %.3f s median (%.1f MB, output == input: %s)\n", lc, lb / 1e6, same
    printf "  mlir-opt (arith.addf) %.3f s median (%.1f MB, %d additions printed back)\n", mc, mb / 1e6, adds
    printf "  mlir-opt / lopt   %.1fx\n", mc / lc
}'
# The same runs by CPU time (user + system, from perf stat's task-clock), which
# other load on the machine disturbs less than the wall clock: minimum and median.
if command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock -o "$tmp/p" true >/dev/null 2>&1; then
    cpu() { perf stat -x, -e task-clock -o "$tmp/p" "$@" > /dev/null && grep task-clock "$tmp/p" | cut -d, -f1; }
    : > "$tmp/lcpu.t"; : > "$tmp/mcpu.t"
    for r in $(seq "$runs"); do
        cpu "$LOPT" "$tmp/chain.tir" >> "$tmp/lcpu.t"
        cpu "$MLIR_OPT" "$tmp/chain.mlir" >> "$tmp/mcpu.t"
    done
    lmin=$(sort -g "$tmp/lcpu.t" | head -n 1); lmed=$(median < "$tmp/lcpu.t")
    mmin=$(sort -g "$tmp/mcpu.t" | head -n 1); mmed=$(median < "$tmp/mcpu.t")
    awk -v lmin="$lmin" -v lmed="$lmed" -v mmin="$mmin" -v mmed="$mmed" 'BEGIN {
        printf "  CPU time (ms)     lopt min %.1f median %.1f, mlir-opt min %.1f median %.1f\n", lmin, lmed, mmin, mmed
        printf "  mlir-opt / lopt   %.1fx by minimum CPU time, %.1fx by median\n", mmin / lmin, mmed / lmed
    }'
fi
