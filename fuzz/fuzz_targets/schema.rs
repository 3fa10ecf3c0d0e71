//! Streaming JSON-Schema validation (`validate_arguments`): a fuzzer-chosen schema and
//! argument bytes, fed whole, split at a fuzzer-chosen point and byte by byte: no panic,
//! split invariance, the event contract. See `toolstream_fuzz::schema_target`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolstream_fuzz::schema_target(data));
