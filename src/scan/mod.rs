//! Shared scanning kernels, written once and used by every dialect.

pub mod fields;
pub(crate) mod find;
pub mod json;
pub mod marker;
pub mod pythonic;
pub mod utf8;
