//! The runner of one syntax's exact-event fixtures (the per-syntax files of issue 22's
//! new syntaxes use it): each fixture states the merged events it must give, and is run
//! whole, byte by byte, at every split point (a marker split at every byte) and at
//! random splits, the DESIGN contract checked on each run; every prefix of a fixture
//! (the text cut off anywhere) keeps the contract and never completes a call the whole
//! input does not complete the same way.
//!
//! Its [`Ev`] and the event helpers ([`t`], [`call`], [`err`], [`evs`], ...) are the
//! one copy of this binary: `rules/recovery.rs` states its fixtures with them too.

use crate::common::*;
use serde_json::Value;
use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig};

/// An event as a fixture states it: ids and error messages are not compared.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ev {
    Text(String),
    Reasoning(String),
    Start(usize, String),
    Args(usize, String),
    End(usize, String, Value),
    Error(ErrorKind, Option<usize>, String),
}

/// Text.
pub(crate) fn t(s: &str) -> Ev {
    Ev::Text(s.to_owned())
}

/// Reasoning.
pub(crate) fn r(s: &str) -> Ev {
    Ev::Reasoning(s.to_owned())
}

/// A Start.
pub(crate) fn start(i: usize, name: &str) -> Ev {
    Ev::Start(i, name.to_owned())
}

/// Argument text.
pub(crate) fn args(i: usize, delta: &str) -> Ev {
    Ev::Args(i, delta.to_owned())
}

/// An error with its raw text.
pub(crate) fn err(kind: ErrorKind, index: Option<usize>, raw: &str) -> Ev {
    Ev::Error(kind, index, raw.to_owned())
}

/// A call that completes: Start, its argument text `json` (the model's bytes, or the
/// JSON a converting syntax writes), End with the parsed value.
pub(crate) fn call(i: usize, name: &str, json: &str) -> Vec<Ev> {
    let value: Value = serde_json::from_str(json).expect("fixture arguments are JSON");
    vec![
        start(i, name),
        args(i, json),
        Ev::End(i, name.to_owned(), value),
    ]
}

/// The merged events of a run, as [`Ev`]s (the finish event left out).
pub(crate) fn evs(events: &[Event]) -> Vec<Ev> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Text { delta } => Some(t(delta)),
            Event::Reasoning { delta } => Some(r(delta)),
            Event::ToolCallStart { index, name, .. } => Some(start(*index, name)),
            Event::ToolCallArgs { index, delta } => Some(args(*index, delta)),
            Event::ToolCallEnd {
                index,
                name,
                arguments,
                ..
            } => Some(Ev::End(*index, name.clone(), arguments.clone())),
            Event::Error {
                kind, index, raw, ..
            } => Some(err(*kind, *index, raw)),
            _ => None,
        })
        .collect()
}

/// `format`'s events for `input` (default options), run as [`split_with`] runs them.
pub(crate) fn split(format: Format, input: &str) -> Vec<Event> {
    split_with(format, ParserConfig::new(), input)
}

/// Runs `input` through `format` set up by `config`, whole, byte by byte, at every split
/// point and at random splits, the contract checked on each; the events of the whole run
/// (the shared driver of the per-syntax files' runs with options). A format that can be
/// written as a spec is also run through the spec `toolstream spec FORMAT` prints, read
/// back from its text, with the same options: whole and byte by byte, the same events.
pub(crate) fn split_with(format: Format, config: ParserConfig, input: &str) -> Vec<Event> {
    let spec = spec_of(format);
    let given = config.clone();
    let make = move || Parser::with_config(format, given.clone());
    let got = assert_split_invariant(&make, input.as_bytes(), 30);
    if let Some(syntax) = spec {
        let via = move || Parser::with_syntax(syntax.clone(), config.clone());
        for n in [input.len(), 1] {
            let spec_events = run_sized(&via, input.as_bytes(), n);
            assert_eq!(
                spec_events, got,
                "{format} (spec), chunks of {n}: {input:?}"
            );
        }
    }
    got
}

/// The spec of `format` as `toolstream spec FORMAT` prints it, read back from its text
/// (`None`: the format cannot be written as a spec).
pub(crate) fn spec_of(format: Format) -> Option<toolstream::Syntax> {
    toolstream::Syntax::builtin(format).map(|s| {
        let text = serde_json::to_string(&s.to_json()).unwrap_or_default();
        toolstream::Syntax::from_json(&text).unwrap_or_else(|e| panic!("{format}: {e}"))
    })
}

/// One fixture: what it shows, the model's text, the events it must give.
pub(crate) struct Fx {
    pub(crate) what: &'static str,
    pub(crate) input: String,
    pub(crate) want: Vec<Ev>,
}

/// Builds a fixture from groups of events (a [`call`] is three).
pub(crate) fn fx(what: &'static str, input: impl Into<String>, groups: Vec<Vec<Ev>>) -> Fx {
    Fx {
        what,
        input: input.into(),
        want: groups.into_iter().flatten().collect(),
    }
}

/// One event as a group, for [`fx`].
pub(crate) fn one(e: Ev) -> Vec<Ev> {
    vec![e]
}

/// A parser for `format` with pinned ids.
pub(crate) fn make(format: Format) -> impl Fn() -> Parser {
    move || Parser::with_config(format, ParserConfig::new().id_prefix("call_"))
}

/// Runs every fixture at every chunking and compares with its events; then every prefix
/// of it (see the module doc).
pub(crate) fn check_fixtures(format: Format, fixtures: &[Fx]) {
    let make = make(format);
    // A format that can be written as a spec: the spec `toolstream spec FORMAT` prints,
    // read back from its text, gives the same events on every fixture.
    let spec = spec_of(format);
    for f in fixtures {
        let got = assert_split_invariant(&make, f.input.as_bytes(), 30);
        assert_eq!(evs(&got), f.want, "{format} — {}: {:?}", f.what, f.input);
        if let Some(syntax) = &spec {
            let via = assert_split_invariant(
                &|| Parser::with_syntax(syntax.clone(), ParserConfig::new().id_prefix("call_")),
                f.input.as_bytes(),
                8,
            );
            assert_eq!(via, got, "{format} (spec) — {}: {:?}", f.what, f.input);
        }
        check_prefixes(&make, &f.input, &got);
    }
}

/// Every prefix of `input` (cut at a character boundary) keeps the contract, gives the
/// same events whole and byte by byte, and completes only calls that `whole` (the
/// events of all of `input`) completes with the same name and arguments.
pub(crate) fn check_prefixes(make: &dyn Fn() -> Parser, input: &str, whole: &[Event]) {
    let ends: Vec<(String, Value)> = whole
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallEnd {
                name, arguments, ..
            } => Some((name.clone(), arguments.clone())),
            _ => None,
        })
        .collect();
    for cut in (0..input.len()).filter(|c| input.is_char_boundary(*c)) {
        let prefix = &input.as_bytes()[..cut];
        let got = run_whole(make, prefix);
        check_contract(&got);
        assert_eq!(
            run_sized(make, prefix, 1),
            got,
            "prefix {cut} of {input:?}: byte by byte differs"
        );
        let done: Vec<(String, Value)> = got
            .iter()
            .filter_map(|e| match e {
                Event::ToolCallEnd {
                    name, arguments, ..
                } => Some((name.clone(), arguments.clone())),
                _ => None,
            })
            .collect();
        assert!(
            done.len() <= ends.len() && done.iter().zip(&ends).all(|(a, b)| a == b),
            "prefix {cut} of {input:?} completes a call the whole text does not: {got:?}"
        );
    }
}
