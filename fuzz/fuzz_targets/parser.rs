//! Every format (`Format::all()`), selected by the first header byte, with a fuzzer-chosen
//! framing, content scanner, limits and chunking: split invariance, the event contract and
//! bounded memory. See `toolstream_fuzz::parser_target`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolstream_fuzz::parser_target(data));
