//! The borrowed event path (`Parser::feed_into` / `finish_into` with an `EventSink`) gives
//! exactly the events of the owned path (`feed` / `finish` into a `Vec<Event>`), for every
//! format and chunking, and an `EventRef` serializes to the same JSON line as its `Event`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[path = "../benches/support/workloads.rs"]
mod workloads;

use toolstream::{Event, EventRef, EventSink, Format, Parser};
use workloads::{Shape, generator};

/// Keeps each borrowed event as its JSON line and as an owned copy.
#[derive(Default)]
struct Lines {
    json: Vec<String>,
    owned: Vec<Event>,
}

impl EventSink for Lines {
    fn event(&mut self, e: EventRef<'_>) {
        self.json.push(serde_json::to_string(&e).unwrap());
        self.owned.push(e.to_owned());
    }
}

fn owned(format: Format, body: &[u8], chunk: usize) -> Vec<Event> {
    let mut p = Parser::new(format);
    let mut out = Vec::new();
    for c in body.chunks(chunk) {
        p.feed(c, &mut out).unwrap();
    }
    p.finish(&mut out).unwrap();
    out
}

fn borrowed(format: Format, body: &[u8], chunk: usize) -> Lines {
    let mut p = Parser::new(format);
    let mut sink = Lines::default();
    for c in body.chunks(chunk) {
        p.feed_into(c, &mut sink).unwrap();
    }
    p.finish_into(&mut sink).unwrap();
    sink
}

#[test]
fn borrowed_events_equal_owned_events_for_every_format() {
    for format in Format::all() {
        let make = generator(format).expect("a workload generator");
        for shape in [Shape::STREAM, Shape::long_arg(2048)] {
            let body = make(shape).body();
            // Cut inputs too: the errors of a call the stream ends inside.
            for body in [&body[..], &body[..body.len() * 2 / 3]] {
                for chunk in [1, 4, 7, 4096] {
                    let want = owned(format, body, chunk);
                    let got = borrowed(format, body, chunk);
                    assert_eq!(got.owned, want, "{format}, {chunk} B feeds");
                    let want_json: Vec<String> = want
                        .iter()
                        .map(|e| serde_json::to_string(e).unwrap())
                        .collect();
                    assert_eq!(got.json, want_json, "{format}, {chunk} B feeds: JSON lines");
                }
            }
        }
    }
}

#[test]
fn as_ref_round_trips_every_variant() {
    let events = vec![
        Event::Text { delta: "a".into() },
        Event::Reasoning { delta: "b".into() },
        Event::ToolCallStart {
            index: 0,
            id: "call_0".into(),
            name: "f".into(),
        },
        Event::ToolCallArgs {
            index: 0,
            delta: "{".into(),
        },
        Event::ToolCallField {
            index: 0,
            path: "/x".into(),
            delta: "1".into(),
            kind: toolstream::FieldKind::Number,
        },
        Event::ToolCallField {
            index: 0,
            path: "/y".into(),
            delta: "1".into(),
            kind: toolstream::FieldKind::String,
        },
        Event::ToolCallFieldEnd {
            index: 0,
            path: "/x".into(),
        },
        Event::ToolCallEnd {
            index: 0,
            id: "call_0".into(),
            name: "f".into(),
            arguments: serde_json::json!({"x": 1}),
        },
        Event::Finish {
            reason: Some(toolstream::FinishReason::ToolCalls),
            usage: None,
        },
        Event::Error {
            path: None,
            kind: toolstream::ErrorKind::Truncated,
            message: "m".into(),
            index: Some(0),
            raw: "r".into(),
        },
        Event::Error {
            path: None,
            kind: toolstream::ErrorKind::Provider,
            message: "m".into(),
            index: None,
            raw: "r".into(),
        },
    ];
    for e in &events {
        let r = e.as_ref();
        assert_eq!(&r.to_owned(), e);
        assert_eq!(r.index(), e.index());
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string(e).unwrap()
        );
    }
}
