//! `mistral`: v3 lists and v11 calls, malformed and truncated, at every chunking.

use crate::common::*;
use crate::exact::split;
use serde_json::json;
use toolstream::{ErrorKind, Format};

#[test]
fn mistral_v3_array_of_calls() {
    let input = "Voilà 😀 [1] \n[TOOL_CALLS] [{\"name\": \"get_wéather\", \"arguments\": {\"city\": \"Paris ✓\"}}, {\"id\": \"abc123DEF\", \"name\": \"t\", \"arguments\": {}}]</s>";
    let ev = split(Format::Mistral, input);
    assert_eq!(text(&ev), "Voilà 😀 [1] \n");
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_wéather", json!({"city": "Paris ✓"})),
            call("abc123DEF", "t", json!({}))
        ]
    );
    assert_eq!(args_text(&ev, 0), "{\"city\": \"Paris ✓\"}");
    assert_start_at(Format::Mistral, input, "\"get_wéather\"");
    // A lone object, no array.
    let ev = split(
        Format::Mistral,
        "[TOOL_CALLS]{\"name\": \"f\", \"arguments\": {\"a\": 1}} done",
    );
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"a": 1}))]);
    assert_eq!(text(&ev), " done");
}

#[test]
fn mistral_v11_calls_with_and_without_ids() {
    let input = "[THINK]Think, é.[/THINK]\n\nOK.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Zürich\"}[TOOL_CALLS]get_time[CALL_ID]a1B2c3D4e[ARGS]{\"tz\": \"UTC\"} after";
    let ev = split(Format::Mistral, input);
    assert_eq!(reasoning(&ev), "Think, é.");
    assert_eq!(text(&ev), "OK. after");
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_weather", json!({"city": "Zürich"})),
            call("a1B2c3D4e", "get_time", json!({"tz": "UTC"}))
        ]
    );
    assert_eq!(args_text(&ev, 1), "{\"tz\": \"UTC\"}");
    assert_start_at(Format::Mistral, input, "get_weather[ARGS]");
}

#[test]
fn mistral_malformed_and_truncated() {
    // Not a name, and no `[ARGS]` after it on its line: the error carries the text up to
    // the offending character, the rest is text.
    let ev = split(Format::Mistral, "[TOOL_CALLS]not a call");
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::MissingName, None, "[TOOL_CALLS]not ".into())]
    );
    assert_eq!(text(&ev), "a call");
    // Broken arguments after the Start.
    let ev = split(Format::Mistral, "[TOOL_CALLS]f[ARGS]{\"a\": tru}x");
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::InvalidArguments,
            Some(0),
            "[TOOL_CALLS]f[ARGS]{\"a\": tru}".into()
        )]
    );
    assert_eq!(text(&ev), "x");
    // Cut off.
    let input = "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": \"é";
    let ev = split(Format::Mistral, input);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::Truncated, Some(0), input.into())]
    );
    let ev = split(Format::Mistral, "[TOOL_CALLS]get_wea");
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::Truncated, None, "[TOOL_CALLS]get_wea".into())]
    );
    // Arguments closed, array not: complete.
    let ev = split(
        Format::Mistral,
        "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}}",
    );
    assert_eq!(calls(&ev).len(), 1);
    assert!(errors(&ev).is_empty());
    // `[TOOL_CALLS]` and nothing after it: cut off before its payload.
    for input in ["[TOOL_CALLS]", "[TOOL_CALLS] \n"] {
        let ev = split(Format::Mistral, input);
        assert_eq!(kinds(&ev), vec![(ErrorKind::Truncated, None, input.into())]);
        assert_eq!(text(&ev), "");
    }
}

#[test]
fn a_junk_name_whose_args_marker_ends_the_line_is_one_error() {
    // Found by `gemma_pythonic::pieces_in_any_order_keep_the_contract` (auto, 1 run in
    // ~60): fed whole, `[ARGS]` right before the line's end was taken for "no `[ARGS]`
    // on the line", so the name's error ended at `[ARGS]` and `\n` was text; byte by
    // byte the arguments had begun and the cut-off call's error carried the `\n`.
    for format in [Format::Mistral, Format::Auto] {
        let input = "[TOOL_CALLS],[ARGS]\n";
        let ev = split(format, input);
        assert_eq!(
            kinds(&ev),
            vec![(ErrorKind::Truncated, None, input.into())],
            "{format}"
        );
        assert_eq!(text(&ev), "", "{format}");
        // With its arguments: one error through them, the rest text.
        let ev = split(format, "[TOOL_CALLS]get weather[ARGS]{\"a\": 1}\nok");
        assert_eq!(
            kinds(&ev),
            vec![(
                ErrorKind::MissingName,
                None,
                "[TOOL_CALLS]get weather[ARGS]{\"a\": 1}".into()
            )],
            "{format}"
        );
        assert_eq!(text(&ev), "\nok", "{format}");
    }
}

#[test]
fn a_broken_name_then_args_in_the_same_piece_is_read_as_in_pieces() {
    // Found by the gemma_pythonic property (auto, `[TOOL_CALLS],[ARGS]\n`): with `[ARGS]`
    // and the byte after it in one piece, a broken name gave up at the line's end as if
    // no `[ARGS]` had come (`missing_name` through `[ARGS]`, then text), byte by byte the
    // arguments were read (cut off: `truncated` with the line break). `[ARGS]` on the
    // line makes the arguments the error's, whatever the chunking.
    use crate::exact::{check_fixtures, err, fx, one, t};
    use ErrorKind::{MissingName, Truncated as Cut};
    check_fixtures(
        Format::Mistral,
        &[
            fx(
                "cut off after [ARGS]",
                "[TOOL_CALLS],[ARGS]\n",
                vec![one(err(Cut, None, "[TOOL_CALLS],[ARGS]\n"))],
            ),
            fx(
                "the arguments after [ARGS]",
                "[TOOL_CALLS],[ARGS] {\"a\": 1}\nok",
                vec![
                    one(err(MissingName, None, "[TOOL_CALLS],[ARGS] {\"a\": 1}")),
                    one(t("\nok")),
                ],
            ),
        ],
    );
}

#[test]
fn a_repeated_tool_calls_marker_opens_one_call_list() {
    // Issue 33: `[TOOL_CALLS][TOOL_CALLS][..]` (the marker written twice) read the
    // second marker as the array's `[`: an error, and the calls leaked as text.
    for input in [
        "[TOOL_CALLS][TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1}}] ok",
        "[TOOL_CALLS] [TOOL_CALLS]\n[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1}}] ok",
        "[TOOL_CALLS][TOOL_CALLS]f[ARGS]{\"a\": 1} ok",
    ] {
        let ev = split(Format::Mistral, input);
        assert_eq!(
            calls(&ev),
            vec![call("call_0", "f", json!({"a": 1}))],
            "{input}"
        );
        assert_eq!(text(&ev), " ok", "{input}");
        assert!(errors(&ev).is_empty(), "{input}: {ev:?}");
    }
    // A `[` that only starts like the marker is the array's, as before: an error with
    // its bytes.
    let ev = split(Format::Mistral, "[TOOL_CALLS][TOOL_X] ok");
    assert!(calls(&ev).is_empty(), "{ev:?}");
    assert_eq!(errors(&ev).len(), 1, "{ev:?}");
    // Cut off after the second marker's first bytes.
    let ev = split(Format::Mistral, "[TOOL_CALLS][TOOL_");
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::Truncated, None, "[TOOL_CALLS][TOOL_".into())]
    );
}

/// `mistral`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Mistral,
        reasoning: Some(("[THINK]", "[/THINK]")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A[TOOL_CALLS]f[ARGS]{"a": 1} B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi [TOOL_CALLS]f[ARGS]{"a": 1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(Cut, Some(0), r#"[TOOL_CALLS]f[ARGS]{"a": 1"#)),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"[TOOL_CALLS]f[ARGS]{"a": x} ok"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(Bad, Some(0), r#"[TOOL_CALLS]f[ARGS]{"a": x}"#)),
                        one(t(" ok")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal [TOOL_CALLS] tag.",
                    vec![
                        one(t("Use a literal ")),
                        one(err(Cut, None, "[TOOL_CALLS] tag.")),
                    ],
                ),
            ),
            (
                Case::StrayClose,
                not_applicable(crate::universal::NO_CLOSING_MARKER),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"[TOOL_CALLS]f[ARGS]{"a": 1[TOOL_CALLS]g[ARGS]{}"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(Cut, Some(0), r#"[TOOL_CALLS]f[ARGS]{"a": 1"#)),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"[TOOL_CALLS][{"name": "f", "arguments": {}, "arguments": {}}]"#,
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            ErrorKind::TrailingArguments,
                            None,
                            r#", "arguments": {}}"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"[TOOL_CALLS]get weather" x[ARGS]{}"#,
                    vec![one(err(
                        ErrorKind::MissingName,
                        None,
                        r#"[TOOL_CALLS]get weather" x[ARGS]{}"#,
                    ))],
                ),
            ),
        ],
    }
}

/// `mistral`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "mistral",
            "v11: a name that is no name ends with its line",
            "[TOOL_CALLS]get weather\" x\nMore [ARGS]{}",
            [
                err(toolstream::ErrorKind::MissingName, None, "[TOOL_CALLS]get "),
                t("weather\" x\nMore [ARGS]{}"),
            ],
        ),
        fx!(
            "mistral",
            "v11: a name that is no name, the id and value after it",
            r#"[TOOL_CALLS]get weather[CALL_ID]abc123def[ARGS]{"a": 1} after"#,
            [
                err(
                    toolstream::ErrorKind::MissingName,
                    None,
                    r#"[TOOL_CALLS]get weather[CALL_ID]abc123def[ARGS]{"a": 1}"#
                ),
                t(" after"),
            ],
        ),
        fx!(
            "mistral",
            "v11: [TOOL_CALLS] between JSON tokens",
            r#"[TOOL_CALLS]f[ARGS]{"a": 1[TOOL_CALLS]g[ARGS]{"b": 2}"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(Cut, Some(0), r#"[TOOL_CALLS]f[ARGS]{"a": 1"#),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "mistral",
            "v11: [TOOL_CALLS] inside a JSON string",
            r#"[TOOL_CALLS]f[ARGS]{"a": "x[TOOL_CALLS]g[ARGS]{"b": 2}"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(Cut, Some(0), r#"[TOOL_CALLS]f[ARGS]{"a": "x"#),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "mistral",
            "v3: a list object left open after its arguments closed",
            r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}[TOOL_CALLS][{"name": "g", "arguments": {}}]"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", "{}")],
        ),
        fx!(
            "mistral",
            "v11: a repeated [TOOL_CALLS], one per call: both calls",
            r#"[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g[ARGS]{"b": 2}"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", r#"{"b": 2}"#)],
        ),
        fx!(
            "mistral",
            "v3: the list form written twice: both calls",
            r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}][TOOL_CALLS][{"name": "g", "arguments": {}}]"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", "{}")],
        ),
        fx!(
            "mistral",
            "v11: brackets and a [TOOL_CALLS] prefix inside a string are content",
            r#"[TOOL_CALLS]f[ARGS]{"a": "[1, [2]] [TOOL_CALL [[TOOL_CALLSx"}"#,
            [call(
                0,
                "f",
                r#"{"a": "[1, [2]] [TOOL_CALL [[TOOL_CALLSx"}"#
            )],
        ),
        fx!(
            "mistral",
            "v11: the text ends inside a string, on a [TOOL_CALLS] prefix",
            r#"[TOOL_CALLS]f[ARGS]{"a": "x[TOOL_CAL"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x[TOOL_CAL"#),
                err(Cut, Some(0), r#"[TOOL_CALLS]f[ARGS]{"a": "x[TOOL_CAL"#),
            ],
        ),
        fx!(
            "mistral",
            "v3: an undefined member after the arguments",
            r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}, "args": {}}]"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(Trailing, None, r#", "args": {}}"#),
            ],
        ),
        fx!(
            "mistral",
            "v11: a raw tab in a string",
            "[TOOL_CALLS]f[ARGS]{\"a\": \"x\ty\"} after",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(Bad, Some(0), "[TOOL_CALLS]f[ARGS]{\"a\": \"x\ty\"}"),
                t(" after"),
            ],
        ),
        fx!(
            "mistral",
            "whitespace before a marker is text",
            "A \n[TOOL_CALLS]f[ARGS]{\"a\": 1}",
            [t("A \n"), call(0, "f", r#"{"a": 1}"#)],
        ),
    ]
}

/// `mistral`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::Mistral;
    Edges {
        broken: vec![
            b(
                Mistral,
                "v11 cut",
                ("Hi ", "", "[TOOL_CALLS]f[ARGS]{\"a\": [1, ", ""),
                Cut,
                0,
                "Hi ",
            ),
            b(
                Mistral,
                "v11 corrupt",
                (
                    "Hi ",
                    "",
                    "[TOOL_CALLS]f[ARGS]{\"a\": x, \"b\": \"}\"}",
                    " after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
            b(
                Mistral,
                "v3 cut",
                (
                    "Hi ",
                    "",
                    "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                Mistral,
                "v3 corrupt",
                (
                    "Hi ",
                    "",
                    "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": x}}",
                    "] after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
            b(
                Mistral,
                "v3 second call cut",
                (
                    "Hi ",
                    "[TOOL_CALLS][{\"name\": \"g\", \"arguments\": {}}, ",
                    "{\"name\": \"f\", \"arguments\": {\"a\": 1",
                    "",
                ),
                Cut,
                1,
                "Hi ",
            ),
        ],
        markers: vec![(
            Mistral,
            "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1}}]",
            "A",
            " B",
            "A B",
        )],
    }
}
