//! The UTF-8 holder against `String::from_utf8_lossy`, at a fuzzer-chosen chunking: the
//! same text (U+FFFD for every maximal invalid subpart), at most 3 bytes held.
#![no_main]

use toolstream::scan::utf8::Utf8Holder;
use toolstream_fuzz::{chunks, take_pattern};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (pattern, body) = take_pattern(data);
    let want = String::from_utf8_lossy(body);
    let mut h = Utf8Holder::new();
    let mut got = String::new();
    let mut scratch = String::new();
    for c in chunks(pattern, body) {
        got.push_str(&h.push(c, &mut scratch));
        assert!(h.held() <= 3, "held {} bytes", h.held());
    }
    if let Some(s) = h.finish() {
        got.push_str(s);
    }
    assert_eq!(h.held(), 0);
    assert_eq!(got, want, "pattern {pattern:?}");
});
