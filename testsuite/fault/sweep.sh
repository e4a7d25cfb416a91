#!/bin/sh
# The no-abort test, SQLite's way: build/lopt-fail runs the pipeline once to
# count the allocations it makes, then once for each n from 1 to that count
# with the n-th allocation failing; each run must end with "lopt: error: out
# of memory", exit 1, and nothing from the sanitizers. Leaks are checked
# with LEAKS=1: a run leaking is then wrong. MAX_LEAKS=N counts the runs
# that leak apart and lets at most N (a ratchet; make check sets 0): a run
# that leaks must still have ended in "out of memory", exit 1, with no other
# report.
#   sh testsuite/fault/sweep.sh [STEP [LOPT]]   STEP: every STEP-th n (1: all)
# INPUT= and ARG= (one argument, the pipeline by default) run another module.
step=${1:-1}
lopt=${2:-build/lopt-fail}
input=${INPUT:-examples/conv_add_conv_nchwc.tir}
pipeline=${ARG:-'--pass=convert-layout{conv2d=NCHW4c:OIHW4o},plan,fold'}
tmp=${TMPDIR:-/tmp}/lopt-sweep.$$
[ -n "${MAX_LEAKS:-}" ] && LEAKS=1
[ "${LEAKS:-0}" = 1 ] || ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
trap 'rm -f "$tmp".out "$tmp".err' EXIT INT TERM
LOPT_FAIL_COUNT=1 "$lopt" "$pipeline" --verify-exec "$input" >"$tmp".out 2>"$tmp".err || {
    echo "sweep: the run without a failure fails:"; cat "$tmp".err; exit 1; }
total=$(sed -n 's/^lopt-fail: \([0-9]*\) allocations$/\1/p' "$tmp".err)
[ -n "$total" ] || { echo "sweep: $lopt counts no allocations (not the fault build?)"; exit 1; }
bad=0 runs=0 leaked=0 n=1
while [ "$n" -le "$total" ]; do
    LOPT_FAIL_AT=$n "$lopt" "$pipeline" --verify-exec "$input" >"$tmp".out 2>"$tmp".err
    rc=$?
    runs=$((runs + 1))
    last=$(tail -n 1 "$tmp".err)
    if [ -n "${MAX_LEAKS:-}" ] && grep -q '^==[0-9]*==ERROR: LeakSanitizer' "$tmp".err; then
        leaked=$((leaked + 1))
        # what came before the leak report is the run's own ending
        sed -i '/^=================*$/,$d' "$tmp".err
        last=$(sed '/^$/d' "$tmp".err | tail -n 1)
        [ $rc -eq 23 ] && rc=1   # LeakSanitizer's own exit code
    fi
    if [ $rc -ne 1 ] || [ "$last" != "lopt: error: out of memory" ] ||
       grep -q 'Sanitizer\|runtime error' "$tmp".err; then
        bad=$((bad + 1))
        if [ $bad -le 5 ]; then
            echo "sweep: allocation $n of $total failing: exit $rc"
            head -n 30 "$tmp".err | sed 's/^/    /'
        fi
    fi
    n=$((n + step))
done
if [ -n "${MAX_LEAKS:-}" ]; then
    echo "sweep: $runs of $total allocations failed in turn, $bad runs wrong, $leaked leaked (at most $MAX_LEAKS may)"
    [ $bad -eq 0 ] && [ $leaked -le "$MAX_LEAKS" ]
    exit
fi
echo "sweep: $runs of $total allocations failed in turn, $bad runs wrong (leaks checked: ${LEAKS:-0})"
[ $bad -eq 0 ]
