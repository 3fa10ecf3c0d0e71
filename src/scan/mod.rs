//! Shared scanning kernels, written once and used by every dialect.

pub mod fields;
pub mod json;
pub mod marker;
pub mod pythonic;
pub mod utf8;
