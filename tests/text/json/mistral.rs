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
    // Not a name: the error carries the text up to the offending character.
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
