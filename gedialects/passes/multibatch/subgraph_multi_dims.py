"""Multi-dims subgraphs: GE's CreateSubGraphWithScopePass and SubgraphMultiDimsClonePass.

Gears on a part of a graph instead of its inputs (research notes ge-control-flow-formats.md
section 6). Two passes, run in this order (GE's ProcessMultiBatch runs both before
MultiBatchClonePass):

`ge-create-subgraph-with-scope` (`create_scope.py`): the nodes that share a
`_subgraph_multi_dims_index` form a scope. The scope's `_subgraph_multi_dims_input_shape`
(`"<scope input>:<dims with -1>;..."`, scope inputs numbered in the order the scope first uses
them) and
`_subgraph_multi_dims_input_dims` (`"d,d;d,d"`, one profile per gear, the -1s filled in input
order, as `--dynamic_dims`) say which dims of its inputs change. The scope is outlined into a
subgraph `@<graph>_multi_dims_<k>` called by a `partition.partitioned_call`; its inputs keep
`?` on those dims and get `_op_multi_dims_input_dims` (the input's full shape at every gear,
concatenated); the subgraph gets `_subgraph_is_multi_dims` and
`_no_need_dynamic_shape_partition`. Options `input-shape` + `dynamic-dims` (atc's grammar,
inputs by name) stamp every op of the root graph as scope 0 first: GE's heterogeneous case.

`ge-expand-multi-dims-subgraphs`: each subgraph marked `_subgraph_is_multi_dims` becomes

    graph.shape (GetShape, int32) per input with a `?` dim --> graph.concat_d
        --> multibatch.map_index <-- graph.const (the full shapes of those inputs per gear)
        --> multibatch.case [@<sub>_Subgraph_Multi_Dims_Branch_0, ...] on all the inputs

and branch `i` is a copy of the subgraph with gear `i`'s static input shapes (nodes suffixed
`_subgraph_ascend_mbatch_batch_<i>`, `_batch_label = "Batch_<i>"`, `_subgraph_real_dims` = the
gear's -1 values, inputs with `_parent_node_index` = Case operand and `_mbatch_origin_input_dims`),
shape-inferred static. The Case result types are the join of the branches' (dims that differ
`?`) and `_subgraph_multi_dims_output_range` records, per output, `[min, max]` of every dim over
all branches. GE's UpdateOutputFromSubgraphsForSubgraphMultiDims compares each branch against
the already lowered minimum, so its recorded maximum is the last branch's dim, not the largest
(a bug in infershape_pass.cc): here the maximum is the largest of all branches, whatever their
order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import NODE_NAME, PARENT_NODE_INDEX, int_array, int_array_values
from gedialects.gear_options import GearConfig, GearError, parse_options
from gedialects.graph import ConcatDOp, ConstOp, GraphOp, NetOutputOp, ShapeOp
from gedialects.multibatch import (
    BATCH_NUM,
    DYNAMIC_TYPE,
    INSERT_BY_MBATCH,
    MAX_GEAR_COUNT,
    MIN_GEAR_COUNT,
    ORIGIN_INPUT_DIMS,
    PRED_VALUE_PREFIX,
    CaseOp,
    DynamicType,
    MapIndexOp,
)
from gedialects.passes.analysis.graph_view import bool_attr
from gedialects.passes.multibatch.expand import (
    BranchTemplate,
    clone_subgraphs,
    direct_calls,
    instantiate_branch,
    reachable_graphs,
    relaxed_type,
    renames_of,
)
from gedialects.passes.partition.dynamic_shape import NO_NEED_DYNAMIC_SHAPE_PARTITION

SCOPE_INDEX = "_subgraph_multi_dims_index"
SCOPE_INPUT_SHAPE = "_subgraph_multi_dims_input_shape"
SCOPE_INPUT_DIMS = "_subgraph_multi_dims_input_dims"
OP_INPUT_DIMS = "_op_multi_dims_input_dims"
IS_MULTI_DIMS = "_subgraph_is_multi_dims"
REAL_DIMS = "_subgraph_real_dims"
OP_NO_TILING = "_op_no_tiling"
KEEP_DTYPE = "_keep_dtype"
OUTPUT_RANGE = "_subgraph_multi_dims_output_range"
"""gedialects' record of GE's output shape range: per Case output `[min0, max0, min1, ...]`."""
BRANCH_POSTFIX = "_subgraph_ascend_mbatch_batch_"
"""GE's node postfix in the branches of a multi-dims subgraph."""


def branch_graph_name(subgraph: str, index: int) -> str:
    """GE names branch `index` `<root>_Subgraph_Multi_Dims_Branch_<i>`; with the subgraph's
    name instead of the root's, two scopes of one graph do not collide."""
    return f"{subgraph}_Subgraph_Multi_Dims_Branch_{index}"


def str_attr_of(op: Operation, key: str) -> str | None:
    value = op.attributes.get(key)
    return value.data if isinstance(value, StringAttr) else None


def describe_node(op: Operation) -> str:
    name = str_attr_of(op, NODE_NAME)
    return f"'{op.name}' ({name})" if name is not None else f"'{op.name}'"


def scope_config(shape: str, dims: str, where: str) -> GearConfig:
    try:
        return parse_options(input_shape=shape, dynamic_dims=dims)
    except GearError as e:
        raise PassFailedException(f"{where}: {e.one_line}") from None


# --------------------------------------------------------------------------------------------
# SubgraphMultiDimsClonePass
# --------------------------------------------------------------------------------------------


@dataclass
class _Gears:
    """The gears of one multi-dims subgraph, read back from its inputs."""

    shapes: list[list[tuple[int, ...]]]  # gear -> input -> full shape
    unknown: list[int]  # inputs with a ? dim (a GetShape each)

    @property
    def count(self) -> int:
        return len(self.shapes)

    def row(self, gear: int) -> list[int]:
        return [d for k in self.unknown for d in self.shapes[gear][k]]

    def real_dims(self, gear: int, types: Sequence[Attribute]) -> list[int]:
        """The values the gear gives the ? dims, input by input (`_subgraph_real_dims`)."""
        found: list[int] = []
        for k in self.unknown:
            t = types[k]
            assert isinstance(t, TensorType)
            found += [d for d, a in zip(self.shapes[gear][k], t.get_shape(), strict=True) if a < 0]
        return found


def _gears_of(graph: GraphOp, where: str) -> _Gears:
    types = graph.function_type.inputs.data
    attrs = graph.arg_attrs.data if graph.arg_attrs is not None else [None] * len(types)
    per_input: dict[int, list[tuple[int, ...]]] = {}
    for k, (t, a) in enumerate(zip(types, attrs, strict=True)):
        value = a.data.get(OP_INPUT_DIMS) if a is not None else None
        if value is None:
            continue
        if not isinstance(value, DenseArrayBase) or not isinstance(t, TensorType):
            raise PassFailedException(f"{where}: input {k} has {OP_INPUT_DIMS} {value}")
        values = list(int_array_values(value))
        rank = t.get_num_dims()
        if rank == 0 or not values or len(values) % rank or any(v < 0 for v in values):
            raise PassFailedException(
                f"{where}: input {k} ({t}) has {OP_INPUT_DIMS} {values}, not a list of full "
                "shapes of its rank"
            )
        shapes = [tuple(values[i : i + rank]) for i in range(0, len(values), rank)]
        for shape in shapes:
            if any(a >= 0 and a != d for d, a in zip(shape, t.get_shape(), strict=True)):
                raise PassFailedException(
                    f"{where}: input {k} ({t}) has the gear shape {list(shape)} in "
                    f"{OP_INPUT_DIMS}; its fixed dims must agree"
                )
        per_input[k] = shapes
    if not per_input:
        raise PassFailedException(f"{where}: no input has {OP_INPUT_DIMS}")
    counts = {len(v) for v in per_input.values()}
    if len(counts) != 1:
        raise PassFailedException(
            f"{where}: the inputs' {OP_INPUT_DIMS} hold different gear counts {sorted(counts)}"
        )
    (count,) = counts
    if count < MIN_GEAR_COUNT or count > MAX_GEAR_COUNT:
        raise PassFailedException(
            f"{where}: {count} gears; a multi-dims subgraph takes {MIN_GEAR_COUNT} to "
            f"{MAX_GEAR_COUNT}"
        )
    unknown = [k for k in sorted(per_input) if any(d < 0 for d in _dims(types[k]))]
    if not unknown:
        raise PassFailedException(f"{where}: no input with {OP_INPUT_DIMS} has a ? dim")
    shapes = [
        [per_input[k][g] if k in per_input else tuple(_dims(types[k])) for k in range(len(types))]
        for g in range(count)
    ]
    gears = _Gears(shapes, unknown)
    rows = [tuple(gears.row(g)) for g in range(count)]
    if len(set(rows)) != len(rows):
        raise PassFailedException(
            f"{where}: two gears give the inputs with ? dims the same shapes; MapIndex could "
            "not tell them apart"
        )
    return gears


def _dims(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def _arg_attrs(graph: GraphOp, k: int) -> dict[str, Attribute]:
    return dict(graph.arg_attrs.data[k].data) if graph.arg_attrs is not None else {}


def _res_attrs(graph: GraphOp, i: int) -> dict[str, Attribute]:
    return dict(graph.res_attrs.data[i].data) if graph.res_attrs is not None else {}


def clone_multi_dims(module: ModuleOp, graph: GraphOp) -> CaseOp:
    """Rebuilds multi-dims subgraph `graph` as GetShape -> Concat -> MapIndex -> Case over one
    static branch per gear (GE's SubgraphMultiDimsClonePass); returns the Case."""
    sub = graph.sym_name.data
    where = f"ge-expand-multi-dims-subgraphs: @{sub}"
    gears = _gears_of(graph, where)
    types = list(graph.function_type.inputs.data)
    taken = {g.sym_name.data for g in module.ops if isinstance(g, GraphOp)}
    try:
        nested = reachable_graphs(module, graph)
    except ValueError as e:
        raise PassFailedException(f"{where}: {e}") from None
    for g in range(gears.count):
        for new in (branch_graph_name(sub, g), *renames_of(nested, g, BRANCH_POSTFIX).values()):
            if new in taken:
                raise PassFailedException(f"{where}: the module already has a symbol @{new}")
    template = BranchTemplate.of(graph, set())
    templates = {n: BranchTemplate.of(c, set()) for n, c in nested.items()}
    branches: list[GraphOp] = []
    clones: list[GraphOp] = []
    postfix_of = [f"{BRANCH_POSTFIX}{g}" for g in range(gears.count)]
    for g in range(gears.count):
        arg_types = [
            TensorType(t.element_type, gears.shapes[g][k]) if isinstance(t, TensorType) else t
            for k, t in enumerate(types)
        ]
        branch = instantiate_branch(
            graph,
            template,
            branch_graph_name(sub, g),
            arg_types,
            g,
            renames_of(nested, g, BRANCH_POSTFIX),
            all_kept=True,
            postfix=BRANCH_POSTFIX,
        )
        for key in (IS_MULTI_DIMS, NO_NEED_DYNAMIC_SHAPE_PARTITION):
            branch.attributes.pop(key, None)
        branch.attributes[REAL_DIMS] = int_array(gears.real_dims(g, types))
        arg_attrs = []
        for k, t in enumerate(types):
            attrs = _arg_attrs(graph, k)
            attrs.pop(OP_INPUT_DIMS, None)
            name = attrs.get(NODE_NAME)
            if isinstance(name, StringAttr):
                attrs[NODE_NAME] = StringAttr(name.data + postfix_of[g])
            attrs[PARENT_NODE_INDEX] = IntegerAttr(k + 1, i64)
            if k in gears.unknown:
                attrs[ORIGIN_INPUT_DIMS] = int_array([d if d >= 0 else -1 for d in _dims(t)])
            arg_attrs.append(DictionaryAttr(attrs))
        branch.arg_attrs = ArrayAttr(arg_attrs)
        outputs = len(graph.function_type.outputs.data)
        branch.res_attrs = ArrayAttr(
            [
                DictionaryAttr(_res_attrs(graph, i) | {PARENT_NODE_INDEX: IntegerAttr(i, i64)})
                for i in range(outputs)
            ]
        )
        branches.append(branch)
        clones += clone_subgraphs(nested, templates, g, BRANCH_POSTFIX)

    block = Block(arg_types=types)
    for old, new in zip(graph.body.block.args, block.args, strict=True):
        new.name_hint = old.name_hint
    inserted = {INSERT_BY_MBATCH: BoolAttr.from_bool(True)}
    ops: list[Operation] = []
    shapes: list[SSAValue] = []
    for k in gears.unknown:
        shape = ShapeOp(block.args[k], dtype=i32)
        shape.attributes |= {
            NODE_NAME: StringAttr(f"{sub}/subgraph_multi_dims_get_shape_{k}"),
            KEEP_DTYPE: IntegerAttr(1, i64),
        } | inserted
        ops.append(shape)
        shapes.append(shape.y)
    row = len(gears.row(0))
    concat = ConcatDOp(shapes, 0, result_type=TensorType(i32, [row]))
    concat.attributes |= {NODE_NAME: StringAttr(f"{sub}/subgraph_multi_dims_concat")} | inserted
    table = [v for g in range(gears.count) for v in gears.row(g)]
    const = ConstOp(DenseIntOrFPElementsAttr.from_list(TensorType(i32, [len(table)]), table))
    const.attributes[NODE_NAME] = StringAttr(f"{sub}/subgraph_multi_dims_const")
    index = MapIndexOp(concat, const)
    index.attributes |= {NODE_NAME: StringAttr(f"{sub}/subgraph_multi_dims_mapindex")} | inserted
    out = graph.body.block.last_op
    assert isinstance(out, NetOutputOp)
    case = CaseOp(
        index,
        list(block.args),
        [b.sym_name.data for b in branches],
        [relaxed_type(v.type) for v in out.outputs],
    )
    case.attributes |= {
        NODE_NAME: StringAttr(f"{sub}/subgraph_multi_dims_shape_case"),
        BATCH_NUM: IntegerAttr(gears.count, i64),
        DYNAMIC_TYPE: IntegerAttr(int(DynamicType.DIMS), i64),
        **{f"{PRED_VALUE_PREFIX}{g}": int_array(gears.row(g)) for g in range(gears.count)},
        OP_NO_TILING: BoolAttr.from_bool(True),
    } | inserted
    net = NetOutputOp(list(case.output))
    net.attributes |= out.attributes
    ops += [concat, const, index, case, net]
    block.add_ops(ops)
    old_body = graph.body.block
    graph.body.detach_block(old_body)
    graph.body.add_block(block)
    old_body.erase(safe_erase=False)
    graph.function_type = FunctionType.from_lists(types, [v.type for v in case.output])
    anchor: Operation = graph
    for new in [*branches, *clones]:
        Rewriter.insert_op(new, InsertPoint.after(anchor))
        anchor = new
    still = {c for g in module.ops if isinstance(g, GraphOp) for c in direct_calls(g)}
    for name, callee in nested.items():
        if name not in still:
            Rewriter.erase_op(callee)
    return case


def record_output_range(module: ModuleOp, case: CaseOp) -> None:
    """Per Case output `[min0, max0, min1, max1, ...]` over all branches (-1 for a dim some
    branch knows only at run time). The largest branch, not the last one: GE's range merge
    keeps the last branch's dim as the maximum (infershape_pass.cc), which is not done here."""
    graphs = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    outs = [graphs[b.root_reference.data].function_type.outputs.data for b in case.branches.data]
    ranges: list[Attribute] = []
    for i in range(len(case.output)):
        dims = [_dims(o[i]) for o in outs]
        if any(len(d) != len(dims[0]) for d in dims):
            ranges.append(int_array([]))  # ranks differ: unknown rank, no range (GE's -2)
            continue
        values: list[int] = []
        for column in zip(*dims, strict=True):
            unknown = any(d < 0 for d in column)
            values += [-1, -1] if unknown else [min(column), max(column)]
        ranges.append(int_array(values))
    case.attributes[OUTPUT_RANGE] = ArrayAttr(ranges)


@dataclass(frozen=True)
class SubgraphMultiDimsClonePass(ModulePass):
    """Gives each subgraph marked `_subgraph_is_multi_dims` one static branch per gear, chosen
    from the shapes of its inputs at run time (GE's SubgraphMultiDimsClonePass; module
    docstring of `subgraph_multi_dims`), and infers the shapes of the module."""

    name = "ge-expand-multi-dims-subgraphs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gedialects.passes.infer_shapes import InferShapesPass

        marked = [
            g
            for g in op.ops
            if isinstance(g, GraphOp) and bool_attr(g, IS_MULTI_DIMS) and not _already_cloned(g)
        ]
        cases = [clone_multi_dims(op, g) for g in marked]
        if not cases:
            return
        try:
            InferShapesPass().apply(ctx, op)
        except PassFailedException as e:
            raise PassFailedException(
                f"{self.name}: shape inference of the multi-dims branches failed: {e}"
            ) from None
        for case in cases:
            record_output_range(op, case)


def _already_cloned(graph: GraphOp) -> bool:
    return any(
        isinstance(o, CaseOp)
        and (str_attr_of(o, NODE_NAME) or "").endswith("/subgraph_multi_dims_shape_case")
        for o in graph.body.block.ops
    )
