#!/bin/sh
# --timeout ends a run that would not end soon, wherever it is (a loop nest
# one iteration at a time, in batches or on threads, a Relax recursion with
# no loop, --verify-exec's first run), with an error that says where, exit
# status 1, and within a fraction of a second of the deadline. The place
# in the loop it names depends on the machine, so the message is matched up
# to it. Usage: sh testsuite/limits.sh   (LOPT: the binary)
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL limits: $*"; fail=$((fail + 1)); }
now_ms() { date +%s%3N; }
# stops LIMIT_MS TEXT CMD...: the command exits 1 within LIMIT_MS and its stderr holds TEXT
stops() {
    limit=$1 text=$2
    shift 2
    t0=$(now_ms)
    timeout 60 "$@" >out.log 2>err.log
    got=$?
    took=$(($(now_ms) - t0))
    if [ "$got" != 1 ]; then bad "$* exited $got, not 1: $(head -n 2 err.log)"; return; fi
    if ! grep -qF -- "$text" err.log; then bad "$*: no '$text' in: $(head -n 2 err.log)"; return; fi
    if [ "$took" -gt "$limit" ]; then bad "$*: took $took ms, more than $limit"; return; fi
    ok
}

# 10^15 iterations of one block
cat >spin.tir <<'TIR'
@I.ir_module
class Module:
    @T.prim_func
    def spin(X: T.Buffer((1,), "float32"), A: T.Buffer((1,), "float32")):
        for i, j, k in T.grid(100000, 100000, 100000):
            with T.block("s"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(X[0])
                T.writes(A[0])
                A[0] = X[0] + T.float32(1)

    @R.function
    def main(x: R.Tensor((1,), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.spin, (x,), out_sinfo=R.Tensor((1,), dtype="float32"))
            R.output(lv)
        return lv
TIR
# The regression of issue 43: f calls itself twice per level, 2^60 calls at
# depth 60, and no loop runs, so --max-steps 1000 did not stop it.
cat >recursion.tir <<'TIR'
@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((), "int64"), n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        c = R.greater(n, R.const(0, "int64"))
        if c:
            m = R.subtract(n, R.const(1, "int64"))
            a = cls.f(x, m)
            b = cls.f(x, m)
            y: R.Tensor((), "int64") = R.add(a, b)
        else:
            y: R.Tensor((), "int64") = x
        return y

    @R.function
    def main(x: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        y = cls.f(x, R.const(60, "int64"))
        return y
TIR

loop="spin.tir:5:9: error: the run reached --timeout 0.3 s in prim_func 'spin', at "
stops 3000 "$loop" "$LOPT" --run --timeout=0.3 spin.tir
stops 3000 "$loop" "$LOPT" --run --no-batch --timeout=0.3 spin.tir
stops 3000 "$loop" "$LOPT" --run -j 2 --timeout=0.3 spin.tir
stops 3000 "$loop" "$LOPT" --pass=fold --verify-exec --timeout 0.3 spin.tir
# (Relax calls count steps too: a budget of 9e18 leaves the recursion to --timeout)
stops 3000 "error: the run reached --timeout 0.5 s at this binding" "$LOPT" --run --max-steps 9000000000000000000 --timeout=0.5 recursion.tir
# a run that ends in time is not stopped
"$LOPT" --run --timeout=30 --max-memory=1G "$top/examples/conv_relu_conv_nhwc.tir" >out.log 2>err.log && ok ||
    bad "a short run with --timeout=30 failed: $(head -n 2 err.log)"

echo "limits: $pass passed, $fail failed"
[ "$fail" = 0 ]
