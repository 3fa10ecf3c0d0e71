//! The `auto` framing: the framing is picked from the input's first significant byte.

use crate::format::Framing;
use crate::framing::line::BOM;

/// Whitespace held back after the last line break while the framing is undecided.
const HELD_MAX: usize = 64;

/// Waits for the first byte that is neither a BOM byte nor ASCII whitespace and picks the
/// framing from it: `[` a JSON array, `{` NDJSON, anything else SSE (also a cut-off
/// BOM, whose bytes are content).
///
/// The bytes seen before are held to be replayed into the picked framer. They are
/// bounded: the BOM, and the whitespace since the last line break (every framer treats
/// whole blank lines as nothing), capped at 64 bytes.
#[derive(Debug, Default)]
pub(crate) struct Detect {
    /// The bytes to replay into the picked framer.
    pub(crate) held: Vec<u8>,
    /// Bytes of the leading BOM seen (0..=3).
    bom: usize,
    /// A byte other than the BOM's was seen.
    past_bom: bool,
}

impl Detect {
    /// Scans `chunk`; returns the framing and the offset of the first significant byte
    /// once one arrives.
    pub(crate) fn detect(&mut self, chunk: &[u8]) -> Option<(Framing, usize)> {
        for (i, &b) in chunk.iter().enumerate() {
            if !self.past_bom {
                if BOM.get(self.bom) == Some(&b) {
                    self.bom += 1;
                    self.held.push(b);
                    continue;
                }
                self.past_bom = true;
                if self.bom > 0 && self.bom < BOM.len() {
                    // A cut-off BOM: its bytes are content.
                    return Some((Framing::Sse, i));
                }
            }
            match b {
                b'\n' | b'\r' => self.held.truncate(self.bom),
                b' ' | b'\t' | b'\x0C' => {
                    if self.held.len() < self.bom + HELD_MAX {
                        self.held.push(b);
                    }
                }
                b'[' => return Some((Framing::JsonArray, i)),
                b'{' => return Some((Framing::Ndjson, i)),
                _ => return Some((Framing::Sse, i)),
            }
        }
        None
    }
}
