//! The XML-parameter family (`src/text/xml/`).

/// The XML fixture table and its rules, run over the rows the syntax files hold (their
/// `table()`, listed in `TABLE`).
pub(crate) mod tables;

/// `qwen-xml`'s own fixtures and raw-text captures.
mod qwen_xml;

/// `deepseek-dsml`: V4.1's spaced tags, the doubled-bar leak, JSON bodies.
mod deepseek_dsml;

/// `kimi-k3`: Kimi K3's XTML tool channel.
mod kimi_k3;

/// `minimax`: XML character references in values.
mod minimax;

/// `glm`: Python literals without a schema.
mod glm;

/// `minimax-m3`: namespace-prefixed, tag-named, nested parameters.
mod minimax_m3;

/// `hy-v4`'s own fixtures.
mod hy_v4;

/// `hy-v3`'s own fixtures (`<tool_sep>` after the name).
mod hy_v3;

/// `gigachat35`'s own fixtures (GCML).
mod gigachat35;

/// `minicpm5`'s own fixtures.
mod minicpm5;

/// `step3`'s own fixtures (StepTML).
mod step3;

/// `seed-oss`: Qwen3 XML in `<seed:tool_call>`, `<seed:think>`.
mod seed_oss;

/// `zaya1`: Qwen3 XML in `<zyphra_tool_call>`.
mod zaya1;

/// `k2-horizon`: IFM tags.
mod k2_horizon;

/// `dots`: `<invoke>` calls in `<dots_function_call>`.
mod dots;

/// `muse`: ATEM blocks in recipient-framed messages.
mod muse;

/// The universal fixtures of this family's syntaxes (`tests/text/universal.rs`), one per
/// syntax file.
pub(crate) const UNIVERSAL: &[fn() -> crate::universal::Universal] = &[
    qwen_xml::universal,
    seed_oss::universal,
    glm::universal,
    hy_v4::universal,
    zaya1::universal,
    k2_horizon::universal,
    dots::universal,
    muse::universal,
    minimax::universal,
    deepseek_dsml::universal,
    kimi_k3::universal,
    minimax_m3::universal,
    hy_v3::universal,
    gigachat35::universal,
    minicpm5::universal,
    step3::universal,
];

/// The rows of the recovery rule (`rules/recovery.rs`) this family's syntax files hold.
pub(crate) const RECOVERY: &[fn() -> Vec<crate::rules::recovery::Fx>] = &[
    minimax::recovery,
    deepseek_dsml::recovery,
    kimi_k3::recovery,
    minimax_m3::recovery,
    qwen_xml::recovery,
    glm::recovery,
    seed_oss::recovery,
    hy_v4::recovery,
];

/// The rows of the edge rules (`rules/edges.rs`) this family's syntax files hold.
pub(crate) const EDGES: &[fn() -> crate::rules::edges::Edges] =
    &[qwen_xml::edges, glm::edges, seed_oss::edges, hy_v4::edges];

/// The rows of the XML fixture table (`tables.rs`) this family's syntax files hold.
pub(crate) const TABLE: &[fn() -> Vec<tables::Fx>] = &[
    glm::table,
    minimax::table,
    seed_oss::table,
    deepseek_dsml::table,
    qwen_xml::table,
];
