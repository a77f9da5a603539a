"""Stateful graphs: `graph.variable` (GE Variable), `graph.ref_data` (RefData) and the writers
`graph.assign`, `graph.assign_add`, `graph.assign_sub` (Assign, AssignAdd, AssignSub).

A variable is state of the session, not of one run (GE's VarManager keeps a per-session
variable memory apart from the feature-map arena): the op reads the session's value of the
variable named `var_name` (initialising it from `value` the first time the session meets it),
and a writer stores its result back under that name, so the next run, the next sunk iteration
and every other graph of the session see it.

Ref ports. GE marks input `i` of a node as a ref port when an output has the same name
(`variable_prepare_op_pass.cc`, GenerateRefTypeAndInputOutputMap): Assign's `ref` input and
`ref` output. Here operand 0 of a writer is its ref port and its result is the ref output, the
variable after the write; a ref port must be fed by a ref value (a variable, a ref_data or the
ref output of a writer), so following ref ports back from any writer reaches the variable it
writes (`ref_source`). Ops stay SSA: a reader of `%w` sees the value before the writer of `%w`,
a reader of the writer's result the value after it. For that to be the memory order too (the
lowering makes the writer write into the variable's own bytes), a writer must come after every
other user of the ref value it overwrites, which also gives each ref value at most one writer.

    %w = graph.variable "w" = dense<[0.5, -1.0]> : tensor<2xf32>
    %y = graph.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %w1 = graph.assign_sub %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import ClassVar, cast

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gedialects import exact_text, fast_text
from gedialects.base import GEOp, NodeSyntax, element_nbytes
from gedialects.graph.common import AnyTensor, bool_attr, fail, format_shape
from gedialects.graph.structure import GraphOp, module_rule

# --------------------------------------------------------------------------------------------
# Var-like nodes
# --------------------------------------------------------------------------------------------


class VarLikeOp(GEOp):
    """Base of the nodes that hold a session variable (GE's var-like nodes): the result is
    the variable's value when the op runs; `var_name` names the variable in the session."""

    var_name = prop_def(StringAttr)
    y = result_def(TensorType)

    @property
    def variable(self) -> str:
        return self.var_name.data

    def initial_value(self) -> DenseIntOrFPElementsAttr | None:
        return None

    def verify_(self) -> None:
        if not self.var_name.data:
            fail(self, "has an empty var_name")
        ttype = self.y.type
        if any(d < 0 for d in ttype.get_shape()):
            fail(
                self,
                f'"{self.var_name.data}" has shape {format_shape(ttype.get_shape())}: a '
                "variable's memory is fixed when the session creates it, so its shape is static",
            )
        if element_nbytes(ttype.element_type) is None:
            fail(
                self, f'"{self.var_name.data}" has element type {ttype.element_type}, no byte size'
            )

    # `%w = graph.variable "w" = dense<...> : tensor<...> {attrs}` or `"w" : tensor<...>`

    @classmethod
    def _parse_var(cls, parser: Parser, with_value: bool) -> VarLikeOp:
        name = parser.parse_str_literal()
        value: DenseIntOrFPElementsAttr | None = None
        if with_value and parser.parse_optional_punctuation("=") is not None:
            pos = parser.pos
            parsed = exact_text.parse_dense_value(parser) or parser.parse_attribute()
            if not isinstance(parsed, DenseIntOrFPElementsAttr) or not isinstance(
                parsed.type, TensorType
            ):
                parser.raise_error(
                    f"'{cls.name}' initial value must be a dense<...> : tensor<...>", pos
                )
            value, ttype = parsed, parsed.type
        else:
            parser.parse_punctuation(":")
            pos = parser.pos
            ttype = parser.parse_type()
            if not isinstance(ttype, TensorType):
                parser.raise_error(f"'{cls.name}' expects a ranked tensor type, got {ttype}", pos)
        props: dict[str, Attribute] = {"var_name": StringAttr(name)}
        if value is not None:
            props["value"] = value
        attrs = fast_text.parse_optional_attr_dict(parser)
        return cls.create(properties=props, result_types=[ttype], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.var_name.data)
        value = self.initial_value()
        if value is not None:
            text = exact_text.dense_text(value)
            printer.print_string(" = ")
            if text is not None:
                printer.print_string(text)
            else:
                printer.print_attribute(value)
        else:
            printer.print_string(" : ")
            printer.print_attribute(self.y.type)
        fast_text.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class VariableOp(VarLikeOp):
    """GE Variable: a named tensor kept by the session across runs.

    `value`, when given, initialises the variable the first time the session meets it (GE's
    init graph assigning the initial value); without it the variable must be given a value
    (`Session.write_variable`, `ge-run --variables`) or be assigned before it is read.

        %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
        %v = graph.variable "v" : tensor<4x4xf16>
    """

    name = "graph.variable"
    GE_TYPE: ClassVar[str] = "Variable"

    value = opt_prop_def(DenseIntOrFPElementsAttr)

    def __init__(
        self,
        var_name: str,
        result_type: TensorType,
        value: DenseIntOrFPElementsAttr | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"var_name": StringAttr(var_name)}
        if value is not None:
            props["value"] = value
        super().__init__(properties=props, result_types=[result_type])

    def initial_value(self) -> DenseIntOrFPElementsAttr | None:
        return self.value

    @classmethod
    def parse(cls, parser: Parser) -> VarLikeOp:
        return cls._parse_var(parser, with_value=True)

    def verify_(self) -> None:
        super().verify_()
        value = self.value
        if value is not None and value.type != self.y.type:
            fail(
                self,
                f'"{self.var_name.data}" initial value has type {value.type}, the variable '
                f"is {self.y.type}",
            )


@irdl_op_definition
class RefDataOp(VarLikeOp):
    """GE RefData: a ref input, the caller's tensor updated in place. Here the caller is the
    session: the op refers to the session variable `var_name` without giving it an initial
    value, so the variable comes from another graph of the session or from the user
    (`Session.write_variable`, `ge-run --variables`).

        %r = graph.ref_data "counter" : tensor<i32>
    """

    name = "graph.ref_data"
    GE_TYPE: ClassVar[str] = "RefData"

    def __init__(self, var_name: str, result_type: TensorType) -> None:
        super().__init__(properties={"var_name": StringAttr(var_name)}, result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> VarLikeOp:
        return cls._parse_var(parser, with_value=False)


# --------------------------------------------------------------------------------------------
# Writers
# --------------------------------------------------------------------------------------------


class RefWriterOp(GEOp, NodeSyntax):
    """Base of the variable writers: `ref` (operand 0) is the ref port, the result the ref
    output (GE names both `ref`), `value` what is written or combined.

    The ref port takes a ref value; `value` has the variable's shape and dtype exactly (GE's
    Assign with validate_shape; no broadcasting: the variable's memory is fixed); the writer
    comes after every other user of its ref value (see the module docstring)."""

    ref = operand_def(AnyTensor)
    value = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    GE_INPUTS: ClassVar[tuple[str, ...]] = ("ref", "value")
    GE_OUTPUTS: ClassVar[tuple[str, ...]] = ("ref",)
    """GE's port names (IRDL cannot give an operand and a result one name): an input named
    like an output is a ref port (`ge-prepare-variables`' `ref_ports`)."""

    use_locking = prop_def(BoolAttr, default_value=bool_attr(False))

    def __init__(self, ref: SSAValue | Operation, value: SSAValue | Operation) -> None:
        ref = SSAValue.get(ref)
        super().__init__(operands=[ref, value], result_types=[ref.type])

    def verify_(self) -> None:
        ref, value, y = self.ref, self.value, self.y
        source = _ref_feeder(ref)
        if source is not None and not isinstance(ref_root(ref), BlockArgument):
            fail(
                self,
                f"ref input is fed by {source}, not a ref value: a ref port takes a "
                "graph.variable, a graph.ref_data or the ref output of a writer",
            )
        if value.type != ref.type:
            fail(
                self,
                f"assigns a {value.type} to the variable "
                f'"{_name_or_question(ref)}" of type {ref.type}: the value must have the '
                "variable's shape and dtype",
            )
        if y.type != ref.type:
            fail(self, f"ref output type {y.type} differs from the ref input type {ref.type}")


REF_VAR_SRC_VAR_NAME = "ref_var_src_var_name"
"""GE's attribute naming the variable a ref output writes (`ge::REF_VAR_SRC_VAR_NAME`): on a
VariableRef, and on a writer once VariableRefDeleteOpPass removed its VariableRef, where it
makes memory assignment place the writer's output in the variable."""


@irdl_op_definition
class VariableRefOp(GEOp, NodeSyntax):
    """GE VariableRef: the variable `ref_var_src_var_name` after the writer that feeds it
    (GE's variable-prepare pass adds one behind the last writer of each variable,
    `<var>_TO_<writer>_REF_<out>`); its value is the writer's ref output, so it is a ref
    value of that variable. `ge-delete-variable-refs` removes it again.

        %r = graph.variable_ref %w1 ref_var_src_var_name "w" : (tensor<2xf32>) -> tensor<2xf32>
    """

    name = "graph.variable_ref"
    GE_TYPE: ClassVar[str] = "VariableRef"

    ref = operand_def(AnyTensor)
    y = result_def(AnyTensor)
    ref_var_src_var_name = prop_def(StringAttr)

    def __init__(self, ref: SSAValue | Operation, variable: str) -> None:
        ref = SSAValue.get(ref)
        super().__init__(
            operands=[ref],
            result_types=[ref.type],
            properties={REF_VAR_SRC_VAR_NAME: StringAttr(variable)},
        )

    def verify_(self) -> None:
        owner = self.ref.owner
        if not isinstance(owner, RefWriterOp | VariableRefOp):
            fail(
                self,
                f"is fed by {_ref_feeder(self.ref) or 'a var-like op'}: a VariableRef follows "
                "the ref output of a writer",
            )
        source = ref_source(self.ref)
        named = self.ref_var_src_var_name.data
        if source is not None and source.variable != named:
            fail(
                self,
                f'has ref_var_src_var_name "{named}" but its writer writes the variable '
                f'"{source.variable}"',
            )
        if self.y.type != self.ref.type:
            fail(self, f"result type {self.y.type} differs from its ref input {self.ref.type}")


def _name_or_question(ref: SSAValue) -> str:
    source = ref_source(ref)
    return source.variable if source is not None else "?"


def _ref_feeder(value: SSAValue) -> str | None:
    """None when `value` is a ref value; else what feeds it, for the diagnostic."""
    owner = value.owner
    if is_ref_value(value):
        return None
    if isinstance(owner, Operation):
        hint = f" (%{value.name_hint})" if value.name_hint else ""
        return f"'{owner.name}'{hint}"
    index = getattr(value, "index", "?")  # a block argument
    hint = f"%{value.name_hint}" if value.name_hint else f"argument #{index}"
    return f"the graph input {hint}"


def ref_source(value: SSAValue) -> VarLikeOp | None:
    """The var-like op a ref value stands for, following writers' ref ports (and
    VariableRefs) back; None when `value` is not a ref value."""
    while True:
        owner = value.owner
        if isinstance(owner, VarLikeOp):
            return owner
        if not isinstance(owner, RefWriterOp | VariableRefOp):
            return None
        value = owner.ref


_ROOTS: list[dict[SSAValue, SSAValue]] = []
"""The memo of the innermost `ref_roots_fixed` (none outside one)."""


def ref_root(value: SSAValue) -> SSAValue:
    """Where a chain of writers (and VariableRefs) starts: a var-like op's value, a graph
    input (a subgraph's Data, a ref when its callers pass one), or anything else.

    A walk down the chain; inside `ref_roots_fixed` each value's root is remembered, so that
    asking for every writer of a chain of n writers costs n steps, not n**2 / 2."""
    if not _ROOTS:
        while isinstance(value.owner, RefWriterOp | VariableRefOp):
            value = value.owner.ref
        return value
    memo = _ROOTS[-1]
    path: list[SSAValue] = []
    while (root := memo.get(value)) is None and isinstance(
        value.owner, RefWriterOp | VariableRefOp
    ):
        path.append(value)
        value = value.owner.ref
    root = value if root is None else root
    for step in path:
        memo[step] = root
    return root


@contextmanager
def ref_roots_fixed() -> Iterator[None]:
    """Remembers `ref_root`'s answers while the IR's ref chains do not change (an analysis
    before its rewrite); leaving the block forgets them."""
    _ROOTS.append({})
    try:
        yield
    finally:
        _ROOTS.pop()


def subgraph_feeds(op: Operation) -> list[tuple[str, int, Sequence[SSAValue]]]:
    """Each subgraph `op` calls, with the index of its first input fed by an operand and the
    operands that feed its inputs from there (For's body takes the loop variable first)."""
    from gedialects.graph.control import ControlFlowOp, ForOp

    if isinstance(op, ControlFlowOp):
        first = 1 if isinstance(op, ForOp) else 0
        refs = op.subgraphs()
        return [(r.root_reference.data, first, op.subgraph_args(k)) for k, r in enumerate(refs)]
    called = getattr(op, "called_graphs", None)
    if not callable(called):
        return []
    values = getattr(op, "args", None)
    if values is None:
        values = getattr(op, "inputs", ())
    names = cast("list[str]", called())
    return [(name, 0, cast("Sequence[SSAValue]", values)) for name in names]


def ref_inputs(graphs: dict[str, GraphOp]) -> dict[BlockArgument, str]:
    """The subgraph inputs that are refs, with the variable each stands for: an input a
    writer's ref chain starts from, or that feeds such an input of a subgraph, is a ref when
    every caller passes a ref value of one variable there (GE's ref through a Data node,
    which `ge-split-variables-into-subgraphs` turns into a copy of the variable). A root
    graph's input, a caller passing something else, or two variables for one input, is a
    VerifyException."""
    callers: dict[tuple[str, int], list[tuple[Operation, SSAValue]]] = {}
    for graph in graphs.values():
        for op in graph.body.block.ops:
            for name, first, values in subgraph_feeds(op):
                for k, value in enumerate(values):
                    callers.setdefault((name, first + k), []).append((op, value))
    names: dict[BlockArgument, str] = {}
    pending: list[tuple[BlockArgument, Operation]] = []
    for graph in graphs.values():
        for op in graph.body.block.ops:
            if isinstance(op, RefWriterOp):
                root = ref_root(op.ref)
                if isinstance(root, BlockArgument):
                    pending.append((root, op))
    resolving: set[BlockArgument] = set()

    def resolve(arg: BlockArgument, user: Operation) -> str:
        found = names.get(arg)
        if found is not None:
            return found
        graph = arg.block.parent_op()
        gname = graph.sym_name.data if isinstance(graph, GraphOp) else "?"
        feeds = callers.get((gname, arg.index), [])
        where = f"'{user.name}' in @{gname}"
        if not feeds:
            raise VerifyException(
                f"'{user.name}' ref input is fed by the graph input {_arg_name(arg)} of @{gname}, "
                "which no op calls, not a ref value: a ref port takes a graph.variable, a "
                "graph.ref_data or the ref output of a writer (or a subgraph input fed by one)"
            )
        if arg in resolving:  # a loop passing the input back to itself adds nothing
            return ""
        resolving.add(arg)
        variable = ""
        for call, value in feeds:
            root = ref_root(value)
            owner = root.owner
            if isinstance(owner, VarLikeOp):
                got = owner.variable
            elif isinstance(root, BlockArgument) and isinstance(root.block.parent_op(), GraphOp):
                got = resolve(root, call)
            elif (returned := _returned_ref(root, graphs)) is not None:
                got = returned if isinstance(returned, str) else resolve(returned, call)
            else:
                raise VerifyException(
                    f"{where} writes its input {_arg_name(arg)} as a ref, but '{call.name}' "
                    f"feeds it with {_ref_feeder(value) or 'a non-ref value'}, not a ref value"
                )
            if got and variable and got != variable:
                raise VerifyException(
                    f"{where} writes its input {_arg_name(arg)}, which its callers feed with "
                    f'the variables "{variable}" and "{got}": a ref input stands for one variable'
                )
            variable = variable or got
        resolving.discard(arg)
        names[arg] = variable
        return variable

    for arg, user in pending:
        resolve(arg, user)
    return names


def _returned_ref(value: SSAValue, graphs: dict[str, GraphOp]) -> str | BlockArgument | None:
    """For the result of a call whose subgraph returns a ref value there (a known partition
    returning the variable it holds, `ge-partition-dynamic-shape`): the variable's name, or
    the subgraph input the returned ref chain starts from; None otherwise."""
    owner = value.owner
    if not isinstance(owner, Operation) or not isinstance(value, OpResult):
        return None
    for name, _, _ in subgraph_feeds(owner):
        callee = graphs.get(name)
        out = callee.body.block.last_op if callee is not None else None
        if out is None or len(out.operands) != len(owner.results):
            continue
        root = ref_root(out.operands[value.index])
        if isinstance(root.owner, VarLikeOp):
            return root.owner.variable
        if isinstance(root, BlockArgument) and root.block.parent_op() is callee:
            return root
    return None


def _arg_name(arg: BlockArgument) -> str:
    return f"%{arg.name_hint}" if arg.name_hint else f"#{arg.index}"


def written_variable(op: RefWriterOp, refs: dict[BlockArgument, str]) -> str | None:
    """The variable a writer writes: its ref chain's var-like op, or the ref input it
    starts from."""
    root = ref_root(op.ref)
    if isinstance(root.owner, VarLikeOp):
        return root.owner.variable
    return refs.get(root) if isinstance(root, BlockArgument) else None


def is_ref_value(value: SSAValue) -> bool:
    return isinstance(value.owner, VarLikeOp | RefWriterOp | VariableRefOp)


@irdl_op_definition
class AssignOp(RefWriterOp):
    """GE Assign: `ref = value`.

    %w1 = graph.assign %w, %v : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    """

    name = "graph.assign"
    GE_TYPE: ClassVar[str] = "Assign"

    validate_shape = prop_def(BoolAttr, default_value=bool_attr(True))

    def verify_(self) -> None:
        super().verify_()
        if not self.validate_shape.value.data:
            fail(
                self,
                "has validate_shape false: a variable's shape is fixed in the session's "
                "variable memory, so it cannot change",
            )


@irdl_op_definition
class AssignAddOp(RefWriterOp):
    """GE AssignAdd: `ref = ref + value`.

    %c1 = graph.assign_add %c, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    """

    name = "graph.assign_add"
    GE_TYPE: ClassVar[str] = "AssignAdd"


@irdl_op_definition
class AssignSubOp(RefWriterOp):
    """GE AssignSub: `ref = ref - value`.

    %w1 = graph.assign_sub %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    """

    name = "graph.assign_sub"
    GE_TYPE: ClassVar[str] = "AssignSub"


def reads_variable(op: VarLikeOp) -> bool:
    """Whether a user of the op's value reads it: every user but Assign's ref port, which
    only overwrites (so an Assign may initialise a variable that has no value yet)."""
    return any(not (isinstance(u.operation, AssignOp) and u.index == 0) for u in op.y.uses)


# --------------------------------------------------------------------------------------------
# Module rule
# --------------------------------------------------------------------------------------------


def var_like_ops(module: ModuleOp) -> Iterator[tuple[GraphOp, VarLikeOp]]:
    for graph in module.body.block.ops:
        if isinstance(graph, GraphOp):
            for op in graph.body.block.ops:
                if isinstance(op, VarLikeOp):
                    yield graph, op


def _holds_variables(kind: type[Operation]) -> bool:
    """`check_variables` fails only on a module with a var-like op or a writer: without a
    writer nothing is written (no order to check) and no ref input is resolved."""
    return issubclass(kind, VarLikeOp | RefWriterOp)


@module_rule(_holds_variables)
def check_variables(module: ModuleOp) -> None:
    """A variable name stands for one memory: every var-like op of a name has its type and
    at most one gives an initial value (two would disagree on what the session starts with);
    and in each graph, whatever overwrites a variable (a writer, or a call whose subgraphs
    write it) comes after every user of the ref values of that variable defined before it,
    so a reader never runs after the memory it reads was overwritten (`check_write_order`)."""
    seen: dict[str, VarLikeOp] = {}
    initial: dict[str, VariableOp] = {}
    graphs: dict[str, GraphOp] = {}
    for graph in module.body.block.ops:
        if isinstance(graph, GraphOp):
            graphs[graph.sym_name.data] = graph
    for graph, op in var_like_ops(module):
        name = op.variable
        first = seen.setdefault(name, op)
        if first is not op and first.y.type != op.y.type:
            raise VerifyException(
                f"'{op.name}' \"{name}\" in @{graph.sym_name.data} has type {op.y.type}, "
                f"but the variable is {first.y.type} elsewhere: a variable name stands "
                "for one memory"
            )
        if isinstance(op, VariableOp) and op.value is not None:
            other = initial.setdefault(name, op)
            if other is not op and other.value != op.value:
                raise VerifyException(
                    f"'graph.variable' \"{name}\" in @{graph.sym_name.data} has an initial "
                    "value that differs from another graph.variable of that name"
                )
    refs = ref_inputs(graphs)
    written = written_variables(graphs, refs)
    for graph in graphs.values():
        check_write_order(graph, written, refs, graphs)


def written_variables(
    graphs: dict[str, GraphOp], refs: dict[BlockArgument, str] | None = None
) -> dict[str, frozenset[str]]:
    """Graph name -> the variables it or a graph it calls writes (a cycle of calls, refused
    by `check_call_cycles`, contributes what was found before it closes)."""
    direct: dict[str, set[str]] = {}
    calls: dict[str, list[str]] = {}
    for name, graph in graphs.items():
        found = direct[name] = set()
        callees = calls[name] = []
        for op in graph.body.block.ops:
            if isinstance(op, RefWriterOp):
                variable = written_variable(op, refs or {})
                if variable:
                    found.add(variable)
            called = getattr(op, "called_graphs", None)
            if called is not None:
                callees.extend(c for c in called() if c in graphs)
    done: dict[str, frozenset[str]] = {}
    for root in graphs:
        stack = [(root, iter(calls[root]))]
        active = {root}
        while stack:
            current, edges = stack[-1]
            child = next(edges, None)
            if child is None:
                stack.pop()
                active.discard(current)
                found = set(direct[current])
                for c in calls[current]:
                    found |= done.get(c, frozenset())
                done[current] = frozenset(found)
                continue
            if child not in done and child not in active:
                active.add(child)
                stack.append((child, iter(calls[child])))
    return done


def writes_of(
    op: Operation, written: dict[str, frozenset[str]], refs: dict[BlockArgument, str]
) -> frozenset[str]:
    """The variables `op` overwrites: a writer's, or those the subgraphs of a call write
    (`written`: `written_variables`)."""
    if isinstance(op, RefWriterOp):
        variable = written_variable(op, refs)
        return frozenset({variable}) if variable else frozenset()
    called = getattr(op, "called_graphs", None)
    if called is None:
        return frozenset()
    found: set[str] = set()
    for c in called():
        found |= written.get(c, frozenset())
    return frozenset(found)


def check_write_order(
    graph: GraphOp,
    written: dict[str, frozenset[str]],
    refs: dict[BlockArgument, str] | None = None,
    graphs: dict[str, GraphOp] | None = None,
) -> None:
    """The memory order of a graph's variables is its SSA order: for each ref value R of a
    variable, the first op after R's definition that overwrites the variable must come after
    every user of R. Otherwise the graph level (R is a value) and the ascend level (R is the
    variable's memory) would read different numbers."""
    ops = list(graph.body.block.ops)
    position = {op: i for i, op in enumerate(ops)}
    writes: dict[str, list[int]] = {}
    refs = refs or {}
    for i, op in enumerate(ops):
        for name in writes_of(op, written, refs):
            writes.setdefault(name, []).append(i)
    if not writes:
        return
    values: list[tuple[int, SSAValue, str]] = [
        (-1, arg, refs[arg]) for arg in graph.body.block.args if refs.get(arg)
    ]
    for i, op in enumerate(ops):
        if not isinstance(op, VarLikeOp | RefWriterOp | VariableRefOp):
            continue
        root = ref_root(op.y if isinstance(op, VarLikeOp) else op.ref)
        owner = root.owner
        name = owner.variable if isinstance(owner, VarLikeOp) else refs.get(root)  # pyright: ignore[reportArgumentType]
        if name:
            values.append((i, op.results[0], name))
    for i, op in enumerate(ops):
        if graphs and not isinstance(op, RefWriterOp | VarLikeOp | VariableRefOp):
            values += [(i, r, n) for r, n in ref_results(op, graphs, refs)]
    for i, value, name in values:
        if name not in writes:
            continue
        later = writes[name]
        k = bisect.bisect_right(later, i)
        if k == len(later):
            continue
        writer = ops[later[k]]
        for use in value.uses:
            user = use.operation
            if position.get(user, -1) <= later[k]:
                continue
            here = f"in @{graph.sym_name.data}"
            if isinstance(user, RefWriterOp) and use.index == 0 and isinstance(writer, RefWriterOp):
                raise VerifyException(
                    f"'{user.name}' {here} writes the variable \"{name}\" through a ref value "
                    f"that '{writer.name}' also writes: each ref value has one writer (chain "
                    "the writers through their ref outputs)"
                )
            how = (
                f"'{writer.name}' overwrites it"
                if isinstance(writer, RefWriterOp)
                else f"'{writer.name}' overwrites it in a subgraph it calls"
            )
            raise VerifyException(
                f"'{user.name}' {here} reads the variable \"{name}\" after {how}: whatever "
                "overwrites a variable must come after every user of its earlier value (read "
                "a writer's ref output, or the variable again, for the new value)"
            )


def ref_results(
    op: Operation, graphs: dict[str, GraphOp], refs: dict[BlockArgument, str]
) -> list[tuple[SSAValue, str]]:
    """The results of a call that a subgraph returns as a ref value (a variable, a writer's
    ref output): at the task level they are the variable's memory, so they are ref values of
    the caller too."""
    found: list[tuple[SSAValue, str]] = []
    for name, _, _ in subgraph_feeds(op):
        callee = graphs.get(name)
        out = callee.body.block.last_op if callee is not None else None
        if out is None or len(out.operands) != len(op.results):
            continue
        for result, value in zip(op.results, out.operands, strict=True):
            root = ref_root(value)
            owner = root.owner
            if isinstance(owner, VarLikeOp):
                found.append((result, owner.variable))
            elif isinstance(root, BlockArgument) and refs.get(root):
                found.append((result, refs[root]))
    return found


def variable_types(module: ModuleOp) -> dict[str, TensorType]:
    """Every variable the module names, with its type."""
    return {op.variable: op.y.type for _, op in var_like_ops(module)}


__all__ = [
    "REF_VAR_SRC_VAR_NAME",
    "AssignAddOp",
    "AssignOp",
    "AssignSubOp",
    "RefDataOp",
    "RefWriterOp",
    "VarLikeOp",
    "VariableOp",
    "VariableRefOp",
    "is_ref_value",
    "reads_variable",
    "ref_inputs",
    "ref_results",
    "ref_root",
    "ref_source",
    "variable_types",
    "writes_of",
    "written_variable",
    "written_variables",
]

OPS = (VariableOp, RefDataOp, AssignOp, AssignAddOp, AssignSubOp, VariableRefOp)
"""The ops of this module, in the order the dialect lists them."""
