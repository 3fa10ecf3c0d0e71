"""A whole agent loop against any OpenAI-compatible server: stream a request with tools,
run each tool the model calls, send the results back, and repeat until the model answers in
text. Only the standard library and toolstream.

    OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=qwen3:8b python examples/agent_loop.py
    # a server that leaks calls into `content` as raw text: name the syntax (docs/models.md)
    OPENAI_BASE_URL=http://localhost:8000/v1 MODEL=Qwen/Qwen2.5-7B-Instruct CONTENT=hermes \\
        python examples/agent_loop.py

Environment: OPENAI_BASE_URL (default https://api.openai.com/v1), OPENAI_API_KEY (optional
for local servers), MODEL (default gpt-4o-mini), PROMPT, CONTENT (the text format of calls
leaked into `content`), MAX_TURNS (default 5).

Each turn's events become the assistant message with ``toolstream.final_message`` (OpenAI
Chat's shape, whatever the server's quirks), followed by one ``{"role": "tool"}`` message
per call. The tool, ``get_weather``, is a local function with made-up weather.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

import toolstream

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]


def run_tool(name: str, arguments: Dict[str, Any]) -> str:
    """Runs one call; the result the model reads (JSON text), or an error it can read."""
    if name == "get_weather" and isinstance(arguments.get("city"), str):
        city = arguments["city"]
        return json.dumps({"city": city, "temperature_c": 5 + len(city) % 20, "sky": "clear"})
    return json.dumps({"error": f"cannot run {name} with {arguments}"})


def agent_loop(
    base_url: str,
    model: str,
    prompt: str,
    *,
    api_key: Optional[str] = None,
    content_format: Optional[str] = None,
    max_turns: int = 5,
    out=sys.stdout,
) -> Tuple[str, List[Dict[str, Any]]]:
    """Runs the loop; returns the final answer and the conversation."""
    messages: List[Dict[str, Any]] = [{"role": "user", "content": prompt}]
    url = base_url.rstrip("/") + "/chat/completions"
    options = {"content_format": content_format} if content_format else {}
    for _ in range(max_turns):
        request = {"model": model, "stream": True, "messages": messages, "tools": TOOLS}
        headers = {"content-type": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        req = urllib.request.Request(url, data=json.dumps(request).encode(), headers=headers)
        events = []
        ended = {}
        with urllib.request.urlopen(req) as response:
            chunks = iter(lambda: response.read1(65536), b"")
            # Generated ids (for calls leaked as text) differ from turn to turn.
            for event in toolstream.iter_events("openai-chat", chunks, unique_ids=True, **options):
                events.append(event)
                if event["type"] == "text":
                    print(event["delta"], end="", file=out, flush=True)
                elif event["type"] == "tool_call_start":
                    print(f"\n[calling {event['name']} ...]", file=out)
                elif event["type"] == "tool_call_end":
                    ended[event["id"]] = event["arguments"]
                elif event["type"] == "error":
                    print(f"\n[error {event['kind']}] {event['message']}", file=out)
        message = toolstream.final_message(events)
        if not message.get("tool_calls"):
            print(file=out)
            return message["content"] or "", messages + [message]
        messages.append(message)
        for call in message["tool_calls"]:
            name, text = call["function"]["name"], call["function"]["arguments"]
            result = run_tool(name, ended[call["id"]])
            print(f"[tool {name}] {text} -> {result}", file=out)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    raise RuntimeError(f"no answer after {max_turns} turns (MAX_TURNS)")


def main() -> None:
    agent_loop(
        os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
        os.environ.get("MODEL", "gpt-4o-mini"),
        os.environ.get("PROMPT", "What's the weather in Paris? Use the tool, then answer in one sentence."),
        api_key=os.environ.get("OPENAI_API_KEY"),
        content_format=os.environ.get("CONTENT") or None,
        max_turns=int(os.environ.get("MAX_TURNS", "5")),
    )


if __name__ == "__main__":
    main()
