"""``toolstream.detect``, ``parse("auto", ...)`` on provider streams, and
``toolstream.final_message``."""

import json
import os

import pytest

import toolstream
from helpers import SseServer, calls_of, chunkings, run

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "samples")
PROVIDERS = ["anthropic", "openai-chat", "openai-responses", "gemini", "cohere", "ollama", "llama-stack", "bedrock"]


def sample(name):
    for file in os.listdir(SAMPLES):
        if file.split(".")[0] == name:
            with open(os.path.join(SAMPLES, file), "rb") as f:
                return f.read()
    raise FileNotFoundError(name)


@pytest.mark.parametrize("name", PROVIDERS)
def test_detect_names_each_provider_sample(name):
    assert toolstream.detect(sample(name)) == name


def test_detect_text_and_unnamed():
    assert toolstream.detect(sample("hermes")) == "auto"
    assert toolstream.detect('Sure. <tool_call>{"name": "f"') == "auto"
    assert toolstream.detect(bytearray(b"data: [DONE]\n\n")) is None
    assert toolstream.detect(memoryview(sample("anthropic"))) == "anthropic"
    with pytest.raises(TypeError):
        toolstream.detect(42)


@pytest.mark.parametrize("name", PROVIDERS)
def test_auto_parses_a_provider_stream_as_its_format(name):
    body = sample(name)
    given = toolstream.merge_deltas(toolstream.parse(name, body))
    auto = toolstream.merge_deltas(toolstream.parse("auto", body))
    assert calls_of(given), name
    assert auto == given
    # Any chunking detects the same (the first bytes are held until detect() answers).
    for chunks in chunkings(body, seeds=3, max_size=7):
        assert toolstream.merge_deltas(run("auto", chunks)) == given
    parser = toolstream.Parser("auto")
    parser.feed(body[:1])
    assert parser.format == "auto" and parser.retained_bytes == 1 and parser.bytes_fed == 1
    parser.feed(body[1:])
    assert parser.format == name


def test_auto_on_raw_text_is_unchanged():
    body = sample("hermes")
    assert calls_of(toolstream.parse("auto", body)) == calls_of(toolstream.parse("hermes", body))
    # An explicit framing skips detection: the SSE is text.
    events = toolstream.parse("auto", sample("anthropic"), framing="text")
    assert not calls_of(events) and events[0]["type"] == "text"


def test_final_message_is_openai_chat_shaped():
    for name in ["anthropic", "openai-chat", "gemini"]:
        message = toolstream.final_message(toolstream.parse("auto", sample(name)))
        assert message["role"] == "assistant"
        assert message["tool_calls"], name
        for call in message["tool_calls"]:
            assert set(call) == {"id", "type", "function"} and call["type"] == "function"
            assert set(call["function"]) == {"name", "arguments"}
            assert isinstance(json.loads(call["function"]["arguments"]), dict)
    message = toolstream.final_message(toolstream.parse("anthropic", sample("anthropic")))
    assert message == {
        "role": "assistant",
        "content": "Let me check the weather.",
        "tool_calls": [
            {
                "id": "toolu_sample_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "celsius"}'},
            }
        ],
    }


def test_final_message_reasoning_exact_numbers_and_errors():
    body = (
        "<think>hmm</think>Two calls."
        '<tool_call>{"name": "f", "arguments": {"n": 1.50, "big": 123456789012345678901234567890}}</tool_call>'
        '<tool_call>{"name": "g", "arguments": {"cut": '
    )
    events = toolstream.parse("hermes", body)
    message = toolstream.final_message(events)
    assert message["reasoning_content"] == "hmm"
    assert message["content"] == "Two calls."
    # The arguments are the model's own JSON text; the cut call is left out.
    assert [c["function"]["arguments"] for c in message["tool_calls"]] == [
        '{"n": 1.50, "big": 123456789012345678901234567890}'
    ]
    # Without the argument deltas, the parsed arguments are encoded.
    ends = [e for e in events if e["type"] != "tool_call_args"]
    assert json.loads(toolstream.final_message(ends)["tool_calls"][0]["function"]["arguments"]) == {
        "n": 1.5,
        "big": 123456789012345678901234567890,
    }
    # No text, no calls.
    assert toolstream.final_message([]) == {"role": "assistant", "content": None}


def _chunk(delta, finish=None):
    c = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(c)}\n\n"


def test_agent_loop_example_runs_the_tool_and_sends_the_result_back(monkeypatch):
    """python/examples/agent_loop.py against a two-turn fake server on 127.0.0.1: a call
    leaked into `content` as Hermes text (CONTENT=hermes), then the answer."""
    import io
    import subprocess
    import sys

    turns = [
        _chunk({"role": "assistant", "content": "Checking.<tool_call>"})
        + _chunk({"content": '{"name": "get_weather", "arguments": {"city": "Par'})
        + _chunk({"content": 'is"}}</tool_call>'})
        + _chunk({}, "stop")
        + "data: [DONE]\n\n",
        _chunk({"role": "assistant", "content": "It is clear "})
        + _chunk({"content": "in Paris."})
        + _chunk({}, "stop")
        + "data: [DONE]\n\n",
    ]
    for k in ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]:
        monkeypatch.delenv(k, raising=False)
    with SseServer(*turns) as server:
        seen = server.seen
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples"))
        import agent_loop

        base = server.base
        out = io.StringIO()
        answer, messages = agent_loop.agent_loop(base, "test-model", "Weather?", content_format="hermes", out=out)
        assert answer == "It is clear in Paris."
        assert len(seen) == 2 and seen[0]["tools"][0]["function"]["name"] == "get_weather"
        sent = seen[1]["messages"]
        assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
        call = sent[1]["tool_calls"][0]
        assert sent[1]["content"] == "Checking."
        assert call["type"] == "function" and call["function"] == {
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        }
        assert sent[2]["tool_call_id"] == call["id"]
        assert json.loads(sent[2]["content"]) == {"city": "Paris", "temperature_c": 10, "sky": "clear"}
        assert "[calling get_weather ...]" in out.getvalue()
        # As a script, configured by the environment.
        env = dict(os.environ, OPENAI_BASE_URL=base, MODEL="m", CONTENT="hermes")
        seen.clear()  # the server answers from the first turn again
        script = os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples", "agent_loop.py")
        done = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "It is clear in Paris." in done.stdout and len(seen) == 2
