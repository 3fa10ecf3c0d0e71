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
