"""`ge-convert-graph-to-ascend`: lowers each root graph to an executable `ascend.model`.

The lowering: one kernel task per GE node on a single stream, called
subgraphs (`partition.partitioned_call`) inlined as static task lists, except the unknown-shape
partitions of `ge-partition-dynamic-shape` (`_is_unknown_shape = true`), whose nodes become
`ascend.dynamic_kernel` tasks on dynamic buffers (GE runs those partitions with its hybrid
executor: shapes and memory decided per node at run time); a known partition reading such a
value gets it copied into its planned buffer, and `?` root inputs and outputs are dynamic
buffers. Engine-boundary pairs
(`partition.end` / `partition.place_holder`) joined into one buffer, functional control flow
lowered by GE's label makers (LabelAllocator::AssignFunctionalLabels, one running label index,
the total in the model's `label_num`): `graph.if` (IfOpLabelMaker), `graph.while`
(WhileOpLabelMaker), `graph.for` as ForPass's While (`ge-convert-for-to-while`) and
`multibatch.case` (CaseOpLabelMaker), each switch reading its int32 index in place; in
unknown-shape partitions If / While / Case become `ascend.dynamic_control` tasks (GE's hybrid
CONTROL_OP) running their subgraphs, each lowered to a model of dynamic tasks; the pipeline
stages of `ge-partition-stage` (calls with `_stage_level` and `_force_unknown_shape = true`)
are not inlined but become `ascend.stage` tasks (GE's KnownNodeTask), each stage a static
model with its own arena, run in level order after the previous stage's sync token (GE's
ExpandLastSyncExeNodesToMainGraph / ExpandFirstExeNodesToMainGraph); and every
tensor given its own slot by `analysis.memory_plan` (no reuse: the baseline the interpreter
can check). Memory reuse is `ge-plan-memory`'s and the
streams are `ge-assign-streams`'s, which rewrite this model's buffers and streams in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from types import UnionType
from typing import cast, overload

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import PassFailedException

from gedialects.ascend import (
    LABEL_NUM,
    STAGE_TOKEN_TYPE,
    VAR_BASE,
    BufferAttr,
    DynamicControlOp,
    DynamicKernelOp,
    DynBufferAttr,
    EndGraphOp,
    InputOp,
    KernelOp,
    LabelGotoOp,
    LabelSetOp,
    LabelSwitchByIndexOp,
    MemcpyAsyncOp,
    ModelOp,
    OutputOp,
    StageOp,
    StreamOp,
    VariableOp,
    WeightOp,
)
from gedialects.base import (
    AICORE_ENGINE,
    AICPU_ENGINE,
    BATCH_LABEL,
    ENGINE_NAME,
    FORCE_UNKNOWN_SHAPE,
    GE_LOCAL_ENGINE,
    HOST_CPU_ENGINE,
    IS_UNKNOWN_SHAPE,
    NODE_NAME,
    SPECIFIED_ENGINE_NAME,
    STAGE_LEVEL,
    GEOp,
    IdentityMemo,
    int_array_values,
    is_static,
    of_class,
    paused_gc,
    set_block_ops,
    tensor_nbytes,
)
from gedialects.formats import kernel_attrs
from gedialects.graph import (
    REF_VAR_SRC_VAR_NAME,
    AssignOp,
    ConstOp,
    GraphOp,
    IdentityOp,
    NetOutputOp,
    RefWriterOp,
    VariableRefOp,
    VarLikeOp,
    reads_variable,
)
from gedialects.graph.control import ControlFlowOp, ForOp, IfOp, WhileOp
from gedialects.graph.dataflow import (
    DATA_FLOW_TYPES,
    HANDLE_TYPE,
    StackCloseOp,
    StackPopOp,
    StackPushOp,
)
from gedialects.graph.getnext import GETNEXT_OUTPUT_ATTRS, GETNEXT_SINK_DYNAMIC, GetNextOp
from gedialects.multibatch import (
    BATCH_NUM,
    DYNAMIC_OUTPUT_DIMS,
    DYNAMIC_TYPE,
    ENABLE_DYNAMIC_BATCH,
    HYBRID_GRAPH,
    IS_MULTI_BATCH_SHAPE_DATA,
    MAX_INPUT_DIMS,
    ORIGIN_INPUT_DIMS,
    PRED_VALUE_PREFIX,
    SHAPE_ENV,
    SYMBOLIC_OUTPUT_SHAPE,
    UNKNOWN_DATA_INDEX,
    UNKNOWN_DIM_INDEX,
    USER_DESIGNATE_SHAPE_ORDER,
    CaseOp,
    branch_name,
    parse_output_dims,
    symbolic_output_shape,
)
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.passes.analysis.graph_view import GRAPH_CALLERS, bool_attr, graphs_called_by
from gedialects.passes.analysis.memory_plan import (
    GE_ALIGNMENT,
    MemoryPlan,
    Slot,
    SlotKind,
    plan_without_reuse,
    type_facts,
    variable_layout,
)
from gedialects.passes.failure import OpPassFailed
from gedialects.passes.for_to_while import called_symbols, convert_for_to_while
from gedialects.passes.normalize_conds import normalize_cond_graph
from gedialects.passes.partition.dynamic_shape import DYNAMIC_SHAPE_PARTITIONED
from gedialects.passes.partition.stage import stage_level
from gedialects.strings import is_string_tensor

DEFAULT_ENGINES: dict[str, str] = {
    "MapIndex": HOST_CPU_ENGINE,  # GE's HostcpuEngineUpdatePass white list
    "GetDynamicDims": AICPU_ENGINE,
    "GetNext": AICPU_ENGINE,
    **dict.fromkeys(DATA_FLOW_TYPES, AICPU_ENGINE),  # GE's data-flow ops are AI CPU kernels
}
"""Engines of op types that do not run on the default engine when nothing pins them."""

_NAME = "ge-convert-graph-to-ascend"


def _fail(op: Operation, message: str) -> PassFailedException:
    name = op.attributes.get(NODE_NAME)
    who = f"'{op.name}'" + (f" ({name.data})" if isinstance(name, StringAttr) else "")
    return OpPassFailed(f"{_NAME}: {who} {message}", op)


@dataclass(eq=False)
class DynValue:
    """A value of an unknown-shape partition: a dynamic slot, placed by the runtime."""

    type: TensorType | UnrankedTensorType
    slot: int


Value = Slot | DynValue


@dataclass
class _Task:
    """A task before memory placement: buffers are still slots."""

    kind: Callable[..., Operation]
    """The task op class; it is built with `stream=` and `args` (buffers placed)."""
    args: dict[str, object]
    attributes: dict[str, Attribute] = field(default_factory=dict[str, Attribute])
    """Discardable attributes of the task (a gear branch's `_batch_label`)."""


class _Kind(Enum):
    """How `lower_graph` lowers an op class: the first of its isinstance tests that the class
    passes, decided once per class (the chain of tests against xDSL's ABC-based classes was
    a fifth of the lowering at 10k nodes)."""

    NET_OUTPUT = auto()
    CONST = auto()
    VAR_LIKE = auto()
    REF_WRITER = auto()
    VARIABLE_REF = auto()
    CALL = auto()
    LABELLED = auto()
    """Case / If / While: label makers in a known partition, a control task in an unknown."""
    OTHER_CONTROL = auto()
    END = auto()
    PLACE_HOLDER = auto()
    GET_NEXT = auto()
    STACK = auto()
    KERNEL = auto()
    NONE = auto()


_KIND_TESTS: tuple[tuple[type | UnionType, _Kind], ...] = (
    (NetOutputOp, _Kind.NET_OUTPUT),
    (ConstOp, _Kind.CONST),
    (VarLikeOp, _Kind.VAR_LIKE),
    (RefWriterOp, _Kind.REF_WRITER),
    (VariableRefOp, _Kind.VARIABLE_REF),
    (PartitionedCallOp, _Kind.CALL),
    (CaseOp | IfOp | WhileOp, _Kind.LABELLED),
    (ControlFlowOp, _Kind.OTHER_CONTROL),
    (EndOp, _Kind.END),
    (PlaceHolderOp, _Kind.PLACE_HOLDER),
    (GetNextOp, _Kind.GET_NEXT),
    (StackPushOp | StackPopOp | StackCloseOp, _Kind.STACK),
    (GEOp, _Kind.KERNEL),
)
"""`lower_graph`'s tests in its order: an op takes the first kind whose class it is."""

_KINDS: dict[type[Operation], _Kind] = {}


def _kind_of(op: Operation) -> _Kind:
    return next((kind for cls, kind in _KIND_TESTS if isinstance(op, cls)), _Kind.NONE)


@dataclass
class _Lowering:
    """Flattens one root graph into a task list over slots."""

    symbols: Operation
    default_engine: str
    slots: list[Slot] = field(default_factory=list)
    tasks: list[_Task] = field(default_factory=list)
    peers: dict[int, Value] = field(default_factory=dict)
    labels: int = 0
    names: dict[str, int] = field(default_factory=dict)
    active_calls: list[str] = field(default_factory=list)
    views: dict[Slot, Slot] = field(default_factory=dict)
    """A gear's static view -> the buffer of the largest gear it lies at the start of."""
    weights: dict[tuple[Attribute, Attribute], Slot] = field(default_factory=dict)
    gear_buffers: set[Slot] = field(default_factory=set)
    """Buffers sized for the largest gear: `?` root inputs and `?` Case results."""
    dyn_slots: int = 0
    graphs: dict[str, GraphOp] | None = None
    subgraph_models: dict[str, None] = field(default_factory=dict)
    """Graphs a dynamic control task runs: each becomes a model of dynamic tasks."""
    stage_models: dict[str, None] = field(default_factory=dict)
    """Stage subgraphs an `ascend.stage` task runs: each becomes a static model of its own."""
    last_stage: tuple[_Task, int] | None = None
    """The stage task emitted last and its level (the next stage waits on its token)."""
    variables: dict[str, Slot] = field(default_factory=dict)
    """Variable name -> its slot in the variable region (one per name, every graph's)."""
    read_variables: set[str] = field(default_factory=set)
    """Variables some var-like op of the lowered graphs reads (not only Assign's ref port)."""
    stack_tokens: dict[int, Value] = field(default_factory=dict)
    """A Stack's handle buffer (by id) -> the token the last task on that stack wrote."""
    stack_roots: dict[int, int] = field(default_factory=dict)
    """An Identity's copy of a handle (by id) -> the Stack's handle buffer (by id)."""

    def variable(self, op: VarLikeOp) -> Slot:
        """The variable's memory: the slot of its name (GE's VarManager: one per session)."""
        slot = self.variables.get(op.variable)
        if slot is None:
            slot = self.variables[op.variable] = self.new_slot(
                op, op.y.type, SlotKind.VARIABLE, op.initial_value(), name=op.variable
            )
        elif slot.value is None and op.initial_value() is not None:
            slot.value = op.initial_value()
        if reads_variable(op):
            self.read_variables.add(op.variable)
        return slot

    def write_variable(self, op: RefWriterOp, env: dict[SSAValue, Value], dynamic: bool) -> None:
        """A writer's kernel task whose output is its variable's memory (GE's VariableRef
        removal: `ref_var_src_var_name` on the writer's output places it in the variable).

        In an unknown-shape partition the writer is a dynamic kernel, whose outputs the
        runtime places, followed by a copy of its result into the variable's bytes: GE's
        hybrid executor gives a writer's ref output the variable's address; here the copy is
        that placement (one task more, the same bytes afterwards)."""
        ref = env[op.ref]
        named = op.attributes.get(REF_VAR_SRC_VAR_NAME)
        if isinstance(named, StringAttr) and isinstance(ref, Slot) and named.data != ref.name:
            raise _fail(
                op,
                f'has {REF_VAR_SRC_VAR_NAME} "{named.data}" but writes the variable "{ref.name}"',
            )
        if not isinstance(ref, Slot) or ref.kind is not SlotKind.VARIABLE:
            raise _fail(
                op,
                "writes a ref value that is not a variable's memory (the ref port must reach "
                "its variable through var-like ops, writers and partition inputs)",
            )
        # Assign only overwrites: its task does not read the variable's bytes
        inputs = [env[op.value]] if isinstance(op, AssignOp) else [ref, env[op.value]]
        if dynamic:
            result = self.new_dyn(op, op.y.type)
            self.emit(
                DynamicKernelOp,
                kernel=op.GE_TYPE,
                node_name=self.task_name(op),
                engine=self.engine(op),
                inputs=inputs,
                outputs=[result],
                attrs=_kernel_attrs(op),
            )
            self.emit(MemcpyAsyncOp, src=result, dst=ref)
            env[op.y] = ref
            return
        self.emit(
            KernelOp,
            kernel=op.GE_TYPE,
            node_name=self.task_name(op),
            engine=self.engine(op),
            inputs=inputs,
            outputs=[ref],
            attrs=_kernel_attrs(op),
        )
        env[op.y] = ref

    def new_dyn(self, op: Operation, t: Attribute) -> DynValue:
        if not isinstance(t, TensorType | UnrankedTensorType):
            raise _fail(op, f"has type {t}; task generation needs tensors")
        value = DynValue(t, self.dyn_slots)
        self.dyn_slots += 1
        return value

    def new_slot(
        self,
        op: Operation,
        t: Attribute,
        kind: SlotKind,
        value: DenseIntOrFPElementsAttr | None = None,
        name: str | None = None,
    ) -> Slot:
        if not type_facts(t).static:
            raise _fail(
                op,
                f"has non-static type {t} outside an unknown-shape partition; static tasks "
                "need static shapes (ge-partition-dynamic-shape puts such nodes in unknown-shape "
                "partitions, which become dynamic tasks)",
            )
        slot = Slot(cast(TensorType, t), kind, value, name)  # static: a ranked tensor
        self.slots.append(slot)
        return slot

    def weight(self, op: ConstOp) -> Slot:
        """One weight per distinct value: the gear branches hold identical copies of every
        constant (docs/design/gears.md), the model stores each once."""
        value = op.value
        assert isinstance(value, DenseIntOrFPElementsAttr), "strings are refused on entry"
        key = (op.y.type, value)
        slot = self.weights.get(key)
        if slot is None:
            slot = self.weights[key] = self.new_slot(op, op.y.type, SlotKind.WEIGHT, value=value)
        return slot

    def root_input(self, graph: GraphOp, index: int, t: Attribute) -> Value:
        """A root input's buffer; one with `?` dims and `_mbatch_max_input_dims` (a
        multi-batch root) is sized for its largest gear and viewed by each branch, any other
        with `?` dims is a dynamic buffer."""
        attrs = graph.arg_attrs.data[index].data if graph.arg_attrs is not None else {}
        max_dims = attrs.get(MAX_INPUT_DIMS)
        if isinstance(t, TensorType) and not is_static(t) and max_dims is None:
            return self.new_dyn(graph, t)
        if is_static(t) or not isinstance(t, TensorType) or max_dims is None:
            return self.new_slot(graph, t, SlotKind.IO)
        if not isinstance(max_dims, DenseArrayBase):
            raise _fail(graph, f"input {index} has {MAX_INPUT_DIMS} {max_dims}, not an array")
        dims = int_array_values(max_dims)
        if len(dims) != t.get_num_dims() or any(d < 0 for d in dims):
            raise _fail(graph, f"input {index} has {MAX_INPUT_DIMS} {list(dims)} for type {t}")
        slot = self.new_slot(graph, TensorType(t.element_type, dims), SlotKind.IO)
        self.gear_buffers.add(slot)
        return slot

    def view(self, op: Operation, slot: Slot, t: Attribute) -> Slot:
        """A gear's static type `t` over the start of `slot`, a largest-gear buffer.

        Valid for every gear kind (batch, image size, dims): the runtime writes an input's
        data packed in row-major order of its actual shape, and a branch writes its outputs
        the same way, so gear `g`'s tensor is exactly the first bytes of the buffer."""
        if (
            not isinstance(t, TensorType)
            or not is_static(t)
            or t.element_type != slot.type.element_type
            or tensor_nbytes(t) > slot.nbytes
        ):
            raise _fail(
                op,
                f"views {t} in a buffer of type {slot.type} sized for the largest gear; a gear's "
                "static type must have the same element type and fit the buffer",
            )
        view = Slot(t, slot.kind)
        self.views[view] = slot
        return view

    def bind(self, op: Operation, slot: Value, t: Attribute, dynamic: bool) -> Value:
        """`slot` as the storage of a value of type `t` (a graph input, a PlaceHolder) in a
        known (static tasks) or unknown (`dynamic`) partition."""
        if isinstance(slot, DynValue):
            if dynamic or not isinstance(t, TensorType) or not is_static(t):
                return slot  # only dynamic tasks may read it (checked where one is emitted)
            # The known partition was compiled for `t`: the copy checks the run's shape.
            static = self.new_slot(op, t, SlotKind.FEATURE)
            self.emit(MemcpyAsyncOp, src=slot, dst=static)
            return static
        if slot in self.gear_buffers:
            # The root's own `?` argument is the whole buffer; a branch's is its gear's view.
            return slot if not is_static(t) else self.view(op, slot, t)
        if t != slot.type:
            raise _fail(
                op,
                f"reads {t} from a buffer of type {slot.type}; "
                "task generation needs the static shapes to agree",
            )
        return slot

    def task_name(self, op: GEOp) -> str:
        name = op.attributes.get(NODE_NAME)
        base = name.data if isinstance(name, StringAttr) else op.GE_TYPE
        count = self.names.get(base, 0)
        self.names[base] = count + 1
        return base if count == 0 and isinstance(name, StringAttr) else f"{base}_{count}"

    def engine(self, op: GEOp) -> str:
        for key in (ENGINE_NAME, SPECIFIED_ENGINE_NAME):
            value = op.attributes.get(key)
            if isinstance(value, StringAttr) and value.data:
                return value.data
        return DEFAULT_ENGINES.get(op.GE_TYPE, self.default_engine)

    def emit(self, kind: type[Operation], **args: object) -> None:
        self.tasks.append(_Task(kind, args))

    def lookup_graph(self, op: Operation, symbol: str) -> GraphOp:
        if self.graphs is None:  # one scan: `lookup_symbol` scans the module per call
            self.graphs = {
                g.sym_name.data: g
                for region in self.symbols.regions
                for block in region.blocks
                for g in block.ops
                if isinstance(g, GraphOp)
            }
        target = self.graphs.get(symbol) or SymbolTable.lookup_symbol(self.symbols, symbol)
        if not isinstance(target, GraphOp):
            raise _fail(op, f"refers to @{symbol}, which is not a graph.graph")
        if symbol in self.active_calls:
            raise _fail(op, f"calls @{symbol} recursively")
        return target

    def lower_graph(self, graph: GraphOp, args: list[Value], dynamic: bool = False) -> list[Value]:
        """Appends the tasks of `graph` with inputs in `args`; returns its output slots.

        `dynamic`: `graph` is (inside) an unknown-shape partition."""
        self.active_calls.append(graph.sym_name.data)
        env: dict[SSAValue, Value] = {
            arg: self.bind(graph, slot, arg.type, dynamic)
            for arg, slot in zip(graph.body.block.args, args, strict=True)
        }
        outputs: list[Value] = []
        for op in graph.body.block.ops:
            kind = _KINDS.get(type(op))
            if kind is None:
                kind = _KINDS[type(op)] = _kind_of(op)
            if kind is _Kind.KERNEL:
                assert isinstance(op, GEOp)
                if dynamic:
                    self.lower_dynamic_kernel(op, env)
                else:
                    self.lower_kernel(op, env)
            elif kind is _Kind.NET_OUTPUT:
                assert isinstance(op, NetOutputOp)
                outputs = [env[v] for v in op.outputs]
            elif kind is _Kind.CONST:
                assert isinstance(op, ConstOp)
                env[op.y] = self.weight(op)
            elif kind is _Kind.VAR_LIKE:
                assert isinstance(op, VarLikeOp)
                env[op.y] = self.variable(op)
            elif kind is _Kind.REF_WRITER:
                assert isinstance(op, RefWriterOp)
                self.write_variable(op, env, dynamic)
            elif kind is _Kind.VARIABLE_REF:
                assert isinstance(op, VariableRefOp)
                env[op.y] = env[op.ref]  # the variable's memory, after its writer
            elif kind is _Kind.CALL:
                assert isinstance(op, PartitionedCallOp)
                if not dynamic and _is_stage_call(op):
                    self.lower_stage(op, env)
                    continue
                callee = self.lookup_graph(op, op.callee.root_reference.data)
                # A subgraph is as its partitioner marked it, else as its caller.
                marked = bool_attr(callee, IS_UNKNOWN_SHAPE)
                if marked is None:
                    marked = bool_attr(op, IS_UNKNOWN_SHAPE)
                unknown = dynamic if marked is None else marked
                results = self.lower_graph(callee, [env[a] for a in op.args], unknown)
                env.update(zip(op.res, results, strict=True))
            elif kind is _Kind.LABELLED:
                assert isinstance(op, CaseOp | IfOp | WhileOp)
                if dynamic:
                    self.lower_dynamic_control(op, env)
                elif isinstance(op, CaseOp):
                    self.lower_case(op, env)
                elif isinstance(op, IfOp):
                    self.lower_if(op, env)
                else:
                    self.lower_while(op, env)
            elif kind is _Kind.OTHER_CONTROL:
                assert isinstance(op, ControlFlowOp)
                raise _fail(
                    op,
                    f"in @{graph.sym_name.data}: GE {op.GE_TYPE} is lowered as GE's ForPass While; "
                    "run ge-convert-for-to-while first (ge-compile does)",
                )
            elif kind is _Kind.END:
                assert isinstance(op, EndOp)
                self.peers[op.peerIndex.value.data] = env[op.x]
            elif kind is _Kind.PLACE_HOLDER:
                assert isinstance(op, PlaceHolderOp)
                peer = op.peerIndex.value.data
                if peer not in self.peers:
                    raise _fail(op, f"with peerIndex {peer} runs before its partition.end")
                env[op.y] = self.bind(op, self.peers[peer], op.y.type, dynamic)
            elif kind is _Kind.GET_NEXT:
                assert isinstance(op, GetNextOp)
                if dynamic:
                    self.lower_dynamic_kernel(op, env)
                else:
                    self.lower_get_next(op, env)
            elif kind is _Kind.STACK:
                assert isinstance(op, StackPushOp | StackPopOp | StackCloseOp)
                self.lower_stack_op(op, env, dynamic)
            else:
                raise _fail(op, "has no lowering to the ascend dialect")
            if isinstance(op, IdentityOp) and op.x.type == HANDLE_TYPE:
                # a stack handle behind a control edge: its ops stay on the Stack's token chain
                source = id(env[op.x])
                self.stack_roots[id(env[op.y])] = self.stack_roots.get(source, source)
        self.active_calls.pop()
        return outputs

    def lower_dynamic_kernel(self, op: GEOp, env: dict[SSAValue, Value]) -> None:
        """A node of an unknown-shape partition: a dynamic kernel task on dynamic buffers."""
        outs = [self.new_dyn(op, r.type) for r in op.results]
        self.emit(
            DynamicKernelOp,
            kernel=op.GE_TYPE,
            node_name=self.task_name(op),
            engine=self.engine(op),
            inputs=[env[v] for v in op.operands],
            outputs=outs,
            attrs=_kernel_attrs(op),
        )
        env.update(zip(op.results, outs, strict=True))

    def lower_kernel(self, op: GEOp, env: dict[SSAValue, Value]) -> None:
        """A node of a known partition: a kernel task on planned slots."""
        operands = op.operands
        inputs = [env[v] for v in operands]
        if any(type(v) is DynValue for v in inputs):
            raise _fail(
                op,
                "reads a value of unknown shape outside an unknown-shape partition; "
                "run ge-partition-dynamic-shape first (ge-compile does)",
            )
        gear_buffers = self.gear_buffers
        if gear_buffers and any(v in gear_buffers for v in inputs):
            raise _fail(
                op,
                "reads a buffer sized for the largest gear outside the gear branches "
                "(its shape is only known per gear); only multibatch.case may read it",
            )
        outs = [self.new_slot(op, r.type, SlotKind.FEATURE) for r in op.results]
        self.emit(
            KernelOp,
            kernel=op.GE_TYPE,
            node_name=self.task_name(op),
            engine=self.engine(op),
            inputs=inputs,
            outputs=outs,
            attrs=_kernel_attrs(op, [v.type for v in operands]),
        )
        env.update(zip(op.results, outs, strict=True))

    def lower_stack_op(
        self, op: StackPushOp | StackPopOp | StackCloseOp, env: dict[SSAValue, Value], dynamic: bool
    ) -> None:
        """A StackPush / StackPop / StackClose task that also reads the token the previous task
        on its stack wrote and writes the next (first output): tasks on one stack act on state
        behind the handle that no buffer shows, so the token chain is what orders them, on
        every stream schedule, as the graph does. The Stack's handle buffer is the first token.
        A stack's tasks are all static or all dynamic: a dynamic token cannot reach a static
        task (`ge-partition-dynamic-shape`'s data-flow check makes every op of a handle
        unknown when some is)."""
        handle = env[op.handle]
        key = self.stack_roots.get(id(handle), id(handle))
        token = self.stack_tokens.get(key, handle)
        if isinstance(token, DynValue) and not dynamic:
            raise _fail(
                op,
                "acts on a stack whose earlier ops run in an unknown-shape partition, from a "
                "known one: the ops of one stack must all be known or all unknown (GE's "
                "DynamicDataFlowPartitionerPass; ge-partition-dynamic-shape does it)",
            )
        new = self.new_dyn if dynamic else (lambda o, t: self.new_slot(o, t, SlotKind.FEATURE))
        outs = [new(op, HANDLE_TYPE), *(new(op, r.type) for r in op.results)]
        self.emit(
            DynamicKernelOp if dynamic else KernelOp,
            kernel=op.GE_TYPE,
            node_name=self.task_name(op),
            engine=self.engine(op),
            inputs=[token, *(env[v] for v in op.operands[1:])],
            outputs=outs,
            attrs=_kernel_attrs(op),
        )
        self.stack_tokens[key] = outs[0]
        env.update(zip(op.results, outs[1:], strict=True))

    def lower_get_next(self, op: GetNextOp, env: dict[SSAValue, Value]) -> None:
        """GetNext sink: a `GetNext` kernel task writes the next input set into its data
        buffers and the actual shapes into its int32 shape buffers. A data output with `?`
        dims (a gear input, `_mbatch_max_input_dims` in `_getnext_output_attrs`) gets a
        buffer sized for the largest gear, planned in the arena with every gear's view of
        it; `GetDynamicDims` reads only the shape buffers."""
        n = op.count
        found = op.attributes.get(GETNEXT_OUTPUT_ATTRS)
        dicts = found.data if isinstance(found, ArrayAttr) else ()
        outs: list[Slot] = []
        for i in range(n):
            t = op.outputs[i].type
            attrs = dicts[i].data if i < len(dicts) and isinstance(dicts[i], DictionaryAttr) else {}
            max_dims = attrs.get(MAX_INPUT_DIMS)
            if is_static(t) or not isinstance(t, TensorType):
                outs.append(self.new_slot(op, t, SlotKind.FEATURE))
                continue
            if not isinstance(max_dims, DenseArrayBase):
                raise _fail(
                    op,
                    f"output {i} ('{op.names[i]}') has type {t} and no {MAX_INPUT_DIMS}: a "
                    "GetNext outside gears needs static shapes, or an unknown-shape partition",
                )
            dims = int_array_values(max_dims)
            if len(dims) != t.get_num_dims() or any(d < 0 for d in dims):
                raise _fail(op, f"output {i} has {MAX_INPUT_DIMS} {list(dims)} for type {t}")
            slot = self.new_slot(op, TensorType(t.element_type, dims), SlotKind.FEATURE)
            self.gear_buffers.add(slot)
            outs.append(slot)
        outs += [self.new_slot(op, r.type, SlotKind.FEATURE) for r in op.outputs[n:]]
        self.emit(
            KernelOp,
            kernel=op.GE_TYPE,
            node_name=self.task_name(op),
            engine=self.engine(op),
            inputs=[],
            outputs=outs,
            attrs=_kernel_attrs(op),
        )
        env.update(zip(op.results, outs, strict=True))

    def lower_dynamic_control(
        self, op: CaseOp | IfOp | WhileOp, env: dict[SSAValue, Value]
    ) -> None:
        """An unknown-shape If / While / Case: GE's hybrid CONTROL_OP task, which runs the
        subgraphs on the host with this run's shapes. Each subgraph becomes an `ascend.model`
        of its own, all dynamic tasks (`subgraph_models`), named by the task's attributes."""
        if isinstance(op, CaseOp):
            names = [ref.root_reference.data for ref in op.branches.data]
        else:
            names = op.called_graphs()
        for name in names:
            self.lookup_graph(op, name)  # exists, no recursion
            self.subgraph_models.setdefault(name, None)
        outs = [self.new_dyn(op, r.type) for r in op.results]
        self.emit(
            DynamicControlOp,
            kernel=op.GE_TYPE,
            node_name=self.task_name(op),
            engine=GE_LOCAL_ENGINE,
            inputs=[env[v] for v in op.operands],
            outputs=outs,
            attrs=_kernel_attrs(op),
        )
        env.update(zip(op.results, outs, strict=True))

    def lower_stage(self, op: PartitionedCallOp, env: dict[SSAValue, Value]) -> None:
        """A pipeline stage (`ge-partition-stage`'s call, `_stage_level` and
        `_force_unknown_shape = true`): not inlined but run as a known subgraph of its own
        (GE's KnownNodeTask over the stage's DavinciModel), its subgraph lowered to a static
        model with its own memory plan (`stage_models`). Stages run in level order, each
        after the previous one's sync token (GE's ExpandLastSyncExeNodesToMainGraph /
        ExpandFirstExeNodesToMainGraph); the token is a slot like any value, so memory
        planning, stream assignment and the model verifier see the ordering."""
        attr = op.attributes[STAGE_LEVEL]
        level = stage_level(attr)
        if level is None:
            raise _fail(op, f"has {STAGE_LEVEL} {attr}; a stage level is a non-negative integer")
        name = op.callee.root_reference.data
        self.lookup_graph(op, name)  # exists, no recursion
        inputs: list[Slot] = []
        for k, v in enumerate(op.args):
            value = env[v]
            if not isinstance(value, Slot) or value in self.gear_buffers:
                raise _fail(
                    op,
                    f"(stage {level}) reads a value of unknown shape at input {k} ({v.type}); a "
                    "stage runs as a static model, its inputs need static shapes (pin the "
                    "graph's input dims, ge-compile's input-shape)",
                )
            inputs.append(value)
        for k, r in enumerate(op.res):
            if not is_static(r.type):
                raise _fail(
                    op,
                    f"(stage {level}) returns a value of unknown shape at output {k} ({r.type}); "
                    "a stage runs as a static model, its outputs need static shapes",
                )
        outputs = [self.new_slot(op, r.type, SlotKind.FEATURE) for r in op.res]
        after: list[Slot] = []
        if self.last_stage is not None:
            previous, previous_level = self.last_stage
            if previous_level >= level:
                raise _fail(
                    op,
                    f"(stage {level}) follows stage {previous_level}; stages run in ascending "
                    "level order (ge-partition-stage sorts the root by level)",
                )
            token = self.new_slot(op, STAGE_TOKEN_TYPE, SlotKind.FEATURE)
            sync = previous.args["sync"]
            assert isinstance(sync, list)
            sync.append(token)
            after.append(token)
        task = _Task(
            StageOp,
            {
                "model": name,
                "node_name": self.task_name(op),
                "level": level,
                "after": after,
                "inputs": inputs,
                "outputs": outputs,
                "sync": [],
            },
        )
        self.tasks.append(task)
        self.last_stage = (task, level)
        self.stage_models.setdefault(name, None)
        env.update(zip(op.res, outputs, strict=True))

    def take_labels(self, count: int) -> int:
        """The first of `count` fresh labels: GE's LabelAllocator numbers every label maker's
        labels with one running index (the total is the model's `label_num`)."""
        first = self.labels
        self.labels += count
        return first

    def cond_index(self, op: Operation, value: Value, what: str) -> Slot:
        """The buffer `LabelSwitchByIndex` reads in place: an int32 scalar (GE's CondPass)."""
        if isinstance(value, DynValue):
            raise _fail(op, f"takes its {what} from an unknown-shape partition")
        t = value.type
        if t.element_type != i32 or t.get_num_dims() != 0:
            raise _fail(
                op,
                f"{what} has type {t}; the label switch reads an int32 scalar in place: run "
                "ge-normalize-conds first (GE's CondPass; ge-compile does)",
            )
        return value

    def copy_into(
        self, op: Operation, outs: list[Value], results: Sequence[Value], label: str = ""
    ) -> None:
        """A branch's outputs into the op's result buffers (GE's ref mapping shares them; a
        copy is what GE's SubgraphPass inserts where it cannot). A dynamic result (a gear
        Case output whose shape some branch knows only at run time) takes any output; each
        branch's copy carries its `label` (`_batch_label`): the gears are exclusive, so the
        dynamic buffer has one writer per gear (GE's memory blocks carry the label too)."""
        for src, dst in zip(outs, results, strict=True):
            if isinstance(dst, DynValue):
                self.emit(MemcpyAsyncOp, src=src, dst=dst)
                if label:
                    self.tasks[-1].attributes[BATCH_LABEL] = StringAttr(label)
                continue
            if isinstance(src, DynValue) and not (is_static(src.type) or is_static(dst.type)):
                raise _fail(op, "has a branch output of unknown shape")
            if dst in self.gear_buffers:
                dst = self.view(op, dst, src.type)
            self.emit(MemcpyAsyncOp, src=src, dst=dst)

    def lower_if(self, op: IfOp, env: dict[SSAValue, Value]) -> None:
        """GE IfOpLabelMaker (then = L, else = L+1, leave = L+2):

        label_switch_by_index cond labels [L+1, L]   (0 takes else, 1 then)
        label_set L, then ops, label_goto L+2
        label_set L+1, else ops, label_set L+2
        """
        then_g = self.lookup_graph(op, op.then_branch.root_reference.data)
        else_g = self.lookup_graph(op, op.else_branch.root_reference.data)
        index = self.cond_index(op, env[op.cond], "cond")
        results = [self.new_slot(op, r.type, SlotKind.FEATURE) for r in op.output]
        args = [env[v] for v in op.inputs]
        first = self.take_labels(3)
        self.emit(LabelSwitchByIndexOp, index=index, labels=[first + 1, first])
        self.emit(LabelSetOp, label=first)
        self.copy_into(op, self.lower_graph(then_g, args), results)
        self.emit(LabelGotoOp, label=first + 2)
        self.emit(LabelSetOp, label=first + 1)
        self.copy_into(op, self.lower_graph(else_g, args), results)
        self.emit(LabelSetOp, label=first + 2)
        env.update(zip(op.output, results, strict=True))

    def lower_while(self, op: WhileOp, env: dict[SSAValue, Value]) -> None:
        """GE WhileOpLabelMaker (cond = L, body = L+1, leave = L+2):

            label_set L, cond ops, label_switch_by_index cond labels [L+2, L+1]
            label_set L+1, body ops, label_goto L, label_set L+2

        The carried values live in buffers of their own (GE's ref mapping ties While input
        i, the subgraphs' input i and body output i to one symbol): the inputs are copied in
        before the loop and each body output back at the end of the body, through a fresh
        buffer where it is another carried value (a swap). Every buffer the loop touches is
        live across the back edge, which liveness sees from the loop span."""
        cond_g = self.lookup_graph(op, op.cond.root_reference.data)
        body_g = self.lookup_graph(op, op.body.root_reference.data)
        carried = [self.new_slot(op, r.type, SlotKind.FEATURE) for r in op.output]
        for value, slot in zip(op.inputs, carried, strict=True):
            src = env[value]
            if isinstance(src, DynValue):
                raise _fail(op, "carries a value of unknown shape")
            self.emit(MemcpyAsyncOp, src=src, dst=slot)
        first = self.take_labels(3)
        self.emit(LabelSetOp, label=first)
        (cond,) = self.lower_graph(cond_g, list(carried))
        self.emit(
            LabelSwitchByIndexOp,
            index=self.cond_index(op, cond, f"cond @{cond_g.sym_name.data} output"),
            labels=[first + 2, first + 1],
        )
        self.emit(LabelSetOp, label=first + 1)
        outs = self.lower_graph(body_g, list(carried))
        sources: list[Slot] = []
        for i, src in enumerate(outs):
            if isinstance(src, DynValue):
                raise _fail(op, f"body @{body_g.sym_name.data} output {i} has unknown shape")
            if src in carried and src is not carried[i]:
                temp = self.new_slot(op, src.type, SlotKind.FEATURE)
                self.emit(MemcpyAsyncOp, src=src, dst=temp)
                src = temp
            sources.append(src)
        for src, dst in zip(sources, carried, strict=True):
            if src is not dst:
                self.emit(MemcpyAsyncOp, src=src, dst=dst)
        self.emit(LabelGotoOp, label=first)
        self.emit(LabelSetOp, label=first + 2)
        env.update(zip(op.output, carried, strict=True))

    def lower_case(self, op: CaseOp, env: dict[SSAValue, Value]) -> None:
        """GE CaseOpLabelMaker (last = L, branch i = L+1+i):

            label_switch_by_index index labels [L+1, ..., L+n]
            label_set L+1+i, branch i ops, label_goto L      (every branch but the last)
            label_set L+n, last branch ops, label_set L

        A Case of one branch gets no labels (GE's maker does nothing). A result with `?`
        dims (a multi-batch Case) is a model output buffer sized for the largest gear; each
        branch copies its static output into the start of it."""
        branches = [self.lookup_graph(op, ref.root_reference.data) for ref in op.branches.data]
        results = [self.case_result(op, i, branches) for i in range(len(op.output))]
        index = env[op.branch_index]
        if isinstance(index, DynValue):
            raise _fail(op, "takes its branch index from an unknown-shape partition")
        args = [env[v] for v in op.inputs]
        if len(branches) == 1:
            self.copy_into(op, self.lower_graph(branches[0], args), results)
            env.update(zip(op.output, results, strict=True))
            return
        last = self.take_labels(len(branches) + 1)
        labels = [last + 1 + i for i in range(len(branches))]
        self.emit(LabelSwitchByIndexOp, index=index, labels=labels)
        for i, branch in enumerate(branches):
            self.emit(LabelSetOp, label=labels[i])
            self.copy_into(op, self.lower_graph(branch, args), results, branch_name(i))
            if i + 1 < len(branches):
                self.emit(LabelGotoOp, label=last)
        self.emit(LabelSetOp, label=last)
        env.update(zip(op.output, results, strict=True))

    def case_result(self, op: CaseOp, index: int, branches: list[GraphOp]) -> Value:
        """A static result's buffer; a `?` one feeding only graph.net_output is a model output
        sized for the largest gear, or, when a branch's output shape is known only at run time
        (a gear branch with data-dependent ops, partitioned into static and dynamic parts), a
        dynamic buffer the runtime places."""
        result = op.output[index]
        if is_static(result.type):
            return self.new_slot(op, result.type, SlotKind.FEATURE)
        users = {use.operation for use in result.uses}
        if not users or not all(isinstance(u, NetOutputOp) for u in users):
            raise _fail(
                op,
                f"result {index} has non-static type {result.type} and feeds an op other than "
                "graph.net_output; only model outputs may change shape between gears",
            )
        types: list[TensorType] = []
        for b in branches:
            t = b.function_type.outputs.data[index]
            if isinstance(t, TensorType) and not is_static(t) and BATCH_NUM in op.attributes:
                return self.new_dyn(op, result.type)
            if not isinstance(t, TensorType) or not is_static(t):
                raise _fail(op, f"branch output {index} has non-static type {t}")
            types.append(t)
        largest = max(types, key=tensor_nbytes)
        slot = self.new_slot(op, largest, SlotKind.IO)
        self.gear_buffers.add(slot)
        return slot


def _kernel_attrs(op: GEOp, types: Sequence[Attribute] | None = None) -> dict[str, Attribute]:
    """The op's properties that differ from their defaults (kernels default the rest);
    `types`: the op's operand types, when the caller has read its operands."""
    defaults = _DEFAULTS.get(type(op))
    if defaults is None:
        defs = op.get_irdl_definition().properties
        defaults = _DEFAULTS[type(op)] = {k: d.default_value for k, d in defs.items()}
    attrs = {
        k: v
        for k, v in op.properties.items()
        if k not in defaults or v != defaults[k]  # a missing default (None) differs
    }
    if types is None:
        types = op.operand_types
    if not any(type_facts(t).formatted for t in types):
        return attrs  # what kernel_attrs returns without a storage format
    return dict(kernel_attrs(types, attrs))


_DEFAULTS: dict[type[Operation], dict[str, Attribute | None]] = {}
"""Each op class's property defaults (`get_irdl_definition` per node was a tenth of
`_kernel_attrs`)."""


def lower_root(
    graph: GraphOp,
    symbols: Operation,
    default_engine: str,
    alignment: int,
    dynamic: bool = False,
    subgraphs: dict[str, None] | None = None,
    stages: dict[str, None] | None = None,
) -> ModelOp:
    """The `ascend.model` that runs `graph`: declarations, tasks, and the memory plan.

    `dynamic`: every task dynamic (a subgraph a dynamic control task runs); `subgraphs`
    collects the graphs the model's dynamic control tasks run, `stages` those its stage
    tasks run."""
    lowering = _Lowering(symbols, default_engine)
    inputs = [
        lowering.root_input(graph, i, t) for i, t in enumerate(graph.function_type.inputs.data)
    ]
    # A graph `ge-partition-dynamic-shape` left whole and unknown runs as dynamic tasks (a
    # partitioned root is marked unknown too, but its calls say how each part runs).
    whole = bool(bool_attr(graph, IS_UNKNOWN_SHAPE)) and not bool_attr(
        graph, DYNAMIC_SHAPE_PARTITIONED
    )
    results = lowering.lower_graph(graph, inputs, whole or dynamic)
    if subgraphs is not None:
        subgraphs.update(lowering.subgraph_models)
    if lowering.stage_models and stages is None:
        raise _fail(graph, "runs pipeline stages, which only a root graph may")
    if stages is not None:
        stages.update(lowering.stage_models)
    outputs: list[Value] = []
    for slot in results:
        if isinstance(slot, DynValue):
            if slot in inputs or slot in outputs:
                copy = lowering.new_dyn(graph, slot.type)
                lowering.emit(MemcpyAsyncOp, src=slot, dst=copy)
                slot = copy
            outputs.append(slot)
            continue
        dynamic = slot in lowering.gear_buffers and slot not in inputs
        if (slot.kind is SlotKind.FEATURE or dynamic) and slot not in outputs:
            outputs.append(slot)
            continue
        # An input, a weight or a repeated value: the output gets its own buffer.
        copy = lowering.new_slot(graph, slot.type, SlotKind.IO)
        lowering.emit(MemcpyAsyncOp, src=slot, dst=copy)
        outputs.append(copy)
    plan = plan_without_reuse(lowering.slots, alignment)
    plan.verify()
    model = _materialise(graph, lowering, inputs, outputs, plan, default_engine)
    _copy_gear_attributes(graph, model)
    if lowering.labels:
        model.attributes[LABEL_NUM] = IntegerAttr(lowering.labels, i64)
    return model


def _copy_gear_attributes(graph: GraphOp, model: ModelOp) -> None:
    """What the runtime needs of a multi-batch root, kept on the model and its inputs (GE
    stores them in the OM file): the gear table, the per-gear output dims, the hybrid graph."""
    case = next(
        (
            op
            for op in graph.body.block.ops
            if isinstance(op, CaseOp) and BATCH_NUM in op.attributes
        ),
        None,
    )
    if case is not None:
        for key, value in case.attributes.items():
            if key in (
                BATCH_NUM,
                DYNAMIC_TYPE,
                USER_DESIGNATE_SHAPE_ORDER,
                SHAPE_ENV,
            ) or key.startswith(PRED_VALUE_PREFIX):
                model.attributes[key] = value
        out = graph.body.block.last_op
        if isinstance(out, NetOutputOp) and DYNAMIC_OUTPUT_DIMS in out.attributes:
            model.attributes[DYNAMIC_OUTPUT_DIMS] = out.attributes[DYNAMIC_OUTPUT_DIMS]
            gears = [
                int_array_values(v)
                for k, v in case.attributes.items()
                if k.startswith(PRED_VALUE_PREFIX) and isinstance(v, DenseArrayBase)
            ]
            shapes = symbolic_output_shape(
                gears, parse_output_dims(out.attributes[DYNAMIC_OUTPUT_DIMS])
            )
            if shapes is not None:  # each output's dims over the gear symbols
                model.attributes[SYMBOLIC_OUTPUT_SHAPE] = shapes
    for key in (ENABLE_DYNAMIC_BATCH, HYBRID_GRAPH):
        if key in graph.attributes:
            model.attributes[key] = graph.attributes[key]
    get_next = next((op for op in graph.body.block.ops if isinstance(op, GetNextOp)), None)
    out = graph.body.block.last_op
    if get_next is not None and GETNEXT_OUTPUT_ATTRS in get_next.attributes:
        model.attributes[GETNEXT_OUTPUT_ATTRS] = get_next.attributes[GETNEXT_OUTPUT_ATTRS]
    if out is not None and GETNEXT_SINK_DYNAMIC in out.attributes:
        model.attributes[GETNEXT_SINK_DYNAMIC] = out.attributes[GETNEXT_SINK_DYNAMIC]
    if graph.arg_attrs is None:
        return
    for op, attrs in zip(model.inputs(), graph.arg_attrs.data, strict=True):
        for key in _INPUT_GEAR_ATTRS:
            if key in attrs.data:
                op.attributes[key] = attrs.data[key]


_INPUT_GEAR_ATTRS = (
    ORIGIN_INPUT_DIMS,
    MAX_INPUT_DIMS,
    UNKNOWN_DIM_INDEX,
    IS_MULTI_BATCH_SHAPE_DATA,
    UNKNOWN_DATA_INDEX,
)


_VALUE_TYPES = frozenset((Slot, DynValue))
"""The classes of a task argument that is a buffer (exact: neither has subclasses)."""


def _materialise(
    graph: GraphOp,
    lowering: _Lowering,
    inputs: list[Value],
    outputs: list[Value],
    plan: MemoryPlan,
    engine: str,
) -> ModelOp:
    @overload
    def buf(slot: Slot) -> BufferAttr: ...
    @overload
    def buf(slot: Value) -> BufferAttr | DynBufferAttr: ...
    def buf(slot: Value) -> BufferAttr | DynBufferAttr:
        # one attribute per value (a value is written once and read by every consumer):
        # building and verifying a fresh one per use was a third of the lowering
        found = made.get(slot)
        if found is None:
            if isinstance(slot, DynValue):
                found = DynBufferAttr(slot.slot, slot.type)
            else:
                # every slot's type passed new_slot's or view's static check
                offset = offsets[views.get(slot, slot)] if views else offsets[slot]
                found = BufferAttr.placed(offset, slot.type, type_facts(slot.type).nbytes)
            made[slot] = found
        return found

    offsets, views = plan.offsets, lowering.views
    made: dict[Value, BufferAttr | DynBufferAttr] = {
        slot: BufferAttr(VAR_BASE + offset, slot.type)
        for slot, offset in variable_layout(lowering.slots, plan.alignment).items()
    }

    ops: list[Operation] = [StreamOp(0, engine)]
    for slot in lowering.slots:
        if slot.kind is SlotKind.WEIGHT:
            assert slot.value is not None
            ops.append(WeightOp(buf(slot), slot.value))
    for name, slot in lowering.variables.items():
        first = name not in lowering.read_variables
        ops.append(VariableOp(name, buf(slot), slot.value, assigned_first=first))
    for name, slot in zip(graph.input_names, inputs, strict=True):
        ops.append(InputOp(name, buf(slot)))
    for name, slot in zip(graph.output_names, outputs, strict=True):
        ops.append(OutputOp(name, buf(slot)))
    for task in lowering.tasks:
        if task.kind is KernelOp:  # most tasks: buffer lists known, no test per argument
            a = task.args
            ops.append(
                KernelOp(
                    cast(str, a["kernel"]),
                    cast(str, a["node_name"]),
                    cast(str, a["engine"]),
                    0,
                    [buf(v) for v in cast(list[Value], a["inputs"])],
                    [buf(v) for v in cast(list[Value], a["outputs"])],
                    cast(dict[str, Attribute], a["attrs"]),
                )
            )
            if task.attributes:
                ops[-1].attributes |= task.attributes
            continue
        args = {
            k: (
                buf(cast(Value, v))
                if type(v) in _VALUE_TYPES
                else [buf(s) for s in cast(list[Value], v)]
                if type(v) is list and v and type(v[0]) in _VALUE_TYPES
                else v
            )
            for k, v in task.args.items()
        }
        ops.append(task.kind(stream=0, **args))
        if task.attributes:
            ops[-1].attributes |= task.attributes
    ops.append(EndGraphOp(stream=0))
    model = ModelOp(graph.sym_name.data, plan.arena_size, plan.weight_size)
    set_block_ops(model.body.block, ops)  # new ops: linked, not inserted one by one
    return model


@dataclass(frozen=True)
class ConvertGraphToAscendPass(ModulePass):
    """Lowers every root `graph.graph` (one no op calls) to an `ascend.model` of that name.

    Called graphs are inlined into their callers' task lists and then removed, except the
    pipeline stages of `ge-partition-stage` (`_stage_level`, `_force_unknown_shape = true`):
    each becomes a static `ascend.model` of its own (its own weights and memory plan) that the
    root runs with an `ascend.stage` task, the stages in level order, each after the previous
    one's sync token (GE's stage synchronisation). Requires static
    shapes, except the gear dims of a multi-batch root (largest-gear buffers viewed per gear,
    docs/design/gears.md), and the nodes of unknown-shape partitions, which become dynamic
    tasks (a hybrid root's dynamic graph becomes a model of its own, which the gear model's
    `_hybrid_dynamic_graph` names). Options:
    `default-engine` (engine of ops nothing pins; GE's cheapest is AIcoreEngine), `alignment`
    (arena alignment in bytes, GE's 512).
    """

    name = "ge-convert-graph-to-ascend"

    default_engine: str = AICORE_ENGINE
    alignment: int = GE_ALIGNMENT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.alignment <= 0:
            raise PassFailedException(f"{_NAME}: alignment must be positive, got {self.alignment}")
        has_for, called = _scan(op)
        if has_for:
            # GE has no label maker for For: its ForPass makes it a While first (and
            # CondPass makes that While's cond an int32, as ge-normalize-conds does).
            for loop in convert_for_to_while(op):
                cond = SymbolTable.lookup_symbol(op, loop.cond)
                if isinstance(cond, GraphOp):
                    normalize_cond_graph(cond, _node_name(loop))
            called = called_symbols(op)
        graphs = [g for g in op.ops if isinstance(g, GraphOp)]
        roots = [g for g in graphs if g.sym_name.data not in called]
        if graphs and not roots:
            raise PassFailedException(f"{_NAME}: every graph is called by another; no root")
        subgraphs: dict[str, None] = {}
        stages: dict[str, None] = {}
        with paused_gc():  # many small objects, no cycles: collections only cost time
            engine, alignment = self.default_engine, self.alignment
            models = [
                (g, lower_root(g, op, engine, alignment, False, subgraphs, stages)) for g in roots
            ]
            by_name = {g.sym_name.data: g for g in graphs}
            # Each pipeline stage: a static model of its own (GE's known subgraph).
            for name in stages:
                model = lower_root(by_name[name], op, engine, alignment, False, subgraphs)
                if any(isinstance(o.buffer, DynBufferAttr) for o in model.outputs()):
                    raise PassFailedException(
                        f"{_NAME}: stage @{name} has outputs of unknown shape; a stage runs "
                        "as a static model"
                    )
                models.append((by_name[name], model))
            # The subgraphs of dynamic control tasks, as models of dynamic tasks (theirs too);
            # a subgraph of static shapes only (a gear branch of a multi-dims Case) keeps
            # static tasks and its own memory plan (GE runs it as a known subgraph).
            done: set[str] = set()
            while len(done) < len(subgraphs):
                name = next(n for n in subgraphs if n not in done)
                done.add(name)
                graph = by_name[name]
                model = lower_root(
                    graph, op, self.default_engine, self.alignment, not _static(graph), subgraphs
                )
                models.append((by_name[name], model))
        # Each lowered graph is detached, not erased: a graph is isolated from above and has
        # no results, so `Rewriter.erase_op` would only unlink every use inside it, op by op
        # (about 5% of the pass at 10k nodes), on objects that are garbage afterwards.
        for graph, model in models:
            block = graph.parent
            assert block is not None
            block.insert_op_after(model, graph)
            block.detach_op(graph)
        for graph in graphs:
            if graph.parent is not None:
                graph.parent.detach_op(graph)


def _static(graph: GraphOp) -> bool:
    """Every value of `graph` and of the graphs it calls has a static shape."""
    ftype = graph.function_type
    if not all(is_static(t) for t in (*ftype.inputs.data, *ftype.outputs.data)):
        return False
    return all(is_static(r.type) for op in graph.body.block.ops for r in op.results) and not any(
        called_symbols_of(op) for op in graph.body.block.ops
    )


def _is_stage_call(op: PartitionedCallOp) -> bool:
    """A call `ge-partition-stage` made: `_stage_level` and `_force_unknown_shape = true`
    (a `_stage_level` call GE does not force unknown is inlined as any known call)."""
    if STAGE_LEVEL not in op.attributes:
        return False
    forced = op.attributes.get(FORCE_UNKNOWN_SHAPE)
    if forced is not None and bool_attr(op, FORCE_UNKNOWN_SHAPE) is None:
        raise _fail(op, f"has {FORCE_UNKNOWN_SHAPE} {forced}; it is a bool")
    return bool(bool_attr(op, FORCE_UNKNOWN_SHAPE))


def called_symbols_of(op: Operation) -> bool:
    return isinstance(op, CaseOp | ControlFlowOp | PartitionedCallOp)


def _scan(module: ModuleOp) -> tuple[bool, set[str]]:
    """Whether `module` has a `graph.for`, and the graphs its ops call (`called_symbols`),
    in the walk that refuses string tensors (`_refuse_strings`): one walk of the module
    where there were three (the pass's first tenth at 100k bench nodes).

    A string tensor (GE DT_STRING) has no fixed byte size, and every tensor of an
    `ascend.model` is a static offset in one arena: string graphs stay at graph level (the
    interpreter runs them), refused here naming the first string value (docs/onnx.md)."""
    has_for = False
    called: set[str] = set()
    string_typed = IdentityMemo(is_string_tensor)  # by type object: few distinct ones

    def visit(node: Operation) -> None:
        nonlocal has_for
        if of_class(node, GRAPH_CALLERS):  # most ops: one cached test, not three ABC ones
            if of_class(node, ForOp):
                has_for = True
            called.update(graphs_called_by(node))

    for graph in module.ops:
        if not isinstance(graph, GraphOp):
            for node in graph.walk():
                visit(node)
            continue
        _refuse_string_inputs(graph)
        for node in graph.body.block.ops:
            for result in node.results:
                if string_typed(result.type):
                    _refuse_string_node(graph, node, result.type)
            if node.regions:
                for inner in node.walk():
                    visit(inner)
            else:
                visit(node)
    return has_for, called


def _refuse_string_inputs(graph: GraphOp) -> None:
    for arg in graph.body.block.args:
        if is_string_tensor(arg.type):
            raise PassFailedException(
                f"{_NAME}: @{graph.sym_name.data} input #{arg.index} is a string tensor "
                f"({arg.type}); strings have no fixed byte size and run at graph level only"
            )


def _refuse_string_node(graph: GraphOp, node: Operation, t: Attribute) -> None:
    name = _node_name(node) or node.name
    raise PassFailedException(
        f"{_NAME}: @{graph.sym_name.data} node '{name}' ({node.name}) makes a "
        f"string tensor ({t}); strings have no fixed byte size and run at graph level only"
    )


def _node_name(op: Operation) -> str | None:
    name = op.attributes.get(NODE_NAME)
    return name.data if isinstance(name, StringAttr) else None
