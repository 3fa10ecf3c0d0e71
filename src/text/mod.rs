//! Text scanners: one per model-output syntax. They find tool calls written as text
//! inside a token stream (raw model output, or the `content` of an envelope format
//! whose server did not parse them) and share the response's call table with the
//! envelope decoder, so call indices stay dense across both.
//!
//! A scanner gets bytes (`feed`) and must be split-invariant: any chunking of the same
//! text gives the same merged events. Text is held back only while it could still be
//! the start of a call, bounded by [`Limits::max_held_bytes`](crate::Limits).
//!
//! Marker-based syntaxes, one file each: [`hermes`] (`<tool_call>{json}</tool_call>`),
//! the XML-parameter syntaxes on the one [`xml`] scanner ([`qwen_xml`]
//! `<function=..><parameter=..>`, [`seed_oss`], [`glm`] `<arg_key>`, [`minimax`]
//! `<invoke name=..>`, [`deepseek_dsml`]), [`mistral`] (`[TOOL_CALLS]`),
//! [`deepseek`] (`<｜tool▁call▁begin｜>`, and Kimi K2's tokens), [`harmony`] (gpt-oss
//! channels), [`gemma4`] (`<|tool_call>call:name{..}<tool_call|>`), and [`json_calls`]:
//! one table-driven scanner for every "marker + JSON call object(s) + optional close
//! marker" syntax (`command-r`, `granite`, `jamba`, ...). All but harmony run their text
//! through the [`reasoning`] stage (`<think>` tags, whitespace
//! before markers, end-of-turn tokens), and all find markers with
//! [`scan::marker`](crate::scan::marker): invalid UTF-8 in text becomes U+FFFD, a
//! marker (or a character) split across chunks is held, and released verbatim the
//! moment it cannot be one.
//!
//! Rules every scanner keeps (tests in `tests/text_edges.rs` run them over every text
//! format):
//!
//! - **A call error carries the model's bytes.** When a call cannot be completed
//!   (malformed, cut off by the end of input), its `Error` (with its `index` once the
//!   Start was emitted) carries in `raw` the model's own bytes of that call, unchanged:
//!   from its first marker byte — its own opening marker (`<tool_call>`,
//!   `<｜tool▁call▁begin｜>`, `<|channel|>`, `[TOOL_CALLS]` of a v11 call), or, where one
//!   marker opens a list of calls, that marker for the list's first call (`[TOOL_CALLS][`,
//!   `<|python_tag|>`, a pythonic or JSON list's `[`, a bare JSON call's `{`) and a later
//!   call's own first byte (its `{`, its name) — through the call's end (its closing
//!   marker or bracket) or the end of the input, up to `max_argument_bytes` (cut on a
//!   character boundary, the rest counted in the message). Never converted JSON.
//! - **Call-introducing tokens are markers.** A special token that introduces a call
//!   (`<|python_tag|>` or `<|python_start|>` before a pythonic list, `<|tool_call_start|>`,
//!   `<function_calls>`) is consumed with the call, never emitted as text; one that no
//!   call follows is text, byte for byte.
//! - **A stray closing reasoning tag is text** unless `reasoning_open` declared the block
//!   open (then everything before it is reasoning); see [`reasoning`].

use crate::calls::Calls;
use crate::event::{EventRef, EventSink};
use crate::format::Format;
use crate::limits::Limits;
use crate::text::util::{CharInput, ReadsChars};

pub(crate) mod auto;
pub(crate) mod call;
pub(crate) mod deepseek;
pub(crate) mod gemma4;
pub(crate) mod harmony;
pub(crate) mod hermes;
pub(crate) mod json_calls;
pub(crate) mod mistral;
pub(crate) mod qwen_xml;
pub(crate) mod reasoning;
pub(crate) mod util;

pub(crate) mod deepseek_dsml;
pub(crate) mod glm;
pub(crate) mod minimax;
pub(crate) mod seed_oss;
pub(crate) mod xml;

pub(crate) mod llama_json;
pub(crate) mod llama_pythonic;

pub(crate) use reasoning::ReasoningOptions;

/// Options of the marker-less scanners (set with [`Parser::tool_names`] and
/// [`Parser::calls_at_start_only`]).
///
/// [`Parser::tool_names`]: crate::Parser::tool_names
/// [`Parser::calls_at_start_only`]: crate::Parser::calls_at_start_only
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TextOptions {
    /// Reasoning tags (all text scanners).
    pub(crate) reasoning: ReasoningOptions,
    /// Only these names make a call header; any other name is text. `None`: any name.
    pub(crate) tool_names: Option<Vec<String>>,
    /// A marker-less call must come before any non-whitespace text.
    pub(crate) calls_at_start_only: bool,
    /// Without `tool_names`, only the names declared in `tools` make a call header
    /// (`Parser::reject_undeclared`, on by default).
    pub(crate) narrow_to_tools: bool,
    /// The request's declared tools (`Parser::tools`): parameter value kinds for the
    /// XML-parameter syntaxes, declared names. `None`: no schema.
    pub(crate) tools: Option<std::sync::Arc<crate::tools::Tools>>,
}

impl TextOptions {
    /// How a value of `tool`'s parameter `param` becomes JSON (no schema: `Infer`).
    pub(crate) fn value_kind(&self, tool: &str, param: &str) -> crate::tools::ValueKind {
        self.tools
            .as_ref()
            .map_or(crate::tools::ValueKind::Infer, |t| {
                t.value_kind(tool, param)
            })
    }

    /// Whether a marker-less header named `name` is a call; `continues`: it follows a
    /// call of the same group (`, name(` in a pythonic list, `; {` / `, {` after a JSON
    /// call) or a marker that says a call follows (`<|python_tag|>`). Such a header is a
    /// call whatever its name unless `tool_names` narrows it:
    /// an undeclared one is then rejected by the call table, so the declared calls after
    /// it in the group still count.
    pub(crate) fn allows_header(&self, name: &str, continues: bool) -> bool {
        (continues && self.tool_names.is_none()) || self.allows(name)
    }

    /// Whether `name` may be a tool call's name: one of `tool_names` when set, else
    /// (with `narrow_to_tools`) a declared tool, else any.
    pub(crate) fn allows(&self, name: &str) -> bool {
        match (&self.tool_names, &self.tools) {
            (Some(names), _) => names.iter().any(|n| n == name),
            (None, Some(tools)) if self.narrow_to_tools => tools.is_declared(name),
            _ => true,
        }
    }
}

/// A scanner for one text syntax.
#[derive(Debug)]
pub(crate) enum TextScanner {
    /// No call syntax: text passes through (UTF-8 boundaries held).
    Plain(Plain),
    /// `<tool_call>{json}</tool_call>`.
    Hermes(Box<hermes::Hermes>),
    /// The XML-parameter syntaxes (`qwen-xml`, `seed-oss`, `glm`, `minimax`,
    /// `deepseek-dsml`): one scanner, a [`Dialect`](xml::Dialect) table each.
    Xml(Box<xml::XmlCalls>),
    /// `[TOOL_CALLS][{..}]` and `[TOOL_CALLS]name[ARGS]{..}`.
    Mistral(Box<mistral::Mistral>),
    /// `<｜tool▁call▁begin｜>..<｜tool▁sep｜>..<｜tool▁call▁end｜>` (V3, V3.1).
    DeepSeek(Box<deepseek::DeepSeek>),
    /// gpt-oss harmony: `<|channel|>commentary to=functions.name<|message|>{..}<|call|>`.
    Harmony(Box<harmony::Harmony>),
    /// Pythonic calls `[f(a=1), g()]`: Llama 3.2 / 4, and framed by markers (`lfm2`,
    /// `olmo3`).
    LlamaPythonic(Box<llama_pythonic::LlamaPythonic>),
    /// Llama bare JSON calls and `<|python_tag|>`.
    LlamaJson(Box<llama_json::LlamaJson>),
    /// Syntax detected from the first markers.
    Auto(Box<auto::Auto>),
    /// Gemma 4: `<|tool_call>call:name{k:<|"|>v<|"|>}<tool_call|>`.
    Gemma4(Box<gemma4::Gemma4>),
    /// JSON call objects after a marker (`command-r`, `granite`, `jamba`, ...): one
    /// scanner driven by a [`json_calls::Dialect`] table.
    JsonCalls(Box<json_calls::JsonCalls>),
}

impl TextScanner {
    /// The scanner for a text format; `None` for envelope formats.
    #[allow(dead_code)]
    pub(crate) fn new(format: Format, limits: &Limits) -> Option<Self> {
        Self::with_options(format, limits, &TextOptions::default())
    }

    /// The scanner for a text format with options; `None` for envelope formats.
    pub(crate) fn with_options(
        format: Format,
        limits: &Limits,
        options: &TextOptions,
    ) -> Option<Self> {
        match format {
            Format::Hermes => Some(TextScanner::Hermes(Box::new(hermes::Hermes::new(
                limits,
                &options.reasoning,
            )))),
            Format::QwenXml => Some(Self::xml(&qwen_xml::DIALECT, limits, options)),
            Format::SeedOss => Some(Self::xml(&seed_oss::DIALECT, limits, options)),
            Format::Glm => Some(Self::xml(&glm::DIALECT, limits, options)),
            Format::MiniMax => Some(Self::xml(&minimax::DIALECT, limits, options)),
            Format::DeepSeekDsml => Some(Self::xml(&deepseek_dsml::DIALECT, limits, options)),
            Format::Mistral => Some(TextScanner::Mistral(Box::new(mistral::Mistral::new(
                limits,
                &options.reasoning,
            )))),
            Format::DeepSeek => Some(TextScanner::DeepSeek(Box::new(deepseek::DeepSeek::new(
                limits,
                &options.reasoning,
            )))),
            Format::Harmony => Some(TextScanner::Harmony(Box::new(harmony::Harmony::new(
                limits,
                &options.reasoning,
            )))),
            Format::LlamaPythonic => Some(TextScanner::LlamaPythonic(Box::new(
                llama_pythonic::LlamaPythonic::new(limits, options),
            ))),
            Format::LlamaJson => Some(TextScanner::LlamaJson(Box::new(
                llama_json::LlamaJson::new(limits, options),
            ))),
            Format::Auto => Some(TextScanner::Auto(Box::new(auto::Auto::new(
                limits, options,
            )))),
            Format::Gemma4 => Some(TextScanner::Gemma4(Box::new(gemma4::Gemma4::new(
                limits,
                &options.reasoning,
            )))),
            Format::Lfm2 => Some(TextScanner::LlamaPythonic(Box::new(
                llama_pythonic::LlamaPythonic::framed(llama_pythonic::LFM2, limits, options),
            ))),
            Format::Olmo3 => Some(TextScanner::LlamaPythonic(Box::new(
                llama_pythonic::LlamaPythonic::framed(llama_pythonic::OLMO3, limits, options),
            ))),
            Format::KimiK2 => Some(TextScanner::DeepSeek(Box::new(
                deepseek::DeepSeek::with_tokens(&deepseek::KIMI_K2, limits, &options.reasoning),
            ))),
            // Envelope formats (no dialect table either) have no text scanner.
            _ => json_calls::dialect(format).map(|d| {
                TextScanner::JsonCalls(Box::new(json_calls::JsonCalls::new(
                    d,
                    limits,
                    &options.reasoning,
                )))
            }),
        }
    }

    fn xml(dialect: &'static xml::Dialect, limits: &Limits, options: &TextOptions) -> Self {
        TextScanner::Xml(Box::new(xml::XmlCalls::new(dialect, limits, options)))
    }

    /// Tells the scanner whether non-whitespace text was already emitted before its
    /// first byte (for `calls_at_start_only` when `auto` hands over).
    pub(crate) fn set_text_seen(&mut self, seen: bool) {
        match self {
            TextScanner::Plain(_)
            | TextScanner::Hermes(_)
            | TextScanner::Xml(_)
            | TextScanner::Mistral(_)
            | TextScanner::DeepSeek(_)
            | TextScanner::Harmony(_)
            | TextScanner::Gemma4(_)
            | TextScanner::JsonCalls(_) => {}
            TextScanner::LlamaPythonic(s) => s.set_text_seen(seen),
            TextScanner::LlamaJson(s) => s.set_text_seen(seen),
            TextScanner::Auto(s) => s.set_text_seen(seen),
        }
    }

    /// A pass-through scanner (text only).
    #[allow(dead_code)]
    pub(crate) fn plain() -> Self {
        TextScanner::Plain(Plain::default())
    }

    /// Scans the next bytes of model output.
    #[inline]
    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        match self {
            TextScanner::Plain(p) => p.feed(bytes, calls, out),
            TextScanner::Hermes(s) => s.feed(bytes, calls, out),
            TextScanner::Xml(s) => s.feed(bytes, calls, out),
            TextScanner::Mistral(s) => s.feed(bytes, calls, out),
            TextScanner::DeepSeek(s) => s.feed(bytes, calls, out),
            TextScanner::Harmony(s) => s.feed(bytes, calls, out),
            TextScanner::LlamaPythonic(s) => s.feed(bytes, calls, out),
            TextScanner::LlamaJson(s) => s.feed(bytes, calls, out),
            TextScanner::Auto(s) => s.feed(bytes, calls, out),
            TextScanner::Gemma4(s) => s.feed(bytes, calls, out),
            TextScanner::JsonCalls(s) => s.feed(bytes, calls, out),
        }
    }

    /// End of the text: release what is held, report an unfinished call.
    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        match self {
            TextScanner::Plain(p) => p.finish(calls, out),
            TextScanner::Hermes(s) => s.finish(calls, out),
            TextScanner::Xml(s) => s.finish(calls, out),
            TextScanner::Mistral(s) => s.finish(calls, out),
            TextScanner::DeepSeek(s) => s.finish(calls, out),
            TextScanner::Harmony(s) => s.finish(calls, out),
            TextScanner::LlamaPythonic(s) => s.finish(calls, out),
            TextScanner::LlamaJson(s) => s.finish(calls, out),
            TextScanner::Auto(s) => s.finish(calls, out),
            TextScanner::Gemma4(s) => s.finish(calls, out),
            TextScanner::JsonCalls(s) => s.finish(calls, out),
        }
    }

    /// Bytes held back.
    pub(crate) fn retained(&self) -> usize {
        match self {
            TextScanner::Plain(p) => p.input.held(),
            TextScanner::Hermes(s) => s.retained(),
            TextScanner::Xml(s) => s.retained(),
            TextScanner::Mistral(s) => s.retained(),
            TextScanner::DeepSeek(s) => s.retained(),
            TextScanner::Harmony(s) => s.retained(),
            TextScanner::LlamaPythonic(s) => s.retained(),
            TextScanner::LlamaJson(s) => s.retained(),
            TextScanner::Auto(s) => s.retained(),
            TextScanner::Gemma4(s) => s.retained(),
            TextScanner::JsonCalls(s) => s.retained(),
        }
    }
}

/// Pass-through: text only.
#[derive(Debug, Default)]
pub(crate) struct Plain {
    input: CharInput,
}

impl ReadsChars for Plain {
    fn input(&mut self) -> &mut CharInput {
        &mut self.input
    }

    fn run_chars(&mut self, text: &str, _calls: &mut Calls, out: &mut dyn EventSink) {
        if !text.is_empty() {
            out.event(EventRef::Text { delta: text });
        }
    }
}

impl Plain {
    fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.run_held(calls, out);
    }
}
