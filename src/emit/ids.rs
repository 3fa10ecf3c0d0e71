//! Tool-call ids in the form each client API requires, and back.
//!
//! A call's id ([`Event::ToolCallStart`](crate::Event::ToolCallStart)`::id`) is whatever the
//! provider sent (`call_abc`, `toolu_01…`, Kimi's `functions.get_weather:0`, Mistral's
//! 9-character ids) or the parser's generated one. The Anthropic Messages API accepts only
//! `^[a-zA-Z0-9_-]+$` for a `tool_use` id (and rejects the next request whose history holds
//! any other), and the Responses API's `call_id`s are `call_…`. So the emitters write:
//!
//! - **a legal id** (one or more of `a-z A-Z 0-9 _ -`): the API's prefix and the id
//!   unchanged: `call_abc` → `toolu_call_abc` (Anthropic), `call_call_abc` (Responses);
//! - **any other id** (empty, or with `.`, `:`, spaces, non-ASCII, ...): the prefix, the
//!   marker `tsx-`, and the id's UTF-8 bytes in lower-case hex: `functions.f:0` →
//!   `toolu_tsx-66756e6374696f6e732e663a30`;
//! - a legal id that itself begins with the marker `tsx-` is hex-encoded too, so the
//!   mapping stays one-to-one.
//!
//! The reverse functions undo this exactly, for every id the forward ones make
//! (`from_anthropic(&to_anthropic(x)) == x` for every string `x`). A proxy uses them on
//! the next turn's request, whose history carries the ids the client was given, to give
//! the upstream its own ids back. An id without the prefix (one the client made up) is
//! returned unchanged.
//!
//! ```
//! use toolstream::emit::ids;
//! assert_eq!(ids::to_anthropic("call_abc"), "toolu_call_abc");
//! assert_eq!(ids::to_anthropic("functions.f:0"), "toolu_tsx-66756e6374696f6e732e663a30");
//! assert_eq!(ids::from_anthropic("toolu_tsx-66756e6374696f6e732e663a30"), "functions.f:0");
//! assert_eq!(ids::to_responses_call_id("toolu_01"), "call_toolu_01");
//! assert_eq!(ids::from_responses_call_id("call_toolu_01"), "toolu_01");
//! ```

/// The marker of a hex-encoded id, after the API's prefix.
const MARKER: &str = "tsx-";

/// Anthropic's prefix of `tool_use` ids.
const ANTHROPIC: &str = "toolu_";

/// The Responses API's prefix of function-call `call_id`s.
const RESPONSES: &str = "call_";

/// The `tool_use` id an Anthropic client is given for the call id `id` (see the module
/// docs): `toolu_<id>` for a legal id, `toolu_tsx-<hex>` otherwise; always matches
/// `^toolu_[a-zA-Z0-9_-]+$`.
pub fn to_anthropic(id: &str) -> String {
    encode(ANTHROPIC, id)
}

/// The call id whose Anthropic form is `id` (the reverse of [`to_anthropic`]); an id
/// [`to_anthropic`] cannot have made is returned unchanged.
pub fn from_anthropic(id: &str) -> String {
    decode(ANTHROPIC, id)
}

/// The Responses `call_id` a client is given for the call id `id` (see the module docs):
/// `call_<id>` for a legal id, `call_tsx-<hex>` otherwise.
pub fn to_responses_call_id(id: &str) -> String {
    encode(RESPONSES, id)
}

/// The call id whose Responses form is `id` (the reverse of [`to_responses_call_id`]); an
/// id [`to_responses_call_id`] cannot have made is returned unchanged.
pub fn from_responses_call_id(id: &str) -> String {
    decode(RESPONSES, id)
}

fn is_legal(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn encode(prefix: &str, id: &str) -> String {
    if is_legal(id) && !id.starts_with(MARKER) {
        let mut out = String::with_capacity(prefix.len() + id.len());
        out.push_str(prefix);
        out.push_str(id);
        return out;
    }
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(prefix.len() + MARKER.len() + 2 * id.len());
    out.push_str(prefix);
    out.push_str(MARKER);
    for b in id.bytes() {
        for nibble in [b >> 4, b & 0xf] {
            out.push(char::from(
                HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'),
            ));
        }
    }
    out
}

fn decode(prefix: &str, id: &str) -> String {
    let Some(rest) = id.strip_prefix(prefix) else {
        return id.to_owned();
    };
    let Some(hex) = rest.strip_prefix(MARKER) else {
        return if is_legal(rest) {
            rest.to_owned()
        } else {
            id.to_owned()
        };
    };
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let bytes: Option<Vec<u8>> = hex
        .as_bytes()
        .chunks(2)
        .map(|pair| match pair {
            [h, l] => Some(nibble(*h)? << 4 | nibble(*l)?),
            _ => None,
        })
        .collect();
    bytes
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDS: &[&str] = &[
        "call_abc",
        "toolu_01A09q90qw90lq917835lq9",
        "a",
        "-_-",
        "",
        "functions.get_weather:0",
        "call.1",
        "a b",
        "id/with/slashes",
        "tsx-",
        "tsx-41",
        "tsx-zz",
        "名前",
        "emoji🙂",
        "0",
        "call_tsx-41",
    ];

    #[test]
    fn every_id_round_trips_and_comes_out_legal() {
        for id in IDS {
            for (to, from, prefix) in [
                (
                    to_anthropic as fn(&str) -> String,
                    from_anthropic as fn(&str) -> String,
                    "toolu_",
                ),
                (to_responses_call_id, from_responses_call_id, "call_"),
            ] {
                let out = to(id);
                assert!(out.starts_with(prefix), "{id:?} -> {out}");
                assert!(is_legal(&out), "{id:?} -> {out}");
                assert_eq!(from(&out), *id, "{id:?} -> {out}");
            }
        }
    }

    #[test]
    fn legal_ids_keep_their_text_after_the_prefix() {
        assert_eq!(to_anthropic("call_abc"), "toolu_call_abc");
        assert_eq!(to_anthropic("toolu_01"), "toolu_toolu_01");
        assert_eq!(to_responses_call_id("call_abc"), "call_call_abc");
        assert_eq!(to_anthropic("a.b"), "toolu_tsx-612e62");
        assert_eq!(to_anthropic(""), "toolu_tsx-");
        assert_eq!(to_anthropic("tsx-1"), "toolu_tsx-7473782d31");
        assert_eq!(to_anthropic("é"), "toolu_tsx-c3a9");
    }

    #[test]
    fn ids_we_did_not_make_come_back_unchanged() {
        for id in [
            "xyz",
            "toolu_tsx-zz",
            "toolu_tsx-c3",
            "toolu_a.b",
            "toolu_tsx-fffe",
        ] {
            assert_eq!(from_anthropic(id), id);
        }
        assert_eq!(from_responses_call_id("fc_1"), "fc_1");
    }
}
