# Writes a module whose main has N bindings (awk -v n=100000), alternating
# annotated operator calls and call_tir of a relu PrimFunc, for parse+print
# throughput. Usage: awk -v n=100000 -f bench/gen_bindings.awk > big.tir
BEGIN {
    if (n == 0) n = 100000
    t = "R.Tensor((1, 64, 56, 56), dtype=\"float32\")"
    print "@I.ir_module"
    print "class Module:"
    print "    @T.prim_func"
    print "    def relu(A: T.Buffer((1, 64, 56, 56), \"float32\"), B: T.Buffer((1, 64, 56, 56), \"float32\")):"
    print "        for i0, i1, i2, i3 in T.grid(1, 64, 56, 56):"
    print "            with T.block(\"relu\"):"
    print "                v0, v1, v2, v3 = T.axis.remap(\"SSSS\", [i0, i1, i2, i3])"
    print "                B[v0, v1, v2, v3] = T.max(A[v0, v1, v2, v3], T.float32(0.0))"
    print ""
    print "    @R.function"
    print "    def main(x: " t ") -> " t ":"
    print "        cls = Module"
    print "        with R.dataflow():"
    print "            lv0: " t " = R.nn.relu(x)"
    for (i = 1; i < n; i++) {
        if (i % 2)
            print "            lv" i ": " t " = R.add(lv" (i - 1) ", x)"
        else
            print "            lv" i " = R.call_tir(cls.relu, (lv" (i - 1) ",), out_sinfo=" t ")"
    }
    print "            R.output(lv" (n - 1) ")"
    print "        return lv" (n - 1)
}
