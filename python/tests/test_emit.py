"""The emitters (OpenAI chunks, AG-UI), PartialValue and response_meta from Python: the
same output as the CLI's `--emit`, a proxy an OpenAI client reads, clean errors."""

import http.server
import json
import os
import subprocess
import threading

import pytest

import toolstream
from fixtures import ANTHROPIC, FIXTURES, FRAMING, HERMES, OPENAI_CHAT
from helpers import calls_of, chunkings, run
from test_parser import ROOT, _cli

CAPTURES = os.environ.get("TOOLSTREAM_CAPTURES") or os.path.join(ROOT, "..", "shared", "captures")


def _captures():
    """(name, format, framing, bytes) of every recorded capture, as the Rust tests read
    them (tests/common/mod.rs: a pretty-printed single object compacted to one line)."""
    table_path = os.path.join(CAPTURES, "FORMATS.json")
    if not os.path.isfile(table_path):
        return []
    with open(table_path) as f:
        table = json.load(f)
    out = []
    for path, info in sorted(table.items()):
        with open(os.path.join(CAPTURES, path), "rb") as f:
            data = f.read()
        if "compact" in (info.get("note") or ""):
            data = json.dumps(json.loads(data), separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        out.append((path, info["format"], info.get("framing", "sse"), data))
    return out


def _inputs():
    """The hand-written fixtures, then every capture."""
    out = [(f"fixture:{fmt}", fmt, FRAMING.get(fmt), data.encode()) for fmt, (data, _, _) in sorted(FIXTURES.items())]
    return out + [c for c in _captures() if c[1] in toolstream.formats()]


def _python_emit(fmt, framing, data, kind):
    parser = toolstream.Parser(fmt, framing=framing)
    if kind == "openai-chat":
        em = toolstream.OpenAiChatEmitter()
        events = parser.feed(data)
        em.response_meta(parser)
        out = em.events(events)
        events = parser.finish()
        em.response_meta(parser)
        return out + em.events(events) + em.finish(), parser.response_meta
    em = toolstream.AgUiEmitter(thread_id="thread-1", run_id="run-1")
    return em.events_sse(parser.feed(data)) + em.events_sse(parser.finish()) + em.finish_sse(), parser.response_meta


def _cli_emit(cli, fmt, framing, data, kind, tmp_path):
    path = tmp_path / "in"
    path.write_bytes(data)
    args = [cli, "parse", "--format", fmt, "--emit", kind, str(path)]
    if framing:
        args += ["--framing", framing]
    if kind == "ag-ui":
        args += ["--thread-id", "thread-1", "--run-id", "run-1"]
    return subprocess.run(args, check=True, capture_output=True).stdout.decode()


def _openai_lines(sse, meta):
    """The SSE text's lines, with the id and time the emitter made up (where the response
    sent none) replaced by placeholders."""
    out = []
    for line in sse.split("\n"):
        if line.startswith("data: {"):
            chunk = json.loads(line[6:])
            if meta["id"] is None and "id" in chunk:
                chunk["id"] = "<made up>"
            if meta["created"] is None and "created" in chunk:
                chunk["created"] = 0
            line = "data: " + json.dumps(chunk)
        out.append(line)
    return out


@pytest.mark.parametrize("kind", ["openai-chat", "ag-ui"])
def test_emitters_write_what_the_cli_writes(kind, tmp_path):
    """Every fixture and every recorded capture: the Python emitters, fed the event dicts,
    write the CLI's `--emit` output byte for byte (made-up ids aside)."""
    cli = _cli()
    if cli is None:
        pytest.skip("SKIPPED: no toolstream CLI binary to compare with (cargo build, or set TOOLSTREAM_CLI to it)")
    inputs = _inputs()
    if not _captures():
        print(f"SKIPPED: captures not found at {CAPTURES} (set TOOLSTREAM_CAPTURES); fixtures only")
    for name, fmt, framing, data in inputs:
        got, meta = _python_emit(fmt, framing, data, kind)
        want = _cli_emit(cli, fmt, framing, data, kind, tmp_path)
        if kind == "openai-chat":
            assert _openai_lines(got, meta) == _openai_lines(want, meta), name
        else:
            assert got == want, name


def test_openai_emitter_output_reads_back_to_the_same_calls():
    for fmt, (data, calls, _) in sorted(FIXTURES.items()):
        events = toolstream.parse(fmt, data, framing=FRAMING.get(fmt))
        em = toolstream.OpenAiChatEmitter(id="chatcmpl-1", model="m", created=1)
        sse = em.events(events) + em.finish()
        assert em.done and em.finish() == ""
        back = toolstream.parse("openai-chat", sse)
        assert calls_of(back) == calls, fmt


def test_response_meta_reaches_the_chunks():
    p = toolstream.Parser("anthropic")
    assert p.response_meta == {"id": None, "model": None, "created": None}
    events = p.feed(ANTHROPIC)
    assert p.response_meta == {"id": "m", "model": None, "created": None}
    first = lambda sse: json.loads(sse.split("\n")[0][6:])  # noqa: E731
    em = toolstream.OpenAiChatEmitter(model="proxy", created=7)
    em.response_meta(p)
    assert first(em.events(events)) | {"choices": None} == {
        "id": "m", "object": "chat.completion.chunk", "created": 7, "model": "proxy", "choices": None}
    em = toolstream.OpenAiChatEmitter()
    em.response_meta({"id": "resp_9", "model": "m-2", "created": 123})
    chunk = first(em.events(events[:1]))
    assert (chunk["id"], chunk["model"], chunk["created"]) == ("resp_9", "m-2", 123)
    # Only until the first chunk: every chunk of a stream carries the same id.
    em.response_meta({"id": "other"})
    assert first(em.events(events[1:]))["id"] == "resp_9"
    for bad, exc, match in (
        ({"created": -1}, toolstream.ToolstreamError, "created"),
        ({"id": 5}, TypeError, r'response_meta\["id"\]'),
        ("m", TypeError, "a Parser or a dict"),
    ):
        with pytest.raises(exc, match=match):
            toolstream.OpenAiChatEmitter().response_meta(bad)


def test_a_python_proxy_is_read_by_the_openai_sdk():
    """An Anthropic stream re-emitted chunk by chunk as OpenAI chunks by a Python server,
    read with the OpenAI SDK's own streaming client."""
    openai = pytest.importorskip("openai")
    upstream = [ANTHROPIC[i : i + 37].encode() for i in range(0, len(ANTHROPIC), 37)]

    class Proxy(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            parser, em = toolstream.Parser("anthropic"), toolstream.OpenAiChatEmitter(model="claude-via-proxy")
            for chunk in upstream:
                events = parser.feed(chunk)
                em.response_meta(parser)
                self.wfile.write(em.events(events).encode())
                self.wfile.flush()
            self.wfile.write((em.events(parser.finish()) + em.finish()).encode())

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", api_key="test")
        stream = client.chat.completions.create(model="x", messages=[{"role": "user", "content": "hi"}], stream=True)
        text, calls, finish, ids = "", {}, None, set()
        for chunk in stream:
            ids.add(chunk.id)
            for choice in chunk.choices:
                text += choice.delta.content or ""
                for tc in choice.delta.tool_calls or []:
                    entry = calls.setdefault(tc.index, ["", ""])
                    entry[0] += (tc.function.name or "") if tc.function else ""
                    entry[1] += (tc.function.arguments or "") if tc.function else ""
                finish = choice.finish_reason or finish
    finally:
        server.shutdown()
    assert ids == {"m"}  # the provider's message id, on every chunk
    assert text == "Checking wéather."
    assert [(n, json.loads(a)) for n, a in (calls[i] for i in sorted(calls))] == [
        ("get_weather", {"city": "Zürich"}), ("now", {})]
    assert finish == "tool_calls"


def test_ag_ui_events_as_dicts_and_sse():
    events = toolstream.parse("openai-chat", OPENAI_CHAT)
    ag = toolstream.AgUiEmitter(thread_id="t", run_id="r")
    out = ag.events(events)
    assert not ag.over
    out += ag.finish()
    assert ag.over and ag.finish() == []
    assert [e["type"] for e in out] == [
        "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_END",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_FINISHED"]
    assert out[0] == {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    assert out[5] == {"type": "TOOL_CALL_START", "toolCallId": "call_a", "toolCallName": "get_weather", "parentMessageId": "r_msg_0"}
    sse = toolstream.AgUiEmitter(thread_id="t", run_id="r")
    text = sse.events_sse(events) + sse.finish_sse()
    assert [json.loads(line[6:]) for line in text.split("\n\n") if line] == out
    # One event at a time gives the same.
    one = toolstream.AgUiEmitter(thread_id="t", run_id="r")
    assert [x for e in events for x in one.event(e)] + one.finish() == out


def test_a_proxy_may_drop_and_build_events():
    """The emitters take any event dicts: here a proxy removes a forbidden call."""
    events = toolstream.parse("openai-chat", OPENAI_CHAT)
    kept = [e for e in events if e.get("index") != 1]
    em = toolstream.OpenAiChatEmitter(id="c", model="m", created=1)
    back = toolstream.parse("openai-chat", em.events(kept) + em.finish())
    assert calls_of(back) == [("get_weather", {"city": "Zürich"})]
    built = [
        {"type": "text", "delta": "ok"},
        {"type": "finish", "reason": "stop", "usage": {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4, "raw": {}}},
    ]
    em = toolstream.OpenAiChatEmitter()
    # The finish event is written by finish(): a later truncated error would still win.
    back = toolstream.parse("openai-chat", em.events(built) + em.finish())
    assert [e["type"] for e in back] == ["text", "finish"]
    assert back[1]["reason"] == "stop" and back[1]["usage"]["total_tokens"] == 4


@pytest.mark.parametrize("event, exc, match", [
    ("text", TypeError, "an event is a dict"),
    ({"delta": "x"}, toolstream.ToolstreamError, r'event\["type"\]: missing'),
    ({"type": 3}, TypeError, r'event\["type"\]: expected str'),
    ({"type": "txet", "delta": "x"}, toolstream.ToolstreamError, 'unknown event type "txet"'),
    ({"type": "text"}, toolstream.ToolstreamError, r'event\["delta"\]: missing from a "text" event'),
    ({"type": "text", "delta": b"x"}, TypeError, r'event\["delta"\] of a "text" event: expected str, got bytes'),
    ({"type": "tool_call_args", "index": -1, "delta": "{"}, toolstream.ToolstreamError, "must be >= 0, got -1"),
    ({"type": "tool_call_args", "index": True, "delta": "{"}, TypeError, "expected int, got bool"),
    ({"type": "tool_call_end", "index": 0, "id": "a", "name": "f", "arguments": {"x": {1}}},
     TypeError, r'event\["arguments"\]\["x"\]: a value of type set is not JSON'),
    ({"type": "tool_call_end", "index": 0, "id": "a", "name": "f", "arguments": {"x": float("nan")}},
     toolstream.ToolstreamError, "NaN is not a JSON number"),
    ({"type": "tool_call_end", "index": 0, "id": "a", "name": "f", "arguments": {1: 2}},
     TypeError, "JSON object keys are str, not int"),
    ({"type": "error", "kind": "oops", "message": "m", "raw": ""}, toolstream.ToolstreamError,
     'unknown error kind "oops" \\(one of provider, .*truncated'),
    ({"type": "finish", "reason": None, "usage": {"input_tokens": -3}}, toolstream.ToolstreamError,
     r'event\["usage"\]\["input_tokens"\]: must be >= 0'),
    ({"type": "finish", "reason": None, "usage": []}, TypeError, r'event\["usage"\]: expected a dict or None'),
])
def test_bad_events_are_refused_cleanly(event, exc, match):
    for em in (toolstream.OpenAiChatEmitter(), toolstream.AgUiEmitter()):
        with pytest.raises(exc, match=match):
            em.event(event)


def test_decimal_arguments_go_back_out():
    """A number beyond the float range comes out as a Decimal; such an event goes back in."""
    from decimal import Decimal

    end = {"type": "tool_call_end", "index": 0, "id": "a", "name": "f", "arguments": {"x": Decimal("1.25")}}
    start = {"type": "tool_call_start", "index": 0, "id": "a", "name": "f"}
    ag = toolstream.AgUiEmitter(thread_id="t", run_id="r")
    assert [e["type"] for e in ag.events([start, end])] == ["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_END"]
    with pytest.raises(toolstream.ToolstreamError, match=r'event\["arguments"\]\["x"\]: Decimal NaN is not a JSON number'):
        toolstream.AgUiEmitter().event(dict(end, arguments={"x": Decimal("NaN")}))


def test_a_bad_event_in_a_batch_writes_nothing():
    em = toolstream.OpenAiChatEmitter(id="c", model="m", created=1)
    with pytest.raises(toolstream.ToolstreamError, match=r"events\[1\]: "):
        em.events([{"type": "text", "delta": "a"}, {"type": "nope"}])
    # Nothing was written: the next chunk is still the first (it carries the role).
    assert '"role":"assistant"' in em.events([{"type": "text", "delta": "a"}])
    ag = toolstream.AgUiEmitter()
    with pytest.raises(TypeError):
        ag.events([{"type": "text", "delta": "a"}, 5])
    assert ag.events([])== [] and not ag.over
    with pytest.raises(TypeError):
        toolstream.OpenAiChatEmitter().events(5)
    with pytest.raises(toolstream.ToolstreamError, match="created must be >= 0"):
        toolstream.OpenAiChatEmitter(created=-5)


def test_deeply_nested_arguments_are_refused_not_a_crash():
    nested = []
    nested.append(nested)
    event = {"type": "tool_call_end", "index": 0, "id": "a", "name": "f", "arguments": nested}
    with pytest.raises(toolstream.ToolstreamError, match="nested more than 512 levels"):
        toolstream.OpenAiChatEmitter().event(event)
    deep = {"a": 1}
    for _ in range(2000):
        deep = {"a": deep}
    with pytest.raises(toolstream.ToolstreamError, match="nested more than"):
        toolstream.Parser("hermes", tools=[{"name": "f", "parameters": deep}])


# -- PartialValue ----------------------------------------------------------------------------


def test_partial_value_as_in_the_crate_docs():
    v = toolstream.PartialValue()
    assert v.value is None and not v.complete and not v.failed
    v.push('{"path": "a.txt", "content": "line 1\\nli')
    assert v.value == {"path": "a.txt", "content": "line 1\nli"}
    assert v.take_touched() == ["", "/path", "/content"]
    v.push('ne 2", "tags": ["x", 1')
    assert v.value == {"path": "a.txt", "content": "line 1\nline 2", "tags": ["x"]}
    assert v.take_touched() == ["/content", "/tags", "/tags/0"]
    assert v.open_number is not None and v.get("/tags") == ["x"]
    with pytest.raises(KeyError):
        v.get("/tags/1")
    v.push("2]}")
    assert v.value == {"path": "a.txt", "content": "line 1\nline 2", "tags": ["x", 12]}
    assert v.take_touched() == ["/tags/1"] and v.complete and v.open_number is None
    assert v.get("") == v.value and repr(v) == "PartialValue(complete)"


def test_partial_value_edges():
    top = toolstream.PartialValue()
    top.push("12")
    assert top.value is None  # a number appears once it has closed
    top.finish()
    assert top.value == 12 and top.complete
    bad = toolstream.PartialValue()
    bad.push('{"a": 1, "b": tru')
    bad.push("x}")
    assert bad.failed and bad.value == {"a": 1} and repr(bad) == "PartialValue(failed)"
    shallow = toolstream.PartialValue(max_depth=2)
    shallow.push("[[[1]]]")
    assert shallow.failed
    with pytest.raises(toolstream.ToolstreamError, match="max_depth must be >= 0"):
        toolstream.PartialValue(max_depth=-1)
    with pytest.raises(TypeError):
        toolstream.PartialValue().push(b"{}")


@pytest.mark.parametrize("fmt", sorted(FIXTURES))
def test_partial_values_end_as_the_call_ends(fmt):
    """A UI's loop: one PartialValue per call, fed its argument deltas; under every
    chunking its value is the call's arguments when the call ends."""
    data = FIXTURES[fmt][0].encode()
    for chunks in chunkings(data, seeds=4):
        values = {}
        for e in run(fmt, chunks, framing=FRAMING.get(fmt)):
            if e["type"] == "tool_call_start":
                values[e["index"]] = toolstream.PartialValue()
            elif e["type"] == "tool_call_args":
                values[e["index"]].push(e["delta"])
            elif e["type"] == "tool_call_end":
                v = values[e["index"]]
                v.finish()
                assert v.complete and v.value == e["arguments"]


# -- values: key order and exact numbers (the crate keeps them; see the report if these fail
# on a branch where the crate's `values` change has not been merged yet) -----------------------


def test_arguments_keep_the_models_key_order():
    body = '<tool_call>{"name": "f", "arguments": {"zeta": 1, "alpha": {"y": 1, "b": 2}, "mid": [{"z": 0, "a": 0}]}}</tool_call>'
    for chunks in chunkings(body, seeds=3):
        end = [e for e in run("hermes", chunks) if e["type"] == "tool_call_end"][0]
        args = end["arguments"]
        assert list(args) == ["zeta", "alpha", "mid"]
        assert list(args["alpha"]) == ["y", "b"] and list(args["mid"][0]) == ["z", "a"]
    v = toolstream.PartialValue()
    v.push('{"zeta": 1, "alpha": {"y": 1, "b": 2}}')
    assert list(v.value) == ["zeta", "alpha"] and list(v.value["alpha"]) == ["y", "b"]


def test_arguments_keep_numbers_exact():
    from decimal import Decimal

    body = '<tool_call>{"name": "f", "arguments": {"big": 123456789012345678901234567890, "neg": -98765432109876543210, "huge": 1e400, "f": 1.5}}</tool_call>'
    events = toolstream.parse("hermes", body)
    assert [e["type"] for e in events] == ["tool_call_start", "tool_call_args", "tool_call_end"]
    args = events[-1]["arguments"]
    assert args["big"] == 123456789012345678901234567890 and type(args["big"]) is int
    assert args["neg"] == -98765432109876543210 and type(args["neg"]) is int
    assert Decimal(str(args["huge"])) == Decimal("1e400")
    assert args["f"] == 1.5 and type(args["f"]) is float


def test_feed_takes_memoryview_and_other_buffers():
    import array

    as_bytes = run("hermes", [HERMES.encode()])
    data = HERMES.encode()
    assert run("hermes", [memoryview(data)]) == as_bytes
    assert run("hermes", [memoryview(data)[i : i + 7] for i in range(0, len(data), 7)]) == run(
        "hermes", [data[i : i + 7] for i in range(0, len(data), 7)])
    assert run("hermes", [array.array("B", data)]) == as_bytes


# -- python/README.md ------------------------------------------------------------------------


def _readme_blocks():
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")) as f:
        text = f.read()
    return [b.split("\n", 1)[1] for b in text.split("```")[1::2] if b.startswith("python\n")]


def test_readme_examples_run_as_printed(capsys):
    """Every Python block of python/README.md runs as printed; the blocks that need a
    server define functions, called here against a local one."""
    blocks = _readme_blocks()
    assert len(blocks) >= 7
    scope = {}
    for block in blocks:
        if "toolstream.sglang" in block:
            from engines import load_sglang

            load_sglang()  # SGLang's modules without torch (skips, or fails in CI, if absent)
        exec(compile(block, "README.md", "exec"), scope)  # noqa: S102
    out = capsys.readouterr().out
    assert "calling write_file ..." in out and "/content = 'line 1\\nline 2'" in out

    class Server(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            for i in range(0, len(OPENAI_CHAT), 50):
                self.wfile.write(OPENAI_CHAT[i : i + 50].encode())
                self.wfile.flush()

        def log_message(self, *args):
            pass

    import asyncio

    openai = pytest.importorskip("openai")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        calls = asyncio.run(scope["stream_calls"](base + "/chat/completions", {"model": "m", "messages": [], "stream": True}))
        assert calls == [("get_weather", {"city": "Zürich"}), ("now", {})]
        ends = scope["stream_calls_sdk"](openai.OpenAI(base_url=base, api_key="test"), model="m", messages=[])
        assert [(e["name"], e["arguments"]) for e in ends] == calls
    finally:
        server.shutdown()
    sse = "".join(scope["anthropic_to_openai"]([ANTHROPIC[i : i + 41] for i in range(0, len(ANTHROPIC), 41)]))
    assert calls_of(toolstream.parse("openai-chat", sse)) == [("get_weather", {"city": "Zürich"}), ("now", {})]
    assert sse.endswith("data: [DONE]\n\n")


def test_include_usage_gives_openais_usage_chunk():
    """Usage rides on the finish chunk by default; `include_usage=True` writes OpenAI's own
    `stream_options.include_usage` chunk, `"choices": []`, instead."""
    with open(os.path.join(ROOT, "samples", "openai-chat.sse"), "rb") as f:
        events = toolstream.parse("openai-chat", f.read())
    assert any(e["type"] == "finish" and e["usage"] for e in events)
    for include in (False, True):
        emitter = toolstream.OpenAiChatEmitter(include_usage=include)
        sse = emitter.events(events) + emitter.finish()
        chunks = [json.loads(line[6:]) for line in sse.splitlines() if line.startswith("data: {")]
        usage_only = [c for c in chunks if c["choices"] == []]
        with_usage = [c for c in chunks if c.get("usage")]
        assert len(usage_only) == int(include)
        assert len(with_usage) == 1
        assert with_usage[0]["choices"] == [] if include else with_usage[0]["choices"][0]["finish_reason"]
