//! Byte search for the hot paths: `memchr` for long haystacks, a plain loop for short
//! ones. Streams fed token by token hand the scanners 1–8 bytes at a time, where
//! `memchr`'s vector set-up (a dispatch through a function pointer and alignment
//! handling, ~60 instructions) costs more than looking at the bytes one by one.

/// Haystacks shorter than this are searched with a plain loop.
const SHORT: usize = 16;

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

#[cfg(test)]
mod tests {
    use super::*;

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
