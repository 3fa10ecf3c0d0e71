//! What the engines' tables are made of. A table is one type per engine, built as a
//! `const` in a syntax's file (its strings and lists borrowed) or at run time from a
//! syntax spec (owned): [`Token`], [`Pair`], `Cow<'static, [T]>` lists. An engine
//! holds its table as a [`Shared`] handle (never a copy).
//!
//! In a `const` table write a string field `Borrowed("..")` and a list field
//! [`list!`]`[..]` (inside a list, [`tok`] and [`pair`] are fine): such a table is a
//! plain constant, so another table can take its fields with `..TABLE` and `&TABLE`
//! is `'static` anywhere. (A `const fn` call in a field's own place, or a list written
//! `Borrowed(&[..])`, makes the compiler refuse `..TABLE`: it cannot see that dropping
//! the rest drops nothing.)

use std::borrow::Cow;
use std::ops::Deref;
use std::sync::Arc;

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

/// A `Cow<'static, [T]>` of a list written in place, for a `const` table:
/// `list![tok("<|im_end|>"), tok("<|endoftext|>")]`. (An inline `const` holds the
/// slice, which keeps the table a plain constant: see the [module docs](self).)
macro_rules! list {
    ($($item:expr),* $(,)?) => {
        ::std::borrow::Cow::Borrowed(const { &[$($item),*] })
    };
}
pub(crate) use list;

/// `<think>` / `</think>` ([`THINK`](super::reasoning::THINK)) as a table's reasoning list.
pub(crate) const THINK_TAGS: Cow<'static, [Pair]> = list![pair("<think>", "</think>")];

/// How an engine holds its table, without copying it per scanner: a built-in's is its
/// file's `const` (`&'static`), a syntax spec's is behind an `Arc` that every parser
/// built from the spec shares. Cloning is a pointer copy or a reference count.
#[derive(Debug)]
pub(crate) enum Shared<T: 'static> {
    /// A built-in's table.
    Static(&'static T),
    /// A table built at run time (a [`Syntax`](crate::Syntax)'s).
    Arc(Arc<T>),
}

impl<T> Shared<T> {
    /// A table built at run time.
    pub(crate) fn new(table: T) -> Self {
        Shared::Arc(Arc::new(table))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        match self {
            Shared::Static(t) => Shared::Static(t),
            Shared::Arc(t) => Shared::Arc(Arc::clone(t)),
        }
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        match self {
            Shared::Static(t) => t,
            Shared::Arc(t) => t,
        }
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for Shared<T> {}
