// tracecheck view: the timeline of a trace page.
//
// The events come from the page's JSON island (#tc-data), column by
// column. Only the rows in sight are in the DOM: the list is a tall
// spacer, and rows are placed at their offsets as the list scrolls, so a
// page of 200,000 events opens as fast as one of ten. Rows have one height
// (ROW px) until opened; an opened row's extra height is measured and kept.
(function () {
  "use strict";
  const { el } = TC;
  const D = TC.data();
  performance.mark("tc:data");
  const E = D.ev;
  const N = E.line.length;
  // Row flags, as package view sets them (build.go).
  const F = { problem: 1, orphan: 2, synth: 4, interrupted: 8, unmatched: 16, unreadable: 32, cut: 64, gone: 128,
    fork: 256, inherited: 512, notReplayed: 1024, torn: 2048, fieldCut: 4096 };
  const MARKED = F.problem | F.orphan | F.synth | F.interrupted | F.unmatched | F.unreadable | F.fork | F.torn | F.fieldCut;
  // The fields a row may hold cut, by bit (package view's cut* bits).
  const CUT_FIELDS = ["event_id", "timestamp", "type", "parent_event_id", "duration_ms", "actor.id", "session_id",
    "provenance.run_id", "other envelope members", "the payload's tool"];
  const ROW = 30;
  const OVERSCAN = 8;

  const tl = document.getElementById("timeline");
  const spacer = tl.firstElementChild;
  const laneCol = {};
  D.lanes.forEach((l, i) => { laneCol[l] = i; });
  tl.style.setProperty("--nlanes", Math.max(1, D.lanes.length));
  document.querySelector(".lanehead").style.setProperty("--nlanes", Math.max(1, D.lanes.length));

  const problemsOf = new Map();
  for (const p of D.problems) {
    if (!problemsOf.has(p.row)) problemsOf.set(p.row, []);
    problemsOf.get(p.row).push(p);
  }
  const cutOf = new Map(D.cut.map(([r, whole, kept]) => [r, { whole, kept }])); // row -> the text's bytes, whole and kept
  const cutSize = (r) => (cutOf.get(r) || { whole: 0 }).whole;
  const fieldCut = new Map(D.fieldCut); // row -> cut* bits
  const dangling = new Map(D.dangling); // row -> a parent_event_id no earlier event of the run has
  const typeName = (r) => (E.type[r] >= 0 ? D.types[E.type[r]] : "");
  const actorName = (r) => (E.actor[r] >= 0 ? D.actors[E.actor[r]] : "");

  // ---- what a row says -------------------------------------------------

  const payloadCache = new Map();
  function payload(r) {
    if (payloadCache.has(r)) return payloadCache.get(r);
    let p = null;
    if (!(E.flags[r] & (F.unreadable | F.cut | F.gone)) && E.payload[r] !== "") {
      try { p = JSON.parse(E.payload[r]); } catch (e) { p = null; }
    }
    if (payloadCache.size > 2000) payloadCache.clear();
    payloadCache.set(r, p);
    return p;
  }

  function summary(r) {
    const f = E.flags[r];
    if (f & F.unreadable) {
      if (f & F.gone) return "unreadable line of " + TC.fmtBytes(cutSize(r)) + " (its text is left out: page budget reached)";
      return E.payload[r] === "" ? "(blank line)" : "unreadable line: " + TC.oneLine(TC.short(E.payload[r], 300));
    }
    if (f & F.gone) return "(payload left out: page budget reached)";
    const p = payload(r);
    if (!p || typeof p !== "object") return (f & F.cut) ? "(payload of " + TC.fmtBytes(cutSize(r)) + ", cut)" : (E.payload[r] === "" ? "(no payload)" : TC.oneLine(TC.short(E.payload[r], 200)));
    return TC.summarize(typeName(r), p);
  }

  function badges(r) {
    const f = E.flags[r];
    const out = [];
    const b = (cls, text, title) => out.push(el("span", { class: "badge " + cls, title: title }, text));
    if (f & F.problem) {
      const ps = problemsOf.get(r) || [];
      b("problem", "⚠ " + (ps.length ? ps[0].code : "problem") + (ps.length > 1 ? " +" + (ps.length - 1) : ""), "validation problem on this line");
    }
    if (f & F.orphan) b("orphan", "no result", "no tool.result answers this call");
    if (f & F.interrupted) b("interrupted", "interrupted", "answered only by a result synthesized on resume");
    if (f & F.synth) b("synth", "synthesized", "written by session resume: the tool did not run");
    if (f & F.unmatched) b("problem", "answers no call", "no earlier tool.request has this tool_call_id");
    if (typeName(r) === "context.compact") b("compact", "✂ compacted", "the context was compacted here");
    if (typeName(r) === "session.branch") b("fork", "⎇ branch", "a branch record");
    if (f & F.fork) b("fork", "⎇ fork point", "the last event a branch inherits");
    if (f & F.cut) b("muted", (f & F.unreadable) ? "line cut" : "payload cut", "longer than the page holds");
    if (f & F.gone) b("muted", (f & F.unreadable) ? "line left out" : "payload left out", "the page's payload budget was reached");
    if (f & F.fieldCut) b("muted", "field cut", "an envelope field is longer than the page holds");
    if (f & F.notReplayed) b("muted", "after --through", "not in the replay view");
    if ((f & F.torn) && !(f & F.problem)) b("problem", "torn", "the last line has no newline");
    return out;
  }

  // ---- the list: which items, where -----------------------------------

  // items: row numbers, and -(run+1) for a run's header.
  let items = new Int32Array(0);
  let setsize = 0;
  // opened: item index -> extra height, kept sorted by index in openList.
  const opened = new Map(); // row -> extra px
  let openList = []; // [{i, extra}] sorted by i, for the current items
  let cur = -1;
  const live = new Map(); // key (row, or "h"+run) -> element
  let pendingJump = null;

  function rebuildOpenList() {
    openList = [];
    if (opened.size === 0) return;
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if (it >= 0 && opened.has(it)) openList.push({ i, extra: opened.get(it) });
    }
  }
  function topOf(i) {
    let y = i * ROW;
    for (const o of openList) { if (o.i < i) y += o.extra; else break; }
    return y;
  }
  function indexAt(y) {
    let extra = 0;
    for (const o of openList) {
      const top = o.i * ROW + extra;
      if (y < top) break;
      if (y < top + ROW + o.extra) return o.i;
      extra += o.extra;
    }
    return Math.max(0, Math.min(items.length - 1, Math.floor((y - extra) / ROW)));
  }
  function totalHeight() {
    let y = items.length * ROW;
    for (const o of openList) y += o.extra;
    return y;
  }

  function runLabel(run) {
    const R = D.runs[run];
    const parts = ["Run " + (run + 1), R.run || "(no run id)", "session " + (R.session || "(none)"), TC.plural(R.rows, "event", "events")];
    if (R.cut) parts.push("ids cut");
    if (D.files.length > 1) parts.push(D.files[R.file].name);
    return parts.join(" · ");
  }

  function makeHeader(run) {
    const R = D.runs[run];
    const kids = [el("span", { class: "rh-title" }, runLabel(run))];
    if (R.resumesId) {
      kids.push(el("span", { class: "badge resume" }, "↻ resumes " + (R.resumes >= 0 ? "Run " + (R.resumes + 1) : R.resumesId)));
    }
    if (R.branchOf !== undefined) {
      const B = D.branches[R.branchOf];
      kids.push(el("span", { class: "badge fork" }, "⎇ branch " + B.id + " of " + B.parentRunId + " at sequence " + B.fork + (B.cut ? " (ids cut)" : "")));
    }
    if (R.problems) kids.push(el("span", { class: "badge problem" }, "⚠ " + TC.plural(R.problems, "problem", "problems")));
    if (!R.stopped) kids.push(el("span", { class: "badge muted", title: "the run has no session.stop event" }, "no session.stop: cut off or still running"));
    return el("div", { class: "item runhead", role: "listitem" }, el("div", { class: "head" }, ...kids));
  }

  function makeRow(r, i) {
    const f = E.flags[r];
    const lane = E.lane[r];
    const cls = ["item", "ev", "l" + lane];
    if (f & F.orphan) cls.push("orphan");
    if (f & F.synth) cls.push("synth");
    if (f & F.interrupted) cls.push("interrupted");
    if (f & (F.problem | F.unmatched | F.torn)) cls.push("problem");
    if (f & F.unreadable) cls.push("unreadable");
    if (f & F.inherited) cls.push("inh");
    if (f & F.fork) cls.push("forkpt");
    if (f & F.notReplayed) cls.push("dim");
    const t = typeName(r);
    if (t === "context.compact") cls.push("compact");
    if (t === "session.branch") cls.push("branchrec");
    if (t.startsWith("checkpoint.")) cls.push("checkpoint");
    const open = opened.has(r);
    const seq = E.seq[r] >= 0 ? String(E.seq[r]) : "–";
    const dot = lane in laneCol ? el("span", { class: "dot l" + lane, style: "grid-column:" + (laneCol[lane] + 1) }) : null;
    const head = el("button", { class: "head", type: "button", tabindex: "-1", "aria-expanded": open ? "true" : "false", "aria-controls": "d" + r },
      el("span", { class: "c-seq" }, seq),
      el("span", { class: "c-lanes" }, dot),
      el("span", { class: "c-what" },
        el("span", { class: "type" }, f & F.unreadable ? "line " + E.line[r] : t || "(no type)"),
        el("span", { class: "actor" }, actorName(r)),
        el("span", { class: "text" }, summary(r))),
      el("span", { class: "badges" }, ...badges(r)));
    head.addEventListener("click", () => { setCur(i, false); toggle(r); });
    const node = el("div", { class: cls.join(" "), role: "listitem", id: "e" + r, "data-row": r }, head);
    if (open) node.append(detail(r));
    return node;
  }

  function place(node, i) {
    node.style.top = topOf(i) + "px";
    node.setAttribute("aria-posinset", String(posOf(i)));
    node.setAttribute("aria-setsize", String(setsize));
  }
  // posinset counts events only; a header shares its first event's number.
  let posIndex = null;
  function posOf(i) { return posIndex ? posIndex[i] : i + 1; }

  let rendering = false;
  function render() {
    rendering = true;
    spacer.style.height = totalHeight() + "px";
    const top = tl.scrollTop, h = tl.clientHeight || 600;
    const first = Math.max(0, indexAt(top) - OVERSCAN);
    const want = new Set();
    for (let i = first; i < items.length; i++) {
      want.add(i);
      if (topOf(i) > top + h + OVERSCAN * ROW) break;
    }
    if (cur >= 0 && cur < items.length) want.add(cur); // keep the focused row alive
    for (const [key, node] of live) {
      if (!want.has(key)) {
        node.remove();
        live.delete(key);
      }
    }
    let resized = false;
    for (const i of want) {
      let node = live.get(i);
      const it = items[i];
      if (node && Number(node.dataset.item) !== it) { node.remove(); node = null; }
      if (!node) {
        node = it >= 0 ? makeRow(it, i) : makeHeader(-it - 1);
        node.dataset.item = String(it);
        tl.append(node);
        live.set(i, node);
        // An opened row drawn for the first time (after a jump, say) has
        // its height measured now; the rows after it move down.
        if (it >= 0 && opened.has(it)) {
          const extra = Math.max(0, node.offsetHeight - ROW);
          if (extra !== opened.get(it)) { opened.set(it, extra); resized = true; }
        }
      }
      place(node, i);
      const head = node.querySelector(".head");
      if (head && head.tagName === "BUTTON") head.tabIndex = i === cur ? 0 : -1;
    }
    rendering = false;
    if (resized) { rebuildOpenList(); render(); }
  }

  function relayout() {
    for (const n of live.values()) n.remove();
    live.clear();
    rebuildOpenList();
    render();
  }

  // ---- opening a row -----------------------------------------------------

  // toggle opens or closes row r; i is its index in items, when known.
  function toggle(r, force, i = items.indexOf(r)) {
    const isOpen = opened.has(r);
    const want = force === undefined ? !isOpen : force;
    if (want === isOpen) return;
    if (want) opened.set(r, 0); else opened.delete(r);
    const node = live.get(i);
    if (node) {
      const head = node.querySelector(".head");
      head.setAttribute("aria-expanded", want ? "true" : "false");
      const d = node.querySelector(".detail");
      if (d) d.remove();
      if (want) node.append(detail(r));
      if (want) opened.set(r, Math.max(0, node.offsetHeight - ROW));
    }
    rebuildOpenList();
    render();
  }

  function jumpButton(r, text) {
    if (r < 0) return null;
    return el("button", { type: "button", class: "link", "data-row": r, onclick: () => jumpTo(r) },
      text || (E.id[r] || "line " + E.line[r]) + " (" + (typeName(r) || "?") + ")");
  }

  function envelope(r) {
    let env = { t: "o", m: [] };
    if (E.env[r] >= 0) {
      try { env = TC.parseJSON(D.envs[E.env[r]]); } catch (e) { /* shown as recorded */ }
    }
    const have = new Map(env.m);
    const s = (v) => ({ t: "s", v });
    if (E.id[r] !== "") have.set("event_id", s(E.id[r]));
    if (E.seq[r] >= 0) have.set("sequence", { t: "n", v: String(E.seq[r]) });
    if (E.ts[r] !== "") have.set("timestamp", s(E.ts[r]));
    if (E.type[r] >= 0) have.set("type", s(D.types[E.type[r]]));
    if (E.parent[r] >= 0) have.set("parent_event_id", s(E.id[E.parent[r]]));
    else if (E.parent[r] === -2) have.set("parent_event_id", s(dangling.get(r)));
    if (E.dur[r] !== "") have.set("duration_ms", { t: "n", v: E.dur[r] });
    const order = ["trace_version", "event_id", "session_id", "sequence", "timestamp", "type", "actor", "provenance", "redaction", "parent_event_id", "duration_ms"];
    const m = [];
    for (const k of order) if (have.has(k)) { m.push([k, have.get(k)]); have.delete(k); }
    for (const [k, v] of env.m) if (have.has(k)) { m.push([k, v]); have.delete(k); }
    return { t: "o", m };
  }

  function detail(r) {
    const f = E.flags[r];
    const d = el("div", { class: "detail", id: "d" + r });
    const facts = el("dl", { class: "facts" });
    const fact = (k, ...v) => { facts.append(el("dt", null, k), el("dd", null, ...v)); };
    const file = D.files[E.file[r]];
    fact("where", D.files.length > 1 ? file.name + ", line " + E.line[r] : "line " + E.line[r]);
    if (E.run[r] >= 0) fact("run", "Run " + (E.run[r] + 1) + " · " + (D.runs[E.run[r]].run || "(no run id)"));
    if (E.ts[r]) fact("time", E.ts[r]);
    if (E.actor[r] >= 0) fact("actor", D.laneNames[E.lane[r]] + " " + actorName(r));
    if (E.parent[r] >= 0) fact("parent", jumpButton(E.parent[r]));
    else if (E.parent[r] === -2) fact("parent", dangling.get(r) + " (no earlier event of this run has this id)");
    const t = typeName(r);
    if (E.link[r] >= 0) fact(t === "tool.request" ? "result" : "call", jumpButton(E.link[r]));
    d.append(facts);

    const notes = [];
    const note = (cls, ...kids) => notes.push(el("p", { class: "note " + cls }, ...kids));
    if (f & F.orphan) note("orphan", "No tool.result of this session answers this call: the run ended while the tool was running, and no resume has repaired it yet.");
    if (f & F.interrupted) note("interrupted", "This call never finished. Its result ", jumpButton(E.link[r], "(" + E.id[E.link[r]] + ")"), " was synthesized when the session resumed: the tool did not run.");
    if (f & F.synth) note("synth", "Synthesized by session resume (SESSION_RESUME_INTERRUPTED): the call ", jumpButton(E.link[r], E.link[r] >= 0 ? "(" + E.id[E.link[r]] + ")" : ""), " had no output when the previous run ended, so this error result tells the model it was not executed.");
    if (f & F.unmatched) note("problem", "No earlier tool.request of this session has this tool_call_id.");
    if (t === "context.compact") note("compact", "The context was compacted here: the messages before this point were replaced by a summary; later requests see fewer messages.");
    if (t === "session.start" && E.run[r] >= 0 && D.runs[E.run[r]].resumesId) {
      const R = D.runs[E.run[r]];
      note("resume", "This run resumes ", R.resumes >= 0 ? jumpButton(D.runs[R.resumes].first, "Run " + (R.resumes + 1)) : R.resumesId, ": it rebuilt the history from the journal and starts again at sequence 0.");
    }
    for (const B of D.branches) {
      if (B.row === r) {
        note("fork", "Branch ", el("code", null, B.id), " inherits sequences 0 to " + B.fork + " of " + B.parentRunId + " ",
          B.forkRow >= 0 ? jumpButton(B.forkRow, "(fork point)") : "(not in this page)",
          B.verdict === "match" ? "; its parent fingerprint matches that prefix, recomputed here." :
            B.verdict === "differ" ? "; its parent fingerprint does NOT match that prefix, recomputed here." : ".");
      }
      if ((f & F.inherited) && B.parentRun === E.run[r] && E.seq[r] <= B.fork) {
        note("fork", "Inherited by branch ", el("code", null, B.id), (B.forkRow === r ? " (its fork point)" : ""), ".");
      }
    }
    if (f & F.notReplayed) note("muted", "After --through " + D.through + ": not in the replay view.");
    if (f & F.fieldCut) {
      const bits = fieldCut.get(r) || 0;
      const names = CUT_FIELDS.filter((_, i) => bits & (1 << i));
      note("muted", "Cut: " + (names.length ? names.join(", ") : "a field") + (names.length === 1 ? " is" : " are") +
        " longer than the page holds (" + TC.fmtBytes(D.fieldLimit) + " of each field, as written in the page); what is shown is the start. Read line " + E.line[r] + " of the file for the whole.");
    }
    for (const p of problemsOf.get(r) || []) note("problem", el("code", null, p.code), p.pointer ? " at " + p.pointer : "", ": " + p.msg);
    d.append(...notes);

    // What the page keeps of a cut text: its first bytes, as many as fit in
    // the limit once written with the page's escapes.
    const kept = (limit) => {
      const c = cutOf.get(r) || { whole: 0, kept: 0 };
      return "Cut: it is " + TC.fmtBytes(c.whole) + "; the page keeps the first " + TC.fmtBytes(c.kept) +
        " (at most " + TC.fmtBytes(limit) + " as written in the page, escapes counted). Read line " + E.line[r] + " of the file for the rest.";
    };
    if (f & F.unreadable) {
      d.append(el("h4", null, "Line as written"));
      if (f & F.gone) d.append(el("p", { class: "note muted" }, "Left out: the page's payload budget was reached before this line (" + TC.fmtBytes(cutSize(r)) + "). Read line " + E.line[r] + " of the file."));
      else {
        if (f & F.cut) d.append(el("p", { class: "note muted" }, kept(D.lineLimit)));
        d.append(el("pre", { class: "json raw" }, E.payload[r] || "(empty)"));
      }
      return d;
    }
    d.append(el("h4", null, "Payload"));
    if (f & F.gone) d.append(el("p", { class: "note muted" }, "Left out: the page's payload budget was reached before this event (" + TC.fmtBytes(cutSize(r)) + "). Read line " + E.line[r] + " of the file."));
    else if (E.payload[r] === "") d.append(el("p", { class: "note muted" }, "This event has no payload."));
    else {
      if (f & F.cut) d.append(el("p", { class: "note muted" }, kept(D.payloadLimit)));
      d.append(TC.jsonBlock(E.payload[r], { cls: "payload" }));
    }
    d.append(el("h4", null, "Envelope"), TC.renderJSON(envelope(r), { cls: "envelope" }));
    return d;
  }

  // ---- moving around -----------------------------------------------------

  function isEvent(i) { return i >= 0 && i < items.length && items[i] >= 0; }

  function ensureVisible(i) {
    const top = topOf(i), bottom = top + ROW + (items[i] >= 0 && opened.has(items[i]) ? opened.get(items[i]) : 0);
    const vh = tl.clientHeight;
    if (top < tl.scrollTop) tl.scrollTop = Math.max(0, top - ROW);
    else if (top + ROW > tl.scrollTop + vh) tl.scrollTop = Math.min(bottom, top + 2 * ROW) - vh;
  }

  function setCur(i, focus, jump) {
    if (!isEvent(i)) return;
    cur = i;
    if (jump) tl.scrollTop = Math.max(0, topOf(i) - 3 * ROW);
    else ensureVisible(i);
    render();
    const node = live.get(i);
    if (node) {
      for (const n of tl.querySelectorAll(".item.current")) n.classList.remove("current");
      node.classList.add("current");
      if (focus) node.querySelector(".head").focus({ preventScroll: true });
    }
  }

  function move(delta) {
    let i = cur < 0 ? (delta > 0 ? -1 : items.length) : cur;
    const step = delta > 0 ? 1 : -1;
    let n = Math.abs(delta);
    let j = i;
    for (let k = i + step; k >= 0 && k < items.length; k += step) {
      if (isEvent(k)) { j = k; if (--n === 0) break; }
    }
    if (j !== i) setCur(j, true);
  }

  function jumpTo(r) {
    let i = items.indexOf(r);
    if (i < 0) { clearFilters(); i = items.indexOf(r); }
    if (i < 0) return;
    if (!opened.has(r)) toggle(r, true, i);
    setCur(i, true, true);
    const node = live.get(i);
    if (node) {
      for (const n of tl.querySelectorAll(".item.target")) n.classList.remove("target");
      node.classList.add("target");
    }
    if (location.hash !== "#r" + r) history.replaceState(null, "", "#r" + r);
  }

  // ---- filtering ---------------------------------------------------------

  const q = document.getElementById("q");
  const fType = document.getElementById("f-type");
  const fLane = document.getElementById("f-lane");
  const fTool = document.getElementById("f-tool");
  const fMarked = document.getElementById("f-marked");
  const count = document.getElementById("count");
  let hay = null; // lower-cased search text per row, built on first search

  function haystack(r) {
    return (E.id[r] + " " + typeName(r) + " " + actorName(r) + " " + E.payload[r]).toLowerCase();
  }

  function computeItems() {
    const text = q.value.trim().toLowerCase();
    const type = fType.value, lane = fLane.value, tool = fTool.value, marked = fMarked.checked;
    const typeIdx = type ? D.types.indexOf(type) : -2;
    const toolIdx = tool ? D.tools.indexOf(tool) : -2;
    const laneIdx = lane === "" ? -2 : Number(lane);
    if (text && !hay) { hay = new Array(N); for (let r = 0; r < N; r++) hay[r] = haystack(r); }
    const out = [];
    const pos = [];
    let lastRun = -2, shown = 0;
    for (let r = 0; r < N; r++) {
      if (typeIdx !== -2 && E.type[r] !== typeIdx) continue;
      if (laneIdx !== -2 && (E.lane[r] !== laneIdx || (E.flags[r] & F.unreadable))) continue;
      if (toolIdx !== -2 && E.tool[r] !== toolIdx) continue;
      if (marked && !(E.flags[r] & MARKED) && typeName(r) !== "context.compact" && typeName(r) !== "session.branch") continue;
      if (text && !hay[r].includes(text)) continue;
      if (E.run[r] !== lastRun && E.run[r] >= 0) { out.push(-E.run[r] - 1); pos.push(shown + 1); }
      if (E.run[r] >= 0) lastRun = E.run[r];
      out.push(r);
      pos.push(++shown);
    }
    items = Int32Array.from(out);
    posIndex = pos;
    setsize = shown;
    count.textContent = shown === N ? TC.plural(N, "event", "events") : "showing " + shown.toLocaleString("en-US") + " of " + TC.plural(N, "event", "events");
  }

  function refilter() {
    const curRow = isEvent(cur) ? items[cur] : -1;
    computeItems();
    cur = curRow >= 0 ? items.indexOf(curRow) : -1;
    if (cur < 0) cur = items.findIndex((x) => x >= 0);
    tl.scrollTop = cur >= 0 ? Math.max(0, topOf(cur) - ROW) : 0;
    relayout();
  }

  function clearFilters() {
    q.value = ""; fType.value = ""; fLane.value = ""; fTool.value = ""; fMarked.checked = false;
    refilter();
  }

  let timer = 0;
  q.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(refilter, 120); });
  for (const s of [fType, fLane, fTool, fMarked]) s.addEventListener("change", refilter);
  q.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === "Escape" || e.key === "ArrowDown") {
      e.preventDefault();
      if (e.key === "Escape" && q.value) { q.value = ""; refilter(); }
      clearTimeout(timer);
      if (e.key !== "Escape") refilter();
      if (cur >= 0) setCur(cur, true); else move(1);
    }
  });

  // ---- keys --------------------------------------------------------------

  tl.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const k = e.key;
    const here = isEvent(cur) ? items[cur] : -1;
    let handled = true;
    if (k === "j" || k === "ArrowDown") move(1);
    else if (k === "k" || k === "ArrowUp") move(-1);
    else if (k === "PageDown") move(10);
    else if (k === "PageUp") move(-10);
    else if (k === "Home") { cur = -1; move(1); }
    else if (k === "End") { cur = -1; move(-1); }
    else if (k === "p" && here >= 0 && E.parent[here] >= 0) jumpTo(E.parent[here]);
    else if (k === "t" && here >= 0 && E.link[here] >= 0) jumpTo(E.link[here]);
    else if (k === "Escape" && here >= 0 && opened.has(here)) { toggle(here, false); setCur(cur, true); }
    else handled = false;
    if (handled) e.preventDefault();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "/" && !TC.typing(e)) { e.preventDefault(); q.focus(); q.select(); }
  });
  tl.addEventListener("focus", () => { if (cur >= 0) setCur(cur, true); else move(1); });

  tl.addEventListener("scroll", () => {
    if (rendering) return;
    if (!tl.contains(document.activeElement)) {
      // The row Tab lands on follows what is in sight.
      const i = indexAt(tl.scrollTop + ROW);
      for (let k = i; k < items.length; k++) if (isEvent(k)) { cur = k; break; }
    }
    requestAnimationFrame(render);
  }, { passive: true });
  window.addEventListener("resize", () => {
    requestAnimationFrame(() => {
      for (const [i, node] of live) {
        const it = items[i];
        if (it >= 0 && opened.has(it)) opened.set(it, Math.max(0, node.offsetHeight - ROW));
      }
      rebuildOpenList();
      render();
    });
  });

  // Links from the overview (and #rN in the address: row N) open their
  // event. Rows have ids eN; the address uses another name so that the
  // browser's own jump to an anchor does not undo the page's placing.
  document.addEventListener("click", (e) => {
    const a = e.target.closest("a.jump");
    if (!a) return;
    e.preventDefault();
    jumpTo(Number(a.dataset.row));
  });
  window.addEventListener("hashchange", () => {
    const m = /^#r(\d+)$/.exec(location.hash);
    if (m && Number(m[1]) < N) jumpTo(Number(m[1]));
  });

  computeItems();
  cur = items.findIndex((x) => x >= 0);
  render();
  const m = /^#r(\d+)$/.exec(location.hash);
  if (m && Number(m[1]) < N) pendingJump = Number(m[1]);
  if (pendingJump !== null) jumpTo(pendingJump);
  requestAnimationFrame(() => {
    performance.mark("tc:rows");
    document.body.dataset.ready = "1";
  });
  // For tests and the curious: what the page holds.
  window.tracecheckView = { events: N, jumpTo, items: () => items.length };
})();
