//! [`TextOptions`]: what the parser's options tell the text scanners (reasoning tags,
//! declared tools and names, calls at the start only).

use crate::text::kit::reasoning::ReasoningOptions;

/// Options of the marker-less scanners (set with [`ParserConfig::tool_names`] and
/// [`ParserConfig::calls_at_start_only`]).
///
/// [`ParserConfig::tool_names`]: crate::ParserConfig::tool_names
/// [`ParserConfig::calls_at_start_only`]: crate::ParserConfig::calls_at_start_only
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TextOptions {
    /// Reasoning tags (all text scanners).
    pub(crate) reasoning: ReasoningOptions,
    /// Only these names make a call header; any other name is text. `None`: any name.
    pub(crate) tool_names: Option<Vec<String>>,
    /// A marker-less call must come before any non-whitespace text.
    pub(crate) calls_at_start_only: bool,
    /// Without `tool_names`, only the names declared in `tools` make a call header
    /// (`ParserConfig::reject_undeclared`, on by default).
    pub(crate) narrow_to_tools: bool,
    /// The request's declared tools (`ParserConfig::tools`): parameter value kinds for the
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

    /// Whether `tool` is among the declared tools (so its schema, if any, types its
    /// values).
    pub(crate) fn declares(&self, tool: &str) -> bool {
        self.tools.as_ref().is_some_and(|t| t.is_declared(tool))
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
