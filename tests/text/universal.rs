//! The universal cases: the slips every text syntax must answer, each in its own test file
//! (`tests/text/<family>/<syntax>.rs`, mirroring `src/text/<family>/<syntax>.rs`), by a
//! [`Universal`] fixture that says, for every [`Case`], one of:
//!
//! - a [`sample`]: the model's text and the exact events it gives, run whole, byte by
//!   byte, at every split point and at random splits (each against the whole run, the
//!   one-shot oracle), the DESIGN contract checked on each, every prefix too, and the
//!   syntax's spec (when it has one) giving the same events;
//! - [`not_applicable`]: why the case cannot occur in this syntax.
//!
//! `rules/universal.rs` runs every fixture the families list (their `mod.rs`'s
//! `UNIVERSAL`); adding a syntax adds its file and its line there, nothing in the rules.

use crate::exact::{Ev, check_fixtures, fx};
use toolstream::Format;

/// A slip every syntax answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    /// A well-formed call with text around it (the baseline every other case departs from).
    Call,
    /// The input ends inside a call's arguments: a `truncated` error with the call's bytes.
    CutCall,
    /// A call whose arguments are broken: an error with the call's bytes, the text after
    /// it still text.
    CorruptCall,
    /// The call-opening marker with no call after it (a literal marker in prose, or at the
    /// end of the input).
    MarkerAlone,
    /// A closing marker with no call open.
    StrayClose,
    /// A call-opening marker inside an open call: the open call ends as an error with its
    /// bytes, the new one is read.
    OpenerInsideCall,
    /// A member the call may hold once, twice (an argument key or parameter repeated).
    RepeatedMember,
    /// A name that is no name (spaces, quotes, markup): an error, never a call.
    JunkName,
}

/// Every case, in the order a fixture answers them.
pub(crate) const CASES: &[Case] = &[
    Case::Call,
    Case::CutCall,
    Case::CorruptCall,
    Case::MarkerAlone,
    Case::StrayClose,
    Case::OpenerInsideCall,
    Case::RepeatedMember,
    Case::JunkName,
];

/// How a syntax answers one case.
pub(crate) enum Answer {
    /// The input and the exact events.
    Sample { input: String, want: Vec<Ev> },
    /// Why the case cannot occur.
    NotApplicable(&'static str),
}

/// A syntax's answers to the universal cases.
pub(crate) struct Universal {
    pub(crate) format: Format,
    /// The syntax's reasoning tag pair (the one `reasoning_open` starts in), or `None`
    /// where it has none: the reasoning rules of `rules/edges.rs` run on it.
    pub(crate) reasoning: Option<(&'static str, &'static str)>,
    /// The reasoning closing tag is also an end-of-block token the syntax drops from the
    /// text (Inkling's `<|end_message|>`, Muse's `<|eom|>`): outside reasoning it is
    /// dropped, not text (the reasoning rules of `rules/edges.rs` expect it so).
    pub(crate) reasoning_close_dropped: bool,
    /// Text outside the reasoning tags may come out as reasoning: the syntax's own
    /// structure, not the tags, says what is reasoning (Harmony's channels), so the
    /// reasoning rules of `rules/edges.rs` check text and reasoning together.
    pub(crate) outside_text_may_be_reasoning: bool,
    pub(crate) answers: Vec<(Case, Answer)>,
}

/// Every fixture the families list (their `mod.rs`'s `UNIVERSAL`).
pub(crate) fn all() -> Vec<Universal> {
    [
        crate::json::UNIVERSAL,
        crate::xml::UNIVERSAL,
        crate::sections::UNIVERSAL,
        crate::pythonic::UNIVERSAL,
        crate::gemma::UNIVERSAL,
        &[crate::harmony::universal],
        &[crate::auto::universal],
    ]
    .iter()
    .flat_map(|l| l.iter().map(|f| f()))
    .collect()
}

/// The fixture of `format`, if its file has one.
pub(crate) fn fixture_of(format: Format) -> Option<Universal> {
    all().into_iter().find(|u| u.format == format)
}

/// A sample: `input` gives exactly `groups` (a `call` is three events).
pub(crate) fn sample(input: impl Into<String>, groups: Vec<Vec<Ev>>) -> Answer {
    Answer::Sample {
        input: input.into(),
        want: groups.into_iter().flatten().collect(),
    }
}

/// A reason several JSON-call syntaxes give for `Case::JunkName`: the name is a JSON
/// string.
pub(crate) const JSON_STRING_NAME: &str = "the name is a JSON string: whatever string the model closed is its name (declared tools refuse an unknown one)";

/// A reason the syntaxes without a closing marker give for `Case::StrayClose` (and
/// `Case::MarkerAlone` where the marker alone is what opens a call).
pub(crate) const NO_CLOSING_MARKER: &str =
    "the syntax has no closing marker: a call ends where its JSON value closes";

/// A reason the special-token syntaxes give for `Case::RepeatedMember`.
pub(crate) const ONE_NAME_ONE_ARGUMENTS: &str = "a call has one name and one arguments value, each in its own place between the tokens; a key repeated inside the arguments is the model's JSON, passed as its bytes";

/// The case cannot occur in this syntax, because `reason`.
pub(crate) fn not_applicable(reason: &'static str) -> Answer {
    Answer::NotApplicable(reason)
}

impl Universal {
    /// Checks that the fixture answers every case once, in [`CASES`] order, then runs it
    /// (see the module doc).
    pub(crate) fn check(&self) {
        let cases: Vec<Case> = self.answers.iter().map(|(c, _)| *c).collect();
        assert_eq!(
            cases, CASES,
            "{}: answer every case once, in order",
            self.format
        );
        for (case, answer) in &self.answers {
            match answer {
                Answer::Sample { input, want } => {
                    let what = case_name(*case);
                    check_fixtures(self.format, &[fx(what, input.clone(), vec![want.clone()])]);
                }
                Answer::NotApplicable(reason) => {
                    assert!(
                        !reason.is_empty(),
                        "{}: {case:?} needs a reason",
                        self.format
                    );
                }
            }
        }
    }
}

/// A case's name, for messages.
fn case_name(case: Case) -> &'static str {
    match case {
        Case::Call => "a call",
        Case::CutCall => "a call cut off",
        Case::CorruptCall => "a corrupt call",
        Case::MarkerAlone => "a marker alone",
        Case::StrayClose => "a stray close",
        Case::OpenerInsideCall => "an opener inside an open call",
        Case::RepeatedMember => "a repeated member",
        Case::JunkName => "a junk name",
    }
}
