//! The recovery rule every text engine keeps (issue 22, step 2): what happens when a
//! model slips. One fixture table, each fixture with the exact events it must give, run
//! whole, byte by byte, at every split point and at random splits, with the DESIGN
//! contract checked on each.
//!
//! The rule, as the fixtures state it:
//!
//! - **(a) An opener ends the open call.** A call-opening marker of the syntax inside an
//!   open call ends that call as a `truncated` error carrying its bytes (from its first
//!   marker byte up to the new marker) and starts the new call; a call never completes
//!   with another call's bytes. A special token (`<|python_tag|>`, `[TOOL_CALLS]`,
//!   `<｜tool▁call▁begin｜>`, `<|tool_call>`, `<|start|>`, ...) is never content: it
//!   ends the call wherever it comes, inside what looks like a JSON string too (and a
//!   closing token inside an unterminated string ends the call as an error, the token
//!   with it). A plain-text marker (`<tool_call>`, `<function=`, `<invoke name=`) ends
//!   the call where the grammar expects structure (between JSON tokens, between XML
//!   parameters, after a broken call), and is content inside a JSON string or an XML
//!   parameter value (an argument may quote markup; a close marker in a string does not
//!   close the call either). A call whose arguments already closed (End emitted) is
//!   complete: an opener after it is simply the next call.
//! - **(b) Nothing dropped from a call object.** A member the syntax does not define
//!   (`"args"`), a duplicate key (`"arguments"` twice) or a repeated parameter is an
//!   error with the raw call, never a silent drop: before the arguments closed, the
//!   call's own error (`unexpected_payload` for a member, `invalid_arguments` for a
//!   repeated parameter or argument key); after they closed (End already emitted), a
//!   `trailing_arguments` error without index.
//! - **(c) A string JSON forbids fails at its byte.** A raw control character in a JSON
//!   string, or a lone surrogate escape, breaks the call there (the valid prefix was
//!   streamed), with the model's bytes of the call in `raw`.
//! - **(d) Literal markers in prose stream on.** Held-back text is released the moment
//!   the bytes after a marker cannot begin a call body.
//! - **(e) Text is the model's bytes.** Whitespace before a marker is text; a malformed
//!   pythonic list's `]` is in the error.
//! - **(f) Lists and tags.** A second `<|python_tag|>` starts the next call; `auto` on a
//!   JSON array emits no bracket text; DeepSeek's fence on the same line as its JSON.
//!
//! Fixtures marked `pending` state the expected events of a slip the engines do not yet
//! recover from: the run still checks the contract and split invariance on them, and
//! fails once an engine gives the expected events, so the mark goes with the fix.

use crate::common::*;
use crate::exact::{Ev, args, call, err, evs, spec_of, start, t};
use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig};

/// One slip: the syntax, what it shows, the model's text, the events it must give, and
/// whether it is still pending (see the module doc).
pub(crate) struct Fx {
    pub(crate) format: &'static str,
    pub(crate) what: &'static str,
    pub(crate) input: String,
    pub(crate) want: Vec<Ev>,
    pub(crate) pending: bool,
}

/// Builds a fixture; `want` is a list of event groups (a `call` is three events).
macro_rules! fx {
    (@pending) => {
        false
    };
    (@pending $p:ident) => {
        true
    };
    ($format:expr, $what:expr, $input:expr, [$($ev:expr),* $(,)?] $(, $pending:ident)? $(,)?) => {{
        let mut want: Vec<$crate::exact::Ev> = Vec::new();
        $( want.extend($crate::rules::recovery::Evs::from($ev).0); )*
        $crate::rules::recovery::Fx {
            format: $format,
            what: $what,
            input: String::from($input),
            want,
            pending: fx!(@pending $($pending)?),
        }
    }};
}

pub(crate) use fx;

/// One event or a call's three, for [`fx!`].
pub(crate) struct Evs(pub(crate) Vec<Ev>);
impl From<Ev> for Evs {
    fn from(e: Ev) -> Self {
        Evs(vec![e])
    }
}
impl From<Vec<Ev>> for Evs {
    fn from(e: Vec<Ev>) -> Self {
        Evs(e)
    }
}

use ErrorKind::{
    InvalidArguments as Bad, TrailingArguments as Trailing, Truncated as Cut,
    UnexpectedPayload as Member,
};

// ---------------------------------------------------------------------------------
// (a) A call-opening marker inside an open call.

fn opener_inside_a_call() -> Vec<Fx> {
    vec![
        fx!(
            "hermes",
            "opener between JSON tokens of the arguments",
            r#"<tool_call>{"name": "f", "arguments": {"a": 1<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<tool_call>{"name": "f", "arguments": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "hermes",
            "opener before the arguments",
            r#"<tool_call>{"name": "f"<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
            [
                start(0, "f"),
                err(Cut, Some(0), r#"<tool_call>{"name": "f""#),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "hermes",
            "opener after the arguments closed, the object not: the call is complete",
            r#"<tool_call>{"name": "f", "arguments": {"a": 1}<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", "{}")],
        ),
        fx!(
            "hermes",
            "opener after a broken call ends the skip",
            r#"<tool_call>{"name": "f", "arguments": {"a": x}}<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "#),
                err(
                    Bad,
                    Some(0),
                    r#"<tool_call>{"name": "f", "arguments": {"a": x}}"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "hermes",
            "a text opener inside a JSON string is content",
            r#"<tool_call>{"name": "f", "arguments": {"a": "x<tool_call>y"}}</tool_call>"#,
            [call(0, "f", r#"{"a": "x<tool_call>y"}"#)]
        ),
        fx!(
            "hermes",
            "a text closer inside a JSON string does not close the call",
            r#"<tool_call>{"name": "f", "arguments": {"a": "x</tool_call>y"}}</tool_call>"#,
            [call(0, "f", r#"{"a": "x</tool_call>y"}"#)]
        ),
        fx!(
            "longcat",
            "opener between JSON tokens",
            r#"<longcat_tool_call>{"name": "f", "arguments": {"a": 1<longcat_tool_call>{"name": "g", "arguments": {}}</longcat_tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<longcat_tool_call>{"name": "f", "arguments": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "nemotron",
            "opener inside a list's call",
            r#"<TOOLCALL>[{"name": "f", "arguments": {"a": 1<TOOLCALL>[{"name": "g", "arguments": {}}]</TOOLCALL>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<TOOLCALL>[{"name": "f", "arguments": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "internlm",
            "special-token opener inside a JSON string",
            r#"<|action_start|><|plugin|>{"name": "f", "arguments": {"a": "x<|action_start|><|plugin|>{"name": "g", "arguments": {}}<|action_end|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|action_start|><|plugin|>{"name": "f", "arguments": {"a": "x"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "mistral",
            "v11: [TOOL_CALLS] between JSON tokens",
            r#"[TOOL_CALLS]f[ARGS]{"a": 1[TOOL_CALLS]g[ARGS]{"b": 2}"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(Cut, Some(0), r#"[TOOL_CALLS]f[ARGS]{"a": 1"#),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "mistral",
            "v11: [TOOL_CALLS] inside a JSON string",
            r#"[TOOL_CALLS]f[ARGS]{"a": "x[TOOL_CALLS]g[ARGS]{"b": 2}"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(Cut, Some(0), r#"[TOOL_CALLS]f[ARGS]{"a": "x"#),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "mistral",
            "v3: a list object left open after its arguments closed",
            r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}[TOOL_CALLS][{"name": "g", "arguments": {}}]"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", "{}")],
        ),
        fx!(
            "mistral",
            "v11: a repeated [TOOL_CALLS], one per call: both calls",
            r#"[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g[ARGS]{"b": 2}"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", r#"{"b": 2}"#)],
        ),
        fx!(
            "mistral",
            "v3: the list form written twice: both calls",
            r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}][TOOL_CALLS][{"name": "g", "arguments": {}}]"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", "{}")],
        ),
        fx!(
            "mistral",
            "v11: brackets and a [TOOL_CALLS] prefix inside a string are content",
            r#"[TOOL_CALLS]f[ARGS]{"a": "[1, [2]] [TOOL_CALL [[TOOL_CALLSx"}"#,
            [call(
                0,
                "f",
                r#"{"a": "[1, [2]] [TOOL_CALL [[TOOL_CALLSx"}"#
            )],
        ),
        fx!(
            "mistral",
            "v11: the text ends inside a string, on a [TOOL_CALLS] prefix",
            r#"[TOOL_CALLS]f[ARGS]{"a": "x[TOOL_CAL"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x[TOOL_CAL"#),
                err(Cut, Some(0), r#"[TOOL_CALLS]f[ARGS]{"a": "x[TOOL_CAL"#),
            ],
        ),
        fx!(
            "internlm",
            "'<' and a token prefix inside a string are content",
            r#"<|action_start|><|plugin|>{"name": "f", "arguments": {"a": "<b> <|action_sta <<|plugin|>"}}<|action_end|>"#,
            [call(0, "f", r#"{"a": "<b> <|action_sta <<|plugin|>"}"#)],
        ),
        fx!(
            "deepseek",
            "'<' and a token prefix inside a string are content",
            r#"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": "a<b <｜tool▁call <<｜tool▁sep｜>"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"#,
            [call(0, "f", r#"{"a": "a<b <｜tool▁call <<｜tool▁sep｜>"}"#)],
        ),
        fx!(
            "kimi-k2",
            "call-begin token inside a JSON string",
            r#"<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": "x<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{"b": 2}<|tool_call_end|><|tool_calls_section_end|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": "x"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "deepseek",
            "call-begin token between JSON tokens",
            r#"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1<｜tool▁call▁begin｜>g<｜tool▁sep｜>{"b": 2}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "deepseek",
            "call-begin token inside a JSON string",
            r#"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": "x<｜tool▁call▁begin｜>g<｜tool▁sep｜>{"b": 2}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Cut,
                    Some(0),
                    r#"<｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": "x"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "kimi-k2",
            "call-begin token between JSON tokens",
            r#"<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{"b": 2}<|tool_call_end|><|tool_calls_section_end|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "harmony",
            "<|start|> inside a call's JSON",
            r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1<|start|>assistant<|channel|>commentary to=functions.g <|constrain|>json<|message|>{"b": 2}<|call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ]
        ),
        fx!(
            "harmony",
            "<|channel|> in a broken call's body",
            r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": x <|channel|>commentary to=functions.g <|constrain|>json<|message|>{}<|call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "#),
                err(
                    Bad,
                    Some(0),
                    r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": x "#
                ),
                call(1, "g", "{}"),
            ]
        ),
        fx!(
            "harmony",
            "<|start|> right after <|message|>: the call had no body",
            r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|><|start|>assistant<|channel|>commentary to=functions.g <|constrain|>json<|message|>{}<|call|>"#,
            [
                start(0, "f"),
                err(
                    Cut,
                    Some(0),
                    r#"<|channel|>commentary to=functions.f <|constrain|>json<|message|>"#
                ),
                call(1, "g", "{}"),
            ]
        ),
        fx!(
            "gemma4",
            "<|tool_call> inside the arguments",
            "<|tool_call>call:f{a:1<|tool_call>call:g{b:1}<tool_call|>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Cut, Some(0), "<|tool_call>call:f{a:1"),
                call(1, "g", r#"{"b":1}"#),
            ],
        ),
        fx!(
            "gemma4",
            "<|tool_call> where a value begins (its <| read as the start of <|\"|>)",
            "<|tool_call>call:f{a:<|tool_call>call:g{b:1}<tool_call|>",
            [
                start(0, "f"),
                args(0, r#"{"a":"#),
                err(Cut, Some(0), "<|tool_call>call:f{a:"),
                call(1, "g", r#"{"b":1}"#),
            ],
        ),
        fx!(
            "gemma4",
            "a missing closing <|\"|>: the close token ends the call, the next one counts",
            r#"<|tool_call>call:f{a:<|"|>x}<tool_call|><|tool_call>call:g{b:1}<tool_call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x}"#),
                err(Bad, Some(0), r#"<|tool_call>call:f{a:<|"|>x}<tool_call|>"#),
                call(1, "g", r#"{"b":1}"#),
            ],
        ),
        fx!(
            "gemma4",
            "<|tool_call> inside a string: the call is cut short there",
            r#"<|tool_call>call:f{a:<|"|>x<|tool_call>call:g{b:1}<tool_call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x"#),
                err(Cut, Some(0), r#"<|tool_call>call:f{a:<|"|>x"#),
                call(1, "g", r#"{"b":1}"#),
            ],
        ),
        fx!(
            "gemma4",
            "'<' and token prefixes inside a string are content",
            r#"<|tool_call>call:f{a:<|"|>1<2 <b> <|" <tool_call| <|tool_cal<<|"|>}<tool_call|>"#,
            [call(
                0,
                "f",
                r#"{"a":"1<2 <b> <|\" <tool_call| <|tool_cal<"}"#
            )],
        ),
        fx!(
            "gemma4",
            "the text ends in a string on a token prefix",
            r#"<|tool_call>call:f{a:<|"|>x<tool_ca"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x<tool_ca"#),
                err(Cut, Some(0), r#"<|tool_call>call:f{a:<|"|>x<tool_ca"#),
            ],
        ),
        fx!(
            "gemma4",
            "a repeated key, once bare and once a string",
            r#"<|tool_call>call:f{a:1,<|"|>a<|"|>:2}<tool_call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Bad,
                    Some(0),
                    r#"<|tool_call>call:f{a:1,<|"|>a<|"|>:2}<tool_call|>"#
                ),
            ],
        ),
        fx!(
            "gemma4",
            "the same key in two nested objects is no repeat",
            "<|tool_call>call:f{a:{k:1},b:{k:2}}<tool_call|>",
            [call(0, "f", r#"{"a":{"k":1},"b":{"k":2}}"#)],
        ),
        fx!(
            "llama-pythonic",
            "<|python_tag|> inside a string",
            r#"[f(a="x<|python_tag|>[g()]"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x"#),
                err(Cut, Some(0), r#"[f(a="x"#),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "llama-pythonic",
            "'<' and a token prefix inside a string are content",
            r#"<|python_tag|>[f(a="1<2 <|python_ta <<|python_end|>", b='<|')]"#,
            [call(
                0,
                "f",
                r#"{"a":"1<2 <|python_ta <<|python_end|>","b":"<|"}"#
            )],
        ),
        fx!(
            "llama-pythonic",
            "the text ends in a string on a token prefix",
            r#"[f(a="x<|python_st"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x<|python_st"#),
                err(Cut, Some(0), r#"[f(a="x<|python_st"#),
            ],
        ),
        fx!(
            "llama-pythonic",
            "<|python_start|> inside a single-quoted string",
            "<|python_start|>[f(a='x<|python_start|>[g()]<|python_end|>",
            [
                start(0, "f"),
                args(0, r#"{"a":"x"#),
                err(Cut, Some(0), "<|python_start|>[f(a='x"),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "lfm2",
            "<|tool_call_start|> inside a string",
            r#"<|tool_call_start|>[f(a="x<|tool_call_start|>[g()]<|tool_call_end|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x"#),
                err(Cut, Some(0), r#"<|tool_call_start|>[f(a="x"#),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "olmo3",
            "a plain-text opener inside a string is content",
            "<function_calls>f(a=\"x<function_calls>y\")</function_calls>",
            [call(0, "f", r#"{"a":"x<function_calls>y"}"#)],
        ),
        fx!(
            "llama-pythonic",
            "<|python_tag|> after a call, the list not closed",
            "<|python_tag|>[f(a=1)<|python_tag|>[g()]",
            [call(0, "f", r#"{"a":1}"#), call(1, "g", "{}")]
        ),
        fx!(
            "llama-json",
            "<|python_tag|> after the arguments closed, the object not",
            r#"<|python_tag|>{"name": "f", "parameters": {"a": 1}<|python_tag|>{"name": "g", "parameters": {}}"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", "{}")],
        ),
        fx!(
            "llama-json",
            "a '<' after the arguments closed that is not the tag: trailing text of the call",
            r#"<|python_tag|>{"name": "f", "parameters": {"a": 1}<|python_t>x"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"<|python_tag|>{"name": "f", "parameters": {"a": 1}<|python_t>x"#
                ),
            ],
        ),
        fx!(
            "llama-json",
            "the text ends on a prefix of the tag after the arguments closed",
            r#"{"name": "f", "parameters": {"a": 1}<|python"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"{"name": "f", "parameters": {"a": 1}<|python"#
                ),
            ],
        ),
        fx!(
            "llama-json",
            "a second <|python_tag|> after code starts a call object",
            r#"<|python_tag|>print(1)<|python_tag|>{"name": "g", "parameters": {}}"#,
            [
                call(0, "code_interpreter", r#"{"code":"print(1)"}"#),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "qwen-xml",
            "a missing </function>: <function= after a parameter",
            "<tool_call><function=f><parameter=a>1</parameter><function=g><parameter=a>2</parameter></function></tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    "<tool_call><function=f><parameter=a>1</parameter>"
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "qwen-xml",
            "a missing </function>: <tool_call> after a parameter",
            "<tool_call><function=f><parameter=a>1</parameter><tool_call><function=g><parameter=a>2</parameter></function></tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    "<tool_call><function=f><parameter=a>1</parameter>"
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "qwen-xml",
            "a missing </parameter>: <function= in a value is content, the repeated parameter an error",
            "<tool_call><function=f><parameter=a>1<function=g><parameter=a>2</parameter></function></tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":"1<function=g>""#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call><function=f><parameter=a>1<function=g><parameter=a>2</parameter></function></tool_call>"
                ),
            ],
        ),
        fx!(
            "seed-oss",
            "a missing </function>",
            "<seed:tool_call><function=f><parameter=a>1</parameter><function=g><parameter=a>2</parameter></function></seed:tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    "<seed:tool_call><function=f><parameter=a>1</parameter>"
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "glm",
            "a missing </tool_call>",
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<tool_call>g\n<arg_key>a</arg_key>\n<arg_value>2</arg_value>\n</tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n"
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
    ]
}

// ---------------------------------------------------------------------------------
// (b) Members the syntax does not define, duplicate keys, repeated parameters.

fn undefined_and_repeated_members() -> Vec<Fx> {
    vec![
        fx!(
            "hermes",
            "an undefined member instead of the arguments",
            r#"<tool_call>{"name": "delete_files", "args": {"p": 1}}</tool_call>"#,
            [
                start(0, "delete_files"),
                err(
                    Member,
                    Some(0),
                    r#"<tool_call>{"name": "delete_files", "args": {"p": 1}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "hermes",
            "a duplicate \"arguments\" after the first closed",
            r#"<tool_call>{"name": "f", "arguments": {"a": 1}, "arguments": {"a": 2}}</tool_call>"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"<tool_call>{"name": "f", "arguments": {"a": 1}, "arguments": {"a": 2}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "hermes",
            "\"parameters\" after \"arguments\" is a duplicate",
            r#"<tool_call>{"name": "f", "arguments": {"a": 1}, "parameters": {}}</tool_call>"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"<tool_call>{"name": "f", "arguments": {"a": 1}, "parameters": {}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "hermes",
            "a duplicate name before the arguments",
            r#"<tool_call>{"name": "f", "name": "g", "arguments": {}}</tool_call>"#,
            [
                start(0, "f"),
                err(
                    Member,
                    Some(0),
                    r#"<tool_call>{"name": "f", "name": "g", "arguments": {}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "granite",
            "an undefined member",
            r#"<tool_call>{"name": "f", "args": {"p": 1}}</tool_call>"#,
            [
                start(0, "f"),
                err(
                    Member,
                    Some(0),
                    r#"<tool_call>{"name": "f", "args": {"p": 1}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "command-r",
            "a duplicate \"parameters\"",
            r#"<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1}, "parameters": {"a": 2}}]<|END_ACTION|>"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1}, "parameters": {"a": 2}}]<|END_ACTION|>"#
                ),
            ],
        ),
        fx!(
            "apertus",
            "a second name key",
            r#"<|tools_prefix|>[{"f": {"a": 1}, "g": {}}]<|tools_suffix|>"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"<|tools_prefix|>[{"f": {"a": 1}, "g": {}}]<|tools_suffix|>"#
                ),
            ],
        ),
        fx!(
            "mistral",
            "v3: an undefined member after the arguments",
            r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}, "args": {}}]"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}, "args": {}}"#
                ),
            ],
        ),
        fx!(
            "llama-json",
            "an undefined member after the arguments",
            r#"{"name": "f", "parameters": {"a": 1}, "args": {}}"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"{"name": "f", "parameters": {"a": 1}, "args": {}}"#
                ),
            ],
        ),
        fx!(
            "llama-json",
            "an undefined member instead of the arguments",
            r#"{"name": "f", "args": {"a": 1}}"#,
            [
                start(0, "f"),
                err(Member, Some(0), r#"{"name": "f", "args": {"a": 1}}"#),
            ],
        ),
        fx!(
            "qwen-xml",
            "a repeated parameter",
            "<tool_call><function=f><parameter=a>1</parameter><parameter=a>2</parameter></function></tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call><function=f><parameter=a>1</parameter><parameter=a>2</parameter></function></tool_call>"
                ),
            ],
        ),
        fx!(
            "glm",
            "a repeated key",
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>a</arg_key>\n<arg_value>2</arg_value>\n</tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>a</arg_key>\n<arg_value>2</arg_value>\n</tool_call>"
                ),
            ],
        ),
        fx!(
            "gemma4",
            "a repeated key",
            "<|tool_call>call:f{a:1,a:2}<tool_call|>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Bad, Some(0), "<|tool_call>call:f{a:1,a:2}<tool_call|>"),
            ],
        ),
        fx!(
            "lfm2",
            "a repeated keyword argument",
            "<|tool_call_start|>[f(a=1, a=2)]<|tool_call_end|>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Bad, Some(0), "<|tool_call_start|>[f(a=1, a=2)]"),
            ]
        ),
        fx!(
            "llama-pythonic",
            "a repeated keyword argument",
            "[f(a=1, a=2)]",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Bad, Some(0), "[f(a=1, a=2)]"),
            ]
        ),
    ]
}

// ---------------------------------------------------------------------------------
// (c) Strings JSON forbids fail at the byte.

fn forbidden_strings() -> Vec<Fx> {
    vec![
        fx!(
            "hermes",
            "a raw tab in a string",
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ty\"}}</tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ty\"}}</tool_call>"
                ),
            ],
        ),
        fx!(
            "hermes",
            "a raw newline in a string, text after the call",
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ny\"}}</tool_call> after",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ny\"}}</tool_call>"
                ),
                t(" after"),
            ],
        ),
        fx!(
            "hermes",
            "a lone high surrogate",
            r#"<tool_call>{"name": "f", "arguments": {"a": "\ud800"}}</tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "\ud800"#),
                err(
                    Bad,
                    Some(0),
                    r#"<tool_call>{"name": "f", "arguments": {"a": "\ud800"}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "hermes",
            "a lone low surrogate",
            r#"<tool_call>{"name": "f", "arguments": {"a": "\udc00"}}</tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "\udc0"#),
                err(
                    Bad,
                    Some(0),
                    r#"<tool_call>{"name": "f", "arguments": {"a": "\udc00"}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "hermes",
            "a surrogate pair is fine",
            r#"<tool_call>{"name": "f", "arguments": {"a": "\ud83d\ude00"}}</tool_call>"#,
            [call(0, "f", r#"{"a": "\ud83d\ude00"}"#)]
        ),
        fx!(
            "command-r",
            "a raw tab in a string (a broken list call is skipped to the close marker)",
            "<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": \"x\ty\"}}]<|END_ACTION|>",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": \"x\ty\"}}]<|END_ACTION|>"
                ),
            ],
        ),
        fx!(
            "mistral",
            "v11: a raw tab in a string",
            "[TOOL_CALLS]f[ARGS]{\"a\": \"x\ty\"} after",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(Bad, Some(0), "[TOOL_CALLS]f[ARGS]{\"a\": \"x\ty\"}"),
                t(" after"),
            ],
        ),
        fx!(
            "deepseek",
            "a raw tab in a string",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": \"x\ty\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": \"x\ty\"}<｜tool▁call▁end｜>"
                ),
            ],
        ),
        fx!(
            "llama-json",
            "a raw tab in a string",
            "{\"name\": \"f\", \"parameters\": {\"a\": \"x\ty\"}}",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "{\"name\": \"f\", \"parameters\": {\"a\": \"x\ty\"}}"
                ),
            ],
        ),
    ]
}

// ---------------------------------------------------------------------------------
// (d) Literal markers in prose, (e) the model's bytes as text, (f) lists and tags.

pub(crate) const PROSE: &str = "Use a literal <tool_call> tag in prose and keep talking.";

fn text_release() -> Vec<Fx> {
    vec![
        fx!(
            "hermes",
            "a literal <tool_call> in prose (vllm#22975)",
            PROSE,
            [t(PROSE)],
        ),
        fx!(
            "qwen-xml",
            "a literal <tool_call> in prose",
            PROSE,
            [t(PROSE)],
        ),
        fx!(
            "granite",
            "a literal <tool_call> in prose",
            PROSE,
            [t(PROSE)],
        ),
        fx!(
            "nemotron",
            "a literal <TOOLCALL> in prose",
            "Use a literal <TOOLCALL> tag in prose.",
            [t("Use a literal <TOOLCALL> tag in prose.")],
        ),
        fx!(
            "gemma4",
            "a literal <|tool_call> in prose",
            "Use a literal <|tool_call> tag.",
            [t("Use a literal <|tool_call> tag.")],
        ),
        fx!(
            "hermes",
            "whitespace before a marker is text",
            "A  \n\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
            [t("A  \n\n"), call(0, "f", "{}")],
        ),
        fx!(
            "hermes",
            "whitespace after a call is text",
            "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n\nB",
            [call(0, "f", "{}"), t("\n\nB")]
        ),
        fx!(
            "qwen-xml",
            "whitespace before a marker is text",
            "A \n<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
            [t("A \n"), call(0, "f", r#"{"a":1}"#)],
        ),
        fx!(
            "mistral",
            "whitespace before a marker is text",
            "A \n[TOOL_CALLS]f[ARGS]{\"a\": 1}",
            [t("A \n"), call(0, "f", r#"{"a": 1}"#)],
        ),
        fx!(
            "gemma4",
            "whitespace before a marker is text",
            "A  \n<|tool_call>call:f{a:1}<tool_call|> B",
            [t("A  \n"), call(0, "f", r#"{"a":1}"#), t(" B")],
        ),
        fx!(
            "command-r",
            "whitespace before a marker is text",
            "A \n<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": 1}}]<|END_ACTION|>",
            [t("A \n"), call(0, "f", r#"{"a": 1}"#)],
        ),
        fx!(
            "deepseek",
            "text between calls keeps its spaces; a fence on the JSON's line",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json {\"a\": 1}```<｜tool▁call▁end｜> B <｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{\"b\": 2}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            [
                call(0, "f", r#"{"a": 1}"#),
                t(" B "),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "deepseek",
            "a fence on its own lines (today's shape)",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{\"b\": 2}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", r#"{"b": 2}"#)]
        ),
        fx!(
            "llama-pythonic",
            "a malformed list's ] is in the error",
            "[f(a=1), g(b=]",
            [
                call(0, "f", r#"{"a":1}"#),
                start(1, "g"),
                args(1, r#"{"b":"#),
                err(Bad, Some(1), "g(b=]"),
            ]
        ),
        fx!(
            "llama-pythonic",
            "a second <|python_tag|> starts the next list",
            "<|python_tag|>[f()]<|python_tag|>[g()]",
            [call(0, "f", "{}"), call(1, "g", "{}")]
        ),
        fx!(
            "llama-pythonic",
            "a second <|python_tag|> after whitespace: the whitespace is text",
            "<|python_tag|>[f()] \n<|python_tag|>[g()]<|python_end|>",
            [call(0, "f", "{}"), t(" \n"), call(1, "g", "{}")]
        ),
        fx!(
            "lfm2",
            "a second <|tool_call_start|> before the first list's close token",
            "<|tool_call_start|>[f()]<|tool_call_start|>[g()]<|tool_call_end|>",
            [call(0, "f", "{}"), call(1, "g", "{}")]
        ),
        fx!(
            "lfm2",
            "a malformed list's ] is in the error",
            "<|tool_call_start|>[f(a=1), g(b=]<|tool_call_end|>",
            [
                call(0, "f", r#"{"a":1}"#),
                start(1, "g"),
                args(1, r#"{"b":"#),
                err(Bad, Some(1), "g(b=]"),
            ]
        ),
        fx!(
            "llama-json",
            "a second <|python_tag|> starts the next code call",
            "<|python_tag|>[f()]<|python_tag|>[g()]",
            [
                call(0, "code_interpreter", r#"{"code":"[f()]"}"#),
                call(1, "code_interpreter", r#"{"code":"[g()]"}"#),
            ],
        ),
        fx!(
            "auto",
            "a JSON call array: no bracket text",
            r#"[{"name": "f", "parameters": {}}, {"name": "g", "parameters": {}}]"#,
            [call(0, "f", "{}"), call(1, "g", "{}")],
        ),
        fx!(
            "auto",
            "a JSON array that holds no call is text",
            r#"See [1, {"a": 2}] and [ {"names": "x"}]."#,
            [t(r#"See [1, {"a": 2}] and [ {"names": "x"}]."#)]
        ),
        fx!(
            "auto",
            "text before a JSON call array",
            r#"Calling: [{"name": "f", "parameters": {"a": 1}}]"#,
            [t("Calling: "), call(0, "f", r#"{"a": 1}"#)]
        ),
        fx!(
            "llama-json",
            "a JSON call array",
            r#"[{"name": "f", "parameters": {}}, {"name": "g", "parameters": {}}]"#,
            [call(0, "f", "{}"), call(1, "g", "{}")]
        ),
    ]
}

// ---------------------------------------------------------------------------------
// The slips above in the syntaxes of issue 22's step 4 (DSML V4.1, the doubled-bar leak,
// DSML JSON bodies, Kimi K3's XTML).

fn new_syntaxes() -> Vec<Fx> {
    vec![]
}

// ---------------------------------------------------------------------------------
// The syntaxes of issue 22 step 4 from branch `syntaxes` (their own files:
// tests/text/<family>/<syntax>.rs).

fn new_syntaxes_json_and_hy() -> Vec<Fx> {
    vec![
        fx!(
            "gigachat3",
            "3.1: opener between JSON tokens",
            r#"<|function_call|>{"name": "f", "arguments": {"a": 1<|function_call|>{"name": "g", "arguments": {}}"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|function_call|>{"name": "f", "arguments": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: special-token opener inside a JSON string",
            r#"<|function_call|>{"name": "f", "arguments": {"a": "x<|function_call|>{"name": "g", "arguments": {}}"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|function_call|>{"name": "f", "arguments": {"a": "x"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: an undefined member instead of the arguments",
            r#"<|function_call|>{"name": "delete_files", "args": {"p": 1}}</s>"#,
            [
                start(0, "delete_files"),
                err(
                    Member,
                    Some(0),
                    r#"<|function_call|>{"name": "delete_files", "args": {"p": 1}}"#
                ),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: a duplicate \"arguments\"",
            r#"<|function_call|>{"name": "f", "arguments": {"a": 1}, "arguments": {"a": 2}}"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"<|function_call|>{"name": "f", "arguments": {"a": 1}, "arguments": {"a": 2}}"#
                ),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: a raw tab in a string",
            "<|function_call|>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ty\"}}</s>",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<|function_call|>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ty\"}}"
                ),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: whitespace before the marker is text",
            "A  \n<|function_call|>{\"name\": \"f\", \"arguments\": {}}</s>",
            [t("A  \n"), call(0, "f", "{}")],
        ),
        fx!(
            "hy-v4",
            "a call tag between the parameters of an unclosed call",
            "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value><tool_call>g<arg_key>b</arg_key><arg_value>2</arg_value></tool_call></tool_calls>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value>"
                ),
                call(1, "g", r#"{"b":2}"#),
            ],
        ),
        fx!(
            "command-r",
            "cmd4: an opener inside an action's arguments, after <|START_TEXT|>",
            r#"<|START_TEXT|>See doc.<|END_TEXT|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1<|START_ACTION|>[{"tool_call_id": "1", "tool_name": "g", "parameters": {}}]<|END_ACTION|>"#,
            [
                t("See doc."),
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "granite",
            "3.1: opener between JSON tokens of a list's call",
            r#"<tool_call>[{"name": "f", "arguments": {"a": 1<tool_call>[{"name": "g", "arguments": {}}]"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<tool_call>[{"name": "f", "arguments": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "granite",
            "3.1: an undefined member in a list's call, the next call counts",
            r#"<tool_call>[{"name": "delete_files", "args": {"p": 1}}, {"name": "g", "arguments": {}}]"#,
            [
                start(0, "delete_files"),
                err(
                    Member,
                    Some(0),
                    r#"<tool_call>[{"name": "delete_files", "args": {"p": 1}}"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "granite",
            "3.1: a duplicate \"arguments\"",
            r#"<tool_call>[{"name": "f", "arguments": {"a": 1}, "arguments": {"a": 2}}]"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"<tool_call>[{"name": "f", "arguments": {"a": 1}, "arguments": {"a": 2}}"#
                ),
            ],
        ),
        fx!(
            "granite",
            "3.1: a raw newline in a string",
            "<tool_call>[{\"name\": \"f\", \"arguments\": {\"a\": \"x\ny\"}}] after",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call>[{\"name\": \"f\", \"arguments\": {\"a\": \"x\ny\"}}"
                ),
                // The list goes on after the skipped call: its `]` ends it.
                t(" after"),
            ],
        ),
        fx!(
            "granite",
            "3.1: whitespace before the marker is text",
            "A \n<tool_call>[{\"name\": \"f\", \"arguments\": {}}]",
            [t("A \n"), call(0, "f", "{}")],
        ),
    ]
}

fn all() -> Vec<Fx> {
    let mut v = opener_inside_a_call();
    v.extend(undefined_and_repeated_members());
    v.extend(forbidden_strings());
    v.extend(text_release());
    v.extend(new_syntaxes());
    v.extend(new_syntaxes_json_and_hy());
    // The rows each syntax's own file holds (its family's `RECOVERY`).
    for family in [
        crate::json::RECOVERY,
        crate::xml::RECOVERY,
        crate::sections::RECOVERY,
        crate::pythonic::RECOVERY,
        crate::gemma::RECOVERY,
    ] {
        for rows in family {
            v.extend(rows());
        }
    }
    v
}

/// Runs one fixture at every chunking; `Ok(true)` when it gives its expected events.
///
/// A format that can be written as a spec runs from its spec too and must give the same
/// events (ids and messages included).
fn run(fx: &Fx) -> bool {
    let f: Format = fx.format.parse().expect("format name");
    let make = move || parser(f);
    let got = assert_split_invariant(&make, fx.input.as_bytes(), 40);
    if let Some(syntax) = spec_of(f) {
        let via = assert_split_invariant(
            &|| Parser::with_syntax(syntax.clone(), ParserConfig::new()),
            fx.input.as_bytes(),
            8,
        );
        assert_eq!(via, got, "{} (spec) — {}", fx.format, fx.what);
    }
    evs(&got) == fx.want
}

#[test]
fn every_slip_gives_its_expected_events_at_every_chunking() {
    let mut wrong = Vec::new();
    let mut fixed = Vec::new();
    for fx in all() {
        let label = format!("{} — {}", fx.format, fx.what);
        let ok = std::panic::catch_unwind(|| run(&fx))
            .unwrap_or_else(|_| panic!("{label}: contract or split invariance broken"));
        match (ok, fx.pending) {
            (false, false) => {
                let f: Format = fx.format.parse().unwrap();
                let got = evs(&run_whole(&move || parser(f), fx.input.as_bytes()));
                wrong.push(format!("{label}\n  want {:?}\n  got  {got:?}", fx.want));
            }
            (true, true) => fixed.push(label),
            (false, true) if std::env::var_os("RECOVERY_SHOW").is_some() => {
                let f: Format = fx.format.parse().unwrap();
                let got = evs(&run_whole(&move || parser(f), fx.input.as_bytes()));
                eprintln!("PENDING {label}\n  want {:?}\n  got  {got:?}", fx.want);
            }
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        fixed.is_empty(),
        "now recovered, remove their `pending` mark: {fixed:#?}"
    );
}

/// Every fixture's expected events keep the DESIGN contract themselves (a fixture cannot
/// ask for an impossible stream), and say where every input byte went: text, a call's
/// raw bytes or its arguments, or the syntax's markers.
#[test]
fn the_expected_events_keep_the_contract() {
    for fx in all() {
        let events: Vec<Event> = fx
            .want
            .iter()
            .map(|e| match e.clone() {
                Ev::Text(delta) => Event::Text { delta },
                Ev::Reasoning(delta) => Event::Reasoning { delta },
                Ev::Start(index, name) => Event::ToolCallStart {
                    index,
                    id: format!("call_{index}"),
                    name,
                },
                Ev::Args(index, delta) => Event::ToolCallArgs { index, delta },
                Ev::End(index, name, arguments) => Event::ToolCallEnd {
                    index,
                    id: format!("call_{index}"),
                    name,
                    arguments,
                },
                Ev::Error(kind, index, raw) => Event::Error {
                    path: None,
                    kind,
                    message: String::new(),
                    index,
                    raw,
                },
            })
            .collect();
        check_contract(&events);
        for e in &fx.want {
            if let Ev::Error(_, _, raw) | Ev::Text(raw) = e {
                assert!(
                    fx.input.contains(raw.as_str()),
                    "{} — {}: {raw:?} is not the model's bytes",
                    fx.format,
                    fx.what
                );
            }
        }
    }
}

/// A literal marker in prose is text before the input ends: nothing waits for `finish`.
#[test]
fn a_literal_marker_in_prose_streams_before_the_end() {
    let prose = |f: &str| match f {
        "nemotron" => PROSE.replace("<tool_call>", "<TOOLCALL>"),
        _ => PROSE.to_owned(),
    };
    for (format, pending) in [
        ("hermes", false),
        ("qwen-xml", false),
        ("granite", false),
        ("nemotron", false),
    ] {
        let f: Format = format.parse().unwrap();
        let mut p = parser(f);
        let mut out = Vec::new();
        let input = prose(format);
        p.feed(input.as_bytes(), &mut out).unwrap();
        assert_eq!(text(&out) == input, !pending, "{format}: {out:?}");
    }
}

/// No fixture table leaves a text engine out: each family appears.
#[test]
fn the_fixtures_cover_every_engine_family() {
    let formats: Vec<&str> = all().iter().map(|f| f.format).collect();
    for f in [
        "hermes",
        "granite",
        "command-r",
        "nemotron",
        "longcat",
        "internlm",
        "apertus",
        "mistral",
        "deepseek",
        "kimi-k2",
        "harmony",
        "gemma4",
        "llama-pythonic",
        "llama-json",
        "auto",
        "qwen-xml",
        "seed-oss",
        "glm",
        "minimax",
        "deepseek-dsml",
        "kimi-k3",
        "minimax-m3",
    ] {
        assert!(formats.contains(&f), "{f} has no recovery fixture");
        let _: Format = f.parse().unwrap();
    }
    let _ = Parser::new(Format::Hermes);
}
