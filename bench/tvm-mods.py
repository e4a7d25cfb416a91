#!/usr/bin/env python3
"""Writes out the TVMScript modules of TVM's Python tests, one per file, and
counts how many a lopt binary reads.

    python3 bench/tvm-mods.py extract --git /path/to/tvm.git OUT   # or a work tree: --root DIR
    python3 bench/tvm-mods.py read ./lopt OUT [--flags=--strict] [--list FILE]

extract: every class decorated @I.ir_module (or @tvm.script.ir_module,
@ir_module) and every function decorated @T.prim_func or @R.function that no
such class holds, in tests/python/{relax,tirx,s_tir,tvmscript}/, is written
dedented to OUT/<test path>.<line>.tir with TVM's import header.

read: runs `lopt FLAGS FILE` on each (no pass: read, verify, print) and
prints how many read (exit status 0), how many were refused (status 1) and
the first error line of each refused one when --list is given. A module
written last in the body of `with pytest.raises(...)` (extract lists them in
OUT/expected-errors.txt) is one TVM's test expects to fail: it counts as read
when lopt refuses it with an error, and not when lopt accepts it."""
import argparse
import ast
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

DIRS = ("tests/python/relax/", "tests/python/tirx/", "tests/python/s_tir/", "tests/python/tvmscript/")
EXPECTED = "expected-errors.txt"   # in OUT: the modules TVM's tests expect to fail, one a line
HEADER = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n# from tvm.script import tir as T\n\n"


def dotted(e):
    if isinstance(e, ast.Call):
        e = e.func
    parts = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    if isinstance(e, ast.Name):
        parts.append(e.id)
    return ".".join(reversed(parts))


def kind(node):
    for d in getattr(node, "decorator_list", []):
        n = dotted(d)
        if isinstance(node, ast.ClassDef) and n in ("I.ir_module", "tvm.script.ir_module", "ir_module"):
            return "module"
        if isinstance(node, ast.FunctionDef) and n in ("T.prim_func", "R.function"):
            return "function"
    return None


def raises(node):
    """Whether node is `with pytest.raises(...):`, whose body the test expects to fail."""
    return isinstance(node, ast.With) and any(dotted(i.context_expr) == "pytest.raises" for i in node.items)


def modules(text):
    """(line, source, expected) of each outermost decorated module or
    function; expected: it is the last statement directly in the body of
    `with pytest.raises(...)`, so TVM's test expects reading it to fail (the
    decorator parses it, and nothing after it in the body could raise; one
    nested in another construct, such as a class of @R.rewriter, is not)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    lines = text.split("\n")
    todo = [(n, False) for n in tree.body]
    while todo:
        node, expected = todo.pop(0)
        if kind(node):
            first = min(d.lineno for d in node.decorator_list)
            yield first, textwrap.dedent("\n".join(lines[first - 1:node.end_lineno])) + "\n", expected
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            body = getattr(node, field, []) or []
            todo.extend((n, raises(node) and n is body[-1]) for n in body)


def extract(args):
    os.makedirs(args.out, exist_ok=True)
    if args.git:
        ls = subprocess.run(["git", "--git-dir", args.git, "ls-tree", "-r", "--name-only", args.rev],
                            check=True, capture_output=True, text=True).stdout.split("\n")
        commit = subprocess.run(["git", "--git-dir", args.git, "rev-parse", args.rev], check=True,
                                capture_output=True, text=True).stdout.strip()
    else:
        ls = [os.path.relpath(os.path.join(d, f), args.root) for d, _, fs in os.walk(args.root) for f in fs]
        commit = "work tree " + args.root
    files = sorted(f for f in ls if f.startswith(DIRS) and f.endswith(".py"))
    n = 0
    errs = []
    for path in files:
        if args.git:
            text = subprocess.run(["git", "--git-dir", args.git, "show", f"{args.rev}:{path}"],
                                  capture_output=True, text=True).stdout
        else:
            with open(os.path.join(args.root, path), encoding="utf-8", errors="replace") as f:
                text = f.read()
        for line, src, expected in modules(text):
            name = path.replace("/", "_")[:-3] + f".{line}.tir"
            with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
                f.write(HEADER + src)
            if expected:
                errs.append(name)
            n += 1
    with open(os.path.join(args.out, EXPECTED), "w", encoding="utf-8") as f:
        f.write("".join(e + "\n" for e in errs))
    print(f"{n} modules from {len(files)} test files of {commit}, {len(errs)} of them written to fail",
          file=sys.stderr)


def read(args):
    files = sorted(f for f in os.listdir(args.out) if f.endswith(".tir"))
    flags = args.flags.split() if args.flags else []

    def one(f):
        try:
            r = subprocess.run([args.lopt] + flags + [os.path.join(args.out, f)], capture_output=True,
                               text=True, timeout=60, errors="replace")
            err = next((l for l in r.stderr.split("\n") if ": error: " in l), r.stderr.split("\n")[0])
            return f, r.returncode, err
        except subprocess.TimeoutExpired:
            return f, -1, "timeout"

    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        results = list(ex.map(one, files))
    try:
        with open(os.path.join(args.out, EXPECTED), encoding="utf-8") as f:
            expected = set(f.read().split())
    except FileNotFoundError:
        expected = set()
    # a module the test expects to fail is read when lopt refuses it with a
    # clean error (exit 1, an error line); one lopt accepts is not
    clean = [f for f, rc, e in results if f in expected and rc == 1 and ": error: " in e]
    accepted = [f for f, rc, _ in results if f in expected and rc == 0]
    ok = sum(1 for f, rc, _ in results if rc == 0 and f not in expected) + len(clean)
    refused = [(f, e) for f, rc, e in results if rc == 1]
    other = [(f, rc) for f, rc, _ in results if rc not in (0, 1)]
    print(f"{len(results)} modules: {ok} read ({100 * ok / max(len(results), 1):.1f}%), "
          f"{len(refused) - len(clean)} refused, {len(other)} other exit; of the {len(expected)} that TVM's tests "
          f"expect to fail, {len(clean)} refused with an error (counted as read), {len(accepted)} accepted (not counted)")
    if args.list:
        with open(args.list, "w", encoding="utf-8") as out:
            for f, rc, e in results:
                out.write(f"{f}\t{rc}\t{e}{' (expected to fail)' if f in expected else ''}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    x = sub.add_parser("extract")
    x.add_argument("--git")
    x.add_argument("--root")
    x.add_argument("--rev", default="HEAD")
    x.add_argument("out")
    r = sub.add_parser("read")
    r.add_argument("lopt")
    r.add_argument("out")
    r.add_argument("--flags", default="")
    r.add_argument("--list")
    r.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if args.cmd == "extract":
        if not args.git and not args.root:
            ap.error("give --git or --root")
        extract(args)
    else:
        read(args)


if __name__ == "__main__":
    main()
