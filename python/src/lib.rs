//! Python bindings for toolstream: `toolstream._toolstream`.
//!
//! One class, [`PyParser`] (`toolstream.Parser`), over [`toolstream::Parser`]; events become
//! the CLI's JSON objects as Python dicts through one generic serde path ([`to_py`]), so new
//! event variants, error kinds and finish reasons flow through without changes here.
#![forbid(unsafe_code)]

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString};
use serde::Serialize;
use toolstream::{Event, Format, Framing, ParserConfig, Tools};

mod to_py;

use to_py::{Keys, to_py};

create_exception!(
    _toolstream,
    ToolstreamError,
    PyValueError,
    "A bad argument: an unknown format or framing name, an unreadable `tools` document, \
     a negative limit, or feeding a parser after `finish()`."
);

fn bad(msg: impl std::fmt::Display) -> PyErr {
    ToolstreamError::new_err(msg.to_string())
}

/// A streaming parser for one response: `feed(chunk)` as bytes arrive, then `finish()`.
/// Both return the events they complete, as dicts shaped like the CLI's JSON lines.
#[pyclass(module = "toolstream._toolstream", name = "Parser")]
struct PyParser {
    inner: toolstream::Parser,
    events: Vec<Event>,
    keys: Keys,
    finished: bool,
}

/// A limit argument: `None` keeps the default; a negative number is a bad argument.
fn limit(name: &str, value: Option<i64>) -> PyResult<Option<usize>> {
    value
        .map(|v| usize::try_from(v).map_err(|_| bad(format!("{name} must be >= 0, got {v}"))))
        .transpose()
}

/// The `tools` argument as a [`Tools`]: a JSON string, or any JSON-serialisable value (a list
/// of tool dicts, a request dict, pydantic models dumped by the caller).
fn tools_arg(py: Python<'_>, tools: &Bound<'_, PyAny>) -> PyResult<Tools> {
    let text: String = if let Ok(s) = tools.cast::<PyString>() {
        s.to_cow()?.into_owned()
    } else {
        let json = py.import("json")?;
        json.call_method1("dumps", (tools,))
            .map_err(|e| bad(format!("tools: not JSON-serialisable: {e}")))?
            .extract()?
    };
    Tools::from_json(&text).map_err(bad)
}

#[pymethods]
impl PyParser {
    #[new]
    #[pyo3(signature = (
        format, *, framing=None, tools=None, reasoning_open=false, field_events=false,
        content_format=None, tool_names=None, calls_at_start_only=false, reasoning_tags=None,
        max_argument_bytes=None, max_calls=None, max_held_bytes=None, max_line_bytes=None,
        max_depth=None, reject_undeclared=true, id_prefix=None, unique_ids=false,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        format: &str,
        framing: Option<&str>,
        tools: Option<Bound<'_, PyAny>>,
        reasoning_open: bool,
        field_events: bool,
        content_format: Option<&str>,
        tool_names: Option<Vec<String>>,
        calls_at_start_only: bool,
        reasoning_tags: Option<Vec<(String, String)>>,
        max_argument_bytes: Option<i64>,
        max_calls: Option<i64>,
        max_held_bytes: Option<i64>,
        max_line_bytes: Option<i64>,
        max_depth: Option<i64>,
        reject_undeclared: bool,
        id_prefix: Option<String>,
        unique_ids: bool,
    ) -> PyResult<Self> {
        let format: Format = format.parse().map_err(bad)?;
        let mut config = ParserConfig::default();
        let limits = &mut config.limits;
        let pairs = [
            (
                "max_argument_bytes",
                max_argument_bytes,
                &mut limits.max_argument_bytes,
            ),
            ("max_calls", max_calls, &mut limits.max_calls),
            ("max_held_bytes", max_held_bytes, &mut limits.max_held_bytes),
            ("max_line_bytes", max_line_bytes, &mut limits.max_line_bytes),
            ("max_depth", max_depth, &mut limits.max_depth),
        ];
        for (name, value, slot) in pairs {
            if let Some(v) = limit(name, value)? {
                *slot = v;
            }
        }
        config.framing = framing
            .map(str::parse::<Framing>)
            .transpose()
            .map_err(bad)?;
        config.content_format = content_format
            .map(str::parse::<Format>)
            .transpose()
            .map_err(bad)?;
        if let Some(t) = tools.filter(|t| !t.is_none()) {
            config = config
                .tools(tools_arg(py, &t)?)
                .reject_undeclared(reject_undeclared);
        }
        if id_prefix.is_some() && unique_ids {
            return Err(bad("id_prefix and unique_ids=True exclude each other"));
        }
        config.reasoning_open = reasoning_open;
        config.reasoning_tags = reasoning_tags;
        config.field_events = field_events;
        config.tool_names = tool_names;
        config.calls_at_start_only = calls_at_start_only;
        config.id_prefix = id_prefix;
        config.unique_ids = unique_ids;
        let inner = toolstream::Parser::with_config(format, config);
        Ok(PyParser {
            inner,
            events: Vec::new(),
            keys: Keys::default(),
            finished: false,
        })
    }

    /// Feeds the next bytes (or text, fed as UTF-8) of the response; returns the events
    /// they complete.
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
        } else {
            return Err(PyTypeError::new_err(format!(
                "feed() takes bytes, bytearray or str, not {}",
                data.get_type().name()?
            )));
        };
        result.map_err(bad)?;
        self.take(py)
    }

    /// Ends the input: returns what is still open (a call cut off, held-back text) and the
    /// final events. The parser cannot be fed afterwards.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.inner.finish(&mut self.events).map_err(bad)?;
        self.finished = true;
        self.take(py)
    }

    /// The format's CLI name.
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.format().name()
    }

    /// The framing in use (the detected one once `auto` has decided).
    #[getter]
    fn framing(&self) -> &'static str {
        self.inner.framing_in_use().name()
    }

    /// Input bytes fed so far.
    #[getter]
    fn bytes_fed(&self) -> u64 {
        self.inner.bytes_fed()
    }

    /// Bytes the parser holds right now (bounded by the limits).
    #[getter]
    fn retained_bytes(&self) -> usize {
        self.inner.retained_bytes()
    }

    /// Whether `finish()` was called.
    #[getter]
    fn finished(&self) -> bool {
        self.finished
    }

    fn __repr__(&self) -> String {
        format!(
            "Parser({:?}, framing={:?}, bytes_fed={})",
            self.inner.format().name(),
            self.inner.framing_in_use().name(),
            self.inner.bytes_fed()
        )
    }
}

/// Chunks at least this long are parsed with the GIL released, so other Python threads
/// run meanwhile; shorter ones (token deltas) are cheaper to parse than to hand over.
const DETACH_BYTES: usize = 64 << 10;

impl PyParser {
    /// Feeds `chunk` to the Rust parser, releasing the GIL for a large one.
    fn feed_bytes(&mut self, py: Python<'_>, chunk: &[u8]) -> Result<(), toolstream::Error> {
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

/// Every format name, in the order `toolstream formats` lists them.
#[pyfunction]
fn formats() -> Vec<&'static str> {
    Format::all().map(Format::name).collect()
}

/// One dict per format: `name`, `description`, `framing` (its default framing).
#[pyfunction]
fn format_info(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    #[derive(Serialize)]
    struct Info {
        name: &'static str,
        description: &'static str,
        framing: &'static str,
    }
    let mut keys = Keys::default();
    let list = PyList::empty(py);
    for f in Format::all() {
        let info = Info {
            name: f.name(),
            description: f.description(),
            framing: f.default_framing().name(),
        };
        list.append(to_py(py, &mut keys, &info)?)?;
    }
    Ok(list)
}

#[pymodule]
fn _toolstream(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyParser>()?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(format_info, m)?)?;
    m.add("ToolstreamError", m.py().get_type::<ToolstreamError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
