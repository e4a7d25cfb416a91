/* The playground: lopt in WebAssembly (lopt.js, built from web/lopt_web.c)
 * run on the editor's module with the pipeline field's passes. */
"use strict";
var lopt = null, viz = null;
var $ = function (id) { return document.getElementById(id); };

function call(name, args) {
  var types = args.map(function () { return "string"; });
  var p = lopt.ccall(name, "number", types, args);
  var s = lopt.UTF8ToString(p);
  lopt.ccall("lopt_web_free", null, ["number"], [p]);
  return JSON.parse(s);
}

function setExample(name) {
  $("example").value = name;
  $("editor").value = LOPT_EXAMPLES[name] || "";
  gutter();
}

function gutter(bad) {
  var n = $("editor").value.split("\n").length, html = [];
  for (var i = 1; i <= n; i++)
    html.push(bad && bad[i] ? '<span class="bad" title="' + escapeHtml(bad[i]) + '">' + i + "</span>" : String(i));
  $("gutter").innerHTML = html.join("\n");
}

function escapeHtml(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function run() {
  var name = ($("example").value || "module") + ".tir";
  var r = call("lopt_web_run", [$("editor").value, $("pipeline").value, name]);
  writeFragment();
  showDiagnostics(r.diagnostics, name);
  $("output").textContent = r.ok ? r.output : "";
  $("explain").textContent = r.explain || "";
  showDiff(r.changed || "");
  drawGraph("graph-before", r.dot_before);
  drawGraph("graph-after", r.dot_after);
  $("status").textContent = r.ok ? "ok" : "failed: " + r.diagnostics.length + " diagnostic(s)";
  document.body.setAttribute("data-run", r.ok ? "ok" : "failed");
  return r;
}

/* Lays out a graph lopt printed as DOT with Graphviz's WebAssembly build. */
function drawGraph(id, dot) {
  var box = $(id);
  box.textContent = "";
  if (!dot)
    return;
  if (!viz) {
    box.textContent = "(Graphviz is still loading)";
    return;
  }
  try {
    box.appendChild(viz.renderSVGElement(dot));
  } catch (e) {
    box.textContent = "Graphviz: " + e.message;
  }
}

/* The state a link shares: example=NAME or module=TEXT, pass=PIPELINE,
 * pane=ID (each URI-encoded). */
function readFragment() {
  var state = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var i = kv.indexOf("=");
    if (i > 0)
      state[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
  });
  return state;
}

function writeFragment() {
  var name = $("example").value, text = $("editor").value;
  var parts = [name && LOPT_EXAMPLES[name] === text ? "example=" + encodeURIComponent(name)
                                                     : "module=" + encodeURIComponent(text),
               "pass=" + encodeURIComponent($("pipeline").value)];
  history.replaceState(null, "", "#" + parts.join("&"));
}

/* The diagnostics under the editor, and each one's line marked in the
 * gutter (its message on hover); a click selects the line. */
function showDiagnostics(diags, name) {
  var list = $("diagnostics"), bad = {};
  list.textContent = "";
  diags.forEach(function (d) {
    var li = document.createElement("li"), here = d.file === name && d.line > 0;
    li.className = d.severity;
    li.textContent = (here ? "line " + d.line + ":" + d.column + ": " : "") + d.severity + ": " + d.message;
    if (here) {
      li.setAttribute("data-line", d.line);
      bad[d.line] = (bad[d.line] ? bad[d.line] + "\n" : "") + d.severity + ": " + d.message;
      li.onclick = function () { selectLine(d.line); };
    }
    list.appendChild(li);
  });
  gutter(bad);
}

function selectLine(n) {
  var ed = $("editor"), lines = ed.value.split("\n"), start = 0;
  for (var i = 0; i < n - 1 && i < lines.length; i++)
    start += lines[i].length + 1;
  ed.focus();
  ed.setSelectionRange(start, start + (lines[n - 1] || "").length);
}

/* What each pass changed (as --print-changed prints it), coloured. */
function showDiff(text) {
  var box = $("changed");
  box.textContent = "";
  text.split("\n").forEach(function (line) {
    var span = document.createElement("span");
    span.className = /^\+\+\+|^---/.test(line) ? "diff-pass" : line[0] === "+" ? "diff-add"
                     : line[0] === "-" ? "diff-del" : line.slice(0, 2) === "@@" ? "diff-hunk"
                     : /^[a-z-]+: /.test(line) || /^\*\*\*/.test(line) ? "diff-pass" : "";
    span.textContent = line + "\n";
    box.appendChild(span);
  });
}

function showPane(id) {
  var buttons = document.querySelectorAll("#tabs button");
  for (var i = 0; i < buttons.length; i++) {
    var b = buttons[i], on = b.getAttribute("data-pane") === id;
    b.className = on ? "on" : "";
    $(b.getAttribute("data-pane")).hidden = !on;
  }
}

function listPasses() {
  var passes = call("lopt_web_passes", []), dl = $("passes");
  passes.forEach(function (p) {
    var dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = p.name + (p.options.length ? "{" + p.options.join(",") + "}" : "");
    dd.textContent = p.summary;
    dl.appendChild(dt);
    dl.appendChild(dd);
  });
}

function init() {
  var select = $("example");
  Object.keys(LOPT_EXAMPLES).forEach(function (name) {
    var o = document.createElement("option");
    o.value = o.textContent = name;
    select.appendChild(o);
  });
  select.onchange = function () { setExample(select.value); };
  $("editor").oninput = function () { gutter(); };
  $("editor").onscroll = function () { $("gutter").scrollTop = $("editor").scrollTop; };
  document.querySelectorAll("#tabs button").forEach(function (b) {
    b.onclick = function () { showPane(b.getAttribute("data-pane")); };
  });
  var state = readFragment();
  if (state.module !== undefined) {
    $("example").value = "";
    $("editor").value = state.module;
    gutter();
  } else {
    setExample(LOPT_EXAMPLES[state.example] !== undefined ? state.example
               : LOPT_EXAMPLES.conv_add_conv_nchwc ? "conv_add_conv_nchwc" : Object.keys(LOPT_EXAMPLES)[0]);
  }
  if (state.pass !== undefined)
    $("pipeline").value = state.pass;
  var vizReady = Viz.instance().then(function (v) { viz = v; });
  Promise.all([createLopt(), vizReady]).then(function (all) {
    lopt = all[0];
    listPasses();
    $("run").disabled = false;
    $("run").onclick = run;
    $("status").textContent = "ready";
    document.body.setAttribute("data-ready", "1");
    if (state.example !== undefined || state.module !== undefined || state.pass !== undefined)
      run();
    if (state.pane && $(state.pane))
      showPane(state.pane);
  });
}

init();
