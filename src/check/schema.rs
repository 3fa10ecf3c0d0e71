//! Streaming JSON-Schema validation of a call's arguments
//! ([`ParserConfig::validate_arguments`](crate::ParserConfig::validate_arguments)).
//!
//! A tool's `parameters` schema is compiled once ([`Compiled`], kept by [`Tools`] and
//! shared by every parser made from it); each call gets a [`Validator`] that reads the
//! argument text once, byte by byte, with its own small JSON state machine (a stack of
//! open containers, each with its schema node), and reports the first byte after which
//! no continuation of the text can be valid.
//!
//! Checked, and where:
//!
//! | keyword | reported at |
//! |---|---|
//! | `type` (a name or a list; `nullable: true`) | the value's first byte |
//! | `type: integer` | a fraction: the number's end (`1.5e1` is an integer), unless a bound or member already rules it out (below) |
//! | `enum`, `const` | strings: the first character no member shares (or the closing quote); literals: the first byte; numbers: the first byte (sign or digit) after which no member is reachable, else their end; objects and arrays: their kind at the first byte, their value at their close (up to 64 KiB of text) |
//! | `properties`, `additionalProperties: false` | an undeclared key: its first character no declared name shares (or its closing quote; its opening quote when no name is allowed) |
//! | `additionalProperties` (a schema), `items`, `prefixItems` (and `items` as a list) | nested values, checked as above |
//! | `required` | the object's `}` |
//! | `maxItems` (and `items: false` after `prefixItems`) / `minItems` | the `,` promising an element past the bound / the array's `]` |
//! | `maxLength` / `minLength` (characters) | the first character past the bound / the closing quote |
//! | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, and draft-4 booleans) | the first byte after which no number the text can still become is within them (the sign and the digits so far bound it: more digits and an exponent may follow; an integer's digits bound it from below); else the byte after the number |
//! | `multipleOf` | the byte after the number |
//! | `pattern` | the first character after which its DFA is dead (no continuation can contain a match), else the closing quote when the string holds no match |
//! | `anyOf` / `oneOf` | the first byte after which no branch can still accept the value; `oneOf` with more than one branch accepting: the byte that closes the value |
//! | `allOf` | as its first branch to refuse |
//! | `$ref` to `#/$defs/...` or `#/definitions/...` (recursion included) | as the target's keywords |
//! | `true` / `false` schemas | a value for `false`: its first byte |
//!
//! `pattern` is ECMA-262 `search`: unanchored (a match anywhere in the string, `^` / `$`
//! anchor it), run over the *decoded* string (after JSON escapes, `\uXXXX` pairs
//! included), compiled once per schema to a dense DFA of `regex-automata` (at most 1 MiB)
//! and stepped one decoded byte at a time; once a match is seen the rest of the string
//! is not looked at. Rust's `\d`, `\w` and `.` match a superset of ECMA's; `\s` gets
//! U+FEFF added (ECMA's has it): a string ECMA accepts is never refused. A pattern the
//! crate cannot compile (look-around, backreferences, a Unicode `\b`, too large) is not
//! checked.
//!
//! `anyOf` / `oneOf` / `allOf` hold, per open value that has them, a set of live
//! branches: a [`Validator`] per branch, fed the value's bytes from its first to its last,
//! beside the value's own keywords. The branch sets are compiled once (node ids); the
//! state per open value is bounded by the schema: at most the branches of the
//! combinators of the values open along the current path, and at most 256 branch
//! validators per call in all (each set takes its share of its parent's budget; a set
//! that does not fit is not checked, never a false error). Each byte is fed to every
//! live branch: the cost per byte is the number of live branches.
//!
//! Not checked (never an error): `not`, `if`/`then`/`else`, `patternProperties` (whose
//! presence turns off `additionalProperties: false`), `propertyNames`,
//! `dependentRequired`, `minProperties`/`maxProperties`, `uniqueItems`, `contains`,
//! `format`, `$ref` to anything but the schema's own definitions, a number with more than
//! 64 bytes of text, and the siblings of a `$ref`. A top-level number is checked when the
//! call's value closes.
//!
//! Cost: each argument byte is looked at once per live validator, O(1) work per byte
//! besides matching a string against the enum members or declared names that still share
//! its prefix (each candidate dropped for good at its first mismatch) and a number's
//! digit against its bounds and numeric members. Plain string text (no members, no
//! pattern) is skipped to its next quote or backslash with `memchr2`, its characters
//! counted only when a length bound asks. A whole string key or member is found with
//! one hash and one compare. The common shape of an object's members (a declared key,
//! `:`, a string without escapes, an integer or an array of them, `,`) is taken member
//! by member in bulk when it passes; whatever does not (or anything else) is left to the
//! byte-by-byte state machine from the start of its token, which finds the exact byte.
//! The JSON Pointer of a violation is spelled out only for its message. State: one frame
//! per open container (at most 256; deeper text is not checked), the keys of undeclared
//! members, the number text, the branch sets.
//!
//! [`Tools`]: crate::Tools

use regex_automata::Anchored;
use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

const NULL: u8 = 1;
const BOOL: u8 = 2;
const INT: u8 = 4;
const NUM: u8 = 8;
const STR: u8 = 16;
const ARR: u8 = 32;
const OBJ: u8 = 64;
const ANY: u8 = 127;
/// In an `enum`'s kinds: the member `false` (`BOOL` there: `true`).
const FALSE: u8 = 128;

/// Most nodes one tool's schema compiles to (past it, the rest is not checked).
const MAX_NODES: usize = 100_000;
/// Deepest nesting checked.
const MAX_FRAMES: usize = 256;
/// Longest number text checked.
const MAX_NUMBER: usize = 64;

type Id = u32;

/// A tool's compiled `parameters` schema.
#[derive(Debug, Default)]
pub(crate) struct Compiled {
    nodes: Vec<Node>,
    root: Option<Id>,
    patterns: Vec<Pattern>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum Additional {
    #[default]
    Any,
    Forbidden,
    Schema(Id),
}

#[derive(Debug)]
struct Prop {
    name: String,
    schema: Option<Id>,
    /// In `properties` (else only in `required`).
    declared: bool,
    required: bool,
}

#[derive(Debug)]
struct Node {
    types: u8,
    enum_: Option<Vec<Value>>,
    props: Vec<Prop>,
    by_name: HashMap<String, usize>,
    required: usize,
    additional: Additional,
    items: Option<Id>,
    prefix: Vec<Option<Id>>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    min_len: Option<u64>,
    max_len: Option<u64>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    ex_minimum: Option<f64>,
    ex_maximum: Option<f64>,
    multiple_of: Option<f64>,
    /// The declared property names (indices into `props`), in byte order.
    key_order: Vec<u32>,
    /// The string members of `enum_` (indices), in byte order.
    enum_order: Vec<u32>,
    /// The declared names and the string members themselves, in byte order (one index
    /// per byte matched).
    key_names: Vec<Box<[u8]>>,
    member_names: Vec<Box<[u8]>>,
    /// Hash tables of `key_names` and `member_names` ([`name_table`]): a whole string
    /// found with one hash and one compare.
    key_table: Box<[u32]>,
    member_table: Box<[u32]>,
    /// `anyOf` / `oneOf` / `allOf`: their branches (each a set of live branches while a
    /// value streams).
    combos: Vec<(Of, Vec<Id>)>,
    /// `pattern`: its index in [`Compiled::patterns`].
    pattern: Option<u32>,
    /// The numeric members of `enum_`: each value and its significant digits.
    mantissas: Vec<(f64, Box<[u8]>)>,
    /// The kinds of `enum_`'s members (`BOOL`: `true`, `FALSE`: `false`, `NUM`: a number).
    enum_kinds: u8,
    /// Every property name (declared or only required), in byte order, with its index in
    /// `props`: a key not matched against the declared names is looked up here.
    names_all: Vec<(Box<[u8]>, u32)>,
}

/// Which of a value's branches must accept it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Of {
    /// `anyOf`: at least one.
    Any,
    /// `oneOf`: exactly one (more than one: a violation when the value closes).
    One,
    /// `allOf`: every one.
    All,
}

impl Of {
    fn keyword(self) -> &'static str {
        match self {
            Of::Any => "anyOf",
            Of::One => "oneOf",
            Of::All => "allOf",
        }
    }
}

/// A compiled `pattern`: a dense DFA searching the decoded string unanchored
/// (ECMA-262 `search` semantics), and the source for messages.
#[derive(Debug)]
struct Pattern {
    dfa: dense::DFA<Vec<u32>>,
    /// The unanchored start state (at the start of the string).
    start: StateID,
    source: String,
}

impl Node {
    /// The `k`-th name in byte order of the declared keys (`key`) or string members.
    #[inline]
    fn name(&self, key: bool, k: u32) -> Option<&[u8]> {
        let names = if key {
            &self.key_names
        } else {
            &self.member_names
        };
        names.get(k as usize).map(|n| &**n)
    }

    /// The index in byte order of the declared key (`key`) or string member equal to `text`.
    #[inline]
    fn find(&self, key: bool, text: &[u8]) -> Option<u32> {
        let table = if key {
            &self.key_table
        } else {
            &self.member_table
        };
        let mask = table.len().checked_sub(1)?;
        let mut i = name_hash(text) as usize;
        loop {
            let k = table.get(i & mask).copied()?.checked_sub(1)?;
            if self.name(key, k) == Some(text) {
                return Some(k);
            }
            i = (i & mask) + 1;
        }
    }

    /// The index in `props` of the property named `key`.
    fn lookup(&self, key: &[u8]) -> Option<usize> {
        let k = self
            .names_all
            .binary_search_by(|(name, _)| (**name).cmp(key))
            .ok()?;
        self.names_all.get(k).map(|(_, i)| *i as usize)
    }
}

impl Default for Node {
    fn default() -> Self {
        Node {
            types: ANY,
            enum_: None,
            props: Vec::new(),
            by_name: HashMap::new(),
            required: 0,
            additional: Additional::Any,
            items: None,
            prefix: Vec::new(),
            min_items: None,
            max_items: None,
            min_len: None,
            max_len: None,
            minimum: None,
            maximum: None,
            ex_minimum: None,
            ex_maximum: None,
            multiple_of: None,
            key_order: Vec::new(),
            enum_order: Vec::new(),
            key_names: Vec::new(),
            member_names: Vec::new(),
            key_table: Box::default(),
            member_table: Box::default(),
            combos: Vec::new(),
            pattern: None,
            mantissas: Vec::new(),
            enum_kinds: 0,
            names_all: Vec::new(),
        }
    }
}

impl Compiled {
    /// Compiles a `parameters` schema.
    pub(crate) fn new(schema: &Value) -> Self {
        let mut c = Compiler {
            root: schema,
            nodes: Vec::new(),
            refs: HashMap::new(),
            patterns: Vec::new(),
            sources: HashMap::new(),
        };
        let root = c.node(schema, 0);
        Compiled {
            nodes: c.nodes,
            root,
            patterns: c.patterns,
        }
    }

    fn get(&self, id: Option<Id>) -> Option<&Node> {
        id.and_then(|i| self.nodes.get(i as usize))
    }
}

struct Compiler<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    refs: HashMap<String, Id>,
    patterns: Vec<Pattern>,
    /// Pattern sources compiled so far (`None`: the crate cannot compile it).
    sources: HashMap<String, Option<u32>>,
}

/// Largest DFA one `pattern` may compile to (past it, the pattern is not checked).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// A `pattern` as an unanchored dense DFA; `None` when the crate cannot compile it
/// (look-around, backreferences, a Unicode word boundary) or it is too large.
fn compile_pattern(source: &str) -> Option<Pattern> {
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Unanchored)
                .dfa_size_limit(Some(PATTERN_SIZE_LIMIT))
                .determinize_size_limit(Some(PATTERN_SIZE_LIMIT)),
        )
        .build(&ecma_classes(source))
        .ok()?;
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::No))
        .ok()?;
    Some(Pattern {
        dfa,
        start,
        source: source.to_owned(),
    })
}

/// ECMA-262's `\s` also matches U+FEFF, which Rust's does not: added, so a string
/// ECMA accepts is never refused. (Rust's `\d`, `\w` and `.` match a superset of
/// ECMA's: never a false error.)
fn ecma_classes(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out.push_str("[\\s\\x{FEFF}]"),
            Some(n) => {
                out.push('\\');
                out.push(n);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A schema object's keywords, looked up by a scan of its (few) entries.
struct Keywords<'a>(&'a serde_json::Map<String, Value>);

impl<'a> Keywords<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.0
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v)
    }
    fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

fn type_bits(name: &str) -> u8 {
    match name.to_ascii_lowercase().as_str() {
        "null" => NULL,
        "boolean" => BOOL,
        "integer" => INT,
        "number" => NUM | INT,
        "string" => STR,
        "array" => ARR,
        "object" => OBJ,
        _ => ANY,
    }
}

fn kind_of(v: &Value) -> u8 {
    match v {
        Value::Null => NULL,
        Value::Bool(_) => BOOL,
        Value::Number(_) => NUM,
        Value::String(_) => STR,
        Value::Array(_) => ARR,
        Value::Object(_) => OBJ,
    }
}

impl Compiler<'_> {
    /// The node of schema `v` (`None`: anything goes).
    fn node(&mut self, v: &Value, depth: usize) -> Option<Id> {
        if depth > 64 || self.nodes.len() >= MAX_NODES {
            return None;
        }
        let obj = match v {
            Value::Bool(false) => {
                let id = self.nodes.len() as Id;
                self.nodes.push(Node {
                    types: 0,
                    ..Node::default()
                });
                return Some(id);
            }
            Value::Object(o) => o,
            _ => return None,
        };
        if let Some(Value::String(r)) = obj.get("$ref") {
            return self.reference(r, depth);
        }
        let id = self.nodes.len() as Id;
        self.nodes.push(Node::default());
        let n = self.build(obj, depth);
        if let Some(slot) = self.nodes.get_mut(id as usize) {
            *slot = n;
        }
        Some(id)
    }

    /// A `$ref` into the schema's own `$defs` / `definitions`.
    fn reference(&mut self, r: &str, depth: usize) -> Option<Id> {
        if let Some(id) = self.refs.get(r) {
            return Some(*id);
        }
        let pointer = r.strip_prefix('#')?;
        if !(pointer.starts_with("/$defs/") || pointer.starts_with("/definitions/")) {
            return None;
        }
        let target = self.root.pointer(pointer)?;
        // Reserve the node first: a recursive reference finds it.
        let Value::Object(obj) = target else {
            return self.node(target, depth + 1);
        };
        if obj.contains_key("$ref") {
            return None;
        }
        let id = self.nodes.len() as Id;
        self.nodes.push(Node::default());
        self.refs.insert(r.to_owned(), id);
        let n = self.build(obj, depth + 1);
        if let Some(slot) = self.nodes.get_mut(id as usize) {
            *slot = n;
        }
        Some(id)
    }

    fn build(&mut self, o: &serde_json::Map<String, Value>, depth: usize) -> Node {
        // A schema object has a few keywords: found by a scan of its entries rather than
        // hashed once per keyword looked up (compiling 100 tools stays well under 1 ms).
        let o = Keywords(o);
        let mut n = Node::default();
        match o.get("type") {
            Some(Value::String(t)) => n.types = type_bits(t),
            Some(Value::Array(ts)) => {
                let mut bits = 0;
                for t in ts {
                    bits |= t.as_str().map_or(ANY, type_bits);
                }
                n.types = if ts.is_empty() { ANY } else { bits };
            }
            _ => {}
        }
        if o.get("nullable") == Some(&Value::Bool(true)) {
            n.types |= NULL;
        }
        if let Some(Value::Array(members)) = o.get("enum") {
            n.enum_ = Some(members.clone());
        }
        if let Some(c) = o.get("const") {
            n.enum_ = Some(vec![c.clone()]);
        }
        if let Some(members) = &n.enum_ {
            n.enum_kinds = members.iter().fold(0, |k, m| {
                k | match m {
                    Value::Bool(false) => FALSE,
                    m => kind_of(m),
                }
            });
            n.mantissas = members
                .iter()
                .filter_map(Value::as_f64)
                .map(|m| {
                    let e = format!("{:e}", m.abs());
                    let digits: Vec<u8> = e
                        .split('e')
                        .next()
                        .unwrap_or_default()
                        .bytes()
                        .filter(u8::is_ascii_digit)
                        .collect();
                    (m, digits.into_boxed_slice())
                })
                .collect();
        }
        if let Some(Value::Object(props)) = o.get("properties") {
            for (name, s) in props {
                let schema = self.node(s, depth + 1);
                n.by_name.insert(name.clone(), n.props.len());
                n.props.push(Prop {
                    name: name.clone(),
                    schema,
                    declared: true,
                    required: false,
                });
            }
        }
        if let Some(Value::Array(req)) = o.get("required") {
            for r in req.iter().filter_map(Value::as_str) {
                match n.by_name.get(r) {
                    Some(&i) => {
                        if let Some(p) = n.props.get_mut(i) {
                            p.required = true;
                        }
                    }
                    None => {
                        n.by_name.insert(r.to_owned(), n.props.len());
                        n.props.push(Prop {
                            name: r.to_owned(),
                            schema: None,
                            declared: false,
                            required: true,
                        });
                    }
                }
            }
            n.required = n.props.iter().filter(|p| p.required).count();
        }
        if !o.contains_key("patternProperties") {
            match o.get("additionalProperties") {
                Some(Value::Bool(false)) => n.additional = Additional::Forbidden,
                Some(s @ Value::Object(_)) => {
                    if let Some(id) = self.node(s, depth + 1) {
                        n.additional = Additional::Schema(id);
                    }
                }
                _ => {}
            }
        }
        let tuple = match (o.get("prefixItems"), o.get("items")) {
            (Some(Value::Array(p)), _) => Some((p, o.get("items"))),
            (None, Some(Value::Array(p))) => Some((p, o.get("additionalItems"))),
            _ => None,
        };
        match tuple {
            Some((p, rest)) => {
                for s in p {
                    let id = self.node(s, depth + 1);
                    n.prefix.push(id);
                }
                match rest {
                    Some(Value::Bool(false)) => n.max_items = Some(p.len() as u64),
                    Some(s @ Value::Object(_)) => n.items = self.node(s, depth + 1),
                    _ => {}
                }
            }
            None => {
                if let Some(s) = o.get("items") {
                    n.items = self.node(s, depth + 1);
                }
            }
        }
        let uint = |k: &str| o.get(k).and_then(Value::as_u64);
        n.min_items = uint("minItems");
        n.max_items = match (n.max_items, uint("maxItems")) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        n.min_len = uint("minLength");
        n.max_len = uint("maxLength");
        let num = |k: &str| o.get(k).and_then(Value::as_f64);
        n.minimum = num("minimum");
        n.maximum = num("maximum");
        // Draft 4: boolean exclusive bounds make `minimum` / `maximum` exclusive.
        match o.get("exclusiveMinimum") {
            Some(Value::Bool(true)) => n.ex_minimum = n.minimum.take(),
            v => n.ex_minimum = v.and_then(Value::as_f64),
        }
        match o.get("exclusiveMaximum") {
            Some(Value::Bool(true)) => n.ex_maximum = n.maximum.take(),
            v => n.ex_maximum = v.and_then(Value::as_f64),
        }
        n.multiple_of = num("multipleOf").filter(|m| *m > 0.0);
        if let Some(Value::String(source)) = o.get("pattern") {
            n.pattern = match self.sources.get(source) {
                Some(p) => *p,
                None => {
                    let p = compile_pattern(source).map(|p| {
                        self.patterns.push(p);
                        (self.patterns.len() - 1) as u32
                    });
                    self.sources.insert(source.clone(), p);
                    p
                }
            };
        }
        for (keyword, of) in [("allOf", Of::All), ("anyOf", Of::Any), ("oneOf", Of::One)] {
            let Some(Value::Array(branches)) = o.get(keyword) else {
                continue;
            };
            let mut ids = Vec::with_capacity(branches.len());
            let mut accepts_all = false;
            for b in branches {
                match self.node(b, depth + 1) {
                    Some(id) => ids.push(id),
                    // A branch that accepts anything: `anyOf` holds; `allOf` loses nothing;
                    // `oneOf` counts it (a node without keywords).
                    None if of == Of::One => {
                        ids.push(self.nodes.len() as Id);
                        self.nodes.push(Node::default());
                    }
                    None => accepts_all = true,
                }
            }
            if of == Of::Any && accepts_all || ids.is_empty() && of != Of::One {
                continue;
            }
            n.combos.push((of, ids));
        }
        let mut keys: Vec<u32> = (0..n.props.len() as u32)
            .filter(|&i| n.props.get(i as usize).is_some_and(|p| p.declared))
            .collect();
        keys.sort_by(|&a, &b| {
            let name = |i: u32| n.props.get(i as usize).map(|p| p.name.as_bytes());
            name(a).cmp(&name(b))
        });
        n.key_order = keys;
        if let Some(members) = &n.enum_ {
            let mut strs: Vec<u32> = (0..members.len() as u32)
                .filter(|&i| members.get(i as usize).is_some_and(Value::is_string))
                .collect();
            strs.sort_by(|&a, &b| {
                let name = |i: u32| members.get(i as usize).and_then(Value::as_str);
                name(a).cmp(&name(b))
            });
            n.member_names = strs
                .iter()
                .filter_map(|&i| members.get(i as usize).and_then(Value::as_str))
                .map(|m| m.as_bytes().into())
                .collect();
            n.enum_order = strs;
        }
        n.key_names = n
            .key_order
            .iter()
            .filter_map(|&i| n.props.get(i as usize))
            .map(|p| p.name.as_bytes().into())
            .collect();
        n.key_table = name_table(&n.key_names);
        n.member_table = name_table(&n.member_names);
        n.names_all = n
            .props
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.as_bytes().into(), i as u32))
            .collect();
        n.names_all.sort_unstable();
        n
    }
}

/// A violation: the byte of the delta, the message, the JSON Pointer.
pub(crate) type Found = (usize, String, String);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lex {
    /// A value starts here (whitespace first).
    Value,
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After `[`: a value or `]`.
    ItemOrEnd,
    /// After a value: `,`, `}` or `]` (whitespace first).
    After,
    /// In a string (a key or a value).
    Str,
    /// In a number.
    Num,
    /// In `true`, `false`, `null`.
    Lit,
    /// The top-level value closed.
    Done,
    /// Invalid text or too deep: nothing more is checked.
    Dead,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Esc {
    No,
    /// After `\`.
    Slash,
    /// In `\uXXXX`: digits read, value so far.
    U(u8, u32),
}

/// An object's current member, as the last segment of the path of the value inside it
/// (the path is spelled out only for a message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seg {
    /// No key read yet.
    None,
    /// A property of the node (its index in `props`): its name.
    Prop(u32),
    /// Any other key: its decoded text, `keys[from..to]`.
    Key(u32, u32),
}

#[derive(Debug)]
struct Frame {
    node: Option<Id>,
    array: bool,
    /// Elements (arrays; the current one's index is `count - 1`).
    count: u64,
    /// Properties seen: a bit per property of the node, in `Validator::seen` from here.
    seen_at: u32,
    /// Where this object's keys go in `Validator::keys`.
    keys_at: u32,
    /// The current member (objects).
    seg: Seg,
    /// The schema of the value after the current key.
    child: Option<Id>,
}

/// One call's streaming validation.
#[derive(Debug)]
pub(crate) struct Validator {
    schema: Arc<Compiled>,
    lex: Lex,
    frames: Vec<Frame>,
    /// The path of the value this validator reads (the frames add their segments).
    base: String,
    /// The frames' bits of properties seen.
    seen: Vec<u64>,
    /// The decoded text of the frames' keys not matched against declared names (each
    /// object's current one, innermost last); a key being read is at the end.
    keys: Vec<u8>,
    /// The node of the value being read (string, number, literal).
    node: Option<Id>,
    /// The string is a key.
    key: bool,
    esc: Esc,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
    /// Characters of the string so far.
    chars: u64,
    /// Bytes of the string matched against the candidates.
    matched: usize,
    /// Enum members (string values) or declared names (keys) that share the prefix.
    /// The range, in the node's byte order, of the names still sharing the prefix.
    range: (u32, u32),
    /// Whether candidates are being matched.
    matching: bool,
    num: String,
    /// A fraction or exponent was seen; `exp`: an exponent.
    frac: bool,
    exp: bool,
    /// The number's value while its text is an integer of at most 15 digits (`digits`
    /// of them; `exact`: still such an integer), so it needs no float parse.
    acc: u64,
    digits: u8,
    exact: bool,
    /// The number's node bounds it on its sign's side or has members: its reach is
    /// checked per digit.
    reach: bool,
    /// The text of an object or array whose schema's `enum` / `const` holds containers:
    /// the depth it opened at, its node and its text so far (compared at its close).
    capture: Option<(usize, Option<Id>, Vec<u8>)>,
    /// The DFA state of the string's `pattern` while no match is found yet (`None`: no
    /// pattern, or it matched).
    pat: Option<(u32, StateID)>,
    /// The open values' `anyOf` / `oneOf` / `allOf`, innermost last.
    sets: Vec<Branches>,
    /// Most validators this one and its branches may hold at once ([`MAX_BRANCHES`] at
    /// the top); `reserved`: held by the open sets.
    budget: usize,
    reserved: usize,
}

/// Most branch validators one call holds at once (past it, a combinator is not checked).
const MAX_BRANCHES: usize = 256;

/// One open value's `anyOf` / `oneOf` / `allOf`: a validator per branch, fed the value's
/// bytes from its first to its last.
#[derive(Debug)]
struct Branches {
    of: Of,
    /// Open containers when the value started (it ends when the count is back here).
    depth: usize,
    /// The value's path.
    path: String,
    subs: Vec<Validator>,
    /// Why each branch refused the value (`None`: still live).
    failed: Vec<Option<(String, String)>>,
    /// Validators held (the branches and what they may hold).
    reserved: usize,
}

impl Branches {
    /// The message of a set none of whose branches accepts the value (`message` at `path`:
    /// the last branch's reason).
    fn refused(&self, message: &str, path: &str) -> String {
        format!(
            "{}: no branch accepts the value (the last refused it at {path:?}: {message})",
            self.of.keyword()
        )
    }

    /// The value closed: whether its branches' verdicts satisfy the keyword.
    fn verdict(&self) -> Result<(), (String, String)> {
        let live = self.failed.iter().filter(|f| f.is_none()).count();
        match self.of {
            Of::All => match self.failed.iter().flatten().next() {
                Some(f) => Err(f.clone()),
                None => Ok(()),
            },
            Of::Any | Of::One if live == 0 => {
                let (m, p) = self
                    .failed
                    .iter()
                    .flatten()
                    .last()
                    .cloned()
                    .unwrap_or_default();
                Err((self.refused(&m, &p), self.path.clone()))
            }
            Of::One if live > 1 => Err((
                format!("oneOf: the value matches {live} branches, not exactly one"),
                self.path.clone(),
            )),
            _ => Ok(()),
        }
    }
}

/// Longest container text compared against `enum` / `const` members (longer: not checked).
const MAX_CAPTURE: usize = 64 * 1024;

impl Validator {
    pub(crate) fn new(schema: Arc<Compiled>) -> Self {
        let node = schema.root;
        Self::at(schema, node, String::new(), MAX_BRANCHES)
    }

    /// A validator of one value against `node`, the value at `path`.
    fn at(schema: Arc<Compiled>, node: Option<Id>, path: String, budget: usize) -> Self {
        Validator {
            schema,
            lex: Lex::Value,
            frames: Vec::new(),
            base: path,
            seen: Vec::new(),
            keys: Vec::new(),
            node,
            key: false,
            esc: Esc::No,
            high: None,
            chars: 0,
            matched: 0,
            range: (0, 0),
            matching: false,
            num: String::new(),
            frac: false,
            exp: false,
            acc: 0,
            digits: 0,
            exact: false,
            reach: false,
            capture: None,
            pat: None,
            sets: Vec::new(),
            budget,
            reserved: 0,
        }
    }

    /// The JSON Pointer of the value read at nesting `depth` (the containers `..depth`
    /// and their current members), spelled out for a message.
    fn path_to(&self, s: &Compiled, depth: usize) -> String {
        let mut p = self.base.clone();
        for f in self.frames.iter().take(depth) {
            if f.array {
                if f.count > 0 {
                    push_index(&mut p, f.count - 1);
                }
                continue;
            }
            match f.seg {
                Seg::None => {}
                Seg::Prop(i) => {
                    if let Some(prop) = s.get(f.node).and_then(|n| n.props.get(i as usize)) {
                        push_key(&mut p, &prop.name);
                    }
                }
                Seg::Key(a, b) => {
                    let key = self.keys.get(a as usize..b as usize).unwrap_or_default();
                    push_key(&mut p, &String::from_utf8_lossy(key));
                }
            }
        }
        p
    }

    /// The path of the value being read.
    fn path(&self, s: &Compiled) -> String {
        self.path_to(s, self.frames.len())
    }

    /// The path of the innermost open container.
    fn path_of_frame(&self, s: &Compiled) -> String {
        self.path_to(s, self.frames.len().saturating_sub(1))
    }

    /// Feeds argument text; the first violation in it.
    pub(crate) fn feed(&mut self, text: &[u8]) -> Option<Found> {
        let schema = Arc::clone(&self.schema);
        let mut i = 0;
        while let Some(&b) = text.get(i) {
            if matches!(self.lex, Lex::Dead | Lex::Done) {
                return None;
            }
            let open = self.sets.len();
            let bulk = match self.lex {
                Lex::Str => self.plain_run(&schema, text, i, b),
                Lex::Num => self.digit_run(text, i),
                Lex::Key | Lex::KeyOrEnd if b == b'"' && open == 0 && self.capture.is_none() => {
                    self.member_run(&schema, text, i)
                }
                _ => 0,
            };
            let run = match bulk {
                0 => {
                    if let Some((_, _, text)) = &mut self.capture {
                        if text.len() < MAX_CAPTURE {
                            text.push(b);
                        } else {
                            self.capture = None;
                        }
                    }
                    if let Err((message, path)) = self.step(&schema, b) {
                        self.lex = Lex::Dead;
                        return Some((i, message, path));
                    }
                    1
                }
                run => run,
            };
            if open > 0 {
                // The sets open before this text see it (one opened by it saw its byte).
                let seg = text.get(i..i + run).unwrap_or_default();
                if let Some((at, message, path)) = self.feed_sets(open, seg) {
                    self.lex = Lex::Dead;
                    return Some((i + at, message, path));
                }
                if let Err((message, path)) = self.end_sets() {
                    self.lex = Lex::Dead;
                    return Some((i, message, path));
                }
            }
            i += run;
        }
        None
    }

    /// The common case: plain text of a string (no escape, no pattern pending), taken to
    /// its next quote or backslash in bulk: a value's characters counted only when a
    /// length bound asks, a key's bytes kept, the names a key or member is matched against
    /// compared as one slice while all of them share the text's next bytes. The bytes
    /// taken (0: step byte `b` instead, which finds the exact byte of a mismatch).
    #[inline]
    fn plain_run(&mut self, schema: &Compiled, text: &[u8], i: usize, b: u8) -> usize {
        if !(self.lex == Lex::Str
            && self.esc == Esc::No
            && self.pat.is_none()
            && self.high.is_none()
            && b != b'"'
            && b != b'\\')
        {
            return 0;
        }
        let rest = text.get(i..).unwrap_or_default();
        let mut run = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
        // A value's one-character escapes (not `\u`) stay in the run when nothing but
        // `minLength` counts its characters: one character each.
        let mut escapes = 0;
        if !self.matching && !self.key && schema.get(self.node).is_none_or(|n| n.max_len.is_none())
        {
            while rest.get(run) == Some(&b'\\') && rest.get(run + 1).is_some_and(|&e| e != b'u') {
                run += 2;
                escapes += 1;
                let tail = rest.get(run..).unwrap_or_default();
                run += memchr::memchr2(b'"', b'\\', tail).unwrap_or(tail.len());
            }
        }
        if self.matching {
            // The whole rest of the string is here and is a name: taken at once (else the
            // bytes the names share, then a byte at a time).
            let seg = rest.get(..run).unwrap_or_default();
            if !(rest.get(run) == Some(&b'"') && self.whole(schema, seg)) {
                run = self.shared_run(schema, seg);
            }
            if run == 0 {
                return 0;
            }
        }
        let seg = rest.get(..run).unwrap_or_default();
        if self.key {
            if !self.matching {
                self.keys.extend_from_slice(seg);
            }
        } else {
            let n = schema.get(self.node);
            let max = n.and_then(|n| n.max_len);
            // Characters are counted only for a length bound (both bounds read `chars`).
            // (An escape is two bytes, one character.)
            let chars = if max.is_some() || n.is_some_and(|n| n.min_len.is_some()) {
                seg.iter().filter(|&&c| (c as i8) >= -0x40).count() as u64 - escapes
            } else {
                0
            };
            if max.is_some_and(|m| self.chars + chars > m) {
                return 0;
            }
            self.chars += chars;
        }
        if self.matching {
            self.matched += run;
        }
        // The closing quote in the same run when the string passes there, and the `:`
        // after a key or the `,` after a member's value right after it (not with branch
        // sets open: a value's close is where their verdict is reported).
        if rest.get(run) == Some(&b'"') && self.sets.is_empty() && self.string_end(schema).is_ok() {
            let mut end = run + 1;
            match (self.lex, rest.get(end)) {
                (Lex::Colon, Some(&b':')) => {
                    self.lex = Lex::Value;
                    self.node = self.frames.last().and_then(|f| f.child);
                    end += 1;
                }
                (Lex::After, Some(&b',')) if self.frames.last().is_some_and(|f| !f.array) => {
                    self.lex = Lex::Key;
                    end += 1;
                }
                _ => {}
            }
            run = end;
        }
        self.capture_text(rest.get(..run).unwrap_or_default());
        run
    }

    /// Whole members of an object taken in bulk (`text[i]` opens a key): a key that is
    /// one of the node's properties, its `:`, a string value without escapes or an
    /// integer of at most 15 digits that passes all its keywords, and the `,` after it,
    /// over and over. Anything else (or anything that does not pass) stops the run before
    /// the token, in the state the byte-by-byte path has there, which then finds the
    /// exact byte of a violation. The bytes taken.
    fn member_run(&mut self, s: &Compiled, text: &[u8], i: usize) -> usize {
        let rest = text.get(i..).unwrap_or_default();
        let mut done = 0;
        loop {
            // `rest[done]` is a key's opening quote.
            let Some(f) = self.frames.last_mut().filter(|f| !f.array) else {
                return done;
            };
            let Some(n) = s.get(f.node) else {
                return done;
            };
            let body = rest.get(done + 1..).unwrap_or_default();
            let Some(q) = quote_or_backslash(body) else {
                return done;
            };
            let key = body.get(..q).unwrap_or_default();
            let prop = if body.get(q) != Some(&b'"') {
                None
            } else if n.additional == Additional::Forbidden {
                n.find(true, key)
                    .and_then(|k| n.key_order.get(k as usize))
                    .map(|&p| p as usize)
            } else {
                n.lookup(key)
            };
            let Some((pi, p)) = prop.and_then(|pi| Some((pi, n.props.get(pi)?))) else {
                return done;
            };
            let mut j = skip_ws(rest, done + 1 + q + 1);
            if rest.get(j) != Some(&b':') {
                return done;
            }
            j = skip_ws(rest, j + 1);
            let child = match (p.declared, n.additional) {
                (true, _) => p.schema,
                (false, Additional::Schema(id)) => Some(id),
                _ => None,
            };
            // The key and its `:` (a value starts next).
            f.seg = Seg::Prop(pi as u32);
            f.child = child;
            if let Some(w) = self.seen.get_mut(f.seen_at as usize + pi / 64) {
                *w |= 1 << (pi % 64);
            }
            self.key = true;
            self.lex = Lex::Value;
            self.node = child;
            done = j;
            let end = match rest.get(j) {
                Some(b'"') => plain_string(s.get(child), rest, j),
                Some(b'0'..=b'9') => plain_integer(s.get(child), rest, j),
                Some(b'[') => plain_array(s, s.get(child), rest, j),
                _ => None,
            };
            let Some(end) = end else {
                return done;
            };
            self.lex = Lex::After;
            done = end;
            let k = skip_ws(rest, end);
            if rest.get(k) != Some(&b',') {
                return done;
            }
            self.lex = Lex::Key;
            done = skip_ws(rest, k + 1);
            if rest.get(done) != Some(&b'"') {
                return done;
            }
        }
    }

    /// Text taken in bulk: kept when a container's value is captured.
    #[inline]
    fn capture_text(&mut self, seg: &[u8]) {
        if let Some((_, _, t)) = &mut self.capture {
            if t.len() + seg.len() <= MAX_CAPTURE {
                t.extend_from_slice(seg);
            } else {
                self.capture = None;
            }
        }
    }

    /// The digits of a number whose reach needs no check per digit, taken in bulk.
    fn digit_run(&mut self, text: &[u8], i: usize) -> usize {
        if self.reach && !self.exp {
            return 0;
        }
        let rest = text.get(i..).unwrap_or_default();
        let run = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let digits = rest.get(..run).unwrap_or_default();
        for &b in digits {
            self.digit(b);
        }
        self.capture_text(digits);
        run
    }

    /// One more byte of a number's text (`b` a digit: its value too).
    #[inline]
    fn digit(&mut self, b: u8) {
        if self.num.len() < MAX_NUMBER {
            self.num.push(b as char);
        } else {
            self.num.push('x');
            self.num.truncate(MAX_NUMBER + 1);
        }
        if self.exact && b.is_ascii_digit() {
            if self.digits < 15 {
                self.acc = self.acc * 10 + u64::from(b - b'0');
                self.digits += 1;
            } else {
                self.exact = false;
            }
        }
    }

    /// The node whose names the string is matched against.
    #[inline]
    fn names_node<'s>(&self, schema: &'s Compiled) -> Option<&'s Node> {
        let node = if self.key {
            self.frames.last().and_then(|f| f.node)
        } else {
            self.node
        };
        schema.get(node)
    }

    /// Whether `seg`, the rest of the string, completes a name still matched; if so the
    /// range narrows to it.
    fn whole(&mut self, schema: &Compiled, seg: &[u8]) -> bool {
        let (lo, hi) = self.range;
        let Some(n) = self.names_node(schema).filter(|_| lo < hi) else {
            return false;
        };
        let at = self.matched;
        if at == 0 {
            // The whole string: looked up in the names' table.
            return match n.find(self.key, seg) {
                Some(k) if lo <= k && k < hi => {
                    self.range = (k, k + 1);
                    true
                }
                _ => false,
            };
        }
        // The names of the range share their first `at` bytes: their rests are in order.
        let rest = |k: u32| n.name(self.key, k).and_then(|x| x.get(at..));
        let k = partition(lo, hi, |k| rest(k).is_some_and(|r| r < seg));
        if k < hi && rest(k) == Some(seg) {
            self.range = (k, k + 1);
            return true;
        }
        false
    }

    /// How much of `seg` every name still matched shares, as their next bytes (the first
    /// and the last of the sorted range share what all of them share).
    fn shared_run(&self, schema: &Compiled, seg: &[u8]) -> usize {
        let node = if self.key {
            self.frames.last().and_then(|f| f.node)
        } else {
            self.node
        };
        let (lo, hi) = self.range;
        let Some(n) = schema.get(node).filter(|_| lo < hi) else {
            return 0;
        };
        let at = self.matched;
        let first = n
            .name(self.key, lo)
            .and_then(|x| x.get(at..))
            .unwrap_or_default();
        let last = n
            .name(self.key, hi - 1)
            .and_then(|x| x.get(at..))
            .unwrap_or_default();
        first
            .iter()
            .zip(last)
            .zip(seg)
            .take_while(|((a, b), c)| a == b && a == c)
            .count()
    }

    /// Feeds `seg` to the branches of the sets `..open`; the first byte of it at which a
    /// set can no longer be satisfied.
    fn feed_sets(&mut self, open: usize, seg: &[u8]) -> Option<Found> {
        let mut first: Option<Found> = None;
        for set in self.sets.iter_mut().take(open) {
            let mut last: Option<Found> = None;
            for (v, failed) in set.subs.iter_mut().zip(set.failed.iter_mut()) {
                if failed.is_some() {
                    continue;
                }
                if let Some((at, message, path)) = v.feed(seg) {
                    let later = match (&last, set.of) {
                        (None, _) => true,
                        (Some(l), Of::All) => at < l.0,
                        (Some(l), _) => at >= l.0,
                    };
                    if later {
                        last = Some((at, message.clone(), path.clone()));
                    }
                    *failed = Some((message, path));
                }
            }
            let Some((at, message, path)) = last else {
                continue;
            };
            let dead = match set.of {
                Of::All => Some((at, message, path)),
                Of::Any | Of::One => set
                    .failed
                    .iter()
                    .all(Option::is_some)
                    .then(|| (at, set.refused(&message, &path), set.path.clone())),
            };
            if let Some(d) = dead
                && first.as_ref().is_none_or(|f| d.0 < f.0)
            {
                first = Some(d);
            }
        }
        first
    }

    /// Pops the sets whose value ended: `oneOf`'s "exactly one".
    fn end_sets(&mut self) -> Result<(), (String, String)> {
        while let Some(set) = self.sets.last() {
            // A number or literal ends at the byte after it, which may close its container.
            let ended = self.frames.len() < set.depth
                || self.frames.len() == set.depth
                    && !matches!(self.lex, Lex::Str | Lex::Num | Lex::Lit);
            if !ended {
                break;
            }
            if let Some(set) = self.sets.pop() {
                self.reserved = self.reserved.saturating_sub(set.reserved);
                set.verdict()?;
            }
        }
        Ok(())
    }

    /// The text ended with the value (a top-level number closes only here): its checks.
    pub(crate) fn finish(&mut self) -> Option<(String, String)> {
        if self.lex != Lex::Num {
            return None;
        }
        let schema = Arc::clone(&self.schema);
        self.lex = Lex::Done;
        if let Err(e) = self.number_end(&schema) {
            return Some(e);
        }
        // The sets of the number (the top-level value of a branch's validator).
        while let Some(mut set) = self.sets.pop() {
            for (v, failed) in set.subs.iter_mut().zip(set.failed.iter_mut()) {
                if failed.is_none() {
                    *failed = v.finish();
                }
            }
            if let Err(e) = set.verdict() {
                return Some(e);
            }
        }
        None
    }

    fn step(&mut self, s: &Compiled, b: u8) -> Result<(), (String, String)> {
        match self.lex {
            Lex::Str => return self.string_byte(s, b),
            Lex::Num => {
                if matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                    return self.number_byte(s, b);
                }
                self.number_end(s)?;
                self.lex = Lex::After;
            }
            Lex::Lit => {
                if b.is_ascii_lowercase() {
                    return Ok(());
                }
                self.lex = Lex::After;
            }
            _ => {}
        }
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            return Ok(());
        }
        match self.lex {
            Lex::Value => self.value_start(s, b),
            Lex::ItemOrEnd if b == b']' => self.close(s, b),
            Lex::ItemOrEnd => self.value_start(s, b),
            Lex::KeyOrEnd if b == b'}' => self.close(s, b),
            Lex::KeyOrEnd | Lex::Key if b == b'"' => self.key_start(s),
            Lex::Colon if b == b':' => {
                self.lex = Lex::Value;
                self.node = self.frames.last().and_then(|f| f.child);
                Ok(())
            }
            Lex::After => match (b, self.frames.last().map(|f| f.array)) {
                (b',', Some(true)) => {
                    // `maxItems`: the comma that promises an element past the bound.
                    if let Some(f) = self.frames.last()
                        && let Some(max) = s.get(f.node).and_then(|n| n.max_items)
                        && f.count >= max
                    {
                        return Err((
                            format!("maxItems: more than {max} items"),
                            self.path_of_frame(s),
                        ));
                    }
                    self.lex = Lex::Value;
                    Ok(())
                }
                (b',', Some(false)) => {
                    self.lex = Lex::Key;
                    Ok(())
                }
                (b']', Some(true)) | (b'}', Some(false)) => self.close(s, b),
                _ => {
                    self.lex = Lex::Dead;
                    Ok(())
                }
            },
            _ => {
                self.lex = Lex::Dead;
                Ok(())
            }
        }
    }

    /// The first byte of a value: its type, an array's bound, enum by kind.
    fn value_start(&mut self, s: &Compiled, b: u8) -> Result<(), (String, String)> {
        // An element of an array: its index, its schema, `maxItems`.
        if let Some(f) = self.frames.last_mut()
            && f.array
        {
            let idx = f.count;
            f.count += 1;
            let n = s.get(f.node);
            self.node = n.and_then(|n| match n.prefix.get(idx as usize) {
                Some(p) => *p,
                None => n.items,
            });
            if let Some(max) = n.and_then(|n| n.max_items)
                && idx >= max
            {
                return Err((
                    format!("maxItems: more than {max} items"),
                    self.path_of_frame(s),
                ));
            }
        }
        let depth = self.frames.len();
        let kind = match b {
            b'{' => OBJ,
            b'[' => ARR,
            b'"' => STR,
            b't' | b'f' => BOOL,
            b'n' => NULL,
            b'-' | b'0'..=b'9' => INT | NUM,
            _ => {
                self.lex = Lex::Dead;
                return Ok(());
            }
        };
        let node = s.get(self.node);
        if let Some(n) = node {
            if n.types & kind == 0 {
                return Err((
                    format!("type: {} is not {}", kind_name(kind), types_name(n.types)),
                    self.path(s),
                ));
            }
            if let Some(members) = &n.enum_ {
                // A member of the value's kind (a number: any number; `true` / `false`).
                let want = match b {
                    b't' => BOOL,
                    b'f' => FALSE,
                    _ => kind,
                };
                if n.enum_kinds & want == 0 {
                    let what = if members.len() == 1 { "const" } else { "enum" };
                    return Err((
                        format!(
                            "{what}: a {} is none of the allowed values",
                            kind_name(kind)
                        ),
                        self.path(s),
                    ));
                }
            }
        }
        match b {
            b'{' | b'[' => {
                if self.frames.len() >= MAX_FRAMES {
                    self.lex = Lex::Dead;
                    return Ok(());
                }
                let array = b == b'[';
                if self.capture.is_none() && node.and_then(|n| n.enum_.as_ref()).is_some() {
                    self.capture = Some((self.frames.len(), self.node, vec![b]));
                }
                let words = if array {
                    0
                } else {
                    node.map_or(0, |n| n.props.len().div_ceil(64))
                };
                let seen_at = self.seen.len();
                self.seen.resize(seen_at + words, 0);
                self.frames.push(Frame {
                    node: self.node,
                    array,
                    count: 0,
                    seen_at: seen_at as u32,
                    keys_at: self.keys.len() as u32,
                    seg: Seg::None,
                    child: None,
                });
                self.lex = if array { Lex::ItemOrEnd } else { Lex::KeyOrEnd };
            }
            b'"' => {
                self.key = false;
                let members = node
                    .filter(|n| n.enum_.is_some())
                    .map(|n| n.enum_order.len() as u32);
                self.string_start(members);
                self.pat = node
                    .and_then(|n| n.pattern)
                    .and_then(|i| s.patterns.get(i as usize).map(|p| (i, p.start)));
            }
            b't' | b'f' | b'n' => self.lex = Lex::Lit,
            _ => {
                self.num.clear();
                self.num.push(b as char);
                self.frac = false;
                self.exp = false;
                self.exact = true;
                (self.acc, self.digits) = match b {
                    b'0'..=b'9' => (u64::from(b - b'0'), 1),
                    _ => (0, 0),
                };
                // `number_reach` has something to check: members, or a bound on the side
                // of the number's sign.
                self.reach = node.is_some_and(|n| {
                    n.enum_.is_some()
                        || if b == b'-' {
                            n.minimum.is_some() || n.ex_minimum.is_some()
                        } else {
                            n.maximum.is_some() || n.ex_maximum.is_some()
                        }
                });
                self.lex = Lex::Num;
                self.number_reach(s)?;
            }
        }
        if node.is_some_and(|n| !n.combos.is_empty()) {
            return self.open_sets(s, depth, b);
        }
        Ok(())
    }

    /// A value whose node has `anyOf` / `oneOf` / `allOf` opened with byte `b`: a
    /// validator per branch, fed `b`. A set that does not fit the budget is not checked.
    fn open_sets(&mut self, s: &Compiled, depth: usize, b: u8) -> Result<(), (String, String)> {
        let Some(n) = s.get(self.node) else {
            return Ok(());
        };
        for (of, branches) in &n.combos {
            let k = branches.len();
            let free = self.budget.saturating_sub(self.reserved);
            if k > free {
                continue;
            }
            let each = (free - k) / k.max(1);
            let mut set = Branches {
                of: *of,
                depth,
                path: self.path(s),
                subs: Vec::with_capacity(k),
                failed: Vec::with_capacity(k),
                reserved: k * (1 + each),
            };
            for &id in branches {
                let mut v =
                    Validator::at(Arc::clone(&self.schema), Some(id), set.path.clone(), each);
                let failed = v.feed(&[b]).map(|(_, m, p)| (m, p));
                set.subs.push(v);
                set.failed.push(failed);
            }
            let (message, path) = match set.failed.iter().flatten().last() {
                Some(f) => f.clone(),
                None => Default::default(),
            };
            let live = set.failed.iter().filter(|f| f.is_none()).count();
            match of {
                Of::All if live < k => return Err((message, path)),
                Of::Any | Of::One if live == 0 => {
                    return Err((set.refused(&message, &path), set.path.clone()));
                }
                _ => {}
            }
            self.reserved += set.reserved;
            self.sets.push(set);
        }
        Ok(())
    }

    /// A string opens; `names`: how many names it must be a prefix of (none: unmatched).
    fn string_start(&mut self, names: Option<u32>) {
        self.lex = Lex::Str;
        self.pat = None;
        self.esc = Esc::No;
        self.high = None;
        self.chars = 0;
        self.matched = 0;
        self.matching = names.is_some();
        self.range = (0, names.unwrap_or(0));
    }

    /// A key opens; with no name allowed at all, its quote is refused.
    fn key_start(&mut self, s: &Compiled) -> Result<(), (String, String)> {
        self.key = true;
        if let Some(f) = self.frames.last_mut() {
            f.seg = Seg::None;
            self.keys.truncate(f.keys_at as usize);
        }
        let f = self.frames.last();
        let n = s.get(f.and_then(|f| f.node));
        let names = n
            .filter(|n| n.additional == Additional::Forbidden)
            .map(|n| n.key_order.len() as u32);
        self.string_start(names);
        if names == Some(0) {
            return Err((
                "additionalProperties: the object may have no property".to_owned(),
                self.path_of_frame(s),
            ));
        }
        Ok(())
    }

    fn string_byte(&mut self, s: &Compiled, b: u8) -> Result<(), (String, String)> {
        match self.esc {
            Esc::No => match b {
                b'"' => {
                    if self.high.take().is_some() {
                        self.decoded_char(s, char::REPLACEMENT_CHARACTER)?;
                    }
                    self.string_end(s)
                }
                b'\\' => {
                    self.esc = Esc::Slash;
                    Ok(())
                }
                _ => {
                    if self.high.take().is_some() {
                        self.decoded_char(s, char::REPLACEMENT_CHARACTER)?;
                    }
                    if b & 0xC0 != 0x80 {
                        self.count_char(s)?;
                    }
                    self.decoded_byte(s, b)
                }
            },
            Esc::Slash => {
                self.esc = Esc::No;
                let c = match b {
                    b'n' => '\n',
                    b't' => '\t',
                    b'r' => '\r',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'u' => {
                        self.esc = Esc::U(0, 0);
                        return Ok(());
                    }
                    other => other as char,
                };
                if self.high.take().is_some() {
                    self.decoded_char(s, char::REPLACEMENT_CHARACTER)?;
                }
                self.decoded_char(s, c)
            }
            Esc::U(n, acc) => {
                let Some(d) = (b as char).to_digit(16) else {
                    self.lex = Lex::Dead;
                    return Ok(());
                };
                let acc = acc * 16 + d;
                if n < 3 {
                    self.esc = Esc::U(n + 1, acc);
                    return Ok(());
                }
                self.esc = Esc::No;
                match (self.high.take(), acc) {
                    (None, 0xD800..=0xDBFF) => {
                        self.high = Some(acc);
                        Ok(())
                    }
                    (Some(h), 0xDC00..=0xDFFF) => {
                        let c = 0x10000 + ((h - 0xD800) << 10) + (acc - 0xDC00);
                        self.decoded_char(s, char::from_u32(c).unwrap_or('\u{FFFD}'))
                    }
                    (Some(_), _) => {
                        self.decoded_char(s, char::REPLACEMENT_CHARACTER)?;
                        if (0xD800..=0xDBFF).contains(&acc) {
                            self.high = Some(acc);
                            return Ok(());
                        }
                        self.decoded_char(s, char::from_u32(acc).unwrap_or('\u{FFFD}'))
                    }
                    (None, _) => self.decoded_char(s, char::from_u32(acc).unwrap_or('\u{FFFD}')),
                }
            }
        }
    }

    fn decoded_char(&mut self, s: &Compiled, c: char) -> Result<(), (String, String)> {
        self.count_char(s)?;
        let mut buf = [0u8; 4];
        for &b in c.encode_utf8(&mut buf).as_bytes() {
            self.decoded_byte(s, b)?;
        }
        Ok(())
    }

    /// One more character of a string value: `maxLength`.
    fn count_char(&mut self, s: &Compiled) -> Result<(), (String, String)> {
        if self.key {
            return Ok(());
        }
        self.chars += 1;
        if let Some(max) = s.get(self.node).and_then(|n| n.max_len)
            && self.chars > max
        {
            return Err((
                format!("maxLength: longer than {max} characters"),
                self.path(s),
            ));
        }
        Ok(())
    }

    /// One more decoded byte of a string: the candidates sharing the prefix.
    fn decoded_byte(&mut self, s: &Compiled, b: u8) -> Result<(), (String, String)> {
        if self.key && !self.matching {
            self.keys.push(b);
        }
        if let Some((i, state)) = self.pat
            && let Some(p) = s.patterns.get(i as usize)
        {
            let next = p.dfa.next_state(state, b);
            if p.dfa.is_match_state(next) {
                // A match is found: the rest of the string cannot undo it.
                self.pat = None;
            } else if p.dfa.is_dead_state(next) || p.dfa.is_quit_state(next) {
                self.pat = None;
                return Err((
                    format!("pattern: the string cannot match {:?}", p.source),
                    self.path(s),
                ));
            } else {
                self.pat = Some((i, next));
            }
        }
        if !self.matching {
            return Ok(());
        }
        let at = self.matched;
        self.matched += 1;
        let key = self.key;
        let node = if key {
            self.frames.last().and_then(|f| f.node)
        } else {
            self.node
        };
        let Some(n) = s.get(node) else {
            self.matching = false;
            return Ok(());
        };
        // The names in the range share the prefix and are in byte order: those whose next
        // byte is `b` are a sub-range (a name that ends here sorts first).
        let (lo, hi) = self.range;
        let byte = |k: u32| n.name(key, k).and_then(|name| name.get(at).copied());
        if hi == lo + 1 {
            // One name left (the usual case after a byte or two): compare.
            if byte(lo) == Some(b) {
                return Ok(());
            }
            self.range = (lo, lo);
            return Err(self.mismatch(s, lo, at, Some(b)));
        }
        // All names of the range share this byte (the first and the last do: they are
        // sorted), as in a common prefix: one compare.
        let shared = byte(lo);
        if shared.is_some() && shared == byte(hi.saturating_sub(1)) {
            if shared == Some(b) {
                return Ok(());
            }
            self.range = (lo, lo);
            return Err(self.mismatch(s, lo, at, Some(b)));
        }
        let first = partition(lo, hi, |k| byte(k) < Some(b));
        let last = partition(first, hi, |k| byte(k) <= Some(b));
        self.range = (first, last);
        if first >= last {
            return Err(self.mismatch(s, lo, at, Some(b)));
        }
        Ok(())
    }

    /// The string matched no name: for a key, its decoded text so far is the first `len`
    /// bytes of name `k` (which it matched), then `extra`.
    fn mismatch(&self, s: &Compiled, k: u32, len: usize, extra: Option<u8>) -> (String, String) {
        if self.key {
            let mut text: Vec<u8> = self
                .names_node(s)
                .and_then(|n| n.name(true, k))
                .and_then(|name| name.get(..len))
                .unwrap_or_default()
                .to_vec();
            text.extend(extra);
            let key = String::from_utf8_lossy(&text);
            (
                format!("additionalProperties: no declared property is named {key:?}..."),
                self.path_of_frame(s),
            )
        } else {
            let n = s
                .get(self.node)
                .and_then(|n| n.enum_.as_ref())
                .map_or(0, Vec::len);
            let what = if n == 1 { "const" } else { "enum" };
            (
                format!("{what}: the string is none of the allowed values"),
                self.path(s),
            )
        }
    }

    fn string_end(&mut self, s: &Compiled) -> Result<(), (String, String)> {
        if self.matching {
            // The name equal to the text, if any, is the first of the range (the shortest).
            let (lo, hi) = self.range;
            let whole = lo < hi
                && self
                    .names_node(s)
                    .and_then(|n| n.name(self.key, lo))
                    .is_some_and(|name| name.len() == self.matched);
            if !whole {
                return Err(self.mismatch(s, lo, self.matched, None));
            }
        }
        if self.key {
            self.lex = Lex::Colon;
            let Some(f) = self.frames.last_mut() else {
                return Ok(());
            };
            let n = s.get(f.node);
            let keys_at = f.keys_at as usize;
            // Matched against the declared names: the first of the range is the key's;
            // else the key's text (in `keys`) is looked up.
            let prop = if self.matching {
                n.and_then(|n| n.key_order.get(self.range.0 as usize))
                    .map(|&i| i as usize)
            } else {
                n.and_then(|n| n.lookup(self.keys.get(keys_at..).unwrap_or_default()))
            };
            f.seg = match prop {
                Some(i) => Seg::Prop(i as u32),
                None => Seg::Key(keys_at as u32, self.keys.len() as u32),
            };
            let p = prop.and_then(|i| Some((i, n?.props.get(i)?)));
            f.child = match p {
                Some((i, p)) => {
                    if let Some(w) = self.seen.get_mut(f.seen_at as usize + i / 64) {
                        *w |= 1 << (i % 64);
                    }
                    match (p.declared, n.map(|n| n.additional)) {
                        (true, _) => p.schema,
                        (false, Some(Additional::Schema(id))) => Some(id),
                        _ => None,
                    }
                }
                _ => match n.map(|n| n.additional) {
                    Some(Additional::Schema(id)) => Some(id),
                    _ => None,
                },
            };
            return Ok(());
        }
        if let Some(min) = s.get(self.node).and_then(|n| n.min_len)
            && self.chars < min
        {
            return Err((
                format!("minLength: shorter than {min} characters"),
                self.path(s),
            ));
        }
        if let Some((i, state)) = self.pat.take()
            && let Some(p) = s.patterns.get(i as usize)
            && !p.dfa.is_match_state(p.dfa.next_eoi_state(state))
        {
            return Err((
                format!("pattern: the string does not match {:?}", p.source),
                self.path(s),
            ));
        }
        self.lex = Lex::After;
        Ok(())
    }

    fn number_byte(&mut self, s: &Compiled, b: u8) -> Result<(), (String, String)> {
        self.digit(b);
        match b {
            b'0'..=b'9' => {
                if self.reach && !self.exp {
                    return self.number_reach(s);
                }
            }
            b'.' => {
                self.frac = true;
                self.exact = false;
            }
            b'e' | b'E' => {
                self.exp = true;
                self.exact = false;
            }
            _ => self.exact = false,
        }
        Ok(())
    }

    /// The number's text so far (no exponent yet): refused when no number it can still
    /// become meets its bounds or its `enum` / `const`.
    fn number_reach(&self, s: &Compiled) -> Result<(), (String, String)> {
        let Some(n) = s.get(self.node) else {
            return Ok(());
        };
        let numeric_enum = n.enum_.is_some();
        let bounded = n.minimum.is_some()
            || n.maximum.is_some()
            || n.ex_minimum.is_some()
            || n.ex_maximum.is_some();
        if !bounded && !numeric_enum || self.exp || self.num.len() > MAX_NUMBER {
            return Ok(());
        }
        // A number of a sign whose side has no bound grows past any bound of the other.
        let negative = self.num.starts_with('-');
        let far = if negative {
            n.minimum.is_some() || n.ex_minimum.is_some()
        } else {
            n.maximum.is_some() || n.ex_maximum.is_some()
        };
        if !numeric_enum && !far {
            return Ok(());
        }
        let reach = Reach::of(&self.num, n.types & NUM == 0 && n.types & INT != 0);
        if numeric_enum
            && let Some(members) = &n.enum_
            && !n
                .mantissas
                .iter()
                .any(|(m, digits)| reach.can_be(*m, digits))
        {
            let what = if members.len() == 1 { "const" } else { "enum" };
            return Err((
                format!("{what}: no allowed value is a number starting {}", self.num),
                self.path(s),
            ));
        }
        if bounded && !reach.meets(n) {
            return Err((
                format!(
                    "minimum/maximum: no number starting {} is within the bounds",
                    self.num
                ),
                self.path(s),
            ));
        }
        Ok(())
    }

    /// A number closed (at the byte after it): the checks that need its value.
    fn number_end(&mut self, s: &Compiled) -> Result<(), (String, String)> {
        let Some(n) = s.get(self.node) else {
            return Ok(());
        };
        if self.num.len() > MAX_NUMBER {
            return Ok(());
        }
        // An integer of at most 15 digits is its value exactly (no float parse).
        let v = if self.exact && self.digits > 0 {
            let v = self.acc as f64;
            if self.num.starts_with('-') { -v } else { v }
        } else {
            let Ok(v) = self.num.parse::<f64>() else {
                return Ok(());
            };
            v
        };
        let err = |m: String| Err((m, self.path(s)));
        if n.types & NUM == 0 && n.types & INT != 0 && v.fract() != 0.0 {
            return err("type: the number is not an integer".to_owned());
        }
        if let Some(members) = &n.enum_
            && !members.iter().any(|m| m.as_f64() == Some(v))
        {
            let what = if members.len() == 1 { "const" } else { "enum" };
            return err(format!(
                "{what}: {} is none of the allowed values",
                self.num
            ));
        }
        if let Some(m) = n.minimum
            && v < m
        {
            return err(format!("minimum: {} is less than {m}", self.num));
        }
        if let Some(m) = n.maximum
            && v > m
        {
            return err(format!("maximum: {} is more than {m}", self.num));
        }
        if let Some(m) = n.ex_minimum
            && v <= m
        {
            return err(format!(
                "exclusiveMinimum: {} is not more than {m}",
                self.num
            ));
        }
        if let Some(m) = n.ex_maximum
            && v >= m
        {
            return err(format!(
                "exclusiveMaximum: {} is not less than {m}",
                self.num
            ));
        }
        if let Some(m) = n.multiple_of {
            let q = v / m;
            if q.is_finite() && q.fract() != 0.0 {
                return err(format!("multipleOf: {} is not a multiple of {m}", self.num));
            }
        }
        Ok(())
    }

    /// `}` or `]`: `required`, `minItems`.
    fn close(&mut self, s: &Compiled, _b: u8) -> Result<(), (String, String)> {
        let Some(f) = self.frames.pop() else {
            self.lex = Lex::Dead;
            return Ok(());
        };
        let seen_at = f.seen_at as usize;
        self.keys.truncate(f.keys_at as usize);
        if let Some(n) = s.get(f.node) {
            if f.array {
                if let Some(min) = n.min_items
                    && f.count < min
                {
                    return Err((format!("minItems: fewer than {min} items"), self.path(s)));
                }
            } else if n.required > 0 {
                let seen = self.seen.get(seen_at..).unwrap_or_default();
                let missing = n.props.iter().enumerate().find(|(i, p)| {
                    p.required && seen.get(i / 64).is_none_or(|w| w & (1 << (i % 64)) == 0)
                });
                if let Some((_, p)) = missing {
                    return Err((
                        format!("required: property {:?} is missing", p.name),
                        self.path(s),
                    ));
                }
            }
        }
        self.seen.truncate(seen_at);
        if self
            .capture
            .as_ref()
            .is_some_and(|c| c.0 == self.frames.len())
            && let Some((_, node, text)) = self.capture.take()
            && let Some(members) = s.get(node).and_then(|n| n.enum_.as_ref())
            && let Ok(v) = serde_json::from_slice::<Value>(&text)
            && !members.iter().any(|m| json_eq(m, &v))
        {
            let what = if members.len() == 1 { "const" } else { "enum" };
            return Err((
                format!("{what}: the value is none of the allowed values"),
                self.path(s),
            ));
        }
        self.lex = if self.frames.is_empty() {
            Lex::Done
        } else {
            Lex::After
        };
        Ok(())
    }
}

/// The numbers a number's text can still become, before its exponent: its sign, and
/// its significant digits so far (any value whose digits start with them, at any
/// magnitude, since more digits and an exponent may follow).
struct Reach {
    negative: bool,
    /// Significant digits (leading zeros dropped; none: zero so far), `len` of them.
    digits: [u8; MAX_NUMBER],
    len: usize,
    /// Only integers count.
    integer: bool,
}

impl Reach {
    fn of(text: &str, integer: bool) -> Self {
        let mut r = Reach {
            negative: text.starts_with('-'),
            digits: [0; MAX_NUMBER],
            len: 0,
            integer,
        };
        for &b in text.as_bytes() {
            if b.is_ascii_digit()
                && (r.len > 0 || b != b'0')
                && let Some(slot) = r.digits.get_mut(r.len)
            {
                *slot = b;
                r.len += 1;
            }
        }
        r
    }

    fn digits(&self) -> &[u8] {
        self.digits.get(..self.len).unwrap_or_default()
    }

    /// Whether the text can still become `m` (`mantissa`: its significant digits).
    fn can_be(&self, m: f64, mantissa: &[u8]) -> bool {
        if self.integer && m.fract() != 0.0 {
            return false;
        }
        if self.len == 0 {
            return m == 0.0 || (m < 0.0) == self.negative;
        }
        if m == 0.0 || (m < 0.0) != self.negative {
            return false;
        }
        // `m`'s significant digits: those of the text start them, or are them plus zeros.
        let q = self.digits();
        mantissa.starts_with(q)
            || q.strip_prefix(mantissa)
                .is_some_and(|rest| rest.iter().all(|&b| b == b'0'))
    }

    /// Whether some number it can become is within `n`'s bounds. Conservative: `true`
    /// whenever the arithmetic would not be exact.
    fn meets(&self, n: &Node) -> bool {
        let lo = bound(n.minimum, n.ex_minimum, f64::max);
        let hi = bound(n.maximum, n.ex_maximum, f64::min);
        // On the positive side: a negative number's magnitude within the bounds of -x.
        let (lo, hi) = if self.negative {
            (hi.map(|(v, o)| (-v, o)), lo.map(|(v, o)| (-v, o)))
        } else {
            (lo, hi)
        };
        let (lo, lo_open) = lo.unwrap_or((f64::NEG_INFINITY, false));
        let (hi, hi_open) = hi.unwrap_or((f64::INFINITY, false));
        // Some x in [a, b) (`b_open`) or [a, b] within the bounds (an integer if asked).
        let fits = |a: f64, b: f64, b_open: bool| -> bool {
            let (a, a_open) = if a > lo || a == lo && !lo_open {
                (a, false)
            } else {
                (lo, lo_open)
            };
            let (b, b_open) = if b < hi || b == hi && (b_open || !hi_open) {
                (b, b_open)
            } else {
                (hi, hi_open)
            };
            if self.integer {
                let mut k = a.ceil();
                if k == a && a_open {
                    k += 1.0;
                }
                k < b || k == b && !b_open
            } else {
                a < b || a == b && !a_open && !b_open
            }
        };
        if self.len == 0 {
            // Zero so far: zero or any magnitude.
            return fits(0.0, f64::INFINITY, false);
        }
        if !hi.is_finite() || self.len > 15 {
            return true;
        }
        // The magnitudes whose digits start with D: [D, D + 1) * 10^k, each end one
        // correctly rounded operation on exact values (D < 2^53, 10^|k| <= 10^22).
        let d = self
            .digits()
            .iter()
            .fold(0u64, |acc, &b| acc * 10 + u64::from(b - b'0')) as f64;
        for k in -22i32..=22 {
            let p = 10f64.powi(k.abs());
            let (a, b) = if k >= 0 {
                (d * p, (d + 1.0) * p)
            } else {
                (d / p, (d + 1.0) / p)
            };
            if fits(a, b, true) {
                return true;
            }
        }
        // Not tried: magnitudes past 10^22 (a bound that large: can't tell) and below
        // 10^-7 (integers cannot; reals when the bounds hold such a magnitude).
        hi >= 1e21 || !self.integer && lo < 1e-6 && hi > 0.0
    }
}

/// The tighter of an inclusive and an exclusive bound (`pick`: max for lower bounds),
/// and whether it is exclusive.
fn bound(
    inclusive: Option<f64>,
    exclusive: Option<f64>,
    pick: fn(f64, f64) -> f64,
) -> Option<(f64, bool)> {
    match (inclusive, exclusive) {
        (Some(i), Some(e)) => {
            let t = pick(i, e);
            Some((t, t == e))
        }
        (Some(i), None) => Some((i, false)),
        (None, Some(e)) => Some((e, true)),
        (None, None) => None,
    }
}

/// The first `"` or `\` of `text`: keys and short values end within a few bytes, so the
/// first 32 bytes are searched 8 at a time in a word (cheaper than setting up `memchr2`),
/// the rest with `memchr2`.
#[inline]
fn quote_or_backslash(text: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while i < 32 {
        let Some(word) = text.get(i..i + 8) else {
            // Fewer than 8 bytes left.
            let tail = text.get(i..)?;
            return tail
                .iter()
                .position(|&b| b == b'"' || b == b'\\')
                .map(|p| i + p);
        };
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let w = u64::from_le_bytes(bytes);
        // A zero byte of `w ^ c` is a byte equal to `c` (the lowest flagged one is exact).
        let q = w ^ (ONES * u64::from(b'"'));
        let s = w ^ (ONES * u64::from(b'\\'));
        let m = (q.wrapping_sub(ONES) & !q | s.wrapping_sub(ONES) & !s) & HIGH;
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr2(b'"', b'\\', text.get(i..)?).map(|p| i + p)
}

/// The first byte at or after `i` that is not JSON whitespace.
#[inline]
fn skip_ws(text: &[u8], mut i: usize) -> usize {
    while matches!(text.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// `text[j]` opens a string: the end of that string when all of it is here, it has no
/// escape, and it passes every keyword of `node` (no `pattern` or branch set: those are
/// left to the byte-by-byte path).
fn plain_string(node: Option<&Node>, text: &[u8], j: usize) -> Option<usize> {
    let body = text.get(j + 1..)?;
    let q = quote_or_backslash(body)?;
    if body.get(q) != Some(&b'"') {
        return None;
    }
    if let Some(n) = node {
        let seg = body.get(..q)?;
        if n.types & STR == 0 || n.pattern.is_some() || !n.combos.is_empty() {
            return None;
        }
        if n.enum_.is_some() && n.find(false, seg).is_none() {
            return None;
        }
        if n.min_len.is_some() || n.max_len.is_some() {
            let chars = seg.iter().filter(|&&c| (c as i8) >= -0x40).count() as u64;
            if n.min_len.is_some_and(|m| chars < m) || n.max_len.is_some_and(|m| chars > m) {
                return None;
            }
        }
    }
    Some(j + 1 + q + 1)
}

/// `text[j]` starts a number: the end of it when all of it is here (the byte after it
/// too), it is an integer of at most 15 digits, and it passes every keyword of `node`
/// (no `enum` / `const` or branch set: those are left to the byte-by-byte path).
fn plain_integer(node: Option<&Node>, text: &[u8], j: usize) -> Option<usize> {
    let digits = text.get(j..)?;
    let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    let after = *digits.get(len)?;
    if len == 0 || len > 15 || matches!(after, b'.' | b'e' | b'E' | b'+' | b'-') {
        return None;
    }
    if len > 1 && digits.first() == Some(&b'0') {
        return None;
    }
    if let Some(n) = node {
        if n.types & (INT | NUM) == 0 || n.enum_.is_some() || !n.combos.is_empty() {
            return None;
        }
        let v = digits
            .get(..len)?
            .iter()
            .fold(0u64, |acc, &b| acc * 10 + u64::from(b - b'0')) as f64;
        let ok = n.minimum.is_none_or(|m| v >= m)
            && n.maximum.is_none_or(|m| v <= m)
            && n.ex_minimum.is_none_or(|m| v > m)
            && n.ex_maximum.is_none_or(|m| v < m)
            && n.multiple_of.is_none_or(|m| {
                let q = v / m;
                !q.is_finite() || q.fract() == 0.0
            });
        if !ok {
            return None;
        }
    }
    Some(j + len)
}

/// `text[j]` opens an array: its end when all of it is here, its elements are strings
/// and integers as [`plain_string`] and [`plain_integer`] take them, and it passes every
/// keyword of `node` (no `prefixItems`, `enum` / `const` or branch set).
fn plain_array(s: &Compiled, node: Option<&Node>, text: &[u8], j: usize) -> Option<usize> {
    if let Some(n) = node
        && (n.types & ARR == 0 || n.enum_.is_some() || !n.combos.is_empty() || !n.prefix.is_empty())
    {
        return None;
    }
    let item = s.get(node.and_then(|n| n.items));
    let mut k = skip_ws(text, j + 1);
    let mut count = 0u64;
    if text.get(k) != Some(&b']') {
        loop {
            let end = match text.get(k)? {
                b'"' => plain_string(item, text, k)?,
                b'0'..=b'9' => plain_integer(item, text, k)?,
                _ => return None,
            };
            count += 1;
            k = skip_ws(text, end);
            match text.get(k)? {
                b',' => k = skip_ws(text, k + 1),
                b']' => break,
                _ => return None,
            }
        }
    }
    if let Some(n) = node
        && (n.min_items.is_some_and(|m| count < m) || n.max_items.is_some_and(|m| count > m))
    {
        return None;
    }
    Some(k + 1)
}

/// The hash of a name in a [`name_table`].
#[inline]
fn name_hash(text: &[u8]) -> u32 {
    let mut h = (text.len() as u32).wrapping_mul(0x9E37_79B9);
    for &b in text {
        h = (h.rotate_left(5) ^ u32::from(b)).wrapping_mul(0x9E37_79B9);
    }
    h ^ (h >> 16)
}

/// An open-addressing table of `names` (a power of two of slots, at most half full;
/// each slot 0 or a name's index + 1), probed linearly from the name's hash.
fn name_table(names: &[Box<[u8]>]) -> Box<[u32]> {
    if names.is_empty() {
        return Box::default();
    }
    let size = (names.len() * 2).next_power_of_two();
    let mut table = vec![0u32; size];
    for (k, name) in names.iter().enumerate() {
        let mut i = name_hash(name) as usize & (size - 1);
        while table.get(i).is_some_and(|&slot| slot != 0) {
            i = (i + 1) & (size - 1);
        }
        if let Some(slot) = table.get_mut(i) {
            *slot = k as u32 + 1;
        }
    }
    table.into_boxed_slice()
}

/// Appends `/key` to a JSON Pointer (`~` and `/` escaped).
fn push_key(path: &mut String, key: &str) {
    path.push('/');
    for c in key.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

/// Appends `/idx` to a JSON Pointer (no formatting machinery per array element).
fn push_index(path: &mut String, idx: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut v = idx;
    loop {
        i -= 1;
        if let Some(d) = buf.get_mut(i) {
            *d = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    path.push('/');
    path.push_str(std::str::from_utf8(buf.get(i..).unwrap_or_default()).unwrap_or_default());
}

/// JSON equality with numbers compared by value (`1` equals `1.0`).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// The first `k` in `lo..hi` for which `before(k)` is false (`before` true on a prefix).
fn partition(mut lo: u32, mut hi: u32, before: impl Fn(u32) -> bool) -> u32 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn kind_name(kind: u8) -> &'static str {
    match kind {
        OBJ => "an object",
        ARR => "an array",
        STR => "a string",
        BOOL => "a boolean",
        NULL => "null",
        _ => "a number",
    }
}

fn types_name(types: u8) -> String {
    let names: Vec<&str> = [
        (NULL, "null"),
        (BOOL, "boolean"),
        (INT, "integer"),
        (NUM, "number"),
        (STR, "string"),
        (ARR, "array"),
        (OBJ, "object"),
    ]
    .iter()
    .filter(|(bit, _)| types & bit != 0)
    .filter(|(bit, _)| !(*bit == INT && types & NUM != 0))
    .map(|(_, n)| *n)
    .collect();
    if names.is_empty() {
        "allowed (the schema is false)".to_owned()
    } else {
        names.join(" or ")
    }
}

#[cfg(test)]
mod tests {
    use super::quote_or_backslash;

    #[test]
    fn quote_or_backslash_is_memchr2() {
        // Every position and neighbour of the two bytes, in texts around the word and
        // 32-byte boundaries, with bytes that differ from them in one bit.
        for len in 0..70 {
            for at in 0..=len {
                for c in [b'"', b'\\'] {
                    for second in [None, Some(at + 1), Some(at + 9)] {
                        let mut t: Vec<u8> =
                            (0..len).map(|k| [b'#', b'^', b'a', 0xE2][k % 4]).collect();
                        if let Some(x) = t.get_mut(at) {
                            *x = c;
                        }
                        if let Some(x) = second.and_then(|s| t.get_mut(s)) {
                            *x = b'\\';
                        }
                        assert_eq!(
                            quote_or_backslash(&t),
                            memchr::memchr2(b'"', b'\\', &t),
                            "{t:?}"
                        );
                    }
                }
            }
        }
    }
}
