#!/bin/sh
# What lopt writes appears whole or not at all, and never over what it reads:
# outputs named through another path (./, an absolute path, a symbolic
# link) are refused as the input; a run that fails leaves -o's file as it
# was; a file kept is replaced with its permissions and through its link;
# Ctrl-C ends lopt with status 130, the target whole (old or new) and no
# temporary file left. Usage: sh testsuite/outputs.sh   (LOPT: the binary)
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL outputs: $*"; fail=$((fail + 1)); }
# expect STATUS TEXT CMD...: the command exits with STATUS and its stderr holds TEXT
expect() {
    want=$1 text=$2
    shift 2
    "$@" >out.log 2>err.log
    got=$?
    if [ "$got" != "$want" ]; then bad "$* exited $got, not $want: $(head -n 2 err.log)"; return; fi
    if [ -n "$text" ] && ! grep -qF -- "$text" err.log; then bad "$*: no '$text' in: $(head -n 2 err.log)"; return; fi
    ok
}
# no temporary file of lopt's left in the folder
no_temps() {
    left=$(ls -A | grep '\.lopt-' || true)
    if [ -n "$left" ]; then bad "$1: temporary files left: $left"; else ok; fi
}

cat >in.tir <<'TIR'
@T.prim_func
def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i]
TIR
cp in.tir keep.tir
mkdir sub
ln -s in.tir link.tir
ln -s ../in.tir sub/uplink.tir

# The input by any other name.
expect 2 "-o ./in.tir would write over the input" "$LOPT" -o ./in.tir in.tir
expect 2 "would write over the input" "$LOPT" -o "$tmp/in.tir" in.tir
expect 2 "-o link.tir would write over the input" "$LOPT" -o link.tir in.tir
expect 2 "would write over the input" "$LOPT" --pass=fold --report=sub/uplink.tir in.tir
expect 2 "would write over the input" "$LOPT" --pass=fold --report=sub/../in.tir link.tir
expect 2 "--report=./r.html would write over -o's file" "$LOPT" --pass=fold -o r.html --report=./r.html in.tir
cmp -s in.tir keep.tir && ok || bad "the input changed"
[ ! -e r.html ] && ok || bad "r.html was written although the line was refused"

# The regression: -o onto the input with --split-input-file lost the parts after the first.
cat >split.tir <<'TIR'
@R.function
def main(x: R.Tensor((4,), "float32")):
    return x
# -----
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((5,), "float32"):
    return x
TIR
cp split.tir split.keep
expect 2 "would write over the input" "$LOPT" --split-input-file --pass=fold -o split.tir split.tir
cmp -s split.tir split.keep && ok || bad "--split-input-file -o onto the input changed it"

# A failing later part leaves -o's file as it was (before: the first part's output alone).
echo "the old contents" >old.tir
cp old.tir old.keep
expect 1 "" "$LOPT" --split-input-file --pass=fold -o old.tir split.tir
cmp -s old.tir old.keep && ok || bad "a failed run changed -o's file"
no_temps "a failed run"

# A run that succeeds replaces the file whole, keeping its mode, through its link.
chmod 640 old.tir
ln -s old.tir old-link.tir
expect 0 "" "$LOPT" --pass=fold -o old-link.tir in.tir
[ -L old-link.tir ] && ok || bad "-o replaced the symbolic link itself"
"$LOPT" --pass=fold in.tir >want.tir
cmp -s old.tir want.tir && ok || bad "-o through a link did not write its target"
[ "$(stat -c %a old.tir)" = 640 ] && ok || bad "-o lost the file's mode: $(stat -c %a old.tir)"
no_temps "a run that succeeded"
# A name too long to take the temporary's suffix is written all the same.
long=$(printf 'n%.0s' $(seq 1 250)).tir
expect 0 "" "$LOPT" --pass=fold -o "$long" in.tir
cmp -s "$long" want.tir && ok || bad "-o with a 250-character name"
rm -f "$long"
# A device is written as it is, never replaced.
expect 0 "" "$LOPT" -o /dev/null in.tir
[ -c /dev/null ] && ok || bad "/dev/null is no longer a device"
expect 1 "error writing '/dev/full'" "$LOPT" -o /dev/full in.tir
# A folder that cannot be written: the error names the file.
expect 1 "cannot write 'no/such/dir/out.tir'" "$LOPT" -o no/such/dir/out.tir in.tir

# --output-dir writes through temporary files too.
expect 0 "" "$LOPT" --entry=copy --run --output-dir=npy in.tir
[ -f npy/B.npy ] || [ -f npy/output0.npy ] || [ -f npy/output.npy ] && ok || bad "--output-dir wrote nothing: $(ls npy)"
(cd npy && no_temps "--output-dir")

# Ctrl-C: status 130, the target old or new but whole, no temporary file.
awk -v n=60000 'BEGIN {
    print "@I.ir_module"; print "class Module:"; print "    @R.function"
    print "    def main(x: R.Tensor((1, 8, 4, 4), dtype=\"float32\")):"
    print "        with R.dataflow():"
    print "            v0 = R.nn.relu(x)"
    for (i = 1; i < n; i++) printf "            v%d = R.negative(v%d)\n", i, i - 1
    printf "            R.output(v%d)\n", n - 1
    printf "        return v%d\n", n - 1 }' >big.tir
"$LOPT" --pass=fold big.tir >big.want
for delay in 0.05 0.2 0.4 0.8; do
    cp old.keep big.out
    "$LOPT" --pass=fold -o big.out big.tir 2>/dev/null &
    pid=$!
    sleep "$delay"
    kill -INT "$pid" 2>/dev/null
    wait "$pid"
    st=$?
    case "$st" in
        0|130) ok ;;
        *) bad "Ctrl-C after $delay s: exit $st, not 130 (or 0 when it had finished)" ;;
    esac
    if cmp -s big.out old.keep || cmp -s big.out big.want; then ok; else bad "Ctrl-C after $delay s left a partial -o file"; fi
    no_temps "Ctrl-C after $delay s"
done

echo "outputs: $pass passed, $fail failed"
[ "$fail" = 0 ]
