#!/usr/bin/env python3
"""Writes tests/spec/expected.json: what transformers' `parse_response` returns for every
case of tests/spec/cases.json (each a template of tests/spec/templates/ and a model
output). `tests/spec.rs` checks the events of `toolstream` against it.

Run it after changing a case or a template (transformers without torch is enough);
`--check` exits 1 when the file is not what transformers returns now (`tests/spec.rs` runs
it when `TOOLSTREAM_TRANSFORMERS_PYTHON` names a Python that has transformers):

    python -m venv /tmp/tf && /tmp/tf/bin/pip install --no-deps transformers && \
    /tmp/tf/bin/pip install regex packaging numpy huggingface_hub safetensors tokenizers tqdm typer pyyaml
    /tmp/tf/bin/python tests/spec/parse_response.py
"""

import json
import pathlib
import sys

import transformers
from transformers.utils.chat_parsing import parse_response

HERE = pathlib.Path(__file__).parent


def main() -> int:
    cases = json.loads((HERE / "cases.json").read_text(encoding="utf-8"))
    out = []
    for case in cases:
        template = json.loads((HERE / "templates" / f"{case['template']}.json").read_text(encoding="utf-8"))
        try:
            message = parse_response(case["input"], template, prefix="")
        except Exception as e:  # noqa: BLE001 - a failure is recorded, not hidden
            message = {"error": f"{type(e).__name__}: {e}"}
        out.append({**case, "message": message})
    doc = {"transformers": transformers.__version__, "cases": out}
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        # The cases and transformers' answers, whatever version wrote the file.
        written = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))
        if written["cases"] == out:
            return 0
        for old, new in zip(written["cases"], out):
            if old != new:
                print(f"differs: {new['template']} on {new['input']!r}:\n  file {old.get('message')}\n  now  {new['message']}")
        return 1
    (HERE / "expected.json").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
