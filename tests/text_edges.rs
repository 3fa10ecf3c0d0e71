//! Rules every text format keeps at its edges, each tested over every text syntax at
//! every chunking:
//!
//! - a call error's `raw` is the model's own bytes of that call, from its first marker
//!   byte (a cut-off call and a corrupted one);
//! - a special token that introduces a call is consumed as a marker, never leaked into
//!   text;
//! - a closing reasoning tag with no opening one is text, byte for byte, unless the
//!   block was declared open (`reasoning_open`), when everything before it is reasoning.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::*;
use toolstream::{Format, Parser};

/// The text formats whose text runs through the reasoning stage, with the tag pair
/// `reasoning_open` starts in (the syntax's first pair).
const REASONING_FORMATS: &[(Format, &str, &str)] = &[
    (Format::Hermes, "<think>", "</think>"),
    (Format::QwenXml, "<think>", "</think>"),
    (Format::Mistral, "[THINK]", "[/THINK]"),
    (Format::DeepSeek, "<think>", "</think>"),
];

/// Every text format (`auto` passes reasoning tags through as text until it has
/// detected a syntax, so a stray tag is text there too).
const TEXT_FORMATS: &[Format] = &[
    Format::Hermes,
    Format::QwenXml,
    Format::Mistral,
    Format::DeepSeek,
    Format::Harmony,
    Format::LlamaPythonic,
    Format::LlamaJson,
    Format::Auto,
];

#[test]
fn stray_closing_reasoning_tag_is_text_byte_for_byte() {
    for &f in TEXT_FORMATS {
        for close in ["</think>", "[/THINK]"] {
            let input = format!("I planned it.\n{close}\n\nHere is the answer.");
            let make = move || Parser::new(f);
            let ev = assert_split_invariant(&make, input.as_bytes(), 40);
            if f == Format::Harmony {
                // Harmony text outside channels is reasoning-free text as well.
                assert_eq!(text(&ev) + &reasoning(&ev), input, "{f}");
            } else {
                assert_eq!(text(&ev), input, "{f}");
                assert_eq!(reasoning(&ev), "", "{f}");
            }
            assert!(errors(&ev).is_empty(), "{f}: {ev:?}");
        }
    }
}

#[test]
fn stray_closing_reasoning_tag_after_a_closed_block_is_text() {
    for &(f, open, close) in REASONING_FORMATS {
        let input = format!("{open}a{close}b {close} c");
        let make = move || Parser::new(f);
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "a", "{f}");
        assert_eq!(text(&ev), format!("b {close} c"), "{f}");
    }
}

#[test]
fn with_reasoning_open_everything_before_the_closing_tag_is_reasoning() {
    for &(f, _, close) in REASONING_FORMATS {
        let input = format!("I planned it.\n{close}\n\nHere is the answer.");
        let make = move || Parser::new(f).reasoning_open(true);
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "I planned it.", "{f}");
        assert_eq!(text(&ev), "Here is the answer.", "{f}");
        assert!(errors(&ev).is_empty(), "{f}: {ev:?}");
        // A second closing tag has no block to close: text.
        let input = format!("plan{close}answer{close}more");
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "plan", "{f}");
        assert_eq!(text(&ev), format!("answer{close}more"), "{f}");
    }
}

#[test]
fn stray_closing_tag_before_a_call_keeps_the_call() {
    let cases: &[(Format, &str, &str)] = &[
        (
            Format::Hermes,
            "</think>",
            "<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>",
        ),
        (
            Format::QwenXml,
            "</think>",
            "<tool_call><function=f></function></tool_call>",
        ),
        (Format::Mistral, "[/THINK]", "[TOOL_CALLS]f[ARGS]{}"),
        (
            Format::DeepSeek,
            "</think>",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
    ];
    for &(f, close, call) in cases {
        let input = format!("x{close}{call}");
        let ev = assert_split_invariant(&(move || Parser::new(f)), input.as_bytes(), 40);
        assert_eq!(text(&ev), format!("x{close}"), "{f}");
        assert_eq!(calls(&ev).len(), 1, "{f}");
        let make = move || Parser::new(f).reasoning_open(true);
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "x", "{f}");
        assert_eq!(text(&ev), "", "{f}");
        assert_eq!(calls(&ev).len(), 1, "{f}");
    }
}
