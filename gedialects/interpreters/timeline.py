"""The simulated timeline of an ascend model run: Chrome trace and profile summary.

The interpreter fills a `Timeline` when asked to time a run (`execute_model(..., timing=True)`):
every executed task gets a start and a duration from `cost_model`, streams advance their own
clocks concurrently, an `event_wait` starts no earlier than the `event_record` it consumes and
a stream a `stream_active` starts no earlier than the end of that task. The critical path is
the same run with unlimited streams and free synchronisation: each task starts when the tasks
that last wrote the bytes it reads finished (and, inside a control span, after the switch or
label before it; on an activated stream, after the `stream_active` that started it); an
`end_graph` ends it after its stream's other tasks (every schedule runs it last there).
Makespan >= critical path; their ratio is what stream assignment loses to stream limits, event
latency and false (memory reuse) dependencies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TaskSpan:
    stream: int
    index: int
    """The task's index in its stream's task list."""
    name: str
    category: str
    engine: str
    start: float
    duration: float

    @property
    def end(self) -> float:
        return self.start + self.duration


@dataclass
class Timeline:
    model: str
    stream_engines: dict[int, str]
    spans: list[TaskSpan] = field(default_factory=list)
    makespan: float = 0.0
    critical_path: float = 0.0
    crossing_path: float = 0.0
    """The critical path with a record and a wait on every edge between two engines, which
    any assignment pays when streams never mix engines (GE's rule): a tighter lower bound.
    The same as `critical_path` for a model with a stream running another engine's kernels."""

    def busy_per_stream(self) -> dict[int, tuple[float, int]]:
        busy = {s: (0.0, 0) for s in self.stream_engines}
        for span in self.spans:
            total, count = busy[span.stream]
            busy[span.stream] = (total + span.duration, count + 1)
        return busy

    def busy_per_engine(self) -> dict[str, tuple[float, int]]:
        busy: dict[str, tuple[float, int]] = {}
        for span in self.spans:
            total, count = busy.get(span.engine, (0.0, 0))
            busy[span.engine] = (total + span.duration, count + 1)
        return dict(sorted(busy.items()))

    def chrome_trace(self) -> dict:
        """Chrome trace-event JSON (Perfetto, chrome://tracing): one track per stream."""
        pid = 1
        events: list[dict] = [
            {
                "name": "process_name",
                "ph": "M",
                "pid": pid,
                "tid": 0,
                "args": {"name": f"ascend.model @{self.model}"},
            }
        ]
        for stream, engine in sorted(self.stream_engines.items()):
            events.append(
                {
                    "name": "thread_name",
                    "ph": "M",
                    "pid": pid,
                    "tid": stream,
                    "args": {"name": f"stream {stream} ({engine})"},
                }
            )
            events.append(
                {
                    "name": "thread_sort_index",
                    "ph": "M",
                    "pid": pid,
                    "tid": stream,
                    "args": {"sort_index": stream},
                }
            )
        for span in self.spans:
            # Start and end are rounded (to ns), the duration is their difference: rounding
            # start and duration apart let a slice overlap the next on its stream by 0.001 us.
            start = round(span.start, 3)
            events.append(
                {
                    "name": span.name,
                    "cat": span.category,
                    "ph": "X",
                    "ts": start,
                    "dur": round(round(span.end, 3) - start, 3),
                    "pid": pid,
                    "tid": span.stream,
                    "args": {"engine": span.engine, "task": span.index},
                }
            )
        return {
            "traceEvents": events,
            "displayTimeUnit": "ns",
            "otherData": {
                "model": self.model,
                "makespan_us": round(self.makespan, 3),
                "critical_path_us": round(self.critical_path, 3),
                "crossing_path_us": round(self.crossing_path, 3),
                "clock": "simulated (gedialects.target.cost_model)",
            },
        }

    def write_chrome_trace(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(self.chrome_trace(), f, indent=None, separators=(",", ":"))
            f.write("\n")

    def profile(self) -> str:
        """A per-engine and per-stream busy-time table with makespan and critical path."""
        span = self.makespan or 1.0
        ratio = self.makespan / self.critical_path if self.critical_path else 1.0
        lines = [
            f"profile @{self.model} (simulated time, us)",
            f"  makespan          {self.makespan:12.3f}",
            f"  critical path     {self.critical_path:12.3f}  (makespan / critical path "
            f"{ratio:.3f})",
        ]
        if self.crossing_path > self.critical_path:
            priced = self.makespan / self.crossing_path
            lines.append(
                f"  with crossings    {self.crossing_path:12.3f}  (engine crossings priced; "
                f"makespan / it {priced:.3f})"
            )
        for engine, (busy, count) in self.busy_per_engine().items():
            lines.append(
                f"  engine {engine:<18} busy {busy:12.3f} ({100 * busy / span:5.1f}%) {count} tasks"
            )
        for stream, (busy, count) in sorted(self.busy_per_stream().items()):
            label = f"{stream} ({self.stream_engines[stream]})"
            lines.append(
                f"  stream {label:<18} busy {busy:12.3f} ({100 * busy / span:5.1f}%) {count} tasks"
            )
        return "\n".join(lines)
