//! Format and framing names.

use std::fmt;
use std::str::FromStr;

use crate::text::SYNTAXES;

/// Writes [`Format`]: the provider formats' variants written here, then the text syntaxes'
/// (`$syntax`), which `build.rs` lists from their files (`OUT_DIR/format_variants.rs`: each
/// syntax's variant with its row's doc comment).
macro_rules! format_enum {
    ($($(#[doc = $doc:expr])* $syntax:ident,)*) => {
        /// A wire format or model-output syntax. Parse one from its CLI name:
        ///
        /// ```
        /// let f: toolstream::Format = "openai-chat".parse().unwrap();
        /// assert_eq!(f, toolstream::Format::OpenAiChat);
        /// assert_eq!(f.to_string(), "openai-chat");
        /// let err = "nope".parse::<toolstream::Format>().unwrap_err();
        /// assert!(err.to_string().contains("openai-chat"));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Format {
            /// OpenAI Chat Completions streaming and compatible servers (SSE).
            OpenAiChat,
            /// Google Gemini `generateContent` streaming (Google AI and Vertex AI): SSE with
            /// `alt=sse`, the streamed JSON array without it, or recorded NDJSON; the framing is
            /// detected from the first bytes unless given.
            Gemini,
            /// AWS Bedrock `ConverseStream` (binary event stream; recorded
            /// `{"<eventType>": payload}` lines with the NDJSON framing).
            Bedrock,
            /// Anthropic Messages streaming (SSE), also via Vertex AI.
            Anthropic,
            /// OpenAI Responses API streaming (SSE) and compatible servers.
            OpenAiResponses,
            /// Cohere Chat v2 streaming (SSE events typed by their JSON `type`).
            Cohere,
            /// Ollama's native `/api/chat` and `/api/generate` streams (NDJSON).
            Ollama,
            /// Llama Stack's native `/v1/inference/chat-completion` stream (SSE).
            LlamaStack,
            $($(#[doc = $doc])* $syntax,)*
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/format_variants.rs"));

/// One row of the provider format table: name, default framing, one-line description
/// (a text syntax's row is in its own file: [`crate::text::SYNTAXES`]).
struct FormatInfo {
    format: Format,
    name: &'static str,
    framing: Framing,
    about: &'static str,
}

const UNLISTED: FormatInfo = FormatInfo {
    format: Format::OpenAiChat,
    name: "unlisted",
    framing: Framing::Sse,
    about: "",
};

const FORMATS: &[FormatInfo] = &[
    FormatInfo {
        format: Format::OpenAiChat,
        name: "openai-chat",
        framing: Framing::Sse,
        about: "OpenAI Chat Completions stream (chat.completion.chunk) and compatible servers: Azure, Groq, Together, Mistral, xAI, DeepSeek, vLLM, TGI, Ollama /v1, OpenRouter, ...",
    },
    FormatInfo {
        format: Format::OpenAiResponses,
        name: "openai-responses",
        framing: Framing::Sse,
        about: "OpenAI Responses API stream (response.output_item.added, ...): OpenAI, Azure, bedrock-mantle, DeepSeek, LM Studio",
    },
    FormatInfo {
        format: Format::Anthropic,
        name: "anthropic",
        framing: Framing::Sse,
        about: "Anthropic Messages stream (message_start, content_block_delta, ...), also via Vertex AI streamRawPredict",
    },
    FormatInfo {
        format: Format::Gemini,
        name: "gemini",
        framing: Framing::Auto,
        about: "Google Gemini generateContent stream (Google AI, Vertex AI incl. streamed partialArgs): SSE, JSON array or NDJSON, detected",
    },
    FormatInfo {
        format: Format::Bedrock,
        name: "bedrock",
        framing: Framing::EventStream,
        about: "AWS Bedrock ConverseStream (application/vnd.amazon.eventstream; NDJSON of {\"<eventType>\": payload} lines)",
    },
    FormatInfo {
        format: Format::Cohere,
        name: "cohere",
        framing: Framing::Sse,
        about: "Cohere Chat v2 stream (message-start, content-delta, tool-plan-delta, tool-call-start/delta/end, message-end)",
    },
    FormatInfo {
        format: Format::Ollama,
        name: "ollama",
        framing: Framing::Ndjson,
        about: "Ollama native /api/chat and /api/generate NDJSON stream (message.tool_calls, thinking, done_reason)",
    },
    FormatInfo {
        format: Format::LlamaStack,
        name: "llama-stack",
        framing: Framing::Sse,
        about: "Llama Stack native /v1/inference/chat-completion stream (text and tool_call deltas with parse_status)",
    },
];

impl Format {
    /// Every format, in the order `toolstream formats` lists them: the provider formats,
    /// then the text syntaxes (the registry's rows).
    pub fn all() -> impl Iterator<Item = Format> {
        FORMATS
            .iter()
            .map(|i| i.format)
            .chain(SYNTAXES.iter().map(|r| r.format))
    }

    fn info(self) -> &'static FormatInfo {
        // Every provider variant has a row (checked by a test).
        FORMATS
            .iter()
            .find(|i| i.format == self)
            .unwrap_or(&UNLISTED)
    }

    /// The CLI name, e.g. `openai-chat`.
    pub fn name(self) -> &'static str {
        match crate::text::syntax(self) {
            Some(r) => r.name,
            None => self.info().name,
        }
    }

    /// One line saying what the format is.
    pub fn description(self) -> &'static str {
        match crate::text::syntax(self) {
            Some(r) => r.about,
            None => self.info().about,
        }
    }

    /// The framing used when none is given: a text syntax's is [`Framing::Text`].
    pub fn default_framing(self) -> Framing {
        match crate::text::syntax(self) {
            Some(_) => Framing::Text,
            None => self.info().framing,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Format {
    /// Other names this format is found by ([`FromStr`]): vLLM's tool-call parser
    /// names for the same syntax (`xlam` for `llama-json`, `qwen3_coder` for
    /// `qwen-xml`, ...).
    pub fn aliases(self) -> impl Iterator<Item = &'static str> {
        crate::text::syntax(self)
            .map_or(&[][..], |r| r.aliases)
            .iter()
            .copied()
    }
}

/// Every text syntax's aliases, each with its format.
fn aliases() -> impl Iterator<Item = (&'static str, Format)> {
    SYNTAXES
        .iter()
        .flat_map(|r| r.aliases.iter().map(move |a| (*a, r.format)))
}

/// `a` and `b` name the same thing: ASCII case and `_` / `-` ignored.
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes().zip(b.bytes()).all(|(x, y)| {
            let norm = |c: u8| {
                if c == b'_' {
                    b'-'
                } else {
                    c.to_ascii_lowercase()
                }
            };
            norm(x) == norm(y)
        })
}

impl FromStr for Format {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        FORMATS
            .iter()
            .find(|i| same_name(i.name, s))
            .map(|i| i.format)
            .or_else(|| {
                SYNTAXES
                    .iter()
                    .find(|r| same_name(r.name, s))
                    .map(|r| r.format)
            })
            .or_else(|| aliases().find(|(a, _)| same_name(a, s)).map(|(_, f)| f))
            .ok_or_else(|| UnknownName {
                what: "format",
                name: s.to_owned(),
                valid: Format::all().map(Format::name).collect(),
                also: aliases().map(|(a, _)| a).collect(),
            })
    }
}

/// How payload messages are cut out of the byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Framing {
    /// Server-sent events (`data:` lines, blank-line separated).
    Sse,
    /// One JSON payload per line.
    Ndjson,
    /// A streamed JSON array of payloads.
    JsonArray,
    /// JSON payloads one after another, separated by whitespace only: one pretty-printed
    /// document, or `jq .` output of an NDJSON stream (NDJSON itself reads the same way).
    Json,
    /// The AWS binary event stream (`application/vnd.amazon.eventstream`).
    EventStream,
    /// Raw model output text, no framing.
    Text,
    /// Chosen from the first significant byte (after a BOM and whitespace): `[` a JSON
    /// array, `{` NDJSON, anything else SSE.
    Auto,
}

const FRAMINGS: &[(Framing, &str)] = &[
    (Framing::Sse, "sse"),
    (Framing::Ndjson, "ndjson"),
    (Framing::JsonArray, "json-array"),
    (Framing::Json, "json"),
    (Framing::EventStream, "eventstream"),
    (Framing::Text, "text"),
    (Framing::Auto, "auto"),
];

impl Framing {
    /// The CLI name, e.g. `sse`.
    pub fn name(self) -> &'static str {
        FRAMINGS
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, n)| *n)
            .unwrap_or("sse")
    }
}

impl fmt::Display for Framing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Framing {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FRAMINGS
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(s.trim()))
            .map(|(f, _)| *f)
            .ok_or_else(|| UnknownName {
                what: "framing",
                name: s.to_owned(),
                valid: FRAMINGS.iter().map(|(_, n)| *n).collect(),
                also: Vec::new(),
            })
    }
}

/// An unknown format or framing name. Its message lists the valid ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    what: &'static str,
    name: String,
    valid: Vec<&'static str>,
    /// Other accepted names (aliases), also suggested.
    also: Vec<&'static str>,
}

/// The most names one "did you mean" offers.
const MAX_SUGGESTIONS: usize = 5;

impl UnknownName {
    /// The names that would have been accepted.
    pub fn valid(&self) -> &[&'static str] {
        &self.valid
    }

    /// The valid name closest to the one given, if exactly one is close (a typo: at most
    /// two letters changed, added or removed, or the given name a prefix of exactly one).
    pub fn suggestion(&self) -> Option<&'static str> {
        match self.suggestions().as_slice() {
            [only] => Some(only),
            _ => None,
        }
    }

    /// The names (and aliases) the given one may have meant: the one it is a prefix of,
    /// else the closest within two edits, else all it is a prefix of (`openai`:
    /// `openai-chat` and `openai-responses`); empty when none is close. ASCII case and
    /// `_` / `-` are ignored.
    pub fn suggestions(&self) -> Vec<&'static str> {
        let norm = |s: &str| s.trim().to_ascii_lowercase().replace('_', "-");
        let given = norm(&self.name);
        if given.is_empty() {
            return Vec::new();
        }
        let candidates = || self.valid.iter().chain(&self.also).copied();
        let prefixed: Vec<&'static str> = candidates()
            .filter(|v| norm(v).starts_with(&given))
            .collect();
        if let [only] = prefixed.as_slice() {
            return vec![*only];
        }
        let distances: Vec<(usize, &'static str)> = candidates()
            .map(|v| (edit_distance(&given, &norm(v)), v))
            .filter(|(d, _)| *d <= 2)
            .collect();
        let best = distances.iter().map(|(d, _)| *d).min();
        let closest: Vec<&'static str> = distances
            .iter()
            .filter(|(d, _)| Some(*d) == best)
            .map(|(_, v)| *v)
            .collect();
        let mut out = if closest.len() == 1 || prefixed.is_empty() {
            closest
        } else {
            prefixed
        };
        out.truncate(MAX_SUGGESTIONS);
        out
    }
}

/// Levenshtein distance between two short ASCII names.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut cur = Vec::with_capacity(prev.len());
        cur.push(i + 1);
        for (cb, (diagonal, above)) in b.bytes().zip(prev.iter().zip(prev.iter().skip(1))) {
            let left = cur.last().copied().unwrap_or(i + 1);
            cur.push(
                (above + 1)
                    .min(left + 1)
                    .min(diagonal + usize::from(ca != cb)),
            );
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(0)
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`", self.what, self.name)?;
        let suggestions = self.suggestions();
        if let Some((last, first)) = suggestions.split_last() {
            let first: Vec<String> = first.iter().map(|s| format!("`{s}`")).collect();
            let or = if first.is_empty() { "" } else { " or " };
            write!(f, "; did you mean {}{or}`{last}`?", first.join(", "))?;
        }
        write!(f, " (valid: {})", self.valid.join(", "))
    }
}

impl std::error::Error for UnknownName {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Format::all() {
            assert_eq!(f.name().parse::<Format>(), Ok(f));
            let rows = FORMATS.iter().filter(|i| i.format == f).count()
                + SYNTAXES.iter().filter(|r| r.format == f).count();
            assert!(rows == 1);
        }
        for (f, n) in FRAMINGS {
            assert_eq!(n.parse::<Framing>(), Ok(*f));
        }
    }

    #[test]
    fn aliases_name_text_formats_and_no_name_is_an_alias() {
        for (a, f) in aliases() {
            assert_eq!(a.parse::<Format>(), Ok(f), "{a}");
            assert_eq!(a.replace('_', "-").to_uppercase().parse::<Format>(), Ok(f));
            assert_eq!(f.default_framing(), Framing::Text, "{a}");
            assert!(
                Format::all().all(|g| !same_name(g.name(), a)),
                "{a} is a name"
            );
            assert!(f.aliases().any(|x| x == a));
        }
        assert_eq!("xlam".parse::<Format>(), Ok(Format::LlamaJson));
        assert!("xla".parse::<Format>().is_err());
        assert!("qwen3__coder".parse::<Format>().is_err());
    }

    #[test]
    fn did_you_mean() {
        let err = "anthropc".parse::<Format>().unwrap_err();
        assert_eq!(err.suggestion(), Some("anthropic"));
        assert!(
            err.to_string().contains("did you mean `anthropic`?"),
            "{err}"
        );
        let err = "ndjsn".parse::<Framing>().unwrap_err();
        assert_eq!(err.suggestion(), Some("ndjson"));
        assert_eq!(
            "openai-resp".parse::<Format>().unwrap_err().suggestion(),
            Some("openai-responses")
        );
        // A prefix of two names: both offered.
        let err = "openai".parse::<Format>().unwrap_err();
        assert_eq!(err.suggestions(), ["openai-chat", "openai-responses"]);
        assert!(
            err.to_string()
                .contains("did you mean `openai-chat` or `openai-responses`?"),
            "{err}"
        );
        // Aliases are suggested too.
        let err = "qwen3coder".parse::<Format>().unwrap_err();
        assert_eq!(err.suggestion(), Some("qwen3_coder"));
        let err = "xyzzy".parse::<Format>().unwrap_err();
        assert_eq!(err.suggestion(), None);
        assert!(!err.to_string().contains("did you mean"), "{err}");
    }
}
