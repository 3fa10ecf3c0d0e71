"""toolstream: parse streaming LLM responses into tool-call events as the bytes arrive.

The parser is the Rust crate ``toolstream`` (a PyO3 extension); events are dicts shaped like
the CLI's JSON lines (``{"type": "tool_call_start", "index": 0, "id": ..., "name": ...}``).

    >>> import toolstream
    >>> p = toolstream.Parser("hermes")
    >>> events = p.feed('Sure.<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>')
    >>> events += p.finish()
    >>> [e["type"] for e in events]
    ['text', 'tool_call_start', 'tool_call_args', 'tool_call_end']

``toolstream.detect(body)`` names the format of a response body (``parse("auto", body)``
detects it too), and ``toolstream.final_message(events)`` turns a parse into the final
assistant message in OpenAI Chat's shape, ready to append to ``messages``:

    >>> body = (b'event: message_start\\n'
    ...         b'data: {"type":"message_start","message":{"id":"msg_1","content":[]}}\\n\\n'
    ...         b'data: {"type":"content_block_start","index":0,"content_block":'
    ...         b'{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}\\n\\n'
    ...         b'data: {"type":"content_block_delta","index":0,"delta":'
    ...         b'{"type":"input_json_delta","partial_json":"{}"}}\\n\\n'
    ...         b'data: {"type":"content_block_stop","index":0}\\n\\n'
    ...         b'data: {"type":"message_stop"}\\n\\n')
    >>> toolstream.detect(body)
    'anthropic'
    >>> toolstream.final_message(toolstream.parse("auto", body))["tool_calls"]
    [{'id': 'toolu_1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]

Re-emitting (a proxy): :class:`OpenAiChatEmitter` writes any format's events as an OpenAI
Chat Completions stream, :class:`AgUiEmitter` as AG-UI events; :class:`PartialValue` shows a
call's arguments while they stream.

The distribution on PyPI is ``toolstream-rs``; the import name is ``toolstream``.
Adapters for serving engines: :mod:`toolstream.vllm`, :mod:`toolstream.sglang`.
"""

from __future__ import annotations

import json as _json
from typing import Any, AsyncIterable, AsyncIterator, Dict, Iterable, Iterator, List, Union

from ._toolstream import (
    AgUiEmitter,
    OpenAiChatEmitter,
    Parser,
    PartialValue,
    ToolstreamError,
    __version__,
    detect,
    format_info,
    formats,
)
from .events import (
    ErrorEvent,
    Event,
    FinishEvent,
    ReasoningEvent,
    TextEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallFieldEndEvent,
    ToolCallFieldEvent,
    ToolCallStartEvent,
)

__all__ = [
    "Parser",
    "OpenAiChatEmitter",
    "AgUiEmitter",
    "PartialValue",
    "ToolstreamError",
    "formats",
    "format_info",
    "detect",
    "parse",
    "final_message",
    "iter_events",
    "aiter_events",
    "merge_deltas",
    "Event",
    "TextEvent",
    "ReasoningEvent",
    "ToolCallStartEvent",
    "ToolCallArgsEvent",
    "ToolCallFieldEvent",
    "ToolCallFieldEndEvent",
    "ToolCallEndEvent",
    "FinishEvent",
    "ErrorEvent",
    "__version__",
]

Chunk = Union[bytes, bytearray, memoryview, str]


def parse(format: str, data: Chunk, **options: Any) -> List[Event]:
    """Parses a whole response at once: ``Parser(format, **options)``, one feed, finish.

    With ``"auto"`` (and no ``framing=``), a provider's stream (Anthropic, OpenAI,
    Gemini, ... in its SSE, NDJSON or JSON framing) is detected from its first bytes, as
    :func:`detect` does; anything else is raw model text whose call syntax is detected from
    its first marker."""
    parser = Parser(format, **options)
    return parser.feed(data) + parser.finish()


def iter_events(format: str, chunks: Iterable[Chunk], **options: Any) -> Iterator[Event]:
    """Events of a response arriving as an iterable of chunks (e.g. ``requests``'
    ``iter_content()``, or the OpenAI SDK's ``with_streaming_response`` ``iter_bytes()``).

    ``finish()`` always runs: when the chunk source raises (a dropped connection, a read
    timeout), the events of what arrived are yielded first (a call cut mid-way comes as
    its ``truncated`` error), then the source's exception is raised."""
    parser = Parser(format, **options)
    source = iter(chunks)
    while True:
        try:
            chunk = next(source)
        except StopIteration:
            break
        except Exception:
            yield from parser.finish()
            raise
        yield from parser.feed(chunk)
    yield from parser.finish()


async def aiter_events(
    format: str, chunks: AsyncIterable[Chunk], **options: Any
) -> AsyncIterator[Event]:
    """Events of a response arriving as an async iterable of chunks: httpx's
    ``response.aiter_bytes()``, aiohttp's ``response.content.iter_any()``, the OpenAI SDK's
    ``with_streaming_response`` ``iter_bytes()``, ... Parsing never awaits: each chunk's
    events are yielded as soon as it arrives; ``finish()`` runs when the iterable ends.

    ``finish()`` always runs: when the chunk source raises (a dropped connection, a read
    timeout), the events of what arrived are yielded first (a call cut mid-way comes as
    its ``truncated`` error), then the source's exception is raised. Cancellation
    (``asyncio.CancelledError``) propagates at once."""
    parser = Parser(format, **options)
    source = chunks.__aiter__()
    while True:
        try:
            chunk = await source.__anext__()
        except StopAsyncIteration:
            break
        except Exception:
            for event in parser.finish():
                yield event
            raise
        for event in parser.feed(chunk):
            yield event
    for event in parser.finish():
        yield event


_MERGEABLE = ("text", "reasoning", "tool_call_args")


def merge_deltas(events: Iterable[Event]) -> List[Event]:
    """Merges adjacent deltas of the same kind and index (``text``, ``reasoning``,
    ``tool_call_args``): any chunking of the input gives the same merged events when no
    field events are enabled (split invariance)."""
    out: List[Any] = []
    for event in events:
        last = out[-1] if out else None
        if (
            last is not None
            and event["type"] in _MERGEABLE
            and last["type"] == event["type"]
            and last.get("index") == event.get("index")
        ):
            last["delta"] = last["delta"] + event["delta"]  # type: ignore[operator]
        else:
            out.append(dict(event))
    return out


def final_message(events: Iterable[Event]) -> Dict[str, Any]:
    """The final assistant message of a parsed response, in OpenAI Chat's shape: what to
    append to ``messages`` before the tool results, whatever format the response came in.

    ``{"role": "assistant", "content": <the text, or None when there is none>,
    "tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}]}``;
    ``tool_calls`` only when a call completed, ``arguments`` the call's JSON text as the
    model streamed it (the ``tool_call_args`` deltas, so numbers keep their exact text; the
    ``tool_call_end`` arguments re-encoded when the deltas are not among ``events``), and
    ``"reasoning_content"`` (vLLM's and DeepSeek's key) when the response had reasoning. A
    call that ended in an ``error`` event is not a call: it is left out (its ``raw`` is in
    that event). Takes the events of one response, in order (merged or not).

        >>> import toolstream
        >>> events = toolstream.parse("hermes", 'On it.<tool_call>{"name": "ls", "arguments": {"dir": "/"}}</tool_call>')
        >>> toolstream.final_message(events)
        {'role': 'assistant', 'content': 'On it.', 'tool_calls': [{'id': 'call_0', 'type': 'function', 'function': {'name': 'ls', 'arguments': '{"dir": "/"}'}}]}
    """
    text: List[str] = []
    reasoning: List[str] = []
    args: Dict[int, List[str]] = {}
    calls: List[Dict[str, Any]] = []
    for event in events:
        kind = event["type"]
        if kind == "text":
            text.append(event["delta"])  # type: ignore[typeddict-item]
        elif kind == "reasoning":
            reasoning.append(event["delta"])  # type: ignore[typeddict-item]
        elif kind == "tool_call_args":
            args.setdefault(event["index"], []).append(event["delta"])  # type: ignore[typeddict-item]
        elif kind == "tool_call_end":
            index = event["index"]  # type: ignore[typeddict-item]
            streamed = args.pop(index, None)
            arguments = (
                "".join(streamed)
                if streamed is not None
                else _json.dumps(event["arguments"], ensure_ascii=False)  # type: ignore[typeddict-item]
            )
            calls.append(
                {
                    "id": event["id"],  # type: ignore[typeddict-item]
                    "type": "function",
                    "function": {"name": event["name"], "arguments": arguments},  # type: ignore[typeddict-item]
                }
            )
    message: Dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if reasoning:
        message["reasoning_content"] = "".join(reasoning)
    if calls:
        message["tool_calls"] = calls
    return message
