"""What the bench/tvm-*.py comparisons with TVM's own tests share: the options
that name TVM's sources and lopt, reading a test file from a bare git
directory or a work tree of apache/tvm, writing a module of the test
(outside the repository) with TVM's import header, finding main in a printed
module, and running lopt.

    import tvmtests
    ap = argparse.ArgumentParser(); tvmtests.add_args(ap); args = ap.parse_args()
    src = tvmtests.read_test(args, "tests/python/relax/...")
    rc, out, err = tvmtests.lopt(args, "--pass=fold", path)
"""
import os
import re
import subprocess
import textwrap

HEADER = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n# from tvm.script import tir as T\n\n"
HEADER_TIR = "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n"


def add_args(ap, timeout=60, verbose="one line per case"):
    """--git or --root (TVM's sources), DIR (where the modules go), --lopt, --timeout (seconds a
    run of lopt may take), -v."""
    ap.add_argument("--git", help="a bare git directory of apache/tvm")
    ap.add_argument("--root", help="a work tree of apache/tvm")
    ap.add_argument("dir")
    ap.add_argument("--lopt", default="./lopt")
    ap.add_argument("--timeout", type=int, default=timeout)
    ap.add_argument("-v", action="store_true", help=verbose)


def read_test(args, path):
    """The text of TVM's file path (relative to the repository), at HEAD of --git or in --root."""
    if args.git:
        return subprocess.run(["git", "--git-dir", args.git, "show", "HEAD:" + path], capture_output=True,
                              text=True, check=True).stdout
    if not args.root:
        raise SystemExit("give --git or --root")
    with open(os.path.join(args.root, path)) as f:
        return f.read()


def segment(src, node):
    """The dedented text of a decorated class or function of src, decorators included."""
    lines = src.splitlines()
    start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    return textwrap.dedent("\n".join(lines[start - 1:node.end_lineno]))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def write_module(out, name, src, node, header=HEADER):
    """Writes node (an @I.ir_module class, or a function) to out/name.tir with header; its path."""
    return write(os.path.join(out, name + ".tir"), header + segment(src, node) + "\n")


def main_text(text):
    """The text of main in a printed module, up to the next decorated definition."""
    m = re.search(r"^(\s*)def main\(", text, re.M)
    if not m:
        return ""
    rest = text[m.start():]
    nxt = re.search(r"^%s@" % re.escape(m.group(1)), rest[1:], re.M)
    return rest[:nxt.start() + 1] if nxt else rest


def lopt(args, *argv):
    """(exit status, stdout, stderr) of args.lopt ARGV; 124 when it outlasts args.timeout."""
    try:
        r = subprocess.run([args.lopt] + list(argv), capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"
    return r.returncode, r.stdout, r.stderr


def first_error(err, rc):
    """The first error line lopt printed, else its first line, else its exit status."""
    said = [l for l in err.splitlines() if "error:" in l] or err.strip().splitlines() or ["exit %d" % rc]
    return said[0]
