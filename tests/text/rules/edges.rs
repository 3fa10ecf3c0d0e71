//! Rules every text format keeps at its edges, each tested over every text syntax at
//! every chunking:
//!
//! - a call error's `raw` is the model's own bytes of that call, from its first marker
//!   byte (a cut-off call and a corrupted one);
//! - a special token that introduces a call is consumed as a marker, never leaked into
//!   text;
//! - a closing reasoning tag with no opening one is text, byte for byte, unless the
//!   block was declared open (`reasoning_open`), when everything before it is reasoning.

use crate::common::*;
use toolstream::{ErrorKind, Event, Format, Framing, Parser, ParserConfig};

/// Every text format, from `Format::all()`, so a new one cannot be left out.
fn text_formats() -> Vec<Format> {
    Format::all()
        .filter(|f| f.default_framing() == Framing::Text)
        .collect()
}

/// A text format's universal fixture: what it says of the format's reasoning.
fn fixture(f: Format) -> crate::universal::Universal {
    crate::universal::fixture_of(f).unwrap_or_else(|| panic!("{f}: no universal fixture"))
}

/// A text format's reasoning tag pair (the one `reasoning_open` starts in), or `None`
/// where its scanner has no reasoning tags: its universal fixture says it.
fn reasoning_tags(f: Format) -> Option<(&'static str, &'static str)> {
    fixture(f).reasoning
}

/// The text formats with reasoning tags, with their pair.
fn reasoning_formats() -> Vec<(Format, &'static str, &'static str)> {
    text_formats()
        .into_iter()
        .filter_map(|f| reasoning_tags(f).map(|(o, c)| (f, o, c)))
        .collect()
}

/// `text` as a format shows it: without `close` where the format drops its reasoning
/// closing tag outside reasoning (its fixture's `reasoning_close_dropped`).
fn shown(f: Format, text: &str, close: &str) -> String {
    let u = fixture(f);
    if u.reasoning_close_dropped && u.reasoning.is_some_and(|(_, c)| c == close) {
        text.replace(close, "")
    } else {
        text.to_owned()
    }
}

#[test]
fn stray_closing_reasoning_tag_is_text_byte_for_byte() {
    for f in text_formats() {
        let own = reasoning_tags(f).map(|(_, c)| c);
        for close in ["</think>", "[/THINK]"].into_iter().chain(own) {
            let input = format!("I planned it.\n{close}\n\nHere is the answer.");
            let make = move || Parser::new(f);
            let ev = assert_split_invariant(&make, input.as_bytes(), 40);
            if fixture(f).outside_text_may_be_reasoning {
                // Its structure, not the tags, says what is reasoning: nothing is lost.
                assert_eq!(text(&ev) + &reasoning(&ev), input, "{f}");
            } else {
                assert_eq!(text(&ev), shown(f, &input, close), "{f}");
                assert_eq!(reasoning(&ev), "", "{f}");
            }
            assert!(errors(&ev).is_empty(), "{f}: {ev:?}");
        }
    }
}

#[test]
fn stray_closing_reasoning_tag_after_a_closed_block_is_text() {
    for (f, open, close) in reasoning_formats() {
        let input = format!("{open}a{close}b {close} c");
        let make = move || Parser::new(f);
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "a", "{f}");
        assert_eq!(text(&ev), shown(f, &format!("b {close} c"), close), "{f}");
    }
}

#[test]
fn with_reasoning_open_everything_before_the_closing_tag_is_reasoning() {
    for (f, _, close) in reasoning_formats() {
        let input = format!("I planned it.\n{close}\n\nHere is the answer.");
        let make = move || Parser::with_config(f, ParserConfig::new().reasoning_open(true));
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "I planned it.", "{f}");
        assert_eq!(text(&ev), "Here is the answer.", "{f}");
        assert!(errors(&ev).is_empty(), "{f}: {ev:?}");
        // A second closing tag has no block to close: text.
        let input = format!("plan{close}answer{close}more");
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "plan", "{f}");
        assert_eq!(
            text(&ev),
            shown(f, &format!("answer{close}more"), close),
            "{f}"
        );
    }
}

#[test]
fn stray_closing_tag_before_a_call_keeps_the_call() {
    use crate::exact::Ev;
    use crate::universal::{Answer, Case};
    // Each syntax's call with text around it (its universal fixture's `Call` sample).
    for u in crate::universal::all() {
        let Some((_, close)) = u.reasoning else {
            continue;
        };
        let Some((_, Answer::Sample { input, want })) =
            u.answers.iter().find(|(c, _)| *c == Case::Call)
        else {
            continue;
        };
        let f = u.format;
        let shown_text: String = want
            .iter()
            .filter_map(|e| match e {
                Ev::Text(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        let n = want.iter().filter(|e| matches!(e, Ev::End(..))).count();
        assert!(n > 0, "{f}");
        let input = format!("x{close}{input}");
        let ev = assert_split_invariant(&(move || Parser::new(f)), input.as_bytes(), 40);
        let want_text = shown(f, &format!("x{close}"), close) + &shown_text;
        assert_eq!(text(&ev), want_text, "{f}");
        assert_eq!(calls(&ev).len(), n, "{f}");
        let make = move || Parser::with_config(f, ParserConfig::new().reasoning_open(true));
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "x", "{f}");
        assert_eq!(text(&ev), shown_text, "{f}");
        assert_eq!(calls(&ev).len(), n, "{f}");
    }
}

/// A call error's expected shape: the text around it, the error's kind, index and raw.
pub(crate) struct Broken {
    format: Format,
    what: &'static str,
    before: &'static str,
    /// The model's bytes of the broken call (the error's raw, exactly).
    call: &'static str,
    /// Calls of the same list before the broken one (their bytes come first).
    lead: &'static str,
    after: &'static str,
    kind: ErrorKind,
    index: usize,
    /// The visible text expected.
    text: &'static str,
}

/// A [`Broken`] row: `(before, lead, call, after)` and what the error and text must be.
pub(crate) fn b(
    format: Format,
    what: &'static str,
    (before, lead, call, after): (&'static str, &'static str, &'static str, &'static str),
    kind: ErrorKind,
    index: usize,
    text: &'static str,
) -> Broken {
    Broken {
        format,
        what,
        before,
        call,
        lead,
        after,
        kind,
        index,
        text,
    }
}

/// The rows of the edge rules a syntax's own file holds (its `edges()`, listed in its
/// family's `EDGES`).
pub(crate) struct Edges {
    /// Calls cut off by the end of the input, and corrupted ones: the error's raw is the
    /// model's own bytes of the call from its first marker byte.
    pub(crate) broken: Vec<Broken>,
    /// Calls with the tokens that introduce (and close) them: `(format, call, before,
    /// after, visible text)`.
    pub(crate) markers: Vec<MarkerCall>,
}

/// A call with its tokens: `(format, call, before, after, visible text)`.
pub(crate) type MarkerCall = (
    Format,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

/// Every syntax file's rows.
fn every_edges() -> Vec<Edges> {
    [
        crate::json::EDGES,
        crate::xml::EDGES,
        crate::sections::EDGES,
        crate::pythonic::EDGES,
        crate::gemma::EDGES,
        &[crate::harmony::edges, crate::auto::edges],
    ]
    .iter()
    .flat_map(|l| l.iter().map(|f| f()))
    .collect()
}

/// Calls cut off and corrupted, of every syntax file's rows (a syntax's universal fixture
/// answers its first two with exact events).
fn broken_calls() -> Vec<Broken> {
    every_edges().into_iter().flat_map(|e| e.broken).collect()
}

#[test]
fn a_call_error_carries_the_models_bytes_from_its_first_marker_byte() {
    let cases = broken_calls();
    // (A syntax with a universal fixture answers these with exact events there: its
    // cut and corrupt calls.)
    let own = |f: Format| crate::universal::fixture_of(f).is_some();
    for f in text_formats().into_iter().filter(|f| !own(*f)) {
        for kind in [ErrorKind::Truncated, ErrorKind::InvalidArguments] {
            assert!(
                cases.iter().any(|c| c.format == f && c.kind == kind),
                "{f}: add a {kind:?} call to broken_calls()"
            );
        }
    }
    let mut failed = Vec::new();
    for case in cases {
        let what = format!("{} {}", case.format, case.what);
        if let Err(e) = std::panic::catch_unwind(|| check_broken(&case)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "panic".to_string());
            failed.push(format!("{what}: {msg}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

fn check_broken(case: &Broken) {
    {
        let input = format!("{}{}{}{}", case.before, case.lead, case.call, case.after);
        let f = case.format;
        let make = move || Parser::new(f);
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        let errs: Vec<_> = errors(&ev)
            .into_iter()
            .filter(|e| matches!(e, Event::Error { index: Some(_), .. }))
            .collect();
        let label = format!("{f} {}: {ev:?}", case.what);
        assert_eq!(errs.len(), 1, "{label}");
        let Event::Error {
            kind, index, raw, ..
        } = errs[0]
        else {
            unreachable!()
        };
        assert_eq!(*kind, case.kind, "{label}");
        assert_eq!(*index, Some(case.index), "{label}");
        assert_eq!(raw, case.call, "{label}");
        assert_eq!(text(&ev), case.text, "{label}");
        assert_eq!(errors(&ev).len(), 1, "{label}");
    }
}

/// For every text syntax: the special tokens that introduce (or close) a call are
/// consumed with it, never text; the text around the call is exact.
#[test]
fn call_introducing_tokens_are_markers_never_text() {
    let cases = marker_calls();
    // (A syntax with a universal fixture answers this with exact events there: its call
    // with text around it, and its marker alone.)
    let own = |f: Format| crate::universal::fixture_of(f).is_some();
    for f in text_formats().into_iter().filter(|f| !own(*f)) {
        assert!(
            cases.iter().any(|c| c.0 == f),
            "{f}: add a call to marker_calls()"
        );
    }
    for &(f, call, before, after, want) in &cases {
        let input = format!("{before}{call}{after}");
        let ev = assert_split_invariant(&(move || Parser::new(f)), input.as_bytes(), 40);
        let label = format!("{f} {call}: {ev:?}");
        let got = calls(&ev);
        assert_eq!(got.len(), 1, "{label}");
        assert_eq!(got[0].name, "f", "{label}");
        assert_eq!(got[0].arguments, serde_json::json!({"a": 1}), "{label}");
        // The whitespace before a marker is text (the recovery rule).
        assert_eq!(text(&ev), want, "{label}");
        assert!(errors(&ev).is_empty(), "{label}");
    }
}

/// A call-introducing token that no call follows is text, byte for byte.
/// Calls with their tokens, of every syntax file's rows.
fn marker_calls() -> Vec<MarkerCall> {
    every_edges().into_iter().flat_map(|e| e.markers).collect()
}

/// A syntax without a close marker: a broken call object is skipped to the bracket that
/// balances it (none of it is text), and the array's later calls still count (`open` is
/// the syntax's list opener; its file runs this).
pub(crate) fn a_broken_call_with_no_close_marker_leaks_nothing(f: Format, open: &str) {
    let bad = format!("{open}{{\"name\": \"f\", \"arguments\": {{\"a\": x, \"b\": \"}}\"}}}}");
    let input = format!("Hi {bad}, {{\"name\": \"g\", \"arguments\": {{}}}}] after");
    let ev = assert_split_invariant(&(move || Parser::new(f)), input.as_bytes(), 40);
    let label = format!("{f}: {ev:?}");
    let errs = errors(&ev);
    assert_eq!(errs.len(), 1, "{label}");
    let Event::Error { raw, index, .. } = errs[0] else {
        unreachable!()
    };
    assert_eq!(raw, &bad, "{label}");
    assert_eq!(*index, Some(0), "{label}");
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{label}");
    assert_eq!(got[0].name, "g", "{label}");
    assert_eq!(text(&ev), "Hi  after", "{label}");
}
