//! The pythonic family (`src/text/pythonic/`).

/// `llama-pythonic`, `llama-json` and `auto`.
mod llama;

/// `lfm2`.
mod lfm2;

/// `xlam`, an alias of `llama-json`.
mod xlam;
