//! Python objects → JSON values and events: the way back from the dicts the parser hands
//! out. The emitters take events as dicts (a proxy may drop, rewrite or build them), and
//! `tools` / tool-call arguments are plain Python data.
//!
//! Every error names where the offending value sits (`tools[0]["function"]["name"]`,
//! `event["index"]`), so a caller sees what to fix without reading a serde message.

use crate::bad;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use toolstream::{ErrorKind, Event, FieldKind, FinishReason, ResponseMeta, Usage};

/// Containers nested deeper than this are refused (a list that contains itself would
/// otherwise recurse until the stack overflows).
const MAX_DEPTH: usize = 512;

/// A Python value (dict, list, tuple, str, int, float, bool, None, nested) as JSON;
/// `path` names it in error messages.
pub(crate) fn to_value(obj: &Bound<'_, PyAny>, path: &str) -> PyResult<Value> {
    let mut path = path.to_owned();
    value_at(obj, &mut path, 0)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

fn value_at(obj: &Bound<'_, PyAny>, path: &mut String, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        let shown: String = path.chars().take(60).collect();
        return Err(bad(format!(
            "{shown}...: nested more than {MAX_DEPTH} levels deep (a list or dict that contains itself?)"
        )));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        if let Ok(v) = i.extract::<i64>() {
            return Ok(Value::from(v));
        }
        if let Ok(v) = i.extract::<u64>() {
            return Ok(Value::from(v));
        }
        // Beyond 64 bits: its decimal text, read as serde_json reads a number (exactly
        // when the crate keeps numbers exact, else as the nearest float).
        let text = i.str()?.to_cow()?.into_owned();
        return serde_json::from_str::<Number>(&text)
            .map(Value::Number)
            .map_err(|_| {
                bad(format!(
                    "{path}: the integer {text} is out of range for JSON"
                ))
            });
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| bad(format!("{path}: {v} is not a JSON number")));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if is_decimal(obj)? {
        // A `decimal.Decimal` (how an argument beyond the float range comes out): its text,
        // read as a JSON number.
        let text = obj.str()?.to_cow()?.into_owned();
        return serde_json::from_str::<Number>(&text)
            .map(Value::Number)
            .map_err(|_| bad(format!("{path}: Decimal {text} is not a JSON number here")));
    }
    let items = |len: usize| Vec::with_capacity(len.min(1 << 16));
    if let Ok(list) = obj.cast::<PyList>() {
        let mut out = items(list.len());
        for (i, item) in list.iter().enumerate() {
            out.push(child(path, &format!("[{i}]"), |p| {
                value_at(&item, p, depth + 1)
            })?);
        }
        return Ok(Value::Array(out));
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        let mut out = items(tuple.len());
        for (i, item) in tuple.iter().enumerate() {
            out.push(child(path, &format!("[{i}]"), |p| {
                value_at(&item, p, depth + 1)
            })?);
        }
        return Ok(Value::Array(out));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut out = Map::new();
        for (k, v) in dict.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{path}: JSON object keys are str, not {} ({})",
                    type_name(&k),
                    k.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                ))
            })?;
            let key = key.to_cow()?.into_owned();
            let value = child(path, &format!("[{key:?}]"), |p| value_at(&v, p, depth + 1))?;
            out.insert(key, value);
        }
        return Ok(Value::Object(out));
    }
    Err(PyTypeError::new_err(format!(
        "{path}: a value of type {} is not JSON data (expected dict, list, tuple, str, int, float, bool or None)",
        type_name(obj)
    )))
}

/// Whether `obj` is a `decimal.Decimal` (without importing `decimal` when it is not loaded).
fn is_decimal(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    let modules = py.import("sys")?.getattr("modules")?;
    let Some(decimal) = modules.get_item("decimal").ok().filter(|m| !m.is_none()) else {
        return Ok(false);
    };
    obj.is_instance(&decimal.getattr("Decimal")?)
}

/// Runs `f` with `segment` appended to `path`, then restores `path`.
fn child<T>(
    path: &mut String,
    segment: &str,
    f: impl FnOnce(&mut String) -> PyResult<T>,
) -> PyResult<T> {
    let len = path.len();
    path.push_str(segment);
    let out = f(path);
    path.truncate(len);
    out
}

/// Every error kind, for reading an event's `kind` back.
const KINDS: [ErrorKind; 14] = [
    ErrorKind::Provider,
    ErrorKind::InvalidJson,
    ErrorKind::UnexpectedPayload,
    ErrorKind::InvalidArguments,
    ErrorKind::TrailingArguments,
    ErrorKind::Truncated,
    ErrorKind::MissingName,
    ErrorKind::LimitExceeded,
    ErrorKind::Framing,
    ErrorKind::InvalidUtf8,
    ErrorKind::UndeclaredTool,
    ErrorKind::UnrecognizedInput,
    ErrorKind::SchemaViolation,
    ErrorKind::Repetition,
];

const TYPES: &str = "text, reasoning, tool_call_start, tool_call_args, tool_call_field, \
                     tool_call_field_end, tool_call_end, finish, error";

/// The fields of one event dict, read with messages that name the event and the key.
struct Fields<'a, 'py> {
    dict: &'a Bound<'py, PyDict>,
    kind: &'a str,
}

impl<'py> Fields<'_, 'py> {
    fn get(&self, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.dict.get_item(key)
    }

    fn required(&self, key: &str) -> PyResult<Bound<'py, PyAny>> {
        self.get(key)?.ok_or_else(|| {
            bad(format!(
                "event[\"{key}\"]: missing from a {:?} event",
                self.kind
            ))
        })
    }

    fn wrong(&self, key: &str, expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
        PyTypeError::new_err(format!(
            "event[\"{key}\"] of a {:?} event: expected {expected}, got {}",
            self.kind,
            type_name(got)
        ))
    }

    fn str(&self, key: &str) -> PyResult<String> {
        let v = self.required(key)?;
        match v.cast::<PyString>() {
            Ok(s) => Ok(s.to_cow()?.into_owned()),
            Err(_) => Err(self.wrong(key, "str", &v)),
        }
    }

    fn index_of(&self, key: &str, v: &Bound<'_, PyAny>) -> PyResult<usize> {
        if v.cast::<PyBool>().is_err()
            && let Ok(i) = v.cast::<PyInt>()
        {
            return i.extract::<usize>().map_err(|_| {
                bad(format!(
                    "event[\"{key}\"] of a {:?} event: must be >= 0, got {i}",
                    self.kind
                ))
            });
        }
        Err(self.wrong(key, "int", v))
    }

    fn index(&self, key: &str) -> PyResult<usize> {
        let v = self.required(key)?;
        self.index_of(key, &v)
    }

    fn optional_index(&self, key: &str) -> PyResult<Option<usize>> {
        match self.get(key)? {
            Some(v) if !v.is_none() => self.index_of(key, &v).map(Some),
            _ => Ok(None),
        }
    }

    fn optional_str(&self, key: &str) -> PyResult<Option<String>> {
        match self.get(key)? {
            Some(v) if !v.is_none() => match v.cast::<PyString>() {
                Ok(s) => Ok(Some(s.to_cow()?.into_owned())),
                Err(_) => Err(self.wrong(key, "str or None", &v)),
            },
            _ => Ok(None),
        }
    }
}

/// A `tool_call_field` event's `kind`.
fn field_kind(name: &str) -> PyResult<FieldKind> {
    [
        FieldKind::String,
        FieldKind::Number,
        FieldKind::Boolean,
        FieldKind::Null,
    ]
    .into_iter()
    .find(|k| k.name() == name)
    .ok_or_else(|| {
        bad(format!(
            "event[\"kind\"] of a \"tool_call_field\" event: expected one of string, number, \
             boolean, null, got {name:?}"
        ))
    })
}

/// An event dict (as `Parser.feed` returns them) as the crate's [`Event`].
pub(crate) fn event(obj: &Bound<'_, PyAny>) -> PyResult<Event> {
    let dict = obj.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "an event is a dict as Parser.feed returns them, not a {}",
            type_name(obj)
        ))
    })?;
    let ty = match dict.get_item("type")? {
        Some(t) => match t.cast::<PyString>() {
            Ok(s) => s.to_cow()?.into_owned(),
            Err(_) => {
                return Err(PyTypeError::new_err(format!(
                    "event[\"type\"]: expected str, got {}",
                    type_name(&t)
                )));
            }
        },
        None => return Err(bad(format!("event[\"type\"]: missing (one of {TYPES})"))),
    };
    let f = Fields {
        dict,
        kind: ty.as_str(),
    };
    Ok(match ty.as_str() {
        "text" => Event::Text {
            delta: f.str("delta")?,
        },
        "reasoning" => Event::Reasoning {
            delta: f.str("delta")?,
        },
        "tool_call_start" => Event::ToolCallStart {
            index: f.index("index")?,
            id: f.str("id")?,
            name: f.str("name")?,
        },
        "tool_call_args" => Event::ToolCallArgs {
            index: f.index("index")?,
            delta: f.str("delta")?,
        },
        "tool_call_field" => Event::ToolCallField {
            index: f.index("index")?,
            path: f.str("path")?,
            delta: f.str("delta")?,
            kind: field_kind(&f.str("kind")?)?,
        },
        "tool_call_field_end" => Event::ToolCallFieldEnd {
            index: f.index("index")?,
            path: f.str("path")?,
        },
        "tool_call_end" => Event::ToolCallEnd {
            index: f.index("index")?,
            id: f.str("id")?,
            name: f.str("name")?,
            arguments: to_value(&f.required("arguments")?, "event[\"arguments\"]")?,
        },
        "finish" => Event::Finish {
            reason: f
                .optional_str("reason")?
                .map(|r| FinishReason::from_provider(&r)),
            usage: match f.get("usage")? {
                Some(u) if !u.is_none() => Some(usage(&u)?),
                _ => None,
            },
        },
        "error" => {
            let name = f.str("kind")?;
            let kind = KINDS
                .into_iter()
                .find(|k| k.as_str() == name)
                .ok_or_else(|| {
                    let known: Vec<&str> = KINDS.iter().map(|k| k.as_str()).collect();
                    bad(format!(
                        "event[\"kind\"]: unknown error kind {name:?} (one of {})",
                        known.join(", ")
                    ))
                })?;
            Event::Error {
                kind,
                message: f.str("message")?,
                index: f.optional_index("index")?,
                raw: f.optional_str("raw")?.unwrap_or_default(),
                path: f.optional_str("path")?,
            }
        }
        other => {
            return Err(bad(format!(
                "event[\"type\"]: unknown event type {other:?} (one of {TYPES})"
            )));
        }
    })
}

/// A `finish` event's `usage` dict as [`Usage`]: the normalised counts and `raw`.
fn usage(obj: &Bound<'_, PyAny>) -> PyResult<Usage> {
    let dict = obj.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "event[\"usage\"]: expected a dict or None, got {}",
            type_name(obj)
        ))
    })?;
    let count = |key: &str| -> PyResult<Option<u64>> {
        match dict.get_item(key)? {
            Some(v) if !v.is_none() => {
                if v.cast::<PyBool>().is_err()
                    && let Ok(i) = v.cast::<PyInt>()
                {
                    return i.extract::<u64>().map(Some).map_err(|_| {
                        bad(format!(
                            "event[\"usage\"][\"{key}\"]: must be >= 0, got {i}"
                        ))
                    });
                }
                Err(PyTypeError::new_err(format!(
                    "event[\"usage\"][\"{key}\"]: expected int or None, got {}",
                    type_name(&v)
                )))
            }
            _ => Ok(None),
        }
    };
    let mut u = Usage::default();
    u.input_tokens = count("input_tokens")?;
    u.output_tokens = count("output_tokens")?;
    u.total_tokens = count("total_tokens")?;
    u.reasoning_tokens = count("reasoning_tokens")?;
    u.cached_input_tokens = count("cached_input_tokens")?;
    if let Some(raw) = dict.get_item("raw")? {
        u.raw = to_value(&raw, "event[\"usage\"][\"raw\"]")?;
    }
    Ok(u)
}

/// A dict shaped like `Parser.response_meta` (`id`, `model`, `created`; each optional).
pub(crate) fn response_meta(obj: &Bound<'_, PyAny>) -> PyResult<ResponseMeta> {
    let dict = obj.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "response_meta: expected a Parser or a dict like Parser.response_meta, got {}",
            type_name(obj)
        ))
    })?;
    let text = |key: &str| -> PyResult<Option<String>> {
        match dict.get_item(key)? {
            Some(v) if !v.is_none() => match v.cast::<PyString>() {
                Ok(s) => Ok(Some(s.to_cow()?.into_owned())),
                Err(_) => Err(PyTypeError::new_err(format!(
                    "response_meta[\"{key}\"]: expected str or None, got {}",
                    type_name(&v)
                ))),
            },
            _ => Ok(None),
        }
    };
    let mut meta = ResponseMeta::default();
    meta.id = text("id")?;
    meta.model = text("model")?;
    meta.created = match dict.get_item("created")? {
        Some(v) if !v.is_none() => Some(v.extract::<u64>().map_err(|_| {
            bad(format!(
                "response_meta[\"created\"]: expected Unix seconds (an int >= 0), got {}",
                v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
            ))
        })?),
        _ => None,
    };
    Ok(meta)
}
