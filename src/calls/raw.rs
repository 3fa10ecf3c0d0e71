//! A call's raw text ([`Raw`]): the model's own bytes of one call, markers included,
//! bounded for an error, with the call's argument bytes kept besides. The call table owns
//! it from the call's open ([`Calls::open_raw`](super::Calls::open_raw)); a dialect keeps
//! the bytes of a call not opened yet (its marker, a name past the call limit) in a
//! [`Forming`], handed to the call as it opens and back when it closes.

use super::{push_grown, split_at_room};

/// Accumulates a call's raw text, bounded: what an error about the call carries is the
/// longest prefix of everything pushed that fits in `max` bytes (cut at a character
/// boundary; the rest counted), so it does not depend on how the text was cut into
/// pieces. The call's argument bytes ([`push_args`](Raw::push_args)) are kept besides,
/// in full up to `max` bytes of arguments, even where they run past that prefix: the
/// call table reads them from here ([`args`](Raw::args)) and keeps no copy.
///
/// ```text
///   text: [ prefix of the call text ............ ][ arguments past a cut prefix ]
///          └ as_str(): the first ≤ max bytes ┘      (only when the text before the
///            of the prefix                           arguments did not fit in `max`)
/// ```
/// Capacity a [`Raw`] keeps from one call to the next (a longer call's buffer is
/// released when the next starts, [`Raw::start`]).
const KEEP: usize = 1024;

#[derive(Debug, Default)]
pub(crate) struct Raw {
    text: String,
    /// Bytes pushed since `start`.
    total: usize,
    /// Where the prefix of the call text in `text` was cut (something pushed was not
    /// kept); `None`: all of `text` is the call text so far.
    cut: Option<usize>,
    /// The current arguments value: where its bytes start in `text`, and how many are
    /// kept (at most `max`).
    args_from: usize,
    args_len: usize,
    /// Argument bytes of the current value were not kept (past `max`): none are from then.
    args_cut: bool,
    /// The last push was argument bytes (the next ones continue the same value).
    in_args: bool,
    /// Bytes pushed when the call's End was emitted ([`delivered`](Self::delivered)):
    /// what the ended call was; a later error about the text ([`take`](Self::take))
    /// carries only the bytes after them.
    delivered: Option<usize>,
    max: usize,
}

impl Raw {
    pub(crate) fn new(max: usize) -> Self {
        Raw {
            max,
            ..Raw::default()
        }
    }
    /// An empty text with the same bound.
    pub(super) fn fresh(&self) -> Raw {
        Raw::new(self.max)
    }

    /// A new call's text starts with `marker`; the last call's text is released (its
    /// buffer too, when it grew past [`KEEP`]: a long call's bytes are not held after it).
    pub(crate) fn start(&mut self, marker: &str) {
        if self.text.capacity() > KEEP {
            self.text = String::new();
        } else {
            self.text.clear();
        }
        self.clear();
        self.push(marker);
    }

    /// Forgets all but the bytes of `text`.
    fn clear(&mut self) {
        self.total = 0;
        self.cut = None;
        self.args_from = 0;
        self.args_len = 0;
        self.args_cut = false;
        self.in_args = false;
        self.delivered = None;
    }

    /// The call's End was emitted: the bytes pushed so far were delivered as the ended
    /// call, and an error about its later bytes (an index-less one: a member after its
    /// arguments) carries only those ([`take`](Self::take)).
    pub(crate) fn delivered(&mut self) {
        self.delivered = Some(self.total);
    }

    /// How many bytes at the start of [`as_str`](Self::as_str) the ended call delivered
    /// ([`delivered`](Self::delivered); 0 when its End was not emitted).
    pub(crate) fn delivered_len(&self) -> usize {
        let text = self.as_str();
        let mut at = self.delivered.unwrap_or(0).min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// Keeps the longest prefix of everything pushed that fits in `max` bytes (cut at a
    /// character boundary) and counts the rest, so what is kept does not depend on how
    /// the text was cut into pieces.
    pub(crate) fn push(&mut self, s: &str) {
        if self.cut.is_none() && self.text.len() + s.len() <= self.max {
            self.total += s.len();
            self.in_args &= s.is_empty();
            push_grown(&mut self.text, s);
        } else {
            self.push_cut(s);
        }
    }

    /// [`push`](Self::push) where the bound cuts.
    #[inline(never)]
    fn push_cut(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.total += s.len();
        self.in_args = false;
        if self.cut.is_some() {
            return;
        }
        let (kept, rest) = split_at_room(s, self.max.saturating_sub(self.text.len()));
        push_grown(&mut self.text, kept);
        if !rest.is_empty() {
            self.cut = Some(self.text.len());
        }
    }
    /// [`push`](Self::push) for bytes of the call's arguments value (a new value after
    /// other bytes): besides counting as call text, its first `max` bytes are kept
    /// whatever was cut before, for [`args`](Self::args).
    pub(crate) fn push_args(&mut self, s: &str) {
        if self.in_args && !self.args_cut && self.args_len + s.len() <= self.max {
            // More of the value, within the bound.
            self.total += s.len();
            self.args_len += s.len();
            push_grown(&mut self.text, s);
        } else {
            self.push_args_cold(s);
        }
    }

    /// [`push_args`](Self::push_args) off its common case.
    #[inline(never)]
    fn push_args_cold(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if !self.in_args {
            // A new value: the bytes of an earlier one past the error's text are not
            // needed any more (and what the bound cut stays cut).
            let keep = self.len();
            if keep < self.text.len() {
                self.text.truncate(keep);
                self.cut = Some(keep);
            }
            self.in_args = true;
            self.args_from = self.text.len();
            self.args_len = 0;
            self.args_cut = false;
        }
        self.total += s.len();
        if self.args_cut {
            return;
        }
        let (kept, rest) = split_at_room(s, self.max.saturating_sub(self.args_len));
        push_grown(&mut self.text, kept);
        self.args_len += kept.len();
        if !rest.is_empty() {
            self.args_cut = true;
            if self.cut.is_none() {
                self.cut = Some(self.text.len());
            }
        }
    }

    /// The argument bytes of the last value pushed with [`push_args`](Self::push_args)
    /// (its first `max` bytes), until the next [`start`](Self::start).
    pub(crate) fn args(&self) -> &str {
        self.text
            .get(self.args_from..self.args_from + self.args_len)
            .unwrap_or_default()
    }
    /// Takes back the last `n` bytes given to [`push`](Self::push) (never to
    /// [`push_args`](Self::push_args)), ASCII: they turned out to begin the next call.
    pub(crate) fn unpush(&mut self, n: usize) {
        let n = n.min(self.total);
        self.total -= n;
        if self.total <= self.text.len() {
            // Nothing past the bound any more.
            let mut keep = self.total;
            while !self.text.is_char_boundary(keep) {
                keep -= 1;
            }
            self.text.truncate(keep);
            self.cut = None;
        }
    }

    /// Length of [`as_str`](Self::as_str).
    pub(crate) fn len(&self) -> usize {
        self.as_str().len()
    }
    /// Heap bytes held (the buffer's capacity: the call text, the arguments past the
    /// prefix, room to grow).
    pub(crate) fn retained(&self) -> usize {
        self.text.capacity()
    }
    /// The call text kept for an error: its first `max` bytes (at most).
    pub(crate) fn as_str(&self) -> &str {
        let prefix = match self.cut {
            Some(at) => self.text.get(..at).unwrap_or_default(),
            None => &self.text,
        };
        split_at_room(prefix, self.max).0
    }
    /// Bytes pushed beyond the bound (not in [`as_str`](Self::as_str)).
    pub(crate) fn dropped(&self) -> usize {
        self.total - self.len()
    }
    /// The text, and a note about dropped bytes for an error message.
    pub(crate) fn take(&mut self) -> (String, String) {
        let kept = self.len();
        let dropped = self.total - kept;
        // `kept` is the length of a prefix of `text` ending on a character boundary.
        self.text.truncate(kept);
        // The bytes an ended call delivered are not repeated.
        let from = self.delivered_len();
        self.text.drain(..from);
        let kept = kept - from;
        let note = if dropped > 0 {
            format!(" (the first {kept} bytes are kept, {dropped} more not kept)")
        } else {
            String::new()
        };
        self.clear();
        (std::mem::take(&mut self.text), note)
    }
}

/// A dialect's raw text of the call it is reading while the call table does not hold
/// it: before the call opens (its marker), when it opened none (past the call limit), and
/// after it closed (the buffer, reused by the next call). Its bytes are reached only
/// through [`Calls::raw_or`](super::Calls::raw_or), which gives the open call's own
/// [`Raw`] instead when there is one.
#[derive(Debug, Default)]
pub(crate) struct Forming(pub(super) Raw);

impl Forming {
    pub(crate) fn new(max: usize) -> Self {
        Forming(Raw::new(max))
    }
    /// A new call's text starts with `marker` (see [`Raw::start`]).
    pub(crate) fn start(&mut self, marker: &str) {
        self.0.start(marker);
    }
    /// The call text kept for an error (see [`Raw::as_str`]), of a call whose table does
    /// not hold it (opened with [`Calls::open`](super::Calls::open)).
    pub(crate) fn text(&self) -> &str {
        self.0.as_str()
    }
    /// Heap bytes held (see [`Raw::retained`]).
    pub(crate) fn retained(&self) -> usize {
        self.0.retained()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `unpush` takes back the last bytes pushed, within the bound and past it: what is
    /// kept then equals pushing only the rest.
    #[test]
    fn unpush_equals_not_pushing() {
        let text = "<|tool_call>call:f{a:<|";
        for max in [0, 5, 20, 21, 22, 23, 40] {
            for n in 0..=3 {
                let mut a = Raw::new(max);
                a.start("");
                a.push(text);
                a.unpush(n);
                let mut b = Raw::new(max);
                b.start("");
                b.push(&text[..text.len() - n]);
                assert_eq!(a.as_str(), b.as_str(), "max {max}, n {n}");
                assert_eq!(a.dropped(), b.dropped(), "max {max}, n {n}");
                assert_eq!(a.take(), b.take(), "max {max}, n {n}");
            }
        }
    }

    /// Pushes `head`, `args` (as argument bytes) and `tail`, each cut at `cuts` (byte
    /// offsets into the whole text, on character boundaries).
    fn pushed(max: usize, head: &str, args: &str, tail: &str, cuts: &[usize]) -> Raw {
        let mut raw = Raw::new(max);
        raw.start("");
        let mut from = 0;
        for (part, is_args) in [(head, false), (args, true), (tail, false)] {
            let to = from + part.len();
            let mut at = from;
            for &c in cuts.iter().filter(|&&c| c > from && c < to).chain([&to]) {
                let piece = part.get(at - from..c - from).unwrap_or_default();
                if is_args {
                    raw.push_args(piece);
                } else {
                    raw.push(piece);
                }
                at = c;
            }
            from = to;
        }
        raw
    }

    /// What an error carries and what the call reads do not depend on the bound's
    /// position or on how the text was cut: the error's text is the longest prefix of the
    /// call text within `max` bytes (the rest counted), the arguments' first `max` bytes
    /// are all kept, and nothing past those is held.
    #[test]
    fn error_prefix_and_arguments_whatever_the_cuts() {
        let head = "<tool_call>{\"name\":\"é\",\"arguments\":";
        let args = "{\"a\":\"xé€y\"}";
        let tail = "}</tool_call>";
        let whole = format!("{head}{args}{tail}");
        let boundaries: Vec<usize> = (1..whole.len())
            .filter(|&i| whole.is_char_boundary(i))
            .collect();
        for max in 0..whole.len() + 2 {
            let want = split_at_room(&whole, max).0;
            let want_args = split_at_room(args, max).0;
            let mut cuts_list: Vec<Vec<usize>> = vec![vec![], boundaries.clone()];
            cuts_list.extend(boundaries.iter().map(|&b| vec![b]));
            for cuts in &cuts_list {
                let mut raw = pushed(max, head, args, tail, cuts);
                assert_eq!(raw.as_str(), want, "max {max} cuts {cuts:?}");
                assert_eq!(raw.dropped(), whole.len() - want.len());
                assert_eq!(raw.args(), want_args, "max {max} cuts {cuts:?}");
                assert!(raw.text.len() <= max + want_args.len());
                let (text, note) = raw.take();
                assert_eq!(text, want);
                assert_eq!(note.is_empty(), want.len() == whole.len());
                assert_eq!((raw.retained(), raw.args()), (0, ""));
            }
            // A second value in the same text: the error's text is the same prefix, the
            // arguments are the second value's, and no more than the bound is held.
            let mut raw = pushed(max, head, args, tail, &[]);
            raw.push_args(args);
            let whole2 = format!("{whole}{args}");
            assert_eq!(raw.as_str(), split_at_room(&whole2, max).0);
            assert_eq!(raw.dropped(), whole2.len() - raw.len());
            assert_eq!(raw.args(), want_args);
            assert!(raw.text.len() <= max + want_args.len());
        }
    }
}
