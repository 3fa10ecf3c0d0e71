"""SGLang function-call detectors backed by toolstream.

``ToolstreamDetector`` has SGLang's ``BaseFormatDetector`` interface
(``parse_streaming_increment``, ``detect_and_parse``, ``has_tool_call``, ``finish``) and
returns its ``StreamingParseResult`` / ``ToolCallItem``. ``register()`` adds
``toolstream-<format>`` for every raw-text format to
``FunctionCallParser.ToolCallParserEnum``, so ``--tool-call-parser toolstream-hermes``
selects it (call ``register()`` in the server process before the server parses its
arguments, e.g. from a ``sitecustomize`` or a launcher script).

Each increment is fed once to a toolstream parser; nothing is re-parsed. Streaming items
follow SGLang's convention: a call's first item has ``name`` and empty ``parameters``
(merged with the first argument text when both arrive in one increment), later items
``name=None`` and argument text; ``tool_index`` is the call's ordinal in the response.
Reasoning text that reaches the detector (normally SGLang's reasoning parser has removed it)
is returned as normal text, so nothing is lost.

Checks while the arguments stream: ``register(validate=True, max_repeats=N)`` (or
``TOOLSTREAM_VALIDATE=1`` / ``TOOLSTREAM_MAX_REPEATS=N`` in the environment) checks each
call's arguments against its tool's JSON Schema from the request's ``tools`` and stops a
runaway loop. A detector cannot cancel the request nor take back an item already returned:
a call that breaks returns no item past the one that broke it; its error (``kind``
``schema_violation`` with ``path``, or ``repetition``; ``index``, ``message`` naming the
keyword, ``raw``) is logged as a warning and kept in the detector's ``toolstream_errors``
and ``toolstream_stopped``. In a whole output (``detect_and_parse``) such a call is not
returned: its text up to the break goes back into ``normal_text``.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, StructureInfo, ToolCallItem

from ._adapter import Step, Tracker, new_parser, options_from_env, parse_whole, text_formats


class ToolstreamDetector(BaseFormatDetector):
    """Base of the ``toolstream-<format>`` detectors; subclasses set ``format``.
    ``options`` are extra ``toolstream.Parser`` keyword arguments (limits, ``validate``,
    ``max_repeats``, ...); the request's tools are the ``tools`` of every parser."""

    format: str = "auto"
    options: Dict[str, Any] = {}

    def __init__(self) -> None:
        super().__init__()
        self._parser: Any = None
        self._tracker = Tracker(self)

    def _result(self, step: Step) -> StreamingParseResult:
        calls = [
            ToolCallItem(tool_index=c.index, name=c.name, parameters=c.arguments) for c in step.calls
        ]
        return StreamingParseResult(normal_text=step.reasoning + step.content, calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: List[Any]) -> StreamingParseResult:
        """Feeds ``new_text`` once; returns the text and call deltas it completes."""
        if self._parser is None:
            self._parser = new_parser(self.format, tools, self.options)
        if self._parser.finished or not new_text:
            return StreamingParseResult()
        return self._result(self._tracker.step(self._parser.feed(new_text)))

    def finish(self, tools: List[Any]) -> StreamingParseResult:
        """End of the stream: releases held-back text; a call cut off is logged."""
        if self._parser is None or self._parser.finished:
            return StreamingParseResult()
        return self._result(self._tracker.step(self._parser.finish(), final=True))

    def detect_and_parse(self, text: str, tools: List[Any]) -> StreamingParseResult:
        """One-shot parse with a fresh parser. ``tool_index`` is the tool's position in
        ``tools`` (-1 when undeclared), as in SGLang's ``parse_base_json``; calls to
        undeclared tools are kept."""
        content, reasoning, calls = parse_whole(self.format, text, tools, self.options, self)
        positions = {
            getattr(getattr(t, "function", None), "name", None): i for i, t in enumerate(tools or [])
        }
        items = [
            ToolCallItem(
                tool_index=positions.get(c.name, -1),
                name=c.name,
                parameters=json.dumps(c.arguments, ensure_ascii=False),
            )
            for c in calls
        ]
        return StreamingParseResult(normal_text=reasoning + content, calls=items)

    def has_tool_call(self, text: str) -> bool:
        """Whether ``text`` holds at least the start of a call (a one-shot scan)."""
        parser = new_parser(self.format, None, self.options)
        return any(
            e["type"] == "tool_call_start" or (e["type"] == "error" and "index" in e)
            for e in parser.feed(text) + parser.finish()
        )

    def supports_structural_tag(self) -> bool:
        """No constrained-decoding structure: the syntax is the model's own."""
        return False

    @classmethod
    def parses_without_tools(cls) -> bool:
        """Calls are parsed (and so never left in the text) even with no declared tools."""
        return True

    def structure_info(self) -> Any:
        """Not used (``supports_structural_tag()`` is False); present for the interface."""

        def info(name: str) -> StructureInfo:
            raise NotImplementedError("toolstream detectors have no structural tag")

        return info


def detector_class(fmt: str, **options: Any) -> type:
    """A detector class for toolstream format ``fmt``."""
    name = "Toolstream" + "".join(p.capitalize() for p in fmt.split("-")) + "Detector"
    return type(name, (ToolstreamDetector,), {"format": fmt, "options": dict(options)})


def register(enum: Any = None, **options: Any) -> List[str]:
    """Adds ``toolstream-<format>`` for every raw-text format to SGLang's
    ``FunctionCallParser.ToolCallParserEnum`` (or the mapping given) and to the
    ``--tool-call-parser`` choices (``parser_names.TOOL_CALL_PARSER_NAMES``). ``options``
    (``validate=True``, ``max_repeats=N``, limits) go to every detector, over those the
    environment turns on (``TOOLSTREAM_VALIDATE``, ``TOOLSTREAM_MAX_REPEATS``)."""
    options = {**options_from_env(), **options}
    if enum is None:
        from sglang.srt.function_call.function_call_parser import FunctionCallParser

        enum = FunctionCallParser.ToolCallParserEnum
    try:
        from sglang.srt.function_call.parser_names import TOOL_CALL_PARSER_NAMES
    except ImportError:  # SGLang versions without the list
        TOOL_CALL_PARSER_NAMES = []
    names = []
    for fmt in text_formats():
        name = f"toolstream-{fmt}"
        enum[name] = detector_class(fmt, **options)
        if name not in TOOL_CALL_PARSER_NAMES:
            TOOL_CALL_PARSER_NAMES.append(name)
        names.append(name)
    return names
