//! The AWS event-stream framer: split invariance and a bounded buffer on raw bytes, and a
//! structure-aware mode that encodes random messages (random headers of every type, random
//! payloads, correct CRCs, optionally one corrupted byte) and checks that every message
//! comes back whole, or an oversized one as `TooLarge`.
//!
//! Header: one byte (bit 0: structured mode; the rest picks the size limit).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use toolstream::framing::eventstream::{EventStreamErrorKind, EventStreamFramer, EventStreamItem};
use toolstream_fuzz::{chunks, take_pattern};

#[derive(Debug, PartialEq, Eq)]
enum Item {
    Message([String; 4], Vec<u8>),
    Error(EventStreamErrorKind, Vec<u8>),
}

fn run(parts: &[&[u8]], max: usize) -> Vec<Item> {
    let mut f = EventStreamFramer::with_max_message(max);
    let m = max.max(16);
    let mut out = Vec::new();
    let mut own = |item: EventStreamItem<'_>| match item {
        EventStreamItem::Message {
            event_type,
            message_type,
            exception_type,
            error_code,
            payload,
        } => out.push(Item::Message(
            [event_type, message_type, exception_type, error_code].map(str::to_owned),
            payload.to_vec(),
        )),
        EventStreamItem::Error { kind, raw, .. } => {
            assert!(raw.len() <= m);
            out.push(Item::Error(kind, raw.to_vec()))
        }
    };
    for p in parts {
        let mut rest = *p;
        while let Some(item) = f.feed(&mut rest) {
            own(item);
        }
        assert!(rest.is_empty());
        assert!(f.buffered() <= m, "buffered {} > {m}", f.buffered());
    }
    while let Some(item) = f.finish() {
        own(item);
    }
    assert_eq!(f.buffered(), 0);
    out
}

#[derive(Arbitrary, Debug)]
enum HeaderValue {
    True,
    False,
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Bytes(Vec<u8>),
    Str(String),
    Timestamp(i64),
    Uuid([u8; 16]),
}

#[derive(Arbitrary, Debug)]
struct Msg {
    event_type: Option<String>,
    message_type: Option<String>,
    exception_type: Option<String>,
    error_code: Option<String>,
    others: Vec<(String, HeaderValue)>,
    payload: Vec<u8>,
}

#[derive(Arbitrary, Debug)]
struct Stream {
    messages: Vec<Msg>,
    corrupt: Option<(u16, u8)>,
    truncate: Option<u16>,
    pattern: Vec<u8>,
}

fn header(out: &mut Vec<u8>, name: &str, value: &HeaderValue) {
    let name = &name.as_bytes()[..name.len().min(255)];
    out.push(name.len() as u8);
    out.extend_from_slice(name);
    let var = |out: &mut Vec<u8>, t: u8, v: &[u8]| {
        let v = &v[..v.len().min(u16::MAX as usize)];
        out.push(t);
        out.extend_from_slice(&(v.len() as u16).to_be_bytes());
        out.extend_from_slice(v);
    };
    match value {
        HeaderValue::True => out.push(0),
        HeaderValue::False => out.push(1),
        HeaderValue::Byte(v) => out.extend([2, *v as u8]),
        HeaderValue::Short(v) => {
            out.push(3);
            out.extend(v.to_be_bytes())
        }
        HeaderValue::Int(v) => {
            out.push(4);
            out.extend(v.to_be_bytes())
        }
        HeaderValue::Long(v) => {
            out.push(5);
            out.extend(v.to_be_bytes())
        }
        HeaderValue::Bytes(v) => var(out, 6, v),
        HeaderValue::Str(v) => var(out, 7, v.as_bytes()),
        HeaderValue::Timestamp(v) => {
            out.push(8);
            out.extend(v.to_be_bytes())
        }
        HeaderValue::Uuid(v) => {
            out.push(9);
            out.extend(v)
        }
    }
}

const KNOWN: [&str; 4] = [
    ":event-type",
    ":message-type",
    ":exception-type",
    ":error-code",
];

/// Encodes a message; returns its bytes and the item the framer must produce for it.
fn encode(m: &Msg, max: usize) -> (Vec<u8>, Item) {
    let mut headers = Vec::new();
    let mut known: [String; 4] = Default::default();
    for (i, v) in [
        &m.event_type,
        &m.message_type,
        &m.exception_type,
        &m.error_code,
    ]
    .into_iter()
    .enumerate()
    {
        if let Some(v) = v {
            let v: String = v.chars().take(100).collect();
            header(&mut headers, KNOWN[i], &HeaderValue::Str(v.clone()));
            known[i] = v;
        }
    }
    for (name, value) in &m.others {
        // Well-known names must be strings; keep the others clear of them.
        let name = format!("x-{}", name.chars().take(60).collect::<String>());
        header(&mut headers, &name, value);
    }
    let total = 16 + headers.len() + m.payload.len();
    let mut out = Vec::with_capacity(total);
    out.extend((total as u32).to_be_bytes());
    out.extend((headers.len() as u32).to_be_bytes());
    out.extend(crc32fast::hash(&out).to_be_bytes());
    out.extend_from_slice(&headers);
    out.extend_from_slice(&m.payload);
    out.extend(crc32fast::hash(&out).to_be_bytes());
    let item = if total > max.max(16) {
        Item::Error(EventStreamErrorKind::TooLarge, out[..12].to_vec())
    } else {
        Item::Message(known, m.payload.clone())
    };
    (out, item)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let max = match sel >> 1 {
        127 => 16 << 20,
        n => usize::from(n) * 8,
    };
    if sel & 1 == 0 {
        let (pattern, body) = take_pattern(rest);
        let whole = run(&[body], max);
        let cut = chunks(pattern, body);
        assert_eq!(run(&cut, max), whole, "chunked {pattern:?} differs");
        return;
    }
    let Ok(s) = Stream::arbitrary_take_rest(Unstructured::new(rest)) else {
        return;
    };
    let mut body = Vec::new();
    let mut want = Vec::new();
    for m in &s.messages {
        let (bytes, item) = encode(m, max);
        body.extend(bytes);
        want.push(item);
    }
    let whole = run(&[&body], max);
    let mut damaged = false;
    if let Some((at, x)) = s.corrupt
        && !body.is_empty()
        && x != 0
    {
        let i = usize::from(at) % body.len();
        body[i] ^= x;
        damaged = true;
    }
    if let Some(t) = s.truncate
        && !body.is_empty()
    {
        body.truncate(usize::from(t) % body.len());
        damaged = true;
    }
    if damaged {
        let whole = run(&[&body], max);
        let cut = chunks(&s.pattern, &body);
        assert_eq!(run(&cut, max), whole, "chunked {:?} differs", s.pattern);
    } else {
        assert_eq!(whole, want, "encoded messages do not come back");
        let cut = chunks(&s.pattern, &body);
        assert_eq!(run(&cut, max), whole, "chunked {:?} differs", s.pattern);
    }
});
