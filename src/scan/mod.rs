//! Shared scanning kernels, written once and used by every dialect.

pub mod json;
pub mod marker;
pub mod utf8;
