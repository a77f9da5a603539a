"""Progress bars for long work (imports, compiles, runs), on a terminal's stderr only.

Work that may take long opens a `task`; the bar appears only once the task has run for
`GE_PROGRESS_DELAY` seconds (default 2), so short work prints nothing, and only when
progress is enabled and stderr is a terminal. The tools enable it unless `-q` is given
(`gedialects.tools.cli.configure_output`); a library user calls `enable()` (a library draws
nothing on stderr unasked).

    with progress.task("importing model.onnx", total=len(nodes), unit="nodes") as bar:
        for node in nodes:
            convert(node)
            bar.advance()

The bar is `rich`'s, imported only when one is about to be drawn: `ge-opt` start-up does not
pay for it. Tasks nest: an inner task (the ONNX import inside `ge-atc`'s compile) is silent
while an outer one is shown, so one bar is on screen at a time. Logging is separate: every
module logs to `logging.getLogger(__name__)` under `gedialects`, and the tools' `-v`/`-q` set
its level.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType
from typing import Any

DEFAULT_DELAY = 2.0
"""Seconds a task runs before its bar appears ("more than a couple of seconds")."""
REFRESH = 0.1
"""Seconds between two updates pushed to a shown bar (the node loop advances per node)."""

_enabled = False
_active: Task | None = None


def enable(on: bool = True) -> None:
    """Turns progress bars on (or off) for this process; they still need stderr to be a
    terminal."""
    global _enabled
    _enabled = on


def enabled() -> bool:
    """Whether a task started now may draw: enabled, and stderr is a terminal."""
    if not _enabled:
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def delay() -> float:
    """`GE_PROGRESS_DELAY` in seconds (default 2; a bad value is the default)."""
    text = os.environ.get("GE_PROGRESS_DELAY", "")
    try:
        value = float(text) if text.strip() else DEFAULT_DELAY
    except ValueError:
        return DEFAULT_DELAY
    return value if value >= 0 else DEFAULT_DELAY


class Task:
    """One long piece of work; a bar after `delay()` seconds (a spinner when `total` is
    None). `advance` and `step` are cheap (a counter) until the bar is shown."""

    def __init__(self, what: str, total: int | None = None, unit: str = "") -> None:
        self.what = what
        self.total = total
        self.unit = unit
        self.done = 0
        self.detail = ""
        self.drawn = False
        """Whether the bar was shown at some point (tests read it)."""
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._progress: Any = None
        self._task_id: Any = None
        self._pushed = 0.0
        self._closed = False
        self._silent = True

    def __enter__(self) -> Task:
        global _active
        if _active is None and enabled():
            _active = self
            self._silent = False
            wait = delay()
            if wait == 0:  # at once, on this thread: a timer thread may start after the work
                self._show()
            else:
                self._timer = threading.Timer(wait, self._show)
                self._timer.daemon = True
                self._timer.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        global _active
        if self._silent:
            return
        _active = None
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._progress is not None:
                self._progress.stop()
                self._progress = None

    def advance(self, count: int = 1) -> None:
        """Counts `count` more units done (nodes, passes)."""
        self.done += count
        if self._progress is not None:
            self._push()

    def step(self, detail: str) -> None:
        """Names the part of the work now running (the pass of a pipeline)."""
        self.detail = detail
        if self._progress is not None:
            self._push(force=True)

    def _description(self) -> str:
        return f"{self.what}: {self.detail}" if self.detail else self.what

    def _push(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._pushed < REFRESH:
            return
        self._pushed = now
        with self._lock:
            if self._progress is not None:
                # a step (a new pass) is drawn now, not at rich's next refresh: the name of
                # a short pass would otherwise never reach the screen
                self._progress.update(
                    self._task_id,
                    completed=self.done,
                    description=self._description(),
                    refresh=force,
                )

    def _show(self) -> None:
        """Runs on the timer thread once the delay has passed: draws the bar."""
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        columns: list[Any] = [SpinnerColumn(), TextColumn("{task.description}")]
        if self.total is not None:
            columns += [BarColumn(), MofNCompleteColumn()]
            if self.unit:
                columns.append(TextColumn(self.unit))
        columns.append(TimeElapsedColumn())
        with self._lock:
            if self._closed:
                return
            # stdout is the tool's output: rich would print what is written to it through
            # its console, on stderr (only stderr's lines go above the bar)
            progress = Progress(
                *columns,
                console=Console(file=sys.stderr),
                transient=True,
                redirect_stdout=False,
            )
            self._task_id = progress.add_task(
                self._description(), total=self.total, completed=self.done
            )
            progress.start()
            self._progress = progress
            self.drawn = True


def task(what: str, total: int | None = None, unit: str = "") -> Task:
    """A progress task for `with`: see the module docstring."""
    return Task(what, total, unit)
