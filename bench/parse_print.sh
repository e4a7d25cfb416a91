#!/bin/sh
# Parse+print throughput of lopt on generated modules of N bindings
# (bench/gen_bindings.awk), against `cat` of the same file in the same run,
# and peak memory against the file size; then lopt against mlir-opt-15 on
# the same chain of N additions in one function: lopt reads and prints N
# annotated R.add bindings, mlir-opt-15 N arith.addf on tensors (both texts
# generated here, each tool verifying and printing its module back).
#
#   sh bench/parse_print.sh [N ...]           default: 100000 1000000
#   RUNS=5                                    runs per figure (default 5; medians)
#   LOPT=path/to/lopt                         the binary measured (default ./lopt)
#   LOPT_OLD=path/to/old/lopt                 another build, run alternately with
#                                             LOPT in the same loop (old vs new
#                                             side by side), its output compared
#
# Every run writes its output to a file in the same directory as cat's copy.
# Times are wall-clock medians; peak RSS (GNU time's maximum resident set,
# which counts the pages of the mapped input too) is the median of the runs.
# With perf, the chain's CPU times (task-clock) are printed too, which other
# load disturbs less. Needs GNU time (/usr/bin/time) for memory and
# mlir-opt-15 (Debian's mlir-15-tools) for the comparison: run as root
# outside CI, the script installs it when it is missing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- 100000 1000000
runs=${RUNS:-5}
LOPT=${LOPT:-$top/lopt}
LOPT_OLD=${LOPT_OLD:-}
MLIR_OPT=${MLIR_OPT:-mlir-opt-15}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
have_perf=no
if command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock -o "$tmp/p" true >/dev/null 2>&1; then
    have_perf=yes
fi
# wall seconds, peak RSS (kB) and CPU ms (task-clock, 0 without perf) of
# one run; the CPU time from a run of its own under perf stat, whose start
# would lengthen the wall time
timed() {
    out=$1
    shift
    echo 0 > "$tmp/rss"
    t0=$(now)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M -o "$tmp/rss" "$@" > "$out"
    else
        "$@" > "$out"
    fi
    t1=$(now)
    c=0
    if [ "$have_perf" = yes ]; then
        perf stat -x, -e task-clock -o "$tmp/p" "$@" > "$out"
        c=$(grep task-clock "$tmp/p" | cut -d, -f1)
    fi
    echo "$(echo "$t1 - $t0" | bc -l) $(tail -n 1 "$tmp/rss") $c"
}

if ! command -v "$MLIR_OPT" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && [ -z "${CI:-}" ] &&
   command -v apt-get >/dev/null 2>&1; then
    echo "installing mlir-15-tools for $MLIR_OPT ..."
    apt-get install -y -qq mlir-15-tools >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq mlir-15-tools >/dev/null 2>&1; } || true
fi
have_mlir=no
command -v "$MLIR_OPT" >/dev/null 2>&1 && have_mlir=yes

echo "parse+print, medians of $runs runs side by side (lopt: $LOPT${LOPT_OLD:+, old: $LOPT_OLD})"
echo "(wall seconds; CPU ms of user and system time from perf stat's task-clock, which other load disturbs less)"
printf '%-8s %6s %7s %7s %7s %7s %9s %9s %7s %12s %12s\n' bindings "MB" "cat s" "old s" "new s" "new/cat" "old CPU" "new CPU" new/old "old RSS/file" "new RSS/file"
for n in "$@"; do
    awk -v n="$n" -f "$top/bench/gen_bindings.awk" > "$tmp/big.tir"
    bytes=$(wc -c < "$tmp/big.tir")
    : > "$tmp/new.t"; : > "$tmp/old.t"; : > "$tmp/cat.t"
    for r in $(seq "$runs"); do
        if [ -n "$LOPT_OLD" ]; then
            timed "$tmp/old.tir" "$LOPT_OLD" "$tmp/big.tir" >> "$tmp/old.t"
        fi
        timed "$tmp/new.tir" "$LOPT" "$tmp/big.tir" >> "$tmp/new.t"
        t0=$(now); cat "$tmp/big.tir" > "$tmp/cat.out"; t1=$(now)
        echo "$t1 - $t0" | bc -l >> "$tmp/cat.t"
    done
    cmp -s "$tmp/big.tir" "$tmp/new.tir" || echo "  N=$n: lopt's output differs from its input"
    if [ -n "$LOPT_OLD" ] && ! cmp -s "$tmp/old.tir" "$tmp/new.tir"; then
        echo "  N=$n: the old and the new lopt print different bytes"
    fi
    col() { cut -d' ' -f"$2" "$tmp/$1.t" | median; }
    nt=$(col new 1); nm=$(col new 2); nc=$(col new 3)
    ot=0; om=0; oc=0
    if [ -n "$LOPT_OLD" ]; then
        ot=$(col old 1); om=$(col old 2); oc=$(col old 3)
    fi
    ct=$(median < "$tmp/cat.t")
    awk -v n="$n" -v b="$bytes" -v nt="$nt" -v nm="$nm" -v nc="$nc" -v ot="$ot" -v om="$om" -v oc="$oc" -v ct="$ct" 'BEGIN {
        old = ot > 0 ? sprintf("%7.3f", ot) : sprintf("%7s", "-")
        ocpu = oc > 0 ? sprintf("%9.1f", oc) : sprintf("%9s", "-")
        ncpu = nc > 0 ? sprintf("%9.1f", nc) : sprintf("%9s", "-")
        ratio = oc > 0 && nc > 0 ? sprintf("%6.2fx", nc / oc) : ot > 0 ? sprintf("%6.2fx", nt / ot) : sprintf("%7s", "-")
        orss = om > 0 ? sprintf("%4.0f MB %4.1fx", om / 1024, om * 1024 / b) : sprintf("%12s", "-")
        nrss = nm > 0 ? sprintf("%4.0f MB %4.1fx", nm / 1024, nm * 1024 / b) : sprintf("%12s", "-")
        printf "%-8d %6.1f %7.4f %s %7.3f %6.1fx %s %s %s %s %s\n", n, b / 1e6, ct, old, nt, nt / ct, ocpu, ncpu, ratio, orss, nrss
    }'
done
echo "(new/old: CPU time when perf is there, else wall)"

# The chain of additions, in both tools' texts.
if [ "$have_mlir" = no ]; then
    echo "mlir-opt: skipped, $MLIR_OPT not found (apt-get install mlir-15-tools)"
    exit 0
fi
cpu_ok=$have_perf
cpu() { perf stat -x, -e task-clock -o "$tmp/p" "$@" > /dev/null && grep task-clock "$tmp/p" | cut -d, -f1; }
echo "chain of N additions in one function, lopt (R.add) against $MLIR_OPT (arith.addf), medians of $runs"
printf '%-9s %9s %9s %10s %12s %12s %10s\n' N "lopt s" "mlir s" "mlir/lopt" "lopt CPU ms" "mlir CPU ms" "mlir/lopt"
for n in "$@"; do
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
    : > "$tmp/lc.t"; : > "$tmp/mc.t"; : > "$tmp/lcpu.t"; : > "$tmp/mcpu.t"
    for r in $(seq "$runs"); do
        t0=$(now); "$LOPT" "$tmp/chain.tir" > "$tmp/chain.out.tir"; t1=$(now)
        "$MLIR_OPT" "$tmp/chain.mlir" > "$tmp/chain.out.mlir"; t2=$(now)
        echo "$t1 - $t0" | bc -l >> "$tmp/lc.t"
        echo "$t2 - $t1" | bc -l >> "$tmp/mc.t"
        if [ "$cpu_ok" = yes ]; then
            cpu "$LOPT" "$tmp/chain.tir" >> "$tmp/lcpu.t"
            cpu "$MLIR_OPT" "$tmp/chain.mlir" >> "$tmp/mcpu.t"
        fi
    done
    cmp -s "$tmp/chain.tir" "$tmp/chain.out.tir" || echo "  N=$n: lopt's chain output differs from its input"
    adds=$(grep -c 'arith.addf' "$tmp/chain.out.mlir" || true)
    [ "$adds" = "$n" ] || echo "  N=$n: mlir-opt printed $adds additions back"
    lc=$(median < "$tmp/lc.t"); mc=$(median < "$tmp/mc.t")
    lcpu=0; mcpu=0
    if [ "$cpu_ok" = yes ]; then
        lcpu=$(median < "$tmp/lcpu.t"); mcpu=$(median < "$tmp/mcpu.t")
    fi
    awk -v n="$n" -v lc="$lc" -v mc="$mc" -v lcpu="$lcpu" -v mcpu="$mcpu" 'BEGIN {
        c = lcpu > 0 ? sprintf("%12.1f %12.1f %9.1fx", lcpu, mcpu, mcpu / lcpu) : ""
        printf "%-9d %9.3f %9.3f %9.1fx %s\n", n, lc, mc, mc / lc, c
    }'
done
