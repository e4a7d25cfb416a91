#!/bin/sh
# Times `lopt --pass=flow,fold` on a chain of N elementwise calls whose result
# is rewritten to NCHW4c; flow moves the rewrite up the whole chain.
# Usage: sh bench/chain.sh [N...]   (median of 3 runs each: wall seconds, and
# CPU seconds (user+sys) with microseconds per binding when GNU time is at
# /usr/bin/time, which a loaded machine skews less (it counts hundredths
# of a second: use N of 10000 and more); peak RSS too)
# PASS=plan,fold sh bench/chain.sh ... times another pipeline on the same chain;
# KIND=batch_norm makes a chain of R.nn.batch_norm items instead, all reading
# the same four parameters (a value many calls read).
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
PASS=${PASS:-flow,fold}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in ${@:-1000 10000}; do
    awk -v n="$n" -v kind="${KIND:-}" 'BEGIN {
        print "@I.ir_module"; print "class Module:"; print "    @R.function"
        p = kind == "batch_norm" ? ", g: R.Tensor((8,), dtype=\"float32\"), b: R.Tensor((8,), dtype=\"float32\"), mu: R.Tensor((8,), dtype=\"float32\"), va: R.Tensor((8,), dtype=\"float32\")" : ""
        print "    def main(x: R.Tensor((1, 8, 4, 4), dtype=\"float32\")" p ") -> R.Tensor((1, 2, 4, 4, 4), dtype=\"float32\"):"
        print "        with R.dataflow():"
        print "            v0 = R.nn.relu(x)"
        for (i = 1; i < n; i++)
            if (kind == "batch_norm") {
                printf "            t%d = R.nn.batch_norm(v%d, g, b, mu, va, axis=1)\n", i, i - 1
                printf "            v%d = t%d[0]\n", i, i
            } else printf "            v%d = R.%s(v%d)\n", i, (i % 2 ? "negative" : "nn.relu"), i - 1
        printf "            gv: R.Tensor((1, 2, 4, 4, 4), dtype=\"float32\") = R.layout_transform(v%d, index_map=T.index_map(lambda n, c, h, w: (n, c // 4, h, w, c %% 4)))\n", n - 1
        print "            R.output(gv)"; print "        return gv" }' >"$tmp/chain.tir"
    times=""
    cpus=""
    for r in 1 2 3; do
        s=$(date +%s.%N)
        if [ -x /usr/bin/time ]; then
            /usr/bin/time -f '%U + %S' -o "$tmp/cpu" "$LOPT" --pass="$PASS" "$tmp/chain.tir" >"$tmp/out" || exit 1
            cpus="$cpus $(bc -l <"$tmp/cpu")"
        else
            "$LOPT" --pass="$PASS" "$tmp/chain.tir" >"$tmp/out" || exit 1
        fi
        e=$(date +%s.%N)
        times="$times $(echo "$e - $s" | bc)"
    done
    med=$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p)
    left=$(grep -c 'R.layout_transform' "$tmp/out")
    cpu=""
    if [ -n "$cpus" ]; then
        c=$(echo $cpus | tr ' ' '\n' | sort -n | sed -n 2p)
        cpu=", CPU ${c}s ($(echo "scale=1; $c * 1000000 / $n" | bc) us per binding)"
    fi
    rss=""
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M -o "$tmp/rss" "$LOPT" --pass="$PASS" "$tmp/chain.tir" >/dev/null
        rss=", peak RSS $(cat "$tmp/rss") KB"
    fi
    echo "chain $n ($PASS): median ${med}s$cpu$rss, $left layout_transform left"
done
