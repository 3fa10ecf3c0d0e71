//! What the engines' tables are made of. A table is one type per engine, built as a
//! `const` in a syntax's file (its strings and lists borrowed) or at run time from a
//! syntax spec (owned): [`Token`], [`Pair`], `Cow<'static, [T]>` lists.

use std::borrow::Cow;

/// A marker or token of a table: a built-in's borrowed, a spec's owned.
pub(crate) type Token = Cow<'static, str>;

/// A pair of tokens (open, close): a reasoning tag pair, a section's markers.
pub(crate) type Pair = (Token, Token);

/// A [`Token`] of a `&'static str` (for `const` tables).
pub(crate) const fn tok(s: &'static str) -> Token {
    Cow::Borrowed(s)
}

/// A [`Pair`] of two `&'static str` (for `const` tables).
pub(crate) const fn pair(open: &'static str, close: &'static str) -> Pair {
    (Cow::Borrowed(open), Cow::Borrowed(close))
}

/// `<think>` / `</think>` ([`THINK`](super::reasoning::THINK)) as a table's reasoning list.
pub(crate) const THINK_TAGS: Cow<'static, [Pair]> = Cow::Borrowed(&[pair("<think>", "</think>")]);
