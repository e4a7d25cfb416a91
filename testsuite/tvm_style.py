#!/usr/bin/env python3
"""The way back into TVM keeps a module's meaning: for every test and example
lopt accepts, the module it prints (after the test's passes, when it names
some) is printed again with --print-style=tvm; that text must read back in
lopt, and where the module has a main that runs, --run of the two must print
the same outputs (the seeded inputs are the same). TVM cannot be installed
here, so this checks lopt's reading of TVM's spelling, which follows TVM's
parser, against lopt's own.

Usage: tvm_style.py LOPT [ROOT]   (ROOT: the repository, default ..)
"""
import concurrent.futures as cf
import os
import re
import shlex
import subprocess
import sys
import tempfile

# arguments that print something other than the module, or need a file
SKIP = re.compile(r"--(run|verify-exec|emit|explain|report|stats|map|list|help|version|import|split-input-file|"
                  r"output-dir|input|print-before|print-after|print-style|time-passes|entry|dump|graph|watch|max-|"
                  r"timeout|seed|shape|no-verify)")


def lopt(binary, args, stdin=None, timeout=60):
    try:
        r = subprocess.run([binary] + args, input=stdin, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, b"", b"timeout"
    return r.returncode, r.stdout, r.stderr


def first_args(path):
    with open(path, "rb") as f:
        head = f.readline().decode("utf-8", "replace")
    m = re.match(r"#\s*lopt:\s*(.*)", head)
    if not m:
        return []
    args = shlex.split(m.group(1).replace("%s", ""))
    return args


def check(binary, path):
    """None when the file holds, else a line saying why not."""
    args = first_args(path)
    if any(SKIP.match(a) for a in args) or any(not a.startswith("-") for a in args):
        args = [a for a in args if a.startswith("--pass")]
    rc, out, _ = lopt(binary, args + [path])
    if rc != 0 or not out.strip():
        return None   # lopt refuses it or prints nothing: another test's business
    with tempfile.TemporaryDirectory() as tmp:
        mod = os.path.join(tmp, "m.tir")
        with open(mod, "wb") as f:
            f.write(out)
        rc, tvm, err = lopt(binary, ["--print-style=tvm", mod])
        if rc != 0:
            return f"{path}: --print-style=tvm failed: {err.decode(errors='replace').strip()[:300]}"
        back = os.path.join(tmp, "tvm.tir")
        with open(back, "wb") as f:
            f.write(tvm)
        rc, _, err = lopt(binary, [back])
        if rc != 0:
            return f"{path}: TVM's spelling does not read back: {err.decode(errors='replace').strip()[:300]}"
        rc1, run1, _ = lopt(binary, ["--run", mod])
        if rc1 != 0:
            return None   # no main, or it does not run: nothing to compare
        rc2, run2, err = lopt(binary, ["--run", back])
        if rc2 != 0:
            return f"{path}: TVM's spelling does not run: {err.decode(errors='replace').strip()[:300]}"
        if run1 != run2:
            return f"{path}: TVM's spelling runs to other outputs"
    return None


def main():
    binary = os.path.abspath(sys.argv[1])
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..")
    files = []
    for top in ("testsuite", "examples"):
        for d, _, names in os.walk(os.path.join(root, top)):
            if "/fuzz" in d or "/errors" in d:
                continue
            files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".tir")]
    files.sort()
    bad = []
    with cf.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for i, why in enumerate(pool.map(lambda p: check(binary, p), files)):
            if why:
                bad.append(why)
                print("FAIL", why, flush=True)
            if (i + 1) % 500 == 0:
                print(f"tvm-style: {i + 1}/{len(files)} files", flush=True)
    print(f"tvm-style: {len(files) - len(bad)} of {len(files)} files hold through --print-style=tvm")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
