"""GE's data-flow ops: `graph.stack` (Stack), `graph.stack_push` (StackPush), `graph.stack_pop`
(StackPop) and `graph.stack_close` (StackClose).

A Stack creates a stack resource each time it runs and returns its handle, a scalar
`tensor<i64>` (GE's DT_RESOURCE); the other three act on the stack behind the handle they
take: push stores a copy of its element and returns it, pop removes the top and returns it
(popping an empty stack is a run-time error), close drops the stack. The stack lives for one
run (TF's and GE's per-step resource), so nothing is kept across runs; the ops act in the
order the graph runs them, which is the block order (the ops have effects: they are not
`Pure`, so no pass folds, merges or drops them). A handle is fed by a `graph.stack`, or by a
subgraph input whose caller passes one, possibly through `graph.identity` (GE's pass-through
RefIdentity; `ge-partition-dynamic-shape` follows a handle back through both, as GE's
`DataFlowPreparePass::GetResourceInputNode` does).

Passes keep data dependences, not block order: two ops on one stack with no path between
them may be reordered (the engine partition groups a stack's AI CPU ops), so an order that
matters beyond the stack ops' own sequence is given as GE gives it, by a control edge: the
handle through `graph.identity %h, %after` (the op then runs after `%after`).

    %h = graph.stack %n stack_name "s" : (tensor<i32>) -> tensor<i64>
    %e = graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
    %t = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
    graph.stack_close %h : (tensor<i64>) -> ()
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import BoolAttr, IntegerType, StringAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def

from gedialects.base import GEOp, NodeSyntax
from gedialects.graph.array import IdentityOp
from gedialects.graph.common import AnyTensor, bool_attr, fail

HANDLE_TYPE = TensorType(i64, [])
"""The type of a stack handle: a scalar int64 (the resource's id in the run)."""

DATA_FLOW_HANDLE = "_data_flow_handle"
"""GE's `ATTR_NAME_DATA_FLOW_HANDLE`: the one number `ge-prepare-data-flow` gives a Stack and
every op on its stack (`DataFlowPreparePass::SetHandle`)."""
DATA_FLOW_MAX_SIZE = "_data_flow_max_size"
"""GE's `ATTR_NAME_DATA_FLOW_MAX_SIZE`: a Stack's constant `max_size`."""


def _check_handle(op: Operation, value: SSAValue) -> None:
    if value.type != HANDLE_TYPE:
        fail(op, f"takes a handle of type {value.type}; a stack handle is {HANDLE_TYPE}")
    owner = value.owner
    while isinstance(owner, IdentityOp):  # a control edge in front of the op (GE's RefIdentity)
        owner = owner.x.owner
    boundary = getattr(owner, "GE_TYPE", None) == "PlaceHolder"  # an engine subgraph's input
    if isinstance(owner, Operation) and not isinstance(owner, StackOp) and not boundary:
        hint = f" (%{value.name_hint})" if value.name_hint else ""
        fail(
            op,
            f"takes its handle from '{owner.name}'{hint}: a stack handle comes from a "
            "graph.stack (or a subgraph input its caller feeds with one)",
        )


@irdl_op_definition
class StackOp(GEOp, NodeSyntax):
    """GE Stack: creates an empty stack of at most `max_size` elements (<= 0: no bound) each
    time it runs; the result is its handle.

        %h = graph.stack %n stack_name "s" : (tensor<i32>) -> tensor<i64>
    """

    name = "graph.stack"
    GE_TYPE: ClassVar[str] = "Stack"

    max_size = operand_def(AnyTensor)
    handle = result_def(AnyTensor)
    stack_name = prop_def(StringAttr, default_value=StringAttr(""))

    def __init__(self, max_size: SSAValue | Operation, stack_name: str = "") -> None:
        super().__init__(
            operands=[max_size],
            result_types=[HANDLE_TYPE],
            properties={"stack_name": StringAttr(stack_name)},
        )

    def verify_(self) -> None:
        t = self.max_size.type
        if not (
            isinstance(t, TensorType)
            and t.get_shape() == ()
            and isinstance(t.element_type, IntegerType)
            and t.element_type.width.data == 32
        ):
            fail(self, f"takes max_size of type {t}; GE's Stack takes a scalar tensor<i32>")
        if self.handle.type != HANDLE_TYPE:
            fail(self, f"returns {self.handle.type}; a stack handle is {HANDLE_TYPE}")


@irdl_op_definition
class StackPushOp(GEOp, NodeSyntax):
    """GE StackPush: pushes a copy of `element` onto the handle's stack and returns it.

    %e = graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
    """

    name = "graph.stack_push"
    GE_TYPE: ClassVar[str] = "StackPush"

    handle = operand_def(AnyTensor)
    element = operand_def(AnyTensor)
    y = result_def(AnyTensor)
    swap_memory = prop_def(BoolAttr, default_value=bool_attr(False))

    def __init__(self, handle: SSAValue | Operation, element: SSAValue | Operation) -> None:
        element = SSAValue.get(element)
        super().__init__(operands=[handle, element], result_types=[element.type])

    def verify_(self) -> None:
        _check_handle(self, self.handle)
        if self.y.type != self.element.type:
            fail(
                self,
                f"returns {self.y.type} but pushes {self.element.type}: it returns its element",
            )


@irdl_op_definition
class StackPopOp(GEOp, NodeSyntax):
    """GE StackPop: removes the top element of the handle's stack and returns it; the result
    type is the element's (checked when it runs), popping an empty stack is an error.

        %t = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
    """

    name = "graph.stack_pop"
    GE_TYPE: ClassVar[str] = "StackPop"

    handle = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    def __init__(self, handle: SSAValue | Operation, result_type: TensorType) -> None:
        super().__init__(operands=[handle], result_types=[result_type])

    def verify_(self) -> None:
        _check_handle(self, self.handle)


@irdl_op_definition
class StackCloseOp(GEOp, NodeSyntax):
    """GE StackClose: drops the handle's stack (its elements go; a later op on it fails).

    graph.stack_close %h : (tensor<i64>) -> ()
    """

    name = "graph.stack_close"
    GE_TYPE: ClassVar[str] = "StackClose"

    handle = operand_def(AnyTensor)

    def __init__(self, handle: SSAValue | Operation) -> None:
        super().__init__(operands=[handle], result_types=[])

    def verify_(self) -> None:
        _check_handle(self, self.handle)


DataFlowOp = StackOp | StackPushOp | StackPopOp | StackCloseOp
DATA_FLOW_TYPES = frozenset({"Stack", "StackPush", "StackPop", "StackClose"})
"""GE's `kDataFlowPartitionerDataFlowOps`."""

__all__ = [
    "DATA_FLOW_HANDLE",
    "DATA_FLOW_MAX_SIZE",
    "DATA_FLOW_TYPES",
    "HANDLE_TYPE",
    "DataFlowOp",
    "StackCloseOp",
    "StackOp",
    "StackPopOp",
    "StackPushOp",
]

OPS = (StackOp, StackPushOp, StackPopOp, StackCloseOp)
"""The ops of this module, in the order the dialect lists them."""
