//! What the text engines share, in one place (no engine holds another's helpers).
//!
//! | module | what | used by |
//! | --- | --- | --- |
//! | [`call`] | a call's raw text ([`Raw`](call::Raw)), reporting a broken call with it, the arguments value read as the model wrote it ([`ArgValue`](call::ArgValue)) | every engine |
//! | [`util`] | byte classes, bounded buffers, [`TextOut`](util::TextOut), [`CharInput`](util::CharInput) / [`ReadsChars`](util::ReadsChars), [`closing`](util::closing) (whitespace then a close marker) | every engine; `closing`: `json`, `gemma` |
//! | [`reasoning`] | the text stage outside calls: reasoning tags, markers, end-of-turn tokens, whitespace before a marker; [`Block`](reasoning::Block), one reasoning block for a scanner whose text is bytes | `json`, `mistral`, `xml`, `sections`, `gemma` (and `harmony`'s options); `Block`: `pythonic`, `auto` |
//! | [`options`] | [`TextOptions`](options::TextOptions): tool names, declared tools, calls at the start only | `xml`, `pythonic`, `llama-json`, `auto` |
//! | [`json_call`] | [`JsonCall`](json_call::JsonCall), the streaming walker of one JSON call object, and its [`Shape`](json_call::Shape) (one type: a `const` of a built-in table or a spec's) | `json` (every table), `mistral` |
//! | [`skip`] | [`Skip`](skip::Skip): a broken call skipped to its balancing bracket | `json`, `mistral`, `pythonic`'s broken calls, `llama-json` |
//! | [`recovery`] | the one recovery rule (an opener ends the open call, undefined or repeated members, forbidden strings, literal markers in prose, whitespace before markers): [`interrupted`](recovery::interrupted), [`released`](recovery::released), [`Members`](recovery::Members) (kept in `scan::members`, where the pythonic transducer uses it) | `json`, `xml`, `sections`, `gemma`, `harmony`, `pythonic`, `llama-json` |
//! | [`table`] | what the engines' one table type each is made of: [`Token`](table::Token), [`Pair`](table::Pair), `const` helpers ([`list!`](table::list)); [`Shared`](table::Shared), how an engine holds its table (a built-in's `&'static`, a spec's `Arc`) | `json`, `xml`, `sections`, `pythonic`, `gemma` |
//! | [`special`] | [`special`](special::special): held bytes against a set of special tokens | `pythonic`, `llama-json` |
//!
//! Inside the kit, [`util`] and [`json_call`] use [`call`], [`reasoning`] uses [`util`],
//! [`options`] uses [`reasoning`]; nothing here imports an engine.

pub(crate) mod call;
pub(crate) mod json_call;
pub(crate) mod options;
pub(crate) mod reasoning;
pub(crate) mod recovery;
pub(crate) mod skip;
pub(crate) mod special;
pub(crate) mod table;
pub(crate) mod util;
