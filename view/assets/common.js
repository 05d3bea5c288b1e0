// tracecheck view: helpers shared by the trace page and the diff page.
// Everything from the trace reaches the page through textContent or
// attribute values, never as markup.
"use strict";

const TC = (function () {
  // Characters shown escaped, as \u202e in a style of their own: formatting
  // characters (Unicode Cf: bidi embeddings, overrides and isolates, marks,
  // zero-width spaces and joiners, the BOM...), controls other than tab,
  // newline and carriage return, and the line and paragraph separators.
  // Shown raw they are invisible or reorder the text around them ("\u202e;
  // / fr- mr" would read "rm -rf /"). The same set as package view's
  // invisible (clip.go) and package textsafe's escapes.
  const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
  const INVISIBLE_ALL = new RegExp(INVISIBLE.source, "gu");
  function escape(ch) {
    const cp = ch.codePointAt(0);
    return cp > 0xffff ? "\\U" + cp.toString(16).padStart(8, "0") : "\\u" + cp.toString(16).padStart(4, "0");
  }
  // visText is s with each invisible character as its escape: for text
  // that cannot hold elements (an attribute).
  function visText(s) { return INVISIBLE.test(s) ? s.replace(INVISIBLE_ALL, escape) : s; }
  // appendText appends s to n as text, each invisible character as its
  // escape in a span of class "esc".
  function appendText(n, s) {
    if (!INVISIBLE.test(s)) { n.append(s); return; }
    let last = 0;
    for (const m of s.matchAll(INVISIBLE_ALL)) {
      if (m.index > last) n.append(s.slice(last, m.index));
      const e = document.createElement("span");
      e.className = "esc";
      e.textContent = escape(m[0]);
      n.append(e);
      last = m.index + m[0].length;
    }
    if (last < s.length) n.append(s.slice(last));
  }

  // el builds an element: attrs are set as properties or attributes,
  // children are nodes or strings (text, shown with appendText). Every
  // string from the trace reaches the page through here.
  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    if (attrs) {
      for (const k in attrs) {
        const v = attrs[k];
        if (v === undefined || v === null || v === false) continue;
        if (k === "class") n.className = v;
        else if (k === "text") appendText(n, String(v));
        else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
        else n.setAttribute(k, v === true ? "" : k.startsWith("data-") ? String(v) : visText(String(v)));
      }
    }
    for (const c of kids) {
      if (c === null || c === undefined || c === false) continue;
      if (c instanceof Node) n.append(c);
      else appendText(n, String(c));
    }
    return n;
  }

  // parseJSON reads JSON text into a tree that keeps what JSON.parse
  // loses: member order with duplicate keys, and each number's spelling.
  // Nodes: {t:"o", m:[[key, node]...]}, {t:"a", e:[node...]},
  // {t:"s"|"n"|"l", v:text} (l: true, false, null).
  function parseJSON(text) {
    let i = 0;
    const ws = () => { while (i < text.length && " \t\r\n".includes(text[i])) i++; };
    const fail = (what) => { throw new Error(what + " at offset " + i); };
    function str() {
      // A JSON string's text is a JS string literal's text too.
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      if (i >= text.length) fail("unterminated string");
      i++;
      return JSON.parse(text.slice(start, i));
    }
    function val(depth) {
      if (depth > 600) fail("too deep");
      ws();
      const c = text[i];
      if (c === "{") {
        i++;
        const m = [];
        ws();
        if (text[i] === "}") { i++; return { t: "o", m }; }
        for (;;) {
          ws();
          if (text[i] !== '"') fail("expected a key");
          const k = str();
          ws();
          if (text[i++] !== ":") fail("expected ':'");
          m.push([k, val(depth + 1)]);
          ws();
          if (text[i] === ",") { i++; continue; }
          if (text[i] === "}") { i++; return { t: "o", m }; }
          fail("expected ',' or '}'");
        }
      }
      if (c === "[") {
        i++;
        const e = [];
        ws();
        if (text[i] === "]") { i++; return { t: "a", e }; }
        for (;;) {
          e.push(val(depth + 1));
          ws();
          if (text[i] === ",") { i++; continue; }
          if (text[i] === "]") { i++; return { t: "a", e }; }
          fail("expected ',' or ']'");
        }
      }
      if (c === '"') return { t: "s", v: str() };
      const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
      if (!m) fail("unexpected character");
      i += m[0].length;
      return { t: m[0][0] === "t" || m[0][0] === "f" || m[0][0] === "n" ? "l" : "n", v: m[0] };
    }
    const v = val(0);
    ws();
    if (i !== text.length) fail("trailing text");
    return v;
  }

  function escPointer(k) { return k.replace(/~/g, "~0").replace(/\//g, "~1"); }

  // renderJSON draws a tree as indented JSON in a <pre>. Nodes whose JSON
  // pointer is in opts.marks get class "mark", those in opts.matched (a
  // tolerant golden's placeholders that matched) class "matched". With
  // opts.fold, an object or array below the top with nothing marked inside
  // is drawn as {…} or […]: the same on both sides of a diff, it would
  // only be noise.
  function renderJSON(node, opts) {
    opts = opts || {};
    const marks = opts.marks || null;
    const matched = opts.matched || null;
    const markList = marks ? [...marks] : [];
    const hasMarkBelow = (ptr) => markList.some((m) => m.startsWith(ptr + "/"));
    const pre = el("pre", { class: "json" + (opts.cls ? " " + opts.cls : "") });
    const out = [];
    function text(s, cls) { out.push(cls ? el("span", { class: cls }, s) : s); }
    function walk(n, ind, ptr) {
      const marked = marks && marks.has(ptr || "/");
      if (marked) {
        const span = el("span", { class: "mark", "data-pointer": ptr || "/" });
        const saved = out.length;
        inner(n, ind, ptr);
        const parts = out.splice(saved);
        span.append(...parts);
        out.push(span);
        return;
      }
      if (matched && matched.has(ptr)) {
        const span = el("span", { class: "matched", "data-pointer": ptr, title: "a placeholder of the golden: matched" });
        const saved = out.length;
        inner(n, ind, ptr);
        span.append(...out.splice(saved));
        out.push(span);
        return;
      }
      inner(n, ind, ptr);
    }
    function inner(n, ind, ptr) {
      if (opts.fold && ptr !== "" && (n.t === "o" || n.t === "a") && (n.t === "o" ? n.m.length : n.e.length) > 0 && !hasMarkBelow(ptr)) {
        return out.push(el("span", { class: "p folded", title: "unchanged" }, n.t === "o" ? "{…}" : "[…]"));
      }
      if (n.t === "o") {
        if (n.m.length === 0) return text("{}", "p");
        text("{", "p");
        n.m.forEach(([k, v], j) => {
          text("\n" + ind + "  ");
          text(JSON.stringify(k), "k");
          text(": ", "p");
          walk(v, ind + "  ", ptr + "/" + escPointer(k));
          if (j < n.m.length - 1) text(",", "p");
        });
        text("\n" + ind);
        text("}", "p");
      } else if (n.t === "a") {
        if (n.e.length === 0) return text("[]", "p");
        text("[", "p");
        n.e.forEach((v, j) => {
          text("\n" + ind + "  ");
          walk(v, ind + "  ", ptr + "/" + j);
          if (j < n.e.length - 1) text(",", "p");
        });
        text("\n" + ind);
        text("]", "p");
      } else if (n.t === "s") {
        text(JSON.stringify(n.v), "s");
      } else {
        text(n.v, n.t === "n" ? "n" : "l");
      }
    }
    walk(node, "", "");
    pre.append(...out);
    return pre;
  }

  // jsonBlock renders JSON text, or the text itself with a note when it
  // does not parse (a cut payload, an unreadable line).
  function jsonBlock(textJSON, opts) {
    try {
      return renderJSON(parseJSON(textJSON), opts);
    } catch (e) {
      return el("pre", { class: "json raw" }, textJSON);
    }
  }

  const short = (s, n) => { s = String(s); return s.length > n ? s.slice(0, n) + "…" : s; };
  const compact = (v) => (typeof v === "string" ? v : JSON.stringify(v));
  // Runs of white space become one space; the invisible characters \s
  // also matches (U+FEFF, U+2028, U+2029) are kept, to be shown escaped.
  const oneLine = (s) => String(s).replace(/[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g, " ");
  const num = (v) => (typeof v === "number" ? v.toLocaleString("en-US") : String(v));

  // summarize says in one line what an event of type t with payload p
  // did, for a reader who does not know the payload shapes.
  function summarize(t, p) {
    switch (t) {
      case "session.start":
        return (p.resumed ? "Session resumed from " + p.resumes_run_id : "Session started") +
          (p.max_turns !== undefined ? " · at most " + plural(p.max_turns, "turn", "turns") : "") +
          (p.tool_count !== undefined ? " · " + plural(p.tool_count, "tool", "tools") : "");
      case "session.stop":
        return "Session stopped: " + p.reason + (p.turns !== undefined ? " after " + plural(p.turns, "turn", "turns") : "");
      case "user.message":
        return oneLine(p.content);
      case "model.request":
        return "Turn " + p.turn + ": the model is sent " + plural(p.message_count, "message", "messages") +
          (Array.isArray(p.roles) ? " (" + p.roles.join(", ") + ")" : "") +
          (Array.isArray(p.tools) ? (p.tools.length ? " · tools: " + p.tools.join(", ") : " · no tools") : "");
      case "model.response": {
        const calls = Array.isArray(p.tool_calls) && p.tool_calls.length ?
          " → calls " + p.tool_calls.map((c) => c.name + "(" + short(compact(c.arguments || {}), 60) + ")").join(", ") : "";
        if (p.content !== undefined) return (p.content === "" ? (calls ? "" : "(no text)") : oneLine(p.content)) + calls;
        if (p.delta !== undefined) return "stream: " + JSON.stringify(p.delta) + (p.final ? " (final: " + oneLine(short(p.accumulated, 200)) + ")" : "") + calls;
        return generic(p);
      }
      case "tool.request":
        return p.tool + "(" + short(compact(p.arguments === undefined ? {} : p.arguments), 200) + ")" + (p.tool_call_id ? " · call " + p.tool_call_id : "");
      case "tool.result":
        if (p.ok === false) return p.tool + " failed: " + oneLine(short(p.error, 300));
        return p.tool + " → " + oneLine(short(compact(p.result), 300)) + (p.truncated ? " (truncated)" : "");
      case "session.replay":
        return "Replayed " + plural(p.applied_events, "event", "events") + " · stop reason " + p.stop_reason + " · fingerprint " + short(p.fingerprint, 12);
      case "session.branch":
        return "Branch " + p.branch_id + " of " + p.parent_run_id + " at sequence " + p.fork_sequence + " (" + plural(p.inherited_events, "event", "events") + " inherited)";
      case "context.compact":
        return "Context compacted: " + plural(p.dropped_messages, "message", "messages") + " dropped, " + num(p.original_chars) + " → " + num(p.final_chars) + " characters";
      case "checkpoint.create":
        return "Checkpoint " + p.checkpoint_id + " created" + (p.label ? " (" + p.label + ")" : "") + (p.clean_baseline ? " on a clean baseline" : "");
      case "checkpoint.diff":
        return "Changes since " + p.checkpoint_id + ": +" + p.additions + " −" + p.deletions + (Array.isArray(p.paths) ? " in " + p.paths.join(", ") : "");
      case "checkpoint.rollback":
        return "Rolled back to " + p.checkpoint_id + (Array.isArray(p.restored_paths) ? ": restored " + p.restored_paths.join(", ") : "") + (p.clean ? " (clean)" : "");
      case "approval.request":
        return "Approval asked for " + p.tool + (p.policy_effect ? " · policy says " + p.policy_effect : "");
      case "approval.decision":
        return "Approval " + p.outcome + " for " + p.tool;
      case "file.patch":
        return "File patched: " + p.path;
      case "error":
        return "Error" + (p.kind ? " (" + p.kind + ")" : "") + (p.message ? ": " + oneLine(p.message) : "");
    }
    return generic(p);
  }

  function generic(p) {
    const parts = [];
    for (const k of Object.keys(p)) {
      const v = p[k];
      parts.push(k + ": " + (v !== null && typeof v === "object" ? short(JSON.stringify(v), 40) : short(String(v), 60)));
      if (parts.length === 5) break;
    }
    return parts.join(" · ");
  }

  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  function fmtBytes(n) {
    if (n < 1024) return n + " bytes";
    if (n < 1 << 20) return (n / 1024).toFixed(1) + " KiB";
    return (n / (1 << 20)).toFixed(1) + " MiB";
  }

  function data() { return JSON.parse(document.getElementById("tc-data").textContent); }

  // A key typed in a form field is the field's own.
  function typing(e) {
    const t = e.target;
    return t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA" || t.isContentEditable);
  }

  return { el, visText, parseJSON, renderJSON, jsonBlock, plural, fmtBytes, data, typing, summarize, short, oneLine };
})();
