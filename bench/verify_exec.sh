#!/bin/sh
# --verify-exec against one --run, and the call cache's gain, on one model:
# the ResNet-18 of bench/gen-models.py (32 channels at 56x56 by default)
# through convert-layout{conv2d=NCHW4c:OIHW4o},flow,fold. Prints the median
# wall time and peak resident memory (GNU time's %M) of each, side by side in
# one run, and the ratios.
# Usage: sh bench/verify_exec.sh [runs] [channels] [size]   (LOPT: the binary)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
runs=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$top/bench/gen-models.py" resnet18 "${2:-32}" "${3:-56}" >"$tmp/m.tir"
pipe='convert-layout{conv2d=NCHW4c:OIHW4o},flow,fold'
t() {   # wall seconds and peak RSS in KB of one command, in $tmp/$key.t and $tmp/$key.m
    key=$1; shift
    s=$(date +%s.%N)
    /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1
    e=$(date +%s.%N)
    echo "$e - $s" | bc >>"$tmp/$key.t"
    tail -n 1 "$tmp/rss" >>"$tmp/$key.m"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >"$tmp/run.t"; : >"$tmp/cache.t"; : >"$tmp/nocache.t"
: >"$tmp/run.m"; : >"$tmp/cache.m"; : >"$tmp/nocache.m"
i=0
while [ $i -lt "$runs" ]; do
    t run "$LOPT" --run "$tmp/m.tir"
    t cache "$LOPT" --pass="$pipe" --verify-exec "$tmp/m.tir"
    t nocache "$LOPT" --pass="$pipe" --verify-exec --no-exec-cache "$tmp/m.tir"
    i=$((i + 1))
done
r=$(median <"$tmp/run.t"); c=$(median <"$tmp/cache.t"); n=$(median <"$tmp/nocache.t")
rm=$(median <"$tmp/run.m"); cm=$(median <"$tmp/cache.m"); nm=$(median <"$tmp/nocache.m")
printf 'one --run                        %8.2f s  %7.1f MB\n' "$r" "$(echo "$rm / 1000" | bc -l)"
printf -- '--verify-exec (call cache)       %8.2f s  %7.1f MB  %5.2fx / %5.2fx the run\n' "$c" \
    "$(echo "$cm / 1000" | bc -l)" "$(echo "$c / $r" | bc -l)" "$(echo "$cm / $rm" | bc -l)"
printf -- '--verify-exec --no-exec-cache    %8.2f s  %7.1f MB  %5.2fx / %5.2fx the run\n' "$n" \
    "$(echo "$nm / 1000" | bc -l)" "$(echo "$n / $r" | bc -l)" "$(echo "$nm / $rm" | bc -l)"
printf 'the cache saves                  %8.2fx time\n' "$(echo "$n / $c" | bc -l)"
