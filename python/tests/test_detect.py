"""``toolstream.detect``, ``parse("auto", ...)`` on provider streams, and
``toolstream.final_message``."""

import json
import os

import pytest

import toolstream
from helpers import calls_of, chunkings, run

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
