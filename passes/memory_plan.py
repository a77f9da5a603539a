"""Memory planning analysis: places tensor slots in the arena of an ascend model.

Plain data in, plain data out, kept apart from the lowering that materialises it, so that the
planner can be swapped (GE's reuse planners come later) and tested alone. The plan here is the
baseline one: every slot gets its own range (no reuse), weights first in the read-only weight
region, then graph inputs and outputs, then feature maps, each aligned to GE's 512 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType

from gedialects.base import tensor_nbytes

GE_ALIGNMENT = 512
"""GE aligns every memory block to 512 bytes (MEM_ALIGN_SIZE)."""


class SlotKind(Enum):
    WEIGHT = "weight"
    IO = "io"
    FEATURE = "feature"


@dataclass(eq=False)
class Slot:
    """One tensor's storage; weights carry their value."""

    type: TensorType
    kind: SlotKind
    value: DenseIntOrFPElementsAttr | None = None

    @property
    def nbytes(self) -> int:
        return tensor_nbytes(self.type)


@dataclass
class MemoryPlan:
    """Arena offsets of slots; `[0, weight_size)` is the weight region."""

    offsets: dict[Slot, int] = field(default_factory=dict)
    weight_size: int = 0
    arena_size: int = 0
    feature_bytes: int = 0
    """Bytes of feature-map slots, before alignment: the plan's payload (for stats)."""

    def offset(self, slot: Slot) -> int:
        return self.offsets[slot]


def align(n: int, alignment: int) -> int:
    return (n + alignment - 1) // alignment * alignment


def plan_without_reuse(slots: list[Slot], alignment: int = GE_ALIGNMENT) -> MemoryPlan:
    """Gives each slot its own aligned range: weights, then I/O, then feature maps."""
    plan = MemoryPlan()
    cursor = 0
    for kind in (SlotKind.WEIGHT, SlotKind.IO, SlotKind.FEATURE):
        for slot in slots:
            if slot.kind is not kind:
                continue
            plan.offsets[slot] = cursor
            cursor += align(max(slot.nbytes, 1), alignment)
            if kind is SlotKind.FEATURE:
                plan.feature_bytes += slot.nbytes
        if kind is SlotKind.WEIGHT:
            plan.weight_size = cursor
    plan.arena_size = cursor
    return plan
