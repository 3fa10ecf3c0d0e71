//! The runaway guard: finds the first byte at which a text repeats one period of up to
//! 64 bytes more than `n` times in a row ([`ParserConfig::max_repeats`]).
//!
//! A period `p` "repeats more than `n` times" at byte `i` when the text ending at `i` has
//! period `p` over at least `(n + 1) · p` bytes: `b[j] == b[j - p]` for the `n · p`
//! positions `j` ending at `i` (its *run*, `run_p(i) ≥ n · p`).
//!
//! # How: bit-parallel over the 64 periods, no loop over them per byte
//!
//! - `occ[v]` is a 64-bit mask of where byte value `v` occurred among the last 64 bytes
//!   (one bit per position modulo 64). Rotated by the position, it is `M_i`, the set of
//!   periods `p` (bit `p - 1`) with `b[i] == b[i - p]`: two masks updated and one rotate
//!   per byte.
//! - The last 8 masks are kept; their AND is `C_i`, the periods whose run is at least 8
//!   long. A period enters `C` once per run (`C_i & !C_{i-1}`, rare outside repetitive
//!   text); then its run started 7 bytes back, so the byte where it reaches `n · p` is
//!   known: its *deadline*. `next` is the smallest deadline recorded (possibly of a run
//!   that has ended since); when the position reaches it, the deadlines of the periods
//!   still in `C` are looked at again: one of them is due (the guard trips) or `next`
//!   moves on. Each such look is paid for by a run that reached 8 bytes.
//! - Periods with `n · p ≤ 8` trip before they could enter `C`: for them the prefix ANDs
//!   of the last `n · p` masks are looked at directly (only when `n ≤ 8`).
//!
//! Cost per byte: a few dozen simple integer operations, independent of the number of
//! periods, with no branch taken in ordinary text; state: 2 KiB of masks, a 64-byte
//! ring, 64 deadlines. The guard is off by default and costs nothing then.
//!
//! [`ParserConfig::max_repeats`]: crate::ParserConfig::max_repeats

/// The longest period looked for.
pub(crate) const MAX_PERIOD: usize = 64;

/// The guard's state for one call's argument text.
#[derive(Debug, Clone)]
pub(crate) struct Repeats {
    /// The bound `n` (≥ 1).
    n: u64,
    /// Bytes seen.
    pos: u64,
    /// The last 64 bytes, at their position modulo 64.
    ring: [u8; MAX_PERIOD],
    /// For each byte value, its positions among the last 64 bytes: bit `63 - (j % 64)`.
    occ: Box<[u64; 256]>,
    /// `M` of the last 8 positions, at their position modulo 8.
    hist: [u64; 8],
    /// `C` at the previous byte.
    long: u64,
    /// Deadlines of the periods in `C` (index `p - 1`).
    deadline: [u64; MAX_PERIOD],
    /// The smallest deadline recorded (`u64::MAX`: none).
    next: u64,
    /// Periods (bit `p - 1`) with `n · p ≤ 8`, by `n · p` (index `n · p - 1`).
    small: [u64; 8],
    /// Periods with `n · p > 8`.
    big: u64,
    /// Some period has `n · p ≤ 8` (`n ≤ 8`).
    any_small: bool,
}

impl Repeats {
    /// A guard for at most `n` repeats (`n ≥ 1`).
    pub(crate) fn new(n: usize) -> Self {
        let n = n.max(1) as u64;
        let mut small = [0u64; 8];
        let mut big = 0u64;
        for p in 1..=MAX_PERIOD as u64 {
            let k = n.saturating_mul(p);
            match small.get_mut((k as usize).wrapping_sub(1)) {
                Some(m) if k <= 8 => *m |= 1 << (p - 1),
                _ => big |= 1 << (p - 1),
            }
        }
        Repeats {
            n,
            pos: 0,
            ring: [0; MAX_PERIOD],
            occ: Box::new([0; 256]),
            hist: [0; 8],
            long: 0,
            deadline: [u64::MAX; MAX_PERIOD],
            next: u64::MAX,
            any_small: small.iter().any(|m| *m != 0),
            small,
            big,
        }
    }

    /// Feeds `text`; `Some((offset, period))` for the first byte of it at which a period
    /// repeats more than `n` times (the guard then stays tripped: feed no more).
    pub(crate) fn feed(&mut self, text: &[u8]) -> Option<(usize, usize)> {
        for (k, &b) in text.iter().enumerate() {
            if let Some(p) = self.step(b) {
                return Some((k, p));
            }
        }
        None
    }

    /// The last `p` bytes seen (`p ≤ 64`), for the message.
    pub(crate) fn last(&self, p: usize) -> Vec<u8> {
        let p = p.min(MAX_PERIOD) as u64;
        (self.pos.saturating_sub(p)..self.pos)
            .filter_map(|j| self.ring.get((j % MAX_PERIOD as u64) as usize).copied())
            .collect()
    }

    /// One byte; the period that trips, if any.
    #[inline]
    fn step(&mut self, b: u8) -> Option<usize> {
        let i = self.pos;
        self.pos += 1;
        let slot = (i % MAX_PERIOD as u64) as usize;
        let bit = 1u64 << (63 - slot);
        // Periods p with b[i - p] == b: bit 63 - ((i - p) % 64) of occ[b], rotated so
        // that period p lands on bit p - 1.
        let occ_b = self.occ.get(b as usize).copied().unwrap_or(0);
        let m = occ_b.rotate_left((i % 64) as u32);
        if i >= MAX_PERIOD as u64 {
            let old = self.ring.get(slot).copied().unwrap_or(0);
            if let Some(o) = self.occ.get_mut(old as usize) {
                *o &= !bit;
            }
        }
        if let Some(o) = self.occ.get_mut(b as usize) {
            *o |= bit;
        }
        if let Some(r) = self.ring.get_mut(slot) {
            *r = b;
        }
        if let Some(h) = self.hist.get_mut((i % 8) as usize) {
            *h = m;
        }
        if self.any_small
            && let Some(p) = self.small_hit(i)
        {
            return Some(p);
        }
        // Periods whose run is 8 bytes or more: set in all of the last 8 masks.
        let h = &self.hist;
        let run = (h[0] & h[1]) & (h[2] & h[3]) & ((h[4] & h[5]) & (h[6] & h[7]));
        let long = run & self.big;
        let fresh = long & !self.long;
        self.long = long;
        if fresh != 0 {
            self.enter(fresh, i);
        }
        if i >= self.next {
            return self.due(i);
        }
        None
    }

    /// Periods with `n · p ≤ 8` whose run reached `n · p` at position `i` (prefix ANDs of
    /// the last masks, newest first): the smallest.
    fn small_hit(&self, i: u64) -> Option<usize> {
        let mut run = u64::MAX;
        let mut hit = 0u64;
        for k in 0..8u64 {
            run &= self
                .hist
                .get((i.wrapping_sub(k) % 8) as usize)
                .copied()
                .unwrap_or(0);
            hit |= run & self.small.get(k as usize).copied().unwrap_or(0);
        }
        (hit != 0).then(|| hit.trailing_zeros() as usize + 1)
    }

    /// Periods whose run just reached 8 bytes at position `i`: their deadlines.
    #[cold]
    fn enter(&mut self, mut fresh: u64, i: u64) {
        while fresh != 0 {
            let lane = fresh.trailing_zeros() as usize;
            fresh &= fresh - 1;
            let p = lane as u64 + 1;
            // The run covers i - 7 ..= i; it reaches n · p at i - 8 + n · p.
            let at = (i + self.n.saturating_mul(p)).saturating_sub(8);
            if let Some(d) = self.deadline.get_mut(lane) {
                *d = at;
            }
            self.next = self.next.min(at);
        }
    }

    /// The smallest recorded deadline is reached: a period still running trips, or the
    /// next deadline of the ones running is recorded.
    #[cold]
    fn due(&mut self, i: u64) -> Option<usize> {
        let mut lanes = self.long;
        let mut next = u64::MAX;
        let mut hit = None;
        while lanes != 0 {
            let lane = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let d = self.deadline.get(lane).copied().unwrap_or(u64::MAX);
            if d <= i {
                hit = Some(hit.map_or(lane + 1, |h: usize| h.min(lane + 1)));
            }
            next = next.min(d);
        }
        self.next = next;
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, directly: the first byte at which some period p ≤ 64 has run ≥ n·p.
    fn naive(text: &[u8], n: usize) -> Option<(usize, usize)> {
        let mut run = [0usize; MAX_PERIOD + 1];
        for (i, &b) in text.iter().enumerate() {
            let mut hit = None;
            for p in 1..=MAX_PERIOD {
                run[p] = if i >= p && text[i - p] == b {
                    run[p] + 1
                } else {
                    0
                };
                if hit.is_none() && run[p] >= n * p {
                    hit = Some(p);
                }
            }
            if let Some(p) = hit {
                return Some((i, p));
            }
        }
        None
    }

    fn check(text: &[u8], n: usize) {
        let want = naive(text, n);
        assert_eq!(
            Repeats::new(n).feed(text),
            want,
            "n {n} text {:?}",
            String::from_utf8_lossy(text)
        );
        // Byte by byte.
        let mut r = Repeats::new(n);
        let mut got = None;
        for (i, b) in text.iter().enumerate() {
            if let Some((_, p)) = r.feed(std::slice::from_ref(b)) {
                got = Some((i, p));
                break;
            }
        }
        assert_eq!(got, want);
    }

    #[test]
    fn matches_the_definition() {
        check(b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 3);
        check(b"abababababababababababab", 5);
        check(&b"</invoke>".repeat(50), 10);
        check(&b"</invoke>\n".repeat(50), 3);
        check(b"{\"a\": \"hello world, nothing repeats here much\"}", 2);
        let unit: Vec<u8> = (0..64u8).map(|x| b'!' + x).collect();
        check(&unit.repeat(5), 3);
        check(&unit.repeat(5), 1);
        let mut seed = 12345u64;
        for n in [1, 2, 3, 5, 8, 9, 20] {
            for _ in 0..300 {
                let mut t = Vec::new();
                let len = (seed % 400) as usize;
                let alpha = 1 + (seed >> 20) % 4;
                for _ in 0..len {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    if (seed >> 60) < 2 && t.len() > 10 {
                        // Copy a recent stretch: periodic runs.
                        let p = 1 + (seed >> 33) as usize % 20.min(t.len());
                        let k = 1 + (seed >> 45) as usize % 40;
                        for _ in 0..k {
                            let c = t[t.len() - p];
                            t.push(c);
                        }
                    } else {
                        t.push(b'a' + ((seed >> 40) % alpha) as u8);
                    }
                }
                check(&t, n);
            }
        }
    }
}
