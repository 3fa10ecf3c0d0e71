import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, TypedDict, Union

from .events import Event

__version__: str

class ToolstreamError(ValueError):
    """A bad argument (unknown format or framing, unreadable tools, negative limit, an event
    dict the emitters cannot read) or a parser fed after ``finish()``."""

class FormatInfo(TypedDict):
    name: str
    description: str
    framing: str

class ResponseMeta(TypedDict):
    """What a response said about itself (``Parser.response_meta``)."""

    id: Optional[str]
    model: Optional[str]
    created: Optional[int]

Chunk = Union[bytes, bytearray, memoryview, str]
"""What ``Parser.feed`` takes: bytes, bytearray, memoryview (or any buffer), or str (UTF-8)."""

ToolsArg = Union[str, bytes, Sequence[Any], Dict[str, Any]]
"""A list of tool definitions, a request dict with a ``"tools"`` list, or the JSON text of
either."""

class Parser:
    """A streaming parser for one response: ``feed(chunk)`` as bytes arrive, then
    ``finish()``. Both return the events they complete, as dicts shaped like the CLI's JSON
    lines. ``Parser("auto")`` without ``framing=`` detects a provider's stream from its
    first bytes (held until they tell, at most 64 KiB), as :func:`detect` does; anything
    else is raw model text. Each keyword option is the Rust ``ParserConfig`` setter of the same name
    (``unique_ids=True`` is ``id_prefix(IdPrefix::Unique)``); one left out keeps its
    default."""

    def __init__(
        self,
        format: Optional[str] = None,
        *,
        syntax: Optional[Union[str, bytes, os.PathLike[str], Dict[str, Any]]] = None,
        framing: Optional[str] = None,
        tools: Optional[ToolsArg] = None,
        reasoning_open: bool = False,
        field_events: bool = False,
        content_format: Optional[str] = None,
        tool_names: Optional[Sequence[str]] = None,
        calls_at_start_only: bool = False,
        reasoning_tags: Optional[Sequence[Tuple[str, str]]] = None,
        max_argument_bytes: Optional[int] = None,
        max_calls: Optional[int] = None,
        max_held_bytes: Optional[int] = None,
        max_line_bytes: Optional[int] = None,
        max_depth: Optional[int] = None,
        max_repeats: Optional[int] = None,
        validate: bool = False,
        reject_undeclared: bool = True,
        id_prefix: Optional[str] = None,
        unique_ids: bool = False,
        calls_in_reasoning: bool = False,
    ) -> None: ...
    def feed(self, data: Chunk) -> List[Event]:
        """Feeds the next bytes of the response; returns the events they complete."""
    def finish(self) -> List[Event]:
        """Ends the input: what is still open (a call cut off, held-back text) and the final
        events. The parser cannot be fed afterwards."""
    @property
    def format(self) -> str:
        """The format's CLI name (``auto`` for a parser made with ``syntax=``)."""
    @property
    def syntax(self) -> Optional[str]:
        """The name of the syntax a parser made with ``syntax=`` reads (a spec: a dict, its
        JSON text, or a path to the file; see ``toolstream spec NAME``); ``None`` for a
        format's parser."""
    @property
    def framing(self) -> str:
        """The framing in use (the detected one once ``auto`` has decided)."""
    @property
    def response_meta(self) -> ResponseMeta:
        """The provider's response id, model and creation time, where its format sends
        them; each ``None`` until seen."""
    @property
    def bytes_fed(self) -> int:
        """Input bytes fed so far."""
    @property
    def retained_bytes(self) -> int:
        """Bytes the parser holds right now (bounded by the limits)."""
    @property
    def finished(self) -> bool:
        """Whether ``finish()`` was called."""

class OpenAiChatEmitter:
    """Writes events as an OpenAI Chat Completions stream (``chat.completion.chunk`` SSE
    text ending in ``data: [DONE]``)."""

    def __init__(
        self,
        *,
        id: Optional[str] = None,
        model: Optional[str] = None,
        created: Optional[int] = None,
        include_usage: bool = False,
    ) -> None:
        """``include_usage``: usage in a chunk of its own with ``"choices": []`` (OpenAI's
        ``stream_options.include_usage``); by default it rides on the finish chunk."""
    def response_meta(self, meta: Union[Parser, ResponseMeta, Dict[str, Any]]) -> None:
        """Passes on the provider's id, model and creation time (until the first chunk)."""
    def event(self, event: Event) -> str:
        """The SSE text for one event."""
    def events(self, events: Iterable[Event]) -> str:
        """The SSE text for a batch of events."""
    def finish(self) -> str:
        """The closing chunk (if no ``finish`` event came) and ``data: [DONE]``."""
    @property
    def done(self) -> bool:
        """Whether ``data: [DONE]`` has been written."""

AgUiEvent = Dict[str, Any]
"""One AG-UI event as the protocol's JSON: ``{"type": "TOOL_CALL_START", "toolCallId": ...}``."""

class AgUiEmitter:
    """Turns events into AG-UI events (``RUN_STARTED``, ``TEXT_MESSAGE_*``,
    ``TOOL_CALL_*``, ``RUN_FINISHED`` / ``RUN_ERROR``, ...)."""

    def __init__(
        self, *, thread_id: Optional[str] = None, run_id: Optional[str] = None
    ) -> None: ...
    def event(self, event: Event) -> List[AgUiEvent]:
        """The AG-UI events for one event."""
    def events(self, events: Iterable[Event]) -> List[AgUiEvent]:
        """The AG-UI events for a batch of events."""
    def events_sse(self, events: Iterable[Event]) -> str:
        """``events``, as SSE text (``data: {json}`` per AG-UI event)."""
    def finish(self) -> List[AgUiEvent]:
        """Closes open messages and calls, then ``RUN_FINISHED`` (unless ``RUN_ERROR``
        ended the run)."""
    def finish_sse(self) -> str:
        """``finish``, as SSE text."""
    @property
    def over(self) -> bool:
        """Whether ``RUN_FINISHED`` or ``RUN_ERROR`` has been emitted."""

class PartialValue:
    """The best-effort value of a call's arguments while they stream, updated in place as
    each ``tool_call_args`` delta is pushed."""

    def __init__(self, *, max_depth: Optional[int] = None) -> None: ...
    def push(self, delta: str) -> None:
        """Consumes the next piece of the JSON text."""
    def finish(self) -> None:
        """End of input: a top-level number closes."""
    @property
    def value(self) -> Any:
        """The current value (``None`` before it starts); converted on each read."""
    def get(self, pointer: str) -> Any:
        """The value at a JSON Pointer; ``KeyError`` when nothing is there yet."""
    def take_touched(self) -> List[str]:
        """JSON Pointers of the values created or changed since the last call."""
    @property
    def complete(self) -> bool:
        """Whether the top-level value has closed."""
    @property
    def failed(self) -> bool:
        """Whether the input turned out not to be JSON."""
    @property
    def open_number(self) -> Optional[int]:
        """Where a number still being received starts, if the input ends inside one."""

def formats() -> List[str]:
    """Every format name, in the order ``toolstream formats`` lists them."""

def detect(data: Chunk) -> Optional[str]:
    """The format of a response body from its first bytes, as ``toolstream parse`` detects
    it: a provider's format name, ``"auto"`` for raw model text, or ``None`` for an SSE
    stream whose payloads name no format."""

def format_info() -> List[FormatInfo]:
    """One dict per format: ``name``, ``description``, ``framing`` (its default)."""
