"""Interpreter semantics and numpy kernels of the `graph` dialect.

The kernels are shared with the `ascend` interpreter, which runs them from kernel tasks whose
`attrs` are a copy of the op's properties; a property missing from `attrs` takes the default of
the op definition, so both levels agree on defaults without a second table. float16 inputs are
computed in float32 (numpy has no float16 BLAS) and cast back by `run_kernel`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_callable,
    impl_terminator,
    register_impls,
)
from xdsl.ir import BlockArgument, Operation

from gedialects.base import NODE_NAME, GEOp
from gedialects.budget import MemoryBudgetError
from gedialects.formats import kernel_attrs
from gedialects.graph import (
    ConstOp,
    Graph,
    GraphOp,
    NetOutputOp,
    RefDataOp,
    RefWriterOp,
    VariableOp,
    VariableRefOp,
    VarLikeOp,
    reads_variable,
    ref_inputs,
    ref_root,
    ref_source,
)
from gedialects.graph.control import ControlFlowOp
from gedialects.interpreters.graph import (  # noqa: F401 - the modules register kernels
    activation,
    array,
    attention,
    broadcast,
    dataflow,
    detection,
    elementwise,
    fused,
    image,
    indexing,
    logical,
    loss,
    matrix,
    nn,
    normalization,
    pooling,
    quant,
    recurrent,
    reduction,
    sampling,
    selection,
    spectral,
    text,
    trees,
    variables,
)
from gedialects.interpreters.graph.program import GraphProgram, compile_graph
from gedialects.interpreters.kernels import run_kernel
from gedialects.interpreters.variables import store_of
from gedialects.tensors import numpy_from_dense

# --------------------------------------------------------------------------------------------

_OWN_IMPLS: tuple[type[GEOp], ...] = (
    GraphOp,
    NetOutputOp,
    ConstOp,
    VariableOp,
    RefDataOp,
    VariableRefOp,
    *(op for op in Graph.operations if issubclass(op, RefWriterOp)),
)
"""Graph ops with a dedicated implementation below; every other op runs its kernel."""


def _run_node(
    self: InterpreterFunctions, interpreter: Interpreter, op: GEOp, args: PythonValues
) -> PythonValues:
    try:
        return run_kernel(
            op.GE_TYPE, args, kernel_attrs(op.operand_types, op.properties), op.result_types
        )
    except MemoryBudgetError as e:
        raise MemoryBudgetError(f"{_label(op)}: {e}") from None


def _label(op: GEOp) -> str:
    """`'graph.range' "r"`: the op and its node name, as diagnostics name GE nodes."""
    name = op.attributes.get(NODE_NAME)
    return f"'{op.name}'" + (f' "{name.data}"' if isinstance(name, StringAttr) else "")


def _dispatch_to_kernels(cls: type[InterpreterFunctions]) -> type[InterpreterFunctions]:
    """Registers `_run_node` as the `@impl` of each node op of the graph dialect.

    The op's kernel is looked up by `GE_TYPE` when it runs; `tests/test_graph_dialect.py`
    checks that each of these ops has one.
    """
    for op_type in kernel_ops():
        setattr(cls, f"run_{op_type.name.removeprefix('graph.')}", impl(op_type)(_run_node))
    return cls


def kernel_ops() -> tuple[type[GEOp], ...]:
    """The graph ops interpreted by their kernel (control flow runs its subgraphs instead,
    `interpreters/control.py`)."""
    return tuple(
        op
        for op in Graph.operations
        if issubclass(op, GEOp) and op not in _OWN_IMPLS and not issubclass(op, ControlFlowOp)
    )


def _read_variable(interpreter: Interpreter, op: VarLikeOp) -> PythonValues:
    """The session's value of the op's variable, entered from its initial value the first
    time; None for a variable without a value that only Assign's ref port takes (the Assign
    initialises it)."""
    store = store_of(interpreter)
    if op.variable not in store and op.initial_value() is None and not reads_variable(op):
        return (None,)
    graph = op.parent_op()
    where = f" in @{graph.sym_name.data}" if isinstance(graph, GraphOp) else ""
    return (store.read(op.variable, op.y.type, op.initial_value(), _label(op) + where),)


def _dispatch_writers(cls: type[InterpreterFunctions]) -> type[InterpreterFunctions]:
    """Registers `run_writer` as the `@impl` of each variable writer."""
    for op_type in Graph.operations:
        if issubclass(op_type, RefWriterOp):
            name = f"run_{op_type.name.removeprefix('graph.')}"
            setattr(cls, name, impl(op_type)(cls.run_writer))  # pyright: ignore[reportAttributeAccessIssue]
    return cls


@register_impls
@_dispatch_writers
@_dispatch_to_kernels
class GraphFunctions(InterpreterFunctions):
    @impl_callable(GraphOp)
    def call_graph(self, interpreter: Interpreter, op: GraphOp, args: PythonValues) -> PythonValues:
        program = program_for(interpreter, op)
        if program is None or len(args) != len(program.block_args):
            return interpreter.run_ssacfg_region(op.body, args, op.sym_name.data)
        return program.run(interpreter, args, _label)

    @impl_terminator(NetOutputOp)
    def run_net_output(
        self, interpreter: Interpreter, op: NetOutputOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl(ConstOp)
    def run_const(self, interpreter: Interpreter, op: ConstOp, args: PythonValues) -> PythonValues:
        return (numpy_from_dense(op.value),)

    @impl(VariableOp)
    def run_variable(
        self, interpreter: Interpreter, op: VariableOp, args: PythonValues
    ) -> PythonValues:
        return _read_variable(interpreter, op)

    @impl(VariableRefOp)
    def run_variable_ref(
        self, interpreter: Interpreter, op: VariableRefOp, args: PythonValues
    ) -> PythonValues:
        return (args[0],)  # the variable after its writer: the writer's result

    @impl(RefDataOp)
    def run_ref_data(
        self, interpreter: Interpreter, op: RefDataOp, args: PythonValues
    ) -> PythonValues:
        return _read_variable(interpreter, op)

    def run_writer(
        self, interpreter: Interpreter, op: RefWriterOp, args: PythonValues
    ) -> PythonValues:
        """The writer's kernel, its result stored as the variable's new value."""
        source = ref_source(op.ref)
        variable = source.variable if source is not None else _ref_input(interpreter, op)
        ins = args[1:] if args[0] is None else args  # Assign to a variable without a value
        (result,) = _run_node(self, interpreter, op, ins)
        store_of(interpreter).write(variable, result)
        return (result,)


def _ref_input(interpreter: Interpreter, op: RefWriterOp) -> str:
    """The variable a writer writes through a subgraph input (a ref its callers feed; the
    module's refs are found once per interpreter, whose IR does not change between runs)."""
    module = op.get_toplevel_object()
    assert isinstance(module, Operation)
    found: dict[Operation, dict[BlockArgument, str]] = interpreter.get_data(
        GraphFunctions, _REF_INPUTS, dict
    )
    if module not in found:
        graphs = {g.sym_name.data: g for g in module.walk() if isinstance(g, GraphOp)}
        found[module] = ref_inputs(graphs)
    root = ref_root(op.ref)
    assert isinstance(root, BlockArgument), "verified: a ref port takes a ref value"
    return found[module][root]


_REF_INPUTS = "ref_inputs"


COMPILED = "compiled"
"""Interpreter data of `GraphFunctions`: False runs every graph through xDSL's walk (the
reference of the compiled graph program)."""

_PROGRAMS = "programs"


def program_for(interpreter: Interpreter, graph: GraphOp) -> GraphProgram | None:
    """The graph's program, decoded once per interpreter (the IR must not change between runs
    on one interpreter); None when it runs through xDSL's walk."""
    if not interpreter.get_data(GraphFunctions, COMPILED, lambda: True):
        return None
    programs: dict[GraphOp, GraphProgram | None] = interpreter.get_data(
        GraphFunctions, _PROGRAMS, dict
    )
    if graph not in programs:
        from gedialects.interpreters import OpTracker

        impls: dict[type[Operation], object] = {
            t: getattr(GraphFunctions, f"run_{t.name.removeprefix('graph.')}") for t in kernel_ops()
        }
        programs[graph] = compile_graph(interpreter, graph, GraphFunctions, impls, OpTracker)
    return programs[graph]
