#!/usr/bin/env python3
"""lopt's texture memory scopes against TVM's AnnotateCustomMemoryScope, callee
by callee, on the tests of TVM's
tests/python/relax/backend/adreno/test_transform_annotate_custom_scope.py.

Each test_* function holds an Input module and an Expected dict: for each
callee (a PrimFunc R.call_tir calls after TVM's legalization and fusion) the
memory scope of each argument and of each result. Input is written (outside
the repository) to DIR/<test>.Input.tir and lopt runs

    convert-layout{conv2d=NCHW4c:OIHW4o,policy=tvm},flow,fold,annotate-scope,
    realize-vdevice,fold-scope-change

on it (TVM's test converts conv2d to NCHW4c/OIHW4o). lopt neither legalizes
nor fuses, so a TVM callee is found among the operator calls of lopt's main:

  - its name gives the operators it computes, in order: "fused_" and a
    trailing number dropped, conv2d_NCHWc_OIHWo<N>_opencl is conv2d,
    max_pool2d_opencl max_pool2d, tir_tanh tanh, concatenate R.concat,
    transpose R.permute_dims, and so on;
  - TVM's callees are taken in the dict's order, except that the NCHWc
    convolutions among them take the order of their number N (their order in
    Input) in the places they hold; a callee's first operator is the first
    call of it in lopt's main not yet taken (a transpose whose R.permute_dims
    flow merged into a rewrite is that R.layout_transform: one whose map
    reorders the axes);
  - each further operator of a fused callee is the first call of it, not yet
    taken, that reads a value the callee computes (directly, or through
    aliases, tuple items, R.to_vdevice and R.layout_transform, which then
    are inside the callee), or else the first one after the callee's first
    call (an operand of the callee's last call, as ad2 in test_injective_*);
  - the callee's arguments are the operands of its calls that it does not
    compute, constants left out (TVM fuses them in), each value (through
    aliases) once, in the order first read; their scopes are those of the
    operands as passed (the vdevice of their annotation, global memory
    without one); its results are its last call's result, each field of a
    tuple (R.split's parts).

A callee matches when the scopes of all its arguments and all its results
equal TVM's, in order. The te_layout_transform callees are not counted (lopt
writes R.layout_transform where ConvertLayout's choices place them, which
bench/tvm-convert-layout.py compares): TVM's tests list 66 other callees,
with 196 scopes (the summary counts both the callees and the scopes that
match, each argument and result in its place). A test lopt refuses counts
each of its callees as differing (test_conv2d_sum_keepdims_sub_indexed
declares main's result ndim=2 where its value is 4-d). The pipeline then
runs once more with --verify-exec, counted apart, per test.

    python3 bench/tvm-texture.py --git /path/to/tvm.git DIR [--lopt ./lopt] [-v]
"""
import argparse
import ast
import os
import re
import sys

import tvmtests
from tvmtests import first_error, lopt

TEST = "tests/python/relax/backend/adreno/test_transform_annotate_custom_scope.py"
PIPE = ("convert-layout{conv2d=NCHW4c:OIHW4o,policy=tvm},flow,fold,annotate-scope,realize-vdevice,"
        "fold-scope-change")
# the parts of a TVM callee's name, first match first, and the operator each is
PARTS = [(re.compile(p), op) for p, op in (
    (r"conv2d_NCHWc_OIHWo(\d*)_opencl", "conv2d"), (r"max_pool2d_opencl", "max_pool2d"),
    (r"adaptive_avg_pool2d_opencl", "adaptive_avg_pool2d"), (r"tir_tanh", "tanh"),
    (r"te_layout_transform", "layout_transform"), (r"layer_norm", "layer_norm"),
    (r"expand_dims", "expand_dims"), (r"strided_slice", "strided_slice"), (r"concatenate", "concat"),
    (r"transpose", "permute_dims"), (r"multiply", "multiply"), (r"softmax", "softmax"),
    (r"squeeze", "squeeze"), (r"split", "split"), (r"relu", "relu"), (r"tanh", "tanh"),
    (r"mean", "mean"), (r"sum", "sum"), (r"add", "add"), (r"conv2d", "conv2d"))]
VDEV = re.compile(r'^[^:]*:\d+:(.*)$')


def cases(src, out):
    """(test, input file, expected dict) per test; modules written to out."""
    found = []
    for fn in ast.parse(src).body:
        if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith("test_"):
            continue
        path, expected = None, None
        for node in ast.walk(fn):
            if isinstance(node, ast.ClassDef) and node.decorator_list and path is None:
                path = tvmtests.write_module(out, "%s.%s" % (fn.name, node.name), src, node)
            if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Dict) and expected is None):
                expected = ast.literal_eval(node.value)
        if path and expected is not None:
            found.append((fn.name, path, expected))
    return found


def callee_ops(name):
    """The operators a TVM callee computes, and the number of its NCHWc convolution (or None)."""
    rest = name[len("fused_"):] if name.startswith("fused_") else name
    rest = re.sub(r"\d+$", "", rest)
    ops, num = [], None
    while rest:
        for pat, op in PARTS:
            m = pat.match(rest)
            if m:
                if op == "conv2d" and m.groups() and num is None and not ops:
                    num = int(m.group(1) or 0)
                ops.append(op)
                rest = rest[m.end():].lstrip("_")
                break
        else:
            raise ValueError("callee name not understood: " + name)
    return ops, num


def scope_of(ann):
    """The memory scopes an annotation states: a list, one per tensor (tuple fields in order)."""
    if isinstance(ann, ast.Call):
        fname = ast.unparse(ann.func)
        if fname.endswith("Tuple"):
            return [s for a in ann.args for s in scope_of(a)]
        for kw in ann.keywords:
            if kw.arg == "vdevice" and isinstance(kw.value, ast.Constant):
                m = VDEV.match(kw.value.value)
                return [m.group(1) if m else "global"]
    return ["global"]


class Main:
    """lopt's main: its calls in order, each (op, operand names, result name, text), and each name's
    scopes, alias root and definition."""

    def __init__(self, text):
        tree = ast.parse(text)
        fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "main")
        self.scopes, self.root, self.const, self.calls = {}, {}, set(), []
        self.source = {}    # a name bound to an alias, tuple item or layout_transform: what it reads
        for a in fn.args.args:
            self.scopes[a.arg] = scope_of(a.annotation)
        for st in self.statements(fn.body):
            if not isinstance(st, ast.AnnAssign) and not isinstance(st, ast.Assign):
                continue
            target = st.target if isinstance(st, ast.AnnAssign) else st.targets[0]
            if not isinstance(target, ast.Name):
                continue
            name, value = target.id, st.value
            self.scopes[name] = scope_of(st.annotation) if isinstance(st, ast.AnnAssign) else ["global"]
            if isinstance(value, ast.Name):
                self.root[name] = self.root.get(value.id, value.id)
                self.source[name] = [value.id]
            elif isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
                self.source[name] = [value.value.id]
            elif isinstance(value, ast.Call):
                op = ast.unparse(value.func).split(".")[-1]
                if op == "const":
                    self.const.add(name)
                    continue
                operands = []
                for a in value.args:
                    for e in (a.elts if isinstance(a, ast.Tuple) else [a]):
                        if isinstance(e, ast.Name):
                            operands.append(e.id)
                if op in ("layout_transform", "to_vdevice"):
                    self.source[name] = operands
                self.calls.append((op, operands, name, ast.unparse(value)))

    def statements(self, body):
        for st in body:
            if isinstance(st, ast.With):
                yield from self.statements(st.body)
            else:
                yield st

    def rootof(self, name):
        return self.root.get(name, name)

    def reads(self, name, inside):
        """Whether name is computed from the values in inside through aliases, items and rewrites."""
        seen = set()
        todo = [name]
        while todo:
            n = todo.pop()
            if n in inside:
                return True
            if n in seen:
                continue
            seen.add(n)
            todo += self.source.get(n, [])
        return False


def permutes(call):
    """Whether an R.layout_transform call's map reorders the axes (a permute_dims merged into it)."""
    m = re.search(r"lambda ([^:]*): \((.*)\)\)", call[3])
    if not m:
        return False
    params = [p.strip() for p in m.group(1).split(",")]
    first = []
    for name in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", m.group(2)):
        if name in params and name not in first:
            first.append(name)
    return first != [p for p in params if p in first]


def find_callees(main, expected):
    """{callee: ([call indices], arguments as [(name, scope)], result scopes) or None}."""
    order = [(k,) + callee_ops(k) for k in expected if not k.startswith("te_layout_transform")]
    # the NCHWc convolutions in the order of their number, in the slots they hold
    slots = [i for i, g in enumerate(order) if g[2] is not None]
    for i, g in zip(slots, sorted((order[i] for i in slots), key=lambda g: g[2])):
        order[i] = g
    taken, out = set(), {}
    for k, ops, _ in order:
        ci = next((i for i, c in enumerate(main.calls) if i not in taken and c[0] == ops[0]), None)
        if ci is None and ops[0] == "permute_dims":
            ci = next((i for i, c in enumerate(main.calls) if i not in taken and c[0] == "layout_transform"
                       and permutes(c)), None)
        if ci is None:
            out[k] = None
            continue
        taken.add(ci)
        idx = [ci]
        for op in ops[1:]:
            computed = {main.calls[i][2] for i in idx}
            free = [j for j, c in enumerate(main.calls) if j not in taken and c[0] == op]
            nxt = next((j for j in free if any(main.reads(o, computed) for o in main.calls[j][1])),
                       next((j for j in free if j > ci), None))
            if nxt is None:
                idx = None
                break
            taken.add(nxt)
            idx.append(nxt)
        if idx is None:
            out[k] = None
            continue
        computed = {main.calls[i][2] for i in idx}
        args, seen = [], set()
        for i in sorted(idx):
            for o in main.calls[i][1]:
                r = main.rootof(o)
                if main.reads(o, computed) or r in seen or r in main.const or o in main.const:
                    continue
                seen.add(r)
                args.append((o, main.scopes.get(o, ["global"])[0]))
        out[k] = (idx, args, main.scopes.get(main.calls[max(idx)][2], ["global"]))
    return out


def main():
    ap = argparse.ArgumentParser()
    tvmtests.add_args(ap, timeout=120, verbose="one line per callee")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    callees = matched = scopes = scopes_matched = tests = verified = 0
    for test, inp, expected in cases(tvmtests.read_test(args, TEST), args.dir):
        tests += 1
        rc, out, err = lopt(args, "--pass=" + PIPE, inp)
        vrc, _, verr = lopt(args, "--pass=" + PIPE, "--verify-exec", inp)
        if vrc == 0:
            verified += 1
        elif args.v:
            print("verify-exec fails on %s: %s" % (test, first_error(verr, vrc)))
        found = {}
        if rc == 0:
            tvmtests.write(inp[:-len(".Input.tir")] + ".lopt.tir", out)
            mod = Main(out)
            found = find_callees(mod, expected)
        for k, (targs, tres) in expected.items():
            if k.startswith("te_layout_transform"):
                continue
            callees += 1
            scopes += len(targs) + len(tres)
            got = found.get(k)
            if rc:
                verdict, detail = "differs", "lopt fails: " + first_error(err, rc)
            elif got is None:
                verdict, detail = "differs", "no such calls in lopt's main"
            else:
                idx, largs, lres = got
                mine = [s for _, s in largs]
                n = sum(a == b for a, b in zip(mine, targs)) + sum(a == b for a, b in zip(lres, tres))
                scopes_matched += n
                if mine == list(targs) and lres == list(tres):
                    verdict, detail = "match", ""
                else:
                    verdict = "differs"
                    diffs = ["argument %d (%s) %s, TVM %s" % (i, name, s, t) for i, ((name, s), t)
                             in enumerate(zip(largs, targs)) if s != t]
                    if len(largs) != len(targs):
                        diffs.append("%d arguments (%s), TVM %d" % (len(largs), ", ".join(n for n, _ in largs),
                                                                    len(targs)))
                    diffs += ["result %d %s, TVM %s" % (i, s, t) for i, (s, t) in enumerate(zip(lres, tres))
                              if s != t]
                    if len(lres) != len(tres):
                        diffs.append("%d results, TVM %d" % (len(lres), len(tres)))
                    detail = "; ".join(diffs)
                detail = ("calls " + ", ".join("%s=%s" % (mod.calls[i][2], mod.calls[i][0]) for i in sorted(idx)) +
                          (": " + detail if detail else ""))
            if verdict == "match":
                matched += 1
            if args.v:
                print("%-8s %s %s: %s" % (verdict, test, k, detail))
    print("texture scopes against TVM's AnnotateCustomMemoryScope: %d tests, %d callees: match %d, differ %d "
          "(scopes %d of %d); --verify-exec passes on %d of %d" % (
              tests, callees, matched, callees - matched, scopes_matched, scopes, verified, tests))


if __name__ == "__main__":
    sys.exit(main())
