//! Bytes that are not UTF-8 in a text format's text, reasoning and the text after a
//! reasoning block: each becomes U+FFFD (as `String::from_utf8_lossy` writes it), no
//! other byte is lost or repeated, and every chunking gives the events of the whole
//! input (issue 33: `lfm2`, `olmo3` and `auto` repeated the tail of `</think>` as text
//! when the text after it held such bytes, and only when the tag and those bytes came in
//! one feed).

use crate::common::*;
use toolstream::{Event, Format, Framing, Parser, ParserConfig};

/// Every text format, from `Format::all()`, so a new one cannot be left out.
fn text_formats() -> impl Iterator<Item = Format> {
    Format::all().filter(|f| f.default_framing() == Framing::Text)
}

/// Inputs with bytes that are not UTF-8: after a reasoning block (the issue's
/// reproduction), a run of `0xff` (the fuzzer's), inside reasoning, a character cut
/// short before the tag and after it, and an overlong form.
const INPUTS: &[&[u8]] = &[
    b"hi <think>abc</think> ok \xff\xfe done",
    b"<think>abc</think>\xff\xff\xff\xff\xff\xff\xff\xff tail",
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff text",
    b"<think>a\xffb\xfe</think>\n\nok \xe2\x82 x",
    b"<think>abc\xe2\x82</think>\xe2\x82\xac\xc3 x \xf0\x9f\x98",
    b"a \xe0\x80\x80 <think>\xc0\xaf</think>\xed\xa0\x80 b",
];

/// What a block of `<think>` / `</think>` leaves of `input` as reasoning and text when it
/// is read as one: the tags and the line breaks after the closing one dropped.
fn read_as_reasoning(input: &str) -> Option<(String, String)> {
    let (before, rest) = input.split_once("<think>")?;
    let (inside, after) = rest.split_once("</think>")?;
    Some((
        inside.to_owned(),
        format!("{before}{}", after.trim_start_matches(['\n', '\r'])),
    ))
}

#[test]
fn bytes_that_are_not_utf8_keep_every_split_in_every_text_format() {
    let think = [("<think>", "</think>")];
    for format in text_formats() {
        for config in [
            ParserConfig::new(),
            ParserConfig::new().reasoning_tags(&think),
        ] {
            for input in INPUTS {
                let config = config.clone().id_prefix("call_");
                let make = || Parser::with_config(format, config.clone());
                let got = assert_split_invariant(&make, input, 30);
                // Byte by byte, whole and the one-shot run agree (the oracle).
                assert_eq!(run_sized(&make, input, 1), run_whole(&make, input));
                assert!(
                    !got.iter().any(|e| matches!(e, Event::ToolCallStart { .. })),
                    "{format}: a call in {input:?}: {got:?}"
                );
                // No byte lost or repeated: the text (and reasoning) is the input's, with
                // each byte that is not UTF-8 as U+FFFD, the reasoning tags read or kept.
                let lossy = String::from_utf8_lossy(input).into_owned();
                let (r, t) = (reasoning(&got), text(&got));
                let read = read_as_reasoning(&lossy);
                assert!(
                    (r.is_empty() && t == lossy) || read.as_ref() == Some(&(r.clone(), t.clone())),
                    "{format}: {input:?} gives reasoning {r:?} and text {t:?}"
                );
            }
        }
    }
}
