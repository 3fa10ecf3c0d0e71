//! The streamed-JSON-array framer: split invariance, bounded buffer, and (with the default
//! limit) when serde_json reads the input as an array, exactly its elements, byte for byte.
//!
//! Header: one byte for the element limit (255: the default), then a chunking pattern.
#![no_main]

use serde_json::value::RawValue;
use toolstream::framing::json_array::{JsonArrayFramer, JsonArrayItem};
use toolstream_fuzz::{chunks, take_pattern};

#[derive(Debug, PartialEq, Eq)]
enum Item {
    Element(Vec<u8>),
    Error(&'static str, Vec<u8>),
}

fn run(parts: &[&[u8]], max: Option<usize>) -> Vec<Item> {
    let mut f = max.map_or_else(JsonArrayFramer::new, JsonArrayFramer::with_max_element);
    let m = max.unwrap_or(16 << 20);
    let mut out = Vec::new();
    let mut own = |item: JsonArrayItem<'_>| match item {
        JsonArrayItem::Element(e) => {
            assert!(e.len() <= m);
            out.push(Item::Element(e.to_vec()))
        }
        JsonArrayItem::Error { message, raw } => {
            assert!(raw.len() <= m);
            out.push(Item::Error(message, raw.to_vec()))
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
    out
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&m, rest)) = data.split_first() else {
        return;
    };
    let max = (m != 255).then_some(usize::from(m));
    let (pattern, body) = take_pattern(rest);
    let whole = run(&[body], max);
    let cut = chunks(pattern, body);
    assert_eq!(run(&cut, max), whole, "chunked {pattern:?} differs");
    if max.is_none() {
        let text = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
        if let Ok(text) = std::str::from_utf8(text)
            && let Ok(elements) = serde_json::from_str::<Vec<&RawValue>>(text)
        {
            let want: Vec<Item> = elements
                .iter()
                .map(|e| Item::Element(e.get().as_bytes().to_vec()))
                .collect();
            assert_eq!(whole, want, "serde_json reads other elements");
        }
    }
});
