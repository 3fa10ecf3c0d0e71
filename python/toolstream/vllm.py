"""vLLM tool-parser plugin: ``toolstream-<format>`` for every raw-text format.

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin "$(python -c "import importlib.util as u; print(u.find_spec('toolstream.vllm_plugin').origin)")" \\
        --tool-call-parser toolstream-hermes

``--tool-parser-plugin`` takes a file path: vLLM's ``ToolParserManager.import_tool_parser``
imports the file by its path (``import_from_path``), so a module name such as
``toolstream.vllm`` is logged as a failure and skipped. ``toolstream/vllm_plugin.py`` is that
file; the command above prints its path without importing vLLM.

Streaming is engine-based (``engine_based_streaming = True``): each ``delta_text`` is fed
once to a toolstream parser, nothing is re-parsed, and ``finish_streaming()`` flushes what
the parser still holds at the end of the output. The first delta of a call carries its id
(unique: ``chatcmpl-tool-<uuid4 hex>``), ``type`` and name; later deltas carry argument
text. Text goes to ``content``, reasoning to ``reasoning``.

Checks while the arguments stream: ``TOOLSTREAM_VALIDATE=1`` in the server's environment
checks each call's arguments against its tool's JSON Schema from the request
(``validate=True``), ``TOOLSTREAM_MAX_REPEATS=N`` stops a runaway loop (``max_repeats=N``);
or ``register(validate=True, max_repeats=N)`` / ``parser_class(fmt, validate=True)`` from
code. vLLM cannot cancel a request from a tool parser, nor take back a delta already sent:
a call that breaks streams no delta past the one that broke it, its error (``kind``
``schema_violation`` with ``path``, or ``repetition``; ``index``, ``message`` naming the
keyword, ``raw``) is logged as a warning and kept in the parser's ``toolstream_errors`` and
``toolstream_stopped``. In a whole output (``extract_tool_calls``) such a call is not
returned as a tool call: its text up to the break goes back into the content.

Importing this module registers the parsers with vLLM's ``ToolParserManager``; it imports
vLLM (not torch itself).
"""

from __future__ import annotations

import importlib
import json
import uuid
from typing import Any, Dict, List, Optional, Sequence

from ._adapter import Step, Tracker, new_parser, options_from_env, parse_whole, text_formats

try:
    from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager
except ImportError:  # vLLM before the tool_parsers move
    from vllm.entrypoints.openai.tool_parsers.abstract_tool_parser import (  # type: ignore
        ToolParser,
        ToolParserManager,
    )


def _protocol() -> Any:
    """The module holding vLLM's message types (it moved between versions)."""
    for name in (
        "vllm.entrypoints.generate.base.protocol",
        "vllm.entrypoints.openai.engine.protocol",
        "vllm.entrypoints.openai.protocol",
    ):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(mod, "DeltaMessage") and hasattr(mod, "DeltaToolCall"):
            return mod
    raise ImportError("toolstream.vllm: vLLM's DeltaMessage / DeltaToolCall not found")


_p = _protocol()
DeltaMessage = _p.DeltaMessage
DeltaToolCall = _p.DeltaToolCall
DeltaFunctionCall = _p.DeltaFunctionCall
ExtractedToolCallInformation = _p.ExtractedToolCallInformation
ToolCall = _p.ToolCall
FunctionCall = _p.FunctionCall


def new_call_id() -> str:
    """A call id unique across requests, in vLLM's default (``random``) style."""
    return f"chatcmpl-tool-{uuid.uuid4().hex}"


class ToolstreamToolParser(ToolParser):
    """Base of the ``toolstream-<format>`` parsers; subclasses set ``format``.
    ``options`` are extra ``toolstream.Parser`` keyword arguments (limits, ``validate``,
    ``max_repeats``, ...); the request's tools are the ``tools`` of every parser."""

    format: str = "auto"
    options: Dict[str, Any] = {}
    engine_based_streaming = True
    # The serving layer's generic JSON path for tool_choice="required" / named does not
    # know these syntaxes: route those through this parser too.
    supports_required_and_named = False

    def __init__(self, tokenizer: Any, tools: Optional[List[Any]] = None, *args: Any, **kwargs: Any):
        try:
            super().__init__(tokenizer, tools)
        except TypeError:  # vLLM versions whose ToolParser takes only the tokenizer
            super().__init__(tokenizer)
        self._request_tools = tools
        self._parser: Any = None
        self._tracker = Tracker(self)
        self._ids: Dict[int, str] = {}

    # -- streaming ---------------------------------------------------------------------

    def _stream_parser(self, request: Any) -> Any:
        if self._parser is None:
            tools = self._request_tools or getattr(request, "tools", None)
            self._parser = new_parser(self.format, tools, self.options)
        return self._parser

    def _message(self, step: Step) -> Optional[Any]:
        # One validation per message: the nested calls go in as plain dicts, which pydantic
        # validates into DeltaToolCall / DeltaFunctionCall in the same pass.
        calls = []
        for c in step.calls:
            if c.name is not None:
                call_id = self._ids.setdefault(c.index, new_call_id())
                calls.append({"index": c.index, "id": call_id, "type": "function",
                              "function": {"name": c.name, "arguments": c.arguments}})
            else:
                calls.append({"index": c.index, "function": {"arguments": c.arguments}})
        if not (step.content or step.reasoning or calls):
            return None
        fields: Dict[str, Any] = {"tool_calls": calls}
        if step.content:
            fields["content"] = step.content
        if step.reasoning:
            fields["reasoning"] = step.reasoning
        return DeltaMessage(**fields)

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Optional[Any]:
        """Feeds ``delta_text`` (only: the accumulated text is never looked at again)."""
        parser = self._stream_parser(request)
        if parser.finished or not delta_text:
            return None
        return self._message(self._tracker.step(parser.feed(delta_text)))

    def finish_streaming(self) -> Optional[Any]:
        """End of the output: text held back while it might have started a call, and a
        call cut off mid-arguments (its error is logged; its streamed part stays)."""
        if self._parser is None or self._parser.finished:
            return None
        return self._message(self._tracker.step(self._parser.finish(), final=True))

    # -- whole output --------------------------------------------------------------------

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        """One-shot parse of a complete output (a fresh parser; the stream is untouched)."""
        tools = self._request_tools or getattr(request, "tools", None)
        content, reasoning, calls = parse_whole(self.format, model_output, tools, self.options, self)
        tool_calls = [
            ToolCall(
                id=new_call_id(),
                type="function",
                function=FunctionCall(
                    name=c.name, arguments=json.dumps(c.arguments, ensure_ascii=False)
                ),
            )
            for c in calls
        ]
        # ExtractedToolCallInformation has no reasoning field: vLLM's reasoning parser has
        # normally removed reasoning before the tool parser runs; what remains is content.
        text = reasoning + content
        return ExtractedToolCallInformation(
            tools_called=bool(tool_calls), tool_calls=tool_calls, content=text or None
        )


def parser_class(fmt: str, **options: Any) -> type:
    """A ``ToolParser`` subclass for toolstream format ``fmt`` (``options`` go to every
    ``toolstream.Parser`` it makes)."""
    name = "Toolstream" + "".join(p.capitalize() for p in fmt.split("-")) + "ToolParser"
    return type(name, (ToolstreamToolParser,), {"format": fmt, "options": dict(options)})


def register(**options: Any) -> List[str]:
    """Registers ``toolstream-<format>`` for every raw-text format (done on import, with the
    checks the environment turns on: ``TOOLSTREAM_VALIDATE``, ``TOOLSTREAM_MAX_REPEATS``).
    ``options`` (``validate=True``, ``max_repeats=N``, limits) go to every parser, over
    the environment's."""
    options = {**options_from_env(), **options}
    names = []
    for fmt in text_formats():
        cls = parser_class(fmt, **options)
        globals()[cls.__name__] = cls
        ToolParserManager.register_module(name=f"toolstream-{fmt}", module=cls)
        names.append(f"toolstream-{fmt}")
    return names


REGISTERED = register()
