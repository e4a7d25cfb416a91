#!/bin/sh
# Interpreter speed against compiled C: the same loop nests run by
# `lopt --run` and compiled by `cc -O2`, timed in one run each.
#   matmul 512x512x512, and conv2d NCHW 1x64x56x56 by 64x64x3x3 (pad 1);
# then the conv2d operator in NCHW and in NCHW4c, side by side.
# Usage: sh bench/interp.sh [runs]   (LOPT names the binary; default ./lopt)
# lopt runs single-threaded (-j1), as cc's code does; JOBS=2 gives it two
# threads, and JOBS= passes no -j (a binary from before -j).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
LOPT=${LOPT:-$top/lopt}
runs=${1:-3}
jobs=${JOBS-1}
jopt=${jobs:+-j$jobs}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/matmul.tir" <<'TIR'
@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor((512, 512), dtype="float32"), B: R.Tensor((512, 512), dtype="float32")) -> R.Tensor((512, 512), dtype="float32"):
        cls = Module
        C = R.call_tir(cls.matmul, (A, B), out_sinfo=R.Tensor((512, 512), dtype="float32"))
        return C

    @T.prim_func
    def matmul(A: T.Buffer((512, 512), "float32"), B: T.Buffer((512, 512), "float32"), C: T.Buffer((512, 512), "float32")):
        for i, j, k in T.grid(512, 512, 512):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
TIR

cat >"$tmp/conv.tir" <<'TIR'
@I.ir_module
class Module:
    @R.function
    def main(X: R.Tensor((1, 64, 56, 56), dtype="float32"), W: R.Tensor((64, 64, 3, 3), dtype="float32")) -> R.Tensor((1, 64, 56, 56), dtype="float32"):
        cls = Module
        Y = R.call_tir(cls.conv, (X, W), out_sinfo=R.Tensor((1, 64, 56, 56), dtype="float32"))
        return Y

    @T.prim_func
    def conv(X: T.Buffer((1, 64, 56, 56), "float32"), W: T.Buffer((64, 64, 3, 3), "float32"), Y: T.Buffer((1, 64, 56, 56), "float32")):
        for n, f, y, x, c, ky, kx in T.grid(1, 64, 56, 56, 64, 3, 3):
            with T.block("conv"):
                vn, vf, vy, vx, vc, vky, vkx = T.axis.remap("SSSSRRR", [n, f, y, x, c, ky, kx])
                with T.init():
                    Y[vn, vf, vy, vx] = T.float32(0)
                Y[vn, vf, vy, vx] = Y[vn, vf, vy, vx] + T.if_then_else(1 <= vy + vky and vy + vky < 57 and 1 <= vx + vkx and vx + vkx < 57, X[vn, vc, vy + vky - 1, vx + vkx - 1], T.float32(0)) * W[vf, vc, vky, vkx]
TIR

cat >"$tmp/kernels.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static float A[512 * 512], B[512 * 512], Cm[512 * 512];
static float X[64 * 56 * 56], W[64 * 64 * 9], Y[64 * 56 * 56];
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv)
{
    for (int i = 0; i < 512 * 512; i++) { A[i] = (i % 512 - 256) / 256.0f; B[i] = ((i * 7) % 512 - 256) / 256.0f; }
    for (int i = 0; i < 64 * 56 * 56; i++) X[i] = (i % 512 - 256) / 256.0f;
    for (int i = 0; i < 64 * 64 * 9; i++) W[i] = ((i * 3) % 512 - 256) / 256.0f;
    double t0 = now();
    if (strcmp(argv[1], "matmul") == 0) {
        /* the same loop order as the TIR: i, j, k with C[i, j] accumulated */
        for (int i = 0; i < 512; i++)
            for (int j = 0; j < 512; j++) {
                Cm[i * 512 + j] = 0;
                for (int k = 0; k < 512; k++)
                    Cm[i * 512 + j] = Cm[i * 512 + j] + A[i * 512 + k] * B[k * 512 + j];
            }
    } else {
        for (int f = 0; f < 64; f++)
            for (int y = 0; y < 56; y++)
                for (int x = 0; x < 56; x++) {
                    Y[(f * 56 + y) * 56 + x] = 0;
                    for (int c = 0; c < 64; c++)
                        for (int ky = 0; ky < 3; ky++)
                            for (int kx = 0; kx < 3; kx++) {
                                int yy = y + ky, xx = x + kx;
                                float v = 1 <= yy && yy < 57 && 1 <= xx && xx < 57 ? X[(c * 56 + yy - 1) * 56 + xx - 1] : 0.0f;
                                Y[(f * 56 + y) * 56 + x] = Y[(f * 56 + y) * 56 + x] + v * W[((f * 64 + c) * 3 + ky) * 3 + kx];
                            }
                }
    }
    double t1 = now();
    printf("%.4f %g %g\n", t1 - t0, (double)Cm[1000], (double)Y[1000]);
    return 0;
}
C
${CC:-cc} -O2 -o "$tmp/kernels" "$tmp/kernels.c"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for k in matmul conv; do
    : >"$tmp/ti"; : >"$tmp/tc"
    i=0
    while [ $i -lt "$runs" ]; do
        s=$(date +%s.%N); "$LOPT" --run $jopt "$tmp/$k.tir" >/dev/null; e=$(date +%s.%N)
        echo "$s $e" | awk '{ printf "%.4f\n", $2 - $1 }' >>"$tmp/ti"
        "$tmp/kernels" $k | awk '{ print $1 }' >>"$tmp/tc"
        i=$((i + 1))
    done
    ti=$(median <"$tmp/ti"); tc=$(median <"$tmp/tc")
    echo "$k: lopt --run ${ti}s, cc -O2 ${tc}s, ratio $(echo "$ti $tc" | awk '{ printf "%.1f", $1 / $2 }')x (median of $runs)"
done

# The same convolution as a Relax operator in NCHW and in NCHW4c/OIHW4o (its
# legalized PrimFuncs), run side by side: what a layout costs the interpreter.
cat >"$tmp/op_nchw.tir" <<'TIR'
@I.ir_module
class Module:
    @R.function
    def main(X: R.Tensor((1, 64, 56, 56), dtype="float32"), W: R.Tensor((64, 64, 3, 3), dtype="float32")) -> R.Tensor((1, 64, 56, 56), dtype="float32"):
        Y = R.nn.conv2d(X, W, padding=[1, 1, 1, 1])
        return Y
TIR
cat >"$tmp/op_nchw4c.tir" <<'TIR'
@I.ir_module
class Module:
    @R.function
    def main(X: R.Tensor((1, 16, 56, 56, 4), dtype="float32"), W: R.Tensor((16, 64, 3, 3, 4), dtype="float32")) -> R.Tensor((1, 16, 56, 56, 4), dtype="float32"):
        Y = R.nn.conv2d(X, W, padding=[1, 1, 1, 1], data_layout="NCHW4c", kernel_layout="OIHW4o", out_layout="NCHW4c")
        return Y
TIR
: >"$tmp/t1"; : >"$tmp/t4"
i=0
while [ $i -lt "$runs" ]; do
    for f in nchw nchw4c; do
        s=$(date +%s.%N); "$LOPT" --run $jopt "$tmp/op_$f.tir" >/dev/null; e=$(date +%s.%N)
        echo "$s $e" | awk '{ printf "%.4f\n", $2 - $1 }' >>"$tmp/t$([ $f = nchw ] && echo 1 || echo 4)"
    done
    i=$((i + 1))
done
t1=$(median <"$tmp/t1"); t4=$(median <"$tmp/t4")
echo "conv2d operator: NCHW ${t1}s, NCHW4c ${t4}s, ratio $(echo "$t4 $t1" | awk '{ printf "%.2f", $1 / $2 }')x (median of $runs)"
