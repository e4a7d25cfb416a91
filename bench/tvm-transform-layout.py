#!/usr/bin/env python3
"""lopt's transform-layout, transform-block-layout and flatten against TVM's
schedule primitives and FlattenBuffer, case by case, on TVM's
tests/python/s_tir/schedule/test_tir_schedule_transform_layout.py and
tests/python/tirx/transform/test_transform_flatten_buffer.py (51 cases, each
parametrization one).

Each case below names the test's function (or class) before the change, the
lopt pass that does what the test's schedule call does, and TVM's expected
function, or "error" where TVM raises, or None where the test states no
module (then lopt must run the pass and keep the outputs). The modules are
written (outside the repository) to DIR/<case>.before.tir and
.expected.tir; lopt runs the pass, and the transformed PrimFunc's buffer
shapes (their values with every shape variable at 7, so that two spellings
of one extent agree) and accesses (each NAME[...] with its indices, buffers
named by their order of declaration, every other name alike) are compared
with the expected function's: equal is a match. Both then run
(--run --entry=F --seed 1) and their outputs are compared, where both run
(a function that writes only its own allocations shows nothing). An error
case matches when lopt refuses with an error; a case without a stated
module when lopt runs the pass. Both block variants of a test
(block_obj, block_name) are one lopt command, counted twice as TVM counts
them.

    python3 bench/tvm-transform-layout.py --git /path/to/tvm.git DIR [--lopt ./lopt] [-v]
"""
import argparse
import ast
import collections
import os
import re
import sys

import tvmtests
from tvmtests import HEADER_TIR as HEADER, first_error, lopt

TL = "tests/python/s_tir/schedule/test_tir_schedule_transform_layout.py"
FB = "tests/python/tirx/transform/test_transform_flatten_buffer.py"
PACKED = "lambda m, n: (m // 16, n // 16, m % 16, n % 16)"


def tl(buffer, imap, **kw):
    opts = ["buffer=%s" % buffer, 'map="%s"' % imap] + ['%s=%s' % (k.replace("_", "-"), v) for k, v in kw.items()]
    return "transform-layout{func=%s," + ",".join(opts) + "}"


def tbl(block, imap):
    return 'transform-block-layout{func=%s,block=' + block + ',map="' + imap + '"}'


# (case, file, test, before, pass, expected, substitutions); before/expected name a function
# of the test or of the file, or Class.function
CASES = []
for v in ("block_obj", "block_name"):
    CASES += [
        ("two_elementwise_transform_intermediate_buffer[%s]" % v, TL, None, "two_elementwise", tl("B", PACKED),
         "two_elementwise_transformed_intermediate_buffer", {}),
        ("two_elementwise_transform_input_buffer[%s]" % v, TL, None, "two_elementwise", tl("A", PACKED),
         "two_elementwise_transformed_input_buffer", {}),
        ("two_elementwise_transform_output_buffer[%s]" % v, TL, None, "two_elementwise", tl("C", PACKED),
         "two_elementwise_transformed_output_buffer", {}),
        ("two_elementwise_unit_dim[%s]" % v, TL, None, "two_elementwise_unit_dim", tl("B", "lambda i, j: (i, j)"),
         "two_elementwise_unit_dim", {}),
        ("transform_block_layout_basic[%s]" % v, TL, None, "elementwise", tbl("B", "lambda i, j: (i * 128 + j,)"),
         "elementwise_transformed", {}),
        ("transform_block_layout_conv2d_nhwc[%s]" % v, TL, None, "conv2d_nhwc",
         tbl("conv2d_nhwc", "lambda n, h, w, co, rh, rw, rc: (n * 112 * 112 + h * 112 + w, co, rh * 7 * 3 + rw * 3 + rc)"),
         "conv2d_nhwc_transformed", {}),
        ("transform_block_layout_unit_dim[%s]" % v, TL, "test_transform_block_layout_unit_dim",
         "two_elementwise_unit_dim", tbl("B", "lambda i, j: (j, i)"), "two_elementwise_unit_dim_transformed", {}),
        ("transform_block_layout_fail_non_affine[%s]" % v, TL, None, "elementwise", tbl("B", "lambda i, j: (i + j,)"),
         "error", {}),
        ("transform_block_layout_fail_mixed_iter_type[%s]" % v, TL, None, "conv2d_nhwc",
         tbl("conv2d_nhwc", "lambda n, h, w, co, rh, rw, rc: (n * 112 * 112 + h * 112 + w, co * 7 + rh, rw * 3 + rc)"),
         "error", {}),
        ("transform_block_layout_int64_extent[%s]" % v, TL, "test_transform_block_layout_int64_extent",
         "elementwise_int64_extent", tbl("B", "lambda i, j: (i * 128 + j,)"), "elementwise_int64_extent_transformed", {}),
    ]
CASES += [
    ("transform_layout_with_sampling", TL, None, "two_elementwise", tl("B", "lambda i, j: (i, j // 32, j % 32)"), None, {}),
    ("simplify", TL, "test_simplify", "two_elementwise", None, "ref", {}),
    ("var_args_sugar", TL, "test_var_args_sugar", "summation_3d", tl("A", "lambda i, j, k: (i, j, k // 4, k % 4)"),
     "summation_3d_split", {}),
]
for pv in ("None", "42"):
    extra = {} if pv == "None" else {"pad_value": pv}
    for t in ("no_padding", "no_padding_multiple_usage", "no_padding_opaque_block"):
        CASES.append(("%s[%s]" % (t, pv), TL, "test_" + t, "Before.main", tl("A", "lambda i: (i // 4, i % 4)", **extra),
                      "Expected.main", {}))
Q = "lambda i: (i // 4, i % 4)"
CASES += [
    ("error_if_padding_forbidden", TL, "test_error_if_padding_forbidden", "Before.main", tl("A", Q), "error", {}),
    ("implicit_padding_assume_injective", TL, "test_implicit_padding_assume_injective", "Before.main",
     tl("A", Q, assume_injective=1), "Expected.main", {}),
    ("error_on_wrong_padding_type", TL, "test_error_on_wrong_padding_type", "Before.main",
     tl("A", Q, pad_value="T.int8(0)"), "error", {}),
    ("error_on_non_matching_types", TL, "test_error_on_non_matching_types", "Before.main",
     tl("A", Q, pad_value="T.int32(0)"), "error", {}),
]
for dt in ("int32", "int8"):
    CASES.append(("padded_transform_if_then_else[%s]" % dt, TL, "test_padded_transform_if_then_else", "before_func",
                  tl("B", Q, pad_value=0), "expected_func", {"dtype": '"%s"' % dt, "pad_value_imm": "0"}))
CASES += [
    ("padded_transform_without_loop", TL, "test_padded_transform_without_loop", "Before.main", tl("A", Q, pad_value=0),
     "Expected.main", {}),
    ("padded_transform_if_then_else_reduction", TL, "test_padded_transform_if_then_else_reduction", "Before.main",
     tl("B", Q, pad_value=0), "Expected.main", {}),
    ("padded_transform_if_then_else_reduction_opaque", TL, "test_padded_transform_if_then_else_reduction_opaque",
     "Before.main", tl("B", Q, pad_value=0), "Expected.main", {}),
    ("padded_transform_post_proc_if_required_due_to_side_effects", TL,
     "test_padded_transform_post_proc_if_required_due_to_side_effects", "Before.main", tl("B", Q, pad_value=0),
     "Expected.main", {}),
    ("padded_transform_of_input_creates_assumption", TL, "test_padded_transform_of_input_creates_assumption",
     "Before.main", tl("A", Q, pad_value=42), "Expected.main", {}),
    ("padded_transform_non_constant_value", TL, "test_padded_transform_non_constant_value", "Before.main",
     tl("B", Q, pad_value='"lambda i, j: i + j"'), "Expected.main", {}),
    ("padded_transform_repeated_buffer_element", TL, "test_padded_transform_repeated_buffer_element", "Before.main",
     tl("A", Q, pad_value='"lambda i, j: A[(4 * i + j) % 14]"'), "Expected.main", {}),
    ("pad_value_may_not_reference_other_buffer", TL, "test_pad_value_may_not_reference_other_buffer", "Before.main",
     tl("A", Q, pad_value='"lambda i, j: other[0]"'), "error", {}),
    ("transform_layout_with_var", TL, "test_transform_layout_with_var", "Before.main",
     tl("B", "lambda i: (i // n, i % n)", pad_value=0), "Expected.main", {}),
    ("index_map_dtype_legalize", TL, "test_index_map_dtype_legalize", "func", tl("A", "lambda h: (h // 8, h % 8)", pad_value=0),
     None, {}),
    ("index_map_dtype_legalize_with_constant", TL, "test_index_map_dtype_legalize_with_constant", "func",
     tl("A", "lambda i: (0, (i + 1) // 8, (i + 1) % 8)", pad_value=0), None, {}),
    ("transform_layout_with_symbolic_bound", TL, "test_transform_layout_with_symbolic_bound", "before",
     tl("C", "lambda x, y, z, w: (x * 32 * n + y * n + z * n + w,)", assume_injective=1), "after", {}),
    ("transform_block_layout_with_symbolic_bound", TL, "test_transform_block_layout_with_symbolic_bound", "before",
     tbl("NT_matmul", "lambda x, y, z, w, k: (x * 32 * n + y * n + z * n + w, k)"), "after", {}),
    ("flatten_remaps_loads_in_view_shape", FB, "test_flatten_remaps_loads_in_view_shape", "before", "flatten", None, {}),
    ("flatten_remaps_loads_in_folded_elem_offset", FB, "test_flatten_remaps_loads_in_folded_elem_offset", "before",
     "flatten", None, {}),
    ("flatten_keeps_identity_of_already_flat_buffers", FB, "test_flatten_keeps_identity_of_already_flat_buffers",
     "before", "flatten", None, {}),
]


def find(tree, test, name):
    """The ast node of name (a function, or Class.function) inside test, else at the file's top."""
    scopes = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == test] if test else []
    cls, _, fn = name.rpartition(".")
    for scope in scopes + [tree]:
        for node in ast.walk(scope):
            if cls and isinstance(node, ast.ClassDef) and node.name == cls:
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == fn:
                        return item
            if not cls and isinstance(node, ast.FunctionDef) and node.name == fn and node.decorator_list:
                return node
    return None


def func_text(src, node, subst):
    text = tvmtests.segment(src, node)
    for k, v in subst.items():
        text = re.sub(r"\b%s\b(?!=)" % k, v, text)
    return text


ACCESS = re.compile(r"\b([A-Za-z_]\w*)\[")
WORD = re.compile(r"\b[A-Za-z_]\w*\b")
KEEP = {"T", "int32", "int64", "float32", "float16", "int8", "uint64", "and", "or", "not", "dtype"}


def bracket(text, i):
    depth = 0
    for j in range(i, len(text)):
        depth += text[j] == "["
        depth -= text[j] == "]"
        if depth == 0:
            return j
    return len(text)


def norm_expr(e):
    e = re.sub(r"T\.int(32|64)\((-?\d+)\)", r"\2", e)
    e = re.sub(r"T\.(floordiv|floormod)\(([^(),]+), ([^(),]+)\)", lambda m: "%s %s %s" % (
        m.group(2), "//" if m.group(1) == "floordiv" else "%", m.group(3)), e)
    return re.sub(r"[\s()]", "", e)


class Seven(dict):
    def __missing__(self, key):
        return 7


def signature(text):
    """Buffer shapes and accesses of a printed PrimFunc: buffers named by their order of
    declaration, every other name (iterators, loop variables) the same."""
    names = {}
    for m in re.finditer(r"\b(\w+)\s*(:\s*T\.Buffer|=\s*T\.(\w*alloc\w*|decl_buffer|match_buffer))", text):
        names.setdefault(m.group(1), "b%d" % len(names))

    def canon(e):
        return WORD.sub(lambda m: names.get(m.group(0), m.group(0) if m.group(0) in KEEP else "v"), e)
    shapes, accesses = [], []
    for m in re.finditer(r"(T\.Buffer|alloc_buffer|decl_buffer|match_buffer|alloc_local)\(\s*(\w+,\s*)?(\((?:[^()]|\([^()]*\))*\)|\[[^\]]*\]|[\w.()]+)", text):
        e = m.group(3)
        if e.startswith("["):
            e = "(" + e[1:-1] + ",)"
        elif not e.startswith("("):
            e = "(" + e + ",)"
        try:
            shapes.append(str(eval(re.sub(r"T\.int(32|64)\((-?\d+)\)", r"\2", e), {"__builtins__": {}}, Seven())))
        except Exception:
            shapes.append(norm_expr(e))
    body = re.sub(r"T\.(reads|writes)\(.*\)", "", text)
    for m in ACCESS.finditer(body):
        if m.group(1) in ("T", "R"):
            continue
        end = bracket(body, m.end() - 1)
        accesses.append(canon(m.group(1) + "[" + norm_expr(body[m.end():end]) + "]"))
    return shapes, sorted(accesses)


def main():
    ap = argparse.ArgumentParser()
    tvmtests.add_args(ap, timeout=120)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    srcs = {f: tvmtests.read_test(args, f) for f in (TL, FB)}
    trees = {f: ast.parse(s) for f, s in srcs.items()}
    tally = collections.Counter()
    for case, f, test, before, pipe, expected, subst in CASES:
        src, tree = srcs[f], trees[f]
        node = find(tree, test, before)
        fname = node.name
        bpath = os.path.join(args.dir, case + ".before.tir")
        tvmtests.write(bpath, HEADER + func_text(src, node, subst) + "\n")
        if pipe is None:
            tally["no lopt pass"] += 1
            if args.v:
                print("%-14s %s: split, reorder, blockize and cache_read first" % ("no lopt pass", case))
            continue
        pipe = pipe.replace("func=%s", "func=" + fname)
        rc, out, err = lopt(args, "--pass=" + pipe, bpath)
        detail = ""
        if expected == "error":
            verdict = "match" if rc == 1 else "differ"
            detail = first_error(err, rc) if rc else "lopt transforms it"
        elif rc:
            verdict, detail = "lopt fails", first_error(err, rc)
        elif expected is None:
            verdict, detail = "match", "the test states no module; lopt runs the pass"
        else:
            enode = find(tree, test, expected)
            epath = os.path.join(args.dir, case + ".expected.tir")
            etext = func_text(src, enode, subst)
            etext = re.sub(r"def %s\(" % enode.name, "def %s(" % fname, etext, count=1)
            tvmtests.write(epath, HEADER + etext + "\n")
            erc, eout, eerr = lopt(args, epath)
            if erc:
                verdict, detail = "expected unread", first_error(eerr, erc)
            else:
                mine, theirs = signature(out), signature(eout)
                verdict = "match" if mine == theirs else "differ"
                if mine != theirs:
                    detail += "shapes %s vs %s; accesses only lopt %s, only TVM %s" % (
                        mine[0], theirs[0], sorted(set(mine[1]) - set(theirs[1]))[:4],
                        sorted(set(theirs[1]) - set(mine[1]))[:4])
                lpath = os.path.join(args.dir, case + ".lopt.tir")
                tvmtests.write(lpath, out)
                r1 = lopt(args, "--run", "--seed", "1", "--entry=" + fname, lpath)
                r2 = lopt(args, "--run", "--seed", "1", "--entry=" + fname, epath)
                if r1[0] or r2[0]:
                    # a function that writes only its own allocations shows nothing; a T.assume the seed breaks
                    tally["outputs not compared"] += 1
                    detail += "; not run: %s" % first_error(r1[2] or r2[2], r1[0] or r2[0])
                elif r1[1] != r2[1]:
                    tally["outputs differ"] += 1
                    detail += "; outputs differ"
                else:
                    tally["outputs equal"] += 1
        tally[verdict] += 1
        if args.v:
            print("%-14s %s: %s" % (verdict, case, detail))
    total = sum(v for k, v in tally.items() if not k.startswith("outputs"))
    print("transform-layout / transform-block-layout / flatten against TVM: %d cases: %s" % (
        total, ", ".join("%s %d" % (k, v) for k, v in sorted(tally.items()))))


if __name__ == "__main__":
    sys.exit(main())
