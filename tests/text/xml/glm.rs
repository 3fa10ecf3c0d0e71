//! `glm`: Python literals without a schema, at every chunking.

use crate::common::*;
use crate::exact::{split, split_with};
use serde_json::json;
use toolstream::{Format, ParserConfig, Tools};

const F: Format = Format::Glm;

#[test]
fn python_literals_without_a_schema() {
    let input = "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>True</arg_value>\n<arg_key>b</arg_key>\n<arg_value> False </arg_value>\n<arg_key>c</arg_key>\n<arg_value>None</arg_value>\n<arg_key>d</arg_key>\n<arg_value>Truth</arg_value>\n<arg_key>e</arg_key>\n<arg_value>None of these</arg_value>\n<arg_key>g</arg_key>\n<arg_value>true</arg_value>\n</tool_call>";
    let ev = split(F, input);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "f",
            json!({"a": true, "b": false, "c": null, "d": "Truth", "e": "None of these", "g": true})
        )]
    );
    // A string parameter of the schema stays the model's text.
    let tools = Tools::from_json(
        r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object",
        "properties":{"a":{"type":"string"}}}}}]"#,
    )
    .unwrap();
    let input = "<tool_call>f<arg_key>a</arg_key><arg_value>None</arg_value></tool_call>";
    let ev = split_with(F, ParserConfig::new().tools(tools), input);
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"a": "None"}))]);
}

#[test]
fn a_call_close_inside_a_value_is_an_error_not_half_a_call() {
    // Issue 33 (HY v4's slip, the same body as GLM's): a value in `<arg_value>` ends
    // only at `</arg_value>`; a literal `</tool_call>` in it makes the call an error
    // carrying its bytes through its own close, and the next call counts.
    let bad = "<tool_call>f\n<arg_key>code</arg_key>\n<arg_value>x </tool_call> y</arg_value>\n<arg_key>n</arg_key>\n<arg_value>2</arg_value>\n</tool_call>";
    let input = format!("{bad}<tool_call>g\n</tool_call> ok");
    let ev = split(F, &input);
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({}))]);
    assert_eq!(
        kinds(&ev),
        vec![(toolstream::ErrorKind::InvalidArguments, Some(0), bad.into())]
    );
    assert_eq!(text(&ev), " ok");
}

/// Issue 33: after a bare `<tool_call>`, a line that is no name (a space before it, or
/// whitespace or markup in it) is a call only if a tag follows it (then a malformed one,
/// an error with its bytes); prose after the line, or the end of the text, makes the tag
/// and the line text, byte for byte, at every chunking — however long the line.
#[test]
fn a_literal_call_tag_in_prose_is_text() {
    use crate::exact::{call, check_fixtures, err, fx, one, t};
    use toolstream::ErrorKind::InvalidArguments as Bad;
    let long = format!("Use <tool_call>{}\nMore.", " word".repeat(100));
    let junk_body =
        "<tool_call>get weather\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>";
    check_fixtures(
        F,
        &[
            fx(
                "a tag then prose, then the end of the text",
                "Use a literal <tool_call> tag.",
                vec![one(t("Use a literal <tool_call> tag."))],
            ),
            fx(
                "a tag then prose over lines",
                "A <tool_call> tag\n  and more\n",
                vec![one(t("A <tool_call> tag\n  and more\n"))],
            ),
            fx(
                "a tag then a prose line longer than a name",
                long.clone(),
                vec![one(t(&long))],
            ),
            fx(
                "a junk name line, then the call's body: an error",
                format!("{junk_body} ok"),
                vec![one(err(Bad, None, junk_body)), one(t(" ok"))],
            ),
            fx(
                "GLM-4.5-Air: a space between the name and its first key",
                "<tool_call>ls <arg_key>dirPath</arg_key> <arg_value>backend</arg_value> </tool_call>",
                vec![call(0, "ls", r#"{"dirPath":"backend"}"#)],
            ),
            fx(
                "a space before the name, a tag on the next line: the name read there",
                "<tool_call> ls\n<arg_key>p</arg_key><arg_value>b</arg_value></tool_call>",
                vec![call(0, "ls", r#"{"p":"b"}"#)],
            ),
        ],
    );
}

/// `glm`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    universal_in(Format::Glm, &GLM_TAGS, None)
}

/// The tags of a syntax with GLM's call body: a call's open and close, a key's, a value's.
pub(crate) struct GlmTags {
    pub(crate) call: (&'static str, &'static str),
    pub(crate) key: (&'static str, &'static str),
    pub(crate) value: (&'static str, &'static str),
}

/// GLM's own tags (HY v4's too).
pub(crate) const GLM_TAGS: GlmTags = GlmTags {
    call: ("<tool_call>", "</tool_call>"),
    key: ("<arg_key>", "</arg_key>"),
    value: ("<arg_value>", "</arg_value>"),
};

/// The answers to the universal cases of a syntax with GLM's call body (`glm`, `hy-v4`,
/// `k2-horizon`): its `tags`, in the section `section` if it has one; `<think>` reasoning.
pub(crate) fn universal_in(
    format: Format,
    tags: &GlmTags,
    section: Option<(&'static str, &'static str)>,
) -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    let (so, sc) = section.unwrap_or(("", ""));
    let (co, cc) = tags.call;
    let arg = |k: &str, v: &str| {
        format!(
            "{}{k}{}{}{v}{}",
            tags.key.0, tags.key.1, tags.value.0, tags.value.1
        )
    };
    let a1 = arg("a", "1");
    let marker_alone = match section {
        Some((open, _)) => sample(
            format!("Use a literal {open} tag."),
            vec![one(t(&format!("Use a literal {open} tag.")))],
        ),
        None => sample(
            format!("Use a literal {co} tag.\nMore."),
            vec![one(t(&format!("Use a literal {co} tag.\nMore.")))],
        ),
    };
    let stray = if sc.is_empty() { cc } else { sc };
    Universal {
        format,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    format!("Hi {so}{co}f{a1}{cc}{sc} bye"),
                    vec![one(t("Hi ")), call(0, "f", r#"{"a":1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    format!("{so}{co}f{}a{}{}x", tags.key.0, tags.key.1, tags.value.0),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"x"#)),
                        one(err(
                            Cut,
                            Some(0),
                            &format!("{co}f{}a{}{}x", tags.key.0, tags.key.1, tags.value.0),
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    format!(
                        "{so}{co}f{}a{}1{}{cc}{sc} ok",
                        tags.key.0, tags.value.0, tags.value.1
                    ),
                    vec![
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            &format!("{co}f{}a{}1{}{cc}", tags.key.0, tags.value.0, tags.value.1),
                        )),
                        one(t(" ok")),
                    ],
                ),
            ),
            (Case::MarkerAlone, marker_alone),
            (
                Case::StrayClose,
                sample(
                    format!("done{stray} ok"),
                    vec![one(t(&format!("done{stray} ok")))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    format!("{so}{co}f{a1}{co}g{cc}{sc}"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Cut, Some(0), &format!("{co}f{a1}"))),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    format!("{so}{co}f{a1}{}{cc}{sc}", arg("a", "2")),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            &format!("{co}f{a1}{}{cc}", arg("a", "2")),
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    format!("{so}{co}get weather\" x{cc}{sc}"),
                    vec![one(err(Bad, None, &format!("{co}get weather\" x{cc}")))],
                ),
            ),
        ],
    }
}

/// `glm`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "glm",
            "a missing </tool_call>",
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<tool_call>g\n<arg_key>a</arg_key>\n<arg_value>2</arg_value>\n</tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n"
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "glm",
            "a repeated key",
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>a</arg_key>\n<arg_value>2</arg_value>\n</tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>a</arg_key>\n<arg_value>2</arg_value>\n</tool_call>"
                ),
            ],
        ),
    ]
}

/// `glm`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::Glm;
    Edges {
        broken: vec![
            b(
                Glm,
                "cut",
                (
                    "Hi ",
                    "",
                    "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                Glm,
                "corrupt",
                (
                    "Hi ",
                    "",
                    "<tool_call>f\n<arg_key>a\nb</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
                    " after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
        ],
        markers: vec![(
            Glm,
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
            "A",
            " B",
            "A B",
        )],
    }
}

/// `glm`'s rows of the XML fixture table (`xml/tables.rs`, which runs them with the
/// family's, typed with and without the schema where a row says so).
pub(crate) fn table() -> Vec<crate::xml::tables::Fx> {
    use crate::xml::tables::fx;
    use serde_json::json;
    use toolstream::ErrorKind;
    use toolstream::Format;
    vec![
        fx(
            "glm single, text around",
            Format::Glm,
            "Let me check 😀.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Zürich</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\nDone ✓",
        )
        .text("Let me check 😀.\n\nDone ✓")
        .call("get_weather", json!({"city": "Zürich", "days": 3})),
        fx(
            "glm-4.7: no newline after the name, several calls",
            Format::Glm,
            "<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_value></tool_call><tool_call>b<arg_key>y</arg_key><arg_value>[true, null]</arg_value></tool_call>",
        )
        .call("a", json!({"x": 1}))
        .call("b", json!({"y": [true, null]})),
        fx(
            "glm nested, escaped and tag-like values",
            Format::Glm,
            "<tool_call>w\n<arg_key>path</arg_key>\n<arg_value>a\"b\\c\td</arg_value>\n<arg_key>code</arg_key>\n<arg_value>if a<b: x = \"</arg\"\n</arg_value>\n<arg_key>o</arg_key>\n<arg_value>{\"k\": [\"é\", {\"n\": null}]}</arg_value>\n</tool_call>",
        )
        .call(
            "w",
            json!({"path": "a\"b\\c\td", "code": "if a<b: x = \"</arg\"\n", "o": {"k": ["é", {"n": null}]}}),
        ),
        fx(
            "glm empty arguments",
            Format::Glm,
            "<tool_call>now\n</tool_call>",
        )
        .call("now", json!({})),
        fx(
            "glm truncated",
            Format::Glm,
            "ok <tool_call>f\n<arg_key>a</arg_key>\n<arg_value>par",
        )
        .text("ok ")
        .error(
            ErrorKind::Truncated,
            Some(0),
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>par",
        ),
        fx(
            "glm-4.7 without the opening <arg_value>: the value follows the key",
            Format::Glm,
            "<tool_call>search<arg_key>query</arg_key>how many days</arg_value><arg_key>n</arg_key>\n<arg_v 2</arg_value></tool_call>after",
        )
        .text("after")
        .call("search", json!({"query": "how many days", "n": "<arg_v 2"})),
        fx(
            "glm malformed: a key running past its line",
            Format::Glm,
            "<tool_call>f\n<arg_key>a\nb</arg_key><arg_value>1</arg_value></tool_call>after",
        )
        .text("after")
        .error(
            ErrorKind::InvalidArguments,
            Some(0),
            "<tool_call>f\n<arg_key>a\nb</arg_key><arg_value>1</arg_value></tool_call>",
        ),
        fx(
            "glm: hermes JSON is not a glm call",
            Format::Glm,
            "<tool_call>{\"name\": \"f\"}</tool_call>x",
        )
        .text("x")
        .error(
            ErrorKind::InvalidArguments,
            None,
            "<tool_call>{\"name\": \"f\"}</tool_call>",
        ),
        fx(
            "glm reasoning and end-of-turn",
            Format::Glm,
            "<think>plan é</think>\nAnswer<|user|>",
        )
        .reasoning("plan é")
        .text("Answer"),
    ]
}
