#!/bin/sh
# legalize and flow,fold on a chain of N identical R.nn.relu bindings whose
# result is rewritten to NCHW4c (flow moves the rewrite up the whole chain),
# next to plain reading and printing of the same file, so that the passes'
# own time shows. All the relus share one PrimFunc after legalize.
# Usage: sh bench/relu_chain.sh [N...] (default 1000 10000 100000; median of
# RUNS runs, default 3). Columns: seconds for read+print, read+legalize+print,
# read+flow,fold+print; the relu PrimFuncs legalize made; the rewrites
# flow,fold left. Seconds are CPU seconds (user+sys) when GNU time is at
# /usr/bin/time, so that a loaded machine does not skew them; else wall time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# the median time of lopt ARGS on the chain; the last output in $tmp/out
timed() {
    : > "$tmp/t"
    for r in $(seq "$runs"); do
        if [ -x /usr/bin/time ]; then
            /usr/bin/time -f '%U + %S' -o "$tmp/cpu" "$LOPT" "$@" "$tmp/chain.tir" > "$tmp/out"
            bc -l < "$tmp/cpu" >> "$tmp/t"
        else
            t0=$(now)
            "$LOPT" "$@" "$tmp/chain.tir" > "$tmp/out"
            t1=$(now)
            echo "$t1 - $t0" | bc -l >> "$tmp/t"
        fi
    done
    median < "$tmp/t"
}

printf '%9s %10s %10s %10s %10s %6s\n' bindings print legalize flow,fold relu-funcs left
for n in ${@:-1000 10000 100000}; do
    awk -v n="$n" 'BEGIN {
        print "@I.ir_module"; print "class Module:"; print "    @R.function"
        print "    def main(x: R.Tensor((1, 8, 4, 4), dtype=\"float32\")) -> R.Tensor((1, 2, 4, 4, 4), dtype=\"float32\"):"
        print "        with R.dataflow():"
        print "            v0 = R.nn.relu(x)"
        for (i = 1; i < n; i++) printf "            v%d = R.nn.relu(v%d)\n", i, i - 1
        printf "            gv: R.Tensor((1, 2, 4, 4, 4), dtype=\"float32\") = R.layout_transform(v%d, index_map=T.index_map(lambda n, c, h, w: (n, c // 4, h, w, c %% 4)))\n", n - 1
        print "            R.output(gv)"; print "        return gv" }' > "$tmp/chain.tir"
    tp=$(timed)
    tl=$(timed --pass=legalize)
    funcs=$(grep -c "\"op\": \"R.nn.relu\"" "$tmp/out" || true)
    tf=$(timed --pass=flow,fold)
    left=$(grep -c 'R.layout_transform' "$tmp/out" || true)
    printf '%9d %10.3f %10.3f %10.3f %10d %6d\n' "$n" "$tp" "$tl" "$tf" "$funcs" "$left"
done
