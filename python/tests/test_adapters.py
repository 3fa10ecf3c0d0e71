"""The vLLM and SGLang adapters fed a multi-call response under random chunkings."""

import json
import os
import types

import pytest

import toolstream
from engines import load_sglang, load_vllm
from fixtures import FIXTURES
from toolstream._adapter import text_formats
from helpers import chunkings, text_of

RESPONSE = (
    "<think>Two lookups, then a file.</think>I'll check both.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich", "days": 3, "units": ["C", "F"]}}\n</tool_call>\n'
    '<tool_call>\n{"name": "write_file", "arguments": {"path": "a/b.txt", "content": "line 1\\nline \\"2\\" 😀 <tool_call>"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "now", "arguments": {}}\n</tool_call>'
)
TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {}}}}
    for n in ("get_weather", "write_file", "now")
]
WHOLE = toolstream.parse("hermes", RESPONSE)
EXPECTED_CALLS = [(e["name"], e["arguments"]) for e in WHOLE if e["type"] == "tool_call_end"]
EXPECTED_TEXT = text_of(WHOLE)
EXPECTED_REASONING = text_of(WHOLE, "reasoning")


def char_chunkings(text, n=40):
    return chunkings(text, seeds=n, max_size=12)


def test_expectations_are_sane():
    assert [c[0] for c in EXPECTED_CALLS] == ["get_weather", "write_file", "now"]
    assert EXPECTED_CALLS[1][1]["content"] == 'line 1\nline "2" 😀 <tool_call>'
    assert EXPECTED_TEXT.startswith("I'll check both.") and EXPECTED_REASONING == "Two lookups, then a file."


# -- SGLang ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sgl():
    mods = load_sglang()
    import toolstream.sglang as adapter

    adapter.register()
    mods.adapter = adapter
    mods.tools = [mods.protocol.Tool.model_validate(t) for t in TOOLS]
    return mods


def collect_sglang(items_per_step):
    """(normal text, [(name, args)], names per index) from StreamingParseResults."""
    text, names, params = "", {}, {}
    for res in items_per_step:
        text += res.normal_text
        for item in res.calls:
            if item.name is not None:
                assert item.tool_index not in names, "a call's name was sent twice"
                names[item.tool_index] = item.name
            assert item.tool_index in names, "arguments before the call's name"
            params[item.tool_index] = params.get(item.tool_index, "") + item.parameters
    calls = [(names[i], json.loads(params[i])) for i in sorted(names)]
    return text, calls


def test_sglang_detector_is_the_real_interface(sgl):
    cls = sgl.fcp.FunctionCallParser.ToolCallParserEnum["toolstream-hermes"]
    assert issubclass(cls, sgl.base.BaseFormatDetector)
    assert "toolstream-hermes" in __import__(
        "sglang.srt.function_call.parser_names", fromlist=["x"]).TOOL_CALL_PARSER_NAMES
    d = cls()
    res = d.parse_streaming_increment("Hi", sgl.tools)
    assert isinstance(res, sgl.core.StreamingParseResult)


def test_sglang_streaming_under_random_chunkings(sgl):
    cls = sgl.fcp.FunctionCallParser.ToolCallParserEnum["toolstream-hermes"]
    answers = set()
    for chunks in char_chunkings(RESPONSE):
        d = cls()
        steps = [d.parse_streaming_increment(c, sgl.tools) for c in chunks] + [d.finish(sgl.tools)]
        for s in steps:
            for item in s.calls:
                assert isinstance(item, sgl.core.ToolCallItem)
        text, calls = collect_sglang(steps)
        assert calls == EXPECTED_CALLS
        # Reasoning reaching the detector is returned as normal text (it comes first here).
        assert text == EXPECTED_REASONING + EXPECTED_TEXT
        # The serving layer's end-of-stream check finds nothing left to send.
        last = len(d.prev_tool_call_arr) - 1
        assert d.prev_tool_call_arr[last]["arguments"] == d.streamed_args_for_tool[last]
        answers.add((text, json.dumps(calls)))
    assert len(answers) == 1


def test_sglang_through_function_call_parser(sgl):
    for chunks in list(char_chunkings(RESPONSE, n=8)):
        parser = sgl.fcp.FunctionCallParser(tools=sgl.tools, tool_call_parser="toolstream-hermes")
        assert isinstance(parser.detector, sgl.adapter.ToolstreamDetector)
        steps = []
        for c in chunks:
            normal, calls = parser.parse_stream_chunk(c)
            steps.append(types.SimpleNamespace(normal_text=normal, calls=calls))
        normal, calls = parser.parse_stream_end()
        steps.append(types.SimpleNamespace(normal_text=normal, calls=calls))
        _, got = collect_sglang(steps)
        assert got == EXPECTED_CALLS
    parser = sgl.fcp.FunctionCallParser(tools=sgl.tools, tool_call_parser="toolstream-hermes")
    assert parser.has_tool_call(RESPONSE) and not parser.has_tool_call("no calls here")
    normal, calls = parser.parse_non_stream(RESPONSE)
    assert [(c.name, json.loads(c.parameters)) for c in calls] == EXPECTED_CALLS
    assert [c.tool_index for c in calls] == [0, 1, 2]  # positions in the request's tools
    assert normal == EXPECTED_REASONING + EXPECTED_TEXT


def test_sglang_agrees_with_sglangs_own_hermes_detector(sgl):
    theirs = sgl.hermes.HermesDetector().detect_and_parse(RESPONSE, sgl.tools)
    ours = sgl.adapter.detector_class("hermes")().detect_and_parse(RESPONSE, sgl.tools)
    assert [(c.name, json.loads(c.parameters), c.tool_index) for c in ours.calls] == [
        (c.name, json.loads(c.parameters), c.tool_index) for c in theirs.calls]


def test_sglang_errors_keep_bytes(sgl):
    d = sgl.adapter.detector_class("hermes")()
    steps = [d.parse_streaming_increment('ok <tool_call>{"oops": 1}</tool_call> then <tool_call>{"name": "f", "arguments": {"a":', [])]
    steps.append(d.finish([]))
    text = "".join(s.normal_text for s in steps)
    assert '{"oops": 1}' in text  # a call without a name is text again
    started = [i for s in steps for i in s.calls if i.name]
    assert [i.name for i in started] == ["f"]
    assert [e["kind"] for e in d.toolstream_errors] == ["truncated"]


# -- vLLM ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def vl():
    protocol, atp, real = load_vllm()
    return types.SimpleNamespace(protocol=protocol, atp=atp, real=real)


def stream_vllm(cls, chunks, request=None):
    request = request or types.SimpleNamespace(tools=None)
    p = cls(None, None)
    msgs = []
    prev = ""
    for c in chunks:
        msgs.append(p.extract_tool_calls_streaming(prev, prev + c, c, [], [], [], request))
        prev += c
    msgs.append(p.finish_streaming())
    return p, [m for m in msgs if m is not None]


def test_vllm_plugin_registers(vl):
    cls = vl.atp.ToolParserManager.get_tool_parser("toolstream-hermes")
    assert issubclass(cls, vl.atp.ToolParser) and cls.engine_based_streaming is True
    for fmt in ("qwen-xml", "mistral", "deepseek", "harmony", "llama-json", "llama-pythonic"):
        assert vl.atp.ToolParserManager.get_tool_parser(f"toolstream-{fmt}").format == fmt


def test_vllm_streaming_under_random_chunkings(vl):
    cls = vl.atp.ToolParserManager.get_tool_parser("toolstream-hermes")
    answers, all_ids = set(), []
    for chunks in char_chunkings(RESPONSE):
        p, msgs = stream_vllm(cls, chunks)
        content = "".join(m.content or "" for m in msgs)
        reasoning = "".join(m.reasoning or "" for m in msgs)
        heads, args = {}, {}
        for m in msgs:
            assert isinstance(m, vl.protocol.DeltaMessage)
            for tc in m.tool_calls:
                assert isinstance(tc, vl.protocol.DeltaToolCall)
                if tc.index not in heads:
                    assert tc.id and tc.type == "function" and tc.function.name
                    heads[tc.index] = (tc.id, tc.function.name)
                else:
                    assert tc.id is None and tc.type is None and tc.function.name is None
                args[tc.index] = args.get(tc.index, "") + (tc.function.arguments or "")
        calls = [(heads[i][1], json.loads(args[i])) for i in sorted(heads)]
        assert calls == EXPECTED_CALLS
        assert content == EXPECTED_TEXT and reasoning == EXPECTED_REASONING
        assert p.streamed_args_for_tool == [args[i] for i in sorted(args)]
        ids = [heads[i][0] for i in sorted(heads)]
        all_ids += ids
        answers.add((content, reasoning, json.dumps(calls)))
    assert len(answers) == 1
    assert len(set(all_ids)) == len(all_ids), "call ids repeat"


def test_vllm_whole_output_and_tools_from_request(vl):
    cls = vl.atp.ToolParserManager.get_tool_parser("toolstream-hermes")
    request = types.SimpleNamespace(tools=TOOLS)
    info = cls(None, None).extract_tool_calls(RESPONSE, request)
    assert isinstance(info, vl.protocol.ExtractedToolCallInformation) and info.tools_called
    assert [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls] == EXPECTED_CALLS
    assert all(c.type == "function" and c.id for c in info.tool_calls)
    assert info.content == EXPECTED_REASONING + EXPECTED_TEXT
    info = cls(None, None).extract_tool_calls("just text", request)
    assert not info.tools_called and info.tool_calls == [] and info.content == "just text"


def test_vllm_held_text_released_at_finish(vl):
    cls = vl.atp.ToolParserManager.get_tool_parser("toolstream-hermes")
    p, msgs = stream_vllm(cls, ["Almost a call: <tool_"])
    assert "".join(m.content or "" for m in msgs) == "Almost a call: <tool_"
    assert p.finish_streaming() is None  # once


def test_vllm_interface_source_is_stated(vl):
    # Which interface these tests ran against is reported in the test log.
    print("vLLM interface:", "real vllm" if vl.real else "stand-ins of vLLM 0.33's interface (vllm needs torch)")
    assert vl.real or getattr(__import__("vllm"), "__standin__", False)


# -- every raw-text format through both adapters ----------------------------------------------

TEXT_FIXTURES = {f: v for f, v in FIXTURES.items() if f in text_formats()}


def test_the_text_formats_have_fixtures():
    # Formats added to the crate later get a row in fixtures.py to be covered here.
    assert {"hermes", "qwen-xml", "mistral", "deepseek", "harmony", "llama-pythonic",
            "llama-json", "auto"} <= set(TEXT_FIXTURES)


@pytest.mark.parametrize("fmt", sorted(TEXT_FIXTURES))
def test_every_text_format_through_both_adapters(fmt, sgl, vl):
    data, calls, _ = TEXT_FIXTURES[fmt]
    det = sgl.fcp.FunctionCallParser.ToolCallParserEnum[f"toolstream-{fmt}"]
    vcls = vl.atp.ToolParserManager.get_tool_parser(f"toolstream-{fmt}")
    for chunks in chunkings(data, seeds=6, max_size=7):
        d = det()
        steps = [d.parse_streaming_increment(c, []) for c in chunks] + [d.finish([])]
        assert collect_sglang(steps)[1] == calls
        _, msgs = stream_vllm(vcls, chunks)
        heads, args = {}, {}
        for m in msgs:
            for tc in m.tool_calls:
                if tc.id:
                    heads[tc.index] = tc.function.name
                args[tc.index] = args.get(tc.index, "") + (tc.function.arguments or "")
        assert [(heads[i], json.loads(args[i])) for i in sorted(heads)] == calls


def _readme_plugin_command():
    """The Python code of python/README.md's `--tool-parser-plugin "$(python -c "...")"`
    (it prints the plugin file's path without importing vLLM)."""
    import re

    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")) as f:
        m = re.search(r'--tool-parser-plugin "\$\(python -c "([^"]+)"\)"', f.read())
    assert m, "python/README.md shows no --tool-parser-plugin command"
    return m.group(1)


def test_vllm_plugin_file_path_route(vl, caplog):
    """`--tool-parser-plugin` as vLLM reads it (ToolParserManager.import_tool_parser, which
    imports a file by its path): the README's file path registers the parsers in a process
    that has not imported them; a module name (`toolstream.vllm`) is logged and skipped, so
    `--tool-call-parser toolstream-hermes` would then fail vLLM's check."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _readme_plugin_command()], check=True, capture_output=True, text=True)
    path = out.stdout.strip()
    assert path.endswith("vllm_plugin.py") and os.path.isfile(path)
    if vl.real:
        pytest.skip(
            "SKIPPED: the fresh-process registration is checked against the stand-ins only "
            "(vLLM is installed here: run in a venv without it, as .ci/python does)"
        )
    manager = vl.atp.ToolParserManager
    saved_parsers = dict(manager.tool_parsers)
    saved_modules = {k: sys.modules.pop(k) for k in ("toolstream.vllm", "toolstream.vllm_plugin", "vllm_plugin") if k in sys.modules}
    try:
        # A fresh server process: none of ours registered, toolstream.vllm not imported.
        for name in [n for n in manager.tool_parsers if n.startswith("toolstream-")]:
            del manager.tool_parsers[name]
        with caplog.at_level("ERROR"):
            manager.import_tool_parser("toolstream.vllm")
        assert "toolstream-hermes" not in manager.list_registered()
        assert "Failed to load module 'toolstream' from toolstream.vllm" in caplog.text
        manager.import_tool_parser(path)
        registered = manager.list_registered()
        assert {f"toolstream-{f}" for f in text_formats()} <= set(registered)
        assert manager.get_tool_parser("toolstream-hermes").format == "hermes"
    finally:
        manager.tool_parsers.clear()
        manager.tool_parsers.update(saved_parsers)
        sys.modules.update(saved_modules)


# -- checks while the arguments stream (validate=, max_repeats=) ------------------------------

SCHEMA_TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"},
                                         "unit": {"enum": ["celsius", "fahrenheit"]}},
        "required": ["city"]}}},
]
BAD_CALL = (
    'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "kelvin"}}\n'
    "</tool_call>\nDone."
)
# The arguments streamed before the break: the value of "unit" broke at its first character.
BAD_ARGS_SENT = '{"city": "Paris", "unit": "'
RUNAWAY = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "' + "ab" * 40 + '"}}\n</tool_call>'


def check_stopped(owner, kind="schema_violation"):
    """The one error of a call stopped mid-argument, kept on the adapter's instance with the
    fields of the Python API's error event."""
    assert [e["kind"] for e in owner.toolstream_stopped] == [kind]
    e = owner.toolstream_stopped[0]
    assert e in owner.toolstream_errors
    assert e["index"] == 0 and e["raw"].startswith("<tool_call>")
    if kind == "schema_violation":
        assert e["path"] == "/unit" and "enum" in e["message"]
        assert e["raw"].endswith('"unit": "k'), "raw ends at the byte it broke at"
    else:
        assert "path" not in e and "repeats" in e["message"]
    return e


def test_sglang_validate_stops_a_call_that_breaks_the_requests_schema(sgl, caplog):
    tools = [sgl.protocol.Tool.model_validate(t) for t in SCHEMA_TOOLS]
    cls = sgl.adapter.detector_class("hermes", validate=True)
    for chunks in char_chunkings(BAD_CALL, n=12):
        d = cls()
        with caplog.at_level("WARNING", logger="toolstream"):
            steps = [d.parse_streaming_increment(c, tools) for c in chunks] + [d.finish(tools)]
        names = [i.name for s in steps for i in s.calls if i.name]
        params = "".join(i.parameters for s in steps for i in s.calls)
        assert names == ["get_weather"] and params == BAD_ARGS_SENT, "no item past the break"
        assert "".join(s.normal_text for s in steps) == "Checking.\n\nDone."
        check_stopped(d)
    assert "schema_violation at '/unit'" in caplog.text
    # Whole output: the call is not returned; its text up to the break is normal text.
    d = cls()
    res = d.detect_and_parse(BAD_CALL, tools)
    assert res.calls == []
    e = check_stopped(d)
    assert res.normal_text == "Checking.\n" + e["raw"] + "\nDone."
    # Without validate=True the same call goes through.
    res = sgl.adapter.detector_class("hermes")().detect_and_parse(BAD_CALL, tools)
    assert [json.loads(c.parameters) for c in res.calls] == [{"city": "Paris", "unit": "kelvin"}]


def test_sglang_max_repeats_stops_a_runaway_call(sgl):
    d = sgl.adapter.detector_class("hermes", max_repeats=8)()
    steps = [d.parse_streaming_increment(c, []) for c in random_chunks_of(RUNAWAY)] + [d.finish([])]
    params = "".join(i.parameters for s in steps for i in s.calls)
    assert params.startswith('{"city": "abab') and len(params) < 40
    check_stopped(d, "repetition")


def test_sglang_register_passes_the_checks_through_function_call_parser(sgl):
    """`register(validate=True)`: SGLang's own FunctionCallParser, given the request's
    tools, gets a detector that stops the bad call."""
    enum = sgl.fcp.FunctionCallParser.ToolCallParserEnum
    saved = enum["toolstream-hermes"]
    try:
        assert "toolstream-hermes" in sgl.adapter.register(validate=True, max_repeats=16)
        assert enum["toolstream-hermes"].options == {"validate": True, "max_repeats": 16}
        tools = [sgl.protocol.Tool.model_validate(t) for t in SCHEMA_TOOLS]
        parser = sgl.fcp.FunctionCallParser(tools=tools, tool_call_parser="toolstream-hermes")
        sent = []
        for c in random_chunks_of(BAD_CALL):
            sent += parser.parse_stream_chunk(c)[1]
        sent += parser.parse_stream_end()[1]
        assert "".join(i.parameters for i in sent) == BAD_ARGS_SENT
        check_stopped(parser.detector)
    finally:
        sgl.adapter.register()
        enum["toolstream-hermes"] = saved
    assert enum["toolstream-hermes"].options == {}


def test_vllm_validate_stops_a_call_that_breaks_the_requests_schema(vl, caplog):
    cls = vl.atp.ToolParserManager.get_tool_parser("toolstream-hermes")
    checked = type("Checked", (cls,), {"options": {"validate": True}})
    request = types.SimpleNamespace(tools=SCHEMA_TOOLS)
    for chunks in char_chunkings(BAD_CALL, n=12):
        with caplog.at_level("WARNING", logger="toolstream"):
            p, msgs = stream_vllm(checked, chunks, request)
        heads = [tc.function.name for m in msgs for tc in m.tool_calls if tc.id]
        args = "".join(tc.function.arguments or "" for m in msgs for tc in m.tool_calls)
        assert heads == ["get_weather"] and args == BAD_ARGS_SENT, "no delta past the break"
        assert "".join(m.content or "" for m in msgs) == "Checking.\n\nDone."
        check_stopped(p)
        assert p.streamed_args_for_tool == [BAD_ARGS_SENT]
    assert "schema_violation at '/unit'" in caplog.text
    # Whole output: no tool call; the call's text up to the break is content.
    p = checked(None, None)
    info = p.extract_tool_calls(BAD_CALL, request)
    assert not info.tools_called and info.tool_calls == []
    e = check_stopped(p)
    assert info.content == "Checking.\n" + e["raw"] + "\nDone."
    # The tools given to the constructor count too (vLLM versions that pass them).
    p, msgs = stream_vllm(type("Checked2", (checked,), {}), [BAD_CALL])
    assert p.toolstream_stopped == [], "no tools, nothing to check against"
    p = checked(None, SCHEMA_TOOLS)
    p.extract_tool_calls(BAD_CALL, types.SimpleNamespace(tools=None))
    check_stopped(p)


def test_vllm_max_repeats_stops_a_runaway_call(vl):
    cls = vl.atp.ToolParserManager.get_tool_parser("toolstream-hermes")
    checked = type("Runaway", (cls,), {"options": {"max_repeats": 8}})
    p, msgs = stream_vllm(checked, random_chunks_of(RUNAWAY))
    args = "".join(tc.function.arguments or "" for m in msgs for tc in m.tool_calls)
    assert args.startswith('{"city": "abab') and len(args) < 40
    check_stopped(p, "repetition")


def test_the_checks_from_the_environment():
    from toolstream._adapter import options_from_env

    assert options_from_env({}) == {}
    assert options_from_env({"TOOLSTREAM_VALIDATE": "1", "TOOLSTREAM_MAX_REPEATS": "64"}) == {
        "validate": True, "max_repeats": 64}
    assert options_from_env({"TOOLSTREAM_VALIDATE": "0"}) == {}
    for bad in ({"TOOLSTREAM_VALIDATE": "maybe"}, {"TOOLSTREAM_MAX_REPEATS": "-3"},
                {"TOOLSTREAM_MAX_REPEATS": "0"}):
        with pytest.raises(ValueError, match="TOOLSTREAM_"):
            options_from_env(bad)


def test_vllm_register_reads_the_environment(vl, monkeypatch):
    import toolstream.vllm as adapter

    manager = vl.atp.ToolParserManager
    saved = dict(manager.tool_parsers)
    try:
        monkeypatch.setenv("TOOLSTREAM_VALIDATE", "1")
        monkeypatch.setenv("TOOLSTREAM_MAX_REPEATS", "32")
        adapter.register()
        assert manager.get_tool_parser("toolstream-hermes").options == {"validate": True, "max_repeats": 32}
        adapter.register(max_repeats=8)
        assert manager.get_tool_parser("toolstream-hermes").options == {"validate": True, "max_repeats": 8}
    finally:
        manager.tool_parsers.clear()
        manager.tool_parsers.update(saved)
    assert manager.get_tool_parser("toolstream-hermes").options == {}


def random_chunks_of(text):
    from helpers import random_chunks

    return random_chunks(text, 7, 9)
