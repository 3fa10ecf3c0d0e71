//! UTF-8 boundary holding for raw token streams.
//!
//! A chunk may end in the middle of a multi-byte character. [`Utf8Holder`] returns the
//! text that is complete, holds back the incomplete tail (at most 3 bytes) until the
//! next chunk, and replaces bytes that can never be UTF-8 with U+FFFD (the documented
//! behaviour for invalid UTF-8 in text). The result is the same however the bytes
//! were split.
//!
//! ```
//! use toolstream::scan::utf8::Utf8Holder;
//! let mut h = Utf8Holder::new();
//! let mut s = String::new();
//! let e = "é".as_bytes();
//! assert_eq!(h.push(&[b'a', e[0]], &mut s), "a");
//! assert_eq!(h.push(&[e[1], b'b'], &mut s), "éb");
//! assert_eq!(h.push(&[0xFF], &mut s), "\u{FFFD}");
//! ```

use std::borrow::Cow;

/// `bytes` as text when all of it is complete, valid UTF-8. Token-sized input is checked
/// with `utf8_chunks` (a plain loop; `str::from_utf8` costs ~50 instructions of set-up on
/// 4 bytes), longer input with `str::from_utf8`.
#[inline]
pub(crate) fn whole_str(bytes: &[u8]) -> Option<&str> {
    if bytes.len() <= 16 {
        let Some(c) = bytes.utf8_chunks().next() else {
            return Some("");
        };
        return (c.valid().len() == bytes.len()).then_some(c.valid());
    }
    std::str::from_utf8(bytes).ok()
}

/// Holds an incomplete UTF-8 sequence between chunks. See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct Utf8Holder {
    held: [u8; 4],
    n: u8,
}

impl Utf8Holder {
    /// An empty holder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes currently held (0..=3).
    pub fn held(&self) -> usize {
        usize::from(self.n)
    }

    /// The bytes held (an incomplete character).
    pub(crate) fn held_bytes(&self) -> &[u8] {
        self.held.get(..usize::from(self.n)).unwrap_or_default()
    }

    /// The complete text of the held bytes plus `input`. Borrows `input` when nothing
    /// was held and nothing needed replacing; otherwise builds the text in `scratch` and
    /// borrows that (so `Cow::Borrowed` does not say the text is `input`'s bytes: compare
    /// the pointers).
    #[inline]
    pub fn push<'a>(&mut self, input: &'a [u8], scratch: &'a mut String) -> Cow<'a, str> {
        // The common case, inlined: nothing held and the chunk ends on a char boundary.
        if self.n == 0
            && let Some(s) = whole_str(input)
        {
            return Cow::Borrowed(s);
        }
        self.push_slow(input, scratch)
    }

    /// [`push`](Self::push) with held bytes or input that is not all complete UTF-8.
    #[inline(never)]
    fn push_slow<'a>(&mut self, input: &'a [u8], scratch: &'a mut String) -> Cow<'a, str> {
        let mut rest = input;
        if self.n == 0 {
            match std::str::from_utf8(input) {
                Ok(s) => return Cow::Borrowed(s),
                Err(e) if e.error_len().is_none() => {
                    let (ok, tail) = input.split_at(e.valid_up_to());
                    self.hold(tail);
                    return Cow::Borrowed(std::str::from_utf8(ok).unwrap_or_default());
                }
                Err(_) => {}
            }
        }
        scratch.clear();
        // Complete the held sequence first. A byte joins it only while the bytes stay a
        // valid UTF-8 prefix (so `E0 80`, an overlong form, is rejected at `80` as
        // `from_utf8_lossy` does, not when the sequence would be complete).
        while self.n > 0 {
            let n = usize::from(self.n);
            let Some((&b, r)) = rest.split_first() else {
                return Cow::Borrowed(scratch.as_str());
            };
            let mut candidate = self.held;
            if let Some(slot) = candidate.get_mut(n) {
                *slot = b;
            }
            let candidate = candidate.get(..n + 1).unwrap_or_default();
            match std::str::from_utf8(candidate) {
                Ok(s) => {
                    scratch.push_str(s);
                    self.n = 0;
                    rest = r;
                }
                Err(e) if e.error_len().is_none() && n + 1 < 4 => {
                    self.held = [0; 4];
                    for (slot, &c) in self.held.iter_mut().zip(candidate) {
                        *slot = c;
                    }
                    self.n += 1;
                    rest = r;
                }
                Err(_) => {
                    // The held bytes (a valid prefix) can never complete: one U+FFFD,
                    // and `b` is looked at again on its own.
                    scratch.push('\u{FFFD}');
                    self.n = 0;
                }
            }
        }
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    scratch.push_str(s);
                    break;
                }
                Err(e) => {
                    let (ok, bad) = rest.split_at(e.valid_up_to());
                    scratch.push_str(std::str::from_utf8(ok).unwrap_or_default());
                    match e.error_len() {
                        None => {
                            self.hold(bad);
                            break;
                        }
                        Some(len) => {
                            scratch.push('\u{FFFD}');
                            rest = bad.get(len..).unwrap_or_default();
                        }
                    }
                }
            }
        }
        Cow::Borrowed(scratch.as_str())
    }

    fn hold(&mut self, tail: &[u8]) {
        for &b in tail.iter().take(3) {
            if let Some(slot) = self.held.get_mut(usize::from(self.n)) {
                *slot = b;
                self.n += 1;
            }
        }
    }

    /// End of input: held bytes can no longer complete; returns U+FFFD for them.
    pub fn finish(&mut self) -> Option<&'static str> {
        if self.n > 0 {
            self.n = 0;
            Some("\u{FFFD}")
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `whole_str` is `str::from_utf8(..).ok()` on short and long input.
    #[test]
    fn whole_str_is_from_utf8() {
        let samples: [&[u8]; 9] = [
            b"",
            b"abcd",
            "déjà".as_bytes(),
            &"é".as_bytes()[..1],
            b"ab\xFFc",
            "😀".as_bytes(),
            &"😀".as_bytes()[..3],
            "a long line of text, longer than sixteen bytes: 😀".as_bytes(),
            b"a long line of text, longer than sixteen bytes \xC3",
        ];
        for s in samples {
            assert_eq!(whole_str(s), std::str::from_utf8(s).ok(), "{s:?}");
        }
    }

    fn run(chunks: &[&[u8]]) -> String {
        let mut h = Utf8Holder::new();
        let mut out = String::new();
        let mut scratch = String::new();
        for c in chunks {
            out.push_str(&h.push(c, &mut scratch));
        }
        if let Some(s) = h.finish() {
            out.push_str(s);
        }
        out
    }

    #[test]
    fn every_split_matches_lossy() {
        let inputs: [&[u8]; 5] = [
            "aé😀中b".as_bytes(),
            b"\xF0\x9F\x98",
            b"a\xFFb\xC3",
            b"\xE4\xB8\x41\xE4\xB8\xAD",
            b"\xED\xA0\x80x",
        ];
        for input in inputs {
            let want = String::from_utf8_lossy(input).into_owned();
            for cut in 0..=input.len() {
                let (a, b) = input.split_at(cut);
                assert_eq!(run(&[a, b]), want, "{input:?} cut {cut}");
            }
            let bytes: Vec<&[u8]> = input.chunks(1).collect();
            assert_eq!(run(&bytes), want, "{input:?} byte by byte");
        }
    }

    proptest::proptest! {
        #[test]
        fn random_bytes_random_splits(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64), cuts in proptest::collection::vec(0usize..64, 0..6)) {
            let want = String::from_utf8_lossy(&data).into_owned();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(data.len())).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut prev = 0;
            for c in cuts { chunks.push(data.get(prev..c).unwrap_or_default()); prev = c; }
            chunks.push(data.get(prev..).unwrap_or_default());
            proptest::prop_assert_eq!(run(&chunks), want);
        }
    }
}
