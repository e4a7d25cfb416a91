#!/bin/sh
# The test runner. Every testsuite/**/*.tir names its lopt arguments on its
# first line (`# lopt: ARGS`, %s is the file, appended when absent unless
# ARGS start with --map); its .expected holds stdout,
# then stderr after a `# stderr:` line (the times --verify-exec and
# --time-passes report written as <time>), then `# exit: N`. UPDATE=1 rewrites
# the expectations for review. Then every test and example that lopt accepts
# is checked to round-trip: print(parse(print(parse(x)))) == print(parse(x)),
# (for roundtrip/ and spellings/ also through --print-style=tvm), and every
# example is run with --run. Whatever lopt prints is read back, so the
# verifier accepts it: a module printed (x's, and every test's output that is
# a module, a pass test's too) reads back, verifies and prints the same.
# Usage: sh testsuite/run.sh [filter]   (LOPT names the binary under test)
# The cases listed in testsuite/slow.list (tests, and examples whose --run is
# slow under the sanitizers) are skipped unless SLOW=all; SLOW=only runs only
# them (make check-slow). The work runs on JOBS workers at once (default:
# the machine's cores), with a progress line every five seconds.

top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
filter=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# Whether the file holds a printed module (not --run's outputs, a graph, a map).
is_module() {
    sed -n '/^# from tvm.script import/d; /./{p;q;}' "$1" | grep -q '^@\(I\.ir_module\|R\.function\|T\.prim_func\)'
}

# A module test t printed (in $tmp/out, with the lopt arguments args) reads
# back and verifies (lopt verifies what it reads, as --verify-each does after
# a pass), and prints the same unless args asked for TVM's spelling.
readback_ok() {
    again=
    case "$2" in *--split-input-file*) again=--split-input-file ;; esac
    # the calls --allow-unregistered let the test keep are kept on reading back
    case " $2 " in *" --allow-unregistered "*) again="$again --allow-unregistered" ;; esac
    if ! "$LOPT" $again - <"$tmp/out" >"$tmp/back" 2>"$tmp/backerr"; then
        echo "FAIL $1: lopt's output does not read back and verify"
        head -n 5 "$tmp/backerr"
        return 1
    fi
    case "$2" in *--print-style=tvm*|*"--print-style tvm"*) return 0 ;; esac
    if ! cmp -s "$tmp/back" "$tmp/out"; then
        echo "FAIL $1: lopt's output does not round-trip"
        diff -u "$tmp/out" "$tmp/back" | head -n 20
        return 1
    fi
}

run_one() {
    t=$1
    args=$(head -n 1 "$t" | sed -n 's/^# lopt: //p')
    if [ -z "$args" ]; then
        echo "FAIL $t: first line must be '# lopt: ARGS'"
        fail=$((fail + 1))
        return
    fi
    case "$t:$args" in
        passes/*:*--verify-exec*) ;;
        passes/*)
            echo "FAIL $t: a pass test runs with --verify-exec"
            fail=$((fail + 1))
            return ;;
    esac
    case "$args" in
        *%s*) args=$(printf '%s' "$args" | sed "s|%s|$t|g") ;;
        --map*) ;;    # the index-map calculator reads no file
        *) args="$args $t" ;;
    esac
    (eval "\"$LOPT\" $args" >"$tmp/out" 2>"$tmp/err"; echo "$?" >"$tmp/rc")
    {
        cat "$tmp/out"
        if [ -s "$tmp/err" ]; then
            echo "# stderr:"
            # the text that varies from run to run: times
            sed -E -e 's/^(lopt: verify-exec: .*, in )[0-9]+\.[0-9]+ s$/\1<time> s/' \
                -e '/^lopt: time-passes:/,$ s/^  +[0-9]+\.[0-9]+  /  <time>  /' "$tmp/err"
        fi
        echo "# exit: $(cat "$tmp/rc")"
    } >"$tmp/got"
    # a module lopt prints (a pass's output, or any test's that is a module)
    # is one it accepts: it reads back, verifies, and prints the same
    if [ "$(cat "$tmp/rc")" = 0 ] && is_module "$tmp/out" && ! readback_ok "$t" "$args"; then
        fail=$((fail + 1))
        return
    fi
    exp="${t%.tir}.expected"
    if [ -n "${UPDATE:-}" ]; then
        cp "$tmp/got" "$exp"
    fi
    if [ -f "$exp" ] && cmp -s "$tmp/got" "$exp"; then
        pass=$((pass + 1))
    else
        echo "FAIL $t"
        if [ -f "$exp" ]; then diff -u "$exp" "$tmp/got" | head -n 40; else echo "  (no $exp)"; fi
        fail=$((fail + 1))
    fi
}

# The byte-stable round trip, for any input lopt accepts as it is.
roundtrip_one() {
    f=$1
    "$LOPT" "$f" >"$tmp/a" 2>"$tmp/err" || return 0
    if ! "$LOPT" "$tmp/a" >"$tmp/b" 2>"$tmp/err2"; then
        echo "FAIL roundtrip $f: lopt's output does not read back and verify"
        head -n 5 "$tmp/err2"
        fail=$((fail + 1))
        return
    fi
    if cmp -s "$tmp/a" "$tmp/b"; then
        pass=$((pass + 1))
    else
        echo "FAIL roundtrip $f"
        diff -u "$tmp/a" "$tmp/b" | head -n 20
        fail=$((fail + 1))
    fi
    # TVM's style reads back as the same module (the import lines aside)
    case "$f" in *roundtrip/*|*spellings/*)
        noheader() { sed '/^# from tvm.script import/d' | sed '/./,$!d'; }
        noheader <"$tmp/a" >"$tmp/a0"
        "$LOPT" --print-style=tvm "$f" 2>/dev/null | "$LOPT" - 2>"$tmp/err2" | noheader >"$tmp/t0"
        if cmp -s "$tmp/t0" "$tmp/a0"; then
            pass=$((pass + 1))
        else
            echo "FAIL roundtrip $f: --print-style=tvm does not read back as the same module"
            diff -u "$tmp/a0" "$tmp/t0" | head -n 20
            fail=$((fail + 1))
        fi ;;
    esac
}

slow=${SLOW:-}
skipped=0
start=$(date +%s)
# Whether the case at path (from the top) is to be skipped in this run.
skip() {
    if grep -qxF "$1" "$top/testsuite/slow.list" 2>/dev/null; then
        [ "$slow" = only ] || [ "$slow" = all ] && return 1
        skipped=$((skipped + 1))
        return 0
    fi
    [ "$slow" = only ]
}

# LABEL names the run (make check runs several at once): "[golden, ASan]"
tag=${LABEL:+[$LABEL] }
progress() { echo "  $tag$1 ($(( $(date +%s) - start )) s)"; }

# The work, one item a line ("kind path"), shared out among $jobs workers
# that run at once; the main process prints a progress line every few
# seconds until they are done.
jobs=${JOBS:-$(nproc 2>/dev/null || echo 1)}
cd "$top/testsuite" || exit 2
for t in $(find . -name '*.tir' | sed 's|^\./||' | LC_ALL=C sort); do
    case "$t" in *"$filter"*) ;; *) continue ;; esac
    case "$t" in fuzz/*) continue ;; esac
    skip "testsuite/$t" && continue
    echo "test $t"
done >"$tmp/work"
cd "$top" || exit 2
for f in $(find testsuite examples -name '*.tir' | LC_ALL=C sort); do
    case "$f" in *"$filter"*) ;; *) continue ;; esac
    [ "$slow" = only ] && continue
    echo "roundtrip $f"
done >>"$tmp/work"
# Every example runs on seeded inputs, and is accepted as it is.
for f in $(find examples -name '*.tir' | LC_ALL=C sort); do
    case "$f" in *"$filter"*) ;; *) continue ;; esac
    skip "$f" || echo "run $f"
    [ "$slow" = only ] || echo "read $f"
done >>"$tmp/work"

run_example() {
    if "$LOPT" --run "$1" >"$tmp/out" 2>"$tmp/err"; then
        pass=$((pass + 1))
    else
        echo "FAIL run $1"
        head -n 5 "$tmp/err"
        fail=$((fail + 1))
    fi
}

read_example() {
    if "$LOPT" "$1" >/dev/null 2>"$tmp/err"; then
        pass=$((pass + 1))
    else
        echo "FAIL example $1"
        head -n 5 "$tmp/err"
        fail=$((fail + 1))
    fi
}

# Worker k of $jobs takes every item whose line number is k modulo $jobs,
# in a scratch directory of its own; it writes what fails to its log, a
# byte per item done to its tally, and its counts at the end.
worker() {
    k=$1
    tmp=$tmp/w$k
    mkdir -p "$tmp"
    awk -v k="$k" -v n="$jobs" 'NR % n == k' "$tmp/../work" | {
        while read -r kind path; do
            case $kind in
                test) cd "$top/testsuite" && run_one "$path"; cd "$top" ;;
                roundtrip) roundtrip_one "$path" ;;
                run) run_example "$path" ;;
                read) read_example "$path" ;;
            esac
            printf . >>"$tmp/tally"
        done
        echo "$pass $fail" >"$tmp/counts"
    } >"$tmp/log"
}

total=$(wc -l <"$tmp/work")
k=0
while [ "$k" -lt "$jobs" ]; do
    worker "$k" &
    k=$((k + 1))
done
# A progress line every five seconds while the workers run.
last=$start
while :; do
    sleep 1
    finished=$(ls "$tmp"/w*/counts 2>/dev/null | wc -l)
    [ "$finished" -ge "$jobs" ] && break
    now=$(date +%s)
    if [ $((now - last)) -ge 5 ]; then
        echo "  $tag$(cat "$tmp"/w*/tally 2>/dev/null | wc -c) of $total golden tests, round trips and examples done ($((now - start)) s)"
        last=$now
    fi
done
wait
k=0
while [ "$k" -lt "$jobs" ]; do
    cat "$tmp/w$k/log"
    if read -r p f <"$tmp/w$k/counts"; then
        pass=$((pass + p)); fail=$((fail + f))
    else
        echo "FAIL run.sh: worker $k did not finish"
        fail=$((fail + 1))
    fi
    k=$((k + 1))
done
echo "  $tag$total golden tests, round trips and examples: $pass passed, $fail failed ($(( $(date +%s) - start )) s)"

progress "examples of the manual and the README"
# Every command the manual's EXAMPLES and the README's code blocks show runs
# and succeeds, from a scratch directory holding a copy of examples/ and
# testsuite/ (model.tir stands for examples/conv_sum_nhwc.tir; make and make
# check are left out, and a command piped to Graphviz's dot when dot is not
# installed).
if [ -z "$filter" ] || [ "$filter" = man ]; then
    mkdir -p "$tmp/man" && cp -r "$top/examples" "$top/testsuite" "$tmp/man/" &&
        cp "$top/examples/conv_sum_nhwc.tir" "$tmp/man/model.tir"
    { sed -n '/^\.SH EXAMPLES/,/^\.SH/p' "$top/man/lopt.1" | sed -n '/^\.nf/,/^\.fi/p' | sed '/^\./d; s/\\-/-/g'
      sed -n 's/^ \{4,\}\(\(\.\/\)\{0,1\}lopt .*\)$/\1/p; s/^ \{4,\}make && \.\/\(lopt .*\)$/\1/p' "$top/README.md"; } |
    while IFS= read -r cmd; do
        case "$cmd" in lopt*) ;; ./lopt*) cmd=${cmd#./} ;; *) continue ;; esac
        case "$cmd" in *"| dot "*) command -v dot >/dev/null 2>&1 || continue ;; esac
        if (cd "$tmp/man" && eval "\"$LOPT\" ${cmd#lopt}" >/dev/null 2>"$tmp/man.err"); then
            echo pass
        else
            echo "FAIL manual example: $cmd" >&2
            head -n 5 "$tmp/man.err" >&2
            echo fail
        fi
    done >"$tmp/man.results"
    pass=$((pass + $(grep -c '^pass' "$tmp/man.results")))
    fail=$((fail + $(grep -c '^fail' "$tmp/man.results")))
    # the manual and the README show at least this many; fewer means the extraction broke
    if [ "$(wc -l <"$tmp/man.results")" -lt 20 ]; then
        echo "FAIL manual examples: found $(wc -l <"$tmp/man.results") commands, expected at least 20"
        fail=$((fail + 1))
    fi
fi

progress "examples of lopt-format(5)"
# The module examples of the manual pages: an .EX block after a line
# '.\" check: ARGS' is a module 'lopt ARGS' accepts with nothing on standard
# error (but --verify-exec's summary); one after '.\" prints' is the standard
# output of the module checked before it; one after '.\" canonical' is a
# module lopt prints as it is. In lopt-format(5) every .EX block is one of these.
if [ -z "$filter" ] || [ "$filter" = man ]; then
    mkdir -p "$tmp/fmt"
    for page in lopt-format.5 lopt.1; do
        awk -v dir="$tmp/fmt" -v page="$page" '
            function unroff(l) { gsub(/\\-/, "-", l); gsub(/\\\(dq/, "\"", l); gsub(/\\e/, "\\", l); return l }
            /^\.\\" check:/ { want = "check"; args = substr($0, 12); next }
            /^\.\\" prints$/ { want = "prints"; next }
            /^\.\\" canonical$/ { want = "canonical"; args = ""; next }
            /^\.EX$/ {
                if (want == "") { print page ": an example that nothing checks, at line " NR >> (dir "/unmarked"); next }
                if (want != "prints") { n++; f = dir "/" page "." n ".tir"; print args > (dir "/" page "." n ".args") }
                else f = dir "/" page "." n ".want"
                if (want == "canonical") print "" > (dir "/" page "." n ".same")
                want = ""; capture = 1; next
            }
            /^\.EE$/ { if (capture) close(f); capture = 0; next }
            capture { print unroff($0) > f }
            { want = want == "" || /^\.(IP|PP)$/ ? want : "" }
        ' "$top/man/$page"
    done
    [ -f "$tmp/fmt/unmarked" ] && grep -q '^lopt-format' "$tmp/fmt/unmarked" &&
        { echo "FAIL manual: $(grep '^lopt-format' "$tmp/fmt/unmarked" | head -n 1)"; fail=$((fail + 1)); }
    nfmt=0
    for m in "$tmp"/fmt/*.tir; do
        [ -f "$m" ] || continue
        nfmt=$((nfmt + 1))
        what="${m##*/}"
        args=$(cat "${m%.tir}.args")
        if ! (cd "$tmp/fmt" && eval "\"$LOPT\" $args \"$m\"" >"$tmp/fmt.out" 2>"$tmp/fmt.err"); then
            echo "FAIL manual example ${what%.tir} (lopt $args): it fails"
            head -n 5 "$tmp/fmt.err"
            fail=$((fail + 1))
        elif grep -qv '^lopt: verify-exec: ' "$tmp/fmt.err"; then
            echo "FAIL manual example ${what%.tir} (lopt $args): it prints diagnostics"
            head -n 5 "$tmp/fmt.err"
            fail=$((fail + 1))
        elif [ -f "${m%.tir}.want" ] && ! cmp -s "${m%.tir}.want" "$tmp/fmt.out"; then
            echo "FAIL manual example ${what%.tir} (lopt $args): it does not print what the page says"
            diff -u "${m%.tir}.want" "$tmp/fmt.out" | head -n 20
            fail=$((fail + 1))
        elif [ -f "${m%.tir}.same" ] && ! cmp -s "$m" "$tmp/fmt.out"; then
            echo "FAIL manual example ${what%.tir}: the page says lopt prints it as it is, but it does not"
            diff -u "$m" "$tmp/fmt.out" | head -n 20
            fail=$((fail + 1))
        else
            pass=$((pass + 1))
        fi
    done
    # the pages show at least this many; fewer means the extraction broke
    if [ "$nfmt" -lt 6 ]; then
        echo "FAIL manual module examples: found $nfmt, expected at least 6"
        fail=$((fail + 1))
    fi
fi

[ "$skipped" -gt 0 ] && echo "  $tag$skipped slow cases skipped: too slow under the sanitizers (testsuite/slow.list; make check-slow runs them)"
echo "$tag$pass passed, $fail failed"
[ "$fail" -eq 0 ]
