"""Typed shapes of the event dicts (the CLI's JSON objects), one ``TypedDict`` per type.

``Event`` is their union; switch on ``event["type"]``. Newer crate versions may add event
types and error kinds: treat unknown ones as ignorable.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, Optional, Union

if sys.version_info >= (3, 8):
    from typing import Literal, TypedDict
else:  # pragma: no cover
    from typing_extensions import Literal, TypedDict


class TextEvent(TypedDict):
    """Visible assistant text; never contains tool-call syntax."""

    type: Literal["text"]
    delta: str


class ReasoningEvent(TypedDict):
    """Thinking / reasoning text, where the format marks it."""

    type: Literal["reasoning"]
    delta: str


class ToolCallStartEvent(TypedDict):
    """A call began: emitted as soon as its name is complete."""

    type: Literal["tool_call_start"]
    index: int
    id: str
    name: str


class ToolCallArgsEvent(TypedDict):
    """A fragment of the call's arguments as JSON text."""

    type: Literal["tool_call_args"]
    index: int
    delta: str


class ToolCallFieldEvent(TypedDict):
    """Decoded text of one value in the arguments (``field_events=True``): more of a
    string's text, or the JSON text of a number, boolean or null; ``kind`` says which."""

    type: Literal["tool_call_field"]
    index: int
    path: str
    delta: str
    kind: Literal["string", "number", "boolean", "null"]


class ToolCallFieldEndEvent(TypedDict):
    """The value at ``path`` closed (``field_events=True``)."""

    type: Literal["tool_call_field_end"]
    index: int
    path: str


class ToolCallEndEvent(TypedDict):
    """The call finished; ``arguments`` is the parsed JSON value: objects as dicts in the
    model's key order, integers as ``int`` of any size, a number beyond the ``float`` range
    as ``decimal.Decimal``."""

    type: Literal["tool_call_end"]
    index: int
    id: str
    name: str
    arguments: Any


class FinishEvent(TypedDict):
    """The response finished: normalised stop reason and usage if sent."""

    type: Literal["finish"]
    reason: Optional[str]
    usage: Optional[Dict[str, Any]]


class _ErrorEventBase(TypedDict):
    type: Literal["error"]
    kind: str
    message: str
    raw: str


class ErrorEvent(_ErrorEventBase, total=False):
    """A provider error or input the parser could not accept; ``raw`` keeps what was
    received. ``index`` is present when the error replaces a call's ``tool_call_end``.
    A call stopped mid-argument has ``kind`` ``schema_violation`` (``validate=True``; its
    ``message`` names the keyword, ``path`` is the JSON Pointer of the offending value and
    ``raw`` ends at the byte it broke at) or ``repetition`` (``max_repeats=N``)."""

    index: int
    path: str


Event = Union[
    TextEvent,
    ReasoningEvent,
    ToolCallStartEvent,
    ToolCallArgsEvent,
    ToolCallFieldEvent,
    ToolCallFieldEndEvent,
    ToolCallEndEvent,
    FinishEvent,
    ErrorEvent,
]
