//! Marker matching with partial-prefix hold-back, for text scanners.
//!
//! A text syntax marks tool calls with literal markers (`<tool_call>`, `[TOOL_CALLS]`,
//! `<｜tool▁call▁begin｜>`, `<|channel|>`, ...). Tokens arrive in arbitrary pieces, so a
//! piece may end in the middle of a marker. [`MarkerMatcher`] finds the markers of a
//! small [`MarkerSet`] in a stream of text pieces and keeps these rules:
//!
//! - **Hold back only what could still be a marker**: at the end of a piece, only the
//!   longest tail that is a proper prefix of some marker is held; everything before it
//!   is released as text at once.
//! - **Release it verbatim the moment it cannot be one**: when the next piece shows the
//!   held tail is not a marker, it comes out unchanged (and the rest is scanned as usual).
//! - **Leftmost first**: the marker that starts first wins; at one position the shortest
//!   complete marker wins. A partial marker at the end of a piece blocks anything after
//!   it, so the result is the same however the text was cut (split invariance).
//! - Markers are UTF-8 strings and are matched on `&str` pieces (decode with
//!   [`Utf8Holder`](crate::scan::utf8::Utf8Holder) first), so multi-byte markers such as
//!   DeepSeek's full-width `｜` split at any byte are matched too: the holder keeps the
//!   incomplete character, this kernel the incomplete marker.
//!
//! Candidates are found with `memchr` on the markers' distinct first bytes (up to three;
//! a byte table beyond that), so text without a marker's first byte is passed through at
//! memory speed. Each byte is looked at a bounded number of times: held bytes (fewer than
//! the longest marker) are re-examined once per piece.
//!
//! ```
//! use toolstream::scan::marker::{Found, MarkerMatcher, MarkerSet};
//! let set = MarkerSet::new(["<tool_call>", "</tool_call>"]);
//! let mut m = MarkerMatcher::new();
//! let mut got = Vec::new();
//! for piece in ["Hi <to", "ol_call>{} <", "b"] {
//!     let mut rest = piece;
//!     while let Some(f) = m.next(&set, &mut rest) {
//!         got.push(match f {
//!             Found::Text(t) => t.to_owned(),
//!             Found::Marker(i) => format!("#{i}"),
//!         });
//!     }
//! }
//! // The held `<` comes out as soon as `b` shows it is not a marker.
//! assert_eq!(got, ["Hi ", "#0", "{} ", "<", "b"]);
//! ```

/// A small set of literal markers, matched leftmost-first. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct MarkerSet {
    /// The markers: a built-in syntax's own (`&'static str`, kept without a copy) or
    /// given at run time.
    markers: Vec<std::borrow::Cow<'static, str>>,
    /// Distinct first bytes of the markers, when there are at most three (what the
    /// vector search takes; held inline: a set costs one allocation, its markers).
    firsts: [u8; 3],
    /// How many distinct first bytes the markers have (counted up to 4: "more").
    n_firsts: usize,
    /// `table[b]`: some marker starts with byte `b`.
    table: [bool; 256],
    max_len: usize,
    /// With `n_firsts == ANCHORED`: the markers' distinct [anchor](anchor_of) bytes.
    anchors: [u8; 3],
    /// How many of `anchors` are used.
    n_anchors: usize,
}

/// `n_firsts` of a set with a marker that begins with whitespace (Muse's ` to=`), whose
/// candidates are found by the markers' anchors ([`MarkerSet::anchored_candidate`]):
/// by its first byte, every word boundary would be one.
const ANCHORED: usize = 5;

/// Where a marker's anchor is: its first byte that is not an ASCII letter, digit or
/// whitespace (` to=` → 3), or 0 when there is none.
fn anchor_of(m: &[u8]) -> usize {
    m.iter()
        .position(|b| !(b.is_ascii_alphanumeric() || b.is_ascii_whitespace()))
        .unwrap_or(0)
}

/// What [`MarkerSet::find`] found in a piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// Marker `index` starts at byte `at`.
    Marker {
        /// Byte offset of the marker.
        at: usize,
        /// Which marker (its position in the set).
        index: usize,
    },
    /// The text from `at` to the end is a proper prefix of some marker.
    Partial {
        /// Byte offset where the partial marker starts.
        at: usize,
    },
    /// No marker starts in the text.
    None,
}

impl MarkerSet {
    /// A set of markers. Empty markers are ignored.
    pub fn new<I, S>(markers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<std::borrow::Cow<'static, str>>,
    {
        let markers: Vec<std::borrow::Cow<'static, str>> = markers
            .into_iter()
            .map(Into::into)
            .filter(|m| !m.is_empty())
            .collect();
        let mut table = [false; 256];
        let mut firsts = [0; 3];
        let mut n_firsts = 0;
        for m in &markers {
            if let Some(&b) = m.as_bytes().first()
                && let Some(slot) = table.get_mut(usize::from(b))
                && !*slot
            {
                *slot = true;
                if let Some(f) = firsts.get_mut(n_firsts) {
                    *f = b;
                }
                n_firsts = (n_firsts + 1).min(4);
            }
        }
        let max_len = markers.iter().map(|m| m.len()).max().unwrap_or(0);
        let mut anchors = [0; 3];
        let mut n_anchors = 0;
        for m in &markers {
            let m = m.as_bytes();
            if let Some(&b) = m.get(anchor_of(m))
                && !anchors.get(..n_anchors).unwrap_or_default().contains(&b)
            {
                if let Some(slot) = anchors.get_mut(n_anchors) {
                    *slot = b;
                }
                n_anchors += 1;
            }
        }
        if n_anchors <= 3
            && markers
                .iter()
                .any(|m| m.as_bytes().first().is_some_and(u8::is_ascii_whitespace))
        {
            n_firsts = ANCHORED;
        }
        MarkerSet {
            markers,
            firsts,
            n_firsts,
            table,
            max_len,
            anchors,
            n_anchors: n_anchors.min(3),
        }
    }

    /// Number of markers.
    pub fn len(&self) -> usize {
        self.markers.len()
    }

    /// Whether the set has no markers.
    pub fn is_empty(&self) -> bool {
        self.markers.is_empty()
    }

    /// The markers, as given (a built-in's borrowed, the others owned): another set
    /// built from them costs no copy of the borrowed ones.
    pub(crate) fn markers(&self) -> &[std::borrow::Cow<'static, str>] {
        &self.markers
    }

    /// Marker `index` (empty when out of range).
    pub fn get(&self, index: usize) -> &str {
        self.markers.get(index).map_or("", |m| m)
    }

    /// Length in bytes of the longest marker.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The next position at or after `from` whose byte starts some marker.
    #[inline]
    fn candidate(&self, hay: &[u8], from: usize) -> Option<usize> {
        let rest = hay.get(from..)?;
        if rest.len() <= 16 {
            // Token-sized pieces: a table lookup per byte beats setting up a vector search.
            return rest
                .iter()
                .position(|b| self.table.get(usize::from(*b)).copied().unwrap_or(false))
                .map(|o| from + o);
        }
        let [a, b, c] = self.firsts;
        let off = match self.n_firsts {
            0 => None,
            1 => crate::scan::find::find1(a, rest),
            2 => crate::scan::find::find2(a, b, rest),
            3 => crate::scan::find::find3(a, b, c, rest),
            ANCHORED => return self.anchored_candidate(hay, from),
            _ => rest
                .iter()
                .position(|b| self.table.get(usize::from(*b)).copied().unwrap_or(false)),
        };
        off.map(|o| from + o)
    }

    /// [`candidate`](Self::candidate) of an [`ANCHORED`] set: the first position at or
    /// after `from` where a marker may start. A complete marker holds its anchor byte at
    /// its anchor offset, so each anchor byte found at `q` offers `q - k` for each marker
    /// anchored there at offset `k`; a partial marker can only start in the last
    /// `max_len - 1` bytes, where every marker's first byte is offered. Every position
    /// where [`at`](Self::at) finds something is offered, in order (some that it rejects
    /// too).
    #[inline(never)]
    fn anchored_candidate(&self, hay: &[u8], from: usize) -> Option<usize> {
        let tail = hay.len().saturating_sub(self.max_len.saturating_sub(1));
        let mut best = (from.max(tail)..hay.len()).find(|&p| {
            hay.get(p)
                .is_some_and(|&b| self.table.get(usize::from(b)).copied().unwrap_or(false))
        });
        let [a, b, c] = self.anchors;
        let mut q_from = from;
        while let Some(rest) = hay.get(q_from..) {
            let found = match self.n_anchors {
                1 => crate::scan::find::find1(a, rest),
                2 => crate::scan::find::find2(a, b, rest),
                _ => crate::scan::find::find3(a, b, c, rest),
            };
            let Some(q) = found.map(|o| q_from + o) else {
                break;
            };
            // An anchor at `q` or later offers starts after `q - max_len`.
            if best.is_some_and(|s| q >= s + self.max_len) {
                break;
            }
            let here = hay.get(q).copied();
            for m in &self.markers {
                let m = m.as_bytes();
                let k = anchor_of(m);
                if m.get(k).copied() == here
                    && let Some(start) = q.checked_sub(k)
                    && start >= from
                    && best.is_none_or(|s| start < s)
                {
                    best = Some(start);
                }
            }
            q_from = q + 1;
        }
        best
    }

    /// Whether some marker could start in `hay` (some byte of it is a marker's first
    /// byte): when not, [`find`](Self::find) gives `Search::None`.
    #[inline]
    pub fn may_start_in(&self, hay: &[u8]) -> bool {
        self.candidate(hay, 0).is_some()
    }

    /// What starts at `at`: a complete marker (the shortest one), a partial one running
    /// to the end of `hay`, or nothing.
    #[inline]
    fn at(&self, hay: &[u8], at: usize) -> Search {
        let rest = hay.get(at..).unwrap_or_default();
        let mut best: Option<(usize, usize)> = None;
        let mut partial = false;
        for (i, m) in self.markers.iter().enumerate() {
            let m = m.as_bytes();
            // Most candidates differ at their second byte (`a < b`): neither a match nor
            // a partial one, found without a `memcmp` call.
            if let (Some(a), Some(b)) = (rest.get(1), m.get(1))
                && a != b
            {
                continue;
            }
            if rest.starts_with(m) {
                if best.is_none_or(|(_, len)| m.len() < len) {
                    best = Some((i, m.len()));
                }
            } else if rest.len() < m.len() && m.starts_with(rest) {
                partial = true;
            }
        }
        match best {
            Some((index, _)) => Search::Marker { at, index },
            None if partial => Search::Partial { at },
            None => Search::None,
        }
    }

    /// The leftmost marker (complete, or partial at the end) in `hay`.
    pub fn find(&self, hay: &str) -> Search {
        let bytes = hay.as_bytes();
        let mut from = 0;
        while let Some(p) = self.candidate(bytes, from) {
            match self.at(bytes, p) {
                Search::None => from = p + 1,
                found => return found,
            }
        }
        Search::None
    }
}

/// One step of [`MarkerMatcher::next`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found<'a> {
    /// Text that is certainly not (part of) a marker. Never empty.
    Text(&'a str),
    /// Marker `index` of the set; its bytes were consumed.
    Marker(usize),
}

/// Finds markers across pieces of text, holding back a partial marker between pieces.
/// See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct MarkerMatcher {
    /// A proper prefix of some marker, held from the end of the last piece.
    held: String,
    /// Scratch: held bytes plus the start of the new piece.
    window: String,
    /// Released held bytes, lent out as `Found::Text`.
    released: String,
}

impl MarkerMatcher {
    /// An empty matcher.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes held back (always fewer than the longest marker).
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Forgets the held bytes.
    pub fn clear(&mut self) {
        self.held.clear();
    }

    /// End of input: the held bytes can no longer become a marker. Returns them (they
    /// are text) and empties the matcher.
    pub fn finish(&mut self) -> &str {
        self.released.clear();
        std::mem::swap(&mut self.released, &mut self.held);
        &self.released
    }

    /// The next piece of `input` (which is advanced past it): text up to a marker, the
    /// marker, or `None` when `input` is used up (its tail may be held).
    pub fn next<'s, 'i: 's>(
        &'s mut self,
        set: &MarkerSet,
        input: &mut &'i str,
    ) -> Option<Found<'s>> {
        if !self.held.is_empty() {
            return self.resume(set, input);
        }
        let s: &'i str = input;
        if s.is_empty() {
            return None;
        }
        match set.find(s) {
            Search::None => {
                *input = "";
                Some(Found::Text(s))
            }
            Search::Marker { at, index } => {
                if at > 0 {
                    let (text, rest) = split(s, at);
                    *input = rest;
                    Some(Found::Text(text))
                } else {
                    *input = s.get(set.get(index).len()..).unwrap_or_default();
                    Some(Found::Marker(index))
                }
            }
            Search::Partial { at } => {
                let (text, tail) = split(s, at);
                self.held.push_str(tail);
                *input = "";
                if text.is_empty() {
                    None
                } else {
                    Some(Found::Text(text))
                }
            }
        }
    }

    /// Held bytes exist: look at them together with the start of `input`.
    fn resume<'s, 'i: 's>(&'s mut self, set: &MarkerSet, input: &mut &'i str) -> Option<Found<'s>> {
        let s: &'i str = input;
        if s.is_empty() {
            return None;
        }
        let held = self.held.len();
        // Any marker starting in the held bytes ends within `max_len` bytes of the input.
        let mut take = set.max_len().min(s.len());
        while !s.is_char_boundary(take) {
            take += 1;
        }
        let (head, _) = split(s, take);
        let whole = take == s.len();
        self.window.clear();
        self.window.push_str(&self.held);
        self.window.push_str(head);
        match set.find(&self.window) {
            Search::Marker { at, index } if at < held => {
                let used = at + set.get(index).len() - held;
                self.held.clear();
                if at > 0 {
                    // Text first; the marker is found again on the next call.
                    self.released.clear();
                    self.released
                        .push_str(self.window.get(..at).unwrap_or_default());
                    self.held
                        .push_str(self.window.get(at..held).unwrap_or_default());
                    return Some(Found::Text(&self.released));
                }
                *input = s.get(used..).unwrap_or_default();
                Some(Found::Marker(index))
            }
            Search::Partial { at } if at < held && whole => {
                // Still a possible marker, now longer: hold it all, release what precedes.
                self.released.clear();
                self.released
                    .push_str(self.window.get(..at).unwrap_or_default());
                self.held.clear();
                self.held
                    .push_str(self.window.get(at..).unwrap_or_default());
                *input = "";
                if self.released.is_empty() {
                    None
                } else {
                    Some(Found::Text(&self.released))
                }
            }
            _ => {
                // The held bytes are not a marker: release them; `input` is scanned next.
                self.released.clear();
                std::mem::swap(&mut self.released, &mut self.held);
                Some(Found::Text(&self.released))
            }
        }
    }
}

/// Splits at a byte offset known to be a char boundary.
#[inline]
fn split(s: &str, at: usize) -> (&str, &str) {
    match (s.get(..at), s.get(at..)) {
        (Some(a), Some(b)) => (a, b),
        _ => (s, ""),
    }
}

/// Matches one of a set of literals expected right here (after optional whitespace the
/// caller skips), byte by byte across pieces; used where a syntax expects a closing
/// marker (`</tool_call>` after a call's JSON) but must give the text back when it is not.
#[derive(Debug, Clone, Copy, Default)]
pub struct Expect {
    /// Which literal the matched prefix belongs to, and its length.
    which: usize,
    got: usize,
}

/// One step of [`Expect::feed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// All of the input matched a prefix of some literal; more is needed.
    NeedMore,
    /// Literal `index` matched completely; `consumed` bytes of this input were used.
    Matched {
        /// Which literal.
        index: usize,
        /// Bytes of this input that completed it.
        consumed: usize,
    },
    /// No literal matches here. The first `len` bytes of literal `which` had matched
    /// (the last `consumed` of them in this input): they are text again, to be scanned
    /// as such; scanning of this input resumes at `consumed`.
    Mismatch {
        /// Which literal the matched bytes are a prefix of.
        which: usize,
        /// Length of the matched prefix.
        len: usize,
        /// Bytes of this input that belong to the matched prefix.
        consumed: usize,
    },
}

impl Expect {
    /// Bytes matched so far.
    pub fn matched(&self) -> usize {
        self.got
    }

    /// Starts over.
    pub fn reset(&mut self) {
        *self = Expect::default();
    }

    /// The matched prefix as text.
    pub fn text<'a>(&self, set: &'a MarkerSet) -> &'a str {
        set.get(self.which).get(..self.got).unwrap_or_default()
    }

    /// Matches `input` against the literals of `set`.
    pub fn feed(&mut self, set: &MarkerSet, input: &str) -> Expected {
        let start = self.got;
        for (i, &b) in input.as_bytes().iter().enumerate() {
            let cur = set
                .get(self.which)
                .as_bytes()
                .get(..self.got)
                .unwrap_or_default();
            let next = (0..set.len()).find(|&k| {
                let m = set.get(k).as_bytes();
                m.starts_with(cur) && m.get(self.got) == Some(&b)
            });
            match next {
                Some(k) => {
                    self.which = k;
                    self.got += 1;
                    if self.got == set.get(k).len() {
                        *self = Expect::default();
                        return Expected::Matched {
                            index: k,
                            consumed: i + 1,
                        };
                    }
                }
                None => {
                    let which = self.which;
                    // The matched bytes may end inside a character of the literal (its
                    // first bytes equal to those of another character here): only whole
                    // characters are given back, the rest is scanned again as input.
                    let lit = set.get(which);
                    let mut len = self.got;
                    while !lit.is_char_boundary(len) {
                        len -= 1;
                    }
                    *self = Expect::default();
                    return Expected::Mismatch {
                        which,
                        len,
                        consumed: len.saturating_sub(start),
                    };
                }
            }
        }
        Expected::NeedMore
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same set searched by its first bytes (what `find` did before anchors).
    fn by_first_bytes(set: &MarkerSet, hay: &str) -> Search {
        let mut plain = set.clone();
        plain.n_firsts = 4;
        plain.find(hay)
    }

    /// Anchored search finds what the first-byte search finds, on sets with markers that
    /// begin with whitespace (` to=`) among others, in text made of their pieces.
    #[test]
    fn anchored_find_is_first_byte_find() {
        use proptest::prelude::*;
        let sets: Vec<MarkerSet> = vec![
            MarkerSet::new(["<|message|>", "<think>", " to=", "to="]),
            MarkerSet::new([
                "\nfunction call<|role_sep|>",
                "<|function_call|>",
                "functools[",
            ]),
            MarkerSet::new(["ab", "b=", " a=", "<x>"]),
            MarkerSet::new(["to=", " to="]),
            MarkerSet::new([" ", "  x"]),
        ];
        for set in &sets {
            assert_eq!(set.n_firsts, ANCHORED, "{:?}", set.markers);
        }
        let alphabet = prop::sample::select(vec![
            " to=",
            "to=",
            "t",
            "o",
            "=",
            " ",
            "<",
            "<|",
            "|>",
            "message",
            "<|message|>",
            "<think>",
            "function",
            " call",
            "call<|",
            "role_sep|>",
            "functools",
            "[",
            "a",
            "b",
            "ab",
            "<x",
            ">",
            "\nfunction",
            "é",
            "x",
            "\n",
        ]);
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        runner
            .run(&prop::collection::vec(alphabet, 0..40), |parts| {
                let hay: String = parts.concat();
                for set in &sets {
                    prop_assert_eq!(
                        set.find(&hay),
                        by_first_bytes(set, &hay),
                        "{:?} in {:?}",
                        set.markers,
                        hay
                    );
                }
                Ok(())
            })
            .unwrap();
    }

    fn run(set: &MarkerSet, pieces: &[&str]) -> Vec<String> {
        let mut m = MarkerMatcher::new();
        let mut got: Vec<String> = Vec::new();
        for p in pieces {
            let mut rest = *p;
            while let Some(f) = m.next(set, &mut rest) {
                match f {
                    Found::Text(t) => {
                        assert!(!t.is_empty());
                        match got.last_mut() {
                            Some(last) if !last.starts_with('#') => last.push_str(t),
                            _ => got.push(t.to_owned()),
                        }
                    }
                    Found::Marker(i) => got.push(format!("#{i}")),
                }
            }
        }
        let tail = m.finish().to_owned();
        if !tail.is_empty() {
            match got.last_mut() {
                Some(last) if !last.starts_with('#') => last.push_str(&tail),
                _ => got.push(tail),
            }
        }
        got
    }

    fn every_split(set: &MarkerSet, input: &str) -> Vec<String> {
        let whole = run(set, &[input]);
        let bytes: Vec<usize> = (0..=input.len())
            .filter(|i| input.is_char_boundary(*i))
            .collect();
        for &a in &bytes {
            for &b in bytes.iter().filter(|b| **b >= a) {
                let got = run(set, &[&input[..a], &input[a..b], &input[b..]]);
                assert_eq!(got, whole, "{input:?} cut at {a},{b}");
            }
        }
        let chars: Vec<String> = input.chars().map(String::from).collect();
        let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(run(set, &refs), whole, "{input:?} char by char");
        whole
    }

    #[test]
    fn finds_markers_at_every_split() {
        let set = MarkerSet::new(["<tool_call>", "</tool_call>", "<think>"]);
        assert_eq!(
            every_split(&set, "a<tool_call>{x}</tool_call>b"),
            ["a", "#0", "{x}", "#1", "b"]
        );
        assert_eq!(every_split(&set, "<<tool_call>"), ["<", "#0"]);
        assert_eq!(every_split(&set, "</tool_</tool_call>"), ["</tool_", "#1"]);
        assert_eq!(every_split(&set, "a < b <tool_cal"), ["a < b <tool_cal"]);
        assert_eq!(every_split(&set, "<think<think>é"), ["<think", "#2", "é"]);
        assert_eq!(every_split(&set, ""), Vec::<String>::new());
    }

    #[test]
    fn multibyte_markers() {
        let set = MarkerSet::new(["<｜tool▁call▁begin｜>", "<｜tool▁sep｜>"]);
        assert_eq!(
            every_split(&set, "é<｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜x"),
            ["é", "#0", "f", "#1", "{}<｜x"]
        );
    }

    #[test]
    fn many_first_bytes_use_the_table() {
        let set = MarkerSet::new(["<a>", "[B]", "{c}", "|d|"]);
        assert_eq!(
            every_split(&set, "x[B]y|d|z{c"),
            ["x", "#1", "y", "#3", "z{c"]
        );
    }

    #[test]
    fn held_only_while_a_prefix() {
        let set = MarkerSet::new(["<tool_call>"]);
        let mut m = MarkerMatcher::new();
        let mut rest = "ab<too";
        assert_eq!(m.next(&set, &mut rest), Some(Found::Text("ab")));
        assert_eq!(m.next(&set, &mut rest), None);
        assert_eq!(m.held(), 4);
        let mut rest = "x";
        assert_eq!(m.next(&set, &mut rest), Some(Found::Text("<too")));
        assert_eq!(m.next(&set, &mut rest), Some(Found::Text("x")));
        assert_eq!(m.held(), 0);
    }

    #[test]
    fn expect_literals() {
        let set = MarkerSet::new(["</tool_call>", "<|im_end|>"]);
        let mut e = Expect::default();
        assert_eq!(e.feed(&set, "</to"), Expected::NeedMore);
        assert_eq!(
            e.feed(&set, "ol_call>x"),
            Expected::Matched {
                index: 0,
                consumed: 8
            }
        );
        assert_eq!(e.feed(&set, "<"), Expected::NeedMore);
        assert_eq!(
            e.feed(&set, "|imx"),
            Expected::Mismatch {
                which: 1,
                len: 4,
                consumed: 3
            }
        );
        assert_eq!(
            e.feed(&set, "x"),
            Expected::Mismatch {
                which: 0,
                len: 0,
                consumed: 0
            }
        );
    }

    #[test]
    fn expect_mismatch_inside_a_character_gives_back_whole_characters() {
        // `｜` is EF BD 9C, `\u{FFFD}` EF BF BD: the first byte matches.
        let set = MarkerSet::new(["</｜x｜>"]);
        let mut e = Expect::default();
        assert_eq!(e.feed(&set, "</"), Expected::NeedMore);
        assert_eq!(
            e.feed(&set, "\u{FFFD}y"),
            Expected::Mismatch {
                which: 0,
                len: 2,
                consumed: 0
            }
        );
        assert_eq!(
            e.feed(&set, "</\u{FFFD}"),
            Expected::Mismatch {
                which: 0,
                len: 2,
                consumed: 2
            }
        );
    }

    proptest::proptest! {
        #[test]
        fn split_invariant_on_marker_soup(
            parts in proptest::collection::vec(proptest::sample::select(vec!["<", "</", "<tool", "_call>", "tool_call>", "a", "é", "<｜", "｜>", " ", "<think>", "</think", "\n"]), 0..16),
            cuts in proptest::collection::vec(0usize..64, 0..5),
        ) {
            let set = MarkerSet::new(["<tool_call>", "</tool_call>", "<think>", "</think>", "<｜x｜>"]);
            let input: String = parts.concat();
            let whole = run(&set, &[&input]);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).filter(|c| input.is_char_boundary(*c)).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut prev = 0;
            for c in cuts { pieces.push(&input[prev..c]); prev = c; }
            pieces.push(&input[prev..]);
            proptest::prop_assert_eq!(run(&set, &pieces), whole.clone());
            // Text + markers put back together is the input.
            let rebuilt: String = whole.iter().map(|p| match p.strip_prefix('#').and_then(|i| i.parse::<usize>().ok()) {
                Some(i) => set.get(i).to_owned(),
                None => p.clone(),
            }).collect();
            proptest::prop_assert_eq!(rebuilt, input);
        }
    }
}
