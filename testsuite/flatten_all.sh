#!/bin/sh
# Every PrimFunc of the suite through flatten: each .tir of testsuite/ and
# examples/ that holds a prim_func and reads as it is goes through
# --pass=flatten, and the result must verify, read back and print the same,
# and equal a second flatten of itself. Where main runs on seeded inputs,
# --verify-exec must also find the outputs unchanged; the files that cannot
# run (no main, symbolic inputs, a run that fails on purpose) are listed with
# the reason their own run gives, and those flatten refuses with an error
# (strides with axis separators) with that error. Run by `make check-flatten`.
# Usage: LOPT=path/to/lopt sh testsuite/flatten_all.sh
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$top" || exit 1
ran=0 checked=0 refused=0 fail=0
for f in $(grep -rl 'T\.prim_func' testsuite examples --include='*.tir' | LC_ALL=C sort); do
    "$LOPT" "$f" >/dev/null 2>&1 || continue
    runs=0
    "$LOPT" --verify-exec "$f" >/dev/null 2>"$tmp/run" && runs=1
    if ! "$LOPT" --pass=flatten --verify-each "$f" >"$tmp/once" 2>"$tmp/err" ||
        ! "$LOPT" - <"$tmp/once" 2>>"$tmp/err" | cmp -s - "$tmp/once" ||
        ! "$LOPT" --pass=flatten - <"$tmp/once" 2>>"$tmp/err" | cmp -s - "$tmp/once"; then
        if grep -q 'error: flatten: ' "$tmp/err"; then
            # a buffer flatten refuses on purpose (an error test)
            refused=$((refused + 1))
            echo "refused: $f: $(grep -m 1 'error: flatten: ' "$tmp/err" | sed 's/.*error: flatten: //')"
            continue
        fi
        if [ "$runs" = 0 ] && grep -q 'out-of-bounds\|the strided view .* reaches element' "$tmp/run"; then
            # an input that writes (or views) out of bounds on purpose: the
            # verifier sees it once the access (or the view) is flat
            checked=$((checked + 1))
            echo "not run: $f: $(grep -m 1 'error' "$tmp/run" | sed 's/.*error: //'); after flatten the verifier says: $(grep -m 1 'error' "$tmp/err" | sed 's/.*error: //')"
            continue
        fi
        echo "FAIL $f: flatten's output does not verify, round-trip or stay under a second flatten"
        head -n 5 "$tmp/err"
        fail=$((fail + 1))
        continue
    fi
    if [ "$runs" = 1 ]; then
        if "$LOPT" --pass=flatten --verify-exec "$f" >/dev/null 2>"$tmp/err"; then
            ran=$((ran + 1))
        else
            echo "FAIL $f: flatten changes an output"
            head -n 5 "$tmp/err"
            fail=$((fail + 1))
        fi
    else
        checked=$((checked + 1))
        echo "not run: $f: $(grep -m 1 'error' "$tmp/run" | sed 's/.*error: //')"
    fi
done
echo "flatten: $ran files proven by --verify-exec, $checked verified and round-tripped only (they do not run), $refused refused with a flatten error, $fail failed"
[ "$fail" -eq 0 ]
