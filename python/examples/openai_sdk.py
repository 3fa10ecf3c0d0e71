"""Tool calls from the OpenAI Python SDK's raw stream bytes, parsed as they arrive.

`with_streaming_response` hands over the HTTP body untouched (no SDK-side SSE parsing);
toolstream turns those bytes into events: the call's name the moment it is complete, its
arguments as they grow, the parsed arguments at the end.

    OPENAI_API_KEY=... python examples/openai_sdk.py
"""

from __future__ import annotations

import asyncio
import os
from typing import List

import openai

import toolstream

REQUEST = dict(
    model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
    messages=[{"role": "user", "content": "Weather in Zürich, and the time?"}],
    tools=[
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
        {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
    ],
    stream=True,
)


def stream_events(**client_args) -> List[toolstream.Event]:
    """Synchronous client: `iter_bytes()` fed to a parser."""
    client = openai.OpenAI(**client_args)
    events: List[toolstream.Event] = []
    with client.chat.completions.with_streaming_response.create(**REQUEST) as response:
        for event in toolstream.iter_events("openai-chat", response.iter_bytes()):
            if event["type"] == "tool_call_start":
                print(f"calling {event['name']} ...")
            events.append(event)
    return events


async def astream_events(**client_args) -> List[toolstream.Event]:
    """Async client: `iter_bytes()` (an async iterator here) through `aiter_events`."""
    client = openai.AsyncOpenAI(**client_args)
    events: List[toolstream.Event] = []
    async with client.chat.completions.with_streaming_response.create(**REQUEST) as response:
        async for event in toolstream.aiter_events("openai-chat", response.iter_bytes()):
            events.append(event)
    return events


if __name__ == "__main__":
    for e in asyncio.run(astream_events()):
        if e["type"] == "tool_call_end":
            print(e["name"], e["arguments"])
