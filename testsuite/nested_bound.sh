#!/bin/sh
# A pass sees a call written inside another value as it sees one bound to a
# variable of its own: for each testsuite/passes/nested/X.tir beside an
# X.bound (X's module written with the bindings, named as normalize names
# them), --pass=normalize on X prints X.bound's module, and X's own lopt
# arguments (its first line) give on X.bound the same module, the same exit
# status and the same --explain lines and diagnostics, but for the lines
# that say what was bound and the places (line:col, which differ). Also run
# by `make check`.
# Usage: LOPT=path/to/lopt sh testsuite/nested_bound.sh
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
cd "$top/testsuite" || exit 1
# stderr without what differs by construction: the notes of what was bound,
# the file's name, places and times; sorted (notes print in source order)
strip() {
    sed -E -e "s|$2|FILE|g" -e '/: bound .* written inside .* to a variable of its own, /d' \
        -e 's/^FILE:[0-9]+:[0-9]+: /FILE: /' -e 's/ at line [0-9]+/ at line N/g' \
        -e 's/(, in )[0-9]+\.[0-9]+ s$/\1<time> s/' "$1" | LC_ALL=C sort
}
for t in passes/nested/*.tir; do
    b=${t%.tir}.bound
    [ -f "$b" ] || continue
    n=$((n + 1))
    "$LOPT" --pass=normalize "$t" >"$tmp/norm" 2>&1
    "$LOPT" "$b" >"$tmp/bound" 2>&1
    if ! cmp -s "$tmp/norm" "$tmp/bound"; then
        echo "FAIL $t: --pass=normalize does not print the module of $b"
        diff "$tmp/bound" "$tmp/norm" | head -20
        fail=$((fail + 1))
        continue
    fi
    args=$(head -n 1 "$t" | sed -n 's/^# lopt: //p')
    for f in "$t" "$b"; do
        a=$(printf '%s' "$args" | sed "s|%s|$f|g")
        (eval "\"$LOPT\" $a" >"$tmp/out.${f##*.}" 2>"$tmp/err.${f##*.}"; echo "$?" >"$tmp/rc.${f##*.}")
        strip "$tmp/err.${f##*.}" "$f" >"$tmp/said.${f##*.}"
    done
    for k in out rc said; do
        if ! cmp -s "$tmp/$k.tir" "$tmp/$k.bound"; then
            echo "FAIL $t: its pipeline gives another $k on $b"
            diff "$tmp/$k.bound" "$tmp/$k.tir" | cut -c1-200 | head -20
            fail=$((fail + 1))
            break
        fi
    done
done
echo "nested_bound: $n modules with calls written in place, $fail failed"
[ "$fail" -eq 0 ]
