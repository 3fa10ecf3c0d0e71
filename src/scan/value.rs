//! A call's arguments text to a `serde_json::Value`, the `ToolCallEnd` payload.
//!
//! By the time a call ends its arguments have been scanned once already, and fed whole
//! the `serde_json::from_str::<Value>` of them was about half of a long call's cost
//! (hermes, 64 KB string argument with an escape every ~20 bytes: ~10.6 instructions per
//! byte in serde_json's string reader, against ~3.8 for the whole incremental scan). So
//! [`parse`] first tries a small reader of its own that decodes strings with the 8-bytes-
//! at-a-time search the scanners use (`scan::find::find_json_special`) and writes each run once; it
//! handles only what it can read exactly as serde_json does, and gives everything else
//! to serde_json:
//!
//! - numbers are parsed by serde_json (one token each: same integer/float rules, same
//!   rounding; with the `exact-numbers` feature, on by default, serde_json's
//!   `arbitrary_precision` keeps each number's exact value and its digits as the model
//!   wrote them: integers of any size, `1e400`, `1.50`; only an exponent is written back
//!   as serde_json's parser writes it, `e` with its sign: `1e400` → `1e+400`, `1E-5` →
//!   `1e-5`, which its public API cannot avoid);
//! - objects keep the model's key order (serde_json's `preserve_order`); a duplicate key
//!   keeps the place of its first occurrence and the value of its last, as serde_json
//!   does;
//! - a `\u` escape of a surrogate, a duplicate key, serde_json's private RawValue key, a
//!   control character, nesting deeper than [`MAX_DEPTH`], or anything malformed: the
//!   whole text goes to serde_json, which gives its value or its error.
//!
//! So `parse(t)` equals `serde_json::from_str::<Value>(t)` for every `t`, value and error
//! text alike (checked against serde_json by a property test and the `json_kernel` fuzz target).
//! Hand-written because serde_json has no faster reader for an already-validated text
//! and a second JSON parser (simd-json, sonic-rs) would bring a second `Value` type or
//! `unsafe` SIMD code for what is one loop here.

use crate::scan::find::find_json_special;
use crate::scan::json::short_escape;
use serde_json::{Map, Value};

/// Nesting the fast reader follows before it leaves the text to serde_json (whose own
/// limit is 128).
pub const MAX_DEPTH: usize = 100;

/// `serde_json::from_str::<Value>(text)`, faster for the common case (see the module docs).
pub fn parse(text: &str) -> serde_json::Result<Value> {
    let mut r = Fast { text, pos: 0 };
    if let Some(v) = r.value(0)
        && r.skip_ws().is_none()
    {
        return Ok(v);
    }
    serde_json::from_str(text)
}

/// The fast reader: `None` for anything it leaves to serde_json.
struct Fast<'a> {
    text: &'a str,
    pos: usize,
}

impl Fast<'_> {
    /// The next byte that is not JSON whitespace (not consumed), `None` at the end.
    #[inline]
    fn skip_ws(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Consumes `b` (after whitespace) if it is next.
    #[inline]
    fn eat(&mut self, b: u8) -> bool {
        if self.skip_ws() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        match self.skip_ws()? {
            b'"' => self.string().map(Value::String),
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Option<Value> {
        let end = self.pos + word.len();
        (self.text.as_bytes().get(self.pos..end)? == word.as_bytes()).then_some(())?;
        self.pos = end;
        Some(v)
    }

    /// A number token, read by serde_json (so integers, floats and their rounding are
    /// serde_json's own).
    fn number(&mut self) -> Option<Value> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = bytes.get(self.pos) {
            self.pos += 1;
        }
        let token = self.text.get(start..self.pos)?;
        // An integer in JSON's grammar that fits 64 bits (the common case) is the number
        // serde_json makes of it, without its token parser (with `arbitrary_precision`
        // that parser builds the number's text twice); `-0` stays with serde_json, which
        // keeps its sign under `arbitrary_precision`.
        let digits = token.strip_prefix('-').unwrap_or(token);
        if digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'))
            && token != "-0"
        {
            if let Ok(n) = token.parse::<u64>() {
                return Some(Value::Number(n.into()));
            }
            if let Ok(n) = token.parse::<i64>() {
                return Some(Value::Number(n.into()));
            }
        }
        serde_json::from_str::<serde_json::Number>(token)
            .ok()
            .map(Value::Number)
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1; // the `[` seen by `value`
        let mut items = Vec::new();
        if self.eat(b']') {
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            if self.eat(b']') {
                return Some(Value::Array(items));
            }
            self.eat(b',').then_some(())?;
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1; // the `{` seen by `value`
        let mut map = Map::new();
        if self.eat(b'}') {
            return Some(Value::Object(map));
        }
        loop {
            (self.skip_ws()? == b'"').then_some(())?;
            let key = self.string()?;
            // serde_json's `raw_value` feature reads an object with its private key as a
            // RawValue: left to serde_json.
            if key.starts_with("$serde_json::private::") {
                return None;
            }
            self.eat(b':').then_some(())?;
            let v = self.value(depth)?;
            // A duplicate key: left to serde_json (whatever it makes of one).
            if map.insert(key, v).is_some() {
                return None;
            }
            if self.eat(b'}') {
                return Some(Value::Object(map));
            }
            self.eat(b',').then_some(())?;
        }
    }

    /// The string at the cursor (its `"` not yet consumed), decoded.
    fn string(&mut self) -> Option<String> {
        let bytes = self.text.as_bytes();
        let mut at = self.pos + 1;
        let mut out = String::new();
        loop {
            let run = find_json_special(bytes.get(at..)?)?;
            // `find_json_special` stops only at ASCII bytes (`"`, `\`, a control byte), so
            // `at` and `at + run` are character boundaries.
            out.push_str(self.text.get(at..at + run)?);
            at += run;
            match bytes.get(at..)? {
                [b'"', ..] => {
                    self.pos = at + 1;
                    return Some(out);
                }
                [b'\\', b'u', ..] => {
                    let hex = self.text.get(at + 2..at + 6)?;
                    if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                        return None;
                    }
                    // A surrogate is no `char`: pairs and lone halves are left to serde_json.
                    out.push(char::from_u32(u32::from_str_radix(hex, 16).ok()?)?);
                    at += 6;
                }
                [b'\\', e, ..] => {
                    out.push(short_escape(*e)?);
                    at += 2;
                }
                // A control character, or the text ended inside the string.
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `parse(t)` and serde_json agree: value, key order (an `IndexMap` compares equal
    /// in any order, so the written text is compared too) and error text.
    fn same(t: &str) {
        let ours = parse(t).map_err(|e| e.to_string());
        let serde = serde_json::from_str::<Value>(t).map_err(|e| e.to_string());
        assert_eq!(ours, serde, "{t:?}");
        let text = |r: &Result<Value, String>| r.as_ref().map(Value::to_string).ok();
        assert_eq!(text(&ours), text(&serde), "{t:?}");
    }

    /// The keys of an object value, in order.
    fn keys(v: &Value) -> Vec<&str> {
        v.as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    #[test]
    fn keys_keep_the_model_order() {
        let t = r#"{"parent": "p", "name": "n", "a": {"z": 1, "b": 2}}"#;
        let v = parse(t).unwrap();
        assert_eq!(keys(&v), ["parent", "name", "a"]);
        assert_eq!(keys(&v["a"]), ["z", "b"]);
        assert_eq!(
            v.to_string(),
            r#"{"parent":"p","name":"n","a":{"z":1,"b":2}}"#
        );
        // A duplicate key: the first one's place, the last one's value (serde_json's rule).
        let v = parse(r#"{"b": 1, "a": 2, "b": 3}"#).unwrap();
        assert_eq!(v.to_string(), r#"{"b":3,"a":2}"#);
        same(r#"{"b": 1, "a": 2, "b": 3}"#);
    }

    /// How serde_json's `arbitrary_precision` writes a number token back: the digits as
    /// given, the exponent as `e` with its sign (`1E5` → `1e+5`); the value is exact.
    #[cfg(feature = "exact-numbers")]
    fn written(n: &str) -> String {
        match n.find(['e', 'E']) {
            Some(at) => {
                let (m, e) = n.split_at(at);
                let e = &e[1..];
                let e = if e.starts_with(['+', '-']) {
                    e.to_owned()
                } else {
                    format!("+{e}")
                };
                format!("{m}e{e}")
            }
            None => n.to_owned(),
        }
    }

    #[cfg(feature = "exact-numbers")]
    #[test]
    fn numbers_keep_their_text() {
        for n in [
            "18446744073709551616",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "1e400",
            "-1e-400",
            "1.50",
            "-0",
            "1E5",
            "0.1000000000000000055511151231257827",
        ] {
            let t = format!(r#"{{"n": {n}}}"#);
            let v = parse(&t).unwrap();
            assert_eq!(v["n"].to_string(), written(n));
            same(&t);
        }
    }

    #[test]
    fn same_as_serde_on_edges() {
        for t in [
            r#"{}"#,
            r#"[]"#,
            r#" { "a" : [1, -0, 0.5, 1e400, -1e-400, 18446744073709551616, -9223372036854775809, true, false, null] } "#,
            r#"{"a":"x\"y\\z\/\b\f\n\r\t\u00e9\u20ac\uD83D\uDE00"}"#,
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\udc00x"}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"$serde_json::private::RawValue":"[1, 2]"}"#,
            r#"{"$serde_json::private::RawValue":"nope"}"#,
            r#"{"a":"é😀 <tool_call> [x]"}"#,
            "{\"a\":\"tab\tinside\"}",
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":-}"#,
            r#"{"a":1,}"#,
            r#"[1,]"#,
            r#"{"a" 1}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12"}"#,
            r#"{"a":"\u12G4"}"#,
            r#"{"a":tru}"#,
            r#"{"a":1} x"#,
            r#"{"a":1}}"#,
            r#""unterminated"#,
            "",
            "   ",
            "1",
            "-12.5e3",
            "\"s\"",
            "nul",
        ] {
            same(t);
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for n in [99, 100, 101, 127, 128, 129, 200] {
            same(&deep(n));
        }
    }

    /// The common shapes are read by the fast reader itself, not handed to serde_json.
    #[test]
    fn fast_reader_takes_the_common_case() {
        for t in [
            r#"{"path": "a.txt", "content": "line 1\nline \"2\" é😀 \u00e9", "n": [1, 2.5, -3], "ok": true, "none": null}"#,
            "{}",
            r#"{"nested": {"deep": [[{"x": "y"}]]}}"#,
        ] {
            let mut r = Fast { text: t, pos: 0 };
            let v = r.value(0).expect(t);
            assert!(r.skip_ws().is_none());
            assert_eq!(
                Ok(v),
                serde_json::from_str::<Value>(t).map_err(|e| e.to_string())
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Text made of JSON's pieces (and some that break it) reads as serde_json reads it.
        #[test]
        fn same_as_serde_on_json_pieces(pieces in proptest::collection::vec(prop_oneof![
            Just("{"), Just("}"), Just("["), Just("]"), Just(","), Just(":"), Just(" "),
            Just("\""), Just("\\"), Just("\\n"), Just("\\u00e9"), Just("\\ud83d"), Just("\\ude00"),
            Just("\"a\""), Just("\"b\""), Just("1"), Just("-0.5e2"), Just("true"), Just("null"),
            Just("é"), Just("x"), Just("\t"), Just("18446744073709551616"), Just("1e400"),
            Just("1.50"),
        ], 0..24)) {
            same(&pieces.concat());
        }

        /// Objects keep their keys in the order written, whatever the keys (duplicates:
        /// first place, last value, as serde_json).
        #[test]
        fn key_order_is_kept(ks in proptest::collection::vec("[a-e]{1,2}|[\\PC]{1,3}", 0..12)) {
            let body: Vec<String> = ks.iter().enumerate()
                .map(|(i, k)| format!("{}: {i}", Value::String(k.clone())))
                .collect();
            let t = format!("{{{}}}", body.join(", "));
            same(&t);
            let v = parse(&t).unwrap();
            let mut want: Vec<&str> = Vec::new();
            for k in &ks {
                if !want.contains(&k.as_str()) {
                    want.push(k);
                }
            }
            prop_assert_eq!(keys(&v), want);
            for (i, k) in ks.iter().enumerate() {
                let last = ks.iter().rposition(|x| x == k).unwrap_or(i);
                prop_assert_eq!(v[k.as_str()].as_u64(), Some(last as u64));
            }
        }

        /// A number of any size or exponent is kept as written (`exact-numbers`), and
        /// read as serde_json reads it either way.
        #[test]
        fn big_numbers_are_exact(
            sign in "-?", int in "0|[1-9][0-9]{0,60}", frac in "(\\.[0-9]{1,30})?",
            exp in "([eE][+-]?[0-9]{1,4})?",
        ) {
            let n = format!("{sign}{int}{frac}{exp}");
            let t = format!(r#"{{"n": {n}, "a": [{n}]}}"#);
            same(&t);
            #[cfg(feature = "exact-numbers")]
            {
                let v = parse(&t).unwrap();
                prop_assert_eq!(v["n"].to_string(), written(&n));
                prop_assert_eq!(v["a"][0].to_string(), written(&n));
            }
        }

        /// Any value serde_json writes reads back the same.
        #[test]
        fn same_as_serde_on_written_values(s in "\\PC{0,40}", n in any::<i64>(), f in any::<f64>(), k in "[a-c]{1,2}") {
            let v = serde_json::json!({ k.clone(): [s.clone(), n, f, {"s": s, "n": null}], "z": true });
            same(&v.to_string());
            same(&serde_json::to_string_pretty(&v).unwrap_or_default());
        }
    }
}
