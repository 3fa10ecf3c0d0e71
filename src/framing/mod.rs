//! Framing: bytes in, payload messages out. Every framer is sans-IO and pull-style:
//! `while let Some(item) = framer.feed(&mut rest) { .. }` consumes the input from the
//! front until one item is ready; `finish` reports what is left at end of input.

pub mod eventstream;
pub mod json_array;
mod line;
pub mod ndjson;
pub mod sse;
