//! The engine of a spec whose delimiters are regular expressions (`open_pattern`,
//! `close_pattern`, `start_anchor_pattern`, `xml-inline`'s `tag_pattern`): the
//! template's fields as regions found by one [`PatternMatcher`] over the stream.
//!
//! A spec whose delimiters are all literals compiles onto the built-in engines
//! ([`json`](crate::text::json), [`xml`](crate::text::xml)) and runs their literal marker
//! search; this engine is only for specs that need a pattern.
//!
//! ```text
//!   Out ──open of a text field──> In(field) ──its close──> Out
//!    │                                 (reasoning or text events; no close: to the end)
//!    └──open of tool_calls──> Call: Body ──value complete──> After ──close──> Out
//!                                    │ broken ──> Skip ──close──> Error ──> Out
//!                                    └ another call's open (outside a JSON string): the
//!                                      call ends (an Error unless it was complete) and
//!                                      the new one starts
//! ```
//!
//! - **Split invariance.** What is watched changes only at a match (outside: every
//!   field's open, the `content` field's closes (tokens dropped from the text) and the
//!   start anchor; in a text field: its close; in a call: its close, the call open and
//!   the tag pattern), so the matcher's own guarantee (the matches a whole-input search
//!   gives, whatever the cuts; see [`scan::pattern`](crate::scan::pattern)) carries over
//!   to the events.
//! - **A close does not close inside a JSON string** (transformers' does): a close, or
//!   a call open, that matches while the call's JSON is inside a string is more of the
//!   string. Outside a string a close ends the call: complete if its JSON value closed,
//!   otherwise an `Error` with the call's raw bytes.
//! - **Call bodies.** `json` with `{"name": "{G}", "arguments": "{content}"}` (`G` a
//!   named group of the open pattern): the name is the group's bytes, the body the
//!   arguments value (gpt-oss); with `"{content}"` or `{"name": "{content.K}",
//!   "arguments": "{content.A}"}`: the body is a call object (the kit's
//!   [`JsonCall`] walker, as `hermes`). `xml-inline`: each `tag_pattern` match is a
//!   parameter (its `key` and `value` groups), the value JSON when `value_parser` says
//!   `json` and it parses, else a string; a repeated parameter is an `Error` with the
//!   raw call.
//! - Text between a call's value and its close is text (the call stays complete); the
//!   other bytes of a call region are the call's (its raw text); the matched delimiters
//!   are consumed.
//! - **Outside every region**: text when the template has a leftover field (`content`
//!   without an open), otherwise dropped, as transformers drops bytes no field takes
//!   ([`Plan::outside_text`]). A field's `join` is emitted before each of its regions but
//!   the first.

use serde_json::Value;

use crate::calls::{Calls, Slot};
use crate::event::{ErrorKind, EventRef, EventSink};
use crate::limits::Limits;
use crate::scan::json::{JsonScanner, JsonStatus};
use crate::scan::pattern::{Delimiter, PatternMatcher, PatternSet, Step, Watch};
use crate::scan::utf8::Utf8Holder;
use crate::text::json::{CallList, List};
use crate::text::kit::call::Forming;
use crate::text::kit::json_call::{JsonCall, Shape, Walk};

/// What a region's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Reasoning events.
    Reasoning,
    /// Text events.
    Text,
    /// Tool calls.
    Calls,
}

/// A field with an opening delimiter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Region {
    pub(crate) kind: Kind,
    /// Its open's pattern in the set.
    pub(crate) open: usize,
    /// Its close's pattern; `None`: the region runs to the end of the stream.
    pub(crate) close: Option<usize>,
    /// The field's `join`: emitted when the region opens again (before its second
    /// region's bytes, and so on), as transformers joins a repeated field's values.
    pub(crate) join: Option<String>,
}

/// What a call region's body is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Body {
    /// The arguments JSON value; the name is the open's group `group`.
    Args { group: String },
    /// A JSON call object.
    Object(Shape),
    /// A JSON list of call objects (`transform_each`; a lone object is read too).
    List(Shape),
    /// Parameters, each a match of pattern `tag` (groups `key`, `value`); the name is
    /// the open's group `group`; `values`: what a value is.
    Tags {
        group: String,
        tag: usize,
        values: Values,
    },
}

/// What a parameter's value is (`content_args.value_parser`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Values {
    /// No value parser: the value's bytes, a string.
    Raw,
    /// `text`: the value's bytes without surrounding whitespace, a string.
    Text,
    /// `json`: the value as JSON when it parses (after each `open ... close` of
    /// `string_delims` became a JSON string), else as `text`.
    Json {
        string_delims: Vec<(String, String)>,
    },
}

impl Values {
    /// The value of a parameter whose bytes are `raw`.
    fn value(&self, raw: &str) -> Value {
        match self {
            Values::Raw => Value::String(raw.to_owned()),
            Values::Text => Value::String(raw.trim().to_owned()),
            Values::Json { string_delims } => {
                let quoted = quote_delimited(raw, string_delims);
                serde_json::from_str::<Value>(&quoted)
                    .unwrap_or_else(|_| Value::String(raw.trim().to_owned()))
            }
        }
    }
}

/// `raw` with every `open ... close` of each delimiter pair (in turn; the first close
/// after an open ends it) written as a JSON string: `'Paris'` is `"Paris"` with `'`.
fn quote_delimited(raw: &str, delims: &[(String, String)]) -> String {
    let mut s = raw.to_owned();
    for (open, close) in delims {
        let mut out = String::with_capacity(s.len() + 2);
        let mut rest = s.as_str();
        while let Some(o) = rest.find(open.as_str()) {
            let after = rest.get(o + open.len()..).unwrap_or_default();
            let Some(c) = after.find(close.as_str()) else {
                break;
            };
            out.push_str(rest.get(..o).unwrap_or_default());
            out.push_str(&Value::String(after.get(..c).unwrap_or_default().to_owned()).to_string());
            rest = after.get(c + close.len()..).unwrap_or_default();
        }
        out.push_str(rest);
        s = out;
    }
    s
}

/// A spec compiled for this engine.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The delimiters; pattern `i` of `set` is `delims[i]`.
    pub(crate) delims: Vec<Delimiter>,
    pub(crate) set: PatternSet,
    pub(crate) regions: Vec<Region>,
    /// Patterns consumed outside regions, nothing emitted (the `content` field's closes
    /// without an open; a `start_anchor_pattern`, anchored at the stream start).
    pub(crate) drops: Vec<usize>,
    pub(crate) body: Body,
    /// Bytes outside every region are text (the template has a `content` field without
    /// an open: the leftover text); otherwise they are no field's and are dropped, as
    /// transformers' `parse_response` drops them.
    pub(crate) outside_text: bool,
    /// The leftover field's `join`, emitted before each run of outside text but the
    /// first.
    pub(crate) outside_join: Option<String>,
    /// The `response_template` as read (what [`Syntax::to_json`](crate::Syntax::to_json)
    /// writes back).
    pub(crate) source: Value,
}

impl PartialEq for Plan {
    fn eq(&self, other: &Self) -> bool {
        self.delims == other.delims
            && self.regions == other.regions
            && self.drops == other.drops
            && self.body == other.body
            && self.outside_text == other.outside_text
            && self.outside_join == other.outside_join
            && self.source == other.source
    }
}

impl Eq for Plan {}

impl Plan {
    fn watch_out(&self) -> Watch {
        let mut w = Watch::NONE;
        for r in &self.regions {
            w = w.with(r.open);
        }
        for &d in &self.drops {
            w = w.with(d);
        }
        w
    }

    fn watch_in(&self, r: &Region) -> Watch {
        let mut w = r.close.map_or(Watch::NONE, Watch::only);
        if r.kind == Kind::Calls {
            for c in self.regions.iter().filter(|c| c.kind == Kind::Calls) {
                w = w.with(c.open);
            }
            if let Body::Tags { tag, .. } = self.body {
                w = w.with(tag);
            }
        }
        w
    }
}

/// Where the scanner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Out,
    /// In text region `usize`.
    In(usize),
    /// In call region `usize`.
    Call(usize, CallAt),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallAt {
    /// Reading the body.
    Body,
    /// The value closed; up to the close.
    After,
    /// After the value, text came: all of it is text up to the close.
    Trailing,
    /// Broken (`ErrorKind`); its bytes go to the raw text up to the close.
    Skip(ErrorKind),
}

/// The state besides the matcher.
#[derive(Debug)]
struct State {
    plan: Plan,
    at: At,
    utf8: Utf8Holder,
    scratch: String,
    /// The current call's bytes, from its open.
    raw: Forming,
    slot: Option<Slot>,
    /// [`Body::Args`]: the arguments value.
    value: JsonScanner,
    /// [`Body::Object`]: the call object.
    walker: Option<JsonCall>,
    /// [`Body::List`]: the list of call objects, and whether its `[` (or lone `{`) was
    /// read.
    list: Option<CallList>,
    list_open: bool,
    /// [`Body::Tags`]: parameters seen.
    keys: Vec<String>,
    /// Per region: it has opened before (its `join` goes before the next one).
    seen: Vec<bool>,
    /// Outside text: a run has been emitted before; one is being emitted now.
    outside_seen: bool,
    outside_run: bool,
}

/// The scanner of a [`Plan`].
#[derive(Debug)]
pub(crate) struct Regions {
    m: PatternMatcher,
    st: State,
}

impl Regions {
    pub(crate) fn new(plan: Plan, limits: &Limits) -> Self {
        let mut m = PatternMatcher::new(&plan.set).with_max_held(limits.max_held_bytes);
        m.watch(plan.watch_out());
        let walker = match &plan.body {
            Body::Object(shape) => Some(JsonCall::with_shape(shape.clone(), limits)),
            _ => None,
        };
        let list = match &plan.body {
            Body::List(shape) => Some(CallList::new(shape.clone(), limits)),
            _ => None,
        };
        Regions {
            m,
            st: State {
                plan,
                at: At::Out,
                utf8: Utf8Holder::new(),
                scratch: String::new(),
                raw: Forming::new(limits.max_argument_bytes),
                slot: None,
                value: JsonScanner::with_max_depth(limits.max_depth),
                walker,
                list,
                list_open: false,
                keys: Vec::new(),
                seen: Vec::new(),
                outside_seen: false,
                outside_run: false,
            },
        }
    }

    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        let mut input = bytes;
        let Regions { m, st } = self;
        while let Some(step) = m.next(&mut input) {
            if let Some(w) = st.step(step, calls, out) {
                m.watch(w);
            }
        }
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        let Regions { m, st } = self;
        while let Some(step) = m.finish() {
            if let Some(w) = st.step(step, calls, out) {
                m.watch(w);
            }
        }
        st.end(calls, out);
        m.reset();
    }

    pub(crate) fn retained(&self) -> usize {
        self.m.held()
            + self.st.raw.retained()
            + self.st.keys.iter().map(String::len).sum::<usize>()
            + self.st.walker.as_ref().map_or(0, JsonCall::retained)
            + self.st.list.as_ref().map_or(0, CallList::retained)
    }
}

impl State {
    /// Handles one step; the new watch set when the state changed.
    fn step(
        &mut self,
        step: Step<'_>,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Option<Watch> {
        match step {
            Step::Text(t) => {
                self.text(t, calls, out);
                None
            }
            Step::Match(m) => {
                let p = m.pattern();
                let bytes = m.bytes();
                self.outside_run = false;
                match self.at {
                    At::Out => {
                        self.flush(out);
                        let r = self.plan.regions.iter().position(|r| r.open == p)?;
                        Some(self.enter(r, bytes, |g| m.capture(g), calls, out))
                    }
                    At::In(_) => {
                        // Only its close is watched: the region ends.
                        self.flush(out);
                        self.at = At::Out;
                        Some(self.plan.watch_out())
                    }
                    At::Call(r, at) => self.in_call(r, at, p, bytes, &|g| m.capture(g), calls, out),
                }
            }
        }
    }

    /// Emits text or reasoning.
    fn emit(&mut self, t: &[u8], reasoning: bool, out: &mut dyn EventSink) {
        let s = self.utf8.push(t, &mut self.scratch);
        if s.is_empty() {
            return;
        }
        if reasoning {
            out.event(EventRef::Reasoning { delta: &s });
        } else {
            out.event(EventRef::Text { delta: &s });
        }
    }

    /// Ends a run of text or reasoning (an incomplete character is U+FFFD).
    fn flush(&mut self, out: &mut dyn EventSink) {
        let reasoning = matches!(self.at, At::In(r) if self.plan.regions.get(r).is_some_and(|r| r.kind == Kind::Reasoning));
        if let Some(rep) = self.utf8.finish() {
            if reasoning {
                out.event(EventRef::Reasoning { delta: rep });
            } else {
                out.event(EventRef::Text { delta: rep });
            }
        }
    }

    /// Bytes as the call's text (lossy: invalid UTF-8 as U+FFFD, a split character held).
    fn call_str<'a>(
        utf8: &mut Utf8Holder,
        scratch: &'a mut String,
        t: &'a [u8],
    ) -> std::borrow::Cow<'a, str> {
        utf8.push(t, scratch)
    }

    fn text(&mut self, t: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        match self.at {
            At::Out if self.plan.outside_text => {
                if !self.outside_run {
                    self.outside_run = true;
                    if std::mem::replace(&mut self.outside_seen, true)
                        && let Some(j) = self.plan.outside_join.clone()
                    {
                        self.emit(j.as_bytes(), false, out);
                    }
                }
                self.emit(t, false, out)
            }
            At::Out => {}
            At::In(r) => {
                let reasoning = self
                    .plan
                    .regions
                    .get(r)
                    .is_some_and(|r| r.kind == Kind::Reasoning);
                self.emit(t, reasoning, out);
            }
            At::Call(r, at) => {
                let mut scratch = std::mem::take(&mut self.scratch);
                let s = Self::call_str(&mut self.utf8, &mut scratch, t).into_owned();
                self.scratch = scratch;
                self.body(r, at, &s, false, calls, out);
            }
        }
    }

    /// Body text of a call. `stop`: return as soon as the call leaves [`CallAt::Body`]
    /// (its value closed or broke). Returns the bytes of `s` taken.
    fn body(
        &mut self,
        r: usize,
        at: CallAt,
        s: &str,
        stop: bool,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> usize {
        let mut rest = s;
        let mut at = at;
        while !rest.is_empty() {
            if stop && at != CallAt::Body {
                break;
            }
            match at {
                CallAt::Skip(_) => {
                    calls.raw_or(self.owner(), &mut self.raw).push(rest);
                    rest = "";
                }
                CallAt::After => {
                    // Whitespace right after the value is the call's; from the first
                    // other byte on, everything up to the close is text.
                    let ws = rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
                    let (w, t) = rest.split_at(ws);
                    calls.raw_or(self.owner(), &mut self.raw).push(w);
                    if !t.is_empty() {
                        at = CallAt::Trailing;
                    }
                    rest = t;
                }
                CallAt::Trailing => {
                    out.event(EventRef::Text { delta: rest });
                    rest = "";
                }
                CallAt::Body => match &self.plan.body {
                    Body::Args { .. } => {
                        let (taken, next) = match self.value.feed(rest.as_bytes()) {
                            JsonStatus::NeedMore => (rest.len(), CallAt::Body),
                            JsonStatus::Complete { consumed } => (consumed, CallAt::After),
                            JsonStatus::Invalid { at, .. } => {
                                (at, CallAt::Skip(ErrorKind::InvalidArguments))
                            }
                        };
                        let (v, after) = rest.split_at_checked(taken).unwrap_or((rest, ""));
                        calls.raw_or(self.owner(), &mut self.raw).push(v);
                        if let Some(slot) = self.slot {
                            calls.args(slot, v, out);
                            if next == CallAt::After {
                                calls.close_with_raw(slot, self.raw.text(), out);
                            }
                        }
                        at = next;
                        rest = after;
                    }
                    Body::Object(_) => {
                        let Some(w) = self.walker.as_mut() else {
                            break;
                        };
                        let (n, walk) = w.feed(rest, &mut self.raw, calls, out);
                        let mut after = rest.get(n..).unwrap_or_default();
                        match walk {
                            Walk::NeedMore => at = CallAt::Body,
                            // A spec body sets no stop byte, so no argument string stops
                            // early; were one to, the byte is string content.
                            Walk::Special => {
                                if w.past_stop(after, &mut self.raw, calls, out) {
                                    after = after.get(1..).unwrap_or_default();
                                    at = CallAt::Body;
                                } else {
                                    self.slot = w.slot();
                                    at = CallAt::Skip(ErrorKind::LimitExceeded);
                                }
                            }
                            Walk::Done => {
                                self.slot = w.slot();
                                if w.named() {
                                    calls.close_own(w.slot(), &mut self.raw, out);
                                    at = CallAt::After;
                                } else {
                                    at = CallAt::Skip(ErrorKind::MissingName);
                                }
                            }
                            Walk::Invalid(kind) => {
                                self.slot = w.slot();
                                at = CallAt::Skip(kind);
                            }
                        }
                        rest = after;
                    }
                    Body::List(_) => {
                        let (taken, next) = self.list_body(rest, calls, out);
                        rest = rest.get(taken..).unwrap_or_default();
                        at = next;
                    }
                    Body::Tags { .. } => {
                        // Bytes no parameter matched: the call's structure.
                        calls.raw_or(self.owner(), &mut self.raw).push(rest);
                        rest = "";
                    }
                },
            }
        }
        self.at = At::Call(r, at);
        s.len() - rest.len()
    }

    /// Whether the call's JSON is inside a string (a delimiter there is content).
    fn in_string(&self) -> bool {
        match &self.plan.body {
            Body::Args { .. } => self.value.in_string(),
            Body::Object(_) => self.walker.as_ref().is_some_and(JsonCall::in_string),
            Body::List(_) => self.list.as_ref().is_some_and(CallList::in_string),
            Body::Tags { .. } => false,
        }
    }

    /// A match inside call region `r`.
    #[allow(clippy::too_many_arguments)]
    fn in_call<'b>(
        &mut self,
        r: usize,
        at: CallAt,
        p: usize,
        bytes: &[u8],
        capture: &dyn Fn(&str) -> Option<&'b [u8]>,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Option<Watch> {
        let region = self.plan.regions.get(r)?.clone();
        if at == CallAt::Body && self.in_string() {
            self.text(bytes, calls, out);
            return None;
        }
        if let Body::Tags { tag, .. } = self.plan.body
            && p == tag
        {
            let s = String::from_utf8_lossy(bytes).into_owned();
            calls.raw_or(self.owner(), &mut self.raw).push(&s);
            if at == CallAt::Body {
                self.param(capture("key"), capture("value"), calls, out);
            }
            return None;
        }
        if Some(p) == region.close {
            let s = String::from_utf8_lossy(bytes).into_owned();
            calls.raw_or(self.owner(), &mut self.raw).push(&s);
            self.end_call(at, true, calls, out);
            self.at = At::Out;
            return Some(self.plan.watch_out());
        }
        // Another call's open. A pattern such as `[^<]*<c>` may match from inside the
        // body: its bytes are the body's as far as the value takes them (up to where it
        // closes or breaks; all of them: no new call).
        let next = self.plan.regions.iter().position(|c| c.open == p)?;
        let mut marker = bytes;
        let mut at = at;
        if at == CallAt::Body && !matches!(self.plan.body, Body::Tags { .. }) {
            let s = String::from_utf8_lossy(bytes).into_owned();
            let taken = self.body(r, at, &s, true, calls, out);
            if let At::Call(_, now) = self.at {
                at = now;
            }
            if at == CallAt::Body {
                return None;
            }
            marker = bytes.get(taken..).unwrap_or_default();
        }
        // This call ends where it is (an error unless its value closed), the new one
        // starts.
        self.end_call(at, false, calls, out);
        self.at = At::Out;
        Some(self.enter(next, marker, capture, calls, out))
    }

    /// One parameter of a [`Body::Tags`] call.
    fn param(
        &mut self,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) {
        let key = String::from_utf8_lossy(key.unwrap_or_default()).into_owned();
        if self.keys.contains(&key) {
            self.at = match self.at {
                At::Call(r, _) => At::Call(r, CallAt::Skip(ErrorKind::InvalidArguments)),
                other => other,
            };
            return;
        }
        let value = String::from_utf8_lossy(value.unwrap_or_default());
        let v = match &self.plan.body {
            Body::Tags { values, .. } => values.value(&value),
            _ => Value::String(value.into_owned()),
        };
        let mut delta = String::from(if self.keys.is_empty() { "{" } else { ", " });
        delta.push_str(&Value::String(key.clone()).to_string());
        delta.push_str(": ");
        delta.push_str(&v.to_string());
        self.keys.push(key);
        if let Some(slot) = self.slot {
            calls.args(slot, &delta, out);
        }
    }

    /// Enters region `r` at its open's match `bytes`; the new watch set.
    fn enter<'b>(
        &mut self,
        r: usize,
        bytes: &[u8],
        capture: impl Fn(&str) -> Option<&'b [u8]>,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Watch {
        let Some(region) = self.plan.regions.get(r).cloned() else {
            return self.plan.watch_out();
        };
        if region.kind != Kind::Calls {
            self.at = At::In(r);
            if self.seen.len() < self.plan.regions.len() {
                self.seen.resize(self.plan.regions.len(), false);
            }
            let again = self
                .seen
                .get_mut(r)
                .is_some_and(|s| std::mem::replace(s, true));
            if again && let Some(j) = &region.join {
                self.emit(j.as_bytes(), region.kind == Kind::Reasoning, out);
            }
            return self.plan.watch_in(&region);
        }
        let marker = String::from_utf8_lossy(bytes);
        self.raw.start(&marker);
        self.slot = None;
        self.keys.clear();
        self.value.reset();
        match &self.plan.body {
            Body::Args { group } | Body::Tags { group, .. } => {
                let name = capture(group)
                    .map(String::from_utf8_lossy)
                    .unwrap_or_default();
                if name.is_empty() {
                    // No name: the call's bytes are reported at its end.
                    self.at = At::Call(r, CallAt::Skip(ErrorKind::MissingName));
                    return self.plan.watch_in(&region);
                }
                self.slot = calls.open(out);
                if let Some(slot) = self.slot {
                    calls.set_name(slot, &name, out);
                }
            }
            Body::Object(_) => {
                if let Some(w) = self.walker.as_mut() {
                    w.reset();
                }
            }
            Body::List(_) => {
                if let Some(l) = self.list.as_mut() {
                    l.reset();
                }
                self.list_open = false;
            }
        }
        self.at = At::Call(r, CallAt::Body);
        self.plan.watch_in(&region)
    }

    /// The call ends (`closed`: at its close; otherwise cut short by another call's open
    /// or the end of the stream).
    fn end_call(&mut self, at: CallAt, closed: bool, calls: &mut Calls, out: &mut dyn EventSink) {
        if let Some(rep) = self.utf8.finish() {
            calls.raw_or(self.owner(), &mut self.raw).push(rep);
        }
        let what = if closed { "closed" } else { "cut short" };
        // A list whose calls all closed is complete (a last `}` or the `]` may be
        // missing); otherwise the open call is the error below.
        if at == CallAt::Body
            && self.list_open
            && let Some(l) = self.list.as_mut()
            && l.finish(&mut self.raw, calls, out).is_ok()
        {
            calls.raw_or(None, &mut self.raw).take();
            self.slot = None;
            return;
        }
        // A call object whose arguments closed is complete (its End was emitted then),
        // whatever broke after them.
        if !matches!(at, CallAt::After | CallAt::Trailing)
            && let Body::Object(_) = self.plan.body
            && let Some(w) = self.walker.as_ref()
            && w.named()
            && w.args_done()
        {
            calls.close_own(w.slot(), &mut self.raw, out);
            calls.raw_or(None, &mut self.raw).take();
            self.slot = None;
            return;
        }
        match at {
            CallAt::After | CallAt::Trailing => {}
            CallAt::Skip(kind) => {
                self.report(kind, format!("tool call is malformed ({what})"), calls, out)
            }
            CallAt::Body => match &self.plan.body {
                Body::Tags { .. } if closed => {
                    if let Some(slot) = self.slot {
                        calls.args(slot, if self.keys.is_empty() { "{}" } else { "}" }, out);
                        calls.close_with_raw(slot, self.raw.text(), out);
                    } else {
                        self.report(
                            ErrorKind::MissingName,
                            "tool call without a name".into(),
                            calls,
                            out,
                        );
                    }
                }
                Body::Args { .. } if !closed && self.value.finish() => {
                    if let Some(slot) = self.slot {
                        calls.close_with_raw(slot, self.raw.text(), out);
                    }
                }
                _ => {
                    let kind = if closed {
                        ErrorKind::InvalidArguments
                    } else {
                        ErrorKind::Truncated
                    };
                    self.report(
                        kind,
                        format!("tool call {what} before its arguments were complete"),
                        calls,
                        out,
                    );
                }
            },
        }
        self.slot = None;
    }

    fn report(
        &mut self,
        kind: ErrorKind,
        what: String,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) {
        let slot = match &self.plan.body {
            Body::Object(_) => self.walker.as_ref().and_then(JsonCall::slot),
            Body::List(_) => self.list.as_ref().and_then(CallList::slot),
            _ => self.slot,
        };
        calls.report(slot, kind, &what, &mut self.raw, out);
    }

    /// The call whose raw text is being read, when the call table holds it (a call
    /// object's, [`JsonCall`]).
    fn owner(&self) -> Option<Slot> {
        match &self.list {
            Some(l) => l.slot(),
            None => self.walker.as_ref().and_then(JsonCall::slot),
        }
    }

    /// [`Body::List`] text of a call region: its `[` (or a lone `{`), then the list's
    /// calls. Returns the bytes taken and where the region is.
    fn list_body(
        &mut self,
        s: &str,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> (usize, CallAt) {
        let owner = self.owner();
        let Some(list) = self.list.as_mut() else {
            return (0, CallAt::Skip(ErrorKind::InvalidJson));
        };
        let mut rest = s;
        if !self.list_open {
            let body = rest.trim_start_matches([' ', '\t', '\n', '\r']);
            calls
                .raw_or(owner, &mut self.raw)
                .push(rest.get(..rest.len() - body.len()).unwrap_or_default());
            rest = body;
            match rest.as_bytes().first() {
                None => return (s.len(), CallAt::Body),
                Some(b'[') => {
                    calls.raw_or(owner, &mut self.raw).push("[");
                    rest = rest.get(1..).unwrap_or_default();
                    list.array();
                }
                Some(b'{') => list.object(),
                Some(_) => return (s.len() - rest.len(), CallAt::Skip(ErrorKind::InvalidJson)),
            }
            self.list_open = true;
        }
        let at = match list.feed(&mut rest, &mut self.raw, calls, out) {
            List::NeedMore => CallAt::Body,
            List::Done => CallAt::After,
            List::Nameless { in_array: true } => {
                // Reported at its `}` with its bytes: the calls beside it still count.
                calls.report(
                    list.slot(),
                    ErrorKind::MissingName,
                    "a call object without a name",
                    &mut self.raw,
                    out,
                );
                self.raw.start("");
                CallAt::Body
            }
            List::Nameless { in_array: false } => CallAt::Skip(ErrorKind::MissingName),
            List::Broken(kind, _) => CallAt::Skip(kind),
            // No stop byte is set: never reached; were it, the call is cut there.
            List::Special => CallAt::Skip(ErrorKind::LimitExceeded),
        };
        (s.len() - rest.len(), at)
    }

    /// The end of the stream, after the matcher's last steps.
    fn end(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        match self.at {
            At::Out | At::In(_) => self.flush(out),
            At::Call(_, at) => self.end_call(at, false, calls, out),
        }
        self.at = At::Out;
        self.seen.clear();
        self.outside_seen = false;
        self.outside_run = false;
    }
}
