//! `toolstream.Parser`: [`toolstream::Parser`] fed bytes, events out as dicts.

use crate::from_py;
use crate::to_py::{Keys, to_py};
use crate::{ToolstreamError, bad};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyList, PyMemoryView, PyString};
use toolstream::{Event, Format, Framing, IdPrefix, ParserConfig, Tools};

/// A streaming parser for one response: `feed(chunk)` as bytes arrive, then `finish()`.
/// Both return the events they complete, as dicts shaped like the CLI's JSON lines.
#[pyclass(module = "toolstream._toolstream", name = "Parser")]
pub(crate) struct PyParser {
    inner: toolstream::Parser,
    /// `auto` with no framing given: the input's first bytes and the options, kept until
    /// [`detect`] says which provider stream (or raw text) it is; then `inner` is built.
    pending: Option<(Vec<u8>, ParserConfig)>,
    events: Vec<Event>,
    keys: Keys,
    finished: bool,
}

/// A limit argument: `None` keeps the default; anything but an int in `0..=usize::MAX` is a
/// bad argument.
fn limit(name: &str, value: Option<Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let int = v
        .cast::<PyInt>()
        .ok()
        .filter(|_| v.cast::<PyBool>().is_err());
    let Some(i) = int else {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected an int or None, got {}",
            v.get_type().name()?
        )));
    };
    if let Ok(n) = i.extract::<usize>() {
        return Ok(Some(n));
    }
    let negative = i.lt(0)?;
    Err(bad(if negative {
        format!("{name} must be >= 0, got {i}")
    } else {
        format!("{name} must be at most {}, got {i}", usize::MAX)
    }))
}

/// A format-name argument; an unknown name is an error that names the argument, with the
/// crate's own message (the closest name, then the valid ones).
fn format_arg(arg: &str, name: &str) -> PyResult<Format> {
    name.parse().map_err(|e| bad(format!("{arg}: {e}")))
}

/// The `tools` argument as [`Tools`]: a list of tool definitions (OpenAI, Anthropic or
/// `{"name", "parameters"}` dicts), a request dict with a `"tools"` list, or the JSON text
/// (str or bytes) of either. Errors say what is wrong and where.
fn tools_arg(tools: &Bound<'_, PyAny>) -> PyResult<Tools> {
    const EXPECTED: &str = "a list of tool definitions, a request dict with a \"tools\" list, \
                            or the JSON text of either";
    let text = if let Ok(s) = tools.cast::<PyString>() {
        Some(s.to_cow()?.into_owned())
    } else if let Ok(b) = tools.cast::<PyBytes>() {
        Some(String::from_utf8_lossy(b.as_bytes()).into_owned())
    } else {
        None
    };
    let value = match text {
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            let shown: String = text.chars().take(40).collect();
            let more = if shown.len() < text.len() { "..." } else { "" };
            bad(format!(
                "tools: the text {shown:?}{more} is not JSON ({e}); expected {EXPECTED}"
            ))
        })?,
        None => {
            if let Ok(d) = tools.cast::<PyDict>()
                && d.get_item("tools")?.is_none()
            {
                let keys: Vec<String> = d.keys().iter().map(|k| k.to_string()).collect();
                return Err(bad(format!(
                    "tools: a dict must be a request with a \"tools\" list; this one has keys [{}]",
                    keys.join(", ")
                )));
            }
            from_py::to_value(tools, "tools").map_err(|e| {
                let py = tools.py();
                PyErr::from_type(py.get_type::<ToolstreamError>(), e.value(py).to_string())
            })?
        }
    };
    match &value {
        serde_json::Value::Array(_) => {}
        serde_json::Value::Object(o) if o.get("tools").is_some_and(|t| t.is_array()) => {}
        serde_json::Value::Object(o) if o.contains_key("tools") => {
            return Err(bad("tools: the request's \"tools\" must be a list"));
        }
        other => {
            let what = match other {
                serde_json::Value::Null => "null",
                serde_json::Value::Bool(_) => "a boolean",
                serde_json::Value::Number(_) => "a number",
                serde_json::Value::String(_) => "a string",
                _ => "an object without \"tools\"",
            };
            return Err(bad(format!("tools: expected {EXPECTED}, got {what}")));
        }
    }
    Tools::from_value(&value).map_err(bad)
}

/// The `syntax` argument as a [`toolstream::Syntax`]: a dict (the spec itself), the JSON
/// text of a spec (str or bytes), or a path (str or `os.PathLike`) to a spec file. A spec
/// that cannot be read is an error naming the offending key.
fn syntax_arg(syntax: &Bound<'_, PyAny>) -> PyResult<toolstream::Syntax> {
    let spec_error = |e: toolstream::SpecError| bad(format!("syntax: {e}"));
    if let Ok(d) = syntax.cast::<PyDict>() {
        let value = from_py::to_value(d.as_any(), "syntax").map_err(|e| {
            let py = syntax.py();
            PyErr::from_type(py.get_type::<ToolstreamError>(), e.value(py).to_string())
        })?;
        return toolstream::Syntax::from_value(&value).map_err(spec_error);
    }
    if let Ok(b) = syntax.cast::<PyBytes>() {
        let text = std::str::from_utf8(b.as_bytes())
            .map_err(|e| bad(format!("syntax: the bytes are not UTF-8: {e}")))?;
        return toolstream::Syntax::from_json(text).map_err(spec_error);
    }
    if let Ok(s) = syntax.cast::<PyString>() {
        let s = s.to_cow()?;
        if s.trim_start().starts_with('{') {
            return toolstream::Syntax::from_json(&s).map_err(spec_error);
        }
        return syntax_file(&s);
    }
    // An os.PathLike: its path.
    let os = syntax.py().import("os")?;
    match os.call_method1("fspath", (syntax,)) {
        Ok(path) => syntax_file(&path.extract::<String>()?),
        Err(_) => Err(PyTypeError::new_err(format!(
            "syntax: expected a dict, the JSON text of a spec, or a path to a spec file, got {}",
            syntax.get_type().name()?
        ))),
    }
}

/// Reads a spec file.
fn syntax_file(path: &str) -> PyResult<toolstream::Syntax> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| bad(format!("syntax: cannot read {path}: {e}")))?;
    toolstream::Syntax::from_json(&text).map_err(|e| bad(format!("syntax: {path}: {e}")))
}

#[pymethods]
impl PyParser {
    #[new]
    #[pyo3(signature = (
        format=None, *, syntax=None, framing=None, tools=None, reasoning_open=false, field_events=false,
        content_format=None, tool_names=None, calls_at_start_only=false, reasoning_tags=None,
        max_argument_bytes=None, max_calls=None, max_held_bytes=None, max_line_bytes=None,
        max_depth=None, reject_undeclared=true, id_prefix=None, unique_ids=false,
        calls_in_reasoning=false, max_repeats=None, validate=false,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        format: Option<&str>,
        syntax: Option<Bound<'_, PyAny>>,
        framing: Option<&str>,
        tools: Option<Bound<'_, PyAny>>,
        reasoning_open: bool,
        field_events: bool,
        content_format: Option<&str>,
        tool_names: Option<Bound<'_, PyAny>>,
        calls_at_start_only: bool,
        reasoning_tags: Option<Bound<'_, PyAny>>,
        max_argument_bytes: Option<Bound<'_, PyAny>>,
        max_calls: Option<Bound<'_, PyAny>>,
        max_held_bytes: Option<Bound<'_, PyAny>>,
        max_line_bytes: Option<Bound<'_, PyAny>>,
        max_depth: Option<Bound<'_, PyAny>>,
        reject_undeclared: bool,
        id_prefix: Option<String>,
        unique_ids: bool,
        calls_in_reasoning: bool,
        max_repeats: Option<Bound<'_, PyAny>>,
        validate: bool,
    ) -> PyResult<Self> {
        let syntax = match (format, syntax.filter(|s| !s.is_none())) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "give a format or a syntax, not both (syntax: a spec for raw model text)",
                ));
            }
            (None, None) => {
                return Err(PyTypeError::new_err(
                    "Parser() needs a format name (toolstream.formats()) or syntax=spec",
                ));
            }
            (_, Some(s)) => Some(syntax_arg(&s)?),
            (Some(_), None) => None,
        };
        let format = match format {
            Some(f) => format_arg("format", f)?,
            None => Format::Auto,
        };
        // Each keyword is one ParserConfig setter of the same name (`unique_ids=True` is
        // `id_prefix(IdPrefix::Unique)`); a keyword left out keeps the setter's default.
        let mut config = ParserConfig::new()
            .reasoning_open(reasoning_open)
            .field_events(field_events)
            .calls_at_start_only(calls_at_start_only)
            .calls_in_reasoning(calls_in_reasoning)
            .validate_arguments(validate);
        let limits: [(&str, _, fn(ParserConfig, usize) -> ParserConfig); 6] = [
            (
                "max_argument_bytes",
                max_argument_bytes,
                ParserConfig::max_argument_bytes,
            ),
            ("max_calls", max_calls, ParserConfig::max_calls),
            (
                "max_held_bytes",
                max_held_bytes,
                ParserConfig::max_held_bytes,
            ),
            (
                "max_line_bytes",
                max_line_bytes,
                ParserConfig::max_line_bytes,
            ),
            ("max_depth", max_depth, ParserConfig::max_depth),
            ("max_repeats", max_repeats, ParserConfig::max_repeats),
        ];
        for (name, value, set) in limits {
            if let Some(v) = limit(name, value)? {
                config = set(config, v);
            }
        }
        let framing_given = framing.is_some();
        if let Some(framing) = framing {
            let framing = framing
                .parse::<Framing>()
                .map_err(|e| bad(format!("framing: {e}")))?;
            config = config.framing(framing);
        }
        if let Some(f) = content_format {
            config = config.content_format(format_arg("content_format", f)?);
        }
        match tool_names.filter(|t| !t.is_none()) {
            None => {}
            Some(t) if t.cast::<PyString>().is_ok() => {
                return Err(PyTypeError::new_err(
                    "tool_names: expected a list of tool names, got a str (write [name])",
                ));
            }
            Some(t) => {
                let names = t.extract::<Vec<String>>().map_err(|e| {
                    PyTypeError::new_err(format!("tool_names: expected a list of str: {e}"))
                })?;
                config = config.tool_names(names);
            }
        }
        if let Some(t) = reasoning_tags.filter(|t| !t.is_none()) {
            let tags = t.extract::<Vec<(String, String)>>().map_err(|e| {
                PyTypeError::new_err(format!(
                    "reasoning_tags: expected a list of (open, close) str pairs such as \
                     [(\"<think>\", \"</think>\")]: {e}"
                ))
            })?;
            config = config.reasoning_tags(&tags);
        }
        if let Some(t) = tools.filter(|t| !t.is_none()) {
            config = config
                .tools(tools_arg(&t)?)
                .reject_undeclared(reject_undeclared);
        }
        match (id_prefix, unique_ids) {
            (Some(_), true) => {
                return Err(bad("id_prefix and unique_ids=True exclude each other"));
            }
            (Some(prefix), false) => config = config.id_prefix(prefix),
            (None, true) => config = config.id_prefix(IdPrefix::Unique),
            (None, false) => {}
        }
        // `auto` without a framing: a provider's stream is detected from its first bytes
        // (as `toolstream parse` does), anything else is raw model text.
        let pending = (syntax.is_none() && format == Format::Auto && !framing_given)
            .then(|| (Vec::new(), config.clone()));
        let inner = match syntax {
            Some(syntax) => toolstream::Parser::with_syntax(syntax, config),
            None => toolstream::Parser::with_config(format, config),
        };
        Ok(PyParser {
            inner,
            pending,
            events: Vec::new(),
            keys: Keys::default(),
            finished: false,
        })
    }

    /// Feeds the next bytes of the response (`bytes`, `bytearray`, `memoryview` or any
    /// other buffer; a `str` is fed as UTF-8); returns the events they complete.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let result = if let Ok(b) = data.cast::<PyBytes>() {
            self.feed_bytes(py, b.as_bytes())
        } else if let Ok(s) = data.cast::<PyString>() {
            self.feed_bytes(py, s.to_cow()?.as_bytes())
        } else if let Ok(b) = data.cast::<PyByteArray>() {
            self.feed_bytes(py, &b.to_vec())
        } else if let Ok(view) = PyMemoryView::from(data) {
            // A memoryview or another buffer (array.array, mmap, ...): its bytes, in order.
            let bytes = view.call_method0("tobytes")?;
            let bytes = bytes.cast::<PyBytes>()?;
            self.feed_bytes(py, bytes.as_bytes())
        } else {
            return Err(PyTypeError::new_err(format!(
                "feed() takes bytes, bytearray, memoryview or str, not {}",
                data.get_type().name()?
            )));
        };
        result.map_err(bad)?;
        self.take(py)
    }

    /// Ends the input: returns what is still open (a call cut off, held-back text) and the
    /// final events. The parser cannot be fed afterwards.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if let Some((head, config)) = self.pending.take() {
            self.settle(&head, config, true);
            let (inner, events) = (&mut self.inner, &mut self.events);
            inner.feed(&head, events).map_err(bad)?;
        }
        self.inner.finish(&mut self.events).map_err(bad)?;
        self.finished = true;
        self.take(py)
    }

    /// The format's CLI name (`auto` for a parser made with `syntax=`). For `"auto"`, the
    /// detected provider format once the first bytes have told (`"auto"` for raw text).
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.format().name()
    }

    /// The name of the syntax a parser made with `syntax=` reads (the spec's
    /// `toolstream.name`, `"spec"` without one); `None` for a format's parser.
    #[getter]
    fn syntax(&self) -> Option<String> {
        self.inner.syntax().map(|s| s.name().to_owned())
    }

    /// The framing in use (the detected one once `auto` has decided).
    #[getter]
    fn framing(&self) -> &'static str {
        self.inner.framing_in_use().name()
    }

    /// What the response said about itself, where its format sends it: `{"id", "model",
    /// "created"}` (the provider's response id, model name, creation time in Unix seconds;
    /// each `None` until seen). Hand it to `OpenAiChatEmitter.response_meta`.
    #[getter]
    fn response_meta<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &mut self.keys, self.inner.response_meta())
    }

    /// Input bytes fed so far.
    #[getter]
    fn bytes_fed(&self) -> u64 {
        self.inner.bytes_fed() + self.held() as u64
    }

    /// Bytes the parser holds right now (bounded by the limits).
    #[getter]
    fn retained_bytes(&self) -> usize {
        self.inner.retained_bytes() + self.held()
    }

    /// Whether `finish()` was called.
    #[getter]
    fn finished(&self) -> bool {
        self.finished
    }

    fn __repr__(&self) -> String {
        match self.inner.syntax() {
            Some(s) => format!(
                "Parser(syntax={:?}, framing={:?}, bytes_fed={})",
                s.name(),
                self.inner.framing_in_use().name(),
                self.inner.bytes_fed()
            ),
            None => format!(
                "Parser({:?}, framing={:?}, bytes_fed={})",
                self.inner.format().name(),
                self.inner.framing_in_use().name(),
                self.inner.bytes_fed()
            ),
        }
    }
}

/// Chunks at least this long are parsed with the GIL released, so other Python threads
/// run meanwhile; shorter ones (token deltas) are cheaper to parse than to hand over.
const DETACH_BYTES: usize = 64 << 10;

impl PyParser {
    /// The parser's [`toolstream::ResponseMeta`], for the OpenAI emitter.
    pub(crate) fn response_meta_ref(&self) -> &toolstream::ResponseMeta {
        self.inner.response_meta()
    }

    /// Bytes held while `auto` detects the format.
    fn held(&self) -> usize {
        self.pending.as_ref().map_or(0, |(head, _)| head.len())
    }

    /// `auto`: builds the parser for what `head` turned out to be — a provider's stream in
    /// its framing, or raw text (also for an SSE stream whose payloads name no format).
    fn settle(&mut self, head: &[u8], config: ParserConfig, at_end: bool) -> bool {
        let Some(found) = toolstream::detect::detect(head, at_end) else {
            return false;
        };
        self.inner = match found.format {
            Some(format) if format != Format::Auto => {
                toolstream::Parser::with_config(format, config.framing(found.framing))
            }
            _ => toolstream::Parser::with_config(Format::Auto, config.framing(Framing::Text)),
        };
        true
    }

    /// Feeds `chunk` to the Rust parser, releasing the GIL for a large one; for `auto`,
    /// keeps the first bytes until the format is detected.
    fn feed_bytes(&mut self, py: Python<'_>, chunk: &[u8]) -> Result<(), toolstream::Error> {
        let held;
        let chunk = match self.pending.take() {
            None => chunk,
            Some((mut head, config)) => {
                head.extend_from_slice(chunk);
                if !self.settle(&head, config.clone(), false) {
                    self.pending = Some((head, config));
                    return Ok(());
                }
                held = head;
                held.as_slice()
            }
        };
        let (inner, events) = (&mut self.inner, &mut self.events);
        if chunk.len() >= DETACH_BYTES {
            py.detach(|| inner.feed(chunk, events))
        } else {
            inner.feed(chunk, events)
        }
    }

    /// Converts the buffered events to a list of dicts and clears the buffer.
    fn take<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for event in self.events.drain(..) {
            list.append(to_py(py, &mut self.keys, &event)?)?;
        }
        Ok(list)
    }
}
