//! The JSON-call family (`src/text/json/`).

/// The JSON-call table's rules, run over every descriptor the syntax files hold (their
/// `SYN`, listed in the families' `JSON_TABLE`: `kimi-k2` of the special-token section
/// family too).
pub(crate) mod tables;

/// `hermes`'s own fixtures.
mod hermes;

/// `mistral`'s own fixtures.
mod mistral;

/// `gigachat3`'s own fixtures (GigaChat 3.1's `<|function_call|>`).
mod gigachat3;

/// `granite`'s own fixtures (Granite 3.1's `<tool_call>[..]`).
mod granite;

/// `command-r`'s own fixtures (Cohere cmd4: `<|START_TEXT|>`, citations).
mod command_r;

/// `inkling`'s own fixtures (typed content blocks, `args`).
mod inkling;

/// `ernie45`: hermes' calls with ERNIE 4.5's `<response>` tags.
mod ernie45;

/// `granite-20b-fc`: one JSON object per `<function_call>`.
mod granite_20b_fc;

/// `longcat`, `nemotron`, `jamba`, `hunyuan`: their universal fixtures (hermes' cases
/// with their markers).
mod hunyuan;
mod jamba;
mod longcat;
mod nemotron;

/// String-encoded arguments (`"arguments": "{\"a\": 1}"`), decoded.
mod string_args;

/// `phi4-mini`'s own fixtures.
mod phi4_mini;

/// `internlm`'s own fixtures.
mod internlm;

/// `apertus`'s own fixtures.
mod apertus;

/// The universal fixtures of this family's syntaxes (`tests/text/universal.rs`), one per
/// syntax file.
pub(crate) const UNIVERSAL: &[fn() -> crate::universal::Universal] = &[
    hermes::universal,
    ernie45::universal,
    granite_20b_fc::universal,
    longcat::universal,
    nemotron::universal,
    jamba::universal,
    hunyuan::universal,
    mistral::universal,
    command_r::universal,
    granite::universal,
    phi4_mini::universal,
    internlm::universal,
    apertus::universal,
    gigachat3::universal,
    inkling::universal,
];

/// The rows of the recovery rule (`rules/recovery.rs`) this family's syntax files hold.
pub(crate) const RECOVERY: &[fn() -> Vec<crate::rules::recovery::Fx>] = &[
    mistral::recovery,
    command_r::recovery,
    granite::recovery,
    internlm::recovery,
    apertus::recovery,
    gigachat3::recovery,
    hermes::recovery,
    nemotron::recovery,
    longcat::recovery,
];

/// The rows of the edge rules (`rules/edges.rs`) this family's syntax files hold.
pub(crate) const EDGES: &[fn() -> crate::rules::edges::Edges] = &[
    hermes::edges,
    mistral::edges,
    jamba::edges,
    hunyuan::edges,
    nemotron::edges,
    longcat::edges,
    granite::edges,
];

/// The descriptors of the JSON-call table (`json/tables.rs`) this family's syntax files
/// hold.
pub(crate) const JSON_TABLE: &[&[crate::json::tables::Syn]] = &[
    command_r::SYN,
    granite::SYN,
    jamba::SYN,
    hunyuan::SYN,
    nemotron::SYN,
    phi4_mini::SYN,
    longcat::SYN,
    internlm::SYN,
    apertus::SYN,
    gigachat3::SYN,
];
