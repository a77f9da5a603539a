"""Known finding classes, open until the helper of issue 13 that owns them lands the fix.

Each open class names its owner and its regression folder under tests/fuzz/regressions/
(a strict xfail in test_fuzz_regressions.py: the day the fix lands it XPASSes, the suite turns
red, and the entry is deleted here, so the generated corpora must then pass that class too).
The bounded run and `make fuzz` count findings of an open class instead of failing on them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tests.fuzz.corpora import has_unterminated_string
from tests.fuzz.harness import Case, Finding


def _unterminated(f: Finding) -> bool:
    return any(
        name.endswith(".mlir") and has_unterminated_string(data.decode("utf-8", "replace"))
        for name, data in f.case.files.items()
    )


@dataclass(frozen=True)
class Known:
    id: str
    owner: str
    """The helper whose part fixes it (text, binary, exec, kernels, compile, cflow)."""
    what: str
    classes: tuple[str, ...]
    text: str = ""
    """Regex on stderr + the finding's detail (empty: any)."""
    note: str = ""
    """Regex on how the input was made (empty: any)."""
    family: str = ""
    predicate: Callable[[Finding], bool] | None = None

    def matches(self, f: Finding) -> bool:
        if f.cls not in self.classes:
            return False
        if self.predicate is not None and not self.predicate(f):
            return False
        if self.family and f.case.family != self.family:
            return False
        if self.text and not re.search(self.text, f.outcome.stderr + "\n" + f.detail):
            return False
        return not (self.note and not re.search(self.note, f.case.note))


OPEN: tuple[Known, ...] = ()

BY_ID = {k.id: k for k in OPEN}


def classify(f: Finding) -> Known | None:
    return next((k for k in OPEN if k.matches(f)), None)


def too_slow_for_bounded(case: Case) -> bool:
    """Inputs of open classes that cost a whole timeout each: kept to `make fuzz`."""
    return "npz-bomb" in BY_ID and case.note == "bomb"
