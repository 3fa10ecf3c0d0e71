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


class SseServer:
    """An HTTP server on 127.0.0.1 answering each POST with the next of `bodies` (the last
    one again when they run out) as ``text/event-stream``; ``seen`` holds the JSON request
    bodies, ``base`` the ``/v1`` URL. A context manager: shut down on exit."""

    def __init__(self, *bodies):
        import http.server
        import json
        import threading

        self.bodies = [b.encode() if isinstance(b, str) else b for b in bodies]
        self.seen = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.seen.append(json.loads(raw) if raw else None)
                body = outer.bodies[min(len(outer.seen), len(outer.bodies)) - 1]
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
