"""File-path entry for ``--tool-parser-plugin`` on vLLM versions that import plugins by
path only: importing it registers the ``toolstream-<format>`` tool parsers."""

from toolstream.vllm import REGISTERED  # noqa: F401  (registers on import)
