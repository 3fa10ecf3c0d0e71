//! Byte search for the hot paths: `memchr` for long haystacks, a plain loop for short
//! ones. Streams fed token by token hand the scanners 1–8 bytes at a time, where
//! `memchr`'s vector set-up (a dispatch through a function pointer and alignment
//! handling, ~60 instructions) costs more than looking at the bytes one by one.

/// Haystacks shorter than this are searched with a plain loop.
pub(crate) const SHORT: usize = 16;

/// Position of the first `a` in `hay`.
#[inline]
pub(crate) fn find1(a: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        hay.iter().position(|&x| x == a)
    } else {
        memchr::memchr(a, hay)
    }
}

/// Position of the first `a` or `b` in `hay`.
#[inline]
pub(crate) fn find2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        hay.iter().position(|&x| x == a || x == b)
    } else {
        memchr::memchr2(a, b, hay)
    }
}

/// Position of the first `a`, `b` or `c` in `hay`.
#[inline]
pub(crate) fn find3(a: u8, b: u8, c: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        hay.iter().position(|&x| x == a || x == b || x == c)
    } else {
        memchr::memchr3(a, b, c, hay)
    }
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// High bit set in each byte of `x` that is zero (exact for the lowest such byte).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(LO) & !x & HI
}

/// High bit set in each byte of `x` below `n` (at most 0x80; exact for the lowest such
/// byte).
#[inline(always)]
fn less_bytes(x: u64, n: u8) -> u64 {
    x.wrapping_sub(LO * u64::from(n)) & !x & HI
}

/// High bit set in each byte of `x` that ends a JSON string's plain content: a control
/// character, `"` or `\\` (exact for the lowest such byte). `"` (0x22) xor 2 is 0x20 and a
/// control character xor 2 stays below 0x20: one test finds both.
#[inline(always)]
fn end_bytes(x: u64) -> u64 {
    less_bytes(x ^ (LO * 2), 0x21) | zero_bytes(x ^ (LO * u64::from(b'\\')))
}

/// Position of the first byte that must be escaped in a JSON string: a control
/// character (below 0x20), `"` or `\`. Eight bytes at a time (SWAR: the lowest flagged
/// byte of each test is exact, so the lowest flag of all is the answer).
#[inline]
pub(crate) fn find_json_special(hay: &[u8]) -> Option<usize> {
    find_special(None, hay)
}

/// Whether `hay` holds a byte [`find_json_special`] finds. Out of line, for the token
/// paths, where a long piece is rare and the search inlined would make the path too big
/// to be inlined itself.
#[inline(never)]
pub(crate) fn has_json_special(hay: &[u8]) -> bool {
    find_json_special(hay).is_some()
}

/// [`find_json_special`] with a plain loop for short haystacks (a token's worth of a
/// JSON string fed a few bytes at a time), where setting up the eight-byte search costs
/// more than looking at the bytes.
#[inline]
pub(crate) fn find_string_end(hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        hay.iter()
            .position(|&x| (x < 0x20) | (x == b'"') | (x == b'\\'))
    } else {
        find_json_special(hay)
    }
}

/// Class of a byte in a string scan's table ([`StopByte::class`]): string content.
pub(crate) const CONTENT: u8 = 0;
/// Class: `"`, `\\` or a control character (the string ends or needs a look).
pub(crate) const END: u8 = 1;
/// Class: the stop byte (a special token may begin there).
pub(crate) const STOP: u8 = 2;

#[allow(clippy::indexing_slicing)] // `b` < 256 in a 256-entry table
/// The class table of a string scan stopping at `stop` (a byte that is not `"`, `\\` or a
/// control character; otherwise the table has no stop).
const fn classes(stop: u8) -> [u8; 256] {
    let mut t = [CONTENT; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = if b < 0x20 || b == b'"' as usize || b == b'\\' as usize {
            END
        } else if b == stop as usize {
            STOP
        } else {
            CONTENT
        };
        b += 1;
    }
    t
}

/// The tables of the stop bytes the syntaxes have: `<` (`<|..|>`, `<｜..｜>` tokens) and
/// `[` (`[TOOL_CALLS]`); the first is the table of no stop.
static CLASSES: [[u8; 256]; 3] = [classes(b'"'), classes(b'<'), classes(b'[')];

/// Where a string scan stops for a syntax's special tokens: at `first`, their first
/// byte, unless the byte after it is known and continues none of them (`<b` in content
/// goes on in the same scan: no stop, no split of the arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StopByte {
    pub(crate) first: u8,
    /// The tokens' second bytes (`any`: more than two kinds, every byte may continue).
    second: [u8; 2],
    any: bool,
    /// Each byte's class ([`CONTENT`], [`END`], [`STOP`]): one load per byte tells the
    /// short scans what they need.
    pub(crate) class: &'static [u8; 256],
}

impl StopByte {
    /// No stop (a placeholder where none is asked for).
    pub(crate) const NONE: StopByte = StopByte {
        first: b'"',
        second: [b'"', b'"'],
        any: false,
        class: &CLASSES[0],
    };

    /// The stop of `tokens`, which all begin with the same byte (and are at least two
    /// bytes long). `None` for tokens of different first bytes or a first byte with no
    /// table (only `<` and `[` have one: every special token of the built-in syntaxes and
    /// of spec tables begins with one of them).
    pub(crate) fn of<'a>(tokens: impl IntoIterator<Item = &'a [u8]>) -> Option<StopByte> {
        let mut first = None;
        let mut second: Vec<u8> = Vec::new();
        for t in tokens {
            let (&f, rest) = t.split_first()?;
            if first.is_some_and(|x| x != f) {
                return None;
            }
            first = Some(f);
            match rest.first() {
                Some(b) if !second.contains(b) => second.push(*b),
                Some(_) => {}
                None => return None,
            }
        }
        let first = first?;
        let class = match first {
            b'<' => &CLASSES[1],
            b'[' => &CLASSES[2],
            _ => return None,
        };
        let any = second.len() > 2;
        let a = second.first().copied().unwrap_or(first);
        let b = second.get(1).copied().unwrap_or(a);
        Some(StopByte {
            first,
            second: [a, b],
            any,
            class,
        })
    }

    /// Whether a token may begin at a stop byte followed by `next` (`None`: not seen
    /// yet).
    #[inline]
    pub(crate) fn may_begin(&self, next: Option<&u8>) -> bool {
        match next {
            None => true,
            Some(&n) => self.any || n == self.second[0] || n == self.second[1],
        }
    }

    /// The class of byte `b` ([`CONTENT`], [`END`], [`STOP`]).
    #[inline(always)]
    #[allow(clippy::indexing_slicing)] // a `u8` indexes a 256-entry table: always in bounds
    pub(crate) fn class_of(&self, b: u8) -> u8 {
        self.class[usize::from(b)]
    }

    /// The stop byte as text (`""` for [`NONE`](Self::NONE)).
    #[inline]
    pub(crate) fn as_str(&self) -> &'static str {
        match self.first {
            b'<' => "<",
            b'[' => "[",
            _ => "",
        }
    }

    /// Whether every byte of `hay` is string content (no `"`, `\\`, control character or
    /// stop byte): one table load and an or per byte, no branch.
    #[inline(always)]
    pub(crate) fn all_content(&self, hay: &[u8]) -> bool {
        hay.iter().fold(CONTENT, |acc, &b| acc | self.class_of(b)) == CONTENT
    }
}

/// [`find_string_end`] or a stop byte where a token may begin ([`StopByte::may_begin`]):
/// a stop byte whose next byte is in `hay` and continues no token (`<b`) is passed over
/// in the same eight-byte scan, so content full of `<` or `[` does not leave it. Short
/// input inline, long out of line (the pieces of a streamed string are short; the scan
/// of whole input inlines [`find_string_end_stop_inline`]).
#[inline]
pub(crate) fn find_string_end_stop(stop: StopByte, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        short_string_end_stop(stop, hay)
    } else {
        long_string_end_stop(stop, hay)
    }
}

/// Whether byte `i` of `hay`, `b`, ends a stopping string scan.
#[inline(always)]
fn ends_at(stop: StopByte, hay: &[u8], i: usize, b: u8) -> bool {
    match stop.class_of(b) {
        CONTENT => false,
        END => true,
        _ => stop.may_begin(hay.get(i + 1)),
    }
}

#[inline(always)]
fn short_string_end_stop(stop: StopByte, hay: &[u8]) -> Option<usize> {
    if stop.all_content(hay) {
        return None;
    }
    hay.iter()
        .enumerate()
        .position(|(i, &b)| match stop.class_of(b) {
            CONTENT => false,
            END => true,
            _ => stop.may_begin(hay.get(i + 1)),
        })
}

#[inline(never)]
fn long_string_end_stop(stop: StopByte, hay: &[u8]) -> Option<usize> {
    special_stop(stop, hay)
}

/// The eight-bytes-at-a-time search of [`find_string_end_stop`].
#[inline(always)]
fn special_stop(stop: StopByte, hay: &[u8]) -> Option<usize> {
    let mut chunks = hay.chunks_exact(8);
    let mut at = 0;
    for c in chunks.by_ref() {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w);
        let end = end_bytes(x);
        let mut m = end | zero_bytes(x ^ (LO * u64::from(stop.first)));
        if m == 0 {
            at += 8;
            continue;
        }
        // The lowest flag is exact: an end byte is the answer at once.
        if m & m.wrapping_neg() & end != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        // A stop byte; past one that is content, a flag may be false (a borrow): each
        // byte is looked up again.
        while m != 0 {
            let i = at + (m.trailing_zeros() / 8) as usize;
            let b = hay.get(i).copied().unwrap_or_default();
            match stop.class_of(b) {
                END => return Some(i),
                STOP if stop.may_begin(hay.get(i + 1)) => return Some(i),
                _ => m &= m - 1,
            }
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .enumerate()
        .position(|(k, &b)| ends_at(stop, hay, at + k, b))
        .map(|k| at + k)
}

/// Position of the first stop byte in `hay` where a token may begin
/// ([`StopByte::may_begin`]): `memchr` for long haystacks, so a content stop (`<b`) costs
/// no return from its vector search.
#[inline]
pub(crate) fn find_stop(stop: StopByte, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        return (0..hay.len())
            .find(|&i| hay.get(i) == Some(&stop.first) && stop.may_begin(hay.get(i + 1)));
    }
    if !stop.any && stop.second[0] == stop.second[1] {
        // One kind of token: its first two bytes, found with `memmem` (content stops
        // such as `[0` cost nothing), or the stop byte ending `hay`.
        let pair = [stop.first, stop.second[0]];
        return memchr::memmem::find(hay, &pair)
            .or_else(|| (hay.last() == Some(&stop.first)).then(|| hay.len() - 1));
    }
    memchr::memchr_iter(stop.first, hay).find(|&i| stop.may_begin(hay.get(i + 1)))
}

/// Whether `hay` holds a stop byte where a token may begin ([`StopByte::may_begin`]).
#[inline]
pub(crate) fn has_stop(stop: StopByte, hay: &[u8]) -> bool {
    if hay.len() < SHORT {
        return hay
            .iter()
            .enumerate()
            .any(|(i, &b)| b == stop.first && stop.may_begin(hay.get(i + 1)));
    }
    memchr::memchr_iter(stop.first, hay).any(|i| stop.may_begin(hay.get(i + 1)))
}

/// [`find_json_special`] or the byte `also` (Gemma 4's string content also ends at a `<`,
/// which may begin its closing token), eight bytes at a time the same way.
#[inline]
pub(crate) fn find_json_special_or(also: u8, hay: &[u8]) -> Option<usize> {
    find_special(Some(also), hay)
}

/// The search of both: `also` is a constant at each (inlined) call site, so the test for
/// it is compiled in or out.
#[inline(always)]
fn find_special(also: Option<u8>, hay: &[u8]) -> Option<usize> {
    // The first block eight bytes at a time, inlined (most strings end in it); the rest
    // out of line, so that the callers' loops stay small enough to be inlined themselves.
    let Some(rest) = hay.get(BLOCK..) else {
        return find_special_swar(also, hay);
    };
    if let Some(p) = find_special_swar(also, hay.get(..BLOCK).unwrap_or_default()) {
        return Some(p);
    }
    let p = match also {
        None => find_special_long(rest),
        Some(a) => find_special_long_or(a, rest),
    };
    p.map(|p| BLOCK + p)
}

/// [`find_special`] past its first block, with no `also` byte.
#[inline(never)]
fn find_special_long(hay: &[u8]) -> Option<usize> {
    find_special_blocks(None, hay)
}

/// [`find_special`] past its first block, with an `also` byte.
#[inline(never)]
fn find_special_long_or(also: u8, hay: &[u8]) -> Option<usize> {
    find_special_blocks(Some(also), hay)
}

/// The search of [`find_special`] past its first block: one more block eight bytes at a
/// time, then a longer run (a whole string of a call fed at once) skipped a block at a
/// time by a test without a branch per byte, which the compiler turns into vector
/// compares; the eight-byte search finds the byte in the block that has it.
#[inline(always)]
fn find_special_blocks(also: Option<u8>, hay: &[u8]) -> Option<usize> {
    let Some(rest) = hay.get(BLOCK..) else {
        return find_special_swar(also, hay);
    };
    if let Some(p) = find_special_swar(also, hay.get(..BLOCK).unwrap_or_default()) {
        return Some(p);
    }
    let skip = if rest.len() >= 2 * BLOCK {
        skip_plain_blocks(also, rest)
    } else {
        0
    };
    let from = BLOCK + skip;
    find_special_swar(also, hay.get(from..).unwrap_or_default()).map(|p| from + p)
}

/// [`find_special`] eight bytes at a time (SWAR).
#[inline(always)]
fn find_special_swar(also: Option<u8>, hay: &[u8]) -> Option<usize> {
    let mut chunks = hay.chunks_exact(8);
    let mut at = 0;
    for c in chunks.by_ref() {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w);
        let mut m = end_bytes(x);
        if let Some(a) = also {
            m |= zero_bytes(x ^ (LO * u64::from(a)));
        }
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\' || Some(b) == also)
        .map(|o| at + o)
}

/// Bytes per block of [`skip_plain_blocks`].
const BLOCK: usize = 32;

/// How many bytes at the start of `hay` are whole blocks with no byte that
/// [`find_special`] looks for (a multiple of [`BLOCK`]).
#[inline(always)]
fn skip_plain_blocks(also: Option<u8>, hay: &[u8]) -> usize {
    let mut at = 0;
    for block in hay.chunks_exact(BLOCK) {
        let Ok(block) = <&[u8; BLOCK]>::try_from(block) else {
            break;
        };
        let mut hit = false;
        for &x in block {
            hit |= (x < 0x20) | (x == b'"') | (x == b'\\') | also.is_some_and(|a| x == a);
        }
        if hit {
            break;
        }
        at += BLOCK;
    }
    at
}

/// Whether `b` may begin one of `auto`'s detection patterns: `<`, `[`, `{`, `f` or `]`.
#[inline(always)]
pub(crate) fn is_pattern_start(b: u8) -> bool {
    matches!(b, b'<' | b'[' | b'{' | b'f' | b']')
}

/// Position of the first byte of `hay` that [`is_pattern_start`]: eight bytes at a time
/// for long haystacks (SWAR, as [`find_json_special`]; `[` is `{` with bit 5 clear, so
/// one test finds both), a plain loop for short ones.
#[inline(always)]
pub(crate) fn find_pattern_start(hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        hay.iter().position(|&b| is_pattern_start(b))
    } else {
        find_pattern_start_long(hay)
    }
}

/// [`find_pattern_start`] eight bytes at a time.
#[inline(never)]
fn find_pattern_start_long(hay: &[u8]) -> Option<usize> {
    let mut chunks = hay.chunks_exact(8);
    let mut at = 0;
    for c in chunks.by_ref() {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w);
        let m = zero_bytes((x | (LO * 0x20)) ^ (LO * u64::from(b'{')))
            | zero_bytes(x ^ (LO * u64::from(b'<')))
            | zero_bytes(x ^ (LO * u64::from(b'f')))
            | zero_bytes(x ^ (LO * u64::from(b']')));
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| is_pattern_start(b))
        .map(|o| at + o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_start_on_every_byte_value_at_every_position() {
        // Every byte value at every offset of haystacks on both sides of the short
        // length, after filler that begins no pattern (and after bytes one bit away
        // from the wanted ones: `}`, `;`, `F`, `|`, `{` ^ 0x80).
        for filler in [b'a', b'}', b';', b'F', b'|', 0xFB, b'^'] {
            for len in [1, 7, 8, 15, 16, 17, 31, 40] {
                for pos in 0..len {
                    for b in 0..=255u8 {
                        let mut hay = vec![filler; len];
                        if let Some(x) = hay.get_mut(pos) {
                            *x = b;
                        }
                        let naive = hay.iter().position(|&x| is_pattern_start(x));
                        assert_eq!(find_pattern_start(&hay), naive, "{filler} {len} {pos} {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn json_special_or_on_every_byte_value_at_every_position() {
        for also in [b'<', b'a', 0x80, 0xFF, 0] {
            for b in 0..=255u8 {
                for pos in 0..20 {
                    let mut h = vec![b'a'.wrapping_add(1); 20];
                    h[pos] = b;
                    // Bytes that borrow in the SWAR subtraction, before and after.
                    h[(pos + 7) % 20] = 0x80 ^ also.wrapping_add(1);
                    let want = h
                        .iter()
                        .position(|&x| x < 0x20 || x == b'"' || x == b'\\' || x == also);
                    assert_eq!(find_json_special_or(also, &h), want, "{b} at {pos}");
                }
            }
        }
    }

    /// The stopping scan's answer, one byte at a time.
    fn string_end_stop_naive(stop: StopByte, hay: &[u8]) -> Option<usize> {
        (0..hay.len()).find(|&i| {
            let x = hay[i];
            x < 0x20
                || x == b'"'
                || x == b'\\'
                || (x == stop.first && stop.may_begin(hay.get(i + 1)))
        })
    }

    /// `find_string_end_stop` against the byte-at-a-time answer: every byte value at
    /// every position (after it each byte that matters, a borrowing byte elsewhere), then
    /// pseudo-random inputs of the bytes that matter at every length up to 40 (content
    /// stops before, after and in the same eight bytes as the answer).
    #[test]
    fn string_end_stop_on_every_byte_value_and_random_inputs() {
        let stops = [
            StopByte::of([b"<|a".as_slice(), b"<t".as_slice()]).unwrap(),
            StopByte::of([b"[T".as_slice()]).unwrap(),
            StopByte::of([b"<a".as_slice(), b"<b".as_slice(), b"<c".as_slice()]).unwrap(),
        ];
        for stop in stops {
            for b in 0..=255u8 {
                for next in [b'|', b't', b'T', b'a', stop.first, b'"'] {
                    for pos in 0..20 {
                        let mut h = vec![b'b'; 20];
                        h[(pos + 7) % 20] = 0x80 ^ stop.first.wrapping_add(1);
                        h[pos] = b;
                        if pos + 1 < 20 {
                            h[pos + 1] = next;
                        }
                        let want = string_end_stop_naive(stop, &h);
                        assert_eq!(find_string_end_stop(stop, &h), want, "{b} at {pos}");
                        let head = &h[..pos + 1];
                        let want = string_end_stop_naive(stop, head);
                        assert_eq!(find_string_end_stop(stop, head), want, "{b} at {pos}");
                        assert_eq!(has_stop(stop, head), {
                            (0..head.len())
                                .any(|i| head[i] == stop.first && stop.may_begin(head.get(i + 1)))
                        });
                    }
                }
            }
            let alphabet = [
                b'x', stop.first, stop.first, b'|', b't', b'T', b'a', b'"', b'\\', 0x1f, 0x80,
                0xff, 0x21, 0x5d, 0x3d,
            ];
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            for _ in 0..20_000 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let len = (seed % 41) as usize;
                let mut k = seed >> 8;
                let h: Vec<u8> = (0..len)
                    .map(|i| {
                        if i % 8 == 7 {
                            seed ^= seed << 13;
                            seed ^= seed >> 7;
                            seed ^= seed << 17;
                            k = seed;
                        }
                        let b = alphabet[(k % alphabet.len() as u64) as usize];
                        k /= alphabet.len() as u64;
                        // Mostly content: one byte in four from the alphabet's specials.
                        if k.is_multiple_of(4) { b } else { b'x' }
                    })
                    .collect();
                let want = string_end_stop_naive(stop, &h);
                assert_eq!(find_string_end_stop(stop, &h), want, "{h:?}");
                let lt = (0..h.len()).any(|i| h[i] == stop.first && stop.may_begin(h.get(i + 1)));
                assert_eq!(has_stop(stop, &h), lt, "{h:?}");
                let first =
                    (0..h.len()).find(|&i| h[i] == stop.first && stop.may_begin(h.get(i + 1)));
                assert_eq!(find_stop(stop, &h), first, "{h:?}");
            }
        }
    }

    #[test]
    fn json_special_on_every_byte_value_at_every_position() {
        for b in 0..=255u8 {
            for pos in 0..20 {
                let mut h = vec![b'a'; 20];
                h[pos] = b;
                // Bytes that borrow in the SWAR subtraction, before and after.
                h[(pos + 7) % 20] = 0x80;
                let want = h.iter().position(|&x| x < 0x20 || x == b'"' || x == b'\\');
                assert_eq!(find_json_special(&h), want, "{b} at {pos}");
                assert_eq!(find_string_end(&h), want, "{b} at {pos}");
                assert_eq!(find_string_end(&h[..pos + 1]), want, "{b} at {pos}");
            }
        }
    }

    #[test]
    fn json_special_in_long_runs_at_every_position() {
        // Past the block skip's threshold: the answer in the first, a middle and the
        // last block, in the tail after the blocks, and nowhere.
        for len in [64, 65, 95, 96, 100, 130, 200] {
            for also in [None, Some(b'<')] {
                for b in [0u8, 0x1f, b'"', b'\\', b'<', 0x20, 0x7f, 0x80, 0xff] {
                    for pos in (0..len).chain([len]) {
                        let mut h = vec![b'a'; len];
                        if let Some(x) = h.get_mut(pos) {
                            *x = b;
                        }
                        let want = h
                            .iter()
                            .position(|&x| x < 0x20 || x == b'"' || x == b'\\' || Some(x) == also);
                        let got = match also {
                            Some(a) => find_json_special_or(a, &h),
                            None => find_json_special(&h),
                        };
                        assert_eq!(got, want, "{len} {also:?} {b} at {pos}");
                        if also.is_none() {
                            assert_eq!(find_string_end(&h), want, "{len} {b} at {pos}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn same_as_memchr_at_every_length() {
        let hay: Vec<u8> = (0..64u8)
            .map(|i| b"ab\"c\\de"[usize::from(i % 7)])
            .collect();
        for start in 0..hay.len() {
            for end in start..=hay.len() {
                let h = &hay[start..end];
                assert_eq!(find1(b'"', h), memchr::memchr(b'"', h));
                assert_eq!(find2(b'"', b'\\', h), memchr::memchr2(b'"', b'\\', h));
                assert_eq!(
                    find3(b'x', b'd', b'\\', h),
                    memchr::memchr3(b'x', b'd', b'\\', h)
                );
            }
        }
    }
}
