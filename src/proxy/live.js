"use strict";
// The live page of `toolstream serve` (one replayed stream, at `/`) and of
// `toolstream proxy` (every stream in flight and the recent ones, at `/live`). It reads an
// SSE feed with `fetch`: `event: meta` (what is shown), `event: stream` (a stream begins),
// one message per parser event (the event's JSON with `s`: its stream, `offset`: input bytes
// parsed when it was emitted, `us`: microseconds since the stream began), `event: full` (the
// server stopped keeping that stream's events) and `event: end` (the stream is over).
// Events are kept per stream and applied to the view of the selected one, unless paused.
const log = document.getElementById("log");
const statusEl = document.getElementById("status");
const progress = document.getElementById("progress");
const metaEl = document.getElementById("meta");
const pauseBtn = document.getElementById("pause");
const stepBtn = document.getElementById("step");
const replayBtn = document.getElementById("replay");
const speedSel = document.getElementById("speed");
const streamsNav = document.getElementById("streams");
const eventlog = document.getElementById("eventlog");
const rows = document.getElementById("eventlog-rows");
const rowCount = document.getElementById("eventlog-count");
const LIVE = location.pathname.replace(/\/+$/, "") === "/live";
const FEED = LIVE ? "/live/events" : "/events";
const ROWS = 2000;      // event log rows drawn at most (the newest)
let generation = 0;     // a Replay click abandons the replay before it
let last = null;        // the text or reasoning block deltas append to
let calls = new Map();  // call index -> card
let total = 1;          // input bytes, for the progress bar
let format = "";
let counts = { events: 0, calls: 0, errors: 0 };
const grown = new Set(); // boxed values that grew in this batch: their boxes scroll to the end
let streams = new Map(); // stream number -> { s, info, events, ended, outcome, full, button }
let selected = null;    // the stream shown
let picked = false;     // the reader chose a stream (else the newest is followed)
let applied = 0;        // events of the selected stream applied to the view
let paused = false;
let fed = false;        // the feed has ended (serve: the replay is all read)

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

// Text that grows by appending, kept in Text nodes of about 4 KB at most: appending to a
// Text node copies it, so one node per growing value would make a long stream quadratic.
class Grow {
  constructor(parent) { this.parent = parent; this.nodes = []; this.length = 0; }
  add(s) {
    if (!s) return;
    let t = this.nodes[this.nodes.length - 1];
    if (!t || t.length >= 4096) {
      t = document.createTextNode("");
      this.parent.append(t);
      this.nodes.push(t);
    }
    t.appendData(s);
    this.length += s.length;
  }
  get data() { return this.nodes.map(t => t.data).join(""); }
  set data(s) {
    for (const t of this.nodes) t.remove();
    this.nodes = [];
    this.length = 0;
    this.add(s);
  }
}

function bytes(n) {
  return n < 1024 ? `${n}\u00a0B` : n < 1048576 ? `${(n / 1024).toFixed(1)}\u00a0kB` : `${(n / 1048576).toFixed(1)}\u00a0MB`;
}

function plural(n, one, many) { return `${n} ${n === 1 ? one : many}`; }

// ---- text and reasoning ----

// Line breaks at the edges of a text block (the model's newlines around a call's markup)
// stay in the page but are not drawn: a block starts at its first character that is not
// one and ends at its last.
function closeRun() {
  if (last && last.kind === "reasoning") last.info.textContent = plural(last.text.length, "character", "characters");
  if (last && last.kind === "text") {
    let hidden = 0;
    const edge = el("span", "edge");
    for (const t of [...last.text.nodes].reverse()) {
      const breaks = /[\r\n]*$/.exec(t.data)[0].length;
      if (!breaks) break;
      edge.prepend(breaks === t.length ? t : t.splitText(t.length - breaks));
      hidden += breaks;
      if (breaks < t.length) break;
    }
    if (hidden) last.node.append(edge);
    if (hidden === last.text.length) last.node.classList.add("blank");
  }
  last = null;
}

function append(kind, delta) {
  if (!last || last.kind !== kind) {
    closeRun();
    if (kind === "reasoning") {
      const node = el("details", "reasoning");
      node.open = true;
      const summary = el("summary");
      const info = el("span", "info", "thinking…");
      summary.append(el("span", "label", "Reasoning"), info);
      const body = el("div", "body");
      node.append(summary, body);
      log.append(node);
      last = { kind, text: new Grow(body), info };
    } else {
      const node = el("div", "text");
      const lead = node.appendChild(el("span", "edge"));
      log.append(node);
      last = { kind, node, lead, text: new Grow(node) };
    }
  }
  if (last.lead) {
    const breaks = /^[\r\n]*/.exec(delta)[0].length;
    last.lead.append(delta.slice(0, breaks));
    delta = delta.slice(breaks);
    if (delta) last.lead = null;
  }
  last.text.add(delta);
}

// ---- errors ----

// Whether an error is a call stopped mid-argument: it broke its tool's JSON Schema
// (`--validate`) or ran away repeating itself (`--max-repeats`).
function stopped(e) { return e.kind === "schema_violation" || e.kind === "repetition"; }

// Where a stopped call broke: the keyword its message names (`tool call 0: enum: ...`), the
// JSON Pointer of the offending value and the byte of the call's text it broke at (`at` when
// the proxy cut the text it echoes, else the length of `raw`, which ends at that byte).
function breach(e, rawBytes) {
  const line = el("div", "broke");
  const said = (e.message || "").replace(/^tool call \d+: /, "");
  const keyword = e.kind === "repetition" ? "repetition" : (/^([A-Za-z$]+):/.exec(said) || [])[1] || "schema";
  line.append(el("code", "keyword", keyword));
  if (typeof e.path === "string") {
    line.append(" at ", e.path ? el("code", "path", e.path) : el("span", "path", "the arguments themselves"));
  }
  const at = typeof e.at === "number" ? e.at : rawBytes;
  if (at) line.append(el("span", "at", ` · broke at byte ${at} of the call's text`));
  return line;
}

// The kind, the message and the raw text an error carries; a stopped call's raw text has
// the byte it broke at marked.
function problem(e) {
  const box = el("div", "problem");
  const title = el("div", "title");
  title.append(el("span", "kind", e.kind || "error"), el("span", "message", e.message || ""));
  box.append(title);
  const raw = typeof e.raw === "string" ? e.raw : "";
  const rawBytes = new TextEncoder().encode(raw).length;
  const stop = stopped(e) && e.index != null;
  if (stop) box.append(breach(e, rawBytes));
  box.append(el("div", "label", raw ? `received (${bytes(rawBytes)})` : "nothing received"));
  if (raw) {
    const pre = el("pre", "raw-text");
    // The raw text ends at the byte it broke at unless the proxy cut it shorter (`at`).
    if (stop && (typeof e.at !== "number" || e.at === rawBytes)) {
      const chars = Array.from(raw);
      const last = chars.pop();
      pre.append(chars.join(""), el("mark", "at", last));
    } else {
      pre.textContent = raw;
    }
    box.append(pre);
  }
  return box;
}

// ---- tool calls ----

function card(index, name, id) {
  closeRun();
  const node = el("section", "call");
  node.dataset.state = "streaming";
  node.dataset.index = index;
  const head = el("div", "head");
  const nameEl = el("span", name ? "name" : "name unnamed", name || "call without a name");
  const state = el("span", "state", "streaming…");
  const timing = el("span", "timing");
  const copy = el("button", "copy", "Copy arguments");
  copy.type = "button";
  head.append(nameEl, el("span", "id", id || ""), timing, copy, state);
  const tree = el("div", "tree");
  const raw = el("details", "raw");
  const summary = el("summary", null, "JSON arguments");
  const size = el("span", "size");
  summary.append(size);
  const args = el("pre", "args");
  raw.append(summary, args);
  // The proxy's feed has no field events: the arguments show as they stream.
  if (LIVE) raw.open = true;
  node.append(head, tree, raw);
  log.append(node);
  const c = { node, state, tree, raw, args, size, text: new Grow(args), nodes: new Map(), filling: null,
              timing, sent: "", fields: false, startUs: null };
  copy.addEventListener("click", () => copyText(copy, c.sent));
  calls.set(index, c);
  counts.calls++;
  return c;
}

function unescapeKey(s) { return s.replace(/~1/g, "/").replace(/~0/g, "~"); }
function escapeKey(s) { return s.replace(/~/g, "~0").replace(/\//g, "~1"); }
const INDEX = /^(0|[1-9][0-9]*)$/;

// The tree node of a JSON Pointer in a call's arguments, made (with its parents) when new.
// `kind` is "leaf", "obj" or "arr"; a parent's kind is guessed from its child's key until
// the call ends (an index: an array) and settled then from the parsed arguments.
function field(c, path, kind) {
  const known = c.nodes.get(path);
  if (known) return known;
  const cut = path.lastIndexOf("/");
  const key = cut < 0 ? null : unescapeKey(path.slice(cut + 1));
  const guess = key !== null && INDEX.test(key) ? "arr" : "obj";
  const parent = cut > 0 ? field(c, path.slice(0, cut), guess) : null;
  if (cut === 0 && !c.tree.children.length) c.tree.classList.toggle("arr", guess === "arr");
  const f = el("div", "f " + kind);
  f.dataset.path = path;
  const n = { f, kind, key, v: null, text: null, kids: null, sum: null, block: false, lines: false };
  if (key === null) f.classList.add("root");
  else f.append(el("span", "k", key));
  if (kind === "leaf") {
    n.v = el("span", "v");
    n.text = new Grow(n.v);
    f.append(n.v);
  } else {
    n.sum = el("span", "sum");
    n.kids = el("div", "kids");
    f.append(n.sum, n.kids);
  }
  (parent ? parent.kids : c.tree).append(f);
  if (parent) count(parent);
  c.nodes.set(path, n);
  return n;
}

function count(n) {
  const k = n.kids.children.length;
  n.sum.textContent = n.kind === "arr" ? (k ? `[${plural(k, "item", "items")}]` : "[]")
    : (k ? `{${plural(k, "key", "keys")}}` : "{}");
}

// Long strings go below their key, full width; multi-line ones (code, patches) monospace.
// `added` is the text just added.
function shape(n, added) {
  if (!n.block && n.text.length > 60) {
    n.block = true;
    n.f.classList.add("block");
  }
  if (!n.lines && added.includes("\n")) {
    n.lines = n.block = true;
    n.f.classList.add("block", "lines");
  }
}

function filling(c, n) {
  if (c.filling === n) return;
  if (c.filling) c.filling.f.classList.remove("filling");
  c.filling = n;
  if (n) n.f.classList.add("filling");
}

// At the call's end: the parsed arguments settle every node's kind and type, and add what
// sent no field event (empty objects and arrays).
function settle(c, value, path) {
  if (value !== null && typeof value === "object") {
    const kind = Array.isArray(value) ? "arr" : "obj";
    if (path === "") {
      c.tree.classList.toggle("arr", kind === "arr");
      if (Object.keys(value).length === 0 && !c.tree.children.length) {
        c.node.insertBefore(el("div", "none", "no arguments"), c.raw);
      }
    } else {
      const n = field(c, path, kind);
      if (n.kind !== kind && n.kids) {
        n.kind = kind;
        n.f.className = `f ${kind}`;
      }
      if (n.sum) count(n);
    }
    for (const [k, v] of Object.entries(value)) settle(c, v, `${path}/${escapeKey(k)}`);
    return;
  }
  const n = field(c, path, "leaf");
  if (!n.v) return;
  // Strings as decoded; numbers and literals keep the JSON text they streamed as.
  if (typeof value === "string") {
    if (n.text.data !== value) n.text.data = value;
  } else if (!n.text.length) {
    n.text.add(JSON.stringify(value));
  }
  n.v.classList.add("t-" + (value === null ? "null" : typeof value === "string" ? "str" : typeof value === "number" ? "num" : typeof value));
  shape(n, typeof value === "string" ? value : "");
}

// JSON text laid out one member per line (one pass over the tokens; numbers and strings
// kept exactly as sent), so the raw arguments wrap at their own structure.
function indent(json) {
  let out = "", depth = 0, inStr = false, esc = false;
  const nl = () => "\n" + "  ".repeat(depth);
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (inStr) {
      out += ch;
      if (esc) esc = false;
      else if (ch === "\\") esc = true;
      else if (ch === '"') inStr = false;
      continue;
    }
    if (ch === '"') { inStr = true; out += ch; }
    else if (ch === "{" || ch === "[") {
      let j = i + 1;
      while (j < json.length && " \t\r\n".includes(json[j])) j++;
      if (json[j] === (ch === "{" ? "}" : "]")) { out += ch + json[j]; i = j; }
      else { depth++; out += ch + nl(); }
    } else if (ch === "}" || ch === "]") { depth = Math.max(0, depth - 1); out += nl() + ch; }
    else if (ch === ",") out += "," + nl();
    else if (ch === ":") out += ": ";
    else if (!" \t\r\n".includes(ch)) out += ch;
  }
  return out;
}

function callOf(e) { return calls.get(e.index) || card(e.index, null, null); }

// When an event came, in milliseconds since its stream began (`us`), for the reader.
function ms(e) { return typeof e.us === "number" ? (e.us / 1000).toFixed(1) : null; }

function timed(c, what, e) {
  const t = ms(e);
  if (t === null) return;
  c.timing.textContent = c.timing.textContent ? `${c.timing.textContent} · ${what} ${t} ms` : `${what} ${t} ms`;
}

function onEvent(e) {
  counts.events++;
  if (typeof e.offset === "number" && !LIVE) progress.value = e.offset / total;
  switch (e.type) {
    case "text": append("text", e.delta); break;
    case "reasoning": append("reasoning", e.delta); break;
    case "tool_call_start": {
      const known = calls.get(e.index);
      if (!known) { timed(card(e.index, e.name, e.id), "name at", e); break; }
      timed(known, "name at", e);
      // A card made by an earlier event of this call: it learns its name.
      const nameEl = known.node.querySelector(".name");
      nameEl.textContent = e.name;
      nameEl.className = "name";
      known.node.querySelector(".id").textContent = e.id;
      break;
    }
    case "tool_call_args": {
      const c = callOf(e);
      c.text.add(e.delta);
      c.sent += e.delta;
      c.size.textContent = `· ${bytes(c.text.length)}`;
      break;
    }
    case "tool_call_field": {
      const c = callOf(e);
      c.fields = true;
      const n = field(c, e.path, "leaf");
      if (!n.text) break;
      n.text.add(e.delta);
      shape(n, e.delta);
      filling(c, n);
      if (n.block) grown.add(n.v);
      break;
    }
    case "tool_call_field_end": {
      const c = callOf(e);
      field(c, e.path, "leaf");
      filling(c, null);
      break;
    }
    case "tool_call_end": {
      const c = callOf(e);
      filling(c, null);
      settle(c, e.arguments, "");
      c.text.data = indent(c.text.data);
      c.node.dataset.state = "done";
      c.state.textContent = "✓ complete";
      if (LIVE && !c.fields) c.raw.open = false;
      if (!c.sent) c.sent = JSON.stringify(e.arguments);
      timed(c, "done at", e);
      break;
    }
    case "finish": {
      closeRun();
      const u = e.usage || {};
      const tokens = u.total_tokens != null ? ` · ${u.total_tokens} tokens`
        : u.output_tokens != null ? ` · ${u.output_tokens} output tokens` : "";
      log.append(el("div", "finish", `finish: ${e.reason ?? "–"}${tokens}`));
      break;
    }
    case "error": {
      counts.errors++;
      const box = problem(e);
      if (e.index != null) {
        const c = callOf(e);
        filling(c, null);
        c.node.dataset.state = "error";
        c.state.textContent = e.kind === "schema_violation" ? "✗ stopped: breaks its schema"
          : e.kind === "repetition" ? "✗ stopped: runaway loop" : "✗ failed";
        if (typeof e.raw === "string" && e.raw) c.sent = e.raw;
        timed(c, "failed at", e);
        c.raw.querySelector("summary").firstChild.data = "arguments as received";
        c.node.insertBefore(box, c.raw);
      } else {
        closeRun();
        const wrap = el("div", "error");
        box.querySelector(".title").prepend(el("span", "what", "Error"));
        wrap.append(box);
        log.append(wrap);
      }
      break;
    }
  }
}

// ---- copying ----

// Copies `text` to the clipboard (the Clipboard API, else a selected textarea), and says so
// on the button.
function copyText(button, text) {
  const said = button.textContent;
  const say = ok => {
    button.textContent = ok ? "Copied" : "Copy failed";
    setTimeout(() => { button.textContent = said; }, 1500);
  };
  const fallback = () => {
    const area = el("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.append(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (_) { ok = false; }
    area.remove();
    say(ok);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => say(true), fallback);
  } else {
    fallback();
  }
}

// ---- the event log ----

function detail(e) {
  switch (e.type) {
    case "text": case "reasoning": return JSON.stringify(e.delta);
    case "tool_call_start": return `[${e.index}] ${e.name} ${e.id || ""}`;
    case "tool_call_args": case "tool_call_field":
      return `[${e.index}]${e.path !== undefined ? " " + e.path : ""} ${JSON.stringify(e.delta)}`;
    case "tool_call_field_end": return `[${e.index}] ${e.path}`;
    case "tool_call_end": return `[${e.index}] ${e.name} ${JSON.stringify(e.arguments)}`;
    case "finish": return `${e.reason ?? "–"}${e.usage ? " " + JSON.stringify(e.usage) : ""}`;
    case "error": return `${e.index != null ? `[${e.index}] ` : ""}${e.kind}: ${e.message}${typeof e.path === "string" ? ` at "${e.path}"` : ""}`;
    default: return "";
  }
}

function row(e, n) {
  const tr = el("tr");
  tr.dataset.n = n;
  tr.append(el("td", null, String(n + 1)), el("td", null, ms(e) ?? ""),
    el("td", null, typeof e.offset === "number" ? String(e.offset) : ""),
    el("td", null, e.type), el("td", null, detail(e)));
  return tr;
}

// Redraws the log of the selected stream: every event received (the newest `ROWS`), those
// not yet applied (paused) dimmed. Drawn only while the log is open.
function drawLog() {
  const st = streams.get(selected);
  const list = st ? st.events : [];
  rowCount.textContent = `(${list.length}${st && st.full ? "+, log full" : ""})`;
  if (!eventlog.open) return;
  rows.textContent = "";
  const from = Math.max(0, list.length - ROWS);
  for (let i = from; i < list.length; i++) {
    const tr = row(list[i], i);
    if (i >= applied) tr.className = "pending";
    else if (i === applied - 1 && paused) tr.className = "current";
    rows.append(tr);
  }
}

// The log of the selected stream after `n` more events were received or applied.
function logged() {
  if (!eventlog.open) {
    const st = streams.get(selected);
    rowCount.textContent = st ? `(${st.events.length}${st.full ? "+, log full" : ""})` : "";
    return;
  }
  drawLog();
}

eventlog.addEventListener("toggle", drawLog);
document.getElementById("copy-log").addEventListener("click", e => {
  const st = streams.get(selected);
  const text = st ? st.events.map(x => JSON.stringify(x)).join("\n") + "\n" : "";
  copyText(e.currentTarget, text);
});

// ---- streams ----

function status() {
  const parts = [plural(counts.calls, "call", "calls")];
  if (counts.errors) parts.push(plural(counts.errors, "error", "errors"));
  const st = streams.get(selected);
  const waiting = st ? st.events.length - applied : 0;
  if (paused) parts.push(waiting ? `paused · ${waiting} waiting` : "paused");
  return parts.join(" · ");
}

function resetView() {
  log.textContent = "";
  last = null; calls = new Map(); counts = { events: 0, calls: 0, errors: 0 };
  grown.clear();
  applied = 0;
  if (!LIVE) progress.value = 0;
}

function label(st) {
  const i = st.info || {};
  const when = i.started ? new Date(i.started).toLocaleTimeString() : "";
  return `#${st.s} ${i.model || i.file || ""} ${when}`.replace(/\s+/g, " ").trim();
}

function streamState(st) {
  if (!st.ended) return "live";
  return st.outcome === "refused" ? "refused" : st.outcome === "upstream failed" ? "failed" : "done";
}

function drawButton(st) {
  if (!LIVE) return;
  if (!st.button) {
    st.button = el("button");
    st.button.type = "button";
    st.button.dataset.s = st.s;
    st.button.addEventListener("click", () => { picked = true; select(st.s); });
    const none = streamsNav.querySelector(".none");
    if (none) none.remove();
    streamsNav.prepend(st.button);
  }
  const state = streamState(st);
  st.button.dataset.state = state;
  st.button.textContent = label(st);
  st.button.append(el("span", "st", state === "live" ? "● live" : st.outcome || state));
  st.button.setAttribute("aria-current", String(st.s === selected));
}

function select(s) {
  selected = s;
  for (const st of streams.values()) drawButton(st);
  resetView();
  const st = streams.get(s);
  if (st) {
    if (LIVE) metaEl.textContent = describe(st);
    if (!paused) applyUpTo(st.events.length);
  }
  drawLog();
  settleState();
}

function describe(st) {
  const i = st.info || {};
  const tools = Array.isArray(i.tools) && i.tools.length ? ` · tools ${i.tools.join(", ")}` : "";
  return `${label(st)} · ${format}${tools}`;
}

// Applies the selected stream's events up to `n`.
function applyUpTo(n) {
  const st = streams.get(selected);
  if (!st) return;
  const follow = atBottom();
  while (applied < Math.min(n, st.events.length)) onEvent(st.events[applied++]);
  if (st.ended && applied === st.events.length) closeRun();
  for (const v of grown) v.scrollTop = v.scrollHeight;
  grown.clear();
  if (follow) window.scrollTo(0, document.documentElement.scrollHeight);
}

function settleState() {
  const st = streams.get(selected);
  const all = st && applied === st.events.length;
  if (LIVE) {
    document.body.dataset.state = paused ? "paused" : "live";
    statusEl.textContent = st ? `${streamState(st) === "live" ? "streaming" : st.outcome} · ${status()}`
      : `waiting for a stream · ${streams.size} recorded`;
    return;
  }
  if (fed && all && st && st.ended) {
    if (!counts.events && !log.querySelector(".empty")) {
      log.append(el("div", "empty",
        `The parser produced no event for this input as ${format}: is the format (or --framing) right?`));
    }
    progress.value = 1;
    statusEl.textContent = `done · ${status()}`;
    document.body.dataset.state = "done";
  } else {
    statusEl.textContent = `${paused ? "" : "replaying… "}${status()}`;
    document.body.dataset.state = paused ? "paused" : "streaming";
  }
}

function stream(info) {
  const st = { s: info.s ?? 0, info, events: [], ended: false, outcome: null, full: false, button: null };
  streams.set(st.s, st);
  drawButton(st);
  if (selected === null || (!picked && LIVE)) select(st.s);
  return st;
}

function handle(message) {
  let event = "message", data = "";
  for (const line of message.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data += line.slice(5).trimStart();
  }
  if (!data) return;
  const v = JSON.parse(data);
  if (event === "meta") {
    total = Math.max(1, v.bytes || 1);
    format = v.content ? `${v.format} with --content ${v.content}` : v.format;
    if (!LIVE) {
      metaEl.textContent = `${v.file} · ${format} · ${bytes(v.bytes)}`;
      if (typeof v.speed === "number" && !speedSel.dataset.set) {
        const want = String(v.speed);
        if (![...speedSel.options].some(o => o.value === want)) {
          const o = el("option", null, `${want}×`);
          o.value = want;
          speedSel.append(o);
        }
        speedSel.value = want;
        speedSel.dataset.set = "1";
      }
      if (!streams.size) stream({ s: 0, file: v.file });
    } else {
      metaEl.textContent = `proxy · ${format} · keeps ${v.recent} recent streams`;
    }
  } else if (event === "stream") {
    const known = streams.get(v.s ?? 0);
    if (known) { known.info = { ...known.info, ...v }; drawButton(known); } else stream(v);
  } else if (event === "message") {
    const st = streams.get(v.s ?? 0) || stream({ s: v.s ?? 0 });
    st.events.push(v);
  } else if (event === "full") {
    const st = streams.get(v.s ?? 0);
    if (st) st.full = true;
  } else if (event === "end") {
    const st = streams.get(v.s ?? 0);
    if (st) {
      st.ended = true;
      st.outcome = v.outcome || "done";
      drawButton(st);
    }
  } else if (event === "lagged") {
    throw new Error("fell behind the feed");
  }
}

// Keeps the newest output in view while the reader is at the bottom of the page.
function atBottom() {
  return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 48;
}

async function run() {
  const mine = ++generation;
  streams = new Map(); selected = null; picked = picked && LIVE; fed = false;
  if (LIVE) streamsNav.textContent = "";
  resetView();
  document.body.dataset.state = LIVE ? "live" : "streaming";
  statusEl.textContent = LIVE ? "connecting…" : "replaying…";
  const speed = !LIVE && speedSel.dataset.set ? `?speed=${encodeURIComponent(speedSel.value)}` : "";
  try {
    const res = await fetch(FEED + speed, { cache: "no-store" });
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (mine !== generation) { reader.cancel().catch(() => {}); return; }
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let at = 0, i;
      while ((i = buf.indexOf("\n\n", at)) >= 0) {
        handle(buf.slice(at, i));
        at = i + 2;
      }
      buf = buf.slice(at);
      // What came in this read, applied at once (one layout per read, not per event).
      const st = streams.get(selected);
      if (st && !paused) applyUpTo(st.events.length);
      logged();
      if (LIVE && !streams.size) {
        streamsNav.textContent = "";
        streamsNav.append(el("span", "none", "no stream yet: send a streamed chat request through the proxy"));
      }
      settleState();
    }
    fed = true;
    if (LIVE) throw new Error("the feed ended");
    settleState();
  } catch (err) {
    if (mine !== generation) return;
    statusEl.textContent = "failed: " + err.message;
    document.body.dataset.state = "failed";
    // The proxy's feed: connect again (a restart, or a page that fell behind).
    if (LIVE) setTimeout(() => { if (mine === generation) run(); }, 1000);
  }
}

pauseBtn.addEventListener("click", () => {
  paused = !paused;
  pauseBtn.textContent = paused ? "Resume" : "Pause";
  pauseBtn.setAttribute("aria-pressed", String(paused));
  stepBtn.disabled = !paused;
  if (!paused) {
    const st = streams.get(selected);
    if (st) applyUpTo(st.events.length);
  }
  drawLog();
  settleState();
});
stepBtn.addEventListener("click", () => {
  if (!paused) return;
  applyUpTo(applied + 1);
  drawLog();
  settleState();
});
replayBtn.addEventListener("click", () => {
  if (LIVE) { const st = streams.get(selected); select(st ? st.s : null); return; }
  run();
});
speedSel.addEventListener("change", () => { speedSel.dataset.set = "1"; run(); });
if (LIVE) {
  streamsNav.hidden = false;
  replayBtn.textContent = "Redraw";
} else {
  document.getElementById("speed-label").hidden = false;
}
run();
