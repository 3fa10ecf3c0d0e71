//! A hand-written JSON writer for the emitters' hot paths: the delta of each streamed chunk
//! (text, reasoning, a call's name or argument fragment) written straight into the caller's
//! `String`, with no `serde` walk, no intermediate `String` and no UTF-8 check.
//!
//! Its output is byte for byte what `serde_json::to_string` writes for the same value
//! (the emitters' tests compare the two over every recorded capture and random strings):
//! a string escapes `"` and `\` with a backslash, `\b \t \n \f \r` as those two-byte
//! escapes, every other byte below 0x20 as `\u00XX` with lower-case hex digits, and nothing
//! else (not `/`, not DEL, not non-ASCII).

/// What `serde_json` writes for a byte inside a string: 0 for the byte itself, else the
/// letter after the backslash (`u` for `\u00XX`).
fn escape(b: u8) -> u8 {
    match b {
        0x08 => b'b',
        0x09 => b't',
        0x0a => b'n',
        0x0c => b'f',
        0x0d => b'r',
        0..=0x1f => b'u',
        b'"' => b'"',
        b'\\' => b'\\',
        _ => 0,
    }
}

/// Whether the emitters take their hand-written paths: always, except in this crate's unit
/// tests inside [`serde_only`], which run the `serde` paths to compare the two.
#[cfg(not(test))]
#[inline]
pub(crate) fn fast() -> bool {
    true
}

#[cfg(test)]
thread_local! {
    static SERDE_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the emitters take their hand-written paths (not inside [`serde_only`]).
#[cfg(test)]
pub(crate) fn fast() -> bool {
    !SERDE_ONLY.with(std::cell::Cell::get)
}

/// Runs `f` with the emitters writing everything through `serde_json`, as they did before
/// the hand-written paths: the reference the tests compare them with.
#[cfg(test)]
pub(crate) fn serde_only<T>(f: impl FnOnce() -> T) -> T {
    SERDE_ONLY.with(|c| c.set(true));
    let out = f();
    SERDE_ONLY.with(|c| c.set(false));
    out
}

/// Appends `s` as a JSON string, quotes included.
pub(crate) fn push_str(out: &mut String, s: &str) {
    out.push('"');
    push_str_contents(out, s);
    out.push('"');
}

/// Appends `s` escaped as the inside of a JSON string (no quotes).
pub(crate) fn push_str_contents(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut run = 0;
    while let Some(i) = next_escape(bytes, run) {
        // `i` is at an ASCII byte, so a char boundary.
        out.push_str(s.get(run..i).unwrap_or(""));
        run = i + 1;
        let b = bytes.get(i).copied().unwrap_or(0);
        let escape = escape(b);
        out.push('\\');
        out.push(char::from(escape));
        if escape == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("00");
            out.push(char::from(
                HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0'),
            ));
            out.push(char::from(
                HEX.get(usize::from(b & 0xf)).copied().unwrap_or(b'0'),
            ));
        }
    }
    out.push_str(s.get(run..).unwrap_or(""));
}

/// The position of the first byte at or after `from` that needs an escape. Eight bytes at
/// a time while none does: a byte below 0x20, `"` or `\` shows as a high bit in the
/// classic "has a byte less than / equal to" word tests (exact for whether any byte of the
/// word matches; a multi-byte UTF-8 byte, 0x80 and up, never does).
fn next_escape(bytes: &[u8], mut from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    while let Some(block) = bytes.get(from..from + 8) {
        let Ok(word) = <[u8; 8]>::try_from(block) else {
            break;
        };
        let x = u64::from_le_bytes(word);
        let below_space = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let quote = zero_byte(x ^ (ONES * u64::from(b'"')));
        let backslash = zero_byte(x ^ (ONES * u64::from(b'\\')));
        if below_space | quote | backslash != 0 {
            break;
        }
        from += 8;
    }
    bytes
        .get(from..)?
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .map(|p| p + from)
}

/// Appends `n` in decimal.
pub(crate) fn push_u64(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    while at > 0 {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            // `n % 10` is below 10.
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // ASCII digits: one short check rather than a push per digit.
    out.push_str(std::str::from_utf8(digits.get(at..).unwrap_or(&[])).unwrap_or(""));
}

/// Appends `n` in decimal.
pub(crate) fn push_usize(out: &mut String, n: usize) {
    push_u64(out, n as u64);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Strings that exercise every escape: each control byte, quotes, backslashes, DEL,
    /// `/`, non-ASCII of every UTF-8 length, and `seed`-driven random mixes of them.
    pub(crate) fn tricky_strings(seed: u64, n: usize) -> Vec<String> {
        let alphabet: Vec<char> = (0u32..0x80)
            .filter_map(char::from_u32)
            .chain([
                'é',
                'ß',
                '€',
                '中',
                '😀',
                '\u{2028}',
                '\u{fffd}',
                '\u{10ffff}',
            ])
            .collect();
        let mut out: Vec<String> = (0u32..0x80)
            .filter_map(char::from_u32)
            .map(String::from)
            .collect();
        out.extend(["".into(), "plain".into(), "a\"b\\c/d\u{7f}é😀".into()]);
        // Long clean runs (the eight-byte steps) with one escape at every offset.
        for at in 0..=18 {
            for c in ['"', '\\', '\u{1f}', '\n'] {
                let mut s = "x".repeat(18) + &"é".repeat(3);
                s.insert(at, c);
                out.push(s);
            }
        }
        let mut x = seed | 1;
        let mut next = move || {
            // xorshift64
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..n {
            let len = (next() % 40) as usize;
            let s: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            out.push(s);
        }
        out
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        for s in tricky_strings(0x5eed, 2000) {
            let mut ours = String::new();
            push_str(&mut ours, &s);
            assert_eq!(ours, serde_json::to_string(&s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn numbers_are_written_as_serde_json_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u64::from(u32::MAX), u64::MAX] {
            let mut ours = String::new();
            push_u64(&mut ours, n);
            assert_eq!(ours, serde_json::to_string(&n).unwrap());
        }
    }
}
