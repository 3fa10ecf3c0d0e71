from typing import Any, List, Optional, Sequence, Tuple, TypedDict, Union

from .events import Event

__version__: str

class ToolstreamError(ValueError):
    """A bad argument (unknown format or framing, unreadable tools, negative limit) or a
    parser fed after ``finish()``."""

class FormatInfo(TypedDict):
    name: str
    description: str
    framing: str

class Parser:
    def __init__(
        self,
        format: str,
        *,
        framing: Optional[str] = None,
        tools: Optional[Union[str, Sequence[Any], dict]] = None,
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
        reject_undeclared: bool = True,
        id_prefix: Optional[str] = None,
        unique_ids: bool = False,
    ) -> None: ...
    def feed(self, data: Union[bytes, bytearray, str]) -> List[Event]: ...
    def finish(self) -> List[Event]: ...
    @property
    def format(self) -> str: ...
    @property
    def framing(self) -> str: ...
    @property
    def bytes_fed(self) -> int: ...
    @property
    def retained_bytes(self) -> int: ...
    @property
    def finished(self) -> bool: ...

def formats() -> List[str]: ...
def format_info() -> List[FormatInfo]: ...
