#!/bin/sh
# Paths that must stay linear in the size of a module: reading (and printing)
# N small Relax functions that main calls in a chain, and `--run` of a main
# returning a tuple of N items. For each N: CPU milliseconds (task-clock when
# perf is installed, else user+sys from GNU time; best of 3), microseconds per
# function or item, and peak RSS.
# Usage: sh bench/scale.sh [N...]   (default 10000 100000; LOPT names the binary)
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

funcs() {
    awk -v n="$1" 'BEGIN {
        print "@I.ir_module"; print "class Module:"
        for (i = 0; i < n; i++) {
            print "    @R.function"
            printf "    def f%d(a: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n", i
            print "        b = R.add(a, a)"; print "        return b"; print ""
        }
        print "    @R.function"
        print "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):"
        print "        cls = Module"; print "        v0 = cls.f0(x)"
        for (i = 1; i < n; i++) printf "        v%d = cls.f%d(v%d)\n", i, i, i - 1
        printf "        return v%d\n", n - 1 }'
}

tuple() {
    awk -v n="$1" 'BEGIN {
        print "@I.ir_module"; print "class Module:"; print "    @R.function"
        print "    def main(x: R.Tensor((2,), dtype=\"float32\")):"
        for (i = 0; i < n; i++) printf "        v%d = R.add(x, x)\n", i
        printf "        return ("
        for (i = 0; i < n; i++) printf "%sv%d", (i ? ", " : ""), i
        print ")" }'
}

# cpu_ms FILE ARGS...: the best of three runs, in milliseconds; peak KB in $tmp/kb
cpu_ms() {
    f=$1; shift
    best=""
    for r in 1 2 3; do
        if command -v perf >/dev/null 2>&1; then
            t=$(perf stat -e task-clock -x, "$LOPT" "$@" "$f" 2>&1 >/dev/null | grep task-clock | cut -d, -f1)
        else
            /usr/bin/time -f '%U %S' -o "$tmp/cpu" "$LOPT" "$@" "$f" >/dev/null
            t=$(awk '{ print ($1 + $2) * 1000 }' "$tmp/cpu")
        fi
        best=$(echo "$t ${best:-$t}" | awk '{ print ($1 < $2) ? $1 : $2 }')
    done
    /usr/bin/time -f '%M' -o "$tmp/kb" "$LOPT" "$@" "$f" >/dev/null
    echo "$best"
}

for n in ${@:-10000 100000}; do
    funcs "$n" >"$tmp/funcs.tir"
    tuple "$n" >"$tmp/tuple.tir"
    t=$(cpu_ms "$tmp/funcs.tir")
    echo "$n functions, read and print: $t ms, $(echo "$t $n" | awk '{ printf "%.2f", $1 * 1000 / $2 }') us each, $(cat "$tmp/kb") KB"
    t=$(cpu_ms "$tmp/funcs.tir" --run)
    echo "$n functions, --run: $t ms, $(echo "$t $n" | awk '{ printf "%.2f", $1 * 1000 / $2 }') us each, $(cat "$tmp/kb") KB"
    t=$(cpu_ms "$tmp/tuple.tir" --run)
    echo "$n-item tuple, --run: $t ms, $(echo "$t $n" | awk '{ printf "%.2f", $1 * 1000 / $2 }') us each, $(cat "$tmp/kb") KB"
done
