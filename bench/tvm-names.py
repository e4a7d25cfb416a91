#!/usr/bin/env python3
"""Writes ir/ops/tvm_names.c: the names TVM's TVMScript gives the R, T and I
namespaces, sorted, so lopt knows a name TVM has from a misspelling.

Run by hand against a TVM checkout (a work tree, or a bare repository with
--git), from the root of lopt's repository:

    python3 bench/tvm-names.py --git /path/to/tvm.git [--rev HEAD] > ir/ops/tvm_names.c
    python3 bench/tvm-names.py /path/to/tvm > ir/ops/tvm_names.c

The names are read from TVM's sources, not from a running TVM (nothing is
imported; the Python files are parsed with ast):
  R  the names python/tvm/relax/script/builder/ir.py exports (__all__), the
     type constructors python/tvm/relax/script/parser adds (Tensor, Tuple, ...),
     R.dist (parser/dist.py),
     the public functions of each operator submodule R exports
     (python/tvm/relax/op/<sub>/: R.nn.conv2d, R.memory.alloc_tensor, ...),
     and every operator registered under src/relax/op/ (TVM_REGISTER_OP and
     the RELAX_REGISTER_* macros: "relax.nn.conv2d" is R.nn.conv2d);
  T  python/tvm/tirx/script/builder/ir.py's __all__ (the statements that
     build it, run on their own), the names its package and the parser add,
     the methods of T.axis, the members of T.tile (builder/tirx.py), the
     public functions of python/tvm/tirx/op.py, the TIR intrinsics registered
     under src/tirx/op/ (TIR_DEFINE_BUILTIN_FUNC, TVM_TIR_REGISTER_*_OP,
     TVM_REGISTER_OP("tirx.x")), and the backend namespaces
     (python/tvm/backend/*: script_namespaces() maps T.cuda, T.ptx, T.nki,
     ... to classes whose public attributes and methods are the members), and
     T.ptx's instruction table (python/tvm/backend/cuda/ptx/table.py, pure
     data, loaded on its own): T.ptx.<family>.<modifier>... is TVM's when the
     family is in the table and each modifier is one of that family's tokens;
  I  python/tvm/script/parser/ir/__init__.py's and
     python/tvm/script/ir_builder/ir/ir.py's __all__.
"""
import argparse
import ast
import os
import re
import subprocess
import sys


class Tree:
    """A TVM source tree: a directory, or a revision of a git repository."""

    def __init__(self, root, git, rev):
        self.root, self.git, self.rev = root, git, rev
        if git:
            out = subprocess.run(["git", "--git-dir", git, "ls-tree", "-r", "--name-only", rev],
                                 check=True, capture_output=True, text=True).stdout
            self.files = out.split("\n")
            self.commit = subprocess.run(["git", "--git-dir", git, "rev-parse", rev], check=True,
                                         capture_output=True, text=True).stdout.strip()
        else:
            self.files = []
            for d, _, fs in os.walk(root):
                for f in fs:
                    self.files.append(os.path.relpath(os.path.join(d, f), root))
            r = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True)
            self.commit = r.stdout.strip() or "unknown"

    def read(self, path):
        if self.git:
            r = subprocess.run(["git", "--git-dir", self.git, "show", f"{self.rev}:{path}"],
                               capture_output=True, text=True)
            return r.stdout if r.returncode == 0 else None
        try:
            with open(os.path.join(self.root, path), encoding="utf-8") as f:
                return f.read()
        except OSError:
            return None

    def under(self, prefix, ext):
        return sorted(f for f in self.files if f.startswith(prefix) and f.endswith(ext))


def parse(tree, path):
    text = tree.read(path)
    return ast.parse(text) if text else None


def public(name):
    return not name.startswith("_")


def run_all(mod):
    """__all__ as the module builds it: its module-level assignments and
    loops that build lists of strings, run on their own; names they cannot
    evaluate (lists of objects) are skipped."""
    env = {}
    for node in mod.body:
        if not isinstance(node, (ast.Assign, ast.AugAssign, ast.For)):
            continue
        try:
            exec(compile(ast.Module(body=[node], type_ignores=[]), "<all>", "exec"), {"__builtins__": {}}, env)
        except Exception:
            pass
    return [n for n in env.get("__all__", []) if isinstance(n, str)]


def defs(mod):
    """The public functions and classes a module defines at its top level."""
    out = set()
    for node in mod.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and public(node.name):
            out.add(node.name)
    return out


def package_names(tree, pkg):
    """The public names a Python package exports: its __all__, or what its
    __init__ imports from its own modules and defines, and for a star import
    what that module defines."""
    init = parse(tree, pkg + "/__init__.py")
    if init is None:
        mod = parse(tree, pkg + ".py")
        return (set(run_all(mod)) or defs(mod)) if mod else set()
    names = set(run_all(init))
    if names:
        return names
    names = defs(init)
    for node in init.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            sub = pkg + "/" + node.module.replace(".", "/")
            for a in node.names:
                if a.name == "*":
                    names |= package_names(tree, sub)
                elif public(a.asname or a.name):
                    names.add(a.asname or a.name)
    return names


def relax_names(tree):
    names = set()
    ir = parse(tree, "python/tvm/relax/script/builder/ir.py")
    exported = run_all(ir)
    submodules = set()
    for node in ir.body:
        if isinstance(node, ast.ImportFrom) and node.module == "tvm.relax.op":
            for a in node.names:
                if a.asname is None and tree.read(f"python/tvm/relax/op/{a.name}/__init__.py") is not None:
                    submodules.add(a.name)
    for n in exported:
        if n in submodules:
            for m in package_names(tree, "python/tvm/relax/op/" + n):
                names.add(f"R.{n}.{m}")
        else:
            names.add("R." + n)
    parser = parse(tree, "python/tvm/relax/script/parser/__init__.py")
    for node in parser.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            v = node.value
            if isinstance(v, ast.BinOp) and isinstance(v.right, ast.List):
                for e in v.right.elts:
                    if isinstance(e, ast.Constant) and e.value != "dist":
                        names.add("R." + e.value)
    # R.dist is the module parser/dist.py: what it imports from the
    # distributed builder and defines; its __all__ is in R too
    dist = parse(tree, "python/tvm/relax/script/parser/dist.py")
    if dist:
        exported = run_all(dist)
        names |= {"R." + n for n in exported}
        members = set(exported) | defs(dist)
        for node in dist.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tvm.relax"):
                members |= {a.asname or a.name for a in node.names if public(a.asname or a.name)}
        names |= {"R.dist." + n for n in members}
    # the registered operators: "relax.x.y" is R.x.y
    macro = re.compile(r"^\s*(TVM_REGISTER_OP|RELAX_REGISTER_[A-Z0-9_]*OP[A-Z0-9_]*)\(([^)]*)\)", re.M)
    for path in tree.under("src/relax/op/", ".cc"):
        for m in macro.finditer(tree.read(path) or ""):
            kind, args = m.group(1), m.group(2)
            if "DIST_INFER" in kind:
                continue
            lit = re.search(r'"([^"]+)"', args)
            if lit:
                op = lit.group(1)
                op = op if op.startswith("relax.") else "relax." + op
            elif kind != "TVM_REGISTER_OP" and re.match(r"\s*[a-z_][a-z_0-9]*\s*(,|$)", args):
                op = "relax." + args.split(",")[0].strip()
            else:
                continue
            if re.fullmatch(r"relax(\.[A-Za-z_][A-Za-z_0-9]*)+", op):
                names.add("R." + op[len("relax."):])
    return names


def class_members(classes, name, depth=0):
    """The public attributes (self.x = ... in __init__), methods and nested
    namespaces of a namespace class, as dotted suffixes."""
    cls = classes.get(name)
    out = set()
    if cls is None or depth > 4:
        return out
    for node in cls.body:
        if isinstance(node, ast.FunctionDef):
            if public(node.name):
                out.add(node.name)
            if node.name != "__init__":
                continue
            for st in ast.walk(node):
                if (isinstance(st, ast.Call) and isinstance(st.func, ast.Name) and st.func.id == "setattr"
                        and len(st.args) == 3 and isinstance(st.args[1], ast.Constant)):
                    out.add(st.args[1].value)   # setattr(self, "__activemask", ...)
                    continue
                if not isinstance(st, (ast.Assign, ast.AnnAssign)):
                    continue
                for t in st.targets if isinstance(st, ast.Assign) else [st.target]:
                    if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                            and public(t.attr)):
                        out.add(t.attr)
                        v = st.value
                        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in classes:
                            out |= {t.attr + "." + m for m in class_members(classes, v.func.id, depth + 1)}
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and public(t.id):
                    out.add(t.id)
    return out


def backend_namespaces(tree):
    """T.cuda.*, T.ptx.*, ...: each backend's script_namespaces() returns a
    dict from the namespace's name to an instance of a class."""
    classes, returns = {}, {}
    for path in tree.under("python/tvm/backend/", ".py"):
        mod = parse(tree, path)
        if mod is None:
            continue
        for node in ast.walk(mod):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, node)
            if isinstance(node, ast.FunctionDef) and node.name in ("script_namespaces", "script_namespace"):
                returns[(path, node.name)] = [r.value for r in ast.walk(node) if isinstance(r, ast.Return) and r.value]
    names = set()
    for (path, fn), values in returns.items():
        if fn != "script_namespaces":
            continue
        for v in values:
            if not isinstance(v, ast.Dict):
                continue
            for k, c in zip(v.keys, v.values):
                if not isinstance(k, ast.Constant) or not isinstance(c, ast.Call):
                    continue
                cls = getattr(c.func, "id", None)
                if cls == "script_namespace":
                    for r in returns.get((path, "script_namespace"), []):
                        if isinstance(r, ast.Call) and isinstance(r.func, ast.Name):
                            cls = r.func.id
                names.add(f"T.{k.value}")
                names |= {f"T.{k.value}.{m}" for m in class_members(classes, cls)}
    return names


def ptx_table(tree):
    """T.ptx spells a PTX instruction: a family and its modifier tokens
    (T.ptx.ld.global_.b32), from the instruction table
    python/tvm/backend/cuda/ptx/table.py, which imports nothing from tvm and
    is loaded on its own. Gives the families and the (family, token) pairs,
    tokens escaped as TVMScript writes them (:: as __, a keyword with _)."""
    path = "python/tvm/backend/cuda/ptx/table.py"
    text = tree.read(path)
    if not text:
        return set(), set()
    import types
    mod = types.ModuleType("tvm_ptx_table")
    sys.modules[mod.__name__] = mod
    exec(compile(text, path, "exec"), mod.__dict__)
    families, pairs = set(), set()
    for entry in mod.TABLE.values():
        families.add(mod.escape_token(entry.family))
        for slot in entry.slots:
            for choice in slot.choices:
                for tok in choice.split("."):
                    if tok:
                        pairs.add(f"{mod.escape_token(entry.family)}.{mod.escape_token(tok)}")
    return families, pairs


def tir_names(tree):
    names = set()
    b = "python/tvm/tirx/script/builder/"
    ir = parse(tree, b + "ir.py")
    names |= {"T." + n for n in run_all(ir)}
    init = parse(tree, b + "__init__.py")
    for node in init.body:
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name != "*" and public(a.asname or a.name):
                    names.add("T." + (a.asname or a.name))
    parser = parse(tree, "python/tvm/tirx/script/parser/__init__.py")
    for node in parser.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            v = node.value
            if isinstance(v, ast.BinOp) and isinstance(v.right, ast.List):
                names |= {"T." + e.value for e in v.right.elts if isinstance(e, ast.Constant)}
    classes = {n.name: n for n in ir.body if isinstance(n, ast.ClassDef)}
    names |= {"T.axis." + m for m in class_members(classes, "axis")}
    # namespaces ir.py makes as instances: webgpu = WebGPUNamespace()
    for node in ir.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) in classes
                and "T." + node.targets[0].id in names):
            names |= {f"T.{node.targets[0].id}.{m}" for m in class_members(classes, node.value.func.id)}
    tile = parse(tree, b + "tirx.py")
    if tile:
        names |= {"T.tile." + n for n in run_all(tile)}
    op = parse(tree, "python/tvm/tirx/op.py")
    if op:
        names |= {"T." + n for n in defs(op)}
    reg = re.compile(r'^\s*(TIR_DEFINE_BUILTIN_FUNC|TVM_TIR_REGISTER_[A-Z_]*OP|TVM_REGISTER_OP)\(\s*"?([A-Za-z_0-9.]+)"?', re.M)
    for path in tree.under("src/tirx/op/", ".cc"):
        for m in reg.finditer(tree.read(path) or ""):
            n = m.group(2)
            if m.group(1) == "TVM_REGISTER_OP":
                if not n.startswith("tirx.") or n.endswith("."):
                    continue
                n = n[len("tirx."):]
            names.add("T." + n)
    names |= backend_namespaces(tree)
    return names, ptx_table(tree)


def ir_names(tree):
    names = set()
    for path in ("python/tvm/script/parser/ir/__init__.py", "python/tvm/script/ir_builder/ir/ir.py"):
        mod = parse(tree, path)
        if mod:
            names |= {"I." + n for n in run_all(mod)}
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", help="a TVM work tree")
    ap.add_argument("--git", help="a TVM git directory (bare is fine), read at --rev")
    ap.add_argument("--rev", default="HEAD")
    args = ap.parse_args()
    if not args.root and not args.git:
        ap.error("give a TVM work tree or --git")
    tree = Tree(args.root, args.git, args.rev)
    tnames, (ptx_families, ptx_pairs) = tir_names(tree)
    names = relax_names(tree) | tnames | ir_names(tree) | {"T.ptx." + f for f in ptx_families}
    names = sorted(n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)+", n)
                   and len(n) < 64)
    out = sys.stdout
    out.write("/* The names TVM's TVMScript has in R, T and I, sorted (strcmp order) for\n"
              " * a binary search: facts read from apache/tvm at commit\n"
              f" * {tree.commit}\n"
              " * by bench/tvm-names.py; regenerate with it, do not edit by hand. */\n"
              "#include <stdio.h>\n#include <string.h>\n\n#include \"../names.h\"\n\n"
              "static const char *const tvm_names[] = {\n")
    for n in names:
        out.write(f"    \"{n}\",\n")
    out.write("};\n\n/* T.ptx.<family>.<token>...: the modifier tokens of each PTX instruction family,\n"
              " * as family.token (which slot a token fills, and the table's checks of\n"
              " * their combinations, are TVM's business) */\n"
              "static const char *const tvm_ptx_mods[] = {\n")
    for n in sorted(ptx_pairs):
        out.write(f"    \"{n}\",\n")
    out.write("};\n\n"
              "static int find(const char *const *names, int n, const char *name)\n{\n"
              "    int lo = 0, hi = n - 1;\n"
              "    while (lo <= hi) {\n"
              "        int mid = lo + (hi - lo) / 2, c = strcmp(name, names[mid]);\n"
              "        if (c == 0)\n            return 1;\n"
              "        if (c < 0)\n            hi = mid - 1;\n"
              "        else\n            lo = mid + 1;\n"
              "    }\n    return 0;\n}\n\n"
              "/* T.ptx.ld.global_.b32: a family of T.ptx, then tokens of that family */\n"
              "static int ptx_known(const char *name)\n{\n"
              "    char fam[64], pair[128];\n"
              "    const char *p = name + 6, *dot = strchr(p, '.');\n"
              "    size_t lf = dot ? (size_t)(dot - p) : strlen(p);\n"
              "    if (lf >= sizeof fam)\n        return 0;\n"
              "    memcpy(fam, p, lf);\n    fam[lf] = 0;\n"
              "    snprintf(pair, sizeof pair, \"T.ptx.%s\", fam);\n"
              "    if (!find(tvm_names, (int)(sizeof tvm_names / sizeof *tvm_names), pair))\n        return 0;\n"
              "    while (dot) {\n"
              "        const char *t = dot + 1;\n"
              "        dot = strchr(t, '.');\n"
              "        size_t lt = dot ? (size_t)(dot - t) : strlen(t);\n"
              "        if (lt == 0 || lf + 1 + lt >= sizeof pair)\n            return 0;\n"
              "        snprintf(pair, sizeof pair, \"%s.%.*s\", fam, (int)lt, t);\n"
              "        if (!find(tvm_ptx_mods, (int)(sizeof tvm_ptx_mods / sizeof *tvm_ptx_mods), pair))\n"
              "            return 0;\n"
              "    }\n    return 1;\n}\n\n"
              "const char *tvm_name_at(int i)\n{\n"
              "    return i >= 0 && i < (int)(sizeof tvm_names / sizeof *tvm_names) ? tvm_names[i] : NULL;\n}\n\n"
              "int tvm_name_known(const char *name)\n{\n"
              "    if (find(tvm_names, (int)(sizeof tvm_names / sizeof *tvm_names), name))\n        return 1;\n"
              "    return strncmp(name, \"T.ptx.\", 6) == 0 && ptx_known(name);\n}\n")
    print(f"{len(names)} names and {len(ptx_pairs)} T.ptx modifiers from {tree.commit}", file=sys.stderr)


if __name__ == "__main__":
    main()
