//! `scan::pattern`: streaming regex delimiters against a whole-input oracle.
//!
//! The oracle is regex-automata's meta `Regex` (another engine: lazy DFA / PikeVM with
//! prefilters) run on the whole input, one regex per delimiter: from the search position,
//! each delimiter's leftmost-first match (an empty one skipped where the previous match
//! ended or inside a UTF-8 character, as the module documents); the earliest start wins,
//! then the longest, then the first given. The streaming matcher must give the same text
//! and matches (with captures) under every chunking: whole, byte by byte, every split
//! point, every partition of small inputs, and random splits (proptest).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use proptest::prelude::*;
use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;
use regex_automata::{Input, MatchKind, PatternID};
use toolstream::scan::pattern::{Delimiter, PatternMatcher, PatternSet, Step, Watch};

/// A test delimiter: the pattern in the common subset of Python's and the regex crate's
/// syntax, or literals.
#[derive(Clone, Debug)]
enum D {
    Re(&'static str),
    Lits(&'static [&'static str]),
}

impl D {
    fn delimiter(&self) -> Delimiter {
        match self {
            D::Re(p) => Delimiter::regex(*p),
            D::Lits(l) => Delimiter::literals(l.iter().copied()),
        }
    }

    fn oracle(&self) -> Regex {
        let pattern = match self {
            D::Re(p) => format!("(?s){p}"),
            D::Lits(l) if l == &["eos"] => r"\z".to_owned(),
            D::Lits(l) => {
                let mut v: Vec<&str> = l.to_vec();
                v.sort_by_key(|s| std::cmp::Reverse(s.len()));
                v.iter()
                    .map(|s| regex_syntax::escape(s))
                    .collect::<Vec<_>>()
                    .join("|")
            }
        };
        Regex::builder()
            .configure(
                Regex::config()
                    .match_kind(MatchKind::LeftmostFirst)
                    .utf8_empty(false),
            )
            .build(&pattern)
            .unwrap()
    }
}

/// One piece of the output: text, or a match with its captures.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(Vec<u8>),
    Match {
        pattern: usize,
        start: usize,
        bytes: Vec<u8>,
        captures: Vec<(String, Option<Vec<u8>>)>,
    },
}

/// Which patterns to watch after a match of `last` (None at the start).
type Policy = fn(Option<usize>, usize) -> Watch;

fn all(_: Option<usize>, _: usize) -> Watch {
    Watch::ALL
}

/// Fields: patterns come in (open, close) pairs; outside watch every open, inside an
/// open's own close.
fn fields(last: Option<usize>, n: usize) -> Watch {
    match last {
        Some(p) if p % 2 == 0 => Watch::only(p + 1),
        _ => (0..n).step_by(2).fold(Watch::NONE, Watch::with),
    }
}

fn push_text(out: &mut Vec<Piece>, t: &[u8]) {
    if t.is_empty() {
        return;
    }
    if let Some(Piece::Text(prev)) = out.last_mut() {
        prev.extend_from_slice(t);
    } else {
        out.push(Piece::Text(t.to_vec()));
    }
}

fn oracle(ds: &[D], policy: Policy, h: &[u8]) -> Vec<Piece> {
    let res: Vec<Regex> = ds.iter().map(D::oracle).collect();
    let mut out = Vec::new();
    let mut pos = 0;
    let mut no_empty: Option<usize> = None;
    let mut watch = policy(None, ds.len());
    loop {
        let mut best: Option<(usize, usize, usize, Captures)> = None;
        for (p, re) in res.iter().enumerate() {
            if !watch.contains(p) {
                continue;
            }
            let mut caps = re.create_captures();
            let mut from = pos;
            let found = loop {
                if from > h.len() {
                    break None;
                }
                re.search_captures(&Input::new(h).range(from..), &mut caps);
                let Some(m) = caps.get_match() else {
                    break None;
                };
                let empty_banned = Some(m.start()) == no_empty
                    || h.get(m.start()).is_some_and(|b| b & 0xC0 == 0x80);
                if m.is_empty() && empty_banned {
                    from = m.start() + 1;
                    continue;
                }
                break Some((m.start(), m.end()));
            };
            if let Some((s, e)) = found {
                let better = match &best {
                    None => true,
                    Some((bs, be, _, _)) => s < *bs || (s == *bs && e - s > be - bs),
                };
                if better {
                    best = Some((s, e, p, caps.clone()));
                }
            }
        }
        let Some((s, e, p, caps)) = best else {
            push_text(&mut out, &h[pos..]);
            return out;
        };
        push_text(&mut out, &h[pos..s]);
        let captures = caps
            .group_info()
            .pattern_names(PatternID::ZERO)
            .flatten()
            .map(|name| {
                (
                    name.to_owned(),
                    caps.get_group_by_name(name)
                        .map(|sp| h[sp.range()].to_vec()),
                )
            })
            .collect();
        out.push(Piece::Match {
            pattern: p,
            start: s,
            bytes: h[s..e].to_vec(),
            captures,
        });
        pos = e;
        no_empty = Some(e);
        watch = policy(Some(p), ds.len());
    }
}

fn collect(step: Step<'_>, out: &mut Vec<Piece>) -> Option<usize> {
    match step {
        Step::Text(t) => {
            assert!(!t.is_empty(), "an empty text step");
            push_text(out, t);
            None
        }
        Step::Match(m) => {
            out.push(Piece::Match {
                pattern: m.pattern(),
                start: m.start(),
                bytes: m.bytes().to_vec(),
                captures: m
                    .captures()
                    .map(|(n, b)| (n.to_owned(), b.map(<[u8]>::to_vec)))
                    .collect(),
            });
            Some(m.pattern())
        }
    }
}

fn stream(
    set: &PatternSet,
    policy: Policy,
    pieces: &[&[u8]],
    max_held: usize,
) -> (Vec<Piece>, usize) {
    let mut m = PatternMatcher::new(set).with_max_held(max_held);
    m.watch(policy(None, set.len()));
    let mut out = Vec::new();
    for piece in pieces {
        let mut rest = *piece;
        while let Some(step) = m.next(&mut rest) {
            if let Some(p) = collect(step, &mut out) {
                m.watch(policy(Some(p), set.len()));
            }
        }
        assert!(rest.is_empty());
    }
    while let Some(step) = m.finish() {
        if let Some(p) = collect(step, &mut out) {
            m.watch(policy(Some(p), set.len()));
        }
    }
    assert_eq!(m.held(), 0);
    (out, m.limit_hits())
}

/// The bytes of the output, in order: must be the input.
fn joined(out: &[Piece]) -> Vec<u8> {
    let mut v = Vec::new();
    for p in out {
        match p {
            Piece::Text(t) => v.extend_from_slice(t),
            Piece::Match { bytes, .. } => v.extend_from_slice(bytes),
        }
    }
    v
}

fn set_of(ds: &[D]) -> PatternSet {
    PatternSet::new(ds.iter().map(D::delimiter)).unwrap()
}

/// Whole, byte by byte, and every split point; every partition when short.
fn check(ds: &[D], policy: Policy, input: &str) {
    check_bytes(ds, policy, input.as_bytes());
}

fn check_bytes(ds: &[D], policy: Policy, h: &[u8]) {
    let set = set_of(ds);
    let want = oracle(ds, policy, h);
    assert_eq!(joined(&want), h);
    let ctx = |how: &str| format!("{how} of {:?} with {ds:?}", String::from_utf8_lossy(h));
    let (got, hits) = stream(&set, policy, &[h], 1 << 20);
    assert_eq!(hits, 0);
    assert_eq!(got, want, "{}", ctx("whole"));
    let bytes: Vec<&[u8]> = h.chunks(1).collect();
    assert_eq!(
        stream(&set, policy, &bytes, 1 << 20).0,
        want,
        "{}",
        ctx("byte by byte")
    );
    for i in 0..=h.len() {
        let (a, b) = h.split_at(i);
        assert_eq!(
            stream(&set, policy, &[a, b], 1 << 20).0,
            want,
            "{}",
            ctx(&format!("split at {i}"))
        );
    }
    if h.len() <= 10 && h.len() > 1 {
        for mask in 0u32..(1 << (h.len() - 1)) {
            let mut pieces = Vec::new();
            let mut from = 0;
            for i in 1..h.len() {
                if mask & (1 << (i - 1)) != 0 {
                    pieces.push(&h[from..i]);
                    from = i;
                }
            }
            pieces.push(&h[from..]);
            assert_eq!(
                stream(&set, policy, &pieces, 1 << 20).0,
                want,
                "{}",
                ctx(&format!("partition {mask:b}"))
            );
        }
    }
}

// The delimiters of transformers' tests/utils/test_chat_parsing.py templates.
const QWEN3: &[D] = &[
    D::Lits(&["<think>"]),
    D::Lits(&["</think>"]),
    D::Re(r"<tool_call>\s*<function=(?P<name>\w+)>"),
    D::Lits(&["</tool_call>"]),
];
const GEMMA4: &[D] = &[
    D::Lits(&["<|channel>thought\n"]),
    D::Lits(&["<channel|>"]),
    D::Re(r"<\|tool_call>call:(?P<name>\w+)"),
    D::Lits(&["<tool_call|>"]),
    D::Lits(&["<|turn>model\n", "<tool_response|>"]),
    D::Lits(&["<turn|>", "<|tool_response>", "<eos>"]),
];
const GPT_OSS: &[D] = &[
    D::Lits(&["<|channel|>analysis<|message|>"]),
    D::Lits(&["<|end|>"]),
    D::Lits(&["<|channel|>final<|message|>"]),
    D::Lits(&["<|end|>"]),
    D::Re(r"<\|channel\|>commentary to=functions\.(?P<name>\w+).*?<\|message\|>"),
    D::Lits(&["<|call|>"]),
];
const ERNIE: &[D] = &[
    D::Re(r"(?:^|<think>\s*)"),
    D::Lits(&["</think>"]),
    D::Lits(&["<response>\n"]),
    D::Re(r"\n?</response>"),
    D::Lits(&["<tool_call>"]),
    D::Lits(&["</tool_call>"]),
];
const INKLING: &[D] = &[
    D::Re(r"(?:<\|message_model\|>)?[^<]*<\|content_thinking\|>"),
    D::Lits(&["<|end_message|>"]),
    D::Re(r"(?:<\|message_model\|>)?[^<]*<\|content_text\|>"),
    D::Lits(&["<|end_message|>"]),
    D::Re(r"(?:<\|message_model\|>)?[^<]*<\|content_invoke_tool_json\|>"),
    D::Lits(&["<|end_message|>"]),
];
const COHERE: &[D] = &[
    D::Lits(&["<|START_RESPONSE|>"]),
    D::Lits(&["<|END_RESPONSE|>"]),
    D::Lits(&["<|START_THINKING|>"]),
    D::Lits(&["<|END_THINKING|>"]),
    D::Lits(&["<|START_ACTION|>"]),
    D::Lits(&["<|END_ACTION|>"]),
];
const SMOLLM: &[D] = &[
    D::Lits(&["<think>"]),
    D::Lits(&["</think>"]),
    D::Lits(&["<tool_call>"]),
    D::Lits(&["</tool_call>"]),
    D::Lits(&["<|im_end|>"]),
    D::Lits(&["eos"]),
];
const XML_INLINE: &[D] = &[D::Re(
    r"<parameter=(?P<key>\w+)>\s*(?P<value>.*?)\s*</parameter>",
)];

#[test]
fn qwen3_template() {
    for input in [
        "<think>hm</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        "text <tool_call><function=f></tool_call><tool_call>  \n<function=g_2>x</tool_call>",
        "a <tool_call> no function <tool_call>\t<function=é>",
        "<tool_call>\n<function=",
        "<tool_call>\n<function=name",
        "<<tool_call<tool_call>\n\n<function=x>",
    ] {
        check(QWEN3, all, input);
        check(QWEN3, fields, input);
    }
}

#[test]
fn gemma4_template() {
    for input in [
        "<|turn>model\n<|channel>thought\nplan<channel|>Hi<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|><turn|>",
        "<tool_response|>ok<|tool_call>call:f{}<tool_call|><|tool_call>call:g_h{a:1}<tool_call|><eos>",
        "<|tool_call>call:",
        "<|tool_call>call:name",
        "<|tool_response><turn|><eos",
    ] {
        check(GEMMA4, all, input);
        check(GEMMA4, fields, input);
    }
}

#[test]
fn gpt_oss_template() {
    for input in [
        "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>",
        "<|channel|>final<|message|>Hi<|end|>",
        "<|channel|>commentary to=functions.f<|message|><|message|>{}<|call|>",
        "<|channel|>commentary to=functions.f and more",
    ] {
        check(GPT_OSS, all, input);
        check(GPT_OSS, fields, input);
    }
}

#[test]
fn ernie_template() {
    for input in [
        "thinking here\n</think>\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n</s>",
        "<think>\n  x</think><response>\nHi\n</response>",
        "",
        "<think>",
        "a<think> \n b",
    ] {
        check(ERNIE, all, input);
        check(ERNIE, fields, input);
    }
}

#[test]
fn inkling_template() {
    for input in [
        "<|message_model|>inkling<|content_thinking|>hm<|end_message|><|message_model|><|content_invoke_tool_json|>{\"name\":\"f\",\"args\":{}}<|end_message|>",
        "name<|content_text|>Hi<|end_message|>",
        "prose without a tag",
        "a < b <|content_te",
    ] {
        check(INKLING, all, input);
        check(INKLING, fields, input);
    }
}

#[test]
fn cohere_smollm_templates() {
    for input in [
        "<|START_THINKING|>I should call a tool.<|END_THINKING|><|START_ACTION|>[{\"tool_name\": \"f\"}]<|END_ACTION|><|END_OF_TURN_TOKEN|>",
        "<|START_RESPONSE|>Hi<|END_RESP",
    ] {
        check(COHERE, all, input);
        check(COHERE, fields, input);
    }
    for input in [
        "<think>a</think>b<tool_call>{}</tool_call><|im_end|>",
        "<|im_end",
        "",
    ] {
        check(SMOLLM, all, input);
        check(SMOLLM, fields, input);
    }
}

#[test]
fn xml_inline_tag_pattern() {
    check(
        XML_INLINE,
        all,
        "<parameter=city>\nParis\n</parameter>\n<parameter=n> 3 </parameter><parameter=x></parameter>",
    );
}

#[test]
fn generated_patterns() {
    let cases: &[(&[D], &[&str])] = &[
        (&[D::Re("a|ab")], &["ab", "aab", "xabab"]),
        (&[D::Re("ab|a")], &["ab", "aab", "a"]),
        (&[D::Re("ab*")], &["abbb", "a", "xa bab"]),
        (&[D::Re(r"(?P<x>a+)?b")], &["aab", "b", "aa", "aaxb"]),
        (&[D::Re(r"x\s*")], &["x  \n y", "x", "x "]),
        (&[D::Re(r"\s*")], &["a b", " ", "é "]),
        (&[D::Re("a*")], &["baaac", "é"]),
        (&[D::Re(r"^a"), D::Re("b$")], &["aab", "ab\n", "bab"]),
        (&[D::Re(r"(?m)^a")], &["a\na\nba", "\na"]),
        (&[D::Re(r"\Aa|\z")], &["aa", ""]),
        (&[D::Re(r"(?-u:\b)ab(?-u:\b)")], &["ab abc ab", "xab ab"]),
        (
            &[D::Lits(&["<|im_end|>", "<|im_end|>\n"])],
            &["<|im_end|>\nx", "<|im_end|>", "<|im_end|>x"],
        ),
        (
            &[D::Lits(&["ab"]), D::Lits(&["abc"]), D::Lits(&["b"])],
            &["abc", "ab", "xbabcab"],
        ),
        (&[D::Re("a.*?z"), D::Re("a.*z")], &["a z z", "az", "a"]),
        (&[D::Re(r"é+"), D::Re("ü")], &["ééüé", "\u{e9}\u{301}"]),
        (
            &[D::Re(r"\d{2,}"), D::Re(r"[^\s<]+:")],
            &["1 22 333 a: <b:", "1234"],
        ),
    ];
    for (ds, inputs) in cases {
        for input in *inputs {
            check(ds, all, input);
        }
    }
    // Bytes that are not UTF-8 pass through untouched.
    check_bytes(&[D::Re(r"<a\s*>")], all, b"\xff<a\x80 >\xc3<a>\xe2\x82");
}

#[test]
fn literal_delimiter_is_reported_by_the_feed_that_completes_it() {
    let set = set_of(&[
        D::Lits(&["</tool_call>"]),
        D::Re(r"<\|tool_call>call:(?P<name>\w+)"),
    ]);
    let mut m = PatternMatcher::new(&set);
    let mut rest: &[u8] = b"x</tool_call>";
    let mut got = Vec::new();
    while let Some(step) = m.next(&mut rest) {
        collect(step, &mut got);
    }
    assert!(
        matches!(got.last(), Some(Piece::Match { pattern: 0, .. })),
        "{got:?}"
    );
    // A `\w+` name is settled only by the byte after it.
    let mut rest: &[u8] = b"<|tool_call>call:get";
    let mut got = Vec::new();
    while let Some(step) = m.next(&mut rest) {
        collect(step, &mut got);
    }
    assert!(got.is_empty(), "{got:?}");
    assert_eq!(m.held(), 20);
    let mut rest: &[u8] = b"{";
    while let Some(step) = m.next(&mut rest) {
        collect(step, &mut got);
    }
    assert_eq!(
        got,
        [
            Piece::Match {
                pattern: 1,
                start: 13,
                bytes: b"<|tool_call>call:get".to_vec(),
                captures: vec![("name".into(), Some(b"get".to_vec()))],
            },
            Piece::Text(b"{".to_vec())
        ]
    );
    assert_eq!(m.held(), 0);
}

#[test]
fn prose_is_released_at_once() {
    let set = set_of(QWEN3);
    let mut m = PatternMatcher::new(&set);
    let mut rest: &[u8] = b"Hello <b> and <tool";
    let mut text = Vec::new();
    while let Some(step) = m.next(&mut rest) {
        if let Step::Text(t) = step {
            text.extend_from_slice(t);
        }
    }
    assert_eq!(text, b"Hello <b> and ");
    assert_eq!(m.held(), 5);
}

#[test]
fn hold_back_limit_is_split_invariant_and_loses_nothing() {
    let ds = INKLING;
    let set = set_of(ds);
    let input =
        "a long author name that never ends and then<|content_text|>x<|end_message|>".repeat(3);
    let h = input.as_bytes();
    for limit in [1, 4, 16, 40, 1000] {
        let (whole, hits) = stream(&set, fields, &[h], limit);
        assert_eq!(joined(&whole), h);
        if limit == 1000 {
            assert_eq!(hits, 0);
            assert_eq!(whole, oracle(ds, fields, h));
        } else {
            assert!(hits > 0, "limit {limit}");
        }
        let bytes: Vec<&[u8]> = h.chunks(1).collect();
        assert_eq!(stream(&set, fields, &bytes, limit).0, whole);
        for i in (0..h.len()).step_by(7) {
            let (a, b) = h.split_at(i);
            assert_eq!(
                stream(&set, fields, &[a, b], limit).0,
                whole,
                "limit {limit} split {i}"
            );
        }
    }
    // A `\s*` tail past the limit: the match is reported with what it has.
    let ds = &[D::Re(r"<tool_call>\s*")];
    let set = set_of(ds);
    let h = format!("<tool_call>{}x", " ".repeat(50));
    let (out, hits) = stream(&set, all, &[h.as_bytes()], 20);
    assert!(hits > 0);
    assert!(
        matches!(&out[0], Piece::Match { bytes, .. } if bytes.len() <= 20 && bytes.starts_with(b"<tool_call>  ")),
        "{out:?}"
    );
    assert_eq!(joined(&out), h.as_bytes());
}

/// `pieces` at every chunking (whole, byte by byte, every split point).
fn same_at_every_split(ds: &[D], policy: Policy, h: &str, want: &[Piece]) {
    let set = set_of(ds);
    let h = h.as_bytes();
    assert_eq!(stream(&set, policy, &[h], 1 << 20).0, want, "whole");
    let bytes: Vec<&[u8]> = h.chunks(1).collect();
    assert_eq!(
        stream(&set, policy, &bytes, 1 << 20).0,
        want,
        "byte by byte"
    );
    for i in 0..=h.len() {
        let (a, b) = h.split_at(i);
        assert_eq!(
            stream(&set, policy, &[a, b], 1 << 20).0,
            want,
            "split at {i}"
        );
    }
}

fn text(t: &str) -> Piece {
    Piece::Text(t.as_bytes().to_vec())
}

fn found(pattern: usize, start: usize, bytes: &str) -> Piece {
    Piece::Match {
        pattern,
        start,
        bytes: bytes.as_bytes().to_vec(),
        captures: Vec::new(),
    }
}

#[test]
fn a_lookahead_ending_a_pattern_matches_what_precedes_it() {
    // TRL's Nemotron 3 template: reasoning opens (an empty match) where a `</think>` is
    // still to come; the bytes up to it are searched again with the region's close.
    let nemotron = [
        D::Re(r"(?=[\s\S]*?</think>)"),
        D::Re(r"</think>\s*"),
        D::Re(r"<tool_call>"),
        D::Lits(&["</tool_call>"]),
    ];
    same_at_every_split(
        &nemotron,
        fields,
        "Hmm.</think>\n12<tool_call>x</tool_call>",
        &[
            found(0, 0, ""),
            text("Hmm."),
            found(1, 4, "</think>\n"),
            text("12"),
            found(2, 15, "<tool_call>"),
            text("x"),
            found(3, 27, "</tool_call>"),
        ],
    );
    // No `</think>`: no reasoning.
    same_at_every_split(&nemotron, fields, "12", &[text("12")]);
    // A non-empty match: `<a>` only where `<b>` follows; `<b>` is searched again.
    same_at_every_split(
        &[D::Re("<a>(?=<b>)"), D::Lits(&["<b>"])],
        all,
        "x<a><b>y<a>z",
        &[
            text("x"),
            found(0, 1, "<a>"),
            found(1, 4, "<b>"),
            text("y<a>z"),
        ],
    );
    // An empty match is not reported twice at one offset (it would repeat for ever):
    // the byte after it is text.
    same_at_every_split(
        &[D::Re("(?=b)")],
        all,
        "abb",
        &[
            text("a"),
            found(0, 1, ""),
            text("b"),
            found(0, 2, ""),
            text("b"),
        ],
    );
}

#[test]
fn errors_name_the_construct() {
    let cases = [
        (r"(a)\1", "backreference"),
        (r"(?P<n>a)(?P=n)", "backreference"),
        (r"a(?=b)c", "lookahead"),
        (r"a|b(?=c)", "lookahead"),
        (r"(?:a(?=b))", "lookahead"),
        (r"a(?!b)", "negative lookahead"),
        (r"(?<=a)b", "lookbehind"),
        (r"(?<!a)b", "negative lookbehind"),
        (r"(?>a)", "atomic group"),
        (r"a*+", "possessive"),
        (r"a{2}+", "possessive"),
        (r"(?a)\w", "ASCII-only flag"),
        (r"\bword\b", "Unicode word boundary"),
        (r"\N{DASH}", "named character"),
        (r"(?(1)a|b)", "conditional"),
    ];
    for (p, what) in cases {
        let e = PatternSet::new([Delimiter::literals(["ok"]), Delimiter::regex(p)]).unwrap_err();
        assert_eq!(e.pattern(), 1, "{p}");
        assert!(e.to_string().contains(what), "{p}: {e}");
    }
    for bad in [
        vec![],
        vec!["".to_owned()],
        vec!["eos".to_owned(), "x".to_owned()],
    ] {
        let e = PatternSet::new([Delimiter::literals(bad.clone())]).unwrap_err();
        assert_eq!(
            e.kind(),
            toolstream::scan::pattern::ErrorKind::Literals,
            "{bad:?}"
        );
    }
    let e = PatternSet::new([Delimiter::regex("a(b")]).unwrap_err();
    assert_eq!(e.kind(), toolstream::scan::pattern::ErrorKind::Syntax);
}

#[test]
fn python_syntax_is_translated() {
    // Python reads these as literals or its own forms; the regex crate would not.
    let cases: &[(&str, &str, &[u8])] = &[
        (r"\<tool\>", "x<tool>", b"<tool>"),
        (r"a{,2}b", "aaab", b"aab"),
        (r"{name}", "x{name}", b"{name}"),
        (r"[[]x", "[x", b"[x"),
        (r"[&~]+", "a&~&b", b"&~&"),
        (r"a\Z", "aa", b"a"),
        (r"(?#a comment)b", "ab", b"b"),
        (r"(?u)\w+", "é1", "é1".as_bytes()),
        (r"\0411", "!1", b"!1"),
        (r#"\:\"\/"#, ":\"/", b":\"/"),
        (r"a.b", "a\nb", b"a\nb"),
    ];
    for (p, input, want) in cases {
        let set = PatternSet::new([Delimiter::regex(*p)]).unwrap();
        let (out, _) = stream(&set, all, &[input.as_bytes()], 1 << 20);
        let got: Vec<&[u8]> = out
            .iter()
            .filter_map(|p| match p {
                Piece::Match { bytes, .. } => Some(bytes.as_slice()),
                Piece::Text(_) => None,
            })
            .collect();
        assert_eq!(
            got.first().copied(),
            Some(*want),
            "{p} on {input:?}: {out:?}"
        );
    }
}

/// Fragments the generated inputs are made of: pieces of the delimiters above, and
/// bytes around them.
const FRAGMENTS: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "get_w",
    ">",
    "<",
    "|",
    "\n",
    " ",
    "\t",
    "a",
    "é",
    "<|tool_call>call:",
    "<tool_call|>",
    "<think>",
    "</think>",
    "<|channel|>",
    "commentary to=functions.",
    "<|message|>",
    "<|call|>",
    "<|content_text|>",
    "<|message_model|>",
    "<|end_message|>",
    "</response>",
    "<response>\n",
    "<|im_end|>",
    "{}",
    "<parameter=",
    "</parameter>",
    "eos",
    "<eos>",
    "x",
];

fn arb_input() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..24)
        .prop_map(|v| v.concat().into_bytes())
}

fn templates() -> Vec<&'static [D]> {
    vec![
        QWEN3, GEMMA4, GPT_OSS, ERNIE, INKLING, COHERE, SMOLLM, XML_INLINE,
    ]
}

/// The templates' sets, compiled once for the property tests (a dense DFA over Unicode
/// `\w` takes a while in a debug build).
fn template_set(i: usize) -> &'static PatternSet {
    static SETS: std::sync::OnceLock<Vec<PatternSet>> = std::sync::OnceLock::new();
    &SETS.get_or_init(|| templates().iter().map(|ds| set_of(ds)).collect())[i]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_splits_match_the_oracle(
        input in arb_input(),
        template in 0usize..8,
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        by_fields in any::<bool>(),
    ) {
        let ds = templates()[template];
        let policy: Policy = if by_fields { fields } else { all };
        let set = template_set(template);
        let want = oracle(ds, policy, &input);
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(input.len() + 1)).collect();
        points.sort_unstable();
        let mut pieces = Vec::new();
        let mut from = 0;
        for p in points {
            pieces.push(&input[from..p]);
            from = p;
        }
        pieces.push(&input[from..]);
        prop_assert_eq!(stream(set, policy, &pieces, 1 << 20).0, want);
    }

    #[test]
    fn random_bytes_never_panic_and_lose_nothing(
        input in prop::collection::vec(any::<u8>(), 0..64),
        template in 0usize..8,
        cut in any::<prop::sample::Index>(),
        limit in 1usize..32,
    ) {
        let set = template_set(template);
        let (whole, _) = stream(set, fields, &[&input], limit);
        prop_assert_eq!(joined(&whole), input.clone());
        let (a, b) = input.split_at(cut.index(input.len() + 1));
        prop_assert_eq!(stream(set, fields, &[a, b], limit).0, whole.clone());
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        prop_assert_eq!(stream(set, fields, &bytes, limit).0, whole);
    }
}
