//! The event contract of DESIGN.md, one copy for the tests (`tests/common`, as the
//! module `contract`) and the fuzz targets (`fuzz/src/lib.rs`, through `#[path]`).
#![allow(clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::collections::BTreeMap;
use toolstream::Event;

/// The event contract of DESIGN.md, checked on merged events: per index one Start,
/// Args, then exactly one End or one Error; indices dense and in order; the Args of a
/// call concatenate to JSON whose value equals the End's arguments; ids and names
/// stable; no empty text delta, name or id; at most one Finish.
pub fn check_contract(events: &[Event]) {
    #[derive(PartialEq, Debug)]
    enum St {
        Started,
        Done,
    }
    let mut calls: BTreeMap<usize, (St, String, String, String)> = BTreeMap::new();
    let mut next = 0usize;
    let mut finishes = 0;
    for e in events {
        match e {
            Event::Text { delta } | Event::Reasoning { delta } => {
                assert!(!delta.is_empty(), "empty text delta");
            }
            Event::ToolCallStart { index, id, name } => {
                assert_eq!(*index, next, "indices must be dense and in order");
                assert!(!name.is_empty(), "empty tool name");
                assert!(!id.is_empty(), "empty id");
                next += 1;
                calls.insert(
                    *index,
                    (St::Started, id.clone(), name.clone(), String::new()),
                );
            }
            Event::ToolCallArgs { index, delta } => {
                let c = calls.get_mut(index).expect("args before start");
                assert_eq!(c.0, St::Started, "args after end for call {index}");
                c.3.push_str(delta);
            }
            Event::ToolCallEnd {
                index,
                id,
                name,
                arguments,
            } => {
                let c = calls.get_mut(index).expect("end before start");
                assert_eq!(c.0, St::Started, "second end for call {index}");
                assert_eq!(&c.1, id, "id changed between start and end");
                assert_eq!(&c.2, name, "name changed between start and end");
                let parsed: Value = serde_json::from_str(&c.3).unwrap_or_else(|e| {
                    panic!("args of call {index} are not JSON ({e}): {:?}", c.3)
                });
                assert_eq!(
                    &parsed, arguments,
                    "args deltas != end arguments for call {index}"
                );
                c.0 = St::Done;
            }
            Event::Error {
                index: Some(index), ..
            } => {
                let c = calls.get_mut(index).expect("call error before start");
                assert_eq!(c.0, St::Started, "error after end for call {index}");
                c.0 = St::Done;
            }
            Event::Finish { .. } => finishes += 1,
            _ => {}
        }
    }
    for (i, c) in &calls {
        assert_eq!(c.0, St::Done, "call {i} never ended");
    }
    assert!(finishes <= 1, "more than one finish event");
}
