#!/bin/sh
# Batches change nothing: every exec test and every example runs with
# loops in batches and with --no-batch (one iteration at a time), and the
# two give the same outputs, errors and exit status, byte for byte. Then
# random loop nests (testsuite/fuzz/fuzz_batch.py) do the same. Also run
# by `make check`.
# Usage: LOPT=path/to/lopt sh testsuite/batch_diff.sh [fuzz cases]
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for f in "$top"/testsuite/exec/*.tir "$top"/examples/*.tir "$top"/examples/models/*.tir; do
    opts=$(head -n 1 "$f" | sed -n 's/^# lopt: \(.*\)%s.*/\1/p' | sed 's/--run//')
    case "$opts" in *--*) continue ;; esac    # options of their own (--input files, ...)
    grep -qx "${f#"$top"/}" "$top/testsuite/slow.list" && continue
    n=$((n + 1))
    (cd "$(dirname "$f")" && "$LOPT" --run "$f" >"$tmp/a" 2>&1; echo "exit $?" >>"$tmp/a")
    (cd "$(dirname "$f")" && "$LOPT" --run --no-batch "$f" >"$tmp/b" 2>&1; echo "exit $?" >>"$tmp/b")
    if ! cmp -s "$tmp/a" "$tmp/b"; then
        echo "FAIL batch_diff: $f"
        diff "$tmp/a" "$tmp/b" | cut -c1-160 | head -10
        fail=$((fail + 1))
    fi
done
echo "batch_diff: $n files, $fail differ"
python3 "$top/testsuite/fuzz/fuzz_batch.py" --lopt "$LOPT" --cases "${1:-300}" || fail=$((fail + 1))
[ "$fail" -eq 0 ]
