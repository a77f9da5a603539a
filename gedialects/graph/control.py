"""Functional control flow: `graph.if` (GE If), `graph.while` (While), `graph.for` (For).

GE keeps a control-flow node's subgraphs beside the root graph and names them from the node
(`then_branch`/`else_branch`, `cond`/`body`, `body`); so do these ops: each subgraph is a
`graph.graph` of the module, named by a symbol property with GE's IR name, as
`partition.partitioned_call` and `multibatch.case` already do. That keeps every graph pass
(each walks the ops of one `graph.graph`) and the interpreter's graph calls working on the
subgraphs unchanged; regions would have nested graphs inside ops, which no pass walks.

GE's Case is `multibatch.case` (one op per GE type: the op map and the lowering key on it); its
gear attributes are optional, so it is the general Case too.

Subgraph inputs carry GE's `_parent_node_index` (DataPass::PostParseSubgraph): If's branch
input d is the If's input d+1 (input 0 is the cond); While's cond and body input d is input d;
For's body input 0 is the loop variable (parent index 0) and input d > 0 is input d+2 (after
start, limit, delta). The verifier checks an index where one is given. Outputs map one to one.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    FlatSymbolRefAttrConstr,
    IntegerAttr,
    IntegerType,
    SymbolRefAttr,
    TensorType,
    UnrankedTensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import (
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import SymbolOpInterface, SymbolTable, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from gedialects.base import PARENT_NODE_INDEX, GEOp, NodeSyntax, element_type, types_compatible
from gedialects.graph.common import tensor_of
from gedialects.graph.structure import GraphOp

GE_TENSOR = base(TensorType) | base(UnrankedTensorType)
"""A ranked or unranked tensor (GE's -2, unknown rank, is `tensor<*xT>`)."""

DEFAULT_PARALLEL_ITERATIONS = 10
"""GE's While `parallel_iterations` default (functional_ops.h)."""


_SYMBOLS: weakref.WeakKeyDictionary[Block, dict[str, Operation]] = weakref.WeakKeyDictionary()
"""Symbol table block -> name -> op, rebuilt whenever an entry is missing or stale."""


def _lookup_flat(op: Operation, name: str) -> Operation | None:
    """`SymbolTable.lookup_symbol` for a flat name, through a per-block index: xDSL's scans the
    whole table per call, so verifying a module of n partition calls over n subgraphs took
    n^2 steps (10k-node graphs make thousands of engine subgraphs). A hit is checked against
    the IR (still in that block, same name); a miss or a stale hit rebuilds the index once, so
    the answer is always the scan's."""
    anchor: Operation | None = op
    while anchor is not None and not anchor.has_trait(SymbolTable):
        anchor = anchor.parent_op()
    if anchor is None:
        return SymbolTable.lookup_symbol(op, name)  # xDSL's own error
    block = anchor.regions[0].block
    index = _SYMBOLS.get(block)
    if index is not None:
        hit = index.get(name)
        if hit is not None and hit.parent is block and _sym_name(hit) == name:
            return hit
    index = {}
    for o in block.ops:
        sym = _sym_name(o)
        if sym is not None:
            index.setdefault(sym, o)
    _SYMBOLS[block] = index
    return index.get(name)


def _sym_name(op: Operation) -> str | None:
    """The symbol name as xDSL's lookup reads it (only ops with the symbol interface)."""
    sym = op.get_trait(SymbolOpInterface)
    name = None if sym is None else sym.get_sym_attr_name(op)
    return None if name is None else name.data


def lookup_graph(op: Operation, symbol: SymbolRefAttr, what: str) -> GraphOp:
    """The `graph.graph` that `symbol` names, or a VerifyException naming `op` and `what`."""
    if symbol.nested_references.data:
        target = SymbolTable.lookup_symbol(op, symbol)
    else:
        target = _lookup_flat(op, symbol.root_reference.data)
    if target is None:
        raise VerifyException(f"'{op.name}' {what} {symbol} does not exist")
    if not isinstance(target, GraphOp):
        raise VerifyException(
            f"'{op.name}' {what} {symbol} is a '{target.name}', not a graph.graph"
        )
    return target


GraphLookup = Callable[[Operation, SymbolRefAttr, str], GraphOp]
"""Finds the graph a control-flow op names (op, symbol, what it is for the message)."""


def check_signature(
    op: Operation,
    callee: str,
    kind: str,
    values: Sequence[Attribute],
    expected: Sequence[Attribute],
) -> None:
    """Same count, and each of `values` (the op's) `types_compatible` with `expected`."""
    if len(values) != len(expected):
        raise VerifyException(
            f"'{op.name}' has {len(values)} {kind}s but {callee} has {len(expected)}"
        )
    for i, (mine, theirs) in enumerate(zip(values, expected, strict=True)):
        if not types_compatible(mine, theirs):
            raise VerifyException(
                f"'{op.name}' {kind} {i} has type {mine}, incompatible with {theirs} of {callee}"
            )


def _check_parent_indices(op: Operation, graph: GraphOp, parent: Sequence[int]) -> None:
    """Each input's `_parent_node_index`, where given, is `parent[i]` (GE's DataPass rule)."""
    if graph.arg_attrs is None:
        return
    for i, attrs in enumerate(graph.arg_attrs.data):
        given = attrs.data.get(PARENT_NODE_INDEX)
        if given is None or i >= len(parent):
            continue
        if not isinstance(given, IntegerAttr) or given.value.data != parent[i]:
            raise VerifyException(
                f"'{op.name}' @{graph.sym_name.data} input {i} has {PARENT_NODE_INDEX} "
                f"{given}, expected {parent[i]}"
            )


def join_types(a: Attribute, b: Attribute) -> Attribute | None:
    """The most precise tensor type describing both (differing dims `?`, differing ranks
    unranked); None when the element types differ. A loop's carried type after an iteration
    that changed it (GE's WhileInferImpl widening)."""
    if a == b:
        return a
    if element_type(a) != element_type(b):
        return None
    da = a.get_shape() if isinstance(a, TensorType) else None
    db = b.get_shape() if isinstance(b, TensorType) else None
    if da is None or db is None or len(da) != len(db):
        return tensor_of(element_type(a), None)
    return tensor_of(
        element_type(a), [x if x == y and x >= 0 else -1 for x, y in zip(da, db, strict=True)]
    )


def _is_int32_scalar(t: Attribute) -> bool:
    return isinstance(t, TensorType) and t.element_type == i32 and t.get_num_dims() == 0


class ControlFlowOp(GEOp):
    """A GE functional control-flow node: its subgraphs run on (some of) its operands.

    `subgraphs()` names them in GE's instance order; `subgraph_args(k)` are the operands
    subgraph `k` receives (For's body also gets the loop variable first); `called_graphs()` is
    for the call-cycle module rule; `IS_LOOP` says the body runs again on its own outputs."""

    IS_LOOP: ClassVar[bool] = False
    OWN_FORMATS: ClassVar[bool] = True
    """Its tensors have the formats of its subgraphs' Data and NetOutput (FE's propagation
    crosses them, `ge-select-formats`); the subgraph checks compare the types."""

    def subgraphs(self) -> list[SymbolRefAttr]:
        raise NotImplementedError

    def subgraph_args(self, index: int) -> Sequence[SSAValue]:
        raise NotImplementedError

    def called_graphs(self) -> list[str]:
        return [ref.root_reference.data for ref in self.subgraphs()]

    def carried(self) -> Sequence[SSAValue]:
        """The operands a loop carries (its results are their last values); [] for If."""
        return ()

    def verify_local(self) -> None:
        """Checks of the op alone, run before the subgraphs' (so they are reported first)."""

    def verify_subgraphs(self, lookup: GraphLookup = lookup_graph) -> None:
        """Subgraph signatures against the operands and results; `lookup` finds each one
        (the symbol table by default)."""
        raise NotImplementedError


class ControlFlowSymbolUser(SymbolUserOpInterface):
    """Checks the subgraphs once the op sits under a symbol table (a module): a front end
    building a graph op by op verifies each new op before the module exists, and checks the
    subgraphs itself (`verify_subgraphs(lookup)`)."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, ControlFlowOp)
        op.verify_local()
        parent = op.parent_op()
        while parent is not None and not parent.has_trait(SymbolTable):
            parent = parent.parent_op()
        if parent is not None:
            op.verify_subgraphs()


@irdl_op_definition
class IfOp(NodeSyntax, ControlFlowOp):
    """GE If: runs `then_branch` when `cond` is true, else `else_branch`, on the other operands.

    GE's truthiness: a numeric scalar is true when non-zero, a non-scalar when it has
    elements. Both branches take the inputs after `cond` and give the results.

        %r = graph.if %c, %x then_branch @then else_branch @else
            : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
    """

    name = "graph.if"
    GE_TYPE: ClassVar[str] = "If"

    cond = operand_def(GE_TENSOR)
    inputs = var_operand_def(GE_TENSOR)
    output = var_result_def(GE_TENSOR)
    then_branch = prop_def(FlatSymbolRefAttrConstr)
    else_branch = prop_def(FlatSymbolRefAttrConstr)

    traits = traits_def(ControlFlowSymbolUser())

    def __init__(
        self,
        cond: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        then_branch: str | SymbolRefAttr,
        else_branch: str | SymbolRefAttr,
        result_types: Sequence[Attribute],
    ) -> None:
        refs = [SymbolRefAttr(b) if isinstance(b, str) else b for b in (then_branch, else_branch)]
        super().__init__(
            operands=[cond, inputs],
            result_types=[result_types],
            properties={"then_branch": refs[0], "else_branch": refs[1]},
        )

    def subgraphs(self) -> list[SymbolRefAttr]:
        return [self.then_branch, self.else_branch]

    def subgraph_args(self, index: int) -> Sequence[SSAValue]:
        return self.inputs

    def verify_local(self) -> None:
        _check_cond_type(self, "cond", self.cond.type)

    def verify_subgraphs(self, lookup: GraphLookup = lookup_graph) -> None:
        for what, ref in (("then_branch", self.then_branch), ("else_branch", self.else_branch)):
            graph = lookup(self, ref, what)
            ftype = graph.function_type
            check_signature(self, f"{what} {ref}", "input", self.inputs.types, ftype.inputs.data)
            check_signature(self, f"{what} {ref}", "result", self.output.types, ftype.outputs.data)
            _check_parent_indices(self, graph, range(1, len(self.inputs) + 1))


def _check_parallel_iterations(op: Operation, value: IntegerAttr) -> None:
    if value.value.data < 1:
        raise VerifyException(
            f"'{op.name}' parallel_iterations must be >= 1, got {value.value.data}"
        )


@irdl_op_definition
class WhileOp(NodeSyntax, ControlFlowOp):
    """GE While: `while cond(vars): vars = body(vars)`; the results are the final `vars`.

    Every operand is loop-carried: `cond` takes them all and gives one tensor (its truthiness
    as If's), `body` takes them all and gives their next values (same count, compatible
    types). When cond is false at entry the inputs are the outputs. `parallel_iterations` is
    TF's hint, kept for GE (default 10).

        %r = graph.while %i, %x cond @cond body @body : (tensor<i32>, tensor<2xf32>)
            -> (tensor<i32>, tensor<2xf32>)
    """

    name = "graph.while"
    GE_TYPE: ClassVar[str] = "While"
    IS_LOOP: ClassVar[bool] = True

    inputs = var_operand_def(GE_TENSOR)
    output = var_result_def(GE_TENSOR)
    cond = prop_def(FlatSymbolRefAttrConstr)
    body = prop_def(FlatSymbolRefAttrConstr)
    parallel_iterations = prop_def(
        IntegerAttr[I64], default_value=IntegerAttr(DEFAULT_PARALLEL_ITERATIONS, i64)
    )

    traits = traits_def(ControlFlowSymbolUser())

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        cond: str | SymbolRefAttr,
        body: str | SymbolRefAttr,
        result_types: Sequence[Attribute],
        parallel_iterations: int = DEFAULT_PARALLEL_ITERATIONS,
    ) -> None:
        refs = [SymbolRefAttr(b) if isinstance(b, str) else b for b in (cond, body)]
        super().__init__(
            operands=[inputs],
            result_types=[result_types],
            properties={
                "cond": refs[0],
                "body": refs[1],
                "parallel_iterations": IntegerAttr(parallel_iterations, i64),
            },
        )

    def subgraphs(self) -> list[SymbolRefAttr]:
        return [self.cond, self.body]

    def subgraph_args(self, index: int) -> Sequence[SSAValue]:
        return self.inputs

    def carried(self) -> Sequence[SSAValue]:
        return self.inputs

    def verify_local(self) -> None:
        _check_parallel_iterations(self, self.parallel_iterations)
        if len(self.inputs) != len(self.output):
            raise VerifyException(
                f"'graph.while' has {len(self.inputs)} loop-carried inputs but "
                f"{len(self.output)} results; GE's While needs as many of each"
            )

    def verify_subgraphs(self, lookup: GraphLookup = lookup_graph) -> None:
        carried = self.inputs.types
        cond = lookup(self, self.cond, "cond")
        check_signature(self, f"cond {self.cond}", "input", carried, cond.function_type.inputs.data)
        _check_parent_indices(self, cond, range(len(carried)))
        outs = cond.function_type.outputs.data
        if len(outs) != 1:
            raise VerifyException(
                f"'graph.while' cond {self.cond} has {len(outs)} outputs; GE's While cond "
                "graph gives exactly one"
            )
        _check_cond_type(self, f"cond {self.cond} output", outs[0])
        body = lookup(self, self.body, "body")
        check_signature(self, f"body {self.body}", "input", carried, body.function_type.inputs.data)
        _check_parent_indices(self, body, range(len(carried)))
        check_body_outputs(self, body, body.function_type.inputs.data)
        check_signature(
            self, f"body {self.body}", "result", self.output.types, body.function_type.outputs.data
        )


def _check_cond_type(op: Operation, what: str, t: Attribute) -> None:
    """A cond is a numeric or bool tensor (GE's CondPass turns it into an int32 scalar)."""
    elem = element_type(t)
    if not isinstance(elem, IntegerType) and elem.name not in ("f16", "f32", "f64", "bf16"):
        raise VerifyException(f"'{op.name}' {what} has type {t}; a cond is a numeric tensor")


def check_body_outputs(op: Operation, body: GraphOp, carried: Sequence[Attribute]) -> None:
    """A loop body's outputs are the next values of its carried inputs: same count and types."""
    outs = body.function_type.outputs.data
    if len(outs) != len(carried):
        raise VerifyException(
            f"'{op.name}' body @{body.sym_name.data} gives {len(outs)} outputs for "
            f"{len(carried)} loop-carried inputs"
        )
    for i, (out, inp) in enumerate(zip(outs, carried, strict=True)):
        if not types_compatible(out, inp):
            raise VerifyException(
                f"'{op.name}' body @{body.sym_name.data} output {i} has type {out}, "
                f"incompatible with its loop-carried input {inp}"
            )


@irdl_op_definition
class ForOp(NodeSyntax, ControlFlowOp):
    """GE For: `for v in range(start, limit, delta): vars = body(v, vars)`.

    `start`, `limit` and `delta` are int32 scalars. The body takes the loop variable (int32
    scalar) and the carried values and gives their next values; the results are the last
    ones. The trip count is GE's ForPass's: iterations while `i * |delta| < |limit - start|`,
    with `v = start + i * delta`.

        %r = graph.for %start, %limit, %delta, %x body @body
            : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
    """

    name = "graph.for"
    GE_TYPE: ClassVar[str] = "For"
    IS_LOOP: ClassVar[bool] = True

    start = operand_def(GE_TENSOR)
    limit = operand_def(GE_TENSOR)
    delta = operand_def(GE_TENSOR)
    inputs = var_operand_def(GE_TENSOR)
    output = var_result_def(GE_TENSOR)
    body = prop_def(FlatSymbolRefAttrConstr)

    traits = traits_def(ControlFlowSymbolUser())

    def __init__(
        self,
        start: SSAValue | Operation,
        limit: SSAValue | Operation,
        delta: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        body: str | SymbolRefAttr,
        result_types: Sequence[Attribute],
    ) -> None:
        ref = SymbolRefAttr(body) if isinstance(body, str) else body
        super().__init__(
            operands=[start, limit, delta, inputs],
            result_types=[result_types],
            properties={"body": ref},
        )

    def subgraphs(self) -> list[SymbolRefAttr]:
        return [self.body]

    def subgraph_args(self, index: int) -> Sequence[SSAValue]:
        return self.inputs

    def carried(self) -> Sequence[SSAValue]:
        return self.inputs

    def verify_local(self) -> None:
        for what, value in (("start", self.start), ("limit", self.limit), ("delta", self.delta)):
            if not _is_int32_scalar(value.type):
                raise VerifyException(
                    f"'graph.for' {what} has type {value.type}; GE's For takes an int32 scalar "
                    "(tensor<i32>)"
                )
        if len(self.inputs) != len(self.output):
            raise VerifyException(
                f"'graph.for' has {len(self.inputs)} loop-carried inputs but "
                f"{len(self.output)} results; GE's For needs as many of each"
            )

    def verify_subgraphs(self, lookup: GraphLookup = lookup_graph) -> None:
        body = lookup(self, self.body, "body")
        ins = body.function_type.inputs.data
        if not ins or not _is_int32_scalar(ins[0]):
            raise VerifyException(
                f"'graph.for' body {self.body} must take the loop variable (tensor<i32>) first"
            )
        check_signature(self, f"body {self.body}", "input", self.inputs.types, ins[1:])
        _check_parent_indices(self, body, [0, *range(3, len(self.inputs) + 3)])
        check_body_outputs(self, body, ins[1:])
        check_signature(
            self, f"body {self.body}", "result", self.output.types, body.function_type.outputs.data
        )


__all__ = [
    "ControlFlowOp",
    "ForOp",
    "IfOp",
    "WhileOp",
    "check_signature",
    "join_types",
    "lookup_graph",
]

OPS = (IfOp, WhileOp, ForOp)
"""The ops of this module, in the order the dialect lists them."""
