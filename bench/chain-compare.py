#!/usr/bin/env python3
"""Two lopt binaries side by side on bench/chain.sh's chains (KIND=batch_norm:
its chain of batch_norm items that share four parameters). For each N the
runs of OLD and NEW alternate, so a loaded machine skews both alike; each
prints the median of R runs of CPU seconds (user + sys, from wait4, so to the
microsecond) with microseconds per binding, the median peak RSS (GNU
time at /usr/bin/time), the ratios
new/old, and whether the two printed the same bytes.
Usage: chain-compare.py --old PATH [--new PATH] [--pass flow,fold] [--kind batch_norm] [-r R] N..."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chain(n, kind):
    out = ["@I.ir_module", "class Module:", "    @R.function"]
    p = "".join(', %s: R.Tensor((8,), dtype="float32")' % v for v in ("g", "b", "mu", "va")) if kind == "batch_norm" else ""
    out.append('    def main(x: R.Tensor((1, 8, 4, 4), dtype="float32")%s) -> R.Tensor((1, 2, 4, 4, 4), dtype="float32"):' % p)
    out.append("        with R.dataflow():")
    out.append("            v0 = R.nn.relu(x)")
    for i in range(1, n):
        if kind == "batch_norm":
            out.append("            t%d = R.nn.batch_norm(v%d, g, b, mu, va, axis=1)" % (i, i - 1))
            out.append("            v%d = t%d[0]" % (i, i))
        else:
            out.append("            v%d = R.%s(v%d)" % (i, "negative" if i % 2 else "nn.relu", i - 1))
    out.append('            gv: R.Tensor((1, 2, 4, 4, 4), dtype="float32") = R.layout_transform(v%d, '
               'index_map=T.index_map(lambda n, c, h, w: (n, c // 4, h, w, c %% 4)))' % (n - 1))
    out.append("            R.output(gv)")
    out.append("        return gv")
    return "\n".join(out) + "\n"


def run(lopt, pas, path, out):
    # the CPU time from wait4 (GNU time's and lopt's, to the microsecond);
    # the peak RSS from GNU time, whose child lopt is (a child of python
    # counts python's pages in its own peak)
    rss = out + ".rss"
    with open(out, "wb") as f:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss, lopt, "--pass=" + pas, path], stdout=f)
        _, status, ru = os.wait4(p.pid, 0)
    if status:
        sys.exit("%s failed on %s" % (lopt, path))
    with open(rss) as f:
        return ru.ru_utime + ru.ru_stime, int(f.read().split()[-1]) / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default=os.path.join(top, "lopt"))
    ap.add_argument("--pass", dest="pas", default="flow,fold")
    ap.add_argument("--kind", default="")
    ap.add_argument("-r", type=int, default=5)
    ap.add_argument("sizes", nargs="*", type=int, default=[1000, 10000, 100000])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for n in a.sizes:
            path = os.path.join(tmp, "chain.tir")
            with open(path, "w") as f:
                f.write(chain(n, a.kind))
            got = {"old": [], "new": []}
            for _ in range(a.r):
                for which, lopt in (("old", a.old), ("new", a.new)):
                    got[which].append(run(lopt, a.pas, path, os.path.join(tmp, which + ".out")))
            with open(os.path.join(tmp, "old.out"), "rb") as f1, open(os.path.join(tmp, "new.out"), "rb") as f2:
                same = f1.read() == f2.read()
            oc, nc = (statistics.median(c for c, _ in got[w]) for w in ("old", "new"))
            om, nm = (statistics.median(m for _, m in got[w]) for w in ("old", "new"))
            print("%d %s %s: old %.3f s CPU (%.1f us/binding), %.0f MB; new %.3f s (%.1f us/binding), %.0f MB; "
                  "new/old CPU %.2fx, RSS %.2fx; outputs %s" % (
                      n, a.kind or "elementwise", a.pas, oc, oc * 1e6 / n, om, nc, nc * 1e6 / n, nm,
                      nc / oc if oc else float("nan"), nm / om, "byte-identical" if same else "DIFFER"))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
