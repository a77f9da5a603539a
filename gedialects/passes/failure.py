"""A pass failure that names the op it failed on.

xDSL's `PassFailedException` carries only a message; the tools (`tools.diagnostics`) print
the location of the op a failure names (`file:line:col`, the source line, a caret), so a pass
that knows the culprit op raises `OpPassFailed` with it.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException


class OpPassFailed(PassFailedException):
    """A `PassFailedException` on `op`."""

    def __init__(self, message: str, op: Operation) -> None:
        super().__init__(message)
        self.op = op
