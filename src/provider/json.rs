//! Reading JSON payloads: serde adapters that borrow from the payload (strings without
//! escapes, raw values), arrays that keep their first element inline, and the decoding of
//! a JSON string literal into a reused buffer.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::marker::PhantomData;

/// Parses a payload: as `str` when it is valid UTF-8 (every real payload), so serde_json
/// does not re-validate each borrowed string, else as bytes (which reports the error).
pub(crate) fn from_payload<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// `deserialize_with` for `Option<Cow<'a, str>>` fields: borrows the string when it has
/// no escape. (serde's derive borrows a bare `Cow<'a, str>` field with `#[serde(borrow)]`,
/// but not one inside an `Option`: there it always allocates an owned `String`.)
pub(crate) fn opt_cow<'de: 'a, 'a, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<std::borrow::Cow<'a, str>>, D::Error> {
    struct Str<'a>(PhantomData<&'a ()>);
    impl<'de: 'a, 'a> Visitor<'de> for Str<'a> {
        type Value = Option<std::borrow::Cow<'a, str>>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string or null")
        }
        fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
            Ok(Some(std::borrow::Cow::Borrowed(s)))
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
            Ok(Some(std::borrow::Cow::Owned(s.to_owned())))
        }
        fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Self::Value, E> {
            Ok(Some(std::borrow::Cow::Owned(s)))
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_str(self)
        }
    }
    d.deserialize_option(Str(PhantomData))
}

/// A JSON array whose first element is held inline, so the usual one-element array (one
/// candidate, one part, one tool call per delta) costs no allocation; iterate it with
/// `into_iter`. Only an array is accepted; [`OneOrMany`] also takes a single object.
pub(crate) struct Seq<T> {
    first: Option<T>,
    rest: Vec<T>,
}

impl<T> Seq<T> {
    /// No element.
    pub(crate) fn empty() -> Self {
        Seq {
            first: None,
            rest: Vec::new(),
        }
    }

    /// One element.
    pub(crate) fn one(x: T) -> Self {
        Seq {
            first: Some(x),
            rest: Vec::new(),
        }
    }

    /// Appends an element.
    pub(crate) fn push(&mut self, x: T) {
        if self.first.is_none() {
            self.first = Some(x);
        } else {
            self.rest.push(x);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// The elements of a JSON array, read from `seq`.
    fn read<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error>
    where
        T: Deserialize<'de>,
    {
        let mut all = Seq::empty();
        while let Some(x) = seq.next_element()? {
            all.push(x);
        }
        Ok(all)
    }
}

impl<T> IntoIterator for Seq<T> {
    type Item = T;
    type IntoIter = std::iter::Chain<std::option::IntoIter<T>, std::vec::IntoIter<T>>;
    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.rest)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Seq<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Seq<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Seq::read(seq)
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}

/// A JSON field that is usually an array but sometimes a single object (or `null`, no
/// element): a [`Seq`] either way.
pub(crate) struct OneOrMany<T>(pub(crate) Seq<T>);

impl<T> IntoIterator for OneOrMany<T> {
    type Item = T;
    type IntoIter = <Seq<T> as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array or an object")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Seq::read(seq).map(OneOrMany)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let x = T::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(OneOrMany(Seq::one(x)))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(OneOrMany(Seq::empty()))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A JSON value kept as its text, borrowed from the payload (the parse validated it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Raw<'a>(pub(crate) &'a str);

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a serde_json::value::RawValue>::deserialize(d).map(|r| Raw(r.get()))
    }
}

/// A JSON string field kept as its raw literal (borrowed; escapes not decoded yet), for
/// fields whose text is copied on at once (argument fragments): [`RawStr::decode`] into a
/// reused buffer instead of a `Cow<str>` that allocates whenever the string has an
/// escape. A value that is not a string is rejected, as `Cow<str>` would reject it.
pub(crate) struct RawStr<'a>(pub(crate) &'a serde_json::value::RawValue);

impl<'de: 'a, 'a> Deserialize<'de> for RawStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'a serde_json::value::RawValue>::deserialize(d)?;
        if raw.get().starts_with('"') {
            Ok(RawStr(raw))
        } else {
            Err(serde::de::Error::custom("expected a string"))
        }
    }
}

impl RawStr<'_> {
    /// The string's text (decoded into `scratch` when it has escapes). A lone surrogate
    /// escape, which has no UTF-8 text, leaves the literal as received (quotes
    /// included), so it still reaches the event that reports it.
    pub(crate) fn decode<'s>(&'s self, scratch: &'s mut String) -> &'s str {
        let raw = self.0.get();
        json_string(raw, scratch).unwrap_or(raw)
    }
}

/// The text of the JSON string literal `raw` (quotes included, as a `RawValue` holds
/// it): borrowed when it has no escape, else decoded into `scratch` (reused, so no
/// allocation per payload once it has grown). `None` when `raw` is not a well-formed
/// string literal or holds a lone surrogate escape (what serde_json rejects too).
pub(crate) fn json_string<'a>(raw: &'a str, scratch: &'a mut String) -> Option<&'a str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let Some(first) = memchr::memchr(b'\\', inner.as_bytes()) else {
        return Some(inner);
    };
    scratch.clear();
    let mut rest = inner;
    let mut at = first;
    loop {
        scratch.push_str(rest.get(..at)?);
        let after = rest.get(at + 1..)?;
        let (c, used) = match after.as_bytes().first()? {
            b'"' => ('"', 1),
            b'\\' => ('\\', 1),
            b'/' => ('/', 1),
            b'b' => ('\u{8}', 1),
            b'f' => ('\u{c}', 1),
            b'n' => ('\n', 1),
            b'r' => ('\r', 1),
            b't' => ('\t', 1),
            b'u' => {
                let hi = hex4(after.get(1..5)?)?;
                if (0xD800..0xDC00).contains(&hi) {
                    let lo = after
                        .get(5..7)
                        .filter(|e| *e == "\\u")
                        .and(after.get(7..11));
                    let lo = hex4(lo?)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    (char::from_u32(c)?, 11)
                } else {
                    (char::from_u32(hi)?, 5)
                }
            }
            _ => return None,
        };
        scratch.push(c);
        rest = after.get(used..)?;
        match memchr::memchr(b'\\', rest.as_bytes()) {
            Some(i) => at = i,
            None => break,
        }
    }
    scratch.push_str(rest);
    Some(scratch.as_str())
}

fn hex4(s: &str) -> Option<u32> {
    if s.len() != 4 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// A JSON field that is one object in the events we read and something else (an
/// array, a string, `null`) in others: the object, or `None`.
pub(crate) struct ObjectOr<T>(pub(crate) Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = ObjectOr<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let x = T::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(ObjectOr(Some(x)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(ObjectOr(None))
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ObjectOr(None))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ObjectOr(None))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ObjectOr(None))
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ObjectOr(None))
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ObjectOr(None))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(ObjectOr(None))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_string_matches_serde() {
        let cases = [
            r#""""#,
            r#""plain""#,
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u00e9\u20AC x \ud83d\ude00 end""#,
            r#""{\"path\": \"a\\nb\"}""#,
            r#""déjà 😀 \n""#,
        ];
        let mut scratch = String::new();
        for raw in cases {
            let want: String = serde_json::from_str(raw).unwrap_or_default();
            assert_eq!(json_string(raw, &mut scratch), Some(want.as_str()), "{raw}");
        }
        for bad in [
            r#""\ud800""#,
            r#""\ud800\u0041""#,
            r#""\x""#,
            r#""\u12""#,
            "\"a",
            "a\"",
        ] {
            assert!(serde_json::from_str::<String>(bad).is_err(), "{bad}");
            assert_eq!(json_string(bad, &mut scratch), None, "{bad}");
        }
    }
}
