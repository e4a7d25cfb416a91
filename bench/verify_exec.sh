#!/bin/sh
# --verify-exec against one --run, and the call cache's gain, on one model:
# the ResNet-18 of bench/gen-models.py (32 channels at 56x56 by default)
# through convert-layout{conv2d=NCHW4c:OIHW4o},flow,fold. Prints the median
# wall time of each, side by side in one run, and the ratios.
# Usage: sh bench/verify_exec.sh [runs] [channels] [size]   (LOPT: the binary)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
runs=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$top/bench/gen-models.py" resnet18 "${2:-32}" "${3:-56}" >"$tmp/m.tir"
pipe='convert-layout{conv2d=NCHW4c:OIHW4o},flow,fold'
t() {   # wall seconds of one command
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    e=$(date +%s.%N)
    echo "$e - $s" | bc
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >"$tmp/run"; : >"$tmp/cache"; : >"$tmp/nocache"
i=0
while [ $i -lt "$runs" ]; do
    t "$LOPT" --run "$tmp/m.tir" >>"$tmp/run"
    t "$LOPT" --pass="$pipe" --verify-exec "$tmp/m.tir" >>"$tmp/cache"
    t "$LOPT" --pass="$pipe" --verify-exec --no-exec-cache "$tmp/m.tir" >>"$tmp/nocache"
    i=$((i + 1))
done
r=$(median <"$tmp/run"); c=$(median <"$tmp/cache"); n=$(median <"$tmp/nocache")
printf 'one --run                        %8.2f s\n' "$r"
printf -- '--verify-exec (call cache)       %8.2f s  %5.2fx the run\n' "$c" "$(echo "$c / $r" | bc -l)"
printf -- '--verify-exec --no-exec-cache    %8.2f s  %5.2fx the run\n' "$n" "$(echo "$n / $r" | bc -l)"
printf 'the cache saves                  %8.2fx\n' "$(echo "$n / $c" | bc -l)"
