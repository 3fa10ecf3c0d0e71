"""Python clients of the proxy's `/v1/messages` and `/v1/responses` fronts (run by tests/fronts.rs).

`python fronts_clients.py MANIFEST OUT`: MANIFEST is `{"tools": [Chat tools], "cases": [{"name",
"base", "prompt", "frameworks"}]}` (`base` the proxy's root URL, `prompt` the user message that
tells the fake upstream what to answer, `frameworks` whether the framework clients take the
case too). OUT gets `{case: {client: result}}`, a result being `{"calls": [{"name",
"arguments"}], "text", "reasoning" (null where the client does not show it), "stop", "error"
(the client's exception, null if none), "status" (its HTTP status, if any), "agent"}`.
The OpenAI Agents SDK runs with `Runner.run` (whole Responses replies) and
`Runner.run_streamed` (streamed). An `agent` result is a tool loop's: `calls` are the calls the tools ran with, `text` the
final answer.

Exits 3 with a `MISSING:` line when a client is not installed.
"""

import asyncio
import functools
import json
import sys

try:
    import anthropic
    import openai
    from agents import (
        Agent as OAAgent,
        FunctionTool,
        Runner,
        set_default_openai_api,
        set_default_openai_client,
        set_tracing_disabled,
    )
    from langchain_anthropic import ChatAnthropic
    from pydantic_ai import Agent, Tool
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.models.openai import OpenAIResponsesModel
    from pydantic_ai.providers.anthropic import AnthropicProvider
    from pydantic_ai.providers.openai import OpenAIProvider
except ImportError as e:
    print(f"MISSING: {e}")
    sys.exit(3)

MODEL = "toolstream-test"
TIMEOUT = 30


def result(calls=(), text="", reasoning=None, stop=None, agent=False):
    return {
        "calls": list(calls),
        "text": text,
        "reasoning": reasoning,
        "stop": stop,
        "error": None,
        "agent": agent,
    }


def failure(e):
    status = getattr(e, "status_code", None)
    if status is None:
        status = getattr(getattr(e, "response", None), "status_code", None)
    body = getattr(e, "body", None)
    return {"error": f"{type(e).__name__}: {e} {json.dumps(body) if body is not None else ''}", "status": status}


# ---------------------------------------------------------------------------------------
# Anthropic


def anthropic_tools(tools):
    return [
        {"name": t["function"]["name"], "description": t["function"]["description"],
         "input_schema": t["function"]["parameters"]}
        for t in tools
    ]


def anthropic_kw(case, tools):
    return dict(
        model=MODEL,
        max_tokens=1024,
        messages=[{"role": "user", "content": case["prompt"]}],
        tools=anthropic_tools(tools),
    )


def from_message(m):
    calls, text, thinking = [], "", ""
    for b in m.content:
        if b.type == "tool_use":
            calls.append({"name": b.name, "arguments": b.input})
        elif b.type == "text":
            text += b.text
        elif b.type == "thinking":
            thinking += b.thinking
    return result(calls, text, thinking, m.stop_reason)


# One client per proxy (a client's construction, its TLS context, costs more than a request).
@functools.cache
def anthropic_client_at(base):
    return anthropic.Anthropic(base_url=base, api_key="sk-test", max_retries=0, timeout=TIMEOUT)


def anthropic_client(case):
    return anthropic_client_at(case["base"])


def anthropic_stream(case, tools):
    with anthropic_client(case).messages.stream(**anthropic_kw(case, tools)) as s:
        for _ in s:
            pass
        return from_message(s.get_final_message())


def anthropic_raw(case, tools):
    """`messages.create(stream=True)`: the raw events, accumulated by hand."""
    blocks, stop, ended = {}, None, False
    for ev in anthropic_client(case).messages.create(stream=True, **anthropic_kw(case, tools)):
        if ev.type == "content_block_start":
            b = ev.content_block
            blocks[ev.index] = {"type": b.type, "name": getattr(b, "name", None), "text": "", "json": ""}
        elif ev.type == "content_block_delta":
            d, b = ev.delta, blocks[ev.index]
            if d.type == "text_delta":
                b["text"] += d.text
            elif d.type == "thinking_delta":
                b["text"] += d.thinking
            elif d.type == "input_json_delta":
                b["json"] += d.partial_json
        elif ev.type == "message_delta":
            stop = ev.delta.stop_reason
        elif ev.type == "message_stop":
            ended = True
    if not ended:
        raise RuntimeError("the stream ended without message_stop")
    calls, text, thinking = [], "", ""
    for _, b in sorted(blocks.items()):
        if b["type"] == "tool_use":
            calls.append({"name": b["name"], "arguments": json.loads(b["json"] or "{}")})
        elif b["type"] == "text":
            text += b["text"]
        elif b["type"] == "thinking":
            thinking += b["text"]
    return result(calls, text, thinking, stop)


def anthropic_whole(case, tools):
    return from_message(anthropic_client(case).messages.create(**anthropic_kw(case, tools)))


def langchain_anthropic(stream):
    def run(case, tools):
        llm = ChatAnthropic(
            model=MODEL, base_url=case["base"], api_key="sk-test", max_retries=0,
            timeout=TIMEOUT, max_tokens=1024,
        ).bind_tools(anthropic_tools(tools))
        messages = [("user", case["prompt"])]
        if stream:
            message = None
            for c in llm.stream(messages):
                message = c if message is None else message + c
        else:
            message = llm.invoke(messages)
        content = message.content
        if isinstance(content, str):
            text = content
        else:
            text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
        return result(
            [{"name": c["name"], "arguments": c["args"]} for c in message.tool_calls],
            text,
            None,
            message.response_metadata.get("stop_reason"),
        )

    return run


# ---------------------------------------------------------------------------------------
# OpenAI Responses


def responses_tools(tools):
    return [
        {"type": "function", "name": t["function"]["name"],
         "description": t["function"]["description"], "parameters": t["function"]["parameters"]}
        for t in tools
    ]


def responses_kw(case, tools):
    return dict(
        model=MODEL,
        input=[{"role": "user", "content": case["prompt"]}],
        tools=responses_tools(tools),
    )


@functools.cache
def openai_client_at(base):
    return openai.OpenAI(base_url=base + "/v1", api_key="sk-test", max_retries=0, timeout=TIMEOUT)


def openai_client(case):
    return openai_client_at(case["base"])


def from_items(items, status):
    calls, text, reasoning = [], "", ""
    for item in items:
        if item.type == "function_call":
            calls.append({"name": item.name, "arguments": json.loads(item.arguments)})
        elif item.type == "message":
            text += "".join(p.text for p in item.content if p.type == "output_text")
        elif item.type == "reasoning":
            reasoning += "".join(p.text for p in (item.content or []))
            reasoning += "".join(p.text for p in (item.summary or []))
    return result(calls, text, reasoning, status)


def from_response(r):
    if r.status == "failed":
        raise RuntimeError(f"response failed: {r.error}")
    return from_items(r.output, r.status)


def responses_stream(case, tools):
    with openai_client(case).responses.stream(**responses_kw(case, tools)) as s:
        for _ in s:
            pass
        return from_response(s.get_final_response())


def responses_raw(case, tools):
    """`responses.create(stream=True)` asking for reasoning summaries: the done items and the
    terminal event."""
    items, status = {}, None
    stream = openai_client(case).responses.create(
        stream=True, reasoning={"summary": "auto"}, **responses_kw(case, tools))
    for ev in stream:
        if ev.type == "response.output_item.done":
            items[ev.output_index] = ev.item
        elif ev.type in ("response.completed", "response.incomplete"):
            status = ev.response.status
        elif ev.type == "response.failed":
            raise RuntimeError(f"response.failed: {ev.response.error}")
    if status is None:
        raise RuntimeError("the stream ended without response.completed")
    return from_items([i for _, i in sorted(items.items())], status)


def responses_whole(case, tools):
    return from_response(openai_client(case).responses.create(**responses_kw(case, tools)))


# ---------------------------------------------------------------------------------------
# Agent loops: the tools run, the upstream's second turn quotes their results.


def tool_result(name):
    return f"{name} done"


def openai_agents(streamed):
    async def run(case, tools):
        return await agents_run(case, tools, streamed)

    return run


async def agents_run(case, tools, streamed):
    client = openai.AsyncOpenAI(base_url=case["base"] + "/v1", api_key="sk-test", max_retries=0, timeout=TIMEOUT)
    set_default_openai_client(client, use_for_tracing=False)
    set_default_openai_api("responses")
    set_tracing_disabled(True)
    ran = []

    def make(t):
        name = t["function"]["name"]

        async def invoke(ctx, args):
            ran.append({"name": name, "arguments": json.loads(args)})
            return tool_result(name)

        return FunctionTool(
            name=name,
            description=t["function"]["description"],
            params_json_schema=t["function"]["parameters"],
            on_invoke_tool=invoke,
            strict_json_schema=False,
        )

    agent = OAAgent(name="fronts", instructions="Use the tools.", model=MODEL, tools=[make(t) for t in tools])
    if streamed:
        r = Runner.run_streamed(agent, case["prompt"], max_turns=4)
        async for _ in r.stream_events():
            pass
    else:
        r = await Runner.run(agent, case["prompt"], max_turns=4)
    return result(ran, r.final_output, None, None, agent=True)


def pydantic_ai(kind):
    async def run(case, tools):
        if kind == "anthropic":
            model = AnthropicModel(MODEL, provider=AnthropicProvider(anthropic_client=anthropic.AsyncAnthropic(
                base_url=case["base"], api_key="sk-test", max_retries=0, timeout=TIMEOUT)))
        else:
            model = OpenAIResponsesModel(MODEL, provider=OpenAIProvider(openai_client=openai.AsyncOpenAI(
                base_url=case["base"] + "/v1", api_key="sk-test", max_retries=0, timeout=TIMEOUT)))
        ran = []

        def make(t):
            name = t["function"]["name"]

            def fn(**kwargs):
                ran.append({"name": name, "arguments": kwargs})
                return tool_result(name)

            return Tool.from_schema(fn, name=name, description=t["function"]["description"],
                                    json_schema=t["function"]["parameters"])

        agent = Agent(model, tools=[make(t) for t in tools])
        r = await agent.run(case["prompt"])
        return result(ran, r.output, None, None, agent=True)

    return run


SDKS = [
    ("anthropic.messages.stream", anthropic_stream),
    ("anthropic.messages.create(stream)", anthropic_raw),
    ("anthropic.messages.create", anthropic_whole),
    ("openai.responses.stream", responses_stream),
    ("openai.responses.create(stream)", responses_raw),
    ("openai.responses.create", responses_whole),
]
FRAMEWORKS = [
    ("langchain-anthropic.stream", langchain_anthropic(True)),
    ("langchain-anthropic.invoke", langchain_anthropic(False)),
    ("openai-agents Runner.run", openai_agents(False)),
    ("openai-agents Runner.run_streamed", openai_agents(True)),
    ("pydantic-ai.anthropic", pydantic_ai("anthropic")),
    ("pydantic-ai.openai-responses", pydantic_ai("responses")),
]


async def main():
    manifest, out_path = sys.argv[1], sys.argv[2]
    with open(manifest) as f:
        m = json.load(f)
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    results = {}
    for case in m["cases"]:
        results[case["name"]] = {}
        clients = SDKS + (FRAMEWORKS if case["frameworks"] else [])
        for client, run in clients:
            if only and client not in only:
                continue
            try:
                r = run(case, m["tools"])
                if asyncio.iscoroutine(r):
                    r = await r
                results[case["name"]][client] = r
            except Exception as e:  # the client's own failure is the result
                results[case["name"]][client] = failure(e)
    with open(out_path, "w") as f:
        json.dump(results, f)


asyncio.run(main())
