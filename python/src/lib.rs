//! Python bindings for toolstream: `toolstream._toolstream`.
//!
//! - [`parser`]: `toolstream.Parser` over [`toolstream::Parser`]; events become the CLI's
//!   JSON objects as Python dicts through one generic serde path ([`to_py`]), so new event
//!   variants, error kinds and finish reasons flow through without changes here.
//! - [`emit`]: `OpenAiChatEmitter` and `AgUiEmitter` over the crate's emitters, fed those
//!   dicts back ([`from_py`] reads them).
//! - [`partial`]: `PartialValue`, the streaming arguments' best-effort value.
#![forbid(unsafe_code)]

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde::Serialize;
use toolstream::Format;

mod emit;
mod from_py;
mod parser;
mod partial;
mod to_py;

use to_py::{Keys, to_py};

create_exception!(
    _toolstream,
    ToolstreamError,
    PyValueError,
    "A bad argument: an unknown format or framing name, an unreadable `tools` document, \
     a negative limit, an event dict the emitters cannot read, or feeding a parser after \
     `finish()`."
);

pub(crate) fn bad(msg: impl std::fmt::Display) -> PyErr {
    ToolstreamError::new_err(msg.to_string())
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

/// The format of a response body from its first bytes, as `toolstream parse` detects it:
/// a provider's format name (`"anthropic"`, `"openai-chat"`, ...), `"auto"` for raw model
/// text (whose call syntax the `auto` parser picks from its first marker), or `None` for
/// an SSE stream whose payloads name no format. `data`: `bytes`, any buffer, or `str`.
#[pyfunction]
fn detect(data: &Bound<'_, PyAny>) -> PyResult<Option<&'static str>> {
    let bytes: Vec<u8> = if let Ok(s) = data.cast::<pyo3::types::PyString>() {
        s.to_cow()?.as_bytes().to_vec()
    } else if let Ok(b) = data.cast::<pyo3::types::PyBytes>() {
        b.as_bytes().to_vec()
    } else {
        let view = pyo3::types::PyMemoryView::from(data).map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(
                "detect() takes bytes, bytearray, memoryview or str",
            )
        })?;
        let bytes = view.call_method0("tobytes")?;
        bytes.cast::<pyo3::types::PyBytes>()?.as_bytes().to_vec()
    };
    let head = bytes
        .get(..toolstream::detect::DETECT_MAX)
        .unwrap_or(&bytes);
    Ok(toolstream::detect::detect(head, true).and_then(|d| d.format.map(Format::name)))
}

#[pymodule]
fn _toolstream(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<parser::PyParser>()?;
    m.add_class::<emit::PyOpenAiChatEmitter>()?;
    m.add_class::<emit::PyAgUiEmitter>()?;
    m.add_class::<partial::PyPartialValue>()?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(format_info, m)?)?;
    m.add_function(wrap_pyfunction!(detect, m)?)?;
    m.add("ToolstreamError", m.py().get_type::<ToolstreamError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
