#!/bin/sh
# flow,fold (and plan,fold) reach a fixed point: on every model of the suite, converted to
# NCHW4c and to NHWC, and on every pass test whose pipeline ends in
# flow,fold, a second flow,fold changes nothing (a rewrite that sank
# forward is not carried back up). Also run by `make check`.
# Usage: LOPT=path/to/lopt sh testsuite/fixed_point.sh
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
start=$(date +%s) ticked=$(date +%s)
# a progress line every five seconds (make check runs this beside other stages)
tick() {
    now=$(date +%s)
    if [ $((now - ticked)) -ge 5 ]; then
        echo "  fixed point: $n cases ($((now - start)) s)"
        ticked=$now
    fi
}
for f in "$top"/examples/models/*.tir; do
    for opts in 'conv2d=NCHW4c:OIHW4o,max_pool2d=NCHW4c,adaptive_avg_pool2d=NCHW4c,resize2d=NCHW4c' \
                'conv2d=NHWC:HWIO,max_pool2d=NHWC,adaptive_avg_pool2d=NHWC,resize2d=NHWC'; do
        for p in flow plan; do
            n=$((n + 1))
            tick
            "$LOPT" --pass="convert-layout{$opts},$p,fold" "$f" >"$tmp/once" 2>"$tmp/err" &&
                "$LOPT" --pass=$p,fold "$tmp/once" >"$tmp/twice" 2>>"$tmp/err"
            if ! cmp -s "$tmp/once" "$tmp/twice"; then
                echo "FAIL fixed point: $(basename "$f") convert-layout{$opts},$p,fold"
                diff "$tmp/once" "$tmp/twice" | cut -c1-160 | head -10
                cat "$tmp/err"
                fail=$((fail + 1))
            fi
        done
    done
done
for t in "$top"/testsuite/passes/*/*.tir; do
    pipe=$(head -n 1 "$t" | sed -n "s/^# lopt: .*--pass=['\"]*\([^ '\"]*\(flow\|plan\),fold\)['\"]* .*/\1/p")
    [ -n "$pipe" ] || continue
    n=$((n + 1))
    tick
    last=flow,fold
    case $pipe in *plan,fold) last=plan,fold ;; esac
    "$LOPT" --pass="$pipe" "$t" >"$tmp/once" 2>"$tmp/err" || continue   # error tests
    "$LOPT" --pass=$last "$tmp/once" >"$tmp/twice" 2>>"$tmp/err"
    if ! cmp -s "$tmp/once" "$tmp/twice"; then
        echo "FAIL fixed point: ${t#$top/} --pass=$pipe"
        diff "$tmp/once" "$tmp/twice" | cut -c1-160 | head -10
        fail=$((fail + 1))
    fi
done
echo "fixed point: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
