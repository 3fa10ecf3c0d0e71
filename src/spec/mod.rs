//! Syntaxes as data: a tool-call syntax read from a spec file instead of written in Rust.
//!
//! A spec is transformers' `response_template` (the declarative "Response Parsing"
//! format checkpoints ship in `tokenizer_config.json`, read by vLLM and SGLang too),
//! with a sibling `toolstream` object for what that format cannot express. A [`Syntax`]
//! is read from any of three inputs:
//!
//! - a bare `response_template` object: `{"version": 1, "fields": {..}, ..}`;
//! - a checkpoint's `tokenizer_config.json` holding one under `"response_template"`
//!   (its other keys are the tokenizer's and are not read);
//! - ours: `{"response_template": {..}, "toolstream": {..}}`, what
//!   [`Syntax::to_json`] and `toolstream spec NAME` write.
//!
//! A syntax is compiled onto one of the crate's streaming engines, so a parser built
//! from it ([`Parser::with_syntax`](crate::Parser::with_syntax)) keeps every guarantee
//! of a built-in format (Start the byte the name settles, argument deltas that are the
//! model's own bytes, split invariance, limits) and costs the same per byte as the
//! built-in it equals. Reading is strict: an unknown key, a wrong type, or something
//! the engines cannot do is a [`SpecError`] naming the key
//! (`fields.tool_calls.close_pattern: ...`), never a parser that silently reads
//! something else.
//!
//! # What is read
//!
//! | `response_template` | toolstream |
//! | --- | --- |
//! | `version` | must be `1` |
//! | `defaults` | an object; not used (it fills transformers' output message) |
//! | `start_anchor` | a literal or a list: when the input begins with one, it is skipped (a server that echoes the prompt's end); otherwise the input is the model's output from its first byte |
//! | `start_anchor_pattern`, `open_pattern`, `close_pattern` | regular expressions (Python `re` syntax, `re.DOTALL`; see [`scan::pattern`](crate::scan::pattern) for what a DFA can run): a spec with one runs on the regions engine (below); `start_anchor_pattern` is skipped when the input begins with a match |
//! | `fields.tool_calls` | the calls (a template without it, reasoning and text only, runs on the regions engine): `content` `json` (JSON call objects after a marker, the engine of `hermes`; with `content_args` `unquoted_keys` and `string_delims`, bare-key objects, the engine of `gemma4`: below; with `toolstream.engine` `"sections"`, special-token sections, the engine of `deepseek`: below), `xml-inline` (XML parameters, the engine of `qwen-xml`; its markers in `toolstream.xml`) or `python-call-list` (the engine of `lfm2`: below) |
//! | `fields.thinking` (or `reasoning`, `reasoning_content`) | `open` / `close` literals: a reasoning tag pair |
//! | `fields.content` | the visible text; its `open` / `close` literals are tokens dropped from the text (`<\|im_end\|>`) |
//! | any other field | an error: no event carries it |
//! | `join` | a string, with `repeats: true`; on the regions engine it is emitted between a field's regions (before the second region's bytes, ...), so the events' text is transformers' joined value; on the literal engines the events carry each region's own bytes |
//!
//! # What the content is: bytes outside every region
//!
//! The template defines what content is, as transformers' `parse_response` reads it. A
//! field without an `open` (at most one; here it can only be `content`) is the leftover
//! text: every byte outside the other fields' regions is its, and is text. When every
//! field has an open (`<|START_RESPONSE|>`, `<|channel|>final<|message|>`,
//! `<response>\n`), the bytes outside every region are no field's and are **dropped**, as
//! transformers drops them: Cohere's `<|END_OF_TURN_TOKEN|>`, ERNIE's `</s>` and the
//! newlines between its blocks, gpt-oss's `<|start|>assistant` between channels,
//! Inkling's `<|content_model_end_sampling|>`; with no `content` field at all (a
//! calls-only template), the text around the calls. Such a template (one with no
//! `toolstream` object but its name, as transformers and TRL write them) runs on the
//! regions engine, which reads literal delimiters too; with calls that engine cannot read
//! (`python-call-list`, the gemma engine's) it stays on its literal engine, where those
//! bytes are text. The `content` field's own delimiters are consumed either way.
//!
//! Where the events still differ from `parse_response`'s message: transformers strips a
//! text value (`content_args.strip`, default `true`), the events carry the region's bytes
//! with their whitespace; a field without `repeats` keeps only its last region's value in
//! transformers (text, a tool call, text: `content` is the second text), the events carry
//! every region; a JSON string holding the close delimiter ends the region in
//! transformers, here it is string content. `tests/spec/` checks 48 outputs of 20 real
//! templates (transformers' tests and serve fallbacks, TRL's) against what
//! `parse_response` returns, at every chunking.
//!
//! For `json` calls, the `transform` says where the name and arguments are in each call
//! object: `{"type": "function", "function": "{content}"}` (`name` / `arguments`), or
//! `{"type": "function", "function": {"name": "{content.K}", "arguments": "{content.A}"}}`,
//! or with `transform_each` (the content is a list of calls, or one call)
//! `{"type": "function", "function": {"name": "{K}", "arguments": "{A}"}}`. A string
//! under `id`, `tool_call_id` or `call_id` before the name is the call id; any other
//! member is an error with the raw call (transformers ignores members its transform
//! does not name; here an undefined member is never silently dropped). Without
//! `toolstream.keys`, a member the transform names must be one known chat templates use
//! (name: `name`, `tool_name`, `function_name`, `tool`; arguments: `arguments`,
//! `parameters`, `args`, `input`, `params`): a typo (`{content.tol}`) is an error when the
//! spec loads, naming the key, not a parser that fails every call; a syntax whose calls
//! use another member lists it in `toolstream.keys`. `repeats` and `optional` are
//! accepted; calls always repeat and are always optional here.
//!
//! # Pattern delimiters
//!
//! A spec with a regular-expression delimiter (or `xml-inline` calls with
//! `content_args.tag_pattern` and no `toolstream.xml`) runs on the regions engine
//! (`src/spec/regions.rs`): one streaming matcher finds every field's open (outside), a text
//! field's close (inside it), a call's close and the call open (inside a call), holding
//! bytes only while a match may still start there, so the events are the same at every
//! split. Its calls are:
//!
//! - `json` with `{"type": "function", "function": {"name": "{G}", "arguments":
//!   "{content}"}}`, `G` a named group of the `open_pattern`: the name is the group's
//!   bytes, the body the arguments value (gpt-oss's `commentary to=functions\.(?P<name>\w+)`);
//! - `json` with `"{content}"` or `{"name": "{content.K}", "arguments": "{content.A}"}`:
//!   a call object, as on the literal engine; with `transform_each` and `{"name": "{K}",
//!   "arguments": "{A}"}`, a list of call objects (Cohere's `<|START_ACTION|>[..]`; a
//!   lone object is read too), each call streamed as it closes, a nameless one an error
//!   with its bytes;
//! - `xml-inline` with `content_args.tag_pattern` (groups `key` and `value`, one
//!   parameter per match; `value_parser` `{"name": "json"}`: a value that parses as JSON
//!   is JSON, else the string without its surrounding whitespace, and with `args.string_delims`
//!   `[[Q, Q2], ..]` each `Q...Q2` is a JSON string first (TRL's LFM 2.5 template:
//!   `city='Paris'` is `"Paris"`); `"text"`: the string without its surrounding
//!   whitespace; no value parser: the bytes) and the name from a group of the
//!   `open_pattern` (transformers' Qwen 3 template); a repeated parameter is an error
//!   with the raw call.
//!
//! A close, or the call open, that matches while the call's JSON is inside a string is
//! string content; outside a string a close ends the call (complete if its value
//! closed, else an error with its raw bytes) and another call's open ends it the same
//! way and starts the new call. A `content` field with an open is a text region whose
//! delimiters are consumed; its closes without an open are dropped from the text.
//! A pattern may end in a lookahead, `X(?=Y)` (TRL's Nemotron 3 reasoning opens with
//! `(?=[\s\S]*?</think>)`: where a `</think>` is still to come): the match is X's, and
//! the bytes up to the end of Y's match are held until it is known (see
//! [`scan::pattern`](crate::scan::pattern)).
//! `toolstream` takes only `name` here. Reasoning options of [`ParserConfig`](crate::ParserConfig)
//! (`reasoning_open`, ...) do not apply: the spec's fields say where reasoning is.
//!
//! # Bare keys and string tokens (the gemma engine)
//!
//! A `json` calls field with `content_args` `{"unquoted_keys": true, "string_delims":
//! [[Q, Q]]}` (one token, the same for open and close, beginning with `<` and holding no
//! other `<`), an `open_pattern` `<MARKER>call:(?P<G>\w+)` (the marker a literal, its
//! metacharacters escaped), one `close` literal and the transform `{"type": "function",
//! "function": {"name": "{G}", "arguments": "{content}"}}` runs on the engine of `gemma4`
//! and `functiongemma` (`src/text/gemma/`): transformers' Gemma 4 template is such a spec,
//! and `toolstream spec gemma4` prints one (with `toolstream.engine` `"gemma"`). Its other
//! fields are read as on the literal engines. What the engine reads beyond transformers'
//! rewrite (keys after whitespace, names with `.`, `:` or `-`, the bare `<|tool_call>:NAME{`
//! opener; a close marker inside a string is string content) is in `src/spec/lax.rs`. Any
//! other use of `unquoted_keys` / `string_delims` is an error naming the key (bare keys
//! with JSON strings, two different delimiters, `allow_non_json: true`). A
//! `close_pattern` that spells literals, `A`, `A|B` or `(?:A|B)` with an optional
//! trailing `\s*` (TRL writes every close as `<tool_call\|>\s*`), is read as those
//! literals there (on every field); the whitespace the `\s*` would consume is text.
//!
//! # Pythonic call lists (the pythonic engine)
//!
//! A `python-call-list` calls field (`open` / `close` literals, `transform_each: true`,
//! `{"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}}`,
//! as transformers.js' LFM template) runs on the engine of `llama-pythonic`, `lfm2` and
//! `olmo3` (`src/text/pythonic/`), with `toolstream.pythonic` `{"bare_list": true}` when a
//! bare `[` opens a list too and `{"bracketless": true}` for one call per line after the
//! token. The engine streams each call (Start at its `(`); a broken call is an error with
//! its bytes and the calls around it stand (transformers' parser fails the list). Its
//! reasoning field and the `content` field's end tokens are read as on the other engines
//! (they must begin with `<`: the engine reads its text up to each `<` or `[`), so
//! transformers.js' LFM template loads as written and is `lfm2`'s spec. `src/spec/pylist.rs` says
//! what differs from transformers' parser.
//!
//! # Special-token sections (the sections engine)
//!
//! With `toolstream.engine` `"sections"` a spec runs on the engine of `deepseek` and
//! `kimi-k2` (`src/text/sections/`): a section token around the calls, per call a begin
//! token, a head (the name, or the model's own call id), a separator, the JSON arguments
//! and an end token. The tokens are in `toolstream.sections` (`calls_begin`,
//! `calls_end`, `call_begin`, `sep`, `call_end`, `head` `"deepseek"` or `"kimi-id"`,
//! `calls_end_reasoning`, `label`: the table below); `fields.content.close` lists the
//! dropped tokens (the two section tokens and the end-of-turn ones) and the reasoning
//! field the reasoning tags, as for the other engines. The `tool_calls` field is what
//! transformers runs: an `open_pattern` whose named group `name` (and, for `kimi-id`,
//! `id`) is the head, a `close_pattern` with the optional fence, `content` `json` and the
//! transform `{"type": "function", "function": {"name": "{name}", "arguments":
//! "{content}"}}` (`kimi-id`: with `"id": "{id}"`), or the literals `open` =
//! `call_begin` and `close` = `call_end` (a hand-written spec). Here the key
//! `toolstream.engine` decides: the patterns are not compiled (a pattern would otherwise
//! send the spec to the regions engine) but checked to be the ones written for the
//! tokens, so the spec never says one thing to transformers and another here.
//! `toolstream spec deepseek` prints one; `src/spec/sections.rs` has the details.
//!
//! The `toolstream` object (every key optional):
//!
//! | key | what |
//! | --- | --- |
//! | `name` | the syntax's name, for messages |
//! | `engine` | `"json"`, `"xml"`, `"gemma"`, `"pythonic"` or `"sections"`; must agree with `fields.tool_calls.content` (and `"gemma"` with its `content_args`); `"sections"` takes `json` calls and is never inferred |
//! | `pythonic` | pythonic engine: `{"bare_list": bool, "bracketless": bool}` (both default `false`) |
//! | `openers` | JSON engine: `[{"open": "<\|tool_call\|>", "close": null, "payload": "either"}, ..]`, one per call-opening marker, each with its own close marker (`null`: none; the call ends where its JSON value does) and payload (`object`; `either`: a list of calls or one; `either-open-array`: as `either`, but a list's close marker is optional and a broken call in it is skipped to its balancing bracket, as granite's `<tool_call>[..]`; `array-body`: the elements of a list whose `[` ends the marker, as `functools[`) |
//! | `citations` | JSON engine: `[open, close_head]`, citation markup dropped from text and reasoning with the cited text kept: `["<co>", "</co: "]` drops `<co>` and `</co: 0:[1,2]>` (command-r) |
//! | `header` | JSON engine: a token that begins a message whose header may name the call before its opener (inkling's `"<|message_model|>"`: `<|message_model|>NAME<|content_invoke_tool_json|>`); the name is held, never text, and the call's raw text starts at the token when one was written; a header followed by anything but an opener is text (the token dropped) |
//! | `keys` | JSON engine: `{"name": [..], "arguments": [..], "id": [..]}` (every key accepted for each, the first arguments key seen is used), or `"name-as-key"` (`{"get_weather": {..}}`) |
//! | `xml` | XML engine: its markers, one object per spelling (see [`Syntax::to_json`] of `qwen-xml`, `glm`, `minimax`, `kimi-k3`, `minimax-m3`, `deepseek-dsml`; its keys below) |
//! | `reasoning` | every reasoning tag pair `[[open, close], ..]` when there is more than one (the first must be the `thinking` field's) |
//! | `sections` | sections engine (required there, an error elsewhere): `calls_begin`, `calls_end` (the section of calls, dropped from the text; required), `call_begin` (opens a call; required; begins with `<` or `[`, at least two bytes), `sep` (after the head; required), `call_end` (closes a call; required): non-empty and all different; `head` (required) `"deepseek"` (the name, or V3's `function` then the name on its line) or `"kimi-id"` (the model's call id `functions.NAME:IDX`, kept as the call id); `calls_end_reasoning` (`calls_begin` / `call_begin` end an open reasoning block, as Kimi K2's; default `false`); `literal_sections` (the section tokens are dropped only where they frame calls, text anywhere else, as PLaMo 3's; default `false`); `label` (what messages call the syntax; default `name`) |
//!
//! ## `toolstream.xml`
//!
//! The markers of `xml-inline` calls, for the engine of `qwen-xml` (`src/text/xml/`). The
//! field's `open` / `close` must list its sections' tags (or its call tags without
//! sections), the top level's first, then each variant's, each tag once. The field's
//! `content_args` (`tag_pattern`, `value_parser`) are transformers' and only type-checked
//! here; `merge_duplicates: true` is an error (a repeated parameter is an error with the
//! raw call).
//!
//! | key | what |
//! | --- | --- |
//! | `call_open`, `call_close`, `param_open`, `param_close` | required, non-empty: a call's and a parameter's tags (`<function=`, `</function>`, `<parameter=`, `</parameter>`) |
//! | `name_end`, `key_end` | required: where a function name / a parameter key ends: `"gt"` (at `>`), `"quote"` (at `"`, then attributes), `"line"` (at the line's end or the next `<`), or (keys only) `[key close tag, value open tag]` (`["</arg_key>", "<arg_value>"]`) |
//! | `sections` | `[[open, close], ..]` around calls (default none); `multi`: a section holds several calls; `bare_calls`: `call_open` also opens a call outside a section (required without sections) |
//! | `what` | what messages call a call (default `"call"`) |
//! | `trim_newline` | one leading and one trailing newline of a value are layout |
//! | `kind_attr` | the attribute that says a value's kind (a declared schema takes precedence): `"none"` (default), `"dsml-string"` (DSML's `string="true"`: a string, `"false"`: JSON) or `"xtml-type"` (XTML's `type="string"` or none: a string; any other type: JSON); needs `key_end` `"quote"`. Specs of earlier versions say `"string_attr": true` (`"dsml-string"`) / `false` (`"none"`): still read; given with `kind_attr`, the two must agree |
//! | `attrs_end` | what ends the attributes after a quoted name or key: `">"` (default) or a tag beginning with `<` (XTML's `<\|sep\|>`; `>` ends them too); needs a `"quote"` ending |
//! | `json_body` | a call's body may be one JSON object instead of parameters (its bytes are the arguments) |
//! | `json_block` | with `json_body`: `[open, close]` tags around that object (XTML's `<\|open\|>json type="object"<\|sep\|>` .. `<\|close\|>json<\|sep\|>`; the open tag begins with `<`); absent: a bare `{` |
//! | `py_literals` | Python's `True`/`False`/`None` are JSON values without a schema |
//! | `entities` | XML character references in values are decoded |
//! | `cdata` | a value written as `<![CDATA[..]]>` (whitespace around it allowed) is the string of its content, verbatim (tags in it are content) |
//! | `attr_entities` | `&quot;` and `&amp;` in a function name or key are decoded (XTML escapes its attribute values) |
//! | `name_sep` | a separator tag after the function name (hy-v3's `<tool_sep>`, whitespace before it allowed; a call without it reads too) |
//! | `tag_params` | parameters are named by their tags and nest (MiniMax M3's `]<]minimax[>[<city>Paris]<]minimax[>[</city>`; child elements make an object, `<item>` children an array). The engine reads every tag in a call as `param_open` (`P`), a name and `>`, and knows the call and section by the names `invoke` and `tool_call`: so `call_open` must be `P` then `invoke name="`, `call_close` `P` then `/invoke>`, `param_close` `P` then `/`, each section `P` then `tool_call>` and `P` then `/tool_call>`, `name_end` `"quote"`, `key_end` `"gt"`, and `kind_attr`, `attrs_end` and `json_body` left at their defaults |
//! | `headers` | `{"open": [..], "end": ".."}`: recipient headers in the text, an opening literal, a recipient (ASCII letters, digits, `_`, `.`, `-`) and the end literal, read whole: a header that spells a reasoning pair's opening tag (without its leading whitespace) opens that reasoning, any other is dropped, and an opening literal followed by anything else is text (Muse's `{"open": [" to=", "to="], "end": "<\|message\|>"}`: `to=self<\|message\|>` opens reasoning, `to=get_weather<\|message\|>` is dropped). The top level's only |
//! | `variants` | further spellings of the same syntax (DSML's V4.1 spaced tags and the doubled-bar leak): a non-empty list of objects with the keys above (no `variants` of their own; reasoning and dropped tokens are the top level's). The text looks for every spelling's call-opening tags; a call is read with the spelling its first tag has (another spelling's tag inside it is value text). A spelling whose opening tag an earlier one has is an error (it would never be read) |
//!
//! Flags default to `false`. `toolstream spec NAME` writes the keys added after the first
//! specs (`kind_attr`, `attrs_end`, `json_block`, `attr_entities`, `tag_params`,
//! `headers`, `variants`, and the flags but `trim_newline`) only when set, and never
//! `string_attr`.
//!
//! # What cannot be a spec yet
//!
//! The built-ins on engines that are not table-driven: `mistral` (its v11 `name[ARGS]`
//! calls), `harmony` (channels), `llama-json` (bare JSON and `<|python_tag|>`) and `auto`
//! (`toolstream spec NAME` says so; each module says why it has its own code).
//! transformers' `kv-lines` and `int`/`float`/`bool` call contents are errors: no engine
//! reads them.
//!
//! ```
//! use toolstream::{Event, Parser, ParserConfig, Syntax};
//!
//! let syntax = Syntax::from_json(r#"{
//!   "version": 1,
//!   "fields": {
//!     "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
//!     "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "content": "json",
//!                    "repeats": true, "transform": {"type": "function", "function": "{content}"}},
//!     "content": {"close": "<|im_end|>", "content": "text"}
//!   }
//! }"#)?;
//! let mut parser = Parser::with_syntax(syntax, ParserConfig::new());
//! let mut events = Vec::new();
//! parser.feed(br#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#, &mut events)?;
//! parser.finish(&mut events)?;
//! assert!(matches!(&events[0], Event::ToolCallStart { name, .. } if name == "f"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::fmt;

use crate::format::Format;
use crate::limits::Limits;
use crate::text::kit::options::TextOptions;
use crate::text::kit::table::Shared;
use crate::text::row::Table;
use crate::text::{Scan, TextScanner, gemma, json, pythonic, xml};

mod lax;
mod members;
mod pylist;
mod read;
pub(crate) mod regions;
mod sections;
mod write;

/// A tool-call syntax read from a spec (or a built-in's table): what
/// [`Parser::with_syntax`](crate::Parser::with_syntax) parses. See the
/// [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Syntax {
    name: String,
    engine: Engine,
    /// Literals skipped when the input begins with one.
    anchors: Vec<String>,
}

/// The engine a syntax runs on, with its table: a built-in's borrowed, a spec's behind
/// an `Arc` that every parser built from the syntax (and every clone of it) shares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Engine {
    /// JSON call objects after a marker ([`json::JsonCalls`]).
    Json(Shared<json::Table>),
    /// XML parameters ([`xml::XmlCalls`]).
    Xml(Shared<xml::Table>),
    /// Regular-expression delimiters ([`regions::Regions`]).
    Regions(Box<regions::Plan>),
    /// Bare-key objects with token-quoted strings ([`gemma::Gemma`]).
    Gemma(Shared<gemma::Dialect>),
    /// Pythonic call lists ([`pythonic::Pythonic`]).
    Pythonic(Shared<pythonic::Frame>),
    /// Special-token sections with a head per call
    /// ([`Sections`](crate::text::sections::Sections)).
    Sections(Shared<crate::text::sections::Tokens>),
}

/// A spec that cannot be read: the offending key's path (`fields.tool_calls.close`,
/// `toolstream.xml.call_open`; empty for the document itself) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    path: String,
    message: String,
}

impl SpecError {
    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        SpecError {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The offending key's path, dot-separated (`fields.tool_calls.open`); empty when
    /// the document as a whole is wrong (not JSON, not an object).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong with it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for SpecError {}

impl Syntax {
    /// Reads a spec: a bare `response_template`, a `tokenizer_config.json` holding one,
    /// or ours (`{"response_template": .., "toolstream": ..}`). See the
    /// [module docs](self).
    pub fn from_json(text: &str) -> Result<Self, SpecError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| SpecError::new("", format!("not JSON: {e}")))?;
        Self::from_value(&value)
    }

    /// [`from_json`](Self::from_json) for a JSON value already parsed.
    pub fn from_value(value: &serde_json::Value) -> Result<Self, SpecError> {
        read::syntax(value)
    }

    /// The built-in syntax of `format` as a [`Syntax`] (the same table its parser
    /// runs); `None` for a format that cannot be written as a spec yet (see the
    /// [module docs](self)) and for provider formats.
    pub fn builtin(format: Format) -> Option<Self> {
        let engine = match crate::text::syntax(format)?.engine.table()? {
            Table::Json(t) => Engine::Json(t),
            Table::Xml(t) => Engine::Xml(t),
            Table::Gemma(d) => Engine::Gemma(d),
            Table::Pythonic(f) => Engine::Pythonic(f),
            Table::Sections(t) => Engine::Sections(t),
        };
        Some(Syntax {
            name: format.name().to_owned(),
            engine,
            anchors: Vec::new(),
        })
    }

    /// The syntax's name: the built-in's, or the spec's `toolstream.name` (`"spec"`
    /// when it has none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The spec of this syntax, in our form (`{"response_template": ..,
    /// "toolstream": ..}`): [`from_value`](Self::from_value) reads it back to an equal
    /// syntax.
    pub fn to_json(&self) -> serde_json::Value {
        write::spec(self)
    }

    /// The text scanner this syntax runs on.
    pub(crate) fn scanner(&self, limits: &Limits, options: &TextOptions) -> TextScanner {
        let table = match &self.engine {
            Engine::Regions(p) => {
                let regions = regions::Regions::new((**p).clone(), limits);
                return self.anchored(TextScanner::Other(Box::new(regions)));
            }
            Engine::Json(t) => Table::Json(t.clone()),
            Engine::Xml(t) => Table::Xml(t.clone()),
            Engine::Gemma(d) => Table::Gemma(d.clone()),
            Engine::Pythonic(f) => Table::Pythonic(f.clone()),
            Engine::Sections(t) => Table::Sections(t.clone()),
        };
        self.anchored(TextScanner::of_table(table, limits, options))
    }

    /// `inner` behind the syntax's start anchors, if it has any.
    fn anchored(&self, inner: TextScanner) -> TextScanner {
        if self.anchors.is_empty() {
            inner
        } else {
            TextScanner::Anchored(Box::new(crate::text::Anchored::new(
                self.anchors.iter().cloned().map(Cow::Owned).collect(),
                inner,
            )))
        }
    }
}

impl Scan for regions::Regions {
    fn feed(
        &mut self,
        bytes: &[u8],
        calls: &mut crate::calls::Calls,
        out: &mut dyn crate::event::EventSink,
    ) {
        regions::Regions::feed(self, bytes, calls, out);
    }

    fn finish(&mut self, calls: &mut crate::calls::Calls, out: &mut dyn crate::event::EventSink) {
        regions::Regions::finish(self, calls, out);
    }

    fn retained(&self) -> usize {
        regions::Regions::retained(self)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// A built-in's syntax borrows the built-in's table; a spec's table is built once and
    /// shared (never copied) by every clone of the syntax, so by every parser built from
    /// it.
    #[test]
    fn a_spec_s_table_is_shared_and_a_built_in_s_borrowed() {
        for format in [Format::Hermes, Format::QwenXml, Format::DeepSeekDsml] {
            let builtin = Syntax::builtin(format).unwrap();
            let borrowed = match &builtin.engine {
                Engine::Json(t) => matches!(t, Shared::Static(_)),
                Engine::Xml(t) => matches!(t, Shared::Static(_)),
                _ => false,
            };
            assert!(borrowed, "{format}");
            let spec = Syntax::from_value(&builtin.to_json()).unwrap();
            assert_eq!(spec, builtin, "{format}");
            let copy = spec.clone();
            let shared = match (&spec.engine, &copy.engine) {
                (Engine::Json(Shared::Arc(a)), Engine::Json(Shared::Arc(b))) => Arc::ptr_eq(a, b),
                (Engine::Xml(Shared::Arc(a)), Engine::Xml(Shared::Arc(b))) => Arc::ptr_eq(a, b),
                _ => false,
            };
            assert!(shared, "{format}");
        }
    }
}
