//! Memory bounds for one stream.

/// Bounds on what one [`Parser`](crate::Parser) keeps in memory. Exceeding one yields an
/// [`Event::Error`](crate::Event::Error) of kind
/// [`LimitExceeded`](crate::ErrorKind::LimitExceeded), never a crash; the parser then
/// recovers (skips the rest of that call, line or event).
///
/// ```
/// let parser = toolstream::Parser::new(toolstream::Format::OpenAiChat)
///     .max_argument_bytes(1 << 20)
///     .max_calls(16);
/// assert_eq!(parser.limits().max_calls, 16);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Bytes of one call's arguments. Default 16 MiB.
    pub max_argument_bytes: usize,
    /// Tool calls in one response. Default 1024.
    pub max_calls: usize,
    /// Bytes of text held back while they might still start a tool call. Default 64 KiB.
    pub max_held_bytes: usize,
    /// Bytes of one framing unit (SSE line, NDJSON line, array element, event-stream
    /// message). Default 16 MiB.
    pub max_line_bytes: usize,
    /// Nesting depth of JSON arguments. Default 128.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_argument_bytes: 16 << 20,
            max_calls: 1024,
            max_held_bytes: 64 << 10,
            max_line_bytes: 16 << 20,
            max_depth: 128,
        }
    }
}
