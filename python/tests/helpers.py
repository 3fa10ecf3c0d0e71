"""Shared test helpers: chunkings and event merging."""

import random

import toolstream


def random_chunks(data, seed, max_size):
    """`data` (bytes or str) cut at seeded random points into pieces of 1..`max_size`."""
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(data):
        n = rng.randint(1, max_size)
        out.append(data[i : i + n])
        i += n
    return out


def chunkings(data, seeds=12, max_size=9):
    """Whole, one unit at a time, and `seeds` seeded random chunkings of `data`."""
    yield [data]
    yield [data[i : i + 1] for i in range(len(data))]
    for seed in range(seeds):
        yield random_chunks(data, seed, max_size)


def run(fmt, chunks, **options):
    """Feeds `chunks` to a fresh parser; all events."""
    parser = toolstream.Parser(fmt, **options)
    events = []
    for c in chunks:
        events += parser.feed(c)
    return events + parser.finish()


def calls_of(events):
    return [(e["name"], e["arguments"]) for e in events if e["type"] == "tool_call_end"]


def text_of(events, kind="text"):
    return "".join(e["delta"] for e in events if e["type"] == kind)
