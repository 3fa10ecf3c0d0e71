//! `llama-pythonic`, `llama-json` and `auto`: own fixtures (the syntaxes, the peers'
//! failures, prose that only looks like a call) at every chunking, the raw-text and
//! leaked-content captures, options, timing of Start/End, bounds, and generated streams
//! (random prose with random calls, cut anywhere).

use crate::common;
use crate::common::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use toolstream::{ErrorKind, Event, Format, Framing, Parser, ParserConfig};

fn py() -> Parser {
    common::parser(Format::LlamaPythonic)
}

fn js() -> Parser {
    common::parser(Format::LlamaJson)
}

fn auto() -> Parser {
    common::parser(Format::Auto)
}

/// One fixture: input, the visible text, the calls that end (name, arguments), and the
/// call errors (indexed `Error` events).
struct Case {
    name: &'static str,
    input: &'static str,
    text: &'static str,
    calls: Vec<(&'static str, Value)>,
    call_errors: usize,
}

fn case(
    name: &'static str,
    input: &'static str,
    text: &'static str,
    calls: Vec<(&'static str, Value)>,
) -> Case {
    Case {
        name,
        input,
        text,
        calls,
        call_errors: 0,
    }
}

fn broken(
    name: &'static str,
    input: &'static str,
    text: &'static str,
    calls: Vec<(&'static str, Value)>,
    call_errors: usize,
) -> Case {
    Case {
        name,
        input,
        text,
        calls,
        call_errors,
    }
}

fn call_errors(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| matches!(e, Event::Error { index: Some(_), .. }))
        .collect()
}

/// Drives every case at whole / 1-byte / every split / random splits and checks it.
fn run_cases(make: &dyn Fn() -> Parser, cases: &[Case]) {
    for c in cases {
        let events = assert_split_invariant(make, c.input.as_bytes(), 40);
        assert_eq!(text(&events), c.text, "{}: text", c.name);
        let got: Vec<(String, Value)> = calls(&events)
            .into_iter()
            .map(|k| (k.name, k.arguments))
            .collect();
        let want: Vec<(String, Value)> = c
            .calls
            .iter()
            .map(|(n, a)| (n.to_string(), a.clone()))
            .collect();
        assert_eq!(got, want, "{}: calls", c.name);
        assert_eq!(
            call_errors(&events).len(),
            c.call_errors,
            "{}: call errors in {events:?}",
            c.name
        );
    }
}

// ---------------------------------------------------------------------------------
// llama-pythonic

#[test]
fn pythonic_fixtures() {
    let cases = vec![
        case(
            "single call",
            "[get_weather(city='Paris', days=3)]",
            "",
            vec![("get_weather", json!({"city": "Paris", "days": 3}))],
        ),
        case(
            "several calls in one list (SGLang loses the second in the same chunk)",
            "[f(a=1), g(b=\"x\"),h()]",
            "",
            vec![
                ("f", json!({"a": 1})),
                ("g", json!({"b": "x"})),
                ("h", json!({})),
            ],
        ),
        case(
            "text before and after in the same chunk (vLLM drops text after ])",
            "Sure! [f(a=1)] Done.",
            "Sure!  Done.",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "] and ) inside strings (SGLang breaks on ] in a string)",
            "[f(q=\"a]b\", r='x)y', s='''t\"]'''), g(z='[')]",
            "",
            vec![
                ("f", json!({"q": "a]b", "r": "x)y", "s": "t\"]"})),
                ("g", json!({"z": "["})),
            ],
        ),
        case(
            "non-ASCII text before [ (SGLang loses the call)",
            "Voilà — 天気: [get_weather(city=\"東京\")] ✓😀",
            "Voilà — 天気:  ✓😀",
            vec![("get_weather", json!({"city": "東京"}))],
        ),
        case(
            "prose brackets stay text byte for byte (SGLang deletes [1, 2])",
            "Lists [1, 2], links [link](url), [ x ], [see below], [a-b], [f.], [x.1(], [f (a=1)], a[i](j) and f(x=1).",
            "Lists [1, 2], links [link](url), [ x ], [see below], [a-b], [f.], [x.1(], [f (a=1)], a[i](j) and f(x=1).",
            vec![],
        ),
        case(
            "text after ] (vLLM drops it)",
            "[f()]\nthanks, that was all",
            "\nthanks, that was all",
            vec![("f", json!({}))],
        ),
        case(
            "literals of every kind",
            "[f(x=[1, (2, 3)], d={'k': None, 1: 2}, t=True, n=-1.5e3, e=(), s='a\\nb\\'c')]",
            "",
            vec![(
                "f",
                json!({"x": [1, [2, 3]], "d": {"k": null, "1": 2}, "t": true, "n": -1.5e3, "e": [], "s": "a\nb'c"}),
            )],
        ),
        case(
            "Llama built-in tool: x.call(..) is named x",
            "[brave_search.call(query=\"current CEO of Meta\")]",
            "",
            vec![("brave_search", json!({"query": "current CEO of Meta"}))],
        ),
        case(
            "other dotted names are kept whole",
            "[math.sqrt(x=4)]",
            "",
            vec![("math.sqrt", json!({"x": 4}))],
        ),
        case(
            "[[call]]: the outer brackets are text",
            "[[f(a=1)]]",
            "[]",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "junk after a call ends the list; it is text",
            "[f(a=1) and more] ok",
            " and more] ok",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "a list element that is not a call is text",
            "[f(a=1), 2]",
            ", 2]",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "two lists with text between",
            "[f()] and then [g(x='y')].",
            " and then .",
            vec![("f", json!({})), ("g", json!({"x": "y"}))],
        ),
        case(
            "header cut by the end of input is text",
            "see [get_wea",
            "see [get_wea",
            vec![],
        ),
        case(
            "whitespace and newlines inside the list",
            "[\n  f(a=1),\n  g(b=2)\n]",
            "",
            vec![("f", json!({"a": 1})), ("g", json!({"b": 2}))],
        ),
        case(
            "hyphenated tool name",
            "[get-weather(city='x')]",
            "",
            vec![("get-weather", json!({"city": "x"}))],
        ),
        broken(
            "a value that is not a literal: Error, then the rest is text",
            "[f(x=foo)] after",
            " after",
            vec![],
            1,
        ),
        broken(
            "a positional argument fails that call only",
            "[f(1), g(a=2)]",
            "",
            vec![("g", json!({"a": 2}))],
            1,
        ),
        broken(
            "broken call with nested brackets and quotes is skipped whole",
            "[f(a={b=1, c=')'}), g()] tail",
            " tail",
            vec![("g", json!({}))],
            1,
        ),
        broken(
            "] at the top level of a broken call closes the list",
            "[f(a=x] tail",
            " tail",
            vec![],
            1,
        ),
        broken("cut off inside the arguments", "[f(a='abc", "", vec![], 1),
    ];
    run_cases(&py, &cases);
}

#[test]
fn pythonic_error_carries_the_raw_call() {
    let events = run_whole(&py, b"[f(x=foo, y='z')] after");
    let err = call_errors(&events);
    let Event::Error { raw, kind, .. } = err[0] else {
        unreachable!()
    };
    assert_eq!(*kind, ErrorKind::InvalidArguments);
    // The model's own bytes of the call, from the list's `[` through the call's `)` and
    // the list's `]` after it.
    assert_eq!(raw, "[f(x=foo, y='z')]");
}

#[test]
fn pythonic_invalid_utf8_in_text_is_replaced() {
    let events = assert_split_invariant(&py, b"a\xFFb\xC3[f()]\xE4\xB8", 10);
    assert_eq!(text(&events), "a\u{FFFD}b\u{FFFD}\u{FFFD}");
    assert_eq!(calls(&events).len(), 1);
}

// ---------------------------------------------------------------------------------
// llama-json

#[test]
fn json_fixtures() {
    let cases = vec![
        case(
            "name then parameters",
            r#"{"name": "f", "parameters": {"a": 1}}"#,
            "",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "arguments key",
            r#"{"name":"f","arguments":{"a":[1,{"b":null}]}}"#,
            "",
            vec![("f", json!({"a": [1, {"b": null}]}))],
        ),
        case(
            "parameters before the name",
            r#"{"parameters": {"a": "x"}, "name": "f"}"#,
            "",
            vec![("f", json!({"a": "x"}))],
        ),
        case(
            "type: function first",
            r#"{"type": "function", "name": "f", "parameters": {}}"#,
            "",
            vec![("f", json!({}))],
        ),
        case(
            "type after the arguments",
            r#"{"name": "f", "parameters": {"a": 1}, "type": "function"}"#,
            "",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "python_tag and eom_id",
            "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": \"x\"}}<|eom_id|>",
            "",
            vec![("f", json!({"a": "x"}))],
        ),
        case(
            "several calls separated by ;",
            r#"{"name": "f", "parameters": {}}; {"name": "g", "parameters": {"b": 2}};{"name":"h","parameters":{}}"#,
            "",
            vec![("f", json!({})), ("g", json!({"b": 2})), ("h", json!({}))],
        ),
        case(
            "a JSON array of calls",
            r#"[{"name": "f", "parameters": {}}, {"name": "g", "arguments": {"b": 2}}]"#,
            "",
            vec![("f", json!({})), ("g", json!({"b": 2}))],
        ),
        case(
            "text before and after",
            "Here: {\"name\": \"f\", \"parameters\": {\"a\": 1}} done",
            "Here:  done",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "prose JSON stays text byte for byte (Dynamo holds all text after {)",
            r#"The answer is {"answer": 42}, {}, { }, [1, 2], {"parameters": 1}, {"type": "function"}, {"name" 1}, {"nam": 2}, [ {"x": 1} ] and <b>bold</b>."#,
            r#"The answer is {"answer": 42}, {}, { }, [1, 2], {"parameters": 1}, {"type": "function"}, {"name" 1}, {"nam": 2}, [ {"x": 1} ] and <b>bold</b>."#,
            vec![],
        ),
        case(
            "non-ASCII around and inside",
            "Olá — {\"name\": \"f\", \"parameters\": {\"city\": \"São Paulo 東京 😀\"}} ✓",
            "Olá —  ✓",
            vec![("f", json!({"city": "São Paulo 東京 😀"}))],
        ),
        case(
            "name-only object: a call with {}",
            r#"{"name": "get_time"}"#,
            "",
            vec![("get_time", json!({}))],
        ),
        case(
            "an extra closing brace is text",
            r#"{"name": "f", "parameters": {"a": 1}}}"#,
            "}",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "code after python_tag: the code-interpreter call",
            "<|python_tag|>import math\nprint(\"pi\", math.pi)\t<|eom_id|>",
            "",
            vec![(
                "code_interpreter",
                json!({"code": "import math\nprint(\"pi\", math.pi)\t"}),
            )],
        ),
        case(
            "code with < that is not an end marker, ended by the input",
            "<|python_tag|>\n if a < b and c <|x: print('<|eo')",
            "",
            vec![(
                "code_interpreter",
                json!({"code": "if a < b and c <|x: print('<|eo')"}),
            )],
        ),
        case(
            "code then text after eot_id",
            "<|python_tag|>x = 1<|eot_id|>after",
            "after",
            vec![("code_interpreter", json!({"code": "x = 1"}))],
        ),
        case(
            "built-in tool after python_tag",
            "<|python_tag|>brave_search.call(query=\"current CEO of Meta\")<|eom_id|>",
            "",
            vec![("brave_search", json!({"query": "current CEO of Meta"}))],
        ),
        case(
            "a dotted call that is not .call( is code",
            "<|python_tag|>webbrowser.open(\"u\")",
            "",
            vec![(
                "code_interpreter",
                json!({"code": "webbrowser.open(\"u\")"}),
            )],
        ),
        case(
            "end tokens in text are dropped",
            "Hi<|eot_id|> there <|eom_id|>",
            "Hi there ",
            vec![],
        ),
        case(
            "a second call in the same chunk after text",
            "a {\"name\": \"f\", \"parameters\": {}} b {\"name\": \"g\", \"parameters\": {\"x\": \"}\"}} c",
            "a  b  c",
            vec![("f", json!({})), ("g", json!({"x": "}"}))],
        ),
        case(
            "header cut by the end of input is text",
            "see {\"name\": \"f",
            "see {\"name\": \"f",
            vec![],
        ),
        case(
            "parameters held then no name: text",
            "{\"parameters\": {\"a\": [1, 2]}}",
            "{\"parameters\": {\"a\": [1, 2]}}",
            vec![],
        ),
        broken(
            "malformed key after the name",
            r#"{"name":"get_weather","parameters{"key"]="Tokyo"}} after"#,
            "",
            vec![],
            1,
        ),
        broken(
            "single-quoted value",
            r#"{"name": "f", "parameters": {"p": '{"a": 1}'}} after"#,
            " after",
            vec![],
            1,
        ),
        broken(
            "an unknown member after the name",
            r#"{"name": "Alice", "age": 30} ok"#,
            " ok",
            vec![],
            1,
        ),
        broken(
            "cut off inside the arguments",
            r#"{"name": "f", "parameters": {"a": "b"#,
            "",
            vec![],
            1,
        ),
        broken(
            "cut off after the name",
            r#"{"name": "f", "param"#,
            "",
            vec![],
            1,
        ),
        broken(
            "a broken call then a good one",
            r#"{"name": "f", "parameters": [1,]}; {"name": "g", "parameters": {}}"#,
            "",
            vec![("g", json!({}))],
            1,
        ),
    ];
    run_cases(&js, &cases);
}

#[test]
fn json_member_after_arguments_is_a_trailing_error() {
    let events = assert_split_invariant(&js, br#"{"name": "f", "parameters": {}, "x": 1} ok"#, 20);
    assert_eq!(calls(&events).len(), 1);
    assert_eq!(text(&events), " ok");
    let errs = errors(&events);
    assert_eq!(errs.len(), 1);
    assert!(matches!(
        errs[0],
        // The error carries the call's bytes after its ended part (issue 33: an
        // index-less error never repeats bytes an ended call delivered).
        Event::Error { kind: ErrorKind::TrailingArguments, index: None, raw, .. }
            if raw == r#", "x": 1}"#
    ));
}

#[test]
fn json_errors_carry_the_raw_call() {
    // Broken before the arguments: raw from `{`.
    let events = run_whole(
        &js,
        br#"{"name":"get_weather","parameters{"key"]="Tokyo"}}"#,
    );
    assert!(matches!(call_errors(&events)[0], Event::Error { raw, .. }
        if raw == r#"{"name":"get_weather","parameters{"key"]="Tokyo"}}"#));
    // Broken inside the arguments: raw from `{` too (the model's bytes, never only the
    // arguments).
    let events = run_whole(&js, br#"{"name": "f", "parameters": {"p": 'x'}} after"#);
    assert!(matches!(call_errors(&events)[0], Event::Error { raw, .. }
        if raw == r#"{"name": "f", "parameters": {"p": 'x'}}"#));
}

#[test]
fn json_parameters_first_are_bounded_by_max_held_bytes() {
    let big = format!(
        r#"{{"parameters": {{"a": "{}"}}, "name": "f"}}"#,
        "x".repeat(200)
    );
    let make = || Parser::with_config(Format::LlamaJson, ParserConfig::new().max_held_bytes(64));
    let events = assert_split_invariant(&make, big.as_bytes(), 10);
    assert_eq!(text(&events), big, "over the bound: released as text");
    let make = || Parser::with_config(Format::LlamaJson, ParserConfig::new().max_held_bytes(1000));
    let events = assert_split_invariant(&make, big.as_bytes(), 10);
    assert_eq!(calls(&events).len(), 1);
}

// ---------------------------------------------------------------------------------
// Timing: Start on the feed that completes the header, End on the one that closes it.

/// Feeds `pieces` one by one; returns the events of each feed.
fn per_feed(mut p: Parser, pieces: &[&str]) -> Vec<Vec<Event>> {
    let mut all = Vec::new();
    for piece in pieces {
        let mut out = Vec::new();
        p.feed(piece.as_bytes(), &mut out).unwrap();
        all.push(out);
    }
    let mut out = Vec::new();
    p.finish(&mut out).unwrap();
    all.push(out);
    all
}

fn has_start(events: &[Event]) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::ToolCallStart { .. }))
}

fn has_end(events: &[Event]) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::ToolCallEnd { .. }))
}

#[test]
fn pythonic_start_and_end_are_early() {
    let feeds = per_feed(
        py(),
        &["ok [get_wea", "ther", "(city='Pa", "ris'", ")", "]"],
    );
    assert_eq!(
        feeds[0],
        vec![Event::Text {
            delta: "ok ".into()
        }]
    );
    assert!(feeds[1].is_empty(), "header still undecided");
    assert!(has_start(&feeds[2]));
    // Arguments stream while they arrive.
    assert!(
        feeds[2]
            .iter()
            .any(|e| matches!(e, Event::ToolCallArgs { delta, .. } if delta.contains("\"Pa")))
    );
    assert!(!has_end(&feeds[3]));
    assert!(has_end(&feeds[4]));
    assert!(feeds[5].is_empty() && feeds[6].is_empty());
}

#[test]
fn json_start_and_end_are_early() {
    let feeds = per_feed(
        js(),
        &[
            "{\"name\": \"f",
            "\"",
            ", \"parameters\": {\"a\": \"lo",
            "ng\"",
            "}",
            "}",
        ],
    );
    assert!(feeds[0].is_empty());
    assert!(has_start(&feeds[1]), "Start with the name's closing quote");
    assert!(
        feeds[2]
            .iter()
            .any(|e| matches!(e, Event::ToolCallArgs { delta, .. } if delta == "{\"a\": \"lo"))
    );
    assert!(has_end(&feeds[4]), "End when the arguments close");
    assert!(feeds[5].is_empty());
}

#[test]
fn held_text_is_released_as_soon_as_it_cannot_be_a_call() {
    let feeds = per_feed(py(), &["a [1", ", 2] b [x", "y]"]);
    assert_eq!(merged(&feeds[0]), "a [1");
    assert_eq!(merged(&feeds[1]), ", 2] b ");
    assert_eq!(merged(&feeds[2]), "[xy]");
    let feeds = per_feed(js(), &["{\"answer", "\": 1}"]);
    assert_eq!(merged(&feeds[0]), "{\"answer");
    let mut p = js();
    let mut out = Vec::new();
    p.feed(b"text {\"name\": \"", &mut out).unwrap();
    assert!(p.retained_bytes() <= 16, "{}", p.retained_bytes());
}

fn merged(events: &[Event]) -> String {
    text(events)
}

// ---------------------------------------------------------------------------------
// Options

#[test]
fn tool_names_make_other_headers_text() {
    let make = || {
        Parser::with_config(
            Format::LlamaPythonic,
            ParserConfig::new().tool_names(["get_weather"]),
        )
    };
    let events = assert_split_invariant(
        &make,
        b"See [note(x=1)]. [get_weather(city='Paris'), other(a=1)]",
        20,
    );
    assert_eq!(text(&events), "See [note(x=1)]. , other(a=1)]");
    assert_eq!(calls(&events).len(), 1);

    let make = || Parser::with_config(Format::LlamaJson, ParserConfig::new().tool_names(["f"]));
    let events = assert_split_invariant(
        &make,
        br#"{"name": "Alice", "age": 30} {"name": "f", "parameters": {}}"#,
        20,
    );
    assert_eq!(text(&events), r#"{"name": "Alice", "age": 30} "#);
    assert_eq!(calls(&events).len(), 1);
}

#[test]
fn calls_at_start_only() {
    let make = || {
        Parser::with_config(
            Format::LlamaPythonic,
            ParserConfig::new().calls_at_start_only(true),
        )
    };
    let events = assert_split_invariant(&make, b"  [f(a=1), g()]\n[h()] x [k()]", 20);
    assert_eq!(calls(&events).len(), 3);
    assert_eq!(text(&events), "  \n x [k()]");
    let events = assert_split_invariant(&make, b"Sure: [f(a=1)]", 20);
    assert_eq!(calls(&events).len(), 0);

    let make = || {
        Parser::with_config(
            Format::LlamaJson,
            ParserConfig::new().calls_at_start_only(true),
        )
    };
    let events = assert_split_invariant(
        &make,
        br#"{"name": "f", "parameters": {}}; {"name": "g", "parameters": {}} ok {"name": "h", "parameters": {}}"#,
        20,
    );
    assert_eq!(calls(&events).len(), 2);
    // The python tag is a marker: not restricted.
    let events = assert_split_invariant(
        &make,
        b"ok <|python_tag|>{\"name\": \"h\", \"parameters\": {}}",
        20,
    );
    assert_eq!(calls(&events).len(), 1);
}

// ---------------------------------------------------------------------------------
// auto

#[test]
fn auto_fixtures() {
    let cases = vec![
        case(
            "pythonic",
            "Let me check. [f(a=1), g()]",
            "Let me check. ",
            vec![("f", json!({"a": 1})), ("g", json!({}))],
        ),
        case(
            "json",
            "Sure {\"name\": \"f\", \"parameters\": {}}",
            "Sure ",
            vec![("f", json!({}))],
        ),
        case(
            "json with type first",
            "{\"type\": \"function\", \"name\": \"f\", \"parameters\": {}}",
            "",
            vec![("f", json!({}))],
        ),
        case(
            "python tag",
            "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1}}",
            "",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "prose that only looks like calls",
            "[1, 2], [link](url), {\"answer\": 42}, <b>, [ x ], {} [",
            "[1, 2], [link](url), {\"answer\": 42}, <b>, [ x ], {} [",
            vec![],
        ),
        case(
            "a pattern starting inside held bytes",
            "[[f(a=1)]]",
            "[]",
            vec![("f", json!({"a": 1}))],
        ),
        case(
            "detected once: later JSON is text in a pythonic stream",
            "[f()] {\"name\": \"g\", \"parameters\": {}}",
            " {\"name\": \"g\", \"parameters\": {}}",
            vec![("f", json!({}))],
        ),
        case(
            "non-ASCII before the call",
            "天気 — [get_weather(city='東京')]",
            "天気 — ",
            vec![("get_weather", json!({"city": "東京"}))],
        ),
    ];
    run_cases(&auto, &cases);
}

#[test]
fn formats_are_listed() {
    for (f, name) in [
        (Format::LlamaPythonic, "llama-pythonic"),
        (Format::LlamaJson, "llama-json"),
        (Format::Auto, "auto"),
    ] {
        assert_eq!(f.name(), name);
        assert_eq!(name.parse::<Format>().unwrap(), f);
        assert_eq!(f.default_framing(), Framing::Text);
        assert!(Format::all().any(|g| g == f));
    }
}

// ---------------------------------------------------------------------------------
// Captures

/// What each raw-text capture must give: calls (name, arguments), call errors, text.
fn expected_raw(path: &str) -> (Vec<(&'static str, Value)>, usize, &'static str) {
    match path.trim_start_matches("raw-text/") {
        "llama3.2-json-call-clean.txt" => (
            vec![("perform", json!({"operation": "add", "x": 5, "y": 3}))],
            0,
            "",
        ),
        // Broken key after the name (`"parameters{`, `"parameters\":`, `"parameters=`):
        // the call started, then fails with its raw text.
        "llama3.2-json-call-malformed-brackets.txt"
        | "llama3.2-json-call-malformed-escaped-quote.txt"
        | "llama3.2-json-call-parameters-equals.txt"
        // A single-quoted string value is not JSON.
        | "llama3.2-json-call-single-quoted-nested-json.txt" => (vec![], 1, ""),
        "llama3.2-python-tag-code.txt" => (
            vec![(
                "code_interpreter",
                json!({"code": "import webbrowser\n\nwebbrowser.open(\"https://www.facebook.com/hello\")"}),
            )],
            0,
            "",
        ),
        "llama3.2-python-tag-json-call.txt" => (
            vec![("get_language_info", json!({"lang": "python"}))],
            0,
            "",
        ),
        "llama3.2-python-tag-json-type-function-empty-params.txt" => {
            (vec![("print_hello_world", json!({}))], 0, "")
        }
        "llama3.2-pythonic-json-object-arg.txt" => (
            vec![(
                "process_order",
                json!({"order_data": {"order_id": 1, "customer_name": "John Doe",
                    "address": {"street": "123 Main St", "city": "San Francisco"}}}),
            )],
            0,
            "",
        ),
        // `{order_id=1, ..}` is not a literal: the call fails, the JSON after it is text.
        "llama3.2-pythonic-malformed-then-trailing-json.txt" => (vec![], 1, "\n{\n  \"order_id\""),
        "llama3.2-pythonic-nested-dict-list-arg.txt" => (
            vec![(
                "book_flight",
                json!({"flight": {"flight_number": "AA101", "departure": "New York",
                    "arrival": "Los Angeles",
                    "passengers": [{"name": "John Doe", "email": "johndoe@example.com"}],
                    "payment": {"method": "credit_card", "card_number": "1234567890123456"}}}),
            )],
            0,
            "",
        ),
        "llama3.2-pythonic-single-call.txt" => (
            vec![("get_weather", json!({"location": "San Francisco, CA"}))],
            0,
            "",
        ),
        "llama3.2-pythonic-single-quotes-bool.txt" => (
            vec![(
                "get_boiling_point_with_metadata",
                json!({"liquid_name": "polyjuice", "celcius": true}),
            )],
            0,
            "",
        ),
        "llama3.2-text-then-json-call.txt" => (
            vec![("get_boiling_point", json!({"liquid_name": "polyjuice"}))],
            0,
            "I apologize for the error. Here is the revised tool call:\n\n",
        ),
        other => panic!("no expectation for {other}"),
    }
}

#[test]
fn raw_text_captures() {
    let mut n = 0;
    for format in ["llama-pythonic", "llama-json"] {
        for cap in captures(format) {
            if !cap.path.contains("llama3.2-") {
                continue;
            }
            n += 1;
            let (want_calls, want_errors, want_text) = expected_raw(&cap.path);
            let make = maker(format, cap.framing);
            let events = assert_split_invariant(&make, &cap.bytes, 30);
            let got: Vec<(String, Value)> = calls(&events)
                .into_iter()
                .map(|c| (c.name, c.arguments))
                .collect();
            let want: Vec<(String, Value)> = want_calls
                .into_iter()
                .map(|(n, a)| (n.to_string(), a))
                .collect();
            assert_eq!(got, want, "{}", cap.path);
            assert_eq!(call_errors(&events).len(), want_errors, "{}", cap.path);
            assert!(text(&events).starts_with(want_text), "{}", cap.path);
            // Nothing lost: every error carries bytes.
            for e in errors(&events) {
                assert!(matches!(e, Event::Error { raw, .. } if !raw.is_empty()));
            }
            // `auto` finds the same calls.
            let events = assert_split_invariant(&auto, &cap.bytes, 5);
            assert_eq!(calls(&events).len(), got.len(), "auto: {}", cap.path);
        }
    }
    if captures_dir().is_some() {
        assert_eq!(n, 14, "every llama3.2 raw-text capture checked");
    }
}

#[test]
fn leaked_content_captures() {
    let Some(dir) = captures_dir() else { return };
    let make = || {
        Parser::with_config(
            Format::OpenAiChat,
            ParserConfig::new()
                .framing(Framing::Ndjson)
                .content_format(Format::LlamaJson),
        )
    };
    for (file, want_text, name, args) in [
        (
            "ollama-openai/llama3.2-3b-python-tag-json-leaked-into-content.ndjson",
            "",
            "get_language_info",
            json!({"lang": "python"}),
        ),
        (
            "ollama-openai/llama3.2-3b-text-then-json-call-leaked-into-content.ndjson",
            "I apologize for the error. Here is the revised tool call:\n\n",
            "get_boiling_point",
            json!({"liquid_name": "polyjuice"}),
        ),
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let events = assert_split_invariant(&make, &bytes, 20);
        assert_eq!(text(&events), want_text, "{file}");
        let got = calls(&events);
        assert_eq!(got.len(), 1, "{file}");
        assert_eq!(got[0].name, name);
        assert_eq!(got[0].arguments, args);
        assert!(errors(&events).is_empty(), "{file}: {events:?}");
        assert!(
            events.iter().any(
                |e| matches!(e, Event::Finish { reason: Some(r), .. } if r.as_str() == "tool_calls")
            ),
            "{file}: finish reason"
        );
    }
}

// ---------------------------------------------------------------------------------
// Generated streams: random prose (with brackets, braces, quotes, non-ASCII and
// near-calls) and random calls, cut anywhere.

/// Prose fragments; each starts with a letter and ends with ". " so fragments never
/// join into a call header.
const PROSE: &[&str] = &[
    "Hello there. ",
    "Lists like [1, 2] are fine. ",
    "See [link](http://x.y) now. ",
    "A [ x ] box. ",
    "Math f(x) = (a+b). ",
    "JSON {\"answer\": 42} and {} here. ",
    "Quotes 'single' and \"double\". ",
    "Grüße — 東京 😀 é. ",
    "Near calls [get_weather (x=1)] and [f.]. ",
    "Type {\"type\": \"object\"} is text. ",
    "Tags <b>bold</b> and <|fake|> stay. ",
    "Brackets ] ) } alone. ",
    "Cut [get_wea. ",
    "Obj {\"nam\": 1} and {\"name\" 2}. ",
];

#[derive(Debug, Clone)]
enum Lit {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    List(Vec<Lit>),
    Dict(Vec<(String, Lit)>),
}

impl Lit {
    fn json(&self) -> Value {
        match self {
            Lit::Int(i) => json!(i),
            Lit::Float(f) => json!(f),
            Lit::Str(s) => json!(s),
            Lit::Bool(b) => json!(b),
            Lit::None => Value::Null,
            Lit::List(v) => Value::Array(v.iter().map(Lit::json).collect()),
            Lit::Dict(v) => Value::Object(v.iter().map(|(k, x)| (k.clone(), x.json())).collect()),
        }
    }

    fn python(&self, out: &mut String) {
        match self {
            Lit::Int(i) => out.push_str(&i.to_string()),
            Lit::Float(f) => out.push_str(&format!("{f:?}")),
            Lit::Str(s) => py_str(s, out),
            Lit::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            Lit::None => out.push_str("None"),
            Lit::List(v) => {
                out.push('[');
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    x.python(out);
                }
                out.push(']');
            }
            Lit::Dict(v) => {
                out.push('{');
                for (i, (k, x)) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    py_str(k, out);
                    out.push_str(": ");
                    x.python(out);
                }
                out.push('}');
            }
        }
    }
}

fn py_str(s: &str, out: &mut String) {
    let q = if s.contains('\'') { '"' } else { '\'' };
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(q);
}

fn lit() -> impl Strategy<Value = Lit> {
    let leaf = prop_oneof![
        any::<i32>().prop_map(|i| Lit::Int(i64::from(i))),
        prop::sample::select(vec![1.5, -2.25, 0.5, 1e10, 3.0]).prop_map(Lit::Float),
        "[a-z \\]\\[)(}{'\",:;=\\\\\n é東😀]{0,12}".prop_map(Lit::Str),
        any::<bool>().prop_map(Lit::Bool),
        Just(Lit::None),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Lit::List),
            prop::collection::vec(("[a-z]{1,5}", inner), 0..4).prop_map(|v| {
                // JSON objects keep the last of duplicate keys; keep keys unique.
                let mut seen = std::collections::BTreeSet::new();
                Lit::Dict(
                    v.into_iter()
                        .filter(|(k, _)| seen.insert(k.clone()))
                        .collect(),
                )
            }),
        ]
    })
}

#[derive(Debug, Clone)]
struct GenCall {
    name: String,
    args: Vec<(String, Lit)>,
}

fn gen_call() -> impl Strategy<Value = GenCall> {
    (
        prop::sample::select(vec!["get_weather", "f", "search_web", "a.b", "x-y"]),
        prop::collection::vec(("[a-z_]{1,6}", lit()), 0..4),
    )
        .prop_map(|(name, args)| {
            let mut seen = std::collections::BTreeSet::new();
            GenCall {
                name: name.to_string(),
                args: args
                    .into_iter()
                    .filter(|(k, _)| seen.insert(k.clone()))
                    .collect(),
            }
        })
}

impl GenCall {
    fn args_json(&self) -> Value {
        Value::Object(
            self.args
                .iter()
                .map(|(k, v)| (k.clone(), v.json()))
                .collect(),
        )
    }

    fn pythonic(&self, out: &mut String) {
        out.push_str(&self.name);
        out.push('(');
        for (i, (k, v)) in self.args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(k);
            out.push('=');
            v.python(out);
        }
        out.push(')');
    }

    fn json(&self, style: u8, out: &mut String) {
        let name = serde_json::to_string(&self.name).unwrap();
        let args = serde_json::to_string(&self.args_json()).unwrap();
        match style % 4 {
            0 => out.push_str(&format!("{{\"name\": {name}, \"parameters\": {args}}}")),
            1 => out.push_str(&format!("{{\"parameters\":{args},\"name\":{name}}}")),
            2 => out.push_str(&format!(
                "{{\"type\": \"function\", \"name\": {name}, \"arguments\": {args}}}"
            )),
            _ => out.push_str(&format!(
                "{{\n  \"name\": {name},\n  \"parameters\": {args}\n}}"
            )),
        }
    }
}

/// A stream: prose and groups of calls. Returns (input, text, calls).
fn render(
    parts: &[(usize, Vec<GenCall>, u8)],
    json_syntax: bool,
) -> (String, String, Vec<(String, Value)>) {
    let mut input = String::new();
    let mut text = String::new();
    let mut want = Vec::new();
    for (prose, group, style) in parts {
        let p = PROSE[prose % PROSE.len()];
        input.push_str(p);
        text.push_str(p);
        if group.is_empty() {
            continue;
        }
        if json_syntax {
            let tag = style & 4 != 0;
            let array = style & 8 != 0;
            if tag && !array {
                input.push_str("<|python_tag|>");
            }
            if array {
                input.push('[');
            }
            for (i, c) in group.iter().enumerate() {
                if i > 0 {
                    input.push_str(if array { ", " } else { "; " });
                }
                c.json(*style, &mut input);
            }
            if array {
                input.push(']');
            }
        } else {
            input.push('[');
            for (i, c) in group.iter().enumerate() {
                if i > 0 {
                    input.push_str(", ");
                }
                c.pythonic(&mut input);
            }
            input.push(']');
        }
        for c in group {
            want.push((c.name.clone(), c.args_json()));
        }
    }
    (input, text, want)
}

fn check_generated(make: &dyn Fn() -> Parser, input: &[u8], cuts: &[usize]) -> Vec<Event> {
    let whole = run_whole(make, input);
    check_contract(&whole);
    let cut: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    let chunked = run_chunks(make, &cut_at(input, &cut));
    assert_eq!(chunked, whole, "cut at {cut:?}");
    let bytes = run_sized(make, input, 1);
    assert_eq!(bytes, whole, "byte by byte");
    whole
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn generated_pythonic(
        parts in prop::collection::vec((0usize..100, prop::collection::vec(gen_call(), 0..3), any::<u8>()), 1..5),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let (input, want_text, want_calls) = render(&parts, false);
        let events = check_generated(&py, input.as_bytes(), &cuts);
        prop_assert_eq!(text(&events), want_text);
        let got: Vec<(String, Value)> = calls(&events).into_iter().map(|c| {
            (c.name, c.arguments)
        }).collect();
        let want: Vec<(String, Value)> = want_calls;
        prop_assert_eq!(got, want);
        prop_assert!(errors(&events).is_empty());
        // auto agrees.
        let events = run_whole(&auto, input.as_bytes());
        prop_assert_eq!(calls(&events).len(), calls(&run_whole(&py, input.as_bytes())).len());
    }

    #[test]
    fn generated_json(
        parts in prop::collection::vec((0usize..100, prop::collection::vec(gen_call(), 0..3), any::<u8>()), 1..5),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let (input, want_text, want_calls) = render(&parts, true);
        let events = check_generated(&js, input.as_bytes(), &cuts);
        prop_assert_eq!(text(&events), want_text);
        let got: Vec<(String, Value)> = calls(&events).into_iter().map(|c| (c.name, c.arguments)).collect();
        prop_assert_eq!(got, want_calls);
        prop_assert!(errors(&events).is_empty());
    }

    /// Arbitrary bytes never panic and keep the contract at any cut.
    #[test]
    fn arbitrary_bytes(
        data in prop::collection::vec(prop::sample::select(b"[]{}()<|>\"'\\,;:=. \nabf_x1\xC3\xA9\xE6\x9D\xB1\xFF".to_vec()), 0..80),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        for make in [&py as &dyn Fn() -> Parser, &js, &auto] {
            let events = check_generated(make, &data, &cuts);
            // Text without calls is the lossy decoding of the input.
            if calls(&events).is_empty() && errors(&events).is_empty() {
                prop_assert_eq!(text(&events), String::from_utf8_lossy(&data).replace("<|eom_id|>", "").replace("<|eot_id|>", ""));
            }
        }
    }
}

/// Issue 23: a broken call's message says what is wrong and where: the argument whose
/// value is at fault and the byte of the call's text (its `raw`) where it broke, at
/// every chunking.
#[test]
fn a_broken_calls_message_names_the_argument_and_the_byte() {
    let cases: [(Format, &str, &str, &[&str]); 5] = [
        (
            Format::LlamaPythonic,
            "[f(a=x)]",
            "[f(a=x)]",
            &["argument \"a\"", "at byte 5 of the call", "not a literal"],
        ),
        (
            Format::LlamaPythonic,
            "[f(a=1, bb=[1, y])]",
            "[f(a=1, bb=[1, y])]",
            &["argument \"bb\"", "at byte 15 of the call", "not a literal"],
        ),
        (
            Format::LlamaPythonic,
            "[f(1)]",
            "[f(1)]",
            &["at byte 3 of the call", "positional argument"],
        ),
        (
            Format::LlamaJson,
            r#"{"name": "f", "parameters": {"a": x}}"#,
            r#"{"name": "f", "parameters": {"a": x}}"#,
            &["a malformed JSON tool call at byte 34 of the call"],
        ),
        (
            Format::LlamaJson,
            r#"<|python_tag|>{"name": "f", "args": {}}"#,
            r#"<|python_tag|>{"name": "f", "args": {}}"#,
            &[
                "member its syntax does not define",
                "at byte 32 of the call",
            ],
        ),
    ];
    for (format, input, raw, parts) in cases {
        let make = move || Parser::with_config(format, toolstream::ParserConfig::new());
        let events = assert_split_invariant(&make, input.as_bytes(), 40);
        let errs = errors(&events);
        assert_eq!(errs.len(), 1, "{input}: {events:?}");
        let Event::Error {
            message, raw: got, ..
        } = errs[0]
        else {
            unreachable!()
        };
        assert_eq!(got, raw, "{input}");
        for part in parts {
            assert!(
                message.contains(part),
                "{input}: {message:?} lacks {part:?}"
            );
        }
        // The byte named is the one the message blames, inside the raw text.
        if let Some(at) = message.split("at byte ").nth(1) {
            let n: usize = at.split(' ').next().unwrap().parse().unwrap();
            assert!(n < raw.len(), "{input}: byte {n} outside {raw:?}");
        }
    }
}

#[test]
fn the_closing_bracket_after_a_broken_call_is_in_its_error() {
    // Issue 33: `[f(a=x)] hi` gave the error `[f(a=x)` and the text ` hi`: the list's
    // `]` was in neither. It ends the broken call's raw text (whitespace before it too).
    use crate::exact::{Ev, err, evs, split};
    let bad = ErrorKind::InvalidArguments;
    for (input, raw, rest) in [
        ("[f(a=x)] hi", "[f(a=x)]", " hi"),
        ("[f(a=x) \n] hi", "[f(a=x) \n]", " hi"),
        ("x [g(a=1), f(a=x)]", "f(a=x)]", ""),
    ] {
        let ev = split(Format::LlamaPythonic, input);
        let errors: Vec<Ev> = evs(&ev)
            .into_iter()
            .filter(|e| matches!(e, Ev::Error(..)))
            .collect();
        let index = usize::from(input.contains("g("));
        assert_eq!(errors, vec![err(bad, Some(index), raw)], "{input}");
        assert!(text(&ev).ends_with(rest), "{input}: {ev:?}");
        assert!(!text(&ev).contains(']'), "{input}: {ev:?}");
    }
    // A broken call followed by another: the error ends at its `)`.
    let ev = split(Format::LlamaPythonic, "[f(a=x), g(a=1)] hi");
    assert_eq!(kinds(&ev), vec![(bad, Some(0), "[f(a=x)".into())]);
    assert_eq!(calls(&ev).len(), 1);
    assert_eq!(text(&ev), " hi");
}

/// `llama-pythonic`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::LlamaPythonic,
        reasoning: None,
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A <|python_tag|>[f(a=1)] B",
                    vec![one(t("A ")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi [f(a=1, b='x",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1,"b":"x"#)),
                        one(err(Cut, Some(0), "[f(a=1, b='x")),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi [f(a=1, b=x, c=')')] after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1,"b":"#)),
                        one(err(Bad, Some(0), "[f(a=1, b=x, c=')')]")),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "see <|python_tag|> here",
                    vec![one(t("see <|python_tag|> here"))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done<|python_end|> ok",
                    vec![one(t("done<|python_end|> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    "<|python_tag|>[f(a=1, <|python_tag|>[g()]",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Cut, Some(0), "<|python_tag|>[f(a=1, ")),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    "[f(a=1, a=2)]",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Bad, Some(0), "[f(a=1, a=2)]")),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample("[get weather(a=1)]", vec![one(t("[get weather(a=1)]"))]),
            ),
        ],
    }
}

/// `llama-pythonic`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "llama-pythonic",
            "<|python_tag|>[ at the end: a call list cut off (a special token is never text)",
            "A <|python_tag|>[ ",
            [t("A "), err(Cut, None, "<|python_tag|>[ ")],
        ),
        fx!(
            "llama-pythonic",
            "<|python_tag|>[ and a name cut off",
            "<|python_tag|>[get_wea",
            [err(Cut, None, "<|python_tag|>[get_wea")],
        ),
        fx!(
            "llama-pythonic",
            "<|python_tag|> and a list whose name is no name",
            "<|python_tag|>[get weather(a=1)] after",
            [
                err(Bad, None, "<|python_tag|>[get weather(a=1)]"),
                t(" after")
            ],
        ),
        fx!(
            "llama-pythonic",
            "<|python_tag|> and a list with no call name in it: text, the tag with it",
            "A <|python_tag|>[1, 2] B <|python_tag|>[] C",
            [t("A <|python_tag|>[1, 2] B <|python_tag|>[] C")],
        ),
        fx!(
            "llama-pythonic",
            "<|python_tag|> between keyword arguments ends the call",
            "<|python_tag|>[f(a=1, <|python_tag|>[g()]",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Cut, Some(0), "<|python_tag|>[f(a=1, "),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "llama-pythonic",
            "a '<' between keyword arguments that begins no token breaks the call",
            "<|python_tag|>[f(a=1, <|python_t>x=2)] after",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Bad, Some(0), "<|python_tag|>[f(a=1, <|python_t>x=2)]"),
                t(" after"),
            ],
        ),
        fx!(
            "llama-pythonic",
            "<|python_tag|> inside a string",
            r#"[f(a="x<|python_tag|>[g()]"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x"#),
                err(Cut, Some(0), r#"[f(a="x"#),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "llama-pythonic",
            "'<' and a token prefix inside a string are content",
            r#"<|python_tag|>[f(a="1<2 <|python_ta <<|python_end|>", b='<|')]"#,
            [call(
                0,
                "f",
                r#"{"a":"1<2 <|python_ta <<|python_end|>","b":"<|"}"#
            )],
        ),
        fx!(
            "llama-pythonic",
            "the text ends in a string on a token prefix",
            r#"[f(a="x<|python_st"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x<|python_st"#),
                err(Cut, Some(0), r#"[f(a="x<|python_st"#),
            ],
        ),
        fx!(
            "llama-pythonic",
            "<|python_start|> inside a single-quoted string",
            "<|python_start|>[f(a='x<|python_start|>[g()]<|python_end|>",
            [
                start(0, "f"),
                args(0, r#"{"a":"x"#),
                err(Cut, Some(0), "<|python_start|>[f(a='x"),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "llama-pythonic",
            "<|python_tag|> after a call, the list not closed",
            "<|python_tag|>[f(a=1)<|python_tag|>[g()]",
            [call(0, "f", r#"{"a":1}"#), call(1, "g", "{}")]
        ),
        fx!(
            "llama-pythonic",
            "a repeated keyword argument",
            "[f(a=1, a=2)]",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Bad, Some(0), "[f(a=1, a=2)]"),
            ]
        ),
        fx!(
            "llama-pythonic",
            "a malformed list's ] is in the error",
            "[f(a=1), g(b=]",
            [
                call(0, "f", r#"{"a":1}"#),
                start(1, "g"),
                args(1, r#"{"b":"#),
                err(Bad, Some(1), "g(b=]"),
            ]
        ),
        fx!(
            "llama-pythonic",
            "a second <|python_tag|> starts the next list",
            "<|python_tag|>[f()]<|python_tag|>[g()]",
            [call(0, "f", "{}"), call(1, "g", "{}")]
        ),
        fx!(
            "llama-pythonic",
            "a second <|python_tag|> after whitespace: the whitespace is text",
            "<|python_tag|>[f()] \n<|python_tag|>[g()]<|python_end|>",
            [call(0, "f", "{}"), t(" \n"), call(1, "g", "{}")]
        ),
    ]
}

/// `llama-pythonic`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::LlamaPythonic;
    Edges {
        broken: vec![
            b(
                LlamaPythonic,
                "second call corrupt",
                ("Hi ", "[g(), ", "f(a=x)]", " after"),
                Bad,
                1,
                "Hi  after",
            ),
            b(
                LlamaPythonic,
                "python tag cut",
                ("Hi ", "", "<|python_tag|> [f(a=1", ""),
                Cut,
                0,
                "Hi ",
            ),
            b(
                LlamaPythonic,
                "python_start corrupt",
                ("Hi ", "", "<|python_start|>[f(1)]", "<|python_end|> after"),
                Bad,
                0,
                "Hi  after",
            ),
        ],
        markers: vec![
            (
                LlamaPythonic,
                "<|python_start|>[f(a=1)]<|python_end|>",
                "A ",
                " B",
                "A  B",
            ),
            (
                LlamaPythonic,
                "<|python_tag|> \n[f(a=1)]",
                "A ",
                " B",
                "A  B",
            ),
        ],
    }
}

/// A call-introducing token that no call follows is text, byte for byte (from
/// `rules/edges.rs`).
#[test]
fn llama_pythonic_a_token_with_no_call_after_it_is_text() {
    for input in [
        "see <|python_tag|> here",
        "see <|python_start|>[1, 2] here<|python_end|>",
    ] {
        let ev = assert_split_invariant(
            &(|| Parser::new(Format::LlamaPythonic)),
            input.as_bytes(),
            40,
        );
        assert_eq!(text(&ev), input);
        assert!(calls(&ev).is_empty());
    }
}

/// `llama-json` passes over a `{`, `[` or `<` of text whose next byte, in the same feed,
/// rules out what it could begin. With that next byte anything, and then what would
/// continue a call there (after whitespace or after the byte itself), the events are those
/// of the byte-by-byte feed (where the next byte is read in the state the first one
/// opens) and of every 2- and 3-byte feed, with and without `calls_at_start_only`; the
/// calls after it still count.
#[test]
fn llama_json_candidate_then_any_byte_as_byte_by_byte() {
    let tail = br#" {"name": "f", "parameters": {}} [{"name": "g", "arguments": {}}] <|python_tag|>{"name": "h", "parameters": {}}"#;
    let cases: [(u8, &[&[u8]]); 3] = [
        (
            b'{',
            &[
                br#""name": "a", "parameters": {}}"#,
                br#"name": "a", "parameters": {}}"#,
            ],
        ),
        (
            b'[',
            &[
                br#"{"name": "a", "parameters": {}}]"#,
                br#""name": "a", "parameters": {}}]"#,
            ],
        ),
        (b'<', &[br#"python_tag|>{"name": "a", "parameters": {}}"#]),
    ];
    for at_start_only in [false, true] {
        let make = || {
            Parser::with_config(
                Format::LlamaJson,
                ParserConfig::new().calls_at_start_only(at_start_only),
            )
        };
        for lead in [&b""[..], b"a "] {
            for (c, conts) in cases {
                for cont in conts {
                    for next in 0..=u8::MAX {
                        let mut input = lead.to_vec();
                        input.extend_from_slice(&[c, next]);
                        input.extend_from_slice(cont);
                        input.extend_from_slice(tail);
                        let shown = String::from_utf8_lossy(&input).into_owned();
                        let whole = run_whole(&make, &input);
                        check_contract(&whole);
                        for n in 1..=3 {
                            let got = run_sized(&make, &input, n);
                            assert_eq!(got, whole, "{shown:?} in {n}-byte feeds");
                        }
                        if !at_start_only {
                            assert!(calls(&whole).len() >= 3, "{shown:?}: {whole:?}");
                        }
                    }
                }
            }
        }
    }
}
