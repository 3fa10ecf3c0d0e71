//! Matching held bytes against a small set of special tokens ([`special`]): whole, a
//! proper prefix, or neither. The byte-level marker-less engines (`llama-pythonic`'s
//! frames, `llama-json`'s `<|python_tag|>` and end-of-message tokens) use it.

/// How held bytes compare with a set of special tokens ([`special`]).
pub(crate) enum Match<'t> {
    /// One of the tokens, whole.
    Full(&'t [u8]),
    /// A proper prefix of one.
    Prefix,
    /// Neither.
    No,
}

/// Whether `held` is one of `tokens` or a proper prefix of one.
pub(crate) fn special<'t, T: AsRef<[u8]>>(held: &[u8], tokens: &'t [T]) -> Match<'t> {
    let mut prefix = false;
    for t in tokens {
        let t = t.as_ref();
        if t == held {
            return Match::Full(t);
        }
        prefix |= t.starts_with(held);
    }
    if prefix { Match::Prefix } else { Match::No }
}
