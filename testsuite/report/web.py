#!/usr/bin/env python3
"""The playground (make web) in headless Chromium (make check-browser): the
page build/web/index.html opened from file:// with a fragment naming an
example and a pipeline runs it on load, and its #output must be what the
command line prints for the same module and pipeline; a module with an
error, given in the fragment, must show the diagnostic on its line.
Python's standard library only.
Usage: web.py LOPT WEBDIR OUTDIR [CHROMIUM]"""
import html
import os
import re
import shutil
import subprocess
import sys
import urllib.parse

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOPT, WEB, OUT = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
failures, passed = [], [0]


def check(cond, what):
    if cond:
        passed[0] += 1
    else:
        failures.append(what)
    return cond


def find_chromium():
    for name in (sys.argv[4] if len(sys.argv) > 4 else None, "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def dom(fragment):
    """The page's DOM after its script ran, loaded from file:// with fragment."""
    url = "file://" + os.path.join(WEB, "index.html") + "#" + fragment
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + os.path.join(OUT, "profile"),
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=60000", "--run-all-compositor-stages-before-draw",
            "--dump-dom", url]
    # virtual time may run out before a loaded machine compiled the
    # WebAssembly: a page that has not run yet (no data-run) is loaded again
    for _ in range(3):
        page = subprocess.run(args, capture_output=True, text=True, timeout=300).stdout
        if "data-run=" in page:
            break
    return page


def pane(page, id_):
    m = re.search(r'<pre id="%s"[^>]*>(.*?)</pre>' % id_, page, re.S)
    return html.unescape(m.group(1)) if m else None


CHROMIUM = find_chromium()
if not CHROMIUM:
    sys.exit("web.py: no chromium found")
os.makedirs(OUT, exist_ok=True)

# an example and a pipeline, as a link names them
CASES = [("conv_add_conv_nchwc", "hoist,flow,fold"),
         ("conv_relu_conv_nhwc", "convert-layout{conv2d=NCHW:OIHW},flow,fold"),
         ("texture_axis_separator", 'transform-layout{func=relu,buffer=B,map="lambda n, h, w, c: '
                                    '(n, c // 4, h, T.axis_separator(), w, c % 4)"},flatten'),
         ("matmul_layout_rewrite", "hoist, flow, fold")]
for example, pipeline in CASES:
    path = os.path.join(TOP, "examples", example + ".tir")
    want = subprocess.run([LOPT, "--pass=" + pipeline, path], capture_output=True, text=True).stdout
    page = dom("example=" + example + "&pass=" + urllib.parse.quote(pipeline, safe=""))
    got = pane(page, "output")
    for box in ("graph-before", "graph-after"):
        check(re.search(r'<div id="%s" class="graph"><svg' % box, page),
              "%s: #%s holds no graph laid out by Graphviz" % (example, box))
    if not check(got == want, "%s --pass=%s: #output differs from the command line's" % (example, pipeline)):
        with open(os.path.join(OUT, example + ".web.txt"), "w") as f:
            f.write(got or "(no #output)\n")
        with open(os.path.join(OUT, example + ".dom.html"), "w") as f:
            f.write(page)

# the per-pass diffs: what --print-changed prints, one section a pass
pipeline = "hoist,flow,fold"
want = subprocess.run([LOPT, "--print-changed", "--pass=" + pipeline, os.path.join(TOP, "examples", "conv_add_conv_nchwc.tir")],
                      capture_output=True, text=True).stderr
page = dom("example=conv_add_conv_nchwc&pass=" + pipeline + "&pane=changed")
got = re.search(r'<pre id="changed" class="pane">(.*?)</pre>', page, re.S)
got = html.unescape(re.sub(r"<[^>]+>", "", got.group(1))) if got else None
check(got is not None and got.rstrip("\n") == want.rstrip("\n"),
      "the diffs pane differs from --print-changed")

# a module of its own, with an error on line 5: the diagnostic the command
# line prints, listed under the editor and marked on the editor's line 5
BAD = ('@I.ir_module\nclass Module:\n    @R.function\n'
       '    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):\n'
       '        y = R.bogus_op(x)\n        return y\n')
bad_path = os.path.join(OUT, "bad.tir")
with open(bad_path, "w") as f:
    f.write(BAD)
err = subprocess.run([LOPT, bad_path], capture_output=True, text=True).stderr.splitlines()[0]
message = err.split(": error: ", 1)[1]
page = dom("module=" + urllib.parse.quote(BAD, safe="") + "&pass=hoist")
check(pane(page, "output") == "", "the module with an error: #output is not empty")
m = re.search(r'<li class="error" data-line="(\d+)">(.*?)</li>', page)
check(m and m.group(1) == "5" and html.unescape(m.group(2)) == "line 5:13: error: " + message,
      "the module with an error: no diagnostic 'line 5:13: error: %s' under the editor" % message)
g = re.search(r'<pre id="gutter"[^>]*>(.*?)</pre>', page, re.S)
check(g and re.search(r'<span class="bad" title="error: [^"]*">5</span>', g.group(1)),
      "the module with an error: line 5 not marked in the editor's gutter")
# a pipeline that does not read: its diagnostic, on no line
page = dom("example=conv_add_conv_nchwc&pass=hoist,bogus")
check("error: unknown pass &#39;bogus&#39;" in page or "error: unknown pass 'bogus'" in page,
      "an unknown pass: no diagnostic")

print("web.py: %d passed, %d failed" % (passed[0], len(failures)))
for f in failures:
    print("  FAIL " + f)
sys.exit(1 if failures else 0)
