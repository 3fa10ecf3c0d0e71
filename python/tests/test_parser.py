"""The Parser binding: every format, every event type, split invariance, error paths."""

import asyncio
import json
import os
import shutil
import subprocess
import sys

import pytest

import toolstream
from fixtures import FIXTURES, FRAMING, HERMES, OPENAI_CHAT
from helpers import SseServer, calls_of, chunkings, run, text_of

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_formats_come_from_the_crate():
    names = toolstream.formats()
    assert names == [f["name"] for f in toolstream.format_info()]
    assert set(FIXTURES) <= set(names)
    assert {"name", "description", "framing"} == set(toolstream.format_info()[0])
    assert "hermes" in names and "openai-chat" in names


@pytest.mark.parametrize("fmt", sorted(FIXTURES))
def test_every_format_fixture(fmt):
    data, calls, text = FIXTURES[fmt]
    events = toolstream.parse(fmt, data, framing=FRAMING.get(fmt))
    assert calls_of(events) == calls
    if text is not None:
        assert text_of(events) == text
    assert not [e for e in events if e["type"] == "error"]
    # Each call: one start, args deltas whose concatenation is JSON equal to the end's.
    for i, (name, args) in enumerate(calls):
        starts = [e for e in events if e["type"] == "tool_call_start" and e["index"] == i]
        assert [s["name"] for s in starts] == [name]
        joined = "".join(e["delta"] for e in events if e["type"] == "tool_call_args" and e["index"] == i)
        assert json.loads(joined) == args


@pytest.mark.parametrize("fmt", sorted(FIXTURES))
def test_split_invariance(fmt):
    data = FIXTURES[fmt][0].encode()
    framing = FRAMING.get(fmt)
    whole = toolstream.merge_deltas(run(fmt, [data], framing=framing))
    for chunks in chunkings(data):
        assert toolstream.merge_deltas(run(fmt, chunks, framing=framing)) == whole


def _cli():
    for path in (os.environ.get("TOOLSTREAM_CLI"), os.path.join(ROOT, "target", "debug", "toolstream"),
                 os.path.join(ROOT, "target", "release", "toolstream"), shutil.which("toolstream")):
        if path and os.path.isfile(path):
            return path
    return None


@pytest.mark.parametrize("fmt", sorted(FIXTURES))
def test_events_equal_the_cli_json(fmt, tmp_path):
    cli = _cli()
    if cli is None:
        pytest.skip("SKIPPED: no toolstream CLI binary to compare with (cargo build, or set TOOLSTREAM_CLI to it)")
    data, _, _ = FIXTURES[fmt]
    path = tmp_path / "in"
    path.write_bytes(data.encode())
    args = [cli, "parse", "--format", fmt, str(path)]
    if fmt in FRAMING:
        args += ["--framing", FRAMING[fmt]]
    out = subprocess.run(args, check=True, capture_output=True).stdout.decode()
    expected = [json.loads(line) for line in out.splitlines() if line.strip()]
    got = toolstream.parse(fmt, data, framing=FRAMING.get(fmt))
    assert toolstream.merge_deltas(got) == toolstream.merge_deltas(expected)


def test_every_event_type():
    seen = {}
    for e in toolstream.parse("openai-chat", OPENAI_CHAT, field_events=True):
        seen.setdefault(e["type"], e)
    for e in toolstream.parse("hermes", HERMES + "<tool_call>{\"name\": ", field_events=True):
        seen.setdefault(e["type"], e)
    assert set(seen) == {
        "text", "reasoning", "tool_call_start", "tool_call_args", "tool_call_field",
        "tool_call_field_end", "tool_call_end", "finish", "error",
    }
    assert seen["reasoning"] == {"type": "reasoning", "delta": "Need wéather."}
    assert seen["tool_call_start"] == {"type": "tool_call_start", "index": 0, "id": "call_a", "name": "get_weather"}
    assert seen["tool_call_field"] == {"type": "tool_call_field", "index": 0, "path": "/city", "delta": "Zü", "kind": "string"}
    assert seen["tool_call_field_end"] == {"type": "tool_call_field_end", "index": 0, "path": "/city"}
    assert seen["tool_call_end"]["arguments"] == {"city": "Zürich"}
    assert seen["finish"] == {"type": "finish", "reason": "tool_calls", "usage": None}
    err = seen["error"]
    # Cut off before its name: no call began, so the error has no index; raw keeps the bytes.
    assert err["kind"] == "truncated" and "index" not in err and err["raw"] == "<tool_call>{\"name\": "
    # Keys are interned: the same str object in every event.
    a, b = (list(e)[0] for e in (seen["text"], seen["finish"]))
    assert a == b == "type" and a is b


def test_types_of_values():
    events = toolstream.parse("hermes", '<tool_call>{"name": "f", "arguments": {"i": 12345678901234567890, "f": 1.5, "n": null, "b": false, "l": [1, {"x": "y"}]}}</tool_call>')
    args = calls_of(events)[0][1]
    assert args == {"i": 12345678901234567890, "f": 1.5, "n": None, "b": False, "l": [1, {"x": "y"}]}
    assert type(args["i"]) is int and type(args["f"]) is float and args["b"] is False


def test_field_events_tell_each_kind():
    # The string "30" and the number 30 have the same delta; the kind tells them apart,
    # at every chunking.
    args = '{"s": "30", "n": 30, "t": true, "st": "true", "z": null, "x": -1.5e3, "a": [1, "1"]}'
    data = ('<tool_call>{"name": "f", "arguments": ' + args + "}</tool_call>").encode()
    want = [
        ("/s", "string", "30"), ("/n", "number", "30"), ("/t", "boolean", "true"),
        ("/st", "string", "true"), ("/z", "null", "null"), ("/x", "number", "-1.5e3"),
        ("/a/0", "number", "1"), ("/a/1", "string", "1"),
    ]
    for chunks in chunkings(data):
        events = run("hermes", chunks, field_events=True)
        # One value's deltas joined (a string may come in pieces; its kind stays).
        fields = {}
        for e in events:
            if e["type"] == "tool_call_field":
                kind, text = fields.get(e["path"], (e["kind"], ""))
                assert kind == e["kind"]
                fields[e["path"]] = (kind, text + e["delta"])
        assert [(p, k, t) for p, (k, t) in fields.items()] == want, chunks
    # The emitters take the events back, kind included; a bad kind is named.
    em = toolstream.OpenAiChatEmitter()
    em.events(events)
    bad = dict(next(e for e in events if e["type"] == "tool_call_field"), kind="int")
    with pytest.raises(toolstream.ToolstreamError, match="kind"):
        toolstream.OpenAiChatEmitter().event(bad)


def test_str_bytes_and_bytearray_feed_alike():
    as_bytes = run("hermes", [HERMES.encode()])
    assert run("hermes", [HERMES]) == as_bytes
    assert run("hermes", [bytearray(HERMES.encode())]) == as_bytes


def test_parser_properties():
    p = toolstream.Parser("gemini")
    assert p.format == "gemini" and not p.finished and p.bytes_fed == 0
    p.feed(b"[{")
    assert p.framing == "json-array" and p.bytes_fed == 2 and p.retained_bytes > 0
    p.finish()
    assert p.finished
    assert "gemini" in repr(p)


def test_options_reach_the_crate():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"zip": {"type": "string"}}}}}]
    body = "<tool_call><function=f><parameter=zip>02134</parameter></function></tool_call>"
    # Accepted as a list of dicts or a JSON string (the crate's own doc example). The
    # scanners that type values from the schema land separately; this checks the plumbing.
    assert calls_of(toolstream.parse("qwen-xml", body, tools=tools)) == [("f", {"zip": "02134"})]
    assert calls_of(toolstream.parse("qwen-xml", body, tools=json.dumps(tools))) == [("f", {"zip": "02134"})]
    assert calls_of(toolstream.parse("qwen-xml", body, tools={"tools": tools})) == [("f", {"zip": "02134"})]
    assert toolstream.parse("hermes", "plan</think>ok", reasoning_open=True) == [
        {"type": "reasoning", "delta": "plan"}, {"type": "text", "delta": "ok"}]
    assert text_of(toolstream.parse("llama-pythonic", "See [note(x=1)].", tool_names=["get_weather"])) == "See [note(x=1)]."
    leaked = OPENAI_CHAT.replace("Checking ", "<tool_call>{\\\"name\\\": \\\"g\\\", \\\"arguments\\\": {}}</tool_call>")
    assert calls_of(toolstream.parse("openai-chat", leaked, content_format="hermes"))[0] == ("g", {})
    tagged = toolstream.parse("hermes", "<r>x</r>y", reasoning_tags=[("<r>", "</r>")])
    assert tagged == [{"type": "reasoning", "delta": "x"}, {"type": "text", "delta": "y"}]


def test_calls_in_reasoning():
    # Qwen 3.5 in thinking mode writes its call before </think> (vllm#39056).
    body = ("<think>Need data.\n<tool_call>\n<function=search>\n<parameter=q>\nrust\n</parameter>\n"
            "</function>\n</tool_call>\n</think>\n\nHere.")
    off = toolstream.parse("qwen-xml", body)
    assert calls_of(off) == []
    assert "<function=search>" in "".join(e["delta"] for e in off if e["type"] == "reasoning")
    on = toolstream.merge_deltas(toolstream.parse("qwen-xml", body, calls_in_reasoning=True))
    assert calls_of(on) == [("search", {"q": "rust"})]
    assert [e["type"] for e in on] == ["reasoning", "tool_call_start", "tool_call_args", "tool_call_end", "text"]
    assert on[0]["delta"] == "Need data.\n"
    assert on[-1] == {"type": "text", "delta": "Here."}
    # The same at every chunking.
    for size in (1, 2, 5, 17):
        p = toolstream.Parser("qwen-xml", calls_in_reasoning=True)
        events = []
        data = body.encode()
        for i in range(0, len(data), size):
            events += p.feed(data[i:i + size])
        events += p.finish()
        assert toolstream.merge_deltas(events) == on
    with pytest.raises(TypeError):
        toolstream.Parser("qwen-xml", calls_in_reasoning="yes")


def test_undeclared_tools_and_call_ids():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    body = '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call><tool_call>{"name": "f", "arguments": {}}</tool_call>'
    events = toolstream.parse("hermes", body, tools=tools)
    assert calls_of(events) == [("f", {})]
    rejected = [e for e in events if e["type"] == "error"]
    assert [e["kind"] for e in rejected] == ["undeclared_tool"]
    assert "rm_rf" in rejected[0]["raw"]
    allowed = toolstream.parse("hermes", body, tools=tools, reject_undeclared=False)
    assert [name for name, _ in calls_of(allowed)] == ["rm_rf", "f"]
    one = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    ids = lambda events: [e["id"] for e in events if e["type"] == "tool_call_start"]
    assert ids(toolstream.parse("hermes", one)) == ["call_0"]
    assert ids(toolstream.parse("hermes", one, id_prefix="turn3_")) == ["turn3_0"]
    a, b = ids(toolstream.parse("hermes", one, unique_ids=True)), ids(toolstream.parse("hermes", one, unique_ids=True))
    assert a != b and a[0].startswith("call_") and a[0].endswith("_0")
    with pytest.raises(toolstream.ToolstreamError):
        toolstream.Parser("hermes", id_prefix="x_", unique_ids=True)


def test_iter_and_async_helpers():
    chunks = [HERMES[i : i + 5].encode() for i in range(0, len(HERMES), 5)]
    expected = toolstream.merge_deltas(run("hermes", chunks))
    assert toolstream.merge_deltas(toolstream.iter_events("hermes", chunks)) == expected

    async def source():
        for c in chunks:
            await asyncio.sleep(0)
            yield c

    async def collect():
        return [e async for e in toolstream.aiter_events("hermes", source())]

    assert toolstream.merge_deltas(asyncio.run(collect())) == expected


def test_a_source_that_raises_is_finished_then_reraised():
    """issue 20: the chunk source fails mid-call (a dropped connection): what arrived is
    finished (the cut call comes as its truncated error, its raw kept), then the source's
    own exception is raised; sync and async alike."""
    cut = 'Sure.<tool_call>{"name": "f", "arguments": {"a": '

    def check(events):
        assert [e["type"] for e in events] == ["text", "tool_call_start", "tool_call_args", "error"]
        err = events[-1]
        assert err["kind"] == "truncated" and err["index"] == 0 and err["raw"].startswith("<tool_call>")

    def source():
        yield cut[:9].encode()
        yield cut[9:].encode()
        raise ConnectionResetError("peer went away")

    got = []
    with pytest.raises(ConnectionResetError, match="peer went away"):
        for e in toolstream.iter_events("hermes", source()):
            got.append(e)
    check(toolstream.merge_deltas(got))

    async def asource():
        for part in (cut[:9], cut[9:]):
            await asyncio.sleep(0)
            yield part.encode()
        raise TimeoutError("read timed out")

    async def collect(into):
        async for e in toolstream.aiter_events("hermes", asource()):
            into.append(e)

    got = []
    with pytest.raises(TimeoutError, match="read timed out"):
        asyncio.run(collect(got))
    check(toolstream.merge_deltas(got))

    # A source that fails before any byte: finish still runs (nothing arrived: no events).
    def empty():
        raise OSError("no route")
        yield b""  # noqa: unreachable: makes this a generator

    with pytest.raises(OSError, match="no route"):
        assert list(toolstream.iter_events("hermes", empty())) == []


def test_cancellation_is_not_held_up():
    """A cancelled task is not delayed by finish events: CancelledError propagates."""

    async def never():
        yield b"<tool_call>"
        await asyncio.sleep(3600)
        yield b""

    async def main():
        got = []

        async def consume():
            async for e in toolstream.aiter_events("hermes", never()):
                got.append(e)

        task = asyncio.ensure_future(consume())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return got

    assert asyncio.run(main()) == []


# -- error paths ---------------------------------------------------------------------------


def test_bad_format_and_framing():
    with pytest.raises(toolstream.ToolstreamError, match="openai-chat"):
        toolstream.Parser("nope")
    with pytest.raises(toolstream.ToolstreamError, match=r'^format: unknown format `anthropc`; did you mean `anthropic`\? \(valid: .*\)$'):
        toolstream.Parser("anthropc")
    with pytest.raises(ValueError, match=r"^framing: unknown framing `carrier-pigeon` \(valid: sse, "):
        toolstream.Parser("hermes", framing="carrier-pigeon")
    with pytest.raises(toolstream.ToolstreamError, match=r"^content_format: unknown format `herms`; did you mean `hermes`\?"):
        toolstream.Parser("openai-chat", content_format="herms")


def test_bad_options_name_the_option():
    with pytest.raises(TypeError, match=r"tool_names: expected a list of tool names, got a str \(write \[name\]\)"):
        toolstream.Parser("llama-pythonic", tool_names="get_weather")
    with pytest.raises(TypeError, match="tool_names: expected a list of str"):
        toolstream.Parser("llama-pythonic", tool_names=[1])
    with pytest.raises(TypeError, match=r"reasoning_tags: expected a list of \(open, close\) str pairs"):
        toolstream.Parser("hermes", reasoning_tags=[("<r>",)])
    with pytest.raises(TypeError, match="max_calls: expected an int or None, got str"):
        toolstream.Parser("hermes", max_calls="3")
    with pytest.raises(TypeError, match="max_calls: expected an int or None, got bool"):
        toolstream.Parser("hermes", max_calls=True)
    with pytest.raises(toolstream.ToolstreamError, match="max_depth must be at most"):
        toolstream.Parser("hermes", max_depth=2**70)
    with pytest.raises(toolstream.ToolstreamError, match="max_depth must be >= 0"):
        toolstream.Parser("hermes", max_depth=-2**70)
    assert toolstream.Parser("hermes", max_calls=None, tool_names=None, reasoning_tags=None).format == "hermes"


def test_bad_tools_and_limits():
    # What is wrong and where: the text and the position, the type, the path into the list.
    with pytest.raises(toolstream.ToolstreamError, match=r'tools: the text "not json" is not JSON \(expected ident at line 1 column 2\); expected a list of tool definitions'):
        toolstream.Parser("hermes", tools="not json")
    with pytest.raises(toolstream.ToolstreamError, match=r"EOF while parsing an object at line 1 column 1"):
        toolstream.Parser("hermes", tools="{")
    with pytest.raises(toolstream.ToolstreamError, match="tools: expected a list of tool definitions.*got a number"):
        toolstream.Parser("hermes", tools=42)
    with pytest.raises(toolstream.ToolstreamError, match=r'tools: a dict must be a request with a "tools" list; this one has keys \[model, messages\]'):
        toolstream.Parser("hermes", tools={"model": "m", "messages": []})
    with pytest.raises(toolstream.ToolstreamError, match=r'tools\[1\]\["function"\]\["parameters"\]: a value of type object is not JSON data'):
        toolstream.Parser("hermes", tools=[{"name": "f"}, {"function": {"name": "g", "parameters": object()}}])
    with pytest.raises(toolstream.ToolstreamError, match=r'tools\[0\]: no "name"'):
        toolstream.Parser("hermes", tools=[{"function": {}}])
    with pytest.raises(toolstream.ToolstreamError, match=r'the request\'s "tools" must be a list'):
        toolstream.Parser("hermes", tools='{"tools": {}}')
    assert toolstream.Parser("hermes", tools=b'[{"name": "f"}]').format == "hermes"
    with pytest.raises(toolstream.ToolstreamError, match="max_calls"):
        toolstream.Parser("hermes", max_calls=-1)
    with pytest.raises(TypeError, match="max_calls"):
        toolstream.Parser("hermes", max_calls="many")
    with pytest.raises(TypeError):
        toolstream.Parser("hermes", "positional-framing")


def test_misuse():
    p = toolstream.Parser("hermes")
    with pytest.raises(TypeError, match="bytes, bytearray, memoryview or str"):
        p.feed(12)
    p.finish()
    with pytest.raises(toolstream.ToolstreamError, match="finished"):
        p.feed(b"x")
    with pytest.raises(toolstream.ToolstreamError, match="finished"):
        p.finish()


def test_bad_bytes_are_kept():
    events = toolstream.parse("hermes", b"ok \xff <tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>")
    assert text_of(events).startswith("ok \ufffd")  # the invalid byte, replaced, not dropped
    assert calls_of(events) == [("f", {})]
    events = toolstream.parse("openai-chat", b"data: nope\n\n")
    assert events[0] == {"type": "error", "kind": "invalid_json", "message": events[0]["message"], "raw": "nope"}
    # The stream never sent its terminal event (a finish_reason chunk or [DONE]): reported
    # as truncated, after what arrived; nothing else follows.
    assert [e["kind"] for e in events[1:]] == ["truncated"]


def test_limits_become_error_events():
    body = '<tool_call>{"name":"f","arguments":{"a":"' + "x" * 100 + '"}}</tool_call>'
    events = toolstream.parse("hermes", body, max_argument_bytes=10)
    err = [e for e in events if e["type"] == "error"]
    assert len(err) == 1 and err[0]["kind"] == "limit_exceeded" and err[0]["index"] == 0
    assert not calls_of(events)
    two = '<tool_call>{"name":"f","arguments":{}}</tool_call><tool_call>{"name":"g","arguments":{}}</tool_call>'
    events = toolstream.parse("hermes", two, max_calls=1)
    assert calls_of(events) == [("f", {})]
    assert [e["kind"] for e in events if e["type"] == "error"] == ["limit_exceeded"]


def test_openai_sdk_example(tmp_path):
    """The OpenAI SDK example, against a local server replaying a recorded-shape stream."""
    pytest.importorskip("openai")
    with SseServer(OPENAI_CHAT) as server:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples"))
        import openai_sdk

        events = openai_sdk.stream_events(base_url=server.base, api_key="test")
        assert calls_of(events) == [("get_weather", {"city": "Zürich"}), ("now", {})]
        events = asyncio.run(openai_sdk.astream_events(base_url=server.base, api_key="test"))
        assert calls_of(events) == [("get_weather", {"city": "Zürich"}), ("now", {})]


def test_module_docstring_example():
    import doctest

    result = doctest.testmod(toolstream)
    assert result.attempted >= 4 and result.failed == 0


def test_large_chunks_parse_alike():
    """Chunks of 64 KB and more are parsed with the GIL released: same events."""
    body = "x" * (200 << 10)
    text = 'Here.<tool_call>{"name": "w", "arguments": {"s": "' + body + '"}}</tool_call>'
    whole = toolstream.parse("hermes", text)
    assert calls_of(whole) == [("w", {"s": body})]
    pieces = [text[i : i + 70000] for i in range(0, len(text), 70000)]
    assert toolstream.merge_deltas(run("hermes", pieces)) == toolstream.merge_deltas(whole)


HERMES_SPEC = {
    "version": 1,
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "content": "json",
            "repeats": True,
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close": ["<|im_end|>", "<|endoftext|>"], "content": "text"},
    },
}


def merged(events):
    """Adjacent deltas of the same kind and index joined (what split invariance keeps)."""
    out = []
    for e in events:
        if (
            out
            and e["type"] in ("text", "reasoning", "tool_call_args")
            and out[-1]["type"] == e["type"]
            and out[-1].get("index") == e.get("index")
        ):
            out[-1] = dict(out[-1], delta=out[-1]["delta"] + e["delta"])
        else:
            out.append(dict(e))
    return out


def test_syntax_as_dict_json_text_or_path(tmp_path):
    path = tmp_path / "hermes.json"
    path.write_text(json.dumps(HERMES_SPEC))
    want = merged(run("hermes", [HERMES], id_prefix="call_"))
    assert [c[0] for c in calls_of(want)] == ["get_weather", "now"]
    for syntax in (HERMES_SPEC, json.dumps(HERMES_SPEC), json.dumps(HERMES_SPEC).encode(), str(path), path):
        for chunks in chunkings(HERMES, seeds=4):
            parser = toolstream.Parser(syntax=syntax, id_prefix="call_")
            events = []
            for c in chunks:
                events += parser.feed(c)
            events += parser.finish()
            assert merged(events) == want
    parser = toolstream.Parser(syntax=HERMES_SPEC)
    assert parser.syntax == "spec" and parser.format == "auto"
    assert toolstream.Parser("hermes").syntax is None


def test_syntax_pattern_delimiters():
    spec = json.loads(json.dumps(HERMES_SPEC))
    spec["fields"]["tool_calls"]["close_pattern"] = "</tool_call>\\s*"
    del spec["fields"]["tool_calls"]["close"]
    text = 'A <tool_call>{"name": "f", "arguments": {"a": "</tool_call>"}}</tool_call>\n B'
    want = None
    for size in (1, 3, 7, len(text)):
        parser = toolstream.Parser(syntax=spec)
        events = []
        for i in range(0, len(text), size):
            events += parser.feed(text[i : i + size])
        events += parser.finish()
        got = merged(events)
        ends = [e for e in got if e["type"] == "tool_call_end"]
        assert [(e["name"], e["arguments"]) for e in ends] == [("f", {"a": "</tool_call>"})]
        assert want is None or got == want
        want = got


def test_syntax_errors_name_the_key(tmp_path):
    bad = json.loads(json.dumps(HERMES_SPEC))
    # A construct a DFA cannot run is refused, naming the key (patterns themselves are read).
    bad["fields"]["tool_calls"]["close_pattern"] = "</tool_call>(?!x)"
    del bad["fields"]["tool_calls"]["close"]
    with pytest.raises(toolstream.ToolstreamError, match=r"fields\.tool_calls\.close_pattern: the negative lookahead"):
        toolstream.Parser(syntax=bad)
    with pytest.raises(toolstream.ToolstreamError, match="cannot read"):
        toolstream.Parser(syntax=str(tmp_path / "missing.json"))
    with pytest.raises(toolstream.ToolstreamError, match="not both"):
        toolstream.Parser("hermes", syntax=HERMES_SPEC)
    with pytest.raises(TypeError, match="format name"):
        toolstream.Parser()
    with pytest.raises(TypeError, match="syntax: expected"):
        toolstream.Parser(syntax=3)


def test_validate_and_max_repeats_stop_a_call_with_an_error_event():
    """`validate=True` (with `tools=`) and `max_repeats=N`: the call ends as an error event
    carrying `kind`, `index`, `path` (a schema violation's JSON Pointer) and `raw` (the
    call's bytes up to the one it broke at), at every chunking, and gets no tool_call_end."""
    tools = [{"name": "get_weather", "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer", "maximum": 14}},
        "additionalProperties": False}}]
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "30"}}</tool_call> ok'
    for chunks in chunkings(text):
        events = run("hermes", chunks, tools=tools, validate=True)
        errors = [e for e in events if e["type"] == "error"]
        assert errors == [{
            "type": "error", "kind": "schema_violation", "index": 0, "path": "/days",
            "message": errors[0]["message"],
            "raw": '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "',
        }], events
        assert "type" in errors[0]["message"]  # a string where an integer goes: at its quote
        assert not calls_of(events) and text_of(events) == " ok"
    # Off by default: the same call completes.
    assert calls_of(run("hermes", [text], tools=tools)) == [("get_weather", {"city": "Paris", "days": "30"})]
    loop = '<tool_call>{"name": "get_weather", "arguments": {"city": "' + "la" * 50 + '"}}</tool_call>'
    events = run("hermes", [loop], max_repeats=10)
    (e,) = [e for e in events if e["type"] == "error"]
    assert e["kind"] == "repetition" and e["index"] == 0 and "path" not in e
    # Stopped mid-argument, a few periods past the tenth repeat: raw is the call's bytes so far.
    assert loop.startswith(e["raw"]) and 10 <= e["raw"].count("la") <= 12, e["raw"]
    assert not calls_of(events)
    with pytest.raises(ValueError):
        toolstream.Parser("hermes", max_repeats=-1)
