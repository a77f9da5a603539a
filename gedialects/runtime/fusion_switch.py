"""GE's fusion switch file (`ge.fusionSwitchFile`, atc `--fusion_switch_file`): which graph
fusions `ge-compile` runs.

The file is GE's JSON: `{"Switch": {"GraphFusion": {"ALL": "off", "<name>": "on"},
"UBFusion": {...}}}`; a named entry overrides `ALL`. The names are `ge-fuse`'s fusion kinds
(`mul-add`, `conv-bn`, ...: `gedialects.passes.fusion.fuse.FUSIONS`); UB fusion (buffer
fusion at kernel build) has no counterpart here, so its section is accepted and has no
effect. The result maps onto `ge-compile{fusion disable-fusion}`.
"""

from __future__ import annotations

import json
from pathlib import Path


class FusionSwitchError(ValueError):
    """A fusion switch file that cannot be read or names an unknown fusion (one line)."""


def read_fusion_switch(path: str) -> tuple[bool, tuple[str, ...]]:
    """(fusion on at all, the kinds switched off) from the file at `path`."""
    from gedialects.passes.fusion.fuse import FUSIONS

    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise FusionSwitchError(f"cannot read fusion switch file {path}: {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise FusionSwitchError(f"{path}: not a JSON fusion switch file: {e}") from None
    switch = data.get("Switch") if isinstance(data, dict) else None
    if not isinstance(switch, dict):
        raise FusionSwitchError(f'{path}: expected {{"Switch": {{"GraphFusion": {{...}}}}}}')
    graph = switch.get("GraphFusion", {})
    if not isinstance(graph, dict):
        raise FusionSwitchError(f"{path}: Switch.GraphFusion must be an object")
    states: dict[str, bool] = {}
    for name, value in graph.items():
        if value not in ("on", "off"):
            raise FusionSwitchError(
                f'{path}: GraphFusion "{name}" must be "on" or "off", got {json.dumps(value)}'
            )
        if name != "ALL" and name not in FUSIONS:
            raise FusionSwitchError(
                f'{path}: unknown graph fusion "{name}" (known: ALL, {", ".join(FUSIONS)})'
            )
        states[name] = value == "on"
    default = states.pop("ALL", True)
    off = tuple(k for k in FUSIONS if not states.get(k, default))
    return len(off) < len(FUSIONS), off
