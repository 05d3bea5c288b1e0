// tracecheck view --diff: two traces side by side.
//
// Rows come from the page's JSON island: [kind, run, sequence, expected
// line, actual line, expected text, actual text, note, fields] and, when
// the golden is a tolerant one (D.tolerant), the pointers of the
// placeholders that matched; a field is [pointer, golden, actual] and
// why a placeholder did not match, when it was one. Unchanged runs longer
// than the context are folded and drawn when opened.
(function () {
  "use strict";
  const { el } = TC;
  const D = TC.data();
  performance.mark("tc:data");
  const rows = D.rows;
  const K = { kind: 0, run: 1, seq: 2, el: 3, al: 4, et: 5, at: 6, note: 7, fields: 8, matched: 9 };
  // An unchanged event of a tolerant golden is not the same bytes: its
  // placeholders matched the actual values.
  const sameWord = D.tolerant ? "matched" : "same";
  const main = document.getElementById("rows");
  const CHUNK = 300;

  function describe(text) {
    if (text === null) return null;
    try {
      const v = JSON.parse(text);
      if (v && typeof v === "object" && !Array.isArray(v)) {
        const p = v.payload && typeof v.payload === "object" ? v.payload : {};
        return [v.type || "(no type)", TC.summarize(v.type, p)];
      }
    } catch (e) { /* not JSON: shown as text */ }
    return ["(not an event)", TC.oneLine(TC.short(text, 200))];
  }

  function seqCell(r) {
    const seq = r[K.seq] >= 0 ? String(r[K.seq]) : "–";
    return el("div", { class: "seq", title: r[K.run] ? "run " + r[K.run] + ", sequence " + seq : "" }, seq);
  }

  function oneLine(text, line, absentWhy) {
    if (!line) return el("div", { class: "sd absent" }, absentWhy);
    if (text === null) return el("div", { class: "sd muted" }, "line " + line + " (not in the page)");
    const [type, what] = describe(text);
    return el("div", { class: "sd" }, el("span", { class: "type" }, type), " ", el("span", { class: "text" }, what));
  }

  function equalRow(r) {
    const left = oneLine(r[K.et], r[K.el], "");
    const right = r[K.et] === null ? el("div", { class: "sd muted" }, "line " + r[K.al]) : el("div", { class: "sd muted" }, sameWord + " (line " + r[K.al] + ")");
    return el("div", { class: "pair equal" }, seqCell(r), left, right);
  }

  function fullSide(text, line, marks, matched, absentWhy) {
    if (!line) return el("div", { class: "sd absent" }, absentWhy);
    if (text === null) return el("div", { class: "sd muted" }, "line " + line + " (not in the page)");
    return el("div", { class: "sd open" }, el("div", { class: "lineno muted" }, "line " + line), TC.jsonBlock(text, { marks, matched, fold: marks.size > 0 }));
  }

  function diffRow(r, i) {
    const kind = r[K.kind];
    const marks = new Set(r[K.fields].map((f) => f[0]));
    const matched = new Set(r[K.matched] || []);
    const label = { changed: "changed", missing: "missing from the actual trace", extra: "extra in the actual trace" }[kind];
    const wrap = el("section", { class: "pair " + kind, id: "d" + i, tabindex: "-1", "aria-label": label + ", sequence " + (r[K.seq] >= 0 ? r[K.seq] : "unknown") },
      el("div", { class: "seq" }, r[K.seq] >= 0 ? String(r[K.seq]) : "–", el("div", { class: "kind" }, kind)),
      fullSide(r[K.et], r[K.el], marks, matched, "(absent: the golden has no such event)"),
      fullSide(r[K.at], r[K.al], marks, matched, "(absent: the actual trace has no such event)"));
    const out = [wrap];
    if (r[K.note]) out.push(el("p", { class: "note fields-note" }, r[K.note]));
    if (r[K.fields].length) {
      const tbody = el("tbody");
      for (const [ptr, exp, act, why] of r[K.fields]) {
        const a = el("td", { class: "a" }, act);
        if (why) a.append(el("div", { class: "why muted" }, why));
        tbody.append(el("tr", { class: "field" }, el("td", null, ptr), el("td", { class: "e" }, exp), a));
      }
      out.push(el("table", { class: "fields" },
        el("caption", { class: "muted" }, "differing fields"),
        el("thead", null, el("tr", null, el("th", { scope: "col" }, "field (JSON pointer)"), el("th", { scope: "col" }, "golden"), el("th", { scope: "col" }, "actual"))),
        tbody));
    }
    return out;
  }

  function fold(from, to) {
    const n = to - from;
    const a = rows[from][K.seq], b = rows[to - 1][K.seq];
    const range = a >= 0 && b >= 0 ? " (sequence " + a + (a === b ? "" : "–" + b) + ")" : "";
    const det = el("details", { class: "fold" }, el("summary", null, TC.plural(n, "unchanged event", "unchanged events") + range));
    let drawn = from;
    const more = el("button", { type: "button", class: "link" }, "show more");
    function drawMore() {
      const stop = Math.min(to, drawn + CHUNK);
      const frag = document.createDocumentFragment();
      for (; drawn < stop; drawn++) frag.append(equalRow(rows[drawn]));
      more.before(frag);
      if (drawn >= to) more.remove();
    }
    more.addEventListener("click", drawMore);
    det.addEventListener("toggle", () => {
      if (det.open && drawn === from) { det.append(more); drawMore(); }
    });
    return det;
  }

  // Lay out: differences in full, DiffContext unchanged rows around each,
  // the rest folded.
  const isDiff = (i) => rows[i][K.kind] !== "equal";
  const near = new Uint8Array(rows.length);
  rows.forEach((r, i) => {
    if (!isDiff(i)) return;
    for (let k = Math.max(0, i - D.context); k <= Math.min(rows.length - 1, i + D.context); k++) near[k] = 1;
  });
  const frag = document.createDocumentFragment();
  const diffs = [];
  for (let i = 0; i < rows.length;) {
    if (isDiff(i)) { frag.append(...diffRow(rows[i], i)); diffs.push(i); i++; continue; }
    if (near[i]) { frag.append(equalRow(rows[i])); i++; continue; }
    let j = i;
    while (j < rows.length && !isDiff(j) && !near[j]) j++;
    if (j - i < 4) for (; i < j; i++) frag.append(equalRow(rows[i])); // a fold would be longer
    else frag.append(fold(i, j));
    i = j;
  }
  main.append(frag);

  let cur = -1;
  function go(delta) {
    if (!diffs.length) return;
    cur = cur < 0 ? (delta > 0 ? 0 : diffs.length - 1) : Math.max(0, Math.min(diffs.length - 1, cur + delta));
    const n = document.getElementById("d" + diffs[cur]);
    n.scrollIntoView({ block: "start" });
    window.scrollBy(0, -(document.querySelector(".top").offsetHeight + 8));
    n.focus({ preventScroll: true });
  }
  const next = document.getElementById("next"), prev = document.getElementById("prev");
  if (next) next.addEventListener("click", () => go(1));
  if (prev) prev.addEventListener("click", () => go(-1));
  document.addEventListener("keydown", (e) => {
    if (TC.typing(e) || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "n" || e.key === "j") { e.preventDefault(); go(1); }
    else if (e.key === "N" || e.key === "p" || e.key === "k") { e.preventDefault(); go(-1); }
  });
  requestAnimationFrame(() => {
    performance.mark("tc:rows");
    document.body.dataset.ready = "1";
  });
  window.tracecheckView = { differences: diffs.length, rows: rows.length };
})();
