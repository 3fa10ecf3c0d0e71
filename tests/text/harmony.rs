//! `harmony`: channels and recipients, malformed and truncated calls, and generated
//! sequences of its pieces under a small header bound.

use crate::common::*;
use crate::exact::split;
use serde_json::json;
use toolstream::{ErrorKind, Format, Parser, ParserConfig};

#[test]
fn harmony_analysis_then_calls_both_recipient_orders() {
    let input = "<|channel|>analysis<|message|>Need wéather 😀.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Zürich\"}<|call|><|start|>assistant to=functions.now<|channel|>commentary json<|message|>{}<|call|>";
    let ev = split(Format::Harmony, input);
    assert_eq!(reasoning(&ev), "Need wéather 😀.");
    assert_eq!(text(&ev), "");
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_weather", json!({"city": "Zürich"})),
            call("call_1", "now", json!({}))
        ]
    );
    assert_eq!(args_text(&ev, 0), "{\"city\":\"Zürich\"}");
    assert!(errors(&ev).is_empty(), "{ev:?}");
    assert_start_at(Format::Harmony, input, "to=functions.get_weather ");
}

#[test]
fn harmony_final_text_and_plain_start() {
    let input = "<|start|>assistant<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>Hello <b>wörld</b>!<|return|>";
    let ev = split(Format::Harmony, input);
    assert_eq!(reasoning(&ev), "think");
    assert_eq!(text(&ev), "Hello <b>wörld</b>!");
    // Plain text without any token is text; a commentary preamble is text.
    let ev = split(Format::Harmony, "Just text < | >");
    assert_eq!(text(&ev), "Just text < | >");
    let ev = split(
        Format::Harmony,
        "<|channel|>commentary<|message|>Checking…<|end|><|start|>assistant<|channel|>commentary to=functions.f<|message|><|call|>",
    );
    assert_eq!(text(&ev), "Checking…");
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({}))]);
}

#[test]
fn harmony_malformed_and_truncated() {
    let input = "<|channel|>commentary to=python<|message|>print(1)<|call|>ok";
    let ev = split(Format::Harmony, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::InvalidArguments,
            Some(0),
            input.trim_end_matches("ok").into()
        )]
    );
    assert_eq!(text(&ev), "ok");
    let input = "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": [1,";
    let ev = split(Format::Harmony, input);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::Truncated, Some(0), input.into())]
    );
    let ev = split(Format::Harmony, "<|start|>assistant<|channel|>comm");
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::Truncated,
            None,
            "<|start|>assistant<|channel|>comm".into()
        )]
    );
    // Arguments closed, <|call|> missing: complete.
    let ev = split(
        Format::Harmony,
        "<|channel|>commentary to=functions.f<|message|>{\"a\":1}",
    );
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"a": 1}))]);
    assert!(errors(&ev).is_empty());
}

/// Pieces of harmony headers and bodies (and of what breaks them), for the property below.
const HARMONY_PIECES: &[&str] = &[
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<|constrain|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|",
    "|>",
    "assistant",
    "commentary",
    "analysis",
    "final",
    "to=",
    "to=functions.f",
    "functions.",
    "\"a\"",
    "json",
    "{\"a\": 1}",
    "{",
    "}",
    "x",
    "é😀",
    " ",
    "\t",
    "\n",
    "\u{c}",
    "\0",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any sequence of harmony's pieces under a small header bound (`max_held_bytes`), fed
    /// to `harmony` and to `auto`: the contract holds, and any chunking gives the events
    /// of the whole input (the fuzz `parser` target's check, aimed at headers that run
    /// past their bound: a recipient settled before the cut started a call only when the
    /// header came in pieces).
    #[test]
    fn harmony_pieces_under_a_small_header_bound_keep_the_contract(
        picks in proptest::collection::vec(0usize..HARMONY_PIECES.len(), 0..64),
        cuts in proptest::collection::vec(0usize..400, 0..10),
        held in proptest::sample::select(vec![8usize, 16, 24, 32, 64]),
        auto in proptest::bool::ANY,
    ) {
        let body: String = picks.iter().map(|&i| HARMONY_PIECES[i]).collect();
        let format = if auto { Format::Auto } else { Format::Harmony };
        let make = move || Parser::with_config(format, ParserConfig::new().max_held_bytes(held));
        let whole = run_whole(&make, body.as_bytes());
        check_contract(&whole);
        proptest::prop_assert_eq!(
            run_chunks(&make, &cut_at(body.as_bytes(), &cuts)),
            whole.clone()
        );
        proptest::prop_assert_eq!(run_sized(&make, body.as_bytes(), 1), whole);
    }
}

/// `harmony`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Harmony,
        reasoning: None,
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: true,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"Hi<|start|>assistant<|channel|>final<|message|>A<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>"#,
                    vec![one(t("HiA")), call(0, "f", r#"{"a": 1}"#)],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": x}<|call|>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": x}<|call|>"#,
                        )),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|channel|> tag.",
                    vec![
                        one(t("Use a literal ")),
                        one(err(Cut, None, "<|channel|> tag.")),
                    ],
                ),
            ),
            (
                Case::StrayClose,
                sample("done<|call|> ok", vec![one(t("done ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1<|start|>assistant<|channel|>commentary to=functions.g <|constrain|>json<|message|>{}<|call|>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                not_applicable(crate::universal::ONE_NAME_ONE_ARGUMENTS),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<|start|>assistant<|channel|>commentary to=functions."get weather" <|constrain|>json<|message|>{}<|call|>"#,
                    vec![one(err(
                        Bad,
                        None,
                        r#"<|start|>assistant<|channel|>commentary to=functions."get weather" <|constrain|>json<|message|>{}<|call|>"#,
                    ))],
                ),
            ),
        ],
    }
}

/// `harmony`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "harmony",
            "a recipient cut at markup names no tool",
            r#"<|channel|>commentary to=functions.<b>f</b> <|constrain|>json<|message|>{}<|call|>after"#,
            [
                err(
                    Bad,
                    None,
                    r#"<|channel|>commentary to=functions.<b>f</b> <|constrain|>json<|message|>{}<|call|>"#
                ),
                t("after"),
            ],
        ),
        fx!(
            "harmony",
            "a recipient with a quote in it names no tool",
            r#"<|channel|>commentary to=functions.get"x <|constrain|>json<|message|>{"a": 1}<|end|>"#,
            [err(
                Bad,
                None,
                r#"<|channel|>commentary to=functions.get"x <|constrain|>json<|message|>{"a": 1}<|end|>"#
            )],
        ),
        fx!(
            "harmony",
            "<|start|> inside a call's JSON",
            r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1<|start|>assistant<|channel|>commentary to=functions.g <|constrain|>json<|message|>{"b": 2}<|call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ]
        ),
        fx!(
            "harmony",
            "<|channel|> in a broken call's body",
            r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": x <|channel|>commentary to=functions.g <|constrain|>json<|message|>{}<|call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "#),
                err(
                    Bad,
                    Some(0),
                    r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": x "#
                ),
                call(1, "g", "{}"),
            ]
        ),
        fx!(
            "harmony",
            "<|start|> right after <|message|>: the call had no body",
            r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|><|start|>assistant<|channel|>commentary to=functions.g <|constrain|>json<|message|>{}<|call|>"#,
            [
                start(0, "f"),
                err(
                    Cut,
                    Some(0),
                    r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>"#
                ),
                call(1, "g", "{}"),
            ]
        ),
    ]
}

/// `harmony`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::Edges;
    use toolstream::Format::Harmony;
    Edges {
        broken: vec![],
        markers: vec![(
            Harmony,
            "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}<|call|>",
            "",
            "",
            "",
        )],
    }
}

#[test]
fn damaged_headers_keep_their_bytes() {
    // Issue 33: a damaged header (a token cut in it, a second channel) was dropped with
    // no trace, and a header cut short by `<|start|>` put that token in its error and in
    // the next header too. A damaged header is an error with its bytes; the body is read
    // as its channel says; a `<|start|>` belongs to the header it begins.
    let bad = ErrorKind::UnexpectedPayload;
    let ev = split(
        Format::Harmony,
        "<|start|>assistant<|chan<|message|>hi<|end|><|start|>assistant<|channel|>final<|channel|>analysis<|message|> there<|end|>",
    );
    assert_eq!(text(&ev), "hi there");
    assert_eq!(
        kinds(&ev),
        vec![
            (bad, None, "<|start|>assistant<|chan<|message|>".into()),
            (
                bad,
                None,
                "<|start|>assistant<|channel|>final<|channel|>analysis<|message|>".into()
            ),
        ]
    );
    let ev = split(
        Format::Harmony,
        "<|start|>assistant<|channel|>comm<|start|>assistant<|channel|>fi<nal<|message|>x<|end|>",
    );
    assert_eq!(
        kinds(&ev),
        vec![
            (bad, None, "<|start|>assistant<|channel|>comm".into()),
            (
                bad,
                None,
                "<|start|>assistant<|channel|>fi<nal<|message|>".into()
            ),
        ]
    );
    assert_eq!(text(&ev), "x");
}
