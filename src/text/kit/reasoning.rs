//! The text stage every marker-based text scanner (`hermes`, `qwen-xml`, `mistral`,
//! `deepseek`) runs outside its calls: visible text, reasoning tags, and the search for
//! the syntax's call-start markers.
//!
//! Rules (tests in `tests/text/markers.rs` prove them):
//!
//! - **Reasoning tags.** Text between an opening and a closing reasoning tag is
//!   [`Event::Reasoning`](crate::Event::Reasoning); the tags themselves are dropped. The
//!   default pair is `<think>` / `</think>` (Qwen3, DeepSeek-R1, QwQ); `mistral` also
//!   knows Magistral's `[THINK]` / `[/THINK]`. Other names (`<thinking>`, `<reasoning>`: Bedrock's
//!   OpenAI-compatible gpt-oss wraps every content chunk in `<reasoning>…</reasoning>`)
//!   are set with [`ParserConfig::reasoning_tags`](crate::ParserConfig::reasoning_tags).
//!   Inside reasoning only the closing tag is looked for: a call written inside
//!   `<think>` is reasoning, as the servers' own parsers treat it — unless the syntax's
//!   call markers end reasoning ([`TextStage::calls_end_reasoning`]: Kimi K2 may omit
//!   `</think>` before its calls).
//! - **Calls inside reasoning** ([`ParserConfig::calls_in_reasoning`](crate::ParserConfig),
//!   default off): Qwen 3.5 and Nemotron may write a whole call before `</think>`
//!   (vllm#39056, #42021). With the option, the syntax's call markers are looked for
//!   inside reasoning too: such a call is extracted like one outside, and the text around
//!   it stays reasoning (the block is still open after the call; `</think>` closes it).
//!   Off by default because a model that reasons *about* call syntax writes markers as
//!   prose (lmstudio-bug-tracker#1592); a marker that opens no call is reasoning as
//!   written either way. Where a syntax's markers end reasoning
//!   (`calls_end_reasoning`), that rule wins.
//! - **Output that starts inside reasoning.** When the chat template put the opening
//!   tag in the prompt (Qwen3 thinking templates, DeepSeek-R1), the output holds only
//!   `</think>`. Nothing in the text says so before that tag arrives, so this is an
//!   explicit option, [`ParserConfig::reasoning_open`](crate::ParserConfig::reasoning_open)
//!   (default `false`): the output starts inside the first pair's reasoning, and
//!   everything before the first closing tag is reasoning. By default a closing tag seen
//!   outside reasoning is text, byte for byte, like the text around it: bytes are never
//!   dropped, and without the option nothing says the block was open (a model may also
//!   just write the tag). An opening tag right at the start of an output that starts
//!   inside reasoning is dropped (it is a tag of the block the option declared open).
//! - **Whitespace around markers.** Whitespace right before a call start or a dropped
//!   token is text, as the model wrote it (the kit's [recovery rule](super::recovery):
//!   text outside calls is the model's bytes). Trailing whitespace of each piece is
//!   held until what follows it is known: around reasoning tags only line breaks are
//!   dropped (`<think>\n…\n</think>\n\n` gives the reasoning and the text without
//!   them), spaces are kept: Bedrock's per-chunk `<reasoning> word</reasoning>` keeps
//!   its words apart. Nothing else is changed.
//! - **End-of-turn tokens** a server left in the text (`<|im_end|>`, `</s>`,
//!   `<｜end▁of▁sentence｜>`, per syntax) are dropped.
//! - **Citation markup** ([`TextStage::citations`]: Cohere's `<co>cited</co: 0:[1,2]>`) is
//!   dropped in text and in reasoning alike, the cited text kept: the opening token, and
//!   the closing token's head with its anchors (`[0-9:,[] ]`, at most
//!   [`MAX_ANCHORS`] bytes) up to `>`. A head followed by anything else is text, as the
//!   model wrote it.
//! - **Recipient headers** ([`TextStage::headers`]: Muse Glimmer's `to=self<|message|>`,
//!   `<|start|>assistant to=get_weather<|message|>`): an opening literal (` to=`), a
//!   recipient (ASCII letters, digits, `_`, `.`, `-`; at most [`MAX_HEADER`] bytes) and
//!   the end literal (`<|message|>`), read whole outside reasoning, then act as the
//!   literal they spell without their leading whitespace: a reasoning pair's opening tag
//!   opens that reasoning; any other recipient's header is dropped (the text after it is
//!   text). An opening literal followed by anything else (another byte, a marker, the
//!   end of the input) is text, as the model wrote it, and the rest is scanned as usual.
//! - Held back, at most: a partial marker (shorter than the longest marker) and the
//!   whitespace before it (bounded by [`Limits::max_held_bytes`](crate::Limits); a run
//!   of whitespace longer than that is text, all of it, whatever the chunking).

use crate::event::{EventRef, EventSink};
use crate::limits::Limits;
use crate::scan::marker::{Found, MarkerMatcher, MarkerSet};
use crate::scan::utf8::Utf8Holder;
use crate::text::kit::util::is_ws;

/// Reasoning options of a text scanner (set on the [`Parser`](crate::Parser)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ReasoningOptions {
    /// The output starts inside reasoning (the opening tag was in the prompt).
    pub(crate) open: bool,
    /// Reasoning tag pairs replacing the syntax's defaults.
    pub(crate) tags: Option<Vec<(String, String)>>,
    /// Call markers inside reasoning open calls; the reasoning goes on after them.
    pub(crate) calls: bool,
}

/// The default reasoning tags.
pub(crate) const THINK: &[(&str, &str)] = &[("<think>", "</think>")];

/// Longest run of citation anchors after a closing citation head (`0:[1,2],1:[3]`).
pub(crate) const MAX_ANCHORS: usize = 256;

/// Longest recipient header held ([`TextStage::headers`]), its opening literal included.
pub(crate) const MAX_HEADER: usize = 256;

/// A byte of a header's recipient (`self`, `user`, `get_weather`, `weather.get`).
#[inline]
fn is_recipient_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// A byte of a citation's anchors.
#[inline]
fn is_anchor_byte(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b':' | b',' | b'[' | b']' | b' ')
}

#[inline]
fn is_nl(c: char) -> bool {
    matches!(c, '\n' | '\r')
}

/// What a marker of the outside set means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Call(usize),
    Open(usize),
    Close(usize),
    Drop,
    /// Dropped with the citation anchors after it, up to `>`.
    DropAnchored,
    /// Opens a recipient header ([`TextStage::headers`]).
    Header,
}

/// Text outside calls: see the [module docs](self).
#[derive(Debug)]
pub(crate) struct TextStage {
    /// Call starts, then opening tags, closing tags, end-of-turn tokens.
    outside: MarkerSet,
    roles: Vec<Role>,
    /// Per reasoning pair: `[close, open]`, then the markers that end reasoning, then
    /// (`calls_in_reasoning`) the call starts.
    inside: Vec<MarkerSet>,
    /// The call starts looked for inside reasoning (`calls_in_reasoning`), in order.
    inside_calls: Vec<String>,
    /// What each marker that ends reasoning does then.
    ending: Vec<Role>,
    /// The markers that end reasoning ([`Self::calls_end_reasoning`]).
    ending_markers: Vec<String>,
    /// Markers dropped inside reasoning too, without ending it (citation markup), and
    /// their roles: after the ending markers in each set of `inside`.
    quiet: Vec<(String, Role)>,
    /// A closing citation head and the anchors read after it, held until its `>`.
    anchored: Option<String>,
    /// While a recipient header is read: the header's end literal first, then the
    /// outside markers ([`TextStage::headers`]).
    header_set: Option<MarkerSet>,
    /// The recipient header read so far (its opening literal and recipient bytes),
    /// while `heading`; the buffer is kept for the next one.
    header: String,
    /// A recipient header is being read.
    heading: bool,
    matcher: MarkerMatcher,
    /// The open reasoning pair.
    reasoning: Option<usize>,
    /// Trailing whitespace held until the next text (dropped before a marker).
    pending: String,
    /// The current whitespace run outgrew `max_held` and was released as text: the
    /// rest of it is text too (so what is dropped before a marker does not depend on
    /// where the input was cut).
    released: bool,
    /// Drop line breaks until the next other text (after a reasoning tag).
    skip_nl: bool,
    max_held: usize,
    /// Text outside reasoning tags is reasoning.
    forced: bool,
    /// [`run`](TextStage::run) returns [`CLOSED`] right after a closing tag
    /// ([`TextStage::one_block`]).
    stop_at_close: bool,
}

/// What [`TextStage::run`] returns after a closing reasoning tag, for a stage reading
/// one block ([`TextStage::one_block`]).
pub(crate) const CLOSED: usize = usize::MAX;

impl TextStage {
    /// A text stage looking for `calls` (call-start markers, reported by index),
    /// dropping `drops`, with reasoning tags `default_tags` unless `opts` replaces them.
    pub(crate) fn new<C, D>(
        calls: &[C],
        drops: &[D],
        default_tags: &[(&str, &str)],
        opts: &ReasoningOptions,
        limits: &Limits,
    ) -> Self
    where
        C: Clone + Into<std::borrow::Cow<'static, str>>,
        D: Clone + Into<std::borrow::Cow<'static, str>>,
    {
        let tags: Vec<(String, String)> = match &opts.tags {
            Some(t) => t
                .iter()
                .filter(|(o, c)| !o.is_empty() && !c.is_empty())
                .cloned()
                .collect(),
            None => default_tags
                .iter()
                .map(|(o, c)| ((*o).to_owned(), (*c).to_owned()))
                .collect(),
        };
        // The syntax's own markers are borrowed (a syntax with many spellings costs no
        // allocation per marker); reasoning tags may come from the options.
        let n = calls.len() + 2 * tags.len() + drops.len();
        let mut markers: Vec<std::borrow::Cow<'static, str>> = Vec::with_capacity(n);
        let mut roles = Vec::with_capacity(n);
        for (i, c) in calls.iter().enumerate() {
            markers.push(c.clone().into());
            roles.push(Role::Call(i));
        }
        for (i, (o, _)) in tags.iter().enumerate() {
            markers.push(o.clone().into());
            roles.push(Role::Open(i));
        }
        for (i, (_, c)) in tags.iter().enumerate() {
            // A closing tag that is also a dropped token (Inkling's `<|end_message|>` ends
            // every block) is dropped outside reasoning, not kept as a stray tag.
            if drops.iter().any(|d| d.clone().into() == c.as_str()) {
                continue;
            }
            markers.push(c.clone().into());
            roles.push(Role::Close(i));
        }
        for d in drops {
            markers.push(d.clone().into());
            roles.push(Role::Drop);
        }
        let inside_calls: Vec<String> = if opts.calls {
            calls
                .iter()
                .map(|c| c.clone().into().into_owned())
                .collect()
        } else {
            Vec::new()
        };
        let inside = tags
            .iter()
            .map(|(o, c)| {
                let mut m = vec![c.clone(), o.clone()];
                m.extend(inside_calls.iter().cloned());
                MarkerSet::new(m)
            })
            .collect::<Vec<_>>();
        let reasoning = (opts.open && !inside.is_empty()).then_some(0);
        TextStage {
            outside: MarkerSet::new(markers),
            roles,
            inside,
            inside_calls,
            ending: Vec::new(),
            ending_markers: Vec::new(),
            quiet: Vec::new(),
            anchored: None,
            header_set: None,
            header: String::new(),
            heading: false,
            matcher: MarkerMatcher::new(),
            reasoning,
            pending: String::new(),
            released: false,
            skip_nl: reasoning.is_some(),
            max_held: limits.max_held_bytes,
            forced: false,
            stop_at_close: false,
        }
    }

    /// A stage that reads one reasoning block for a scanner that does not know its
    /// syntax yet (`auto`): [`run`](Self::run) returns [`CLOSED`] right after the
    /// block's closing tag (the rest of the input left in it; the line breaks after the
    /// tag are the caller's to drop).
    pub(crate) fn one_block(mut self) -> Self {
        self.stop_at_close = true;
        self
    }

    /// These markers (call starts or dropped tokens given to [`new`](Self::new)) end
    /// reasoning when they appear inside it, then act as they do outside: for models
    /// that omit the closing tag before their calls (Kimi K2 may write
    /// `<think>…<|tool_calls_section_begin|><|tool_call_begin|>…`).
    pub(crate) fn calls_end_reasoning(mut self, markers: &[&str]) -> Self {
        self.ending = markers
            .iter()
            .map(|m| {
                (0..self.outside.len())
                    .find(|&i| self.outside.get(i) == *m)
                    .and_then(|i| self.roles.get(i).copied())
                    .unwrap_or(Role::Drop)
            })
            .collect();
        self.ending_markers = markers.iter().map(|&m| m.to_owned()).collect();
        self.rebuild_inside();
        self
    }

    /// Citation markup to drop, in text and in reasoning ([module docs](self)): `open`
    /// (`<co>`) and `close_head` (`</co: `) with the anchors after it up to `>`.
    pub(crate) fn citations(mut self, open: &str, close_head: &str) -> Self {
        let mut markers: Vec<String> = (0..self.outside.len())
            .map(|i| self.outside.get(i).to_owned())
            .collect();
        for (m, role) in [(open, Role::Drop), (close_head, Role::DropAnchored)] {
            markers.push(m.to_owned());
            self.roles.push(role);
            self.quiet.push((m.to_owned(), role));
        }
        self.outside = MarkerSet::new(markers);
        self.rebuild_inside();
        self
    }

    /// Recipient headers ([module docs](self)): `opens` (` to=`, `to=`), a recipient,
    /// then `end` (`<|message|>`). A header that spells a reasoning pair's opening tag
    /// (after its leading whitespace) opens that reasoning; any other is dropped. Call
    /// after [`citations`](Self::citations), if both.
    pub(crate) fn headers(
        mut self,
        opens: &[std::borrow::Cow<'static, str>],
        end: std::borrow::Cow<'static, str>,
    ) -> Self {
        // The markers are borrowed where the syntax's table has them (no copy).
        let outside = self.outside.markers();
        let mut markers = Vec::with_capacity(outside.len() + opens.len() + 1);
        // The end first: at one position the earlier of two equal markers wins.
        markers.push(end);
        markers.extend(outside.iter().cloned());
        markers.extend(opens.iter().cloned());
        self.roles.extend(opens.iter().map(|_| Role::Header));
        self.outside = MarkerSet::new(markers.iter().skip(1).cloned());
        self.header_set = Some(MarkerSet::new(markers));
        self
    }

    /// A complete recipient header (`head` then the end literal): the role of the
    /// literal it spells.
    fn header_role(&self, head: &str) -> Role {
        let head = head.trim_start_matches(|c: char| c.is_ascii_whitespace());
        let end = self.header_set.as_ref().map_or("", |s| s.get(0));
        (0..self.inside.len())
            .find(|&p| {
                self.inside.get(p).is_some_and(|set| {
                    let open = set.get(1);
                    open.len() == head.len() + end.len()
                        && open.starts_with(head)
                        && open.ends_with(end)
                })
            })
            .map_or(Role::Drop, Role::Open)
    }

    /// Each reasoning pair's set: its closing and opening tags, the markers that end
    /// reasoning, the quiet ones, then the call starts of `calls_in_reasoning`: at one
    /// position the earlier of two equal markers wins, so the ending ones end reasoning.
    fn rebuild_inside(&mut self) {
        self.inside = self
            .inside
            .iter()
            .map(|set| {
                let mut m: Vec<String> = (0..2.min(set.len()))
                    .map(|i| set.get(i).to_owned())
                    .collect();
                m.extend(self.ending_markers.iter().cloned());
                m.extend(self.quiet.iter().map(|(q, _)| q.clone()));
                m.extend(self.inside_calls.iter().cloned());
                MarkerSet::new(m)
            })
            .collect();
    }

    /// Bytes held back.
    pub(crate) fn retained(&self) -> usize {
        self.matcher.held()
            + self.pending.capacity()
            + self.anchored.as_ref().map_or(0, String::capacity)
            + self.header.capacity()
    }

    /// Makes text outside reasoning tags reasoning (`true`) or text (`false`): for
    /// syntaxes whose own structure says what is reasoning (harmony's channels).
    pub(crate) fn set_reasoning_text(&mut self, on: bool) {
        self.forced = on;
    }

    fn kind(&self) -> bool {
        self.forced || self.reasoning.is_some()
    }

    /// Scans text from `input`, emitting text and reasoning, until a call-start marker
    /// (consumed; its index returned) or the end of `input` (`None`).
    pub(crate) fn run(&mut self, input: &mut &str, out: &mut dyn EventSink) -> Option<usize> {
        if self.anchored.is_some() && !self.anchors(input, out) {
            return None;
        }
        // The common case: nothing held and no byte of `input` can start a marker, so
        // all of it is text (what `matcher.next` would find, without its layers).
        if self.matcher.held() == 0 && !self.heading && !input.is_empty() {
            let set = match self.reasoning.and_then(|p| self.inside.get(p)) {
                Some(s) => s,
                None => &self.outside,
            };
            if !set.may_start_in(input.as_bytes()) {
                let t = std::mem::take(input);
                Self::text(
                    &mut self.pending,
                    &mut self.released,
                    &mut self.skip_nl,
                    self.max_held,
                    self.forced || self.reasoning.is_some(),
                    t,
                    out,
                );
                return None;
            }
        }
        loop {
            let set = match (self.heading, &self.header_set) {
                (true, Some(h)) => h,
                _ => match self.reasoning.and_then(|p| self.inside.get(p)) {
                    Some(s) => s,
                    None => &self.outside,
                },
            };
            let found = self.matcher.next(set, input)?;
            if self.heading {
                // Reading a recipient header: the end literal completes it, recipient
                // bytes grow it, anything else makes it text.
                let (role, i) = match found {
                    Found::Marker(0) => {
                        self.heading = false;
                        let role = self.header_role(&self.header);
                        self.header.clear();
                        (role, usize::MAX)
                    }
                    Found::Text(t) => {
                        let n = t.bytes().take_while(|&b| is_recipient_byte(b)).count();
                        if n == t.len() && self.header.len() + n <= MAX_HEADER {
                            self.header.push_str(t);
                            continue;
                        }
                        // Not a header: its bytes and this text (no marker in it).
                        self.heading = false;
                        for piece in [self.header.as_str(), t] {
                            Self::text(
                                &mut self.pending,
                                &mut self.released,
                                &mut self.skip_nl,
                                self.max_held,
                                self.forced,
                                piece,
                                out,
                            );
                        }
                        self.header.clear();
                        continue;
                    }
                    Found::Marker(i) => {
                        // Another marker: the header so far is text; the marker acts
                        // as it does outside.
                        self.heading = false;
                        Self::text(
                            &mut self.pending,
                            &mut self.released,
                            &mut self.skip_nl,
                            self.max_held,
                            self.forced,
                            &self.header,
                            out,
                        );
                        self.header.clear();
                        let i = i - 1;
                        (self.roles.get(i).copied().unwrap_or(Role::Drop), i)
                    }
                };
                if let Some(r) = self.act(role, self.forced, None, i, input, out) {
                    return r;
                }
                continue;
            }
            match found {
                Found::Text(t) => {
                    let kind = self.forced || self.reasoning.is_some();
                    Self::text(
                        &mut self.pending,
                        &mut self.released,
                        &mut self.skip_nl,
                        self.max_held,
                        kind,
                        t,
                        out,
                    );
                }
                Found::Marker(i) => {
                    // Whether the text before the marker was reasoning.
                    let was = self.forced || self.reasoning.is_some();
                    let from = self.reasoning;
                    let role = match self.reasoning {
                        // Inside: 0 is the closing tag, 1 a repeated opening tag, then
                        // call starts that end reasoning (`calls_end_reasoning`), then
                        // markers dropped inside it too (`citations`).
                        Some(_) if i == 0 => Role::Close(0),
                        Some(p) if i == 1 => Role::Open(p),
                        Some(_) if i - 2 < self.ending.len() => {
                            self.reasoning = None;
                            self.ending.get(i - 2).copied().unwrap_or(Role::Drop)
                        }
                        // Citation markup, dropped inside reasoning too.
                        Some(_) if i - 2 - self.ending.len() < self.quiet.len() => self
                            .quiet
                            .get(i - 2 - self.ending.len())
                            .map_or(Role::Drop, |q| q.1),
                        // A call start inside reasoning (`calls_in_reasoning`): the call
                        // is extracted, the block stays open.
                        Some(_) => Role::Call(i - 2 - self.ending.len() - self.quiet.len()),
                        None => self.roles.get(i).copied().unwrap_or(Role::Drop),
                    };
                    if let Some(r) = self.act(role, was, from, i, input, out) {
                        return r;
                    }
                }
            }
        }
    }

    /// Does what a marker found by [`run`](Self::run) does, by its `role`: `was`, whether
    /// the text before it was reasoning; `from`, the reasoning pair whose set it was
    /// found in (`None`: the outside set); `i`, its index there. `Some(r)`: `run`
    /// returns `r`; `None`: it goes on.
    fn act(
        &mut self,
        role: Role,
        was: bool,
        from: Option<usize>,
        i: usize,
        input: &mut &str,
        out: &mut dyn EventSink,
    ) -> Option<Option<usize>> {
        if role == Role::Header {
            // Held with its recipient until the end literal (or text, when something
            // else follows).
            self.header.clear();
            self.header.push_str(self.outside.get(i));
            self.heading = true;
            return None;
        }
        if role == Role::DropAnchored {
            // Held with its anchors until `>` (or text, when something else follows).
            let head = match from {
                Some(p) => self.inside.get(p).map_or("", |s| s.get(i)),
                None => self.outside.get(i),
            };
            self.anchored = Some(head.to_owned());
            if !self.anchors(input, out) {
                return Some(None);
            }
            return None;
        }
        if matches!(role, Role::Call(_) | Role::Drop) {
            // The whitespace before a call marker or a dropped token is the model's text.
            if !self.pending.is_empty() {
                push(out, was, &self.pending);
                self.pending.clear();
            }
            self.released = false;
            if let Role::Call(c) = role {
                return Some(Some(c));
            }
            return None;
        }
        if matches!(role, Role::Close(_)) && self.reasoning.is_none() {
            // A closing tag with no opening one: text, byte for byte (bytes are never
            // dropped; `reasoning_open` declares the block open).
            let tag = self.outside.get(i);
            let kind = self.forced;
            let mut skip_nl = false;
            Self::text(
                &mut self.pending,
                &mut self.released,
                &mut skip_nl,
                self.max_held,
                kind,
                tag,
                out,
            );
            self.skip_nl &= skip_nl;
            return None;
        }
        // A reasoning tag: only line breaks around it are dropped.
        let keep = self.pending.trim_end_matches(is_nl);
        if !keep.is_empty() {
            push(out, self.forced || self.reasoning.is_some(), keep);
        }
        self.pending.clear();
        self.released = false;
        self.skip_nl = true;
        match role {
            Role::Open(p) => self.reasoning = Some(p),
            _ => {
                self.reasoning = None;
                if self.stop_at_close {
                    return Some(Some(CLOSED));
                }
            }
        }
        None
    }

    /// After a closing citation head: reads its anchors from `input`. `true` when the
    /// head is done with (dropped with its anchors and `>`, or released as text when
    /// something else follows or the anchors run past [`MAX_ANCHORS`]), `false` when all
    /// of `input` was read (still held).
    fn anchors(&mut self, input: &mut &str, out: &mut dyn EventSink) -> bool {
        let Some(held) = self.anchored.as_mut() else {
            return true;
        };
        let n = input.bytes().take_while(|&b| is_anchor_byte(b)).count();
        // Anchor bytes are ASCII: any cut is a char boundary.
        let (run, rest) = input.split_at_checked(n).unwrap_or((input, ""));
        held.push_str(run);
        *input = rest;
        let long = held.len() > MAX_ANCHORS;
        match rest.as_bytes().first() {
            None if !long => false,
            Some(b'>') if !long => {
                *input = rest.get(1..).unwrap_or_default();
                self.anchored = None;
                true
            }
            _ => {
                // Not citation markup: the model's text (no marker can be in it).
                let t = self.anchored.take().unwrap_or_default();
                let kind = self.forced || self.reasoning.is_some();
                Self::text(
                    &mut self.pending,
                    &mut self.released,
                    &mut self.skip_nl,
                    self.max_held,
                    kind,
                    &t,
                    out,
                );
                true
            }
        }
    }

    /// Emits `t`, holding its trailing whitespace.
    #[inline(always)]
    fn text(
        pending: &mut String,
        released: &mut bool,
        skip_nl: &mut bool,
        max_held: usize,
        reasoning: bool,
        mut t: &str,
        out: &mut dyn EventSink,
    ) {
        if *skip_nl {
            t = t.trim_start_matches(is_nl);
            if t.is_empty() {
                return;
            }
            *skip_nl = false;
        }
        // Trailing whitespace, by bytes (it is ASCII, so the cut is a char boundary).
        let end = t
            .as_bytes()
            .iter()
            .rposition(|&b| !is_ws(b))
            .map_or(0, |i| i + 1);
        let (body, ws) = t.split_at_checked(end).unwrap_or((t, ""));
        if body.is_empty() && *released {
            push(out, reasoning, ws);
            return;
        }
        if !body.is_empty() {
            if pending.is_empty() {
                push(out, reasoning, body);
            } else {
                pending.push_str(body);
                push(out, reasoning, pending);
                pending.clear();
            }
            *released = false;
        }
        // ASCII whitespace, usually a byte or two: no `memcpy` call.
        pending.extend(ws.bytes().map(char::from));
        if pending.len() > max_held {
            *released = true;
            push(out, reasoning, pending);
            pending.clear();
        }
    }

    /// Emits `s` as the stage's text (or reasoning) as it is, without looking for markers
    /// in it (a marker that opened no call); what follows it is text again.
    pub(crate) fn emit(&mut self, s: &str, out: &mut dyn EventSink) {
        if !s.is_empty() {
            push(out, self.kind(), s);
            self.skip_nl = false;
        }
    }

    /// Gives text back to the stage: a partial closing literal that turned out not to
    /// be one is text again, and is scanned as such.
    pub(crate) fn give_back(&mut self, mut s: &str, out: &mut dyn EventSink) {
        // A proper prefix of a closing literal never holds a complete call marker.
        let _ = self.run(&mut s, out);
    }

    /// End of the text: releases what is held.
    pub(crate) fn finish(&mut self, out: &mut dyn EventSink) {
        let reasoning = self.kind();
        let mut delta = std::mem::take(&mut self.pending);
        // A citation head or a recipient header cut off by the end: text.
        delta.push_str(&self.anchored.take().unwrap_or_default());
        if self.heading {
            delta.push_str(&self.header);
            self.header.clear();
            self.heading = false;
        }
        self.released = false;
        let held = self.matcher.finish();
        if self.skip_nl && delta.is_empty() {
            delta.push_str(held.trim_start_matches(is_nl));
        } else {
            delta.push_str(held);
        }
        self.skip_nl = false;
        if !delta.is_empty() {
            push(out, reasoning, &delta);
        }
    }
}

/// One reasoning block read by a scanner whose text is bytes, not a [`TextStage`]
/// (`auto` before it knows the syntax, the pythonic engine): the block's bytes go to a
/// stage that reads one block ([`TextStage::one_block`]) until its closing tag, or
/// until a marker of `enders` (call markers that end reasoning,
/// [`TextStage::calls_end_reasoning`]). The stage reads pieces that end before each
/// byte that may start one of its markers, so each byte is checked as UTF-8 once and
/// only the piece that ends the block is read past that end (no copy of the rest of a
/// feed).
#[derive(Debug)]
pub(crate) struct Block {
    stage: TextStage,
    /// The first bytes of the stage's markers.
    firsts: Vec<u8>,
    enders: &'static [&'static str],
    utf8: Utf8Holder,
    scratch: String,
}

/// Where a [`Block`] ended in the bytes [`Block::read`] got.
#[derive(Debug)]
pub(crate) struct Ended {
    /// The bytes after the block begin here.
    pub(crate) at: usize,
    /// Bytes the stage read that the scanner must read again, before those at `at`: the
    /// marker that ended the block (an ender), or the text after the closing tag when it
    /// was not the input's own bytes (a character completed from the last feed, bytes
    /// that were not UTF-8). They hold no byte that may start a tag after their first.
    pub(crate) again: Vec<u8>,
    /// The closing tag ended it (the line breaks after it are to be dropped), not an
    /// ender.
    pub(crate) closed: bool,
}

impl Block {
    /// The opening tags of the reasoning pairs: the options' or `defaults`.
    pub(crate) fn opening_tags(opts: &ReasoningOptions, defaults: &[(&str, &str)]) -> Vec<String> {
        match &opts.tags {
            Some(t) => t
                .iter()
                .filter(|(o, c)| !o.is_empty() && !c.is_empty())
                .map(|(o, _)| o.clone())
                .collect(),
            None => defaults.iter().map(|(o, _)| (*o).to_owned()).collect(),
        }
    }

    /// A block of `opts`' reasoning pairs (or `defaults`); `open`: the output starts
    /// inside it, else [`start`](Self::start) gives it its opening tag.
    pub(crate) fn new(
        opts: &ReasoningOptions,
        defaults: &[(&str, &str)],
        enders: &'static [&'static str],
        open: bool,
        limits: &Limits,
    ) -> Self {
        let mut reasoning = opts.clone();
        reasoning.open = open;
        reasoning.calls = false;
        let none: &[&str] = &[];
        let mut firsts: Vec<u8> = match &reasoning.tags {
            Some(t) => t
                .iter()
                .flat_map(|(o, c)| [o.bytes().next(), c.bytes().next()])
                .collect::<Vec<_>>(),
            None => defaults
                .iter()
                .flat_map(|(o, c)| [o.bytes().next(), c.bytes().next()])
                .collect(),
        }
        .into_iter()
        .chain(enders.iter().map(|e| e.bytes().next()))
        .flatten()
        .collect();
        firsts.sort_unstable();
        firsts.dedup();
        Block {
            stage: TextStage::new(enders, none, defaults, &reasoning, limits)
                .calls_end_reasoning(enders)
                .one_block(),
            firsts,
            enders,
            utf8: Utf8Holder::new(),
            scratch: String::new(),
        }
    }

    /// The block's opening tag (complete, as the scanner matched it).
    pub(crate) fn start(&mut self, tag: &[u8], out: &mut dyn EventSink) {
        let mut tag = std::str::from_utf8(tag).unwrap_or_default();
        let _ = self.stage.run(&mut tag, out);
    }

    /// Bytes held (the stage's, a cut character).
    pub(crate) fn retained(&self) -> usize {
        self.stage.retained() + self.utf8.held()
    }

    /// Where the first byte that may start one of the stage's markers is in `h`.
    fn find_first(&self, h: &[u8]) -> Option<usize> {
        match *self.firsts.as_slice() {
            [a] => memchr::memchr(a, h),
            [a, b] => memchr::memchr2(a, b, h),
            [a, b, c] => memchr::memchr3(a, b, c, h),
            _ => h.iter().position(|x| self.firsts.contains(x)),
        }
    }

    /// Reads bytes of the block: `None` when it takes them all, else where it ended.
    pub(crate) fn read(&mut self, bytes: &[u8], out: &mut dyn EventSink) -> Option<Ended> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut start = 0;
        let mut ended = None;
        while start < bytes.len() {
            let end = bytes
                .get(start + 1..)
                .and_then(|b| self.find_first(b))
                .map_or(bytes.len(), |p| start + 1 + p);
            let piece = bytes.get(start..end).unwrap_or_default();
            let text = self.utf8.push(piece, &mut scratch);
            // The text is the piece's own bytes only when it lies in the piece: the
            // holder borrows its scratch too (a character completed from the last feed,
            // U+FFFD for bytes that are not UTF-8), and offsets into that text are not
            // offsets into `bytes`.
            let borrowed = text.as_ptr() == piece.as_ptr();
            let mut s: &str = &text;
            if let Some(c) = self.stage.run(&mut s, out) {
                let held = self.utf8.held();
                let marker = match c {
                    CLOSED => "",
                    c => self.enders.get(c).copied().unwrap_or_default(),
                };
                ended = Some(if borrowed && marker.is_empty() {
                    // The piece's text is its bytes: the rest is in `bytes`.
                    Ended {
                        at: end - held - s.len(),
                        again: Vec::new(),
                        closed: true,
                    }
                } else {
                    let mut again = marker.as_bytes().to_vec();
                    again.extend_from_slice(s.as_bytes());
                    Ended {
                        at: end - held,
                        again,
                        closed: c == CLOSED,
                    }
                });
                break;
            }
            start = end;
        }
        self.scratch = scratch;
        ended
    }

    /// The end of the input inside the block: what is held is reasoning (a character
    /// cut off is U+FFFD, as in text).
    pub(crate) fn finish(mut self, out: &mut dyn EventSink) {
        let tail = String::from_utf8_lossy(self.utf8.held_bytes()).into_owned();
        let mut tail = tail.as_str();
        let _ = self.stage.run(&mut tail, out);
        self.stage.finish(out);
    }
}

fn push(out: &mut dyn EventSink, reasoning: bool, delta: &str) {
    out.event(if reasoning {
        EventRef::Reasoning { delta }
    } else {
        EventRef::Text { delta }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, merge_deltas};

    fn run(opts: &ReasoningOptions, pieces: &[&str]) -> (Vec<Event>, Vec<usize>) {
        let mut st = TextStage::new(
            &["<tool_call>"],
            &["<|im_end|>"],
            THINK,
            opts,
            &Limits::default(),
        );
        let mut out = Vec::new();
        let mut calls = Vec::new();
        for p in pieces {
            let mut rest = *p;
            while !rest.is_empty() {
                if let Some(c) = st.run(&mut rest, &mut out) {
                    calls.push(c);
                }
            }
        }
        st.finish(&mut out);
        merge_deltas(&mut out);
        (out, calls)
    }

    #[test]
    fn think_tags_and_whitespace() {
        let o = ReasoningOptions::default();
        let (ev, calls) = run(&o, &["<think>\nhmm é\n</think>\n\nHello \n", "<tool_call>"]);
        assert_eq!(
            ev,
            vec![
                Event::Reasoning {
                    delta: "hmm é".into()
                },
                Event::Text {
                    delta: "Hello \n".into()
                }
            ]
        );
        assert_eq!(calls, vec![0]);
        let (ev, _) = run(&o, &["a \n", " b<|im_end|>"]);
        assert_eq!(
            ev,
            vec![Event::Text {
                delta: "a \n b".into()
            }]
        );
        let (ev, _) = run(&o, &["a \n"]);
        assert_eq!(
            ev,
            vec![Event::Text {
                delta: "a \n".into()
            }]
        );
    }

    #[test]
    fn output_starting_inside_reasoning() {
        // Without `reasoning_open` a stray closing tag is text, byte for byte.
        let (ev, _) = run(&ReasoningOptions::default(), &["plan \n</think>\nanswer"]);
        assert_eq!(
            ev,
            vec![Event::Text {
                delta: "plan \n</think>\nanswer".into()
            }]
        );
        let open = ReasoningOptions {
            open: true,
            tags: None,
            calls: false,
        };
        let (ev, _) = run(&open, &["plan</think>answer"]);
        assert_eq!(
            ev,
            vec![
                Event::Reasoning {
                    delta: "plan".into()
                },
                Event::Text {
                    delta: "answer".into()
                }
            ]
        );
        let (ev, _) = run(&open, &["<think>\nplan</think>answer"]);
        assert_eq!(
            ev,
            vec![
                Event::Reasoning {
                    delta: "plan".into()
                },
                Event::Text {
                    delta: "answer".into()
                }
            ]
        );
    }

    #[test]
    fn calls_inside_reasoning_are_reasoning() {
        let (ev, calls) = run(
            &ReasoningOptions::default(),
            &["<think>x<tool_call>y</think>z"],
        );
        assert!(calls.is_empty());
        assert_eq!(
            ev,
            vec![
                Event::Reasoning {
                    delta: "x<tool_call>y".into()
                },
                Event::Text { delta: "z".into() }
            ]
        );
    }

    #[test]
    fn calls_inside_reasoning_with_the_option() {
        let on = ReasoningOptions {
            calls: true,
            ..ReasoningOptions::default()
        };
        let (ev, calls) = run(&on, &["<think>x <tool_call>y</think>z"]);
        assert_eq!(calls, vec![0]);
        // The stage stops at the call; what follows (here the test's input) is read
        // inside reasoning again.
        assert_eq!(
            ev,
            vec![
                Event::Reasoning { delta: "x ".into() },
                Event::Reasoning { delta: "y".into() },
                Event::Text { delta: "z".into() }
            ]
            .into_iter()
            .fold(Vec::new(), |mut v, e| {
                v.push(e);
                merge_deltas(&mut v);
                v
            })
        );
    }
}
