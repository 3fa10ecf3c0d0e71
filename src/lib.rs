//! # toolstream
//!
//! Parse streaming LLM responses into tool-call events as the bytes arrive.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod calls;
pub mod error;
pub mod event;
pub mod format;
pub mod framing;
pub mod limits;
mod parser;
mod provider;
pub mod scan;
#[cfg(feature = "stream")]
pub mod stream;
mod text;

pub use error::{Error, ParseErrorKind};
pub use event::{ErrorKind, Event, FinishReason, Usage, merge_deltas};
pub use format::{Format, Framing, UnknownName};
pub use limits::Limits;
pub use parser::Parser;
