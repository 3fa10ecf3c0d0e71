"""What the serving-engine adapters share: toolstream events turned into the neutral pieces
every engine's streaming message is made of (content, reasoning, per-call name and argument
deltas), plus the bookkeeping attributes the engines' serving layers read from a tool parser
(``prev_tool_call_arr``, ``streamed_args_for_tool``, ``current_tool_id``,
``current_tool_name_sent``).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional

from ._toolstream import Parser, format_info

logger = logging.getLogger("toolstream")


def text_formats() -> List[str]:
    """The formats that parse raw model text (what a serving engine decodes)."""
    return [f["name"] for f in format_info() if f["framing"] == "text"]


def tools_to_json(tools: Any) -> Optional[List[Any]]:
    """A request's tools (pydantic models of either engine, or dicts) as plain dicts."""
    if not tools:
        return None
    out = []
    for tool in tools:
        if hasattr(tool, "model_dump"):
            tool = tool.model_dump(exclude_none=True)
        elif hasattr(tool, "dict"):
            tool = tool.dict(exclude_none=True)
        out.append(tool)
    return out


STOPPED = ("schema_violation", "repetition")
"""Error kinds of a call stopped mid-argument: its arguments broke its tool's JSON Schema
(``validate=True``) or repeated in a runaway loop (``max_repeats=N``)."""


def options_from_env(env: Any = None) -> Dict[str, Any]:
    """The checks a server turns on without code (a vLLM plugin file takes no arguments):
    ``TOOLSTREAM_VALIDATE=1`` is ``validate=True``, ``TOOLSTREAM_MAX_REPEATS=N`` is
    ``max_repeats=N``. A value that is not one of those raises ``ValueError`` (at start-up,
    not per request)."""
    env = os.environ if env is None else env
    options: Dict[str, Any] = {}
    validate = env.get("TOOLSTREAM_VALIDATE", "").strip().lower()
    if validate in ("1", "true", "yes", "on"):
        options["validate"] = True
    elif validate not in ("", "0", "false", "no", "off"):
        raise ValueError(f"TOOLSTREAM_VALIDATE={validate!r}: expected 1 or 0")
    repeats = env.get("TOOLSTREAM_MAX_REPEATS", "").strip()
    if repeats:
        if not repeats.isdigit() or int(repeats) < 1:
            raise ValueError(f"TOOLSTREAM_MAX_REPEATS={repeats!r}: expected a whole number of at least 1")
        options["max_repeats"] = int(repeats)
    return options


def describe_error(e: Dict[str, Any]) -> str:
    """An error event in one line for a log: its kind, the JSON Pointer of the offending
    value (a schema violation) and the message, which names the keyword."""
    at = f" at {e['path']!r}" if isinstance(e.get("path"), str) else ""
    return f"{e['kind']}{at}: {e['message']}"


def new_parser(fmt: str, tools: Any, options: Dict[str, Any]) -> Parser:
    """A parser for one response; an unreadable tools list is logged and left out."""
    json_tools = tools_to_json(tools)
    if json_tools:
        try:
            return Parser(fmt, tools=json_tools, **options)
        except (ValueError, TypeError) as e:
            logger.warning("toolstream: ignoring the request's tools: %s", e)
    return Parser(fmt, **options)


@dataclass
class CallDelta:
    """One call's part of a step: its name (first delta only) and new argument text."""

    index: int
    name: Optional[str] = None
    arguments: str = ""


@dataclass
class Step:
    """What one batch of events adds, in engine-neutral terms."""

    content: str = ""
    reasoning: str = ""
    calls: List[CallDelta] = field(default_factory=list)

    def call(self, index: int) -> CallDelta:
        """The step's delta for call ``index`` (one per call per step, in first-seen order)."""
        for c in self.calls:
            if c.index == index:
                return c
        c = CallDelta(index)
        self.calls.append(c)
        return c


@dataclass
class Call:
    """A finished call of a whole-text parse."""

    index: int
    id: str
    name: str
    arguments: Any


class Tracker:
    """Folds events into :class:`Step`s and keeps the engines' tool-parser attributes on
    ``owner`` up to date. Error events never lose bytes: the raw text of an error that no
    call's start has claimed (a malformed call before its name, text after a closed call,
    invalid bytes) becomes content; an error that ends a started call is logged and kept in
    ``owner.toolstream_errors``, since its name and arguments were already streamed. That
    includes a call stopped mid-argument (``validate=True``: ``schema_violation`` with its
    ``path``; ``max_repeats=N``: ``repetition``): no delta of it follows the one that broke
    it, and ``owner.toolstream_stopped`` lists those errors alone, for a server that cancels
    the request when one appears.

    A call's argument text is kept as pieces and joined into ``streamed_args_for_tool`` /
    ``prev_tool_call_arr`` once, when the call ends (or the stream does): appending to one
    growing string per delta would copy it each time, quadratic in the arguments' size."""

    def __init__(self, owner: Any) -> None:
        self.owner = owner
        self.started: Dict[int, str] = {}
        self.pieces: Dict[int, List[str]] = {}
        owner.prev_tool_call_arr = []
        owner.streamed_args_for_tool = []
        owner.current_tool_id = -1
        owner.current_tool_name_sent = False
        owner.toolstream_errors = []
        owner.toolstream_stopped = []

    def _settle(self, i: int) -> None:
        """Joins call ``i``'s argument pieces into the engines' attributes."""
        pieces = self.pieces.pop(i, None)
        if pieces is not None:
            args = "".join(pieces)
            self.owner.streamed_args_for_tool[i] = args
            # What was streamed is the whole of the arguments: the serving layers'
            # "remaining unstreamed arguments" check then finds nothing to add.
            self.owner.prev_tool_call_arr[i]["arguments"] = args

    def step(self, events: Iterable[Dict[str, Any]], final: bool = False) -> Step:
        """The step made of ``events`` (``final``: the last one, from ``finish()``)."""
        step = Step()
        owner = self.owner
        for e in events:
            kind = e["type"]
            if kind == "text":
                step.content += e["delta"]
            elif kind == "reasoning":
                step.reasoning += e["delta"]
            elif kind == "tool_call_start":
                i = e["index"]
                self.started[i] = e["name"]
                step.call(i).name = e["name"]
                owner.current_tool_id = i
                owner.current_tool_name_sent = True
                while len(owner.prev_tool_call_arr) <= i:
                    owner.prev_tool_call_arr.append({})
                    owner.streamed_args_for_tool.append("")
                owner.prev_tool_call_arr[i] = {"name": e["name"], "arguments": ""}
                self.pieces[i] = []
            elif kind == "tool_call_args":
                i = e["index"]
                step.call(i).arguments += e["delta"]
                self.pieces[i].append(e["delta"])
            elif kind == "tool_call_end":
                self._settle(e["index"])
            elif kind == "error":
                if e.get("index") in self.started:
                    self._settle(e["index"])
                    logger.warning(
                        "toolstream: call %s (%s) failed: %s",
                        e["index"],
                        self.started[e["index"]],
                        describe_error(e),
                    )
                    owner.toolstream_errors.append(e)
                    if e["kind"] in STOPPED:
                        owner.toolstream_stopped.append(e)
                else:
                    step.content += e["raw"]
            # finish carries nothing for an engine's tool parser; field events are off.
        if final:
            for i in list(self.pieces):
                self._settle(i)
        return step


def parse_whole(
    fmt: str, text: str, tools: Any, options: Dict[str, Any], owner: Any = None
) -> "tuple[str, str, List[Call]]":
    """A whole response at once: (content, reasoning, finished calls). A call that failed
    (malformed, cut off, over a limit, or stopped by ``validate`` / ``max_repeats``) is no
    call: its raw text, the model's own bytes (for a stopped call, up to the byte it broke
    at), goes back into the content where it stood, as the engines' own parsers do; its
    error event is logged and kept on ``owner`` (``toolstream_errors``, and
    ``toolstream_stopped`` for a stopped call) when given."""
    parser = new_parser(fmt, tools, options)
    events = parser.feed(text) + parser.finish()
    content: List[str] = []
    reasoning: List[str] = []
    calls: Dict[int, Call] = {}
    for e in events:
        kind = e["type"]
        if kind == "text":
            content.append(e["delta"])
        elif kind == "reasoning":
            reasoning.append(e["delta"])
        elif kind == "tool_call_end":
            calls[e["index"]] = Call(e["index"], e["id"], e["name"], e["arguments"])
        elif kind == "error":
            content.append(e["raw"])
            if "index" in e:
                logger.warning("toolstream: call %s is no call: %s", e["index"], describe_error(e))
                if owner is not None:
                    owner.toolstream_errors.append(e)
                    if e["kind"] in STOPPED:
                        owner.toolstream_stopped.append(e)
    return "".join(content), "".join(reasoning), [calls[i] for i in sorted(calls)]
