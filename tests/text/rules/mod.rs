//! Rules every text format keeps, each run over every text syntax.

/// A call error's `raw`, call-introducing tokens as markers, stray reasoning tags.
pub(crate) mod edges;

/// The layout of `src/text/`: imports never run in a circle.
mod layout;

/// The recovery rule (`text::kit::recovery`): every slip of issue 22 in every syntax
/// where it occurs, with its exact events.
pub(crate) mod recovery;

/// `ParserConfig::calls_in_reasoning`: calls written before `</think>` (Qwen 3.5,
/// Nemotron), extracted with the option, reasoning without it.
mod calls_in_reasoning;

/// Syntaxes as data: each table-driven built-in written as a spec and read back parses
/// like the built-in.
mod specs;

/// `auto` reads a reasoning block before it knows the syntax, as the detected format
/// reads it.
mod auto_reasoning;

/// `auto` past bytes that begin no detection pattern (near misses in prose), at every
/// split.
mod auto_detect;

/// Bytes that are not UTF-8 in text and around reasoning, in every text format, at
/// every split.
mod invalid_utf8;
/// Every syntax's universal fixture, run; every raw-text format has its own test file.
mod universal;
