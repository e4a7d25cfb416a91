#!/usr/bin/env python3
"""plan's accounts against the module it prints. For every golden test whose
pipeline ends with plan (or plan,fold), and for every file named on the
command line under the pipelines given with --pipeline, lopt runs the
pipeline with --explain; the bytes and rewrites plan says its plan leaves
(the sum of its 'the plan leaves rewrites moving B bytes (R rewrites)' lines)
must be what the printed module holds, counted apart from plan: the module,
folded once more, is legalized, and every call of a PrimFunc whose "op"
attribute is R.layout_transform is one rewrite moving the bytes of its
input and output buffers; so is each R.nn.pad, R.pad and R.crop past those of the
module plan was given (fold writes a padded rewrite that keeps every point
where it is as a pad; a pad or crop plan moves counts as its new bytes
less its old). A rewrite of a constant is not counted (fold evaluates it),
as plan says. When plan,fold run again keeps another module, --explain says
what it holds in R.layout_transform calls (what plan,fold's fixed point
compares), and that must hold. A negative byte count anywhere in plan's
--explain fails the run (a total below nothing is an account gone wrong).
With --models A:B, the files are the random models of modelgen.py's seeds
A to B-1 (the model fuzzer's generator), each under every --pipeline.
Usage: plan_accounts.py LOPT [--pipeline P ...] [--models A:B] [FILE ...]
Exit status 1 when any account differs."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SIZE = {"float32": 4, "float16": 2, "float64": 8, "int8": 1, "uint8": 1, "int16": 2,
        "int32": 4, "int64": 8, "bool": 1, "bfloat16": 2}
SUMMARY = re.compile(r"plan: the plan leaves rewrites moving (-?\d+) bytes \((-?\d+) rewrites\)")
KEPT = re.compile(r"plan: the module kept holds rewrites moving (-?\d+) bytes \((-?\d+) rewrites\)")
NEGATIVE = re.compile(r"plan: .*?[ (](-\d+) bytes")
PADS = ("R.nn.pad", "R.pad", "R.crop")
PRIM = re.compile(r"^    def (\w+)\((.*)\):$")
BUF = re.compile(r'T\.Buffer\(\(([0-9, ]*)\), "(\w+)"')
CALL = re.compile(r"R\.call_tir\(cls\.(\w+), \(([^()]*)\)")


AGAIN = []   # the runs where plan,fold run again left less than the first plan


def nbytes(shape, dtype):
    n = SIZE.get(dtype, 4)
    for d in shape.split(","):
        if d.strip():
            n *= int(d)
    return n


def held(lopt, module, ops=("R.layout_transform",)):
    """The rewrites a printed module holds (calls of the operators ops) and the bytes they move."""
    folded = subprocess.run([lopt, "--pass=fold,legalize", "-"], input=module, capture_output=True, text=True)
    if folded.returncode:
        return None
    lines = folded.stdout.splitlines()
    rewrites = {}
    for i, line in enumerate(lines):
        m = PRIM.match(line)
        if m and i + 1 < len(lines) and any('"op": "%s"' % o in lines[i + 1] for o in ops):
            bufs = BUF.findall(m.group(2))
            rewrites[m.group(1)] = sum(nbytes(s, d) for s, d in bufs[:2])
    consts = set()
    count = moved = 0
    for line in lines:
        b = re.match(r"^\s+(\w+)(?::.*?)? = (R\..*)$", line)
        if not b:
            continue
        if b.group(2).startswith("R.const("):
            consts.add(b.group(1))
        c = CALL.search(b.group(2))
        if c and c.group(1) in rewrites:
            operand = c.group(2).strip().rstrip(",").strip()
            if operand.startswith("R.const(") or operand in consts:
                continue
            count += 1
            moved += rewrites[c.group(1)]
    return moved, count


def check(lopt, path, args):
    """Runs lopt with args on path; returns a line saying what differs, or None."""
    args = [a for a in args if a != "--verify-exec"]
    if "--explain" not in args:
        args.append("--explain")
    run = subprocess.run([lopt] + args + [path], capture_output=True, text=True)
    if run.returncode:
        return None
    said = [tuple(int(x) for x in m.groups()) for m in SUMMARY.finditer(run.stderr)]
    negative = NEGATIVE.search(run.stderr)
    if negative:
        return "%s (%s): --explain says a negative byte count: %s" % (path, " ".join(args), negative.group(0))
    if not said:
        return None
    got = held(lopt, run.stdout)
    if got is None:
        return "%s: the printed module does not fold and legalize" % path
    want = (sum(b for b, _ in said), sum(r for _, r in said))
    kept = KEPT.search(run.stderr)
    if kept:   # plan,fold run again did better by the R.layout_transform calls it counts, and says so
        want = tuple(int(x) for x in kept.groups())
        AGAIN.append(path)
        if got != want:
            return "%s (%s): the module kept holds %d bytes (%d rewrites), plan says %d (%d)" % (
                path, " ".join(args), got[0], got[1], want[0], want[1])
        return None
    # a padded rewrite fold writes as R.nn.pad or R.crop is a rewrite too:
    # the pads and crops the module holds past those plan was given
    pipe = [a for a in args if a.startswith("--pass=")][0][len("--pass="):]
    before = re.sub(r"(^|,)plan(\{[^}]*\})?(,fold)?$", "", pipe)
    given = subprocess.run([lopt, "--pass=" + (before + "," if before else "") + "fold", path], capture_output=True,
                           text=True)
    pads = held(lopt, run.stdout, PADS)
    pads0 = held(lopt, given.stdout, PADS) if given.returncode == 0 else None
    if pads and pads0:
        got = (got[0] + pads[0] - pads0[0], got[1] + pads[1] - pads0[1])
    if got != want:
        return "%s (%s): plan says %d bytes (%d rewrites); the module holds %d bytes (%d rewrites)" % (
            path, " ".join(args), want[0], want[1], got[0], got[1])
    return None


def golden_tests(top):
    """(path, args) of every golden test whose pipeline ends with plan."""
    for root, _, files in os.walk(os.path.join(top, "testsuite")):
        if "fuzz" in root:
            continue
        for f in sorted(files):
            if not f.endswith(".tir"):
                continue
            path = os.path.join(root, f)
            with open(path, errors="replace") as fh:
                first = fh.readline()
            if not first.startswith("# lopt: "):
                continue
            args = [a for a in shlex.split(first[len("# lopt: "):]) if a != "%s"]
            pipes = [a[len("--pass="):] for a in args if a.startswith("--pass=")]
            if len(pipes) != 1 or pipes[0].count("plan") != 1 or not re.search(r"(^|,)plan(\{[^}]*\})?(,fold)?$", pipes[0]):
                continue
            if any(a in ("--run", "--emit=dot") or a.startswith("--emit") for a in args):
                continue
            yield path, args


def main():
    lopt = os.path.abspath(sys.argv[1])
    rest = sys.argv[2:]
    pipelines, files, models = [], [], None
    while rest:
        a = rest.pop(0)
        if a == "--pipeline":
            pipelines.append(rest.pop(0))
        elif a == "--models":
            models = [int(x) for x in rest.pop(0).split(":")]
        else:
            files.append(a)
    tmp = None
    if models:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
        import modelgen
        tmp = tempfile.mkdtemp(prefix="plan-accounts-")
        for seed in range(models[0], models[1]):
            try:
                text = modelgen.generate(seed).text()
            except modelgen.Invalid:
                continue
            path = os.path.join(tmp, "model%d.tir" % seed)
            with open(path, "w") as fh:
                fh.write(text)
            files.append(path)
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cases = list(golden_tests(top)) if not files else []
    cases += [(f, ["--pass=" + p]) for f in files for p in pipelines]
    bad = 0
    for path, args in cases:
        why = check(lopt, path, args)
        if why:
            print("FAIL " + why)
            bad += 1
    print("plan accounts: %d of %d runs hold what plan said (%d where plan,fold run again left less than its "
          "first run, and said so)" % (len(cases) - bad, len(cases), len(AGAIN)))
    for path in AGAIN:
        print("  run again left less: " + path)
    if tmp and not bad:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
