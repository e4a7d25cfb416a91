#!/usr/bin/env python3
"""The invariants of lopt's HTML report (--report=FILE.html), checked on
testsuite/report/strings.tir and on generated chains (Python's standard
library only; make check runs it, no browser needed):
- every pass of the pipeline has its section and its row in the summary;
- each module view holds exactly the module lopt prints after that pass (the
  kept and added lines, in order), and the removed lines are those of the
  module before;
- the strings of the module (attributes holding </script>, <img onerror=...>,
  quotes) show as text: no element or attribute comes from the module;
- nothing is loaded from outside the file: no src, no external href, no url(),
  and a Content-Security-Policy that forbids it;
- every --explain line of a pass is in its section, each link reaches an
  element that prints the binding it names, and each binding's count of
  explanations is the number of lines that name it;
- the graphs are SVG when Graphviz runs, and when it cannot (LOPT_DOT names
  no program) the page says so and keeps the rest;
- a pass that fails (--verify-exec) is marked and its error shown;
- the file grows linearly with the module.
Usage: check_report.py LOPT"""
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STRINGS = os.path.join(TOP, "testsuite", "report", "strings.tir")
failures = []


def check(cond, what):
    if not cond and len(failures) < 30:
        failures.append(what)
    return cond


class Page(html.parser.HTMLParser):
    """The elements of a report: ids, links, sections, module lines, notes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.tags = []            # (tag, attrs) of every start tag
        self.ids = {}             # id -> attrs
        self.section = None
        self.lines = {}           # section id -> [(class, data-b, text)]
        self.notes = {}           # section id -> [(data-b, href, text)]
        self.line = None          # [class, data-b, parts] of the .l being read
        self.skip = 0             # depth inside a line's number, count or button
        self.note = None
        self.svgs = 0
        self.style = ""
        self.script = ""
        self.in_style = self.in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            check(a["id"] not in self.ids, "duplicate id %r" % a["id"])
            self.ids[a["id"]] = a
        cls = (a.get("class") or "").split()
        if tag == "section":
            self.section = a.get("id")
        if tag == "svg":
            self.svgs += 1
        self.in_style |= tag == "style"
        self.in_script |= tag == "script"
        if tag == "div" and "l" in cls:
            self.line = [" ".join(cls), a.get("data-b"), []]
        elif self.line is not None and (self.skip or "n" in cls or "k" in cls or tag == "button"):
            self.skip += 1
        if tag == "div" and "x" in cls:
            self.note = [a.get("data-b"), None, []]
        if tag == "a" and self.note is not None:
            self.note[1] = a.get("href")
        if tag not in ("meta", "input", "br"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        if tag == "style":
            self.in_style = False
        if tag == "script":
            self.in_script = False
        if self.line is not None:
            if self.skip:
                self.skip -= 1
            elif tag == "div":
                self.lines.setdefault(self.section, []).append((self.line[0], self.line[1], "".join(self.line[2])))
                self.line = None
        if tag == "div" and self.note is not None:
            self.notes.setdefault(self.section, []).append((self.note[0], self.note[1], "".join(self.note[2])))
            self.note = None
        if tag == "section":
            self.section = None

    def handle_data(self, data):
        if self.in_style:
            self.style += data
        if self.in_script:
            self.script += data
        if self.line is not None and not self.skip:
            self.line[2].append(data)
        if self.note is not None:
            self.note[2].append(data)


def lopt(args, env=None, check_rc=0):
    r = subprocess.run([LOPT] + args, capture_output=True, text=True, env=env)
    check(check_rc is None or r.returncode == check_rc,
          "lopt %s: exit %d, expected %s\n%s" % (" ".join(args), r.returncode, check_rc, r.stderr[-2000:]))
    return r


def report(args, path, env=None, rc=0):
    r = lopt(args + ["--report=" + path], env, rc)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = Page()
    p.feed(text)
    p.close()
    return r, text, p


def self_contained(text, p, name):
    """Nothing in the page reaches outside it."""
    check(text.startswith("<!DOCTYPE html>"), name + ": not an HTML page")
    csp = [a for t, a in p.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    check(csp and "default-src 'none'" in csp[0].get("content", ""), name + ": no CSP forbidding requests")
    for tag, a in p.tags:
        check(tag not in ("img", "link", "iframe", "object", "embed", "image", "use", "audio", "video", "base",
                          "form"), "%s: a <%s> element" % (name, tag))
        for k, v in a.items():
            check(k != "src" and not k.startswith("on"), "%s: attribute %s=%r on <%s>" % (name, k, v, tag))
            if k.endswith("href"):
                check(v.startswith("#"), "%s: %s=%r leaves the page" % (name, k, v))
                check(v[1:] in p.ids, "%s: %s=%r names no element" % (name, k, v))
    check("url(" not in p.style and "@import" not in p.style, name + ": the style loads something")
    check(not re.search(r"fetch|XMLHttpRequest|import\(|\.src\b|innerHTML|eval\(", p.script),
          name + ": the script loads or injects something")
    check(len([t for t, _ in p.tags if t == "script"]) == 1, name + ": more than one <script>")


def module_of(p, section):
    """The module a view shows: its kept and added lines, in order."""
    return "".join(t + "\n" for c, _, t in p.lines.get(section, []) if "d" not in c.split())


def removed_of(p, section):
    return [t for c, _, t in p.lines.get(section, []) if "d" in c.split()]


def explain_lines(stderr, pass_name):
    """The --explain lines lopt wrote for one pass: (line, col or None, text)."""
    out = []
    for line in stderr.splitlines():
        m = re.match(r"^[^:]+:(?:(\d+):(\d+): )?\s*([a-z-]+): (.*)$", line)
        if m and m.group(3) == pass_name:
            out.append(line)
    return out


def check_strings(tmp):
    args = open(STRINGS).readline()[len("# lopt: "):].split()
    args = [a for a in args if not a.startswith("--report")] + [STRINGS]
    pipeline = [s for a in args if a.startswith("--pass=") for s in a[len("--pass="):].split(",")]
    path = os.path.join(tmp, "strings.html")
    r, text, p = report(args, path)
    name = "strings.tir"
    self_contained(text, p, name)
    # the module's strings, as text only
    for raw in ("</script><script>", "<img src=x onerror", "<b>relu</b>", "'single' <!--"):
        check(raw not in text, "%s: %r is in the page unescaped" % (name, raw))
    for shown in ("&lt;/script&gt;&lt;script&gt;document.title=&#39;x&#39;&lt;/script&gt;",
                  "&lt;img src=x onerror=alert(1)&gt;", "&lt;b&gt;relu&lt;/b&gt;", "\\&quot;quoted\\&quot; &amp; &#39;single&#39; &lt;!--"):
        check(shown in text, "%s: %r is not shown escaped" % (name, shown))
    check(p.ids.get("s0") is not None, name + ": no input section")
    # each view is the module lopt prints there
    printed = [lopt([STRINGS]).stdout]
    for k in range(1, len(pipeline) + 1):
        printed.append(lopt(["--pass=" + ",".join(pipeline[:k]), STRINGS]).stdout)
    check(printed[-1] == r.stdout, name + ": --report changed what lopt prints")
    for k, want in enumerate(printed):
        sid = "s%d" % k
        check(sid in p.ids, "%s: no section %s" % (name, sid))
        check(module_of(p, sid) == want, "%s: section %s does not show the module after %s" %
              (name, sid, pipeline[k - 1] if k else "reading"))
        if k:
            before = printed[k - 1].splitlines()
            removed = removed_of(p, sid)
            check(all(x in before for x in removed), "%s: %s removes a line the module before lacks" % (name, sid))
            check(removed, "%s: %s shows no removed line" % (name, sid))
            check(any("a" in c.split() for c, _, _ in p.lines[sid]), "%s: %s shows no added line" % (name, sid))
            h2 = p.ids[sid].get("data-title", "")
            check(h2 == "%d. %s" % (k, pipeline[k - 1]), "%s: section %s is titled %r" % (name, sid, h2))
    # the summary: one row per pass and the input, rewrites counted, verify-exec per pass
    rows = text.split('<table class="sum">')[1].split("</table>")[0].count("<tr")
    check(rows == len(pipeline) + 2, "%s: the summary has %d rows" % (name, rows))
    check(text.count("same outputs</span>: 1 output, bit-exact") == len(pipeline),
          name + ": not every pass shows its --verify-exec result")
    # --explain: each pass's lines in its section, linked both ways
    counts = {}
    for k, pass_name in enumerate(pipeline, 1):
        said = explain_lines(r.stderr, pass_name)
        notes = p.notes.get("s%d" % k, [])
        check(len(notes) == len(said), "%s: pass %s said %d --explain lines, its section shows %d" %
              (name, pass_name, len(said), len(notes)))
        for (key, href, note), line in zip(notes, said):
            check(line.endswith(note.split(" ", 1)[1] if href else note),
                  "%s: the note %r is not the line %r" % (name, note, line))
            if re.match(r"^[^:]+:\d+:\d+: ", line):
                check(key and href, "%s: the located note %r links to no binding" % (name, line))
            if href:
                target = p.ids.get(href[1:], {})
                check(target.get("data-b") == key, "%s: %s leads to %r, not to %r" %
                      (name, href, target.get("data-b"), key))
                check(int(href[2:].split(":")[0]) <= k, "%s: a note of pass %d links to a later module" % (name, k))
                counts[key] = counts.get(key, 0) + 1
    check(counts.get("main.gv", 0) >= 3, name + ": the notes about gv are not linked to it")
    for key, n in counts.items():
        badges = re.findall(r'data-b="%s"><span class="n">\d+</span>[^\n]*?<span class="k"[^>]*>(\d+)</span>' %
                            re.escape(key), text)
        check(badges and all(int(b) == n for b in badges), "%s: %s should show %d explanations, shows %s" %
              (name, key, n, badges))
    # the graphs, when Graphviz is installed (check-browser requires it)
    if shutil.which(os.environ.get("LOPT_DOT") or "dot"):
        # main before and after, then one slide of main's graph as the input and after each pass
        slides = re.findall(r'<figure class="slide" data-k="(\d+)">(.*?)</figure>', text, re.S)
        check([int(k) for k, _ in slides] == list(range(len(printed))),
              "%s: slides %s, expected the input and each of %d passes" % (name, [k for k, _ in slides],
                                                                          len(printed) - 1))
        drawn = sum("<svg" in body for _, body in slides)
        check(p.svgs == 2 + drawn, "%s: %d SVGs, expected main before and after and %d slides" % (name, p.svgs, drawn))
        check(drawn == len(printed), "%s: %d slides drawn of %d (every pass of strings.tir changes main)"
              % (name, drawn, len(printed)))
        check('class="node add"' in text and 'class="node del"' in text,
              name + ": the slides mark no node added or removed")
        check("nodot" not in p.ids, name + ": says Graphviz is missing")
        # each layout of the legend names the values in it, on their nodes as well as by colour
        legend = set(re.findall(r">layout L(\d+): ", text))
        check(legend, name + ": the graphs have no layout legend")
        for k in legend:
            check(">in L%s<" % k in text, "%s: no node is labelled with layout L%s of the legend" % (name, k))
    else:
        print("report: Graphviz's dot is not installed: the graphs are checked only to be said missing")
    check(p.svgs == 0 or ">main.gv</title>" in text, name + ": the graph has no node for gv")

    # without Graphviz the page says so and keeps everything else
    env = dict(os.environ, LOPT_DOT=os.path.join(tmp, "no-such-dot"))
    _, text2, p2 = report(args, os.path.join(tmp, "nodot.html"), env)
    check(p2.svgs == 0 and "nodot" in p2.ids, "nodot: the page does not say Graphviz is missing")
    check(all(module_of(p2, "s%d" % k) == printed[k] for k in range(len(printed))),
          "nodot: the modules are not all there")
    self_contained(text2, p2, "nodot")


def check_failure(tmp):
    """A pass --verify-exec rejects: the page marks it and shows the error."""
    path = os.path.join(tmp, "fail.html")
    r, text, p = report(["--pass=flow,test-perturb,fold", "--verify-exec", STRINGS], path, rc=1)
    self_contained(text, p, "fail")
    check("s2" in p.ids and "s3" not in p.ids, "fail: the sections are not the two passes that ran")
    check("The pipeline stopped at pass 2." in text, "fail: the summary does not say where it stopped")
    err = r.stderr.strip().splitlines()[0].replace("lopt: error: ", "")
    check(err.startswith("pass 'test-perturb' changed output"), "fail: unexpected error %r" % err)
    check(html_escape(err) in text.split('id="s2"')[1], "fail: the error is not in the pass's section")
    check(module_of(p, "s2") == lopt(["--pass=flow,test-perturb", STRINGS]).stdout,
          "fail: the failing pass's module is not shown")
    # within a ULP bound: the passes after the perturbation say so, the one before is bit-exact
    _, text, p = report(["--pass=flow,test-perturb,fold", "--verify-exec=ulp:8", STRINGS],
                        os.path.join(tmp, "ulp.html"))
    said = re.findall(r"same outputs</span>: ([^<(]*)", text)
    check([x.strip() for x in said] == ["1 output, bit-exact", "1 output, within 8 ULP", "1 output, within 8 ULP"],
          "ulp: --verify-exec's findings per pass are %s" % said)
    # a pass that fails itself: its error, no module (it may be half changed), the graph of the one before
    r, text, p = report(["--pass=flow,transform-layout{func=nope,buffer=B,map=NCHW:NHWC},fold", STRINGS],
                        os.path.join(tmp, "passfail.html"), rc=1)
    self_contained(text, p, "passfail")
    s2 = text.split('id="s2"')[1]
    check("s3" not in p.ids and "The pass failed; the pipeline stopped here." in s2,
          "passfail: the failed pass is not marked")
    check(html_escape(r.stderr.strip()) in s2, "passfail: the pass's error is not shown")
    check(not p.lines.get("s2") and module_of(p, "s1") == lopt(["--pass=flow", STRINGS]).stdout,
          "passfail: a module is shown after the failed pass, or not before it")
    if p.svgs:
        check('data-s="1"' in text.split("after</figcaption>")[1][:200],
              "passfail: the graph after is not that of the last module")


def html_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace(
        "'", "&#39;")


def chain(n):
    """A module of n relu calls, a rewrite at the end for flow to move."""
    lines = ["@I.ir_module", "class Module:", "    @R.function",
             '    def main(x: R.Tensor((1, 8, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4, 4), '
             'dtype="float32"):', "        with R.dataflow():"]
    prev = "x"
    for i in range(n):
        lines.append("            lv%d = R.nn.relu(%s)" % (i, prev))
        prev = "lv%d" % i
    lines += ['            gv: R.Tensor((1, 2, 4, 4, 4), dtype="float32") = R.layout_transform(%s, '
              'index_map=T.index_map(lambda n, c, h, w: (n, c // 4, h, w, c %% 4)))' % prev,
              "            R.output(gv)", "        return gv", ""]
    return "\n".join(lines)


def check_linear(tmp):
    sizes = []
    for n in (150, 300, 600):
        src = os.path.join(tmp, "chain%d.tir" % n)
        with open(src, "w") as f:
            f.write(chain(n))
        path = os.path.join(tmp, "chain%d.html" % n)
        _, text, p = report(["--pass=flow,fold", "--explain", src], path)
        self_contained(text, p, "chain%d" % n)
        check(len(p.lines["s0"]) == n + 8, "chain%d: the input shows %d lines" % (n, len(p.lines["s0"])))
        sizes.append((os.path.getsize(src), os.path.getsize(path)))
    # a graph too large for Graphviz in reasonable time is not drawn, and the page says why
    src = os.path.join(tmp, "chain1250.tir")
    with open(src, "w") as f:
        f.write(chain(1250))
    _, text, p = report(["--pass=fold", src], os.path.join(tmp, "chain1250.html"))
    # before, after, and the input's slide (the slide after fold: fold changed nothing)
    check(p.svgs == 0 and text.count("not drawn: 1254 nodes, more than the 1200") == 3
          and text.count("the pass did not change this graph") == 1,
          "chain1250: the graphs too large to draw are not said so")
    r1 = sizes[1][1] / sizes[0][1]
    r2 = sizes[2][1] / sizes[1][1]
    m1 = sizes[1][0] / sizes[0][0]
    m2 = sizes[2][0] / sizes[1][0]
    check(r1 < 1.25 * m1 and r2 < 1.25 * m2, "the report grows faster than the module: %s" % sizes)
    return sizes


def fanout(n, funcs=1):
    """Functions of n bindings in a chain, each also reading the parameter x:
    x's edges span the whole graph (dot took 91 s on one of 100)."""
    lines = ["@I.ir_module", "class Module:"]
    for f in range(funcs):
        lines += ["    @R.function", '    def f%d(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), '
                  'dtype="float32"):' % f, "        with R.dataflow():", "            lv0 = R.add(x, x)"]
        lines += ["            lv%d = R.add(lv%d, x)" % (i, i - 1) for i in range(1, n)]
        lines += ["            R.output(lv%d)" % (n - 1), "        return lv%d" % (n - 1)]
    return "\n".join(lines + [""])


def check_choose(tmp):
    """choose-layout's choice and its candidates' costs stand on the slide of
    the pass, on the node of each call it chose for, as plan's costs do."""
    if not shutil.which(os.environ.get("LOPT_DOT") or "dot"):
        return
    d = os.path.join(TOP, "testsuite", "passes", "choose")
    pipe = "choose-layout{conv2d=NCHW:OIHW|NCHW4c:OIHW4o,costs=%s},plan,fold" % os.path.join(d, "greedy_loses.costs")
    _, text, p = report(["--pass=" + pipe, os.path.join(d, "greedy_loses.tir")], os.path.join(tmp, "choose.html"))
    slides = dict(re.findall(r'<figure class="slide" data-k="(\d+)">(.*?)</figure>', text, re.S))
    want = "chose NCHW:OIHW: NCHW:OIHW 50us given, NCHW4c:OIHW4o 49us given"
    check(slides.get("1", "").count(">" + want + "<") == 2,
          "choose: the slide after choose-layout does not show its choice on both convolutions")
    check("2 costs on the nodes" in slides.get("1", ""), "choose: the slide does not count the choices")


def check_budget(tmp):
    """All of a page's graphs share one budget of dot's time (LOPT_DOT_SECONDS):
    a dot that never finishes stops the first graph at the budget, and the
    graphs after it are said not drawn without running dot again."""
    src = os.path.join(tmp, "fanout.tir")
    with open(src, "w") as f:
        f.write(fanout(100, funcs=3))
    slow = os.path.join(tmp, "slow-dot")
    with open(slow, "w") as f:
        f.write("#!/bin/sh\nsleep 30\n")
    os.chmod(slow, 0o755)
    start = time.monotonic()
    _, text, p = report(["--pass=fold", src], os.path.join(tmp, "budget.html"),
                        dict(os.environ, LOPT_DOT=slow, LOPT_DOT_SECONDS="1"))
    took = time.monotonic() - start
    check(took < 10, "budget: the page took %.1f s with a budget of 1 s for graphs" % took)
    check(text.count("did not finish within what was left of the page's 1 s") == 1,
          "budget: the graph dot was stopped on is not said so")
    # five graphs of the pairs, then each function's first slide (the second: fold changed nothing)
    check(text.count("the page's 1 s for Graphviz went to the graphs above") == 8,
          "budget: the eight graphs after the budget ran out are not said so")
    check(text.count("the pass did not change this graph") == 3, "budget: the unchanged slides are not said so")
    # with Graphviz, the fan-out draws: each later use of x is drawn as a copy beside it
    if shutil.which("dot") and not os.environ.get("LOPT_DOT"):
        start = time.monotonic()
        _, text, p = report(["--pass=fold", src], os.path.join(tmp, "fanout.html"))
        took = time.monotonic() - start
        check(took < 30, "fanout: the page took %.1f s (more than 30)" % took)
        # before, after, and the first slide (the input's SVG again) of each function
        check(p.svgs == 9, "fanout: %d of 9 graphs drawn in %.1f s" % (p.svgs, took))
        print("report: 3 functions of 100 bindings that all read x: page in %.1f s" % took)


LOPT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "lopt")
with tempfile.TemporaryDirectory() as tmp:
    check_strings(tmp)
    check_failure(tmp)
    check_choose(tmp)
    check_budget(tmp)
    sizes = check_linear(tmp)
for f in failures:
    print("FAIL report: " + f)
print("report: %d failed; sizes (module, page) of chains: %s" % (len(failures), sizes))
sys.exit(1 if failures else 0)
