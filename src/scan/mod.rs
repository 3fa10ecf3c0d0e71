//! Shared scanning kernels, written once and used by every dialect.

pub mod fields;
pub(crate) mod find;
pub(crate) mod gemma;
pub mod json;
pub mod marker;
pub mod pythonic;
pub mod utf8;
