//! The one scanner of the XML-parameter call syntaxes (`qwen-xml`, `seed-oss`, `glm`,
//! `minimax`, `deepseek-dsml`, `kimi-k3`, `minimax-m3`, `hy-v4`, `hy-v3`, `gigachat35`,
//! `minicpm5`, `step3`, `muse`): each is this scanner with its own [`Table`], written in
//! its own module ([`qwen_xml`], [`seed_oss`], [`glm`], [`minimax`], [`deepseek_dsml`],
//! [`kimi_k3`], [`minimax_m3`], [`hy_v4`], [`hy_v3`], [`gigachat35`], [`minicpm5`],
//! [`step3`]) with the syntax's rules.
//!
//! ```text
//!   Text ──section open──> Wrap ──call open──> Name ──name end──> Body ──param open──> Key ──key end──> Value
//!     └──call open (bare)────────────────────────┘            ^  │                                      │
//!                                                             │  └──call close──> After ──section close──> Text
//!                                                             └─────────────param close────────────────────┘
//! ```
//!
//! A name or key ends per [`End`]: at `>` (`<function=name>`), at a closing quote and
//! then attributes up to `>` (`<invoke name="name">`), at the end of the line or the next
//! tag (`<tool_call>name\n`), or at a closing tag and the value's opening tag
//! (`<arg_key>k</arg_key>\n<arg_value>`). In a dialect with several calls per section,
//! [`After`](St::After) also accepts the next call.
//!
//! Rules shared by every dialect:
//!
//! - `ToolCallStart` in the feed that settles the function name. The arguments are
//!   converted to JSON as they stream: `{"key":` as soon as a parameter name is
//!   complete, the closing `}` at the call's closing tag (`{}` when there were no
//!   parameters); `ToolCallEnd` follows right there.
//! - A value becomes JSON by its parameter's [`ValueKind`] (from
//!   [`Parser::tools`](crate::Parser::tools); a dialect may also say it per value):
//!   - `String`: a JSON string of the raw text, streamed (escaped) as it arrives, never
//!     parsed (`007` stays `"007"`).
//!   - `Json`: JSON text: held (bounded by `max_argument_bytes`) and copied when its
//!     complete trimmed text is JSON (a JSON string too: `"a\"b"` is `a"b`); the Python literals `True`, `False`, `None` become
//!     `true`, `false`, `null`; anything else is kept as a string (nothing lost).
//!   - `Infer` (no schema): a JSON string unless the complete trimmed text parses as a
//!     JSON non-string (number, `true`/`false`/`null`, object, array), which is then
//!     copied as is. A value whose first non-space character cannot start a number,
//!     literal, object or array is certainly a string and streams as it arrives;
//!     otherwise the value is held until it is decided — early, when it stops being
//!     valid JSON, or at its end. A value that is JSON text of a string (`"quoted"`)
//!     stays the string of its raw text, quotes included.
//! - Lenient: a missing parameter close (the next parameter, the call's or the
//!   section's close ends the value), except for a value in its own tags
//!   ([`End::Tags`]: GLM's and HY's `<arg_value>`), which ends only at its close (a tag
//!   before it makes the call malformed); a missing call close (the section close ends
//!   the call); a missing section close (text after the call is text again). A section
//!   with no call in it is dropped.
//! - The kit's [recovery rule](crate::text::kit::recovery): a call-opening tag (the
//!   call's own, or a section's) between the parameters of an open call, or in the text
//!   of a malformed one, ends that call as an error carrying its bytes and starts the new
//!   call (a parameter value is raw text: an opening tag inside it is value); a
//!   parameter the call already had is an error with the raw call (`invalid_arguments`),
//!   never a value silently overwritten.
//! - Text outside parameters inside a call (other than whitespace) is reported as an
//!   `Error` without index after the call, carrying it. A malformed call (a name or key
//!   running past a line or a limit, other text inside a section) → `Error` with the raw
//!   call text from its first marker byte through the closing tag; a call cut off by the
//!   end of input → `Error` (`Truncated`) with its raw text. The first marker is the
//!   call's own opening tag (`<invoke name=`) in a section of several calls (`minimax`,
//!   `deepseek-dsml`, like DeepSeek's), the section's opening tag where a section holds
//!   one call (`<tool_call><function=`, `<seed:tool_call>`).
//! - Text, reasoning tags and whitespace before markers: see
//!   [`reasoning`](crate::text::kit::reasoning).

use std::borrow::Cow;
use std::borrow::Cow::Borrowed;

use crate::calls::{Calls, Slot};
use crate::event::EventSink;
use crate::event::{ErrorKind, Event};
use crate::limits::Limits;
use crate::scan::json::{JsonScanner, JsonStatus};
use crate::scan::marker::{Expect, Expected, Found, MarkerMatcher, MarkerSet};
use crate::text::kit::call::{Raw, report};
use crate::text::kit::options::TextOptions;
use crate::text::kit::reasoning::TextStage;
use crate::text::kit::recovery::{Members, interrupted, released};
use crate::text::kit::table::{Pair, Shared, Token};
use crate::text::kit::util::is_ws_char as is_ws;
use crate::text::kit::util::{CharInput, ReadsChars, reads_chars};
use crate::tools::ValueKind;

// Every syntax file of this family (`build.rs`: a file that exports a `ROW`).
include!(concat!(env!("OUT_DIR"), "/text_xml.rs"));

/// How a function name or a parameter key ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// At `>`: `<function=name>`.
    Gt,
    /// At a closing `"`, then attributes up to `>`: `<invoke name="name">`,
    /// `<parameter name="k" string="true">`.
    Quote,
    /// At the end of the line (leading line breaks skipped) or at the next `<` (kept):
    /// `<tool_call>name\n<arg_key>`, `<tool_call>name<arg_key>`.
    Line,
    /// At `<`, which must begin the first of [`Table::key_tags`], then the second tag
    /// follows after optional whitespace: `<arg_key>k</arg_key>\n<arg_value>`.
    Tags,
}

/// One XML-parameter syntax's table, as [`XmlCalls`] runs it: its markers. See the
/// [module docs](self). A built-in's is a `const` of its file (every string and list
/// borrowed, the fields it leaves at their plain value taken from [`PLAIN`] with `..`);
/// a [`Syntax`](crate::Syntax)'s is built at run time (owned).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    /// What the messages call a call (`<function=..>`).
    pub(crate) what: Token,
    /// Section open / close pairs around calls (none: calls stand alone).
    pub(crate) sections: Cow<'static, [Pair]>,
    /// Opens a call; the function name follows.
    pub(crate) call_open: Token,
    /// `call_open` also starts a call outside a section.
    pub(crate) bare_calls: bool,
    /// A section holds several calls.
    pub(crate) multi: bool,
    /// How the function name ends.
    pub(crate) name_end: End,
    /// A tag that may follow the name before the body (HY v3's `<tool_sep>`), consumed
    /// when it is there; empty: none.
    pub(crate) name_sep: Token,
    /// Closes a call.
    pub(crate) call_close: Token,
    /// Opens a parameter; its key follows.
    pub(crate) param_open: Token,
    /// How a key ends.
    pub(crate) key_end: End,
    /// With `key_end` [`End::Tags`]: the key's closing tag and the value's opening tag
    /// (`</arg_key>`, `<arg_value>`); an empty second tag: the first opens the value too
    /// (Solar Open 2's `<|tool_arg:value|>`).
    pub(crate) key_tags: Pair,
    /// Closes a parameter's value.
    pub(crate) param_close: Token,
    /// One leading and one trailing newline of a value are layout, not value.
    pub(crate) trim_newline: bool,
    /// Which attribute of a key, if any, says the value's kind.
    pub(crate) kind_attr: KindAttr,
    /// What ends the attributes after a quoted name (`>`; XTML's `<|sep|>`).
    pub(crate) attrs_end: Token,
    /// A call's body may be one JSON object instead of parameters (DSML:
    /// `<invoke name="f">{"a": 1}</invoke>`).
    pub(crate) json_body: bool,
    /// With `json_body`: the tags around the object (XTML's
    /// `<|open|>json type="object"<|sep|>` .. `<|close|>json<|sep|>`); `None`: bare.
    pub(crate) json_block: Option<Pair>,
    /// Without a schema, the Python literals `True`, `False`, `None` are `true`, `false`,
    /// `null` (GLM's template writes Python values at times).
    pub(crate) py_literals: bool,
    /// XML character references in values (`&lt;`, `&amp;`, `&#60;`, ...) are decoded.
    pub(crate) entities: bool,
    /// A value written as a CDATA section (`<![CDATA[..]]>`, whitespace around it
    /// allowed) is the string of its content, read verbatim: markup and tags in it
    /// (`</param>` too) are content, nothing in it is decoded.
    pub(crate) cdata: bool,
    /// `&quot;` and `&amp;` in a function name or key are decoded (XTML escapes its
    /// attribute values).
    pub(crate) attr_entities: bool,
    /// Parameters are named by their tag (`<city>Paris</city>` after `param_open`, the
    /// namespace `]<]minimax[>[<` of MiniMax M3), nest (a child tag makes the value an
    /// object, `<item>` children an array) and close with their own name
    /// (`param_open` + `/name>`); a leaf of a tool without a schema is a string, an
    /// element left open at the call's close is an error. See [`minimax_m3`].
    pub(crate) tag_params: bool,
    /// Reasoning tag pairs.
    pub(crate) reasoning: Cow<'static, [Pair]>,
    /// End-of-turn tokens dropped from the text.
    pub(crate) drops: Cow<'static, [Token]>,
    /// Recipient headers in the text ([`TextStage::headers`]): their opening literals
    /// and their end literal (Muse's ` to=` .. `<|message|>`: [`muse`]).
    pub(crate) headers: Option<(Cow<'static, [Token]>, Token)>,
    /// Other spellings of the same syntax (DSML's V4.1 spaced tags, the doubled-bar
    /// leak): each a whole marker table. The text stage looks for every spelling's
    /// openers; a call is read with the table whose opener began it. Their own
    /// `variants`, `reasoning` and `drops` are not used. Each is held as its own
    /// [`Shared`] handle, so the scanner reads the one in use without going through
    /// this table.
    pub(crate) variants: Cow<'static, [Shared<Table>]>,
}

/// The attribute of a parameter that says its value's kind (a declared schema takes
/// precedence for the parameters it types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KindAttr {
    /// None: the schema or the schema-less rule decides.
    None,
    /// DSML's `string="true"` (a string) / `string="false"` (JSON).
    DsmlString,
    /// XTML's `type="string"` (a string) / any other type (`number`, `boolean`, `null`,
    /// `object`, `array`: JSON); no `type`: a string.
    XtmlType,
}

/// The base of a table: the fields most syntaxes leave at their plain value. (A table
/// takes fields from another with `..` only while every field is a plain constant:
/// strings `Borrowed("..")`, lists [`list!`](crate::text::kit::table::list).)
pub(crate) const PLAIN: Table = Table {
    what: Borrowed(""),
    sections: Borrowed(&[]),
    call_open: Borrowed(""),
    bare_calls: false,
    multi: false,
    name_end: End::Gt,
    name_sep: Borrowed(""),
    call_close: Borrowed(""),
    param_open: Borrowed(""),
    key_end: End::Gt,
    key_tags: (Borrowed(""), Borrowed("")),
    param_close: Borrowed(""),
    trim_newline: false,
    kind_attr: KindAttr::None,
    attrs_end: Borrowed(">"),
    json_body: false,
    json_block: None,
    py_literals: false,
    entities: false,
    cdata: false,
    attr_entities: false,
    tag_params: false,
    reasoning: Borrowed(&[]),
    drops: Borrowed(&[]),
    headers: None,
    variants: Borrowed(&[]),
};

/// The marker sets of one table (built once per table; the scanner swaps the
/// table of the call it reads into [`XmlCalls::sets`]).
#[derive(Debug)]
struct Sets {
    wrap: MarkerSet,
    body: MarkerSet,
    /// `body`, then the tags that open a call (the call's own, then the sections'):
    /// what ends the text between parameters.
    between: MarkerSet,
    after: MarkerSet,
    skip_section: MarkerSet,
    skip_call: MarkerSet,
    /// The two tags of [`End::Tags`].
    tail: [MarkerSet; 2],
    /// [`Table::attrs_end`] when it is not `>`.
    attrs_end: MarkerSet,
    /// [`Table::name_sep`].
    name_sep: MarkerSet,
    /// The tags of [`Table::json_block`].
    json_block: [MarkerSet; 2],
    /// How many tags open a call ([`openers`]).
    openers: usize,
}

impl Sets {
    fn new(d: &Table) -> Self {
        let closes = || d.sections.iter().map(|(_, c)| c.clone());
        let mut after: Vec<Cow<'static, str>> = closes().collect();
        if d.multi {
            after.push(d.call_open.clone());
        }
        let (tag0, tag1) = d.key_tags.clone();
        let inner = || {
            [&d.param_close, &d.param_open, &d.call_close]
                .into_iter()
                .cloned()
                .chain(closes())
        };
        Sets {
            // Several calls in a section: stray text before a call ends at the call's
            // close (so that the text does not swallow it).
            wrap: MarkerSet::new(
                std::iter::once(d.call_open.clone())
                    .chain(closes())
                    .chain(std::iter::once(d.call_close.clone()).filter(|_| d.multi))
                    .chain(d.sections.iter().map(|(o, _)| o.clone())),
            ),
            // Tag-named parameters: every tag in a call begins with `param_open` (closes
            // and openers too), read to its `>` and told apart by name.
            body: if d.tag_params {
                MarkerSet::new([d.param_open.clone()])
            } else {
                MarkerSet::new(inner())
            },
            between: if d.tag_params {
                MarkerSet::new([d.param_open.clone()])
            } else {
                MarkerSet::new(inner().chain(openers(d)))
            },
            after: MarkerSet::new(after),
            // Several calls in a section: a malformed one ends at its own close.
            skip_section: MarkerSet::new(
                std::iter::once(d.call_close.clone())
                    .filter(|_| d.multi)
                    .chain(closes())
                    .chain(openers(d)),
            ),
            skip_call: MarkerSet::new(std::iter::once(d.call_close.clone()).chain(openers(d))),
            tail: [MarkerSet::new([tag0]), MarkerSet::new([tag1])],
            attrs_end: MarkerSet::new(std::iter::once(d.attrs_end.clone()).filter(|e| *e != ">")),
            name_sep: MarkerSet::new(std::iter::once(d.name_sep.clone()).filter(|t| !t.is_empty())),
            json_block: match &d.json_block {
                Some((open, close)) => [
                    MarkerSet::new([open.clone()]),
                    MarkerSet::new([close.clone()]),
                ],
                None => [MarkerSet::new([""]), MarkerSet::new([""])],
            },
            openers: openers(d).count(),
        }
    }
}

/// An element of a [tag-named](Table::tag_params) value that holds elements.
#[derive(Debug)]
struct Frame {
    /// Its tag name (its close ends it).
    name: Box<str>,
    /// `<item>` children: an array; otherwise an object keyed by the children's names.
    array: bool,
    /// Children so far.
    count: usize,
    /// An object's keys so far (a repeated one is an error).
    keys: Members,
}

impl Frame {
    fn retained(&self) -> usize {
        self.name.len() + self.keys.retained()
    }
}

/// The tags that open a call: the call's own, then each section's.
fn openers(d: &Table) -> impl Iterator<Item = Cow<'static, str>> + '_ {
    std::iter::once(d.call_open.clone()).chain(d.sections.iter().map(|(o, _)| o.clone()))
}

/// Where a call's raw text begins: at its section's opening tag, its own opening tag,
/// or (a call opened inside another) the parameter tag it was written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Section,
    Call,
    Param,
}

/// How many of the text stage's start markers table `d` has: its sections' opening
/// tags, then its bare call marker.
fn start_count(d: &Table) -> usize {
    d.sections.len() + usize::from(d.bare_calls)
}

/// Longest function or parameter name (attributes included).
const MAX_NAME: usize = 256;

/// Markers inside a call (and ending a value); section closes follow from `B_END_SECTION`.
const B_END_PARAM: usize = 0;
const B_PARAM: usize = 1;
// 2: the call's close.
const B_END_SECTION: usize = 3;

/// The Python literals a `Json` value may be written as.
const PY_LITERALS: [(&str, &str); 3] = [("True", "true"), ("False", "false"), ("None", "null")];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// After a section open, before its first call.
    Wrap,
    /// Inside the function name.
    Name,
    /// A bare call's name line ([`End::Line`]) ended at its line break without settling
    /// a name (whitespace or markup in it, or a space before it): whitespace, then a `<`
    /// goes on as a call (the name read as if it ended there); anything else makes the
    /// opening tag and the line text ([`XmlCalls::prose_line`]).
    NameLine,
    /// Inside a parameter key.
    Key,
    /// Attributes after a quoted name (`key`: of a parameter) up to `>`.
    Attrs {
        key: bool,
    },
    /// At the `<` that must begin [`Table::attrs_end`] (XTML's `<|sep|>`).
    AttrsEnd {
        key: bool,
    },
    /// After a key ended by [`End::Tags`]: the first tag (`open == false`), then the second.
    KeyTail {
        open: bool,
    },
    /// After the name: [`Table::name_sep`] if it is there.
    NameSep,
    /// Inside the call, between parameters.
    Body,
    /// Inside a parameter value.
    Value,
    /// After the call's close: the section's close (or, `multi`, the next call) expected.
    After,
    /// A call body that is one JSON object ([`Table::json_body`]).
    JsonBody,
    /// A tag of a call with [tag-named parameters](Table::tag_params), after
    /// `param_open`, up to its `>`; `value`: it came inside a value.
    Tag {
        value: bool,
    },
    /// Around a JSON body: the [`Table::json_block`] tag before it (`close == false`)
    /// or after it.
    JsonTag {
        close: bool,
    },
    /// Inside a [CDATA](Table::cdata) value's content, up to `]]>`.
    Cdata,
    /// Malformed: collecting raw text until the end marker.
    Skip(ErrorKind),
}

/// Where a value stands with a [CDATA section](Table::cdata).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cdata {
    /// None can begin (the dialect reads none, or the value began otherwise).
    Off,
    /// The value may still begin with one: its text so far (whitespace and a prefix of
    /// [`CDATA_OPEN`]) is held in [`XmlCalls::pre`].
    May,
    /// The section closed: whitespace after it is layout (held in `held`), other text
    /// goes on the string.
    After,
}

/// Opens a CDATA section.
const CDATA_OPEN: &str = "<![CDATA[";

/// How a value is being emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum V {
    /// Only whitespace so far (held).
    Undecided,
    /// Could be JSON: held and scanned.
    Json,
    /// Could be a Python literal (`Json` kind): held.
    Py,
    /// A string: streamed escaped.
    Str,
}

/// The XML-parameter scanner. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct XmlCalls {
    /// The table in use: table 0, the one given, or one of its
    /// [variants](Table::variants) (tables 1, 2, ...).
    d: Shared<Table>,
    /// Table 0.
    root: Shared<Table>,
    /// The table in use.
    table: usize,
    options: TextOptions,
    /// The bytes of a character cut by the last feed.
    input: CharInput,
    text: TextStage,
    st: St,
    /// The marker sets of the table in use (`d`).
    sets: Sets,
    /// Per table (empty: there are no variants), its marker sets while it is not in
    /// use, once built (a variant's when its first call comes); the one in use's are
    /// moved out to `sets`.
    spare: Vec<Option<Sets>>,
    /// Inside a JSON body ([`Table::json_body`]): the value closed (End given).
    json_done: bool,
    /// The body did not begin with [`Table::json_block`]'s tag.
    json_tried: bool,
    /// The call broke at the current position and nothing of its rest was read yet.
    fresh: bool,
    /// The matched part of a [`Table::json_block`] tag that was not there, read again.
    again: String,
    /// A partial character reference held at the end of a value piece.
    entity: String,
    /// [Tag-named parameters](Table::tag_params): the tag being read.
    tag: String,
    /// The element whose value is being read.
    elem: String,
    /// The elements that became objects or arrays, outermost first.
    frames: Vec<Frame>,
    matcher: MarkerMatcher,
    expect: Expect,
    raw: Raw,
    /// The section open that began the current call (`None`: a bare call).
    section: Option<usize>,
    slot: Option<Slot>,
    /// Name being collected (function or parameter).
    name: String,
    /// The function's name (for the parameters' kinds).
    func: String,
    /// Attributes after a quoted name.
    attrs: String,
    params: usize,
    kind: ValueKind,
    v: V,
    /// Value start: the one leading newline is still to be stripped.
    lead: bool,
    /// A `\n` held at the end of a string value (stripped before its end marker).
    nl: bool,
    /// The value and a [CDATA section](Table::cdata).
    cdata: Cdata,
    /// `]` bytes at the end of a CDATA piece that may begin its `]]>` (not yet content).
    cdata_br: u8,
    /// The value's text while it may still open a CDATA section.
    pre: String,
    held: String,
    json: JsonScanner,
    json_end: Option<usize>,
    /// Converted argument text for this step.
    buf: String,
    /// Stray text inside a call.
    stray: Raw,
    /// The call's parameter names so far.
    members: Members,
    max_args: usize,
    max_depth: usize,
}

reads_chars!(XmlCalls;
    // Not inlined into the `TextScanner` dispatch (that pushed every syntax's prose path
    // up ~7 Ir/B).
    #[inline(never)]
    fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        // Inside a string value most pieces are only more of it (no marker held, no byte
        // that can start one): what `run` does with them, without its layers. A
        // character cut by the feed's end is held, and completed, as `feed_chars` does.
        if self.st == St::Value
            && self.v == V::Str
            && !self.lead
            && self.cdata == Cdata::Off
            && self.matcher.held() == 0
        {
            self.feed_value(bytes, calls, out);
        } else {
            self.feed_chars(bytes, calls, out);
        }
    }
);

impl XmlCalls {
    #[allow(dead_code)] // (built-ins are built through `text::row::Table` now)
    pub(crate) fn new(d: &'static Table, limits: &Limits, options: &TextOptions) -> Self {
        Self::with_table(Shared::Static(d), limits, options)
    }

    /// The scanner for a table (a built-in's or a syntax spec's).
    pub(crate) fn with_table(d: Shared<Table>, limits: &Limits, options: &TextOptions) -> Self {
        // Table by table: its sections' opening tags, then its bare call marker.
        let starts: Vec<Cow<'static, str>> = std::iter::once(&*d)
            .chain(d.variants.iter().map(|v| &**v))
            .flat_map(|t| {
                let bare = std::iter::once(t.call_open.clone()).filter(|_| t.bare_calls);
                t.sections.iter().map(|(o, _)| o.clone()).chain(bare)
            })
            .collect();
        let reasoning: Vec<(&str, &str)> = d.reasoning.iter().map(|(o, c)| (&**o, &**c)).collect();
        let mut text = TextStage::new(&starts, &d.drops, &reasoning, &options.reasoning, limits);
        if let Some((opens, end)) = &d.headers {
            text = text.headers(opens, end.clone());
            // Messages framed by headers (Muse's): a token that begins or ends a message
            // (every dropped one but the header's end and a reasoning close) inside a
            // reasoning message ends it, the model having left it without its close
            // (`to=self<|message|>plan<|start|>assistant to=f<|message|>..`), then acts
            // as it does outside: never content, so the next message is read.
            let enders: Vec<&str> = d
                .drops
                .iter()
                .map(|t| &**t)
                .filter(|t| *t != &**end && !reasoning.iter().any(|(_, c)| c == t))
                .collect();
            if !enders.is_empty() {
                text = text.calls_end_reasoning(&enders);
            }
        }
        let spare = if d.variants.is_empty() {
            Vec::new()
        } else {
            (0..=d.variants.len()).map(|_| None).collect()
        };
        XmlCalls {
            sets: Sets::new(&d),
            d: d.clone(),
            root: d,
            table: 0,
            options: options.clone(),
            input: CharInput::default(),
            text,
            st: St::Text,
            spare,
            json_done: false,
            json_tried: false,
            fresh: false,
            again: String::new(),
            entity: String::new(),
            tag: String::new(),
            elem: String::new(),
            frames: Vec::new(),
            matcher: MarkerMatcher::new(),
            expect: Expect::default(),
            raw: Raw::new(limits.max_argument_bytes),
            section: None,
            slot: None,
            name: String::new(),
            func: String::new(),
            attrs: String::new(),
            params: 0,
            kind: ValueKind::Infer,
            v: V::Undecided,
            lead: true,
            nl: false,
            cdata: Cdata::Off,
            cdata_br: 0,
            pre: String::new(),
            held: String::new(),
            json: JsonScanner::with_max_depth(limits.max_depth),
            json_end: None,
            buf: String::new(),
            stray: Raw::new(limits.max_argument_bytes),
            members: Members::default(),
            max_args: limits.max_argument_bytes,
            max_depth: limits.max_depth,
        }
    }

    pub(crate) fn retained(&self) -> usize {
        self.input.held()
            + self.text.retained()
            + self.matcher.held()
            + self.raw.retained()
            + self.name.capacity()
            + self.func.capacity()
            + self.attrs.capacity()
            + self.held.capacity()
            + self.pre.capacity()
            + self.stray.retained()
            + self.entity.capacity()
            + self.again.capacity()
            + self.tag.capacity()
            + self.elem.capacity()
            + self.frames.iter().map(Frame::retained).sum::<usize>()
            + self.members.retained()
    }

    /// A call begins (inside section `section`, or bare) at the tag `at` says.
    fn begin(&mut self, section: Option<usize>, at: At) {
        let marker = match (at, section.and_then(|i| self.d.sections.get(i))) {
            (At::Section, Some((open, _))) => &**open,
            (At::Param, _) => &*self.d.param_open,
            _ => &*self.d.call_open,
        };
        self.raw.start(marker);
        self.section = section;
        self.slot = None;
        self.name.clear();
        self.func.clear();
        self.attrs.clear();
        self.params = 0;
        // (Converted text of an earlier call never reaches this one.)
        self.buf.clear();
        self.entity.clear();
        self.json_done = false;
        self.json_tried = false;
        self.frames.clear();
        self.fresh = false;
        self.members.clear();
        self.stray.start("");
        self.matcher.clear();
        self.expect.reset();
    }

    /// Hands the converted argument text to the call. It is valid JSON by construction
    /// (escaped strings, values the value scanner accepted), so the call table does not
    /// scan it again; `complete`: it ends with the object's closing `}`.
    fn args_to(&mut self, complete: bool, calls: &mut Calls, out: &mut dyn EventSink) {
        if !self.buf.is_empty() || complete {
            if let Some(slot) = self.slot {
                // A named call never refuses argument bytes (opened at its name).
                let _ = calls.scanned_args(slot, &self.buf, complete, out);
            }
            self.buf.clear();
        }
    }

    fn args(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.args_to(false, calls, out);
    }

    fn run(&mut self, mut s: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        // Text (the common case) goes to the text stage without `steps`' loop.
        if self.st == St::Text
            && let Some(i) = self.text.run(&mut s, out)
        {
            self.opened(i);
        }
        if !s.is_empty() {
            self.steps(s, calls, out);
        }
        self.args(calls, out);
    }

    /// The text stage found call-start marker `i` (a table's section opening marker, or
    /// its bare call marker, table by table: [`start_count`]).
    fn opened(&mut self, i: usize) {
        let (table, section) = self.start_of(i);
        self.use_table(table);
        self.open(section);
    }

    /// Table `t` (the one in use or a spare one).
    fn table_ref(&self, t: usize) -> Option<&Table> {
        match t.checked_sub(1) {
            None => Some(&self.root),
            Some(v) => self.root.variants.get(v).map(|v| &**v),
        }
    }

    /// The table and section (`None`: a bare call) of the text stage's start marker `i`.
    fn start_of(&self, mut i: usize) -> (usize, Option<usize>) {
        for t in 0..self.spare.len().max(1) {
            let Some(d) = self.table_ref(t) else {
                continue;
            };
            if i < start_count(d) {
                return (t, (i < d.sections.len()).then_some(i));
            }
            i -= start_count(d);
        }
        (self.table, None)
    }

    /// Section `section` of the table in use opened (`None`: a bare call).
    fn open(&mut self, section: Option<usize>) {
        if section.is_some_and(|i| i < self.d.sections.len()) {
            self.begin(section, At::Section);
            self.st = St::Wrap;
        } else {
            self.begin(None, At::Call);
            self.st = St::Name;
        }
    }

    /// Reads with table `t` from here on.
    #[cold]
    fn switch_table(&mut self, t: usize) {
        let d = match t.checked_sub(1) {
            None => self.root.clone(),
            Some(v) => match self.root.variants.get(v) {
                Some(d) => d.clone(),
                None => return,
            },
        };
        let sets = match self.spare.get_mut(t).and_then(Option::take) {
            Some(sets) => sets,
            None => Sets::new(&d),
        };
        self.d = d;
        let sets = std::mem::replace(&mut self.sets, sets);
        if let Some(slot) = self.spare.get_mut(self.table) {
            *slot = Some(sets);
        }
        self.table = t;
    }

    #[inline]
    fn use_table(&mut self, t: usize) {
        if t != self.table {
            self.switch_table(t);
        }
    }

    fn steps(&mut self, mut s: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        while !s.is_empty() {
            match self.st {
                St::Text => {
                    if let Some(i) = self.text.run(&mut s, out) {
                        self.opened(i);
                    }
                }
                St::Wrap => {
                    let blank = self.raw_is_blank();
                    // Where this step's text begins, unless it begins with bytes held
                    // from an earlier piece.
                    let from = (self.matcher.held() == 0).then_some(s);
                    let Some(f) = self.matcher.next(&self.sets.wrap, &mut s) else {
                        continue;
                    };
                    let opens = self.sets.wrap.len() - self.d.sections.len();
                    match f {
                        Found::Text(t)
                            if blank
                                && !t.trim_start_matches(is_ws).is_empty()
                                && !t.trim_start_matches(is_ws).starts_with('<') =>
                        {
                            // Nothing after the section's tag can begin a call (not even
                            // a malformed tag): the tag was text (a literal `<tool_call>`
                            // in prose), and so is this, with a partial tag held after it.
                            // It is read again as text from where it begins in the piece
                            // (the held tail included; no copy): another spelling's opener
                            // in it (not in this table's `wrap`) opens its call.
                            let given = match from {
                                Some(_) => String::new(),
                                None => {
                                    // Bytes held from an earlier piece (shorter than a
                                    // tag): given back.
                                    let mut given = t.to_owned();
                                    given.push_str(self.matcher.finish());
                                    given
                                }
                            };
                            released(&mut self.raw, &mut self.text, out);
                            self.end_call();
                            match from {
                                Some(from) => s = from,
                                None => self.text.give_back(&given, out),
                            }
                        }
                        Found::Marker(i) if i >= opens => {
                            // A section's tag again: the first one opened nothing.
                            released(&mut self.raw, &mut self.text, out);
                            self.end_call();
                            self.open(Some(i - opens));
                        }
                        Found::Text(t) => {
                            self.raw.push(t);
                            if !t.trim_start_matches(is_ws).is_empty() {
                                self.st = St::Skip(ErrorKind::InvalidArguments);
                            }
                        }
                        Found::Marker(0) => {
                            if self.d.multi {
                                // A section of several calls: each call's raw text
                                // starts at its own opening marker (as DeepSeek's).
                                self.raw.start(&self.d.call_open);
                            } else {
                                // One call per section: the section opens the call.
                                self.raw.push(&self.d.call_open);
                            }
                            self.st = St::Name;
                        }
                        Found::Marker(i) if i <= self.d.sections.len() => {
                            // A section with no call in it: no call.
                            self.end_call();
                        }
                        Found::Marker(_) => {
                            // A call's close with no call (`multi`).
                            self.raw.push(&self.d.call_close);
                            self.malformed(true, ErrorKind::InvalidArguments, calls, out);
                        }
                    }
                }
                St::Name | St::Key | St::Attrs { .. } => self.name_step(&mut s, calls, out),
                St::NameLine => self.name_line(&mut s, calls, out),
                St::KeyTail { open } => self.key_tail(open, &mut s, calls, out),
                St::AttrsEnd { key } => self.attrs_end(key, &mut s, calls, out),
                St::NameSep => self.name_sep(&mut s, calls, out),
                St::Body => {
                    if self.d.json_body
                        && self.params == 0
                        && !self.json_done
                        && !self.json_tried
                        && self.matcher.held() == 0
                        && self.stray.len() == 0
                    {
                        self.raw.push(skip_ws(&mut s));
                        let opens = match self.d.json_block {
                            None => s.starts_with('{'),
                            Some(_) => s.starts_with('<'),
                        };
                        if opens {
                            self.json = JsonScanner::with_max_depth(self.max_depth);
                            self.expect.reset();
                            self.st = match self.d.json_block {
                                None => St::JsonBody,
                                Some(_) => St::JsonTag { close: false },
                            };
                        }
                        if s.is_empty() || opens {
                            continue;
                        }
                    }
                    let Some(f) = self.matcher.next(&self.sets.between, &mut s) else {
                        continue;
                    };
                    match f {
                        Found::Text(t) => {
                            self.raw.push(t);
                            self.stray.push(t);
                        }
                        Found::Marker(m) if m >= self.sets.body.len() => {
                            let what = self.sets.between.get(m);
                            interrupted(calls, self.slot, what, &mut self.raw, out);
                            self.reopen(m - self.sets.body.len());
                        }
                        Found::Marker(m) => self.body_marker(m, calls, out),
                    }
                }
                St::Value => {
                    // The matcher is lent out so the text it returns can be used with `self`.
                    let mut matcher = std::mem::take(&mut self.matcher);
                    match matcher.next(&self.sets.body, &mut s) {
                        None => {}
                        Some(Found::Text(t)) => {
                            self.raw.push(t);
                            self.value_text(t, calls, out);
                        }
                        Some(Found::Marker(_)) if self.d.tag_params => {
                            // (The tag's bytes go to the raw text once it is read: an
                            // opener of the next call is not this call's.)
                            self.tag.clear();
                            self.st = St::Tag { value: true };
                        }
                        Some(Found::Marker(m))
                            if m != B_END_PARAM && self.d.key_end == End::Tags =>
                        {
                            // A value in its own tags (`<arg_value>`) ends only at its
                            // close: another tag first is a dropped close or a literal
                            // tag in the value, and the call is malformed (read to its
                            // own close), never completed with the arguments before it.
                            self.raw.push(self.sets.body.get(m));
                            self.args(calls, out);
                            self.st = St::Skip(ErrorKind::InvalidArguments);
                        }
                        Some(Found::Marker(m)) => {
                            self.value_end(calls, out);
                            self.body_marker(m, calls, out);
                        }
                    }
                    self.matcher = matcher;
                    if self.st == St::Cdata && self.matcher.held() > 0 {
                        // A CDATA section opened in text the matcher gave while it held
                        // the start of a tag after it: that is content.
                        let held = self.matcher.finish().to_owned();
                        self.steps(&held, calls, out);
                    }
                }
                St::After => self.after(&mut s, out),
                St::Cdata => self.cdata_step(&mut s),
                St::JsonTag { close } => self.json_tag(close, &mut s, calls, out),
                St::Tag { value } => {
                    let (part, rest) = match s.find(['>', '\n', '<']) {
                        Some(i) => split_str(s, i),
                        None => (s, ""),
                    };
                    s = rest;
                    if self.tag.len() + part.len() > MAX_NAME {
                        self.tag_broken(part, calls, out);
                        continue;
                    }
                    self.tag.push_str(part);
                    match s.as_bytes().first() {
                        None => {}
                        Some(b'>') => {
                            s = s.get(1..).unwrap_or_default();
                            self.tag_done(value, calls, out);
                        }
                        Some(_) => self.tag_broken("", calls, out),
                    }
                }
                St::JsonBody => {
                    // The model's bytes are the arguments: no tag is looked for inside
                    // the object (a closing tag in one of its strings is content).
                    let (take, next) = match self.json.feed(s.as_bytes()) {
                        JsonStatus::NeedMore => (s.len(), St::JsonBody),
                        JsonStatus::Complete { consumed } => match self.d.json_block {
                            None => {
                                self.json_done = true;
                                (consumed, St::Body)
                            }
                            Some(_) => {
                                self.expect.reset();
                                (consumed, St::JsonTag { close: true })
                            }
                        },
                        JsonStatus::Invalid { at, .. } => {
                            self.fresh = true;
                            (at, St::Skip(ErrorKind::InvalidArguments))
                        }
                    };
                    let (a, b) = split_str(s, take);
                    self.raw.push(a);
                    self.buf.push_str(a);
                    if next != St::JsonBody {
                        // The call's valid bytes so far are its own, before anything ends it.
                        self.args(calls, out);
                    }
                    self.st = next;
                    s = b;
                }
                St::Skip(kind) => {
                    let set = if self.section.is_some() {
                        &self.sets.skip_section
                    } else {
                        &self.sets.skip_call
                    };
                    let Some(f) = self.matcher.next(set, &mut s) else {
                        continue;
                    };
                    let opens = set.len() - self.sets.openers;
                    match f {
                        Found::Text(t) => {
                            self.fresh = false;
                            self.raw.push(t);
                        }
                        Found::Marker(i) if i >= opens => {
                            // A new call begins in the broken one's text: it ends there
                            // (cut short, when its JSON body broke right at the tag).
                            if self.fresh {
                                let what = set.get(i);
                                interrupted(calls, self.slot, what, &mut self.raw, out);
                            } else {
                                let what = format!("a malformed {} call", self.d.what);
                                report(calls, self.slot, kind, &what, &mut self.raw, out);
                            }
                            self.reopen(i - opens);
                        }
                        Found::Marker(i) => {
                            self.raw.push(set.get(i));
                            let at_call_close = self.d.multi && self.section.is_some() && i == 0;
                            self.malformed(at_call_close, kind, calls, out);
                        }
                    }
                }
            }
        }
    }

    /// A tag of a call with [tag-named parameters](Table::tag_params) is broken (too
    /// long, or a line break or `<` in it; `part`: its bytes not yet in [`tag`](Self::tag)):
    /// the call is malformed from here. The arguments converted so far go out first:
    /// they are the call's own, as when the break comes in a later feed.
    #[cold]
    #[inline(never)]
    fn tag_broken(&mut self, part: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        self.raw.push(&self.d.param_open);
        self.raw.push(&self.tag);
        self.raw.push(part);
        self.args(calls, out);
        self.st = St::Skip(ErrorKind::InvalidArguments);
    }

    /// Reports a malformed call whose raw text ends here; `at_call_close`: at the
    /// call's own close inside a section of several calls, which goes on.
    fn malformed(
        &mut self,
        at_call_close: bool,
        kind: ErrorKind,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) {
        let what = format!("a malformed {} call", self.d.what);
        report(calls, self.slot, kind, &what, &mut self.raw, out);
        if at_call_close {
            self.slot = None;
            self.raw.start("");
            self.expect.reset();
            self.st = St::After;
        } else {
            self.end_call();
        }
    }

    /// A name, key or attribute list grows; ends it at its end character.
    fn name_step(&mut self, s: &mut &str, calls: &mut Calls, out: &mut dyn EventSink) {
        let end = match self.st {
            St::Name => self.d.name_end,
            St::Key => self.d.key_end,
            _ => End::Gt,
        };
        let stops: &[char] = match end {
            End::Gt => &['>', '\n', '<'],
            End::Quote => &['"', '\n', '<', '>'],
            End::Line | End::Tags => &['\n', '<'],
        };
        let (part, rest) = match s.find(stops) {
            Some(i) => (
                s.get(..i).unwrap_or_default(),
                s.get(i..).unwrap_or_default(),
            ),
            None => (*s, ""),
        };
        let room = MAX_NAME.saturating_sub(self.name.len() + self.attrs.len());
        if part.len() > room && self.st == St::Name && end == End::Line && self.section.is_none() {
            // A bare call's "name" line past the longest name: its first `MAX_NAME` bytes
            // say whether it is prose after a literal opening tag (then the tag and those
            // bytes are text, and the rest of the line is read again as text) or a name
            // too long (an error with the call), whatever the chunking.
            let mut cut = room;
            while !part.is_char_boundary(cut) {
                cut -= 1;
            }
            let (fit, over) = part.split_at(cut);
            self.name.push_str(fit);
            self.raw.push(fit);
            if self.prose_line() && self.raw.dropped() == 0 {
                *s = s.get(cut..).unwrap_or_default();
                released(&mut self.raw, &mut self.text, out);
                self.end_call();
                return;
            }
            self.raw.push(over);
            *s = rest;
            self.st = St::Skip(ErrorKind::InvalidArguments);
            return;
        }
        self.raw.push(part);
        *s = rest;
        if part.len() > room {
            // Not kept (the raw text has it): bounded in one piece too.
            self.st = St::Skip(ErrorKind::InvalidArguments);
            return;
        }
        if matches!(self.st, St::Attrs { .. }) {
            self.attrs.push_str(part);
        } else {
            self.name.push_str(part);
        }
        let Some(c) = rest.chars().next() else {
            return;
        };
        if let (St::Attrs { key }, '<') = (self.st, c)
            && self.d.attrs_end != ">"
        {
            self.expect.reset();
            self.st = St::AttrsEnd { key };
            return;
        }
        // Whether the character that stopped the name ends it (and is consumed).
        let (ends, consume) = match (end, c) {
            (End::Gt, '>') | (End::Quote, '"') => (true, true),
            (End::Line, '\n')
                if self.name.trim_matches(is_ws).is_empty() && self.name.len() < MAX_NAME =>
            {
                // Line breaks before the name (bounded like the name).
                self.raw.push("\n");
                self.name.push('\n');
                *s = rest.get(1..).unwrap_or_default();
                return;
            }
            (End::Line, '\n') if self.st == St::Name && self.prose_line() => {
                // Not settled: what follows the line says whether a call body can.
                self.raw.push("\n");
                *s = rest.get(1..).unwrap_or_default();
                self.st = St::NameLine;
                return;
            }
            (End::Line, '\n') => (true, true),
            (End::Line, '<') | (End::Tags, '<') => (true, false),
            _ => (false, false),
        };
        if !ends && self.st == St::Name && end == End::Quote && c == '\n' {
            // A quoted name the line ends in (`Use a literal <function name=" tag.`):
            // no call began, the marker was text, and so is the name (the line break
            // read again as text).
            released(&mut self.raw, &mut self.text, out);
            self.end_call();
            return;
        }
        if !ends {
            self.st = St::Skip(ErrorKind::InvalidArguments);
            return;
        }
        if consume {
            self.raw.push(rest.get(..1).unwrap_or_default());
            *s = rest.get(1..).unwrap_or_default();
        }
        match (self.st, end) {
            (St::Attrs { key: false }, _) => {
                // A call's other attributes say nothing here.
                self.attrs.clear();
                self.st = St::Body;
            }
            (St::Attrs { key: true }, _) => self.key_done(calls, out),
            (St::Name, _) => self.name_ended(end, calls, out),
            (_, End::Quote) => self.st = St::Attrs { key: true },
            (_, End::Tags) => {
                self.expect.reset();
                self.st = St::KeyTail { open: false };
            }
            _ => self.key_done(calls, out),
        }
    }

    /// The name ended per `end`: the call starts (or is malformed), then what follows
    /// the name is read.
    fn name_ended(&mut self, end: End, calls: &mut Calls, out: &mut dyn EventSink) {
        self.name_done(calls, out);
        if end == End::Quote && self.st == St::Body {
            self.st = St::Attrs { key: false };
        } else if self.st == St::Body && !self.d.name_sep.is_empty() {
            self.expect.reset();
            self.st = St::NameSep;
        }
    }

    /// A bare call's name line read so far ([`End::Line`]) is prose rather than a name:
    /// a space or tab before it, or whitespace, a quote, a brace or markup inside it
    /// (`Use a literal <tool_call> tag.`). Whether it is a malformed call or text is
    /// then up to what follows the line ([`St::NameLine`]).
    fn prose_line(&self) -> bool {
        if self.section.is_some() || self.d.name_end != End::Line {
            return false;
        }
        let line = self.name.trim_start_matches(['\n', '\r']);
        let name = line.trim_end_matches(is_ws);
        line.starts_with(is_ws) || name.contains(|c: char| is_ws(c) || "{}\"'<>".contains(c))
    }

    /// [`St::NameLine`]: whitespace after the name line, then a `<` (a call body may
    /// follow: the call goes on) or other text (the opening tag was prose: text).
    fn name_line(&mut self, s: &mut &str, calls: &mut Calls, out: &mut dyn EventSink) {
        let rest = s.trim_start_matches(is_ws);
        let ws = s.get(..s.len() - rest.len()).unwrap_or_default();
        if self.raw.len() + ws.len() > 2 * MAX_NAME {
            // More whitespace than a call's layout holds.
            self.raw.push(ws);
            *s = rest;
            released(&mut self.raw, &mut self.text, out);
            self.end_call();
            return;
        }
        self.raw.push(ws);
        *s = rest;
        match rest.chars().next() {
            None => {}
            Some('<') => self.name_ended(End::Line, calls, out),
            Some(_) => {
                released(&mut self.raw, &mut self.text, out);
                self.end_call();
            }
        }
    }

    /// The function name is complete: the call starts.
    fn name_done(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        let name = self.name.trim_matches(is_ws);
        // (Checked as written: an escaped quote, `&quot;`, is a name's character.)
        let junk = name.contains(|c: char| is_ws(c) || "\"'<>".contains(c));
        let unescaped;
        let name = if self.d.attr_entities {
            unescaped = attr_unescape(name);
            &*unescaped
        } else {
            name
        };
        if name.is_empty() {
            self.st = St::Skip(ErrorKind::MissingName);
            return;
        }
        if self.d.name_end == End::Line && name.contains(|c: char| "{}\"' \t\r\n".contains(c)) {
            // `<tool_call>{"name": ..}` is not this syntax.
            self.st = St::Skip(ErrorKind::InvalidArguments);
            return;
        }
        if junk
            || (self.d.name_end == End::Quote
                && name.contains(|c: char| is_ws(c) || "=<>'".contains(c)))
        {
            // A name that is no name (`get weather"`), or a quote lost after the name
            // (`name="f index="1"`) that read the next attribute into it: the call is an
            // error with its bytes.
            self.st = St::Skip(ErrorKind::InvalidArguments);
            return;
        }
        self.slot = calls.open_scanned(out);
        if let Some(slot) = self.slot {
            calls.set_name(slot, name, out);
        }
        self.func.clear();
        self.func.push_str(name);
        self.name.clear();
        self.st = St::Body;
    }

    /// The tags after a key ended by [`End::Tags`] (`</arg_key>`, then `<arg_value>`).
    fn key_tail(&mut self, open: bool, s: &mut &str, calls: &mut Calls, out: &mut dyn EventSink) {
        if self.expect.matched() == 0 {
            self.raw.push(skip_ws(s));
            if s.is_empty() {
                return;
            }
        }
        let (Some(set), End::Tags) = (self.sets.tail.get(usize::from(open)), self.d.key_end) else {
            return;
        };
        let tag = if open {
            &*self.d.key_tags.1
        } else {
            &*self.d.key_tags.0
        };
        match self.expect.feed(set, s) {
            Expected::NeedMore => *s = "",
            Expected::Matched { consumed, .. } => {
                self.raw.push(tag);
                *s = s.get(consumed..).unwrap_or_default();
                // Without a value-opening tag (Solar Open 2's `<|tool_arg:value|>` ends the
                // key and opens the value) the value starts here, whitespace and all.
                if open || self.d.key_tags.1.is_empty() {
                    self.key_done(calls, out);
                } else {
                    self.st = St::KeyTail { open: true };
                }
            }
            Expected::Mismatch { len, consumed, .. } => {
                let given = tag.get(..len).unwrap_or_default().to_owned();
                self.raw.push(&given);
                *s = s.get(consumed..).unwrap_or_default();
                if open {
                    // The value's opening tag is missing (GLM-4.7 drops it at times):
                    // the value starts here, with what looked like the tag.
                    self.key_done(calls, out);
                    if self.st == St::Value {
                        self.value_text(&given, calls, out);
                    }
                } else {
                    self.st = St::Skip(ErrorKind::InvalidArguments);
                }
            }
        }
    }

    /// A tag of [`Table::json_block`]: before the object (where a parameter's tag may
    /// stand instead: then what was matched is read as the body again) or after it.
    fn json_tag(&mut self, close: bool, s: &mut &str, calls: &mut Calls, out: &mut dyn EventSink) {
        if close && self.expect.matched() == 0 {
            self.raw.push(skip_ws(s));
            if s.is_empty() {
                return;
            }
        }
        // The tag is its marker set's one marker (no copy of a spec's owned tags).
        let Some(set) = self.sets.json_block.get(usize::from(close)) else {
            return;
        };
        let tag = set.get(0);
        match self.expect.feed(set, s) {
            Expected::NeedMore => *s = "",
            Expected::Matched { consumed, .. } => {
                *s = s.get(consumed..).unwrap_or_default();
                self.expect.reset();
                self.raw.push(tag);
                if close {
                    self.json_done = true;
                    self.st = St::Body;
                } else {
                    self.st = St::JsonBody;
                }
            }
            Expected::Mismatch { len, consumed, .. } => {
                *s = s.get(consumed..).unwrap_or_default();
                self.expect.reset();
                if close {
                    self.raw.push(tag.get(..len).unwrap_or_default());
                    self.st = St::Skip(ErrorKind::InvalidArguments);
                } else {
                    // Not the block: the body as usual, from the matched bytes on (in
                    // a buffer kept for it: `tag` is the marker set's, and a spec's is
                    // owned).
                    let mut given = std::mem::take(&mut self.again);
                    given.clear();
                    given.push_str(tag.get(..len).unwrap_or_default());
                    self.json_tried = true;
                    self.st = St::Body;
                    self.steps(&given, calls, out);
                    self.again = given;
                }
            }
        }
    }

    /// The separator tag after the name ([`Table::name_sep`], whitespace before it
    /// skipped): consumed when it is there; otherwise the body starts with what was
    /// matched of it.
    fn name_sep(&mut self, s: &mut &str, calls: &mut Calls, out: &mut dyn EventSink) {
        if self.expect.matched() == 0 {
            self.raw.push(skip_ws(s));
            if s.is_empty() {
                return;
            }
        }
        match self.expect.feed(&self.sets.name_sep, s) {
            Expected::NeedMore => *s = "",
            Expected::Matched { consumed, .. } => {
                self.raw.push(&self.d.name_sep);
                *s = s.get(consumed..).unwrap_or_default();
                self.expect.reset();
                self.st = St::Body;
            }
            Expected::Mismatch { len, consumed, .. } => {
                *s = s.get(consumed..).unwrap_or_default();
                self.expect.reset();
                self.st = St::Body;
                let given = self.d.name_sep.get(..len).unwrap_or_default().to_owned();
                self.steps(&given, calls, out);
            }
        }
    }

    /// The tag that ends the attributes ([`Table::attrs_end`]); then as at `>`.
    fn attrs_end(&mut self, key: bool, s: &mut &str, calls: &mut Calls, out: &mut dyn EventSink) {
        match self.expect.feed(&self.sets.attrs_end, s) {
            Expected::NeedMore => *s = "",
            Expected::Matched { consumed, .. } => {
                self.raw.push(&self.d.attrs_end);
                *s = s.get(consumed..).unwrap_or_default();
                self.expect.reset();
                if key {
                    self.key_done(calls, out);
                } else {
                    self.attrs.clear();
                    self.st = St::Body;
                }
            }
            Expected::Mismatch { len, consumed, .. } => {
                self.raw
                    .push(self.d.attrs_end.get(..len).unwrap_or_default());
                *s = s.get(consumed..).unwrap_or_default();
                self.expect.reset();
                self.st = St::Skip(ErrorKind::InvalidArguments);
            }
        }
    }

    /// A parameter key (and its attributes) is complete: the value begins.
    fn key_done(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        let key = self.name.trim_matches(is_ws);
        let unescaped;
        let key = if self.d.attr_entities {
            unescaped = attr_unescape(key);
            &*unescaped
        } else {
            key
        };
        if !self.members.insert(key) {
            // A repeated parameter: its value would overwrite the first one.
            self.name.clear();
            self.attrs.clear();
            self.st = St::Skip(ErrorKind::InvalidArguments);
            return;
        }
        self.kind = match (self.options.value_kind(&self.func, key), self.d.kind_attr) {
            (ValueKind::Infer, KindAttr::DsmlString) => string_attr(&self.attrs),
            (ValueKind::Infer, KindAttr::XtmlType) => type_attr(&self.attrs),
            (kind, _) => kind,
        };
        if self.d.tag_params && self.kind == ValueKind::Infer {
            self.kind = self.leaf_kind();
        }
        self.buf.push_str(if self.params == 0 { "{" } else { "," });
        self.params += 1;
        self.buf.push('"');
        escape_into(&mut self.buf, key);
        self.buf.push_str("\":");
        self.name.clear();
        self.attrs.clear();
        self.v = V::Undecided;
        self.lead = self.d.trim_newline;
        self.nl = false;
        self.cdata = if self.d.cdata && !self.d.tag_params {
            Cdata::May
        } else {
            Cdata::Off
        };
        self.cdata_br = 0;
        self.pre.clear();
        self.held.clear();
        self.json_end = None;
        if self.kind == ValueKind::String && !self.d.tag_params {
            // (With tag-named parameters a child tag may still make it an object.)
            self.v = V::Str;
            self.buf.push('"');
        }
        self.args(calls, out);
        self.st = St::Value;
    }

    /// A marker inside a call (after a value, or between parameters).
    fn body_marker(&mut self, m: usize, calls: &mut Calls, out: &mut dyn EventSink) {
        if self.d.tag_params {
            self.tag.clear();
            self.st = St::Tag { value: false };
            return;
        }
        self.raw.push(self.sets.body.get(m));
        match m {
            // A parameter after a JSON body: the arguments are given twice.
            B_END_PARAM | B_PARAM if self.json_done => {
                self.st = St::Skip(ErrorKind::InvalidArguments);
            }
            B_END_PARAM => self.st = St::Body,
            B_PARAM => self.st = St::Key,
            _ => self.close_call(m >= B_END_SECTION, calls, out),
        }
    }

    /// The call's close (`section`: the section's, the call's missing): the arguments
    /// end, the call completes.
    fn close_call(&mut self, section: bool, calls: &mut Calls, out: &mut dyn EventSink) {
        if !self.json_done {
            self.buf.push_str(if self.params == 0 { "{}" } else { "}" });
        }
        self.args_to(true, calls, out);
        if let Some(slot) = self.slot {
            calls.close_with_raw(slot, self.raw.as_str(), out);
        }
        let (stray, note) = self.stray.take();
        let kept = stray.trim_matches(is_ws);
        if !kept.is_empty() || !note.is_empty() {
            out.push(Event::Error {
                path: None,
                kind: ErrorKind::UnexpectedPayload,
                message: format!(
                    "text outside the parameters of a {} call{note}",
                    self.d.what
                ),
                index: None,
                raw: kept.to_owned(),
            });
        }
        if section || self.section.is_none() {
            self.end_call();
        } else {
            self.expect.reset();
            self.st = St::After;
        }
    }

    /// A tag of a call with [tag-named parameters](Table::tag_params) is complete
    /// (`self.tag`, without `param_open` and `>`); `value`: it came inside a value.
    fn tag_done(&mut self, value: bool, calls: &mut Calls, out: &mut dyn EventSink) {
        let tag = std::mem::take(&mut self.tag);
        let bad = ErrorKind::InvalidArguments;
        let opener = tag
            .strip_prefix("invoke")
            .is_some_and(|a| a.starts_with(is_ws))
            && self.frames.is_empty();
        if !opener {
            self.raw.push(&self.d.param_open);
            self.raw.push(&tag);
            self.raw.push(">");
        }
        if let Some(name) = tag.strip_prefix('/') {
            let name = name.trim_matches(is_ws);
            if value && name == self.elem {
                // The element's own close: a leaf value ends.
                self.value_end(calls, out);
                self.st = St::Body;
            } else if !value && self.frames.last().is_some_and(|f| *f.name == *name) {
                // A nested element's close.
                if let Some(f) = self.frames.pop() {
                    self.buf.push(if f.array { ']' } else { '}' });
                }
                self.st = St::Body;
            } else if name == "invoke" || name == "tool_call" {
                if value || !self.frames.is_empty() {
                    // The call's (or section's) close with an element still open: its
                    // close was dropped, and what followed may have been read into it.
                    self.args(calls, out);
                    let at_call_close = name == "invoke" && self.d.multi && self.section.is_some();
                    self.malformed(at_call_close, bad, calls, out);
                    return;
                }
                self.close_call(name == "tool_call", calls, out);
            } else {
                self.st = St::Skip(bad);
            }
        } else {
            let name = tag.trim_matches(is_ws);
            if name == "tool_call" || name.starts_with("invoke") && !self.frames.is_empty() {
                self.st = St::Skip(bad);
            } else if let Some(attrs) = name.strip_prefix("invoke")
                && attrs.starts_with(is_ws)
            {
                // A new call inside this one: it ends here; the new one is read from its
                // name (`invoke name="g"`).
                let what = format!("{}invoke", self.d.param_open);
                interrupted(calls, self.slot, &what, &mut self.raw, out);
                let section = self.section;
                self.end_call();
                self.begin(section, At::Param);
                self.raw.push(&tag);
                self.raw.push(">");
                let quoted = attrs
                    .trim_start_matches(is_ws)
                    .strip_prefix("name=\"")
                    .and_then(|r| r.split_once('"'));
                match quoted {
                    Some((n, _)) => {
                        self.name.push_str(n);
                        self.name_done(calls, out);
                    }
                    None => self.st = St::Skip(bad),
                }
            } else if value {
                // A child: the value is an object (an array for `item`s), unless it had
                // text already.
                let blank = self.v == V::Undecided && self.held.trim_matches(is_ws).is_empty();
                if !blank || self.frames.len() + 2 >= self.max_depth {
                    self.st = St::Skip(bad);
                    self.args(calls, out);
                    return;
                }
                self.held.clear();
                let array = name == "item";
                self.buf.push(if array { '[' } else { '{' });
                self.frames.push(Frame {
                    name: std::mem::take(&mut self.elem).into(),
                    array,
                    count: 0,
                    keys: Members::default(),
                });
                self.child(name, calls, out);
            } else if self.frames.is_empty() {
                // A parameter.
                self.name.clear();
                self.name.push_str(name);
                self.elem.clear();
                self.elem.push_str(name);
                self.key_done(calls, out);
            } else {
                self.child(name, calls, out);
            }
        }
        self.args(calls, out);
    }

    /// How a [tag-named](Table::tag_params) leaf the schema does not type becomes
    /// JSON: by the schema-less rule when the call's tool is declared (its nested types
    /// are not read), otherwise a string, as the peers' MiniMax M3 parsers read it.
    fn leaf_kind(&self) -> ValueKind {
        if self.options.declares(&self.func) {
            ValueKind::Infer
        } else {
            ValueKind::String
        }
    }

    /// Child element `name` of the innermost frame begins: its value is read as a leaf
    /// ([`leaf_kind`](Self::leaf_kind)) until a child of its own makes it a frame.
    fn child(&mut self, name: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        let kind = self.leaf_kind();
        let Some(f) = self.frames.last_mut() else {
            return;
        };
        if (f.array && name != "item") || (!f.array && !f.keys.insert(name)) {
            // A named child in an array (a dropped close moved a parameter into it), or
            // a repeated key (its value would overwrite the first one).
            self.st = St::Skip(ErrorKind::InvalidArguments);
            return;
        }
        if f.count > 0 {
            self.buf.push(',');
        }
        f.count += 1;
        if !f.array {
            self.buf.push('"');
            escape_into(&mut self.buf, name);
            self.buf.push_str("\":");
        }
        self.elem.clear();
        self.elem.push_str(name);
        self.kind = kind;
        self.v = V::Undecided;
        self.lead = false;
        self.nl = false;
        self.cdata = Cdata::Off;
        self.held.clear();
        self.json_end = None;
        self.args(calls, out);
        self.st = St::Value;
    }

    /// After a call's close inside a section: the section's close, or (`multi`) the
    /// next call; anything else ends the section and is text again.
    fn after(&mut self, s: &mut &str, out: &mut dyn EventSink) {
        if self.expect.matched() == 0 {
            skip_ws(s);
            if s.is_empty() {
                return;
            }
        }
        match self.expect.feed(&self.sets.after, s) {
            Expected::NeedMore => *s = "",
            Expected::Matched { index, consumed } => {
                *s = s.get(consumed..).unwrap_or_default();
                if index < self.d.sections.len() {
                    self.end_call();
                } else {
                    self.begin(self.section, At::Call);
                    self.st = St::Name;
                }
            }
            Expected::Mismatch {
                which,
                len,
                consumed,
            } => {
                *s = s.get(consumed..).unwrap_or_default();
                self.end_call();
                let given = self.sets.after.get(which).get(..len).unwrap_or_default();
                self.text.give_back(given, out);
            }
        }
    }

    /// More text of a value.
    fn value_text(&mut self, t: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        if self.d.entities && (!self.entity.is_empty() || has_amp(t.as_bytes())) {
            let decoded = self.decode_entities(t);
            self.value_chars(&decoded, calls, out);
        } else {
            self.value_chars(t, calls, out);
        }
    }

    /// `t` with its character references decoded; a reference cut by the piece's end is
    /// held in `entity` (bounded: a reference is at most [`MAX_ENTITY`] bytes).
    #[cold]
    fn decode_entities(&mut self, t: &str) -> String {
        let mut input = std::mem::take(&mut self.entity);
        input.push_str(t);
        let mut decoded = String::with_capacity(input.len());
        let mut rest = input.as_str();
        while let Some(i) = rest.find('&') {
            let (before, tail) = split_str(rest, i);
            decoded.push_str(before);
            match entity_at(tail) {
                Entity::Char(c, len) => {
                    decoded.push(c);
                    rest = tail.get(len..).unwrap_or_default();
                }
                Entity::Partial => {
                    self.entity.push_str(tail);
                    rest = "";
                }
                Entity::No => {
                    decoded.push('&');
                    rest = tail.get(1..).unwrap_or_default();
                }
            }
        }
        decoded.push_str(rest);
        decoded
    }

    /// More text of a value (character references decoded).
    fn value_chars(&mut self, mut t: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        if self.lead {
            self.lead = false;
            t = t.strip_prefix('\n').unwrap_or(t);
        }
        if t.is_empty() {
            return;
        }
        match self.cdata {
            Cdata::Off => {}
            Cdata::May => return self.cdata_may(t, calls, out),
            Cdata::After => {
                if t.trim_start_matches(is_ws).is_empty() && self.held.len() <= self.max_args {
                    self.held.push_str(t);
                    return;
                }
                // Text after the section: more of the string, the whitespace before it too.
                self.cdata = Cdata::Off;
                let held = std::mem::take(&mut self.held);
                escape_into(&mut self.buf, &held);
                self.held = held;
                self.held.clear();
            }
        }
        match self.v {
            V::Undecided => {
                let body = t.trim_start_matches(is_ws);
                let Some(first) = body.chars().next() else {
                    // Only whitespace: held, and past the limit a string (the same
                    // value it would be at its end).
                    self.held.push_str(t);
                    if self.held.len() > self.max_args {
                        self.make_string(calls, out);
                    }
                    return;
                };
                if self.kind == ValueKind::String {
                    self.make_string(calls, out);
                    self.string_text(t);
                    return;
                }
                // A JSON string is JSON text too where the value is said to be JSON
                // (DSML's `string="false"`, a schema's non-string type): decoded. Without
                // a kind it stays the string of its raw text, quotes included.
                if matches!(first, '-' | '0'..='9' | 't' | 'f' | 'n' | '{' | '[')
                    || (first == '"' && self.kind == ValueKind::Json)
                {
                    self.v = V::Json;
                    // One level less: the value sits inside the arguments object.
                    self.json = JsonScanner::with_max_depth(self.max_depth.saturating_sub(1));
                    self.json_end = None;
                    let ws = t.len() - body.len();
                    self.held.push_str(t.get(..ws).unwrap_or_default());
                    let base = self.held.len();
                    self.held.push_str(body);
                    self.scan_held(base, calls, out);
                } else if (self.kind == ValueKind::Json
                    || self.kind == ValueKind::Infer && self.d.py_literals)
                    && matches!(first, 'T' | 'F' | 'N')
                {
                    self.v = V::Py;
                    self.held.push_str(t);
                    self.check_py(calls, out);
                } else {
                    self.make_string(calls, out);
                    self.string_text(t);
                }
            }
            V::Json => {
                let base = self.held.len();
                self.held.push_str(t);
                self.scan_held(base, calls, out);
            }
            V::Py => {
                self.held.push_str(t);
                self.check_py(calls, out);
            }
            V::Str => self.string_text(t),
        }
    }

    /// Value text while the value may still open a [CDATA section](Table::cdata):
    /// held while it is whitespace and a prefix of [`CDATA_OPEN`]; the section opens
    /// once that is complete, otherwise the held text is the value's as usual.
    #[cold]
    fn cdata_may(&mut self, t: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        self.pre.push_str(t);
        let body = self.pre.trim_start_matches(is_ws);
        if body.len() >= CDATA_OPEN.len() {
            if let Some(content) = body.strip_prefix(CDATA_OPEN) {
                // The whitespace before the section is layout; the value is a string.
                let content = content.to_owned();
                self.cdata = Cdata::Off;
                self.pre.clear();
                if self.v != V::Str {
                    self.v = V::Str;
                    self.buf.push('"');
                }
                self.cdata_br = 0;
                self.st = St::Cdata;
                let mut rest = content.as_str();
                self.cdata_content(&mut rest);
                if !rest.is_empty() {
                    // The section closed within the held text: what follows is value
                    // text again (no marker can be in it: the matcher gave it as text).
                    self.value_chars(rest, calls, out);
                }
                return;
            }
        } else if CDATA_OPEN.starts_with(body) && self.pre.len() <= self.max_args {
            return;
        }
        self.cdata_off(calls, out);
    }

    /// The value does not open a CDATA section: its held text is read as usual.
    fn cdata_off(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.cdata = Cdata::Off;
        let pre = std::mem::take(&mut self.pre);
        if !pre.is_empty() {
            self.value_chars(&pre, calls, out);
        }
        self.pre = pre;
        self.pre.clear();
    }

    /// [`St::Cdata`] in the scan: the section's content from the start of `s` (its bytes
    /// to the raw text), through its `]]>`.
    fn cdata_step(&mut self, s: &mut &str) {
        let (taken, rest) = {
            let mut rest = *s;
            self.cdata_content(&mut rest);
            (s.len() - rest.len(), rest)
        };
        self.raw.push(s.get(..taken).unwrap_or_default());
        *s = rest;
    }

    /// CDATA content from the start of `s` (advanced past what was read: all of it, or
    /// through the `]]>` that closes the section, which ends [`St::Cdata`]); the content
    /// goes to the string verbatim, a `]` that may begin `]]>` held until it is known.
    fn cdata_content(&mut self, s: &mut &str) {
        let mut rest = *s;
        loop {
            if self.cdata_br > 0 {
                match rest.as_bytes().first() {
                    None => break,
                    Some(b']') => {
                        if self.cdata_br == 2 {
                            // `]]]`: the first is content.
                            self.buf.push(']');
                        }
                        self.cdata_br = 2;
                        rest = rest.get(1..).unwrap_or_default();
                        continue;
                    }
                    Some(b'>') if self.cdata_br == 2 => {
                        rest = rest.get(1..).unwrap_or_default();
                        self.cdata_br = 0;
                        self.cdata = Cdata::After;
                        self.held.clear();
                        self.st = St::Value;
                        break;
                    }
                    Some(_) => {
                        for _ in 0..self.cdata_br {
                            self.buf.push(']');
                        }
                        self.cdata_br = 0;
                    }
                }
            }
            match memchr::memchr(b']', rest.as_bytes()) {
                None => {
                    escape_into(&mut self.buf, rest);
                    rest = "";
                    break;
                }
                Some(i) => {
                    escape_into(&mut self.buf, rest.get(..i).unwrap_or_default());
                    self.cdata_br = 1;
                    rest = rest.get(i + 1..).unwrap_or_default();
                }
            }
        }
        *s = rest;
    }

    /// The Python literal a held value is, if complete.
    fn py_literal(&self) -> Option<&'static str> {
        let body = self.held.trim_matches(is_ws);
        PY_LITERALS
            .iter()
            .find(|(py, _)| *py == body)
            .map(|(_, json)| *json)
    }

    /// A held `V::Py` value grew: a string once it cannot be a Python literal (or
    /// outgrows the argument limit, whitespace and all).
    fn check_py(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        let body = self.held.trim_start_matches(is_ws);
        let word = body.trim_end_matches(is_ws);
        let ok = if self.held.len() > self.max_args {
            false
        } else if word.len() < body.len() {
            self.py_literal().is_some()
        } else {
            PY_LITERALS.iter().any(|(py, _)| py.starts_with(word))
        };
        if !ok {
            self.make_string(calls, out);
        }
    }

    /// A possibly-JSON value grew by `held[base..]`: over the argument limit it is a
    /// string (whatever the pieces it came in), otherwise the new text is scanned.
    fn scan_held(&mut self, base: usize, calls: &mut Calls, out: &mut dyn EventSink) {
        if self.held.len() > self.max_args {
            self.make_string(calls, out);
        } else {
            self.scan_json(base, calls, out);
        }
    }

    /// Scans `held[base..]` as JSON; turns the value into a string once it cannot be JSON.
    fn scan_json(&mut self, base: usize, calls: &mut Calls, out: &mut dyn EventSink) {
        let new = self.held.get(base..).unwrap_or_default();
        let bad = match self.json_end {
            // The value closed earlier: only whitespace may follow.
            Some(_) => !new.trim_start_matches(is_ws).is_empty(),
            None => match self.json.feed(new.as_bytes()) {
                JsonStatus::NeedMore => false,
                JsonStatus::Invalid { .. } => true,
                JsonStatus::Complete { consumed } => {
                    self.json_end = Some(base + consumed);
                    !new.get(consumed..)
                        .unwrap_or_default()
                        .trim_start_matches(is_ws)
                        .is_empty()
                }
            },
        };
        if bad {
            self.make_string(calls, out);
        }
    }

    /// The value is a string: open it and stream the held text.
    fn make_string(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.v = V::Str;
        self.buf.push('"');
        let held = std::mem::take(&mut self.held);
        self.string_text(&held);
        self.held = held;
        self.held.clear();
        self.args(calls, out);
    }

    /// String text: escaped and streamed, holding one trailing newline when the dialect
    /// strips it.
    /// `feed` inside a string value, no marker held (out of line: `feed` stays small for
    /// the prose path).
    #[inline(never)]
    fn feed_value(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        let mut scratch = std::mem::take(&mut self.input.scratch);
        let text = self.input.utf8.push(bytes, &mut scratch);
        if self.sets.body.may_start_in(text.as_bytes()) {
            self.feed_text(&text, calls, out);
        } else if !text.is_empty() {
            self.value_piece(&text, calls, out);
        }
        drop(text);
        self.input.scratch = scratch;
    }

    /// More of a string value, with no marker in it (`feed`'s hot path): what `steps`
    /// does with it.
    #[inline]
    fn value_piece(&mut self, t: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        self.raw.push(t);
        let bytes = t.as_bytes();
        let entities = self.d.entities;
        let plain = if entities {
            // One pass for both: a byte to escape, or a `&` that may begin a reference.
            self.entity.is_empty() && !special_or_amp(bytes)
        } else {
            json_special(bytes).is_none()
        };
        if plain && !self.nl && self.buf.is_empty() {
            // Nothing to escape (and no newline to hold back): `string_text` would copy
            // `t` to `buf` as it is and `args` hand that on.
            if let Some(slot) = self.slot {
                // A named call never refuses argument bytes (opened at its name).
                let _ = calls.scanned_args(slot, t, false, out);
            }
            return;
        }
        if entities && (!self.entity.is_empty() || has_amp(bytes)) {
            self.value_text(t, calls, out);
            self.args(calls, out);
            return;
        }
        self.string_text(t);
        self.args(calls, out);
    }

    fn string_text(&mut self, t: &str) {
        if t.is_empty() {
            return;
        }
        if self.nl {
            self.buf.push_str("\\n");
            self.nl = false;
        }
        let t = match t.strip_suffix('\n').filter(|_| self.d.trim_newline) {
            Some(x) => {
                self.nl = true;
                x
            }
            None => t,
        };
        // Flushed at the end of the feed (or at the value's end): one delta per feed.
        escape_into(&mut self.buf, t);
    }

    /// The value ended (at a marker).
    fn value_end(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        match self.cdata {
            Cdata::Off => {}
            Cdata::May => self.cdata_off(calls, out),
            Cdata::After => {
                // Whitespace after the section is layout.
                self.cdata = Cdata::Off;
                self.held.clear();
            }
        }
        if !self.entity.is_empty() {
            // A `&` that no reference followed: text as it is.
            let held = std::mem::take(&mut self.entity);
            self.value_chars(&held, calls, out);
        }
        match self.v {
            V::Str => {}
            V::Undecided => {
                let mut held = std::mem::take(&mut self.held);
                if self.d.trim_newline && held.ends_with('\n') {
                    held.pop();
                }
                self.buf.push('"');
                escape_into(&mut self.buf, &held);
            }
            V::Py => {
                if let Some(lit) = self.py_literal() {
                    self.buf.push_str(lit);
                    self.held.clear();
                    self.args(calls, out);
                    return;
                }
                self.make_string(calls, out);
            }
            V::Json => {
                let complete = self.json_end.is_some() || self.json.finish();
                if complete {
                    self.buf.push_str(self.held.trim_matches(is_ws));
                    self.held.clear();
                    self.args(calls, out);
                    return;
                }
                self.make_string(calls, out);
            }
        }
        self.nl = false;
        self.buf.push('"');
        self.args(calls, out);
    }

    /// Opener `k` of [`openers`] (its tag consumed) begins a new call after the one it
    /// ended: the call's own tag inside the current section (or bare), or a section's.
    fn reopen(&mut self, k: usize) {
        let section = self.section;
        self.end_call();
        if k == 0 {
            self.begin(section, At::Call);
            self.st = St::Name;
        } else if k - 1 < self.d.sections.len() {
            self.begin(Some(k - 1), At::Section);
            self.st = St::Wrap;
        }
    }

    fn end_call(&mut self) {
        self.st = St::Text;
        self.json_done = false;
        self.json_tried = false;
        self.fresh = false;
        self.slot = None;
        self.section = None;
        self.matcher.clear();
        self.expect.reset();
        self.raw.start("");
        self.name.clear();
        self.func.clear();
        self.attrs.clear();
        self.held.clear();
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.run_held(calls, out);
        let tail = self.matcher.finish().to_owned();
        match self.st {
            St::Text => {}
            // A literal opening tag and prose after it, cut off: text.
            St::NameLine => {
                released(&mut self.raw, &mut self.text, out);
                self.end_call();
            }
            St::Name if self.prose_line() => {
                released(&mut self.raw, &mut self.text, out);
                self.end_call();
            }
            // A section open and nothing else (a bare opener at the end) is cut off like
            // any call: `truncated`, below, with its bytes.
            St::After => {
                let given = self.expect.text(&self.sets.after).to_owned();
                self.end_call();
                self.text.give_back(&given, out);
            }
            _ => {
                if let St::KeyTail { open } = self.st
                    && let Some(set) = self.sets.tail.get(usize::from(open))
                {
                    self.raw.push(self.expect.text(set));
                }
                if let St::AttrsEnd { .. } = self.st {
                    self.raw.push(self.expect.text(&self.sets.attrs_end));
                }
                if let St::NameSep = self.st {
                    self.raw.push(self.expect.text(&self.sets.name_sep));
                }
                if let St::JsonTag { close } = self.st
                    && let Some(set) = self.sets.json_block.get(usize::from(close))
                {
                    self.raw.push(self.expect.text(set));
                }
                if let St::Tag { .. } = self.st {
                    self.raw.push(&self.d.param_open);
                    self.raw.push(&self.tag);
                }
                self.raw.push(&tail);
                let kind = match self.st {
                    St::Skip(k) => k,
                    _ => ErrorKind::Truncated,
                };
                let what = format!("the text ended inside a {} call", self.d.what);
                report(calls, self.slot, kind, &what, &mut self.raw, out);
                self.end_call();
            }
        }
        self.text.finish(out);
    }

    /// Only the section open and whitespace were seen.
    fn raw_is_blank(&self) -> bool {
        let open = self
            .section
            .and_then(|i| self.d.sections.get(i))
            .map_or("", |(o, _)| &**o);
        self.raw
            .as_str()
            .strip_prefix(open)
            .is_some_and(|r| r.trim().is_empty())
    }
}

/// The kind an XTML `type="..."` attribute gives: `string` (or none) a string, any
/// other type JSON text.
fn type_attr(attrs: &str) -> ValueKind {
    let compact: String = attrs.chars().filter(|c| !is_ws(*c)).collect();
    match compact.find("type=\"") {
        Some(i)
            if !compact
                .get(i + 6..)
                .unwrap_or_default()
                .starts_with("string\"") =>
        {
            ValueKind::Json
        }
        _ => ValueKind::String,
    }
}

/// Decodes `&quot;` and `&amp;` (in that order: XTML escapes `&` first) in an attribute
/// value.
fn attr_unescape(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains('&') {
        s.replace("&quot;", "\"").replace("&amp;", "&").into()
    } else {
        s.into()
    }
}

/// `hay` holds a `&`: a token-sized piece by a plain loop (inlined: `memchr`'s call cost
/// ~4 % of minimax's argument path in 4-byte feeds), a longer one by `memchr`.
#[inline(always)]
fn has_amp(hay: &[u8]) -> bool {
    if hay.len() < 16 {
        let mut i = 0;
        while let Some(&b) = hay.get(i) {
            if b == b'&' {
                return true;
            }
            i += 1;
        }
        false
    } else {
        memchr::memchr(b'&', hay).is_some()
    }
}

/// `hay` holds a byte a JSON string must escape or a `&` (token-sized: one plain loop).
#[inline(always)]
fn special_or_amp(hay: &[u8]) -> bool {
    if hay.len() < 16 {
        let mut i = 0;
        while let Some(&b) = hay.get(i) {
            if b < 0x20 || b == b'"' || b == b'\\' || b == b'&' {
                return true;
            }
            i += 1;
        }
        false
    } else {
        crate::scan::find::find_json_special(hay).is_some() || has_amp(hay)
    }
}

/// Longest character reference read in a value (`&#x10FFFF;`).
const MAX_ENTITY: usize = 10;

/// What a `&` in a value begins.
enum Entity {
    /// A character reference: its character and length.
    Char(char, usize),
    /// Possibly a reference, cut by the end of the piece.
    Partial,
    /// Not a reference: the `&` is text.
    No,
}

/// Reads the character reference at the start of `s` (which begins with `&`): the five
/// XML named ones and numeric ones (`&#60;`, `&#x3C;`).
fn entity_at(s: &str) -> Entity {
    let body = s.get(1..).unwrap_or_default();
    let limit = body.len().min(MAX_ENTITY - 1);
    let Some(end) = body.get(..limit).and_then(|b| b.find(';')) else {
        let word = body.get(..limit).unwrap_or(body);
        return if limit == body.len()
            && limit < MAX_ENTITY - 1
            && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'#')
        {
            Entity::Partial
        } else {
            Entity::No
        };
    };
    let name = body.get(..end).unwrap_or_default();
    let c = match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => name
            .strip_prefix("#x")
            .or_else(|| name.strip_prefix("#X"))
            .map(|h| u32::from_str_radix(h, 16))
            .or_else(|| name.strip_prefix('#').map(str::parse::<u32>))
            .and_then(Result::ok)
            .and_then(char::from_u32),
    };
    match c {
        Some(c) => Entity::Char(c, end + 2),
        None => Entity::No,
    }
}

/// `s` split at byte `at` (all of `s` first when `at` is not a character boundary).
fn split_str(s: &str, at: usize) -> (&str, &str) {
    match (s.get(..at), s.get(at..)) {
        (Some(a), Some(b)) => (a, b),
        _ => (s, ""),
    }
}

/// Advances `s` past its leading whitespace; returns the whitespace.
fn skip_ws<'a>(s: &mut &'a str) -> &'a str {
    let rest = s.trim_start_matches(is_ws);
    let ws = s.get(..s.len() - rest.len()).unwrap_or_default();
    *s = rest;
    ws
}

/// The kind a DSML `string="true|false"` attribute gives.
fn string_attr(attrs: &str) -> ValueKind {
    let compact: String = attrs.chars().filter(|c| !is_ws(*c)).collect();
    if compact.contains("string=\"true\"") {
        ValueKind::String
    } else if compact.contains("string=\"false\"") {
        ValueKind::Json
    } else {
        ValueKind::Infer
    }
}

/// The first byte of `hay` that a JSON string must escape: a token-sized haystack by a
/// plain loop (inlined), a longer one eight bytes at a time
/// ([`find_json_special`](crate::scan::find::find_json_special)). Always inlined: out of
/// line it cost ~30 Ir per 4-byte piece.
#[inline(always)]
fn json_special(hay: &[u8]) -> Option<usize> {
    if hay.len() < 16 {
        // A plain loop: `Iter::position` was not inlined here.
        let mut i = 0;
        while let Some(&b) = hay.get(i) {
            if b < 0x20 || b == b'"' || b == b'\\' {
                return Some(i);
            }
            i += 1;
        }
        None
    } else {
        crate::scan::find::find_json_special(hay)
    }
}

/// Appends `s` escaped for a JSON string (no quotes): runs of plain bytes are copied
/// whole, only the bytes that need it are escaped.
pub(crate) fn escape_into(buf: &mut String, s: &str) {
    if s.len() < 16 {
        // Token-sized: character by character (a `memcpy` call per run cost more).
        for c in s.chars() {
            match c {
                '"' => buf.push_str("\\\""),
                '\\' => buf.push_str("\\\\"),
                '\n' => buf.push_str("\\n"),
                '\r' => buf.push_str("\\r"),
                '\t' => buf.push_str("\\t"),
                '\u{8}' => buf.push_str("\\b"),
                '\u{c}' => buf.push_str("\\f"),
                c if u32::from(c) < 0x20 => {
                    let b = u32::from(c);
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    buf.push_str("\\u00");
                    buf.push(char::from(
                        HEX.get((b >> 4) as usize).copied().unwrap_or(b'0'),
                    ));
                    buf.push(char::from(
                        HEX.get((b & 15) as usize).copied().unwrap_or(b'0'),
                    ));
                }
                c => buf.push(c),
            }
        }
        return;
    }
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(off) = bytes.get(start..).and_then(json_special) {
        let i = start + off;
        buf.push_str(s.get(start..i).unwrap_or_default());
        let b = bytes.get(i).copied().unwrap_or_default();
        match b {
            b'"' => buf.push_str("\\\""),
            b'\\' => buf.push_str("\\\\"),
            b'\n' => buf.push_str("\\n"),
            b'\r' => buf.push_str("\\r"),
            b'\t' => buf.push_str("\\t"),
            0x08 => buf.push_str("\\b"),
            0x0C => buf.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                buf.push_str("\\u00");
                buf.push(char::from(
                    HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0'),
                ));
                buf.push(char::from(
                    HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0'),
                ));
            }
        }
        start = i + 1;
    }
    buf.push_str(s.get(start..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        let mut b = String::new();
        escape_into(&mut b, "a\"b\\c\nd\u{1}é");
        assert_eq!(b, "a\\\"b\\\\c\\nd\\u0001é");
        let v: String = serde_json::from_str(&format!("\"{b}\"")).unwrap_or_default();
        assert_eq!(v, "a\"b\\c\nd\u{1}é");
    }

    /// Both paths of `escape_into` (token-sized, character by character; longer, by
    /// runs) write what serde_json writes inside a string's quotes.
    #[test]
    fn escape_paths_agree_with_serde() {
        let pieces = [
            "a", "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{1}", "\u{1f}", "\u{7f}", "é",
            "😀", "<",
        ];
        let n = pieces.len();
        for code in 0..n * n * n {
            let s: String = [code % n, code / n % n, code / n / n]
                .iter()
                .map(|&i| pieces[i])
                .collect();
            for s in [
                s.clone(),
                format!("{s}{}", "x".repeat(16)),
                format!("{}{s}", "y".repeat(16)),
            ] {
                let mut b = String::new();
                escape_into(&mut b, &s);
                let want = serde_json::to_string(&s).unwrap_or_default();
                assert_eq!(format!("\"{b}\""), want, "{s:?}");
            }
        }
    }

    #[test]
    fn string_attributes() {
        assert_eq!(string_attr(" string=\"true\""), ValueKind::String);
        assert_eq!(string_attr(" string = \"false\" "), ValueKind::Json);
        assert_eq!(string_attr(""), ValueKind::Infer);
    }
}
