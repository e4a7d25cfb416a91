#!/usr/bin/env python3
"""Extracts the TVMScript modules of Python test files (TVM's own, read from
a checkout or a bare git directory) into a directory outside the repository,
and runs lopt on each: how many lopt reads, how many of those have a main,
and how many of those run with `lopt --run --seed 1`.

A module is a class decorated @I.ir_module (or @tvm.script.ir_module), or a
function decorated @R.function or @T.prim_func that is not inside such a
class (lopt reads a bare function as a module of its own). Each is written as
DIR/<test file>.<line>.tir with the test file's import header.

Usage:
  tvm-modules.py extract (--git-dir G | --root R) DIR FILE...
  tvm-modules.py run [--lopt PATH] [--timeout S] [-v] DIR [LOPT ARGS...]
    (default LOPT ARGS: --run --seed 1; -v prints each failure's first
    error line, grouped by message)

The layout-related files of issue 42, relative to tests/python/relax/:
  test_transform_convert_layout.py test_transform_alter_op_impl.py
  test_transform_fold_constant.py test_transform_legalize_ops_manipulate.py
  test_transform_realize_vdevice.py test_analysis_suggest_layout_transforms.py
  test_transform_dead_code_elimination.py test_remove_redundant_reshape.py
  backend/adreno/test_transform_annotate_custom_scope.py
  backend/adreno/test_transform_fold_vdevice_scope_change.py
Measured (TVM 5d4dc87): 398 modules, 384 read, 310 with a main; of those,
256 ran at lopt b474735, 293 at 52e7fa5.

TVM's ResNet at 224 is the one module of
backend/adreno/test_texture_network.py (test_network_resnet):
  tvm-modules.py extract --git-dir G /tmp/tvm-resnet \
      tests/python/relax/backend/adreno/test_texture_network.py
  lopt --run /tmp/tvm-resnet/*.tir; lopt --verify-exec /tmp/tvm-resnet/*.tir"""
import ast
import collections
import os
import re
import subprocess
import sys
import textwrap

HEADER = ("# from tvm.script import ir as I\n"
          "# from tvm.script import relax as R\n"
          "# from tvm.script import tir as T\n\n")


def decorator_name(d):
    if isinstance(d, ast.Call):
        d = d.func
    parts = []
    while isinstance(d, ast.Attribute):
        parts.append(d.attr)
        d = d.value
    if isinstance(d, ast.Name):
        parts.append(d.id)
    return ".".join(reversed(parts))


def kind(node):
    for d in getattr(node, "decorator_list", []):
        n = decorator_name(d)
        if isinstance(node, ast.ClassDef) and n in ("I.ir_module", "tvm.script.ir_module", "ir_module"):
            return "module"
        if isinstance(node, (ast.FunctionDef,)) and n in ("R.function", "T.prim_func", "relax.function",
                                                         "tvm.script.relax.function"):
            return "function"
    return None


def modules(source):
    """Yields (line, text) for every module of a Python source."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)

    def visit(node):
        for child in ast.iter_child_nodes(node):
            k = kind(child)
            if k:
                first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                text = textwrap.dedent("".join(lines[first - 1:child.end_lineno]))
                yield first, text
            else:
                yield from visit(child)
    yield from visit(tree)


def read_source(args, path):
    if args["git_dir"]:
        return subprocess.run(["git", "--git-dir=" + args["git_dir"], "show", "HEAD:" + path],
                              check=True, capture_output=True, text=True).stdout
    with open(os.path.join(args["root"], path)) as f:
        return f.read()


def extract(argv):
    args = {"git_dir": None, "root": None}
    while argv and argv[0] in ("--git-dir", "--root"):
        args[argv[0][2:].replace("-", "_")] = argv[1]
        argv = argv[2:]
    out, files = argv[0], argv[1:]
    os.makedirs(out, exist_ok=True)
    n = 0
    for path in files:
        for line, text in modules(read_source(args, path)):
            name = "%s.%d.tir" % (path.replace("/", "_").removesuffix(".py"), line)
            with open(os.path.join(out, name), "w") as f:
                f.write(HEADER + text)
            n += 1
    print("%d modules from %d files into %s" % (n, len(files), out))


def first_error(stderr):
    for line in stderr.splitlines():
        m = re.search(r"error: (.*)", line)
        if m:
            return re.sub(r"'[^']*'|\b\d+\b", "_", m.group(1))[:110]
    return (stderr.strip().splitlines() or ["(no message)"])[0][:110]


def run(argv):
    lopt, timeout, verbose = "./lopt", 60.0, False
    while argv and argv[0] in ("--lopt", "--timeout", "-v"):
        if argv[0] == "-v":
            verbose, argv = True, argv[1:]
            continue
        if argv[0] == "--lopt":
            lopt = argv[1]
        else:
            timeout = float(argv[1])
        argv = argv[2:]
    d, extra = argv[0], argv[1:] or ["--run", "--seed", "1"]
    read = has_main = ok = 0
    fails = collections.defaultdict(list)
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        p = subprocess.run([lopt, path], capture_output=True, text=True)
        if p.returncode != 0:
            continue
        read += 1
        if not re.search(r"^\s*def main\(", p.stdout, re.M):
            continue
        has_main += 1
        try:
            r = subprocess.run([lopt] + extra + [path], capture_output=True, text=True, timeout=timeout)
            why = None if r.returncode == 0 else first_error(r.stderr)
        except subprocess.TimeoutExpired:
            why = "timeout after %gs" % timeout
        if why is None:
            ok += 1
        else:
            fails[why].append(name)
    if verbose:
        for why, names in sorted(fails.items(), key=lambda kv: -len(kv[1])):
            print("%4d  %s" % (len(names), why))
            for n in names[:4]:
                print("        %s" % n)
    total = len(os.listdir(d))
    print("%d modules, %d read by lopt, %d with a main, %d of those pass `%s`" %
          (total, read, has_main, ok, " ".join(["lopt"] + extra)))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("extract", "run"):
        sys.exit(__doc__)
    (extract if sys.argv[1] == "extract" else run)(sys.argv[2:])
