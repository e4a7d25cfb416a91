#!/usr/bin/env python3
"""The report in a real browser (make check-browser): headless Chromium opens
lopt's --report page of every example and of ResNet-50, and for each
- dumps the DOM after the page's script ran and checks it: every pass of the
  pipeline has its section, every graph is an SVG, the script ran (a link
  #sK:func.var marks its binding, #find= lists bindings, #notes= lists the
  explanations of one);
- reads the browser's console: no message at all (the page logs nothing, so a
  message is an error: a script error, a blocked request);
- reads the browser's network log: no request from the page (the browser's
  own background requests aside, which no host resolves here);
- takes a screenshot and checks that it is not blank;
- measures the graphs in a 1400 px wide window at the default zoom (a copy
  of the page with a measuring script added, every graph shown): the median
  height of each graph's text on the screen (its font size times the scale
  from the SVG's units to CSS pixels, getScreenCTM) is at least MIN_TEXT_PX,
  and the graphs drawn side by side (before and after) share one scale.
First it checks itself on a probe page that logs an error and requests an
image, which it must report. Python's standard library only.
Usage: [ONLY=name,...] browser.py LOPT OUTDIR [CHROMIUM]"""
import glob
import html
import re
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the pipeline each example's report shows (hoist,flow,fold when not named)
PIPELINES = {
    "conv7x7_int8": "weight-layout,fold",
    "conv_sum_nhwc": "legalize,flow,fold",
    "conv_relu_conv_nhwc": "convert-layout{conv2d=NCHW:OIHW},flow,fold",
    "flatten_elementwise": "flatten",
    "texture_axis_separator": 'transform-layout{func=relu,buffer=B,map="lambda n, h, w, c: '
                              '(n, c // 4, h, T.axis_separator(), w, c % 4)"},flatten',
    "texture_conv_nchw4c": "convert-layout{conv2d=NCHW4c:OIHW4o},flow,fold,annotate-scope,realize-vdevice,"
                           "fold-scope-change",
    "resnet50": "convert-layout{conv2d=NCHW4c:OIHW4o},flow,fold",
    "conv_add_conv_nchwc": "convert-layout{conv2d=NCHW4c:OIHW4o},plan,fold",
}
MIN_TEXT_PX = 10
failures = []
COUNTS = {}   # page -> (slides, slides drawn, marks, costs)

# Added to a copy of the page: opens every graph, then writes, for each group
# of graphs at one scale (.zg), each SVG's scale and its text's sizes in CSS
# pixels, into <pre id="measure"> for --dump-dom to show.
MEASURE = """<script>(function(){
[].forEach.call(document.querySelectorAll('details'),function(d){d.open=true;});
var out=[],decks=[];
function shown(d){var s=[].slice.call(d.querySelectorAll('.slide'));
  return s.filter(function(x){return !x.hidden;}).map(function(x){return +x.dataset.k;});}
function key(k){document.dispatchEvent(new KeyboardEvent('keydown',{key:k,bubbles:true}));}
[].forEach.call(document.querySelectorAll('.deck'),function(d){
  d.scrollIntoView();var keys=[shown(d)];key('ArrowRight');keys.push(shown(d));key('ArrowRight');
  keys.push(shown(d));key('ArrowLeft');keys.push(shown(d));
  var slides=[].map.call(d.querySelectorAll('.slide'),function(x){
    var c={k:+x.dataset.k,svg:!!x.querySelector('svg'),said:x.querySelector('.dsum')?
      x.querySelector('.dsum').textContent:'',costs:0,marks:{}};
    ['node','edge'].forEach(function(t){['add','chg','del'].forEach(function(m){
      c.marks[t+'.'+m]=x.querySelectorAll('g.'+t+'.'+m).length;});});
    [].forEach.call(x.querySelectorAll('text'),function(t){if(/^cost /.test(t.textContent))c.costs++;});
    return c;});
  decks.push({func:d.dataset.f,keys:keys,slides:slides});});
[].forEach.call(document.querySelectorAll('.slide'),function(x){x.hidden=false;});
var groups=[].slice.call(document.querySelectorAll('.zg,.pair'));
[].forEach.call(document.querySelectorAll('.svg>svg'),function(v){
  var g=v.closest('.zg')||v.closest('.pair'),gi=groups.indexOf(g);{
    var m=v.getScreenCTM();var sizes=[],boxes=[];
    [].forEach.call(v.querySelectorAll('text'),function(t){
      var c=t.getScreenCTM();if(!c)return;
      sizes.push(parseFloat(getComputedStyle(t).fontSize)*Math.sqrt(c.a*c.a+c.b*c.b));
      boxes.push(t.getBoundingClientRect().height);});
    out.push({group:gi,kind:g?g.className:'',scale:m?m.a:0,sizes:sizes,boxes:boxes,
              width:v.getBoundingClientRect().width,box:v.parentElement.clientWidth,
              slide:v.closest('.slide')?v.closest('.slide').dataset.k:null});}});
var p=document.createElement('pre');p.id='measure';p.textContent=JSON.stringify({graphs:out,decks:decks});
document.body.appendChild(p);})();</script>"""


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def find_chromium():
    for name in (sys.argv[3] if len(sys.argv) > 3 else None, "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def chromium(url, out, extra, tag):
    """Runs headless Chromium on url; returns (stdout, console lines, page requests)."""
    netlog = os.path.join(out, tag + ".netlog.json")
    profile = os.path.join(out, "profile")
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-default-apps", "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr", "--v=0", "--log-net-log=" + netlog] + extra + [url]
    r = subprocess.run(args, capture_output=True, text=True, timeout=180)
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    requests = []
    try:
        with open(netlog) as f:
            log = json.load(f)
    except (OSError, ValueError):
        # the log of a browser that exits at once may lack its closing bracket
        with open(netlog) as f:
            text = f.read().rstrip().rstrip(",")
        log = json.loads(text + "]}")
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    for e in log["events"]:
        p = e.get("params", {})
        if types.get(e["type"]) == "URL_REQUEST_START_JOB" and "file://" in p.get("network_isolation_key", ""):
            requests.append(p.get("url"))
    os.remove(netlog)
    return r.stdout, console, requests


def png_pixels(path):
    """The rows of an 8-bit RGB or RGBA PNG, as bytes per row (filters undone)."""
    with open(path, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            check(depth == 8 and color in (2, 6), path + ": not 8-bit RGB(A)")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    rows, prev, stride = [], bytearray(w * bpp), w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return rows, bpp


def not_blank(path):
    """Some tenth of the rows hold two colours or more, and the page is not one colour."""
    rows, bpp = png_pixels(path)
    busy = sum(1 for r in rows[::4] if len(set(r[i:i + 3] for i in range(0, len(r), bpp * 7))) > 1)
    colours = set()
    for r in rows[::16]:
        colours.update(r[i:i + 3] for i in range(0, len(r), bpp * 5))
    return busy * 4 > len(rows) // 10 and len(colours) > 8, busy, len(colours)


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.svgs, self.figures, self.hit, self.results, self.pop = {}, 0, 0, [], 0, False
        self.in_results = self.in_figure = False
        self.figure_svg, self.bad_figures, self.slides = False, 0, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "section" and a.get("id"):
            self.sections[a["id"]] = a.get("data-title", "")
        if tag == "svg" and self.in_figure:
            self.svgs += 1
            self.figure_svg = True
        if tag == "figure" and "slide" in cls:
            self.slides += 1
        elif tag == "figure":
            self.figures += 1
            self.in_figure, self.figure_svg = True, False
        if "hit" in cls:
            self.hit.append(a.get("id"))
        if a.get("id") == "results":
            self.in_results = True
        elif self.in_results and tag == "div":
            self.results += 1
        if a.get("id") == "pop" and "on" in cls:
            self.pop = True

    def handle_endtag(self, tag):
        if tag == "header":
            self.in_results = False
        if tag == "figure" and self.in_figure:
            self.bad_figures += not self.figure_svg
            self.in_figure = False


def dom_of(text):
    d = Dom()
    d.feed(text)
    d.close()
    return d


def pass_names(pipeline):
    """The passes of a pipeline string: commas inside braces and quotes aside."""
    names, depth, quote, cur = [], 0, None, ""
    for c in pipeline + ",":
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "{}":
            depth += 1 if c == "{" else -1
        elif c == "," and depth == 0:
            names.append(cur)
            cur = ""
            continue
        if depth == 0 and not quote and c not in "{}":
            cur += c
    return names


def self_test(out):
    """The checks catch a console error and a request on a page made to fail them."""
    probe = os.path.join(out, "probe.html")
    with open(probe, "w") as f:
        f.write("<!DOCTYPE html><p>probe</p><img src=\"http://127.0.0.1:9/probe.png\">"
                "<script>console.error('probe'); no_such_function();</script>\n")
    _, console, requests = chromium("file://" + probe, out, ["--dump-dom"], "probe")
    check(len(console) >= 2, "self-test: the console messages of the probe page were not seen: %s" % console)
    check(any("127.0.0.1:9/probe.png" in u for u in requests),
          "self-test: the probe page's request was not seen: %s" % requests)
    blank = os.path.join(out, "blank.png")
    with open(os.path.join(out, "blank.html"), "w") as f:
        f.write("<!DOCTYPE html><body style='background:#fff'></body>")
    chromium("file://" + os.path.join(out, "blank.html"), out, ["--screenshot=" + blank, "--window-size=640,480"],
             "blank")
    check(not not_blank(blank)[0], "self-test: a blank page does not look blank")


def one(src, name, out):
    pipeline = PIPELINES.get(name, "hoist,flow,fold")
    page = os.path.join(out, name + ".html")
    r = subprocess.run([LOPT, "--pass=" + pipeline, "--explain", "--verify-exec", "--report=" + page, src],
                       capture_output=True, text=True)
    if not check(r.returncode == 0, "%s: lopt failed: %s" % (name, r.stderr[-500:])):
        return None
    with open(page, encoding="utf-8") as f:
        static = f.read()
    names = pass_names(pipeline)
    steps = len(names)
    # a binding of the last module, to visit by its link
    last = static.split('id="s%d"' % steps)[-1]
    target = last.split('<div class="l" id="', 1)[1].split('"', 1)[0] if '<div class="l" id="' in last else None
    key = target.split(":", 1)[1] if target else None
    url = "file://" + os.path.abspath(page)
    dom_text, console, requests = chromium(url + ("#" + target if target else ""), out, ["--dump-dom"], name)
    dom = dom_of(dom_text)
    check(not console, "%s: console messages: %s" % (name, console[:3]))
    check(not requests, "%s: requests leave the page: %s" % (name, requests[:3]))
    want = ["graphs", "summary"] + ["s%d" % k for k in range(steps + 1)]
    check(sorted(dom.sections) == sorted(want), "%s: sections %s, expected %s" % (name, sorted(dom.sections), want))
    for k, n in enumerate(names, 1):
        check(dom.sections.get("s%d" % k, "").startswith("%d. %s" % (k, n)),
              "%s: section s%d is %r, not pass %s" % (name, k, dom.sections.get("s%d" % k), n))
    check(dom.figures >= 2 and dom.bad_figures == 0 and dom.svgs == dom.figures,
          "%s: %d figures, %d SVGs, %d without one" % (name, dom.figures, dom.svgs, dom.bad_figures))
    check(not target or dom.hit == [target], "%s: #%s did not mark its binding (%s)" % (name, target, dom.hit))
    if key:
        find, _, _ = chromium(url + "#find=" + key.split(".")[-1], out, ["--dump-dom"], name + "-find")
        check(dom_of(find).results >= 1, "%s: #find=%s found nothing" % (name, key))
        notes, _, _ = chromium(url + "#notes=" + key, out, ["--dump-dom"], name + "-notes")
        check(dom_of(notes).pop, "%s: #notes=%s shows no list" % (name, key))
    texts = measure(static, page, name, out, steps)
    shot = os.path.join(out, name + ".png")
    _, console, _ = chromium(url, out, ["--screenshot=" + shot, "--window-size=1280,1600",
                                        "--hide-scrollbars"], name + "-shot")
    check(os.path.exists(shot), "%s: no screenshot" % name)
    ok, busy, colours = not_blank(shot) if os.path.exists(shot) else (False, 0, 0)
    check(ok, "%s: the screenshot looks blank (%d busy rows, %d colours)" % (name, busy, colours))
    check(not console, "%s: console messages while drawing: %s" % (name, console[:3]))
    return os.path.getsize(page), steps, dom.svgs, texts


def slides(decks, name, steps):
    """The graph after every pass: main's deck holds the input and one slide
    per pass, the arrow keys step through it, each slide marks as many nodes
    and edges added, changed and removed as its line says, and plan's costs
    are on nodes. Returns the number of slides with a graph."""
    main = [d for d in decks if d["func"] == "main"]
    if not check(main, "%s: no slides of main's graph after each pass" % name):
        return 0
    d = main[0]
    check(len(d["slides"]) == steps + 1, "%s: main has %d slides, not the input and %d passes"
          % (name, len(d["slides"]), steps))
    check(d["keys"] == [[0], [1], [2 if steps > 1 else 1], [1 if steps > 1 else 0]],
          "%s: the arrow keys showed slides %s, not [0] [1] [2] [1]" % (name, d["keys"]))
    marked = 0
    for dk in decks:
        for sl in dk["slides"]:
            said = [int(x) for x in re.findall(r"[+\u2212~](\d+)", sl["said"])] if sl["svg"] and sl["k"] else None
            m = sl["marks"]
            if said and len(said) == 6:
                got = [m["node.add"], m["node.del"], m["node.chg"], m["edge.add"], m["edge.del"], m["edge.chg"]]
                check(got == said, "%s: slide %d of %s marks %s, its line says %s" % (name, sl["k"], dk["func"], got,
                                                                                     said))
            marked += sum(m.values())
            if "cost" in sl["said"]:
                check(sl["costs"] > 0, "%s: slide %d of %s says costs but shows none" % (name, sl["k"], dk["func"]))
    COUNTS[name] = (sum(len(dk["slides"]) for dk in decks), sum(sl["svg"] for dk in decks for sl in dk["slides"]),
                    marked, sum(sl["costs"] for dk in decks for sl in dk["slides"]))
    return COUNTS[name][1]


def measure(static, page, name, out, steps):
    """The graphs' text at the default zoom in a 1400 px window: returns the
    smallest median over the graphs, checked against MIN_TEXT_PX."""
    copy = page[:-5] + "-measure.html"
    with open(copy, "w", encoding="utf-8") as f:
        f.write(static.replace("</body>", MEASURE + "</body>"))
    text, console, _ = chromium("file://" + copy, out, ["--dump-dom", "--window-size=1400,1000"], name + "-measure")
    check(not console, "%s: console messages while measuring: %s" % (name, console[:3]))
    m = text.split('<pre id="measure">', 1)
    if not check(len(m) == 2, "%s: the measuring script did not run" % name):
        return None
    got = json.loads(html.unescape(m[1].split("</pre>", 1)[0]))
    slides(got["decks"], name, steps)
    smallest, groups = None, {}
    for g in got["graphs"]:
        if not g["sizes"]:
            continue
        med, box = median(g["sizes"]), median(g["boxes"])
        check(med >= MIN_TEXT_PX, "%s: a graph's text is %.1f px high (median), less than %d px (scale %.3f)"
              % (name, med, MIN_TEXT_PX, g["scale"]))
        # the font size as drawn agrees with the boxes the browser lays the text in
        check(box >= med * 0.8, "%s: the text's boxes are %.1f px high for a %.1f px font" % (name, box, med))
        smallest = med if smallest is None else min(smallest, med)
        groups.setdefault(g["group"], set()).add(round(g["scale"], 4))
    for k, scales in groups.items():
        # one scale, Graphviz's rounding of a width to whole points aside
        check(max(scales) <= min(scales) * 1.01, "%s: the graphs of group %d are drawn at different scales %s"
              % (name, k, scales))
    check(smallest is not None, "%s: no graph's text was measured" % name)
    return smallest


LOPT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "lopt"))
OUT = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(TOP, "build", "browser"))
CHROMIUM = find_chromium()
if not CHROMIUM:
    print("check-browser: no chromium (apt-get install chromium; .ci/run installs it)")
    sys.exit(1)
if not shutil.which("dot"):
    print("check-browser: no Graphviz dot (apt-get install graphviz; .ci/run installs it)")
    sys.exit(1)
os.makedirs(OUT, exist_ok=True)
self_test(OUT)
pages = sorted(glob.glob(os.path.join(TOP, "examples", "*.tir"))) + [
    os.path.join(TOP, "examples", "models", "resnet50.tir")]
if os.environ.get("ONLY"):   # ONLY=conv_add_conv_nchwc,resnet50: those pages
    pages = [p for p in pages if os.path.basename(p)[:-4] in os.environ["ONLY"].split(",")]
passed = 0
for src in pages:
    name = os.path.basename(src)[:-4]
    before = len(failures)
    got = one(src, name, OUT)
    if got and len(failures) == before:
        passed += 1
        c = COUNTS.get(name, (0, 0, 0, 0))
        print("  %-28s %2d passes, %3d SVGs, text %4.1f px, %d slides (%d drawn, %d marks, %d costs), %8d bytes"
              % (name, got[1], got[2], got[3], c[0], c[1], c[2], c[3], got[0]))
    if name == "conv_add_conv_nchwc":   # a three-pass pipeline with plan: its changes and costs shown
        check(COUNTS.get(name, (0, 0, 0, 0))[2] > 0 and COUNTS[name][3] > 0,
              "%s: no marks or no costs on the slides: %s" % (name, COUNTS.get(name)))
shutil.rmtree(os.path.join(OUT, "profile"), ignore_errors=True)
for f in failures:
    print("FAIL browser: " + f)
print("%d passed, %d failed" % (passed, len(pages) - passed))
sys.exit(1 if failures else 0)
