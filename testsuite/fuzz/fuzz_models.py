#!/usr/bin/env python3
"""fuzz_models.py: the model fuzzer.

Generates random valid modules (modelgen.py: every registered operator,
chains, diamonds, values read several times, tuples, several outputs, dead
values, broadcasting, constants and parameters, explicit R.layout_transform
pairs with and without padding, PrimFuncs with layout-rewrite blocks,
float32 and float16) and pushes each through every pipeline users run,
under the sanitizer build with --verify-each --verify-exec:

    hoist,flow,fold
    convert-layout{conv2d=NHWC:HWIO,max_pool2d=NHWC,avg_pool2d=NHWC},flow,fold
    convert-layout{conv2d=NCHW4c:OIHW4o,...=NCHW4c},flow,fold
    convert-layout{conv2d=NHWC4c:OHWI4o,...=NHWC4c},flow,fold
    convert-layout{...NCHW4c...},flow,fold,annotate-scope,realize-vdevice,
        fold-scope-change (texture scopes; read back through legalize)
    legalize
    fold

The output of each pipeline is read back with `--pass=print,flow,fold
--verify-exec -` (one process: the print pass shows the read-back print on
stderr, stdout is one more flow,fold round, itself checked by verify-exec);
for legalize and fold it is read back with no pass.  Outcomes:

    crash            the process died of a signal
    sanitizer        ASan / UBSan / LSan report on stderr
    timeout          no answer in --timeout seconds
    wrong-output     verify-exec: a pass changed an output's values
    wrong-type       verify-exec: a pass changed an output's shape or dtype
                     or their number, or an annotation no longer matches
    broken-module    the pass output fails verify or main no longer runs
    pass-error       a pass stopped with an error on a valid module
    rejected         lopt rejects the generated module itself (a generator
                     bug or a lopt bug: look at it)
    not-read-back    the printed output is not accepted by `lopt -`
    not-stable       `lopt -` on the output does not print the same bytes
    not-fixed-point  (the ...,flow,fold and ...,plan,fold pipelines) flow,fold
                     (plan,fold) again changes it
    excess           more rewrites (R.layout_transform plus call_tir of
                     layout-rewrite PrimFuncs in main) than the best known
                     placement: the minimum over the pipeline, the pipeline
                     plus another flow,fold round, `<first pass>,fold,flow,fold`,
                     and the pipeline on the module with the generator's
                     explicit rewrite pairs removed, each passing verify-exec.
                     An excess, not an error; reported separately.

Outputs are compared bit-exact (--verify-exec), float16 too, in every
module: the passes keep each reduction's order (a sum adds in the order its
axis list names and flow keeps that order when it moves the sum to another
layout; a 4c tile splits the channel loop into two nested loops that visit
the channels in the same order; convert-layout's padded channels add exact
zeros). Until seed 2025399 modules with R.sum, R.mean, softmax or avg_pool2d
compared within 16 units in the last place, since flow renumbered a sum's
axes in the new layout's order and the sum then added in another order.
FUZZ_ULP=N in the environment compares within N units
in the last place instead (for when a pass starts regrouping sums).

Usage:
    make build/lopt-check
    python3 testsuite/fuzz/fuzz_models.py --seconds 60          # a campaign
    python3 testsuite/fuzz/fuzz_models.py --seeds 1:200         # fixed seeds
    python3 testsuite/fuzz/fuzz_models.py --seeds 17 --show     # one module
    python3 testsuite/fuzz/fuzz_models.py --seeds 17 --reduce   # and reduce it
Found failures (first module per distinct symptom, reduced) go to
build/fuzz-found/<class>_<n>.tir, line 1 the command and the symptom.
--check exits 1 when any seed fails (what make check runs); --known
SEED,SEED lists seeds expected to fail (they are run and reported but do
not fail the check).
"""
import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import shutil
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modelgen  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CONV = {
    "nhwc": "NHWC:HWIO", "nchw4c": "NCHW4c:OIHW4o", "nhwc4c": "NHWC4c:OHWI4o",
}


def convert(key):
    data = CONV[key].split(":")[0]
    return "convert-layout{conv2d=%s,max_pool2d=%s,avg_pool2d=%s}" % (CONV[key], data, data)


# name, first pass (the prefix for the fold,flow,fold alternative), the whole pipeline, ends with flow,fold
# (True), or with plan,fold ("plan": plan,fold again must change nothing, as flow,fold again after flow)
CHOOSE = ("choose-layout{conv2d=NCHW:OIHW|NHWC:HWIO|NCHW4c:OIHW4o,max_pool2d=NCHW|NHWC|NCHW4c,"
          "avg_pool2d=NCHW|NHWC|NCHW4c,costs=measure}")

PIPELINES = [
    ("hoist", "hoist", "hoist,flow,fold", True),
    ("nhwc", convert("nhwc"), convert("nhwc") + ",flow,fold", True),
    ("nchw4c", convert("nchw4c"), convert("nchw4c") + ",flow,fold", True),
    ("nhwc4c", convert("nhwc4c"), convert("nhwc4c") + ",flow,fold", True),
    ("texture", convert("nchw4c"), convert("nchw4c") + ",flow,fold,annotate-scope,realize-vdevice,fold-scope-change",
     False),
    ("plan-nhwc", convert("nhwc"), convert("nhwc") + ",plan,fold", "plan"),
    ("plan-nchw4c", convert("nchw4c"), convert("nchw4c") + ",plan,fold", "plan"),
    ("legalize", "legalize", "legalize", False),
    ("fold", "fold", "fold", False),
    # the rest of the README's pipelines: choose-layout (timing the kernels
    # itself, so its choice may differ run to run: no excess is asked of it),
    # the weights' layouts, lowering to flat buffers, normalize
    ("choose", CHOOSE, CHOOSE + ",plan,fold", "plan"),
    ("weight-layout", "weight-layout", "weight-layout,fold", False),
    ("lower", convert("nchw4c"), convert("nchw4c") + ",flow,fold,legalize,flatten", False),
    ("normalize", "normalize", "normalize", False),
]
NO_EXCESS = ("legalize", "texture", "choose", "weight-layout", "lower", "normalize")
PIPE = {p[0]: p for p in PIPELINES}

# LeakSanitizer's exit-time scan costs a third of a small run; leaks are
# looked for in one pipeline run per module (which one follows the seed), so
# a campaign still checks every pipeline for leaks thousands of times.
ENV = dict(os.environ)
ASAN = "abort_on_error=0:exitcode=86:symbolize=1:malloc_context_size=5:detect_stack_use_after_return=0:detect_leaks="
ENV["ASAN_OPTIONS"] = ASAN + "0"
ENV_LEAKS = dict(ENV)
ENV_LEAKS["ASAN_OPTIONS"] = ASAN + "1"
ENV["UBSAN_OPTIONS"] = "print_stacktrace=1:exitcode=87"
ENV["LSAN_OPTIONS"] = "exitcode=86"

ERRORS = ("crash", "sanitizer", "timeout", "wrong-output", "wrong-type", "broken-module", "pass-error",
          "rejected", "not-read-back", "not-stable", "not-fixed-point")


class Ctx:
    lopt = os.path.join(ROOT, "build", "lopt-check")
    recheck = None     # --recheck-lopt: the binary for the read-back runs (default: lopt)
    timeout = 20.0


def run(args, text, timeout=None, leaks=False, recheck=False):
    try:
        p = subprocess.run([Ctx.recheck if recheck and Ctx.recheck else Ctx.lopt] + args, input=text.encode(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout or Ctx.timeout, env=ENV_LEAKS if leaks else ENV)
    except subprocess.TimeoutExpired:
        return None, "", ""
    # --verify-exec's summary line is not part of what the pipelines print
    err = re.sub(r"(?m)^lopt: verify-exec: \d+ pass.*\n", "", p.stderr.decode(errors="replace"))
    return p.returncode, p.stdout.decode(errors="replace"), err


def sanitizer(err):
    return "AddressSanitizer" in err or "LeakSanitizer" in err or "runtime error" in err


def first_error(err):
    for line in err.splitlines():
        if "SUMMARY:" in line or "runtime error" in line:
            return line.strip()
    for line in err.splitlines():
        if "error:" in line:
            return line.strip()
    lines = [l for l in err.splitlines() if l.strip()]
    return lines[0].strip() if lines else ""


def classify_failure(rc, err):
    """The class of a failed lopt run (rc != 0), or None when it passed."""
    if rc is None:
        return "timeout"
    if sanitizer(err):
        return "sanitizer"
    if rc < 0 or rc >= 128:
        return "crash"
    if rc == 0:
        return None
    if "changed the shape or dtype" in err or "changed the number of outputs" in err:
        return "wrong-type"
    if re.search(r"pass '[^']*' changed output", err):
        return "wrong-output"
    if "but its annotation says" in err or "but its value is" in err:
        return "wrong-type"
    if "does not verify after pass" in err:
        if "but its value is" in err:
            return "wrong-type"
        return "broken-module"
    if "no longer runs after pass" in err:
        return "broken-module"
    return "pass-error"


def signature(cls, pipe, err):
    """What two failures must share to count as one: the class, the
    pipeline, the pass named and the message with names and numbers gone."""
    msg = first_error(err)
    if cls == "sanitizer":
        m = re.search(r"([\w/]+\.c):(\d+)", err)
        at = m.group(0) if m else ""
        kind = re.search(r"(runtime error: [a-z -]+|AddressSanitizer: [\w-]+|LeakSanitizer)", err)
        return "%s %s %s" % (cls, kind.group(1) if kind else "", at)
    msg = re.sub(r"^[^ ]*:\d+:\d+: ", "", msg)
    msg = re.sub(r"'[^']*'", lambda m: m.group(0) if m.group(0) in ("'flow'", "'fold'", "'hoist'", "'legalize'",
                                                                      "'convert-layout'") else "'_'", msg)
    msg = re.sub(r"[-\d.e]+|\[[^\]]*\]|output\d*", "#", msg)
    return "%s %s %s" % (cls, pipe, msg)


def main_body(text):
    m = re.search(r"\n    def main\(.*?(?=\n    @|\Z)", text, re.S)
    return m.group(0) if m else ""


REWRITE_FUNC = re.compile(r"^(layout_rewrite|layout_transform|pad_rewrite)\d*$")


def count_rewrites(text):
    body = main_body(text)
    n = body.count("R.layout_transform(")
    for f in re.findall(r"R\.call_tir\(cls\.(\w+)", body):
        if REWRITE_FUNC.match(f):
            n += 1
    return n


class Finding:
    def __init__(self, cls, pipe, cmd, symptom, sig):
        self.cls, self.pipe, self.cmd, self.symptom, self.sig = cls, pipe, cmd, symptom, sig


def verify_flag(ulp):
    return "--verify-exec" if not ulp else "--verify-exec=ulp:%d" % ulp


def check_pipeline(text, name, ulp, clean=None, want_excess=True, leaks=True):
    """Runs one pipeline on a module text; returns a list of Findings."""
    _, first, pipeline, ends = PIPE[name]
    flowfold = ends is True
    vf = verify_flag(ulp)
    cmd = "lopt --pass=%s --verify-each %s" % (pipeline, vf)
    rc, out, err = run(["--pass=" + pipeline, "--verify-each", vf, "-"], text, leaks=leaks)
    if rc != 0:
        cls = classify_failure(rc, err)
        if cls not in ("timeout", "sanitizer", "crash"):
            # is the module itself accepted?
            rc0, _, err0 = run(["--run", "-"], text)
            if rc0 != 0:
                c0 = classify_failure(rc0, err0)
                cls = c0 if c0 in ("timeout", "sanitizer", "crash") else "rejected"
                return [Finding(cls, name, "lopt --run", first_error(err0), signature(cls, "input", err0))]
        return [Finding(cls, name, cmd, first_error(err) or "exit %s" % rc, signature(cls, name, err))]
    found = []
    count = count_rewrites(out)
    alt = []
    # read back with the print pass, then one more pass under verify-exec:
    # flow,fold again after a ...,flow,fold pipeline (it must change nothing),
    # else the other one of legalize and fold (for free)
    then = "flow,fold" if flowfold else "plan,fold" if ends == "plan" else "fold" if name == "legalize" else "legalize"
    rc2, out2, err2 = run(["--pass=print," + then, "--verify-each", vf, "-"], out, recheck=True)
    printed = err2.startswith("@I.ir_module")
    if rc2 is None or sanitizer(err2) or (rc2 != 0 and (rc2 < 0 or rc2 >= 128)):
        cls = classify_failure(rc2, err2)
        found.append(Finding(cls, name, "lopt --pass=%s x.tir | lopt --pass=print,%s %s -" % (pipeline, then, vf),
                             first_error(err2), signature(cls, name + "+again", err2)))
        return found
    if not printed:
        found.append(Finding("not-read-back", name, "lopt --pass=%s x.tir | lopt -" % pipeline,
                             first_error(err2), signature("not-read-back", name, err2)))
        return found
    if err2[:len(out)] != out or (rc2 == 0 and err2 != out):
        found.append(Finding("not-stable", name, "lopt --pass=%s x.tir | lopt -" % pipeline,
                             "the read-back prints different text", "not-stable " + name))
    if rc2 != 0:
        cls = classify_failure(rc2, err2)
        found.append(Finding(cls, name + "+" + then, "lopt --pass=%s,%s --verify-each %s" % (pipeline, then, vf),
                             first_error(err2), signature(cls, name + "+" + then, err2)))
    elif (flowfold or ends == "plan") and out2 != out:
        found.append(Finding("not-fixed-point", name, "lopt --pass=%s x.tir | lopt --pass=%s -"
                             % (pipeline, then), "%s changes the output again (%d -> %d rewrites)"
                             % (then, count, count_rewrites(out2)), "not-fixed-point " + name))
        alt.append(("+" + then, count_rewrites(out2)))
    if want_excess and count > 0 and (flowfold or clean is not None) and name not in NO_EXCESS:
        best, how = count, None
        for a, c in alt:
            if c < best:
                best, how = c, a
        tries = []
        if flowfold and best > 0:
            tries.append(("%s,fold,flow,fold" % first, text))
        if clean is not None and best > 0:
            tries.append((pipeline + " on the module without its explicit pairs", clean))
        for label, src in tries:
            p = label if src is text else pipeline
            rc3, out3, _ = run(["--pass=" + p, vf, "-"], src, recheck=True)
            if rc3 == 0:
                c = count_rewrites(out3)
                if c < best:
                    best, how = c, label
            if best == 0:
                break
        if best < count:
            found.append(Finding("excess", name, "lopt --pass=%s %s" % (pipeline, vf),
                                 "%d rewrites left, %d with %s" % (count, best, how), "excess %s %s" % (name, how)))
    return found


def pipelines_for(m, seed):
    """Every pipeline; a module without conv2d or pools gets one
    convert-layout variant (the three do the same there), chosen by seed."""
    names = [p[0] for p in PIPELINES]
    if not modelgen.features(m)["conv"]:
        # without conv2d or pools convert-layout has nothing to convert: its
        # pipelines are hoist,flow,fold without hoist; run one in three
        keep = ("nhwc", "nchw4c", "nhwc4c", None, None, None, None, None, None)[seed % 9]
        names = [n for n in names if n not in ("nhwc", "nchw4c", "nhwc4c") or n == keep]
    return names


def module_ulp(m, name):
    """The --verify-exec tolerance: bit-exact unless FUZZ_ULP says otherwise."""
    return int(os.environ.get("FUZZ_ULP", "0"))


def check_seed(seed, only=None):
    """Generates the module of a seed and runs every pipeline: (seed, findings, pipelines run)."""
    try:
        m = modelgen.generate(seed)
        text = m.text()
    except Exception as e:  # a generator bug
        return seed, [Finding("generator", "-", "modelgen", repr(e), "generator " + type(e).__name__)], 0
    cm = m.rewrites_known()
    clean = cm.text() if cm is not None else None
    found = []
    names = pipelines_for(m, seed) if not only else [only]
    # the alternatives for excess cost runs: one convert-layout pipeline per
    # module (chosen by seed) looks for them, the others do not
    conv = [n for n in names if n in CONV]
    for i, name in enumerate(names):
        found += check_pipeline(text, name, module_ulp(m, name), clean, leaks=i == seed % len(names),
                                want_excess=name not in CONV or name == conv[seed % len(conv)])
    return seed, found, len(names)


# ---- reduction -------------------------------------------------------------

def key_of(f):
    m = re.search(r"pass '([^']*)'", f.symptom)
    return (f.cls, f.pipe.split("+")[0], m.group(1) if m else None, f.pipe.endswith("+flow,fold"))


def reduce_module(m, finding, log=None):
    """Greedy reduction keeping the failure's class, pipeline and pass."""
    import reduce_model
    want = key_of(finding)
    name = finding.pipe.split("+")[0]

    def fails(cand):
        try:
            cand.check()
            text = cand.text()
        except modelgen.Invalid:
            return False
        cm = cand.rewrites_known()
        fs = check_pipeline(text, name, cand.ulp or module_ulp(cand, name), cm.text() if cm else None,
                            want_excess=finding.cls == "excess")
        return any(key_of(f) == want for f in fs)

    r = reduce_model.reduce(m, fails, log=log)
    cm = r.rewrites_known()
    fs = check_pipeline(r.text(), name, r.ulp or module_ulp(r, name), cm.text() if cm else None,
                        want_excess=finding.cls == "excess")
    return r, next((f for f in fs if key_of(f) == want), finding)


def write_found(outdir, m, finding, counters):
    os.makedirs(outdir, exist_ok=True)
    n = counters.get(finding.cls, 0) + 1
    while os.path.exists(os.path.join(outdir, "%s_%d.tir" % (finding.cls, n))):
        n += 1
    counters[finding.cls] = n
    path = os.path.join(outdir, "%s_%d.tir" % (finding.cls, n))
    with open(path, "w") as f:
        cmd = finding.cmd if "x.tir" in finding.cmd else finding.cmd + " x.tir"
        f.write("# %s -> %s\n" % (cmd, finding.symptom.replace("\n", " ")))
        f.write(m.text())
    return path


# ---- the campaign ----------------------------------------------------------

# make check's slice: seeds 1..150 of the generator, every one of which
# passes every pipeline (24 of them failed when the fuzzer was written; their
# causes are fixed, each with a regression test under testsuite/passes/).
# About 150 modules, 30 s on two cores. A seed that fails for a known, open
# cause goes in CHECK_FAILING with that cause.
CHECK_FAILING = set()
CHECK_SEEDS = [s for s in range(1, 151) if s not in CHECK_FAILING]

def parse_seeds(s):
    out = []
    for part in s.split(","):
        if ":" in part:
            a, b = part.split(":")
            out += range(int(a), int(b))
        elif part:
            out.append(int(part))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lopt", default=Ctx.lopt)
    ap.add_argument("--recheck-lopt", default=None,
                    help="a faster binary (./lopt) for the read-back, fixed-point and excess runs; the "
                         "pipelines themselves still run under --lopt")
    ap.add_argument("--seconds", type=float, default=0, help="run random seeds for this long")
    ap.add_argument("--seeds", default="", help="A:B (B excluded) or S,S,...")
    ap.add_argument("--start", type=int, default=None, help="first seed of a campaign (default: from the time)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz-found"))
    ap.add_argument("--reduce", action="store_true", help="reduce the first module of each distinct failure")
    ap.add_argument("--no-excess", action="store_true", help="do not report excess rewrites")
    ap.add_argument("--show", action="store_true", help="print the modules of --seeds")
    ap.add_argument("--pipeline", default=None, choices=[p[0] for p in PIPELINES],
                    help="run only this pipeline (hoist, nhwc, nchw4c, nhwc4c, texture, legalize, fold)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a seed not in --known fails")
    ap.add_argument("--known", default="", help="seeds expected to fail")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--check-slice", action="store_true",
                    help="make check: the fixed seeds of CHECK_SEEDS, --check, no excess, progress")
    a = ap.parse_args()
    Ctx.lopt = os.path.abspath(a.lopt)
    Ctx.timeout = a.timeout
    Ctx.recheck = os.path.abspath(a.recheck_lopt) if a.recheck_lopt else None
    # others rebuild build/lopt-check while a campaign runs: run a private copy
    tmpdir = tempfile.mkdtemp(prefix="fuzz-models-")
    for attr in ("lopt", "recheck"):
        src = getattr(Ctx, attr)
        if src:
            dst = os.path.join(tmpdir, attr)
            shutil.copy2(src, dst)
            setattr(Ctx, attr, dst)
    if not os.access(Ctx.lopt, os.X_OK):
        sys.exit("fuzz_models: %s is not built (make build/lopt-check)" % Ctx.lopt)
    if a.show:
        for s in parse_seeds(a.seeds):
            print("# seed %d" % s)
            sys.stdout.write(modelgen.generate(s).text())
        shutil.rmtree(tmpdir, ignore_errors=True)
        return 0
    if a.check_slice:
        a.seeds = ",".join(map(str, CHECK_SEEDS))
        a.check = a.no_excess = True
        a.progress = 25
    else:
        a.progress = 0
    known = set(parse_seeds(a.known))
    if a.seeds:
        seeds = parse_seeds(a.seeds)
        deadline = None
    else:
        start = a.start if a.start is not None else int(time.time()) % 1000000 * 1000
        seeds = iter(range(start, start + 10 ** 9))
        deadline = time.time() + (a.seconds or 60)
    t0 = time.time()
    seen = {}          # signature -> (finding, seed)
    by_class = {}
    failed_seeds = []
    nmod = nrun = 0
    pool = multiprocessing.Pool(a.jobs, initializer=_init, initargs=(Ctx.lopt, Ctx.timeout, Ctx.recheck, a.pipeline)) if a.jobs > 1 else None
    try:
        if pool:
            # a bounded window of outstanding seeds: the pool's feeder would
            # otherwise queue seeds far past the deadline
            def windowed():
                pending = []
                src = iter(seeds)
                while True:
                    while len(pending) < 2 * a.jobs and not (deadline and time.time() > deadline):
                        s = next(src, None)
                        if s is None:
                            break
                        pending.append(pool.apply_async(_check, (s,)))
                    if not pending:
                        return
                    r = pending.pop(0)
                    yield r.get()
            it = windowed()
        else:
            it = (check_seed(s, a.pipeline) for s in seeds if not (deadline and time.time() > deadline))
        last = time.time()
        for seed, found, npipe in it:
            nmod += 1
            nrun += npipe
            errs = [f for f in found if f.cls != "excess" or not a.no_excess]
            if any(f.cls != "excess" for f in errs):
                failed_seeds.append(seed)
            for f in errs:
                by_class[f.cls] = by_class.get(f.cls, 0) + 1
                if f.sig not in seen:
                    seen[f.sig] = (f, seed)
                    if not a.quiet:
                        print("new: seed %d %s [%s] %s" % (seed, f.cls, f.pipe, f.symptom), flush=True)
            # make check's progress: a line every a.progress modules or five seconds
            if a.progress and (nmod % a.progress == 0 or time.time() - last > 5):
                last = time.time()
                print("fuzz-models: %d/%d modules, %d failing" % (nmod, len(seeds), len(failed_seeds)), flush=True)
            if not a.quiet and not a.progress and time.time() - last > 10:
                last = time.time()
                el = last - t0
                print("... %d modules, %.1f/s, %d distinct failures" % (nmod, nmod / el, len(seen)), flush=True)
    finally:
        if pool:
            pool.terminate()
    el = time.time() - t0
    print("%d modules (%d pipeline runs) in %.1fs: %.1f modules/s; %d distinct failures" %
          (nmod, nrun, el, nmod / max(el, 1e-9), len(seen)))
    for c in sorted(by_class):
        print("  %-16s %d" % (c, by_class[c]))
    if failed_seeds:
        print("failing seeds: %s" % ",".join(str(s) for s in sorted(failed_seeds)))
    counters = {}
    for sig, (f, seed) in sorted(seen.items()):
        line = "  %s [%s] seed %d: %s" % (f.cls, f.pipe, seed, f.symptom)
        if a.reduce:
            m = modelgen.generate(seed)
            try:
                r, f2 = reduce_module(m, f)
            except Exception as e:  # keep going: report the unreduced module
                print("  (reduction failed: %r)" % e)
                r, f2 = m, f
            path = write_found(a.out, r, f2, counters)
            line += "\n      -> %s" % os.path.relpath(path, os.getcwd())
        print(line, flush=True)
    shutil.rmtree(tmpdir, ignore_errors=True)
    if a.check:
        bad = [s for s in failed_seeds if s not in known]
        if bad:
            print("FAIL: seeds %s fail (not in the known list)" % ",".join(map(str, sorted(bad))))
            return 1
        fixed = sorted(known - set(failed_seeds))
        if fixed and a.seeds:
            print("note: known-failing seeds now pass: %s" % ",".join(map(str, fixed)))
    return 0


_only = None


def _init(lopt, timeout, recheck, only):
    global _only
    Ctx.lopt = lopt
    Ctx.timeout = timeout
    Ctx.recheck = recheck
    _only = only


def _check(seed):
    return check_seed(seed, _only)


if __name__ == "__main__":
    sys.exit(main())
