//! The JSON-call family (`src/text/json/`).

/// The JSON-call table's rules, run over every descriptor the syntax files hold (their
/// `SYN`, listed in the families' `JSON_TABLE`: `kimi-k2` of the special-token section
/// family too).
pub(crate) mod tables;

/// String-encoded arguments (`"arguments": "{\"a\": 1}"`), decoded.
mod string_args;

// Every syntax's test file (`build.rs`: the path of the syntax's source file under
// `tests/text`) and the family's `UNIVERSAL` list of their fixtures.
include!(concat!(env!("OUT_DIR"), "/tests_text_json.rs"));

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
