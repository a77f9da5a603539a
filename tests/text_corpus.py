"""The text corpus of the print tests: every lit input and example, split at `// -----`.

Also a script: `python tests/text_corpus.py --write FILE` records, for every chunk (keyed by
the SHA-256 of its text), whether it parses and the SHA-256 of its custom and generic prints,
with whatever gedialects is on PYTHONPATH. `tests/data/text_corpus_main.json` was written that
way from main's code before the fast text paths (`PYTHONPATH=<checkout of main>`), so
`tests/test_fast_text.py` can check that today's printer writes the same bytes. Uses only APIs
that both versions have.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.ir import Operation

ROOT = Path(__file__).resolve().parents[1]
SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)


def corpus_files() -> list[Path]:
    files = sorted((ROOT / "tests" / "lit").rglob("*.mlir")) + sorted(
        (ROOT / "examples").glob("*.mlir")
    )
    return [f for f in files if "Output" not in f.parts]


def chunks() -> Iterator[tuple[str, str]]:
    """(`path#index`, text) of every chunk of every corpus file."""
    for path in corpus_files():
        for i, text in enumerate(SPLIT.split(path.read_text())):
            yield f"{path.relative_to(ROOT)}#{i}", text


def parse(text: str, name: str = "<corpus>") -> object:
    from xdsl.parser import Parser

    from gedialects import make_context

    return Parser(make_context(), text, name).parse_module()


def our_ops() -> Iterator[tuple[str, Operation]]:
    """(`path#index`, op) of every op of our dialects in the chunks that parse (a negative
    parse test has nothing to verify)."""
    from xdsl.dialects.builtin import ModuleOp

    from gedialects import DIALECTS

    ours = tuple(f"{name}." for name in DIALECTS)
    for where, text in chunks():
        try:
            module = parse(text, where)
        except Exception:
            continue
        assert isinstance(module, ModuleOp)
        for op in module.walk():
            if op.name.startswith(ours):
                yield where, op


def printed(module: object, generic: bool = False) -> str:
    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)  # type: ignore[arg-type]
    return out.getvalue()


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def record() -> dict[str, dict[str, str | bool]]:
    """Per chunk, keyed by the digest of its text (so that lit files may change later without
    invalidating the other entries): whether it parses and the digests of both prints."""
    out: dict[str, dict[str, str | bool]] = {}
    for _, text in chunks():
        key = digest(text)
        try:
            module = parse(text)
        except Exception:  # any failure to parse is what is recorded
            out[key] = {"parses": False}
            continue
        out[key] = {
            "parses": True,
            "custom": digest(printed(module)),
            "generic": digest(printed(module, generic=True)),
        }
    return out


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", type=Path, required=True, help="JSON file to write")
    args = p.parse_args()
    args.write.parent.mkdir(parents=True, exist_ok=True)
    args.write.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
