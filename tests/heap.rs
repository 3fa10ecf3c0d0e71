//! Heap held by a parser, measured with a counting global allocator (this test binary
//! only), in bytes, not time: while one 1 MB argument streams, the heap a parser holds
//! stays within the open call's argument bytes (twice them where the model's raw text and
//! the converted JSON must both be kept) plus a constant; it is released when the call
//! closes; and `Parser::retained_bytes` reports that heap.
//!
//! Inputs are the benchmark workloads (`benches/support/workloads.rs`), fed as their
//! generator cuts them (4-byte argument pieces), into a sink that keeps no event, so the
//! only heap that grows is the parser's.

#![allow(
    unsafe_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "../benches/support/workloads.rs"]
mod workloads;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use toolstream::{EventRef, EventSink, Format, Parser};
use workloads::{Shape, generator};

/// Counts the bytes allocated and not yet freed by the current thread, and their peak,
/// so tests running in parallel do not see each other's.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(n: isize) {
    // `try_with`: the allocator may run while the thread-locals are being torn down.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + n;
        live.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

fn size(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are thread-local
// `Cell`s with const initialisers (no allocation, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(size(layout.size()));
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(size(layout.size()));
        }
        p
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(size(new_size) - size(layout.size()));
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        add(-size(layout.size()));
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn live() -> isize {
    LIVE.with(Cell::get)
}

/// Starts a new peak from the heap held now.
fn reset_peak() {
    PEAK.with(|p| p.set(live()));
}

fn peak() -> isize {
    PEAK.with(Cell::get)
}

/// A sink that keeps nothing: the heap it sees growing is the parser's.
#[derive(Default)]
struct Ends {
    ends: usize,
    errors: usize,
}

impl EventSink for Ends {
    fn event(&mut self, e: EventRef<'_>) {
        match e {
            EventRef::ToolCallEnd { .. } => self.ends += 1,
            EventRef::Error { .. } => self.errors += 1,
            _ => {}
        }
    }
}

/// The engines measured: one format each.
const ENGINES: [Format; 7] = [
    Format::Hermes,
    Format::QwenXml,
    Format::LlamaPythonic,
    Format::Gemma4,
    Format::Mistral,
    Format::Harmony,
    Format::OpenAiChat,
];

/// The bytes a parser may hold for the open call: its argument bytes (JSON), and where
/// the model's raw text of the call (what an `Error` carries if the call breaks) and the
/// JSON converted from it (what the call streams and ends with) are different bytes, the
/// raw text too (`raw`: the call's text as the model wrote it); where the arguments are
/// the model's own JSON bytes, they are kept once. Each buffer may have up to an eighth
/// of its length as room to grow (past 256 KiB a buffer grows by an eighth, not double).
fn bound(format: Format, arg_bytes: isize, raw: isize) -> isize {
    let held = match format {
        Format::QwenXml | Format::LlamaPythonic | Format::Gemma4 => arg_bytes + raw,
        _ => arg_bytes,
    };
    held + held / 8 + SLACK
}

/// The constant on top of the arguments: buffers a parser keeps whatever the input
/// (held text, scanners' state, a line, names and ids).
const SLACK: isize = 16 * 1024;

/// What one 1 MB call cost a parser, in heap bytes above the parser's own at creation.
#[derive(Debug)]
struct Held {
    arg_bytes: isize,
    /// The whole input (the call's raw text and a few bytes of prose).
    input: isize,
    /// The most held after a feed while the call was open.
    open: isize,
    /// `retained_bytes()` then.
    open_reported: isize,
    /// The peak inside any feed (transient buffers included: the End's value).
    peak: isize,
    /// Held once the whole call was fed (its closing marker included), before `finish`.
    closed: isize,
    /// `retained_bytes()` then.
    closed_reported: isize,
    /// Held after `finish`, the parser not dropped.
    finished: isize,
    /// `retained_bytes()` then.
    finished_reported: isize,
}

fn measure(format: Format, arg_len: usize) -> Held {
    let make = generator(format).expect("a workload generator");
    let w = make(Shape::long_arg(arg_len));
    let mut sink = Ends::default();
    let mut p = Parser::new(format);
    let base = live();
    let mut open = 0;
    let mut open_reported = 0;
    let mut closed = None;
    reset_peak();
    for piece in &w.events {
        p.feed_into(piece, &mut sink).unwrap();
        let held = live() - base;
        let reported = size(p.retained_bytes());
        if sink.ends == 0 && held > open {
            open = held;
            open_reported = reported;
        }
        closed = Some((held, reported));
    }
    p.finish_into(&mut sink).unwrap();
    let peak = peak() - base;
    let finished = live() - base;
    let finished_reported = size(p.retained_bytes());
    assert_eq!(
        (sink.ends, sink.errors),
        (1, 0),
        "{format}: one call, no error"
    );
    drop(p);
    let (closed, closed_reported) = closed.unwrap_or((finished, finished_reported));
    Held {
        arg_bytes: size(w.arg_bytes),
        input: size(w.events.iter().map(Vec::len).sum()),
        open,
        open_reported,
        peak,
        closed,
        closed_reported,
        finished,
        finished_reported,
    }
}

fn ratio(n: isize, of: isize) -> f64 {
    n as f64 / of as f64
}

/// Every engine, one 1 MB argument in 4-byte pieces: the heap held while the call is open
/// is within its argument bytes (and raw text, see [`bound`]) plus [`SLACK`]; once the call closed and
/// after `finish`, only [`SLACK`]; and `retained_bytes()` is that heap, within [`SLACK`].
#[test]
fn held_heap_bounded_by_the_open_call_and_released_at_its_close() {
    let mut report = Vec::new();
    let mut failed = Vec::new();
    for format in ENGINES {
        let h = measure(format, 1 << 20);
        report.push(format!(
            "{format:>15}: {} arg bytes ({} input); open {} ({:.2}x, reported {}), peak {} ({:.2}x), \
             call closed {} (reported {}), finished {} (reported {})",
            h.arg_bytes,
            h.input,
            h.open,
            ratio(h.open, h.arg_bytes),
            h.open_reported,
            h.peak,
            ratio(h.peak, h.arg_bytes),
            h.closed,
            h.closed_reported,
            h.finished,
            h.finished_reported,
        ));
        let bound = bound(format, h.arg_bytes, h.input);
        if h.open > bound {
            failed.push(format!("{format}: holds {} open (bound {bound})", h.open));
        }
        for (what, held, reported) in [
            ("open", h.open, h.open_reported),
            ("closed", h.closed, h.closed_reported),
            ("finished", h.finished, h.finished_reported),
        ] {
            if what != "open" && held > SLACK {
                failed.push(format!("{format}: holds {held} once {what}"));
            }
            if reported > held + SLACK || reported + SLACK < held {
                failed.push(format!(
                    "{format}: {what}: retained_bytes() {reported}, heap {held}"
                ));
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(failed.is_empty(), "{failed:#?}");
}
