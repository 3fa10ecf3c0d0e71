//! Catching a bad call while it streams (issue 31): the runaway guard
//! (`ParserConfig::max_repeats`) and streaming JSON-Schema validation
//! (`ParserConfig::validate_arguments`). Each case runs whole, byte by byte and at every
//! split point, against the one-shot result.

use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig, merge_deltas};

/// The events of `input` fed in the given pieces, deltas merged, and the number of input
/// bytes fed when each event was emitted.
fn run_cut(
    format: Format,
    config: &ParserConfig,
    input: &[u8],
    cuts: &[usize],
) -> (Vec<Event>, Vec<usize>) {
    let mut p = Parser::with_config(format, config.clone());
    let mut ev = Vec::new();
    let mut at = Vec::new();
    let mut from = 0;
    for &c in cuts.iter().chain([&input.len()]) {
        p.feed(&input[from..c], &mut ev).unwrap();
        at.resize(ev.len(), c);
        from = c;
    }
    p.finish(&mut ev).unwrap();
    at.resize(ev.len(), input.len());
    // Where the error came: the fed bytes when it was emitted.
    let err_at: Vec<usize> = ev
        .iter()
        .zip(&at)
        .filter(|(e, _)| matches!(e, Event::Error { .. }))
        .map(|(_, a)| *a)
        .collect();
    merge_deltas(&mut ev);
    (ev, err_at)
}

/// `input` whole, byte by byte, and cut once at every point: the same events; the error
/// (if any) emitted by the feed carrying byte `err_byte` (its offset in `input`).
fn every_split(
    format: Format,
    config: &ParserConfig,
    input: &[u8],
    err_byte: Option<usize>,
) -> Vec<Event> {
    let (whole, _) = run_cut(format, config, input, &[]);
    let bytes: Vec<usize> = (1..input.len()).collect();
    let (by_byte, at) = run_cut(format, config, input, &bytes);
    assert_eq!(by_byte, whole, "byte by byte");
    if let Some(b) = err_byte {
        assert_eq!(
            at.first().copied(),
            Some(b + 1),
            "the error comes with byte {b}"
        );
    }
    let step = (input.len() / 400).max(1);
    for cut in (1..input.len()).step_by(step) {
        let (ev, _) = run_cut(format, config, input, &[cut]);
        assert_eq!(ev, whole, "cut at {cut}");
    }
    whole
}

fn error_of(ev: &[Event]) -> Option<(ErrorKind, Option<usize>, &str, Option<&str>)> {
    ev.iter().find_map(|e| match e {
        Event::Error {
            kind,
            index,
            raw,
            path,
            ..
        } => Some((*kind, *index, raw.as_str(), path.as_deref())),
        _ => None,
    })
}

fn args_of(ev: &[Event], i: usize) -> String {
    ev.iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs { index, delta } if *index == i => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn invoke_repeated_6099_times_is_stopped_early() {
    let head = r#"<tool_call>{"name":"write","arguments":{"text":"done"#;
    let looping = "</invoke>".repeat(6099);
    let input = format!("{head}{looping}\"}}}}</tool_call>after");
    let config = ParserConfig::new().max_repeats(10);
    // 11 copies of the 9-byte period: the byte that completes the 11th.
    let args_start = head.find("{\"text\"").unwrap();
    let err_byte = head.len() + 11 * 9 - 1;
    let ev = every_split(Format::Hermes, &config, input.as_bytes(), Some(err_byte));
    let (kind, index, raw, path) = error_of(&ev).expect("an error");
    assert_eq!((kind, index, path), (ErrorKind::Repetition, Some(0), None));
    assert_eq!(
        raw,
        &input[..=err_byte],
        "the model's bytes of the call through the offending byte"
    );
    assert_eq!(args_of(&ev, 0), input[args_start..err_byte]);
    assert!(
        !ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })),
        "{ev:?}"
    );
    // The text after the call is still text; nothing else is reported about the call.
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, Event::Error { .. }))
            .count(),
        1,
        "{ev:?}"
    );
    assert!(
        ev.contains(&Event::Text {
            delta: "after".into()
        }),
        "{ev:?}"
    );
}

#[test]
fn repetition_in_a_provider_stream() {
    let args = format!("{{\"q\":\"{}\"}}", "ab".repeat(40));
    let frag = serde_json::to_string(&args).unwrap();
    let mut body = String::new();
    for piece in [&frag[..1], &frag[1..]] {
        let _ = piece;
    }
    body.push_str(&format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"c1\",\"function\":{{\"name\":\"s\",\"arguments\":{frag}}}}}]}}}}]}}\n\n"
    ));
    body.push_str("data: [DONE]\n\n");
    let config = ParserConfig::new().max_repeats(5);
    let ev = every_split(Format::OpenAiChat, &config, body.as_bytes(), None);
    let (kind, index, raw, _) = error_of(&ev).expect("an error");
    assert_eq!((kind, index), (ErrorKind::Repetition, Some(0)));
    // Period 2, 6 copies: 12 bytes of it, from `"q":"` on.
    let start = "{\"q\":\"".len();
    // `"ab` ... the run of period 2 starts at `a`: 6 copies end at start + 11.
    assert_eq!(raw, &args[..start + 12]);
    assert_eq!(args_of(&ev, 0), args[..start + 11]);
    assert!(!ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })));
}

#[test]
fn off_by_default_and_below_the_bound_nothing_changes() {
    let input = format!(
        r#"<tool_call>{{"name":"f","arguments":{{"a":"{}"}}}}</tool_call>"#,
        "xyz".repeat(4)
    );
    let plain = every_split(Format::Hermes, &ParserConfig::new(), input.as_bytes(), None);
    let guarded = every_split(
        Format::Hermes,
        &ParserConfig::new().max_repeats(4),
        input.as_bytes(),
        None,
    );
    assert_eq!(plain, guarded);
    assert!(plain.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })));
    let tripped = every_split(
        Format::Hermes,
        &ParserConfig::new().max_repeats(3),
        input.as_bytes(),
        None,
    );
    assert_eq!(error_of(&tripped).map(|e| e.0), Some(ErrorKind::Repetition));
}

// ---- Streaming JSON-Schema validation ----

use toolstream::Tools;

const WEATHER: &str = r##"[{"type":"function","function":{"name":"weather","parameters":{
    "type":"object",
    "properties":{
        "city":{"type":"string","minLength":2,"maxLength":12},
        "unit":{"enum":["celsius","fahrenheit"]},
        "days":{"type":"integer","minimum":1,"maximum":14},
        "hourly":{"type":"boolean"},
        "tags":{"type":"array","items":{"type":"string"},"maxItems":2,"minItems":1},
        "at":{"$ref":"#/$defs/point"}
    },
    "required":["city"],
    "additionalProperties":false,
    "$defs":{"point":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},"required":["lat","lon"]}}
}}}]"##;

fn validating() -> ParserConfig {
    ParserConfig::new()
        .tools(Tools::from_json(WEATHER).unwrap())
        .validate_arguments(true)
}

/// A Hermes call with these arguments: the error's kind, path and the argument text
/// emitted before it (`None`: the call ended).
fn verdict(args: &str) -> Option<(ErrorKind, String, String)> {
    let input = format!(r#"<tool_call>{{"name":"weather","arguments":{args}}}</tool_call>"#);
    let head = r#"<tool_call>{"name":"weather","arguments":"#.len();
    let ev = every_split(Format::Hermes, &validating(), input.as_bytes(), None);
    let err = error_of(&ev).map(|(k, i, raw, p)| {
        assert_eq!(i, Some(0));
        let emitted = args_of(&ev, 0);
        // The raw text runs through the offending character.
        assert!(
            raw.starts_with(&input[..head + emitted.len()]) && raw.len() > head + emitted.len()
        );
        (k, p.unwrap_or_default().to_owned(), emitted)
    });
    let ended = ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. }));
    assert_eq!(ended, err.is_none(), "{ev:?}");
    err
}

#[test]
fn schema_violations_at_their_first_byte() {
    let sv = ErrorKind::SchemaViolation;
    let cases: &[(&str, Option<(&str, &str)>)] = &[
        (
            r#"{"city":"Paris","unit":"celsius","days":3,"hourly":true,"tags":["a"],"at":{"lat":1,"lon":2.5}}"#,
            None,
        ),
        (
            r#"{"city":"Paris","unit":"kelvin"}"#,
            Some(("/unit", r#"{"city":"Paris","unit":""#)),
        ),
        (
            r#"{"city":"Paris","unit":"celsiusx"}"#,
            Some(("/unit", r#"{"city":"Paris","unit":"celsius"#)),
        ),
        (
            r#"{"city":"Paris","unit":"cels"}"#,
            Some(("/unit", r#"{"city":"Paris","unit":"cels"#)),
        ),
        (
            r#"{"city":"Paris","days":1.5}"#,
            Some(("/days", r#"{"city":"Paris","days":1."#)),
        ),
        (r#"{"city":"Paris","days":2.0}"#, None),
        (
            r#"{"city":"Paris","days":15}"#,
            Some(("/days", r#"{"city":"Paris","days":15"#)),
        ),
        (
            r#"{"city":"Paris","days":"3"}"#,
            Some(("/days", r#"{"city":"Paris","days":"#)),
        ),
        (
            r#"{"city":"Paris","colour":1}"#,
            Some(("", r#"{"city":"Paris","c"#)),
        ),
        (
            r#"{"city":"Paris","cit":1}"#,
            Some(("", r#"{"city":"Paris","cit"#)),
        ),
        (r#"{"unit":"celsius"}"#, Some(("", r#"{"unit":"celsius""#))),
        (r#"{"city":"P"}"#, Some(("/city", r#"{"city":"P"#))),
        (
            r#"{"city":"Llanfairpwllgwyngyll"}"#,
            Some(("/city", r#"{"city":"Llanfairpwll"#)),
        ),
        (
            r#"{"city":"Paris","tags":["a","b","c"]}"#,
            Some(("/tags", r#"{"city":"Paris","tags":["a","b","#)),
        ),
        (
            r#"{"city":"Paris","tags":[]}"#,
            Some(("/tags", r#"{"city":"Paris","tags":["#)),
        ),
        (
            r#"{"city":"Paris","tags":[1]}"#,
            Some(("/tags/0", r#"{"city":"Paris","tags":["#)),
        ),
        (
            r#"{"city":"Paris","at":{"lat":1}}"#,
            Some(("/at", r#"{"city":"Paris","at":{"lat":1"#)),
        ),
        (
            r#"{"city":"Paris","at":{"lat":true,"lon":1}}"#,
            Some(("/at/lat", r#"{"city":"Paris","at":{"lat":"#)),
        ),
        (r#"{"city":"Par\u00efs"}"#, None),
        (
            r#"{"city":"Paris","hourly":null}"#,
            Some(("/hourly", r#"{"city":"Paris","hourly":"#)),
        ),
        (r#"[1]"#, Some(("", ""))),
    ];
    for (args, want) in cases {
        let got = verdict(args);
        let want = want.map(|(path, emitted)| (sv, path.to_owned(), emitted.to_owned()));
        assert_eq!(got, want, "{args}");
    }
}
