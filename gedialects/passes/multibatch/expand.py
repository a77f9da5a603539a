"""`ge-expand-multibatch`: GE's MultiBatchClonePass, one static branch graph per gear.

The root graph (inputs with -1 dims in `--input_shape`) becomes

    %shape (ascend_mbatch_shape_data, int32[k]) --> multibatch.map_index <-- graph.const (gears)
                                                          |
    user inputs (their -1 dims stay `?`) --> multibatch.case [@Batch_0, ..., @Batch_<n-1>]
                                                          |
                                                    graph.net_output {_dynamic_output_dims}

and `@Batch_<i>` is a clone of the original graph (and of every subgraph it calls) whose inputs
have gear `i`'s static shapes; `ge-infer-shapes` then makes its values static, except those of
data-dependent ops, which the partitioner puts in dynamic parts (`static-branches`: an error
instead, GE's "Multi-batch not support middle dynamic shape"). See docs/design/gears.md for the
attribute list and the deliberate differences from GE.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolOpInterface
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import (
    BATCH_LABEL,
    NODE_NAME,
    PARENT_NODE_INDEX,
    GEOp,
    ge_dims,
    int_array,
    is_static,
)
from gedialects.gear_options import GearConfig, GearError, check_graph_inputs, parse_options
from gedialects.graph import ConstOp, GraphOp, NetOutputOp, ShapeOp
from gedialects.multibatch import (
    BATCH_NUM,
    BRANCH_NODE_POSTFIX,
    CASE_NAME,
    DYNAMIC_OUTPUT_DIMS,
    DYNAMIC_TYPE,
    ENABLE_DYNAMIC_BATCH,
    GET_DYNAMIC_DIMS_NAME,
    HYBRID_GRAPH,
    HYBRID_SUFFIX,
    INSERT_BY_MBATCH,
    MAP_INDEX_NAME,
    PRED_VALUE_PREFIX,
    SHAPE_CONST_NAME,
    SHAPE_ENV,
    USER_DESIGNATE_SHAPE_ORDER,
    CaseOp,
    DynamicType,
    GetDynamicDimsOp,
    MapIndexOp,
    branch_name,
    input_attrs,
    output_dims_entry,
    shape_data_attrs,
    shape_env,
)

_NAME = "ge-expand-multibatch"


def _fail(message: str) -> PassFailedException:
    return PassFailedException(f"{_NAME}: {message}")


def relaxed_type(t: Attribute) -> Attribute:
    """`t` with every dim unknown: the original static dims hold for one batch, not all."""
    if isinstance(t, TensorType):
        return TensorType(t.element_type, [DYNAMIC_INDEX] * t.get_num_dims())
    return t


def _with_dims(t: Attribute, dims: Sequence[int]) -> TensorType:
    assert isinstance(t, TensorType)
    return TensorType(t.element_type, [d if d >= 0 else DYNAMIC_INDEX for d in dims])


def _dict_with(attrs: DictionaryAttr | None, extra: dict[str, Attribute]) -> DictionaryAttr:
    base = dict(attrs.data) if attrs is not None else {}
    return DictionaryAttr(base | extra)


def direct_calls(graph: GraphOp) -> list[str]:
    found: list[str] = []
    for op in graph.walk():
        for value in op.properties.values():
            items = value.data if isinstance(value, ArrayAttr) else (value,)
            found.extend(a.root_reference.data for a in items if isinstance(a, SymbolRefAttr))
    return found


class _OpTemplate(NamedTuple):
    op: Operation
    node: str | None  # the GE node base name (GE's `<type>_<n>` when unnamed)
    result_types: tuple[Attribute, ...]  # every dim relaxed (except constants, the output)
    operands: tuple[int, ...]  # positions in the graph's values: arguments, then results
    hints: tuple[str | None, ...]  # the result name hints
    is_output: bool
    calls: bool  # a property names a subgraph: renamed per gear


def _renamed(value: Attribute, renames: dict[str, str]) -> Attribute:
    """`value` (a symbol or an array of them) naming the gear's clones of the subgraphs."""
    if isinstance(value, SymbolRefAttr) and value.root_reference.data in renames:
        return SymbolRefAttr(renames[value.root_reference.data])
    if isinstance(value, ArrayAttr) and any(isinstance(a, SymbolRefAttr) for a in value.data):
        return ArrayAttr([_renamed(a, renames) for a in value.data])
    return value


@dataclass
class BranchTemplate:
    """What every gear's clone shares, computed once from the root, so that a clone is one
    pass of op creation: no value maps to hash, no type to relax, no name to derive again."""

    ops: list[_OpTemplate]
    values: list[SSAValue]  # the root's arguments, then its op results in order
    kept: list[int]  # the NetOutput operands the Case produces (not direct outputs)

    @classmethod
    def of(cls, root: GraphOp, direct: set[int]) -> BranchTemplate:
        counts: dict[str, int] = {}
        relaxed: dict[Attribute, Attribute] = {}
        block = root.body.block
        values: list[SSAValue] = list(block.args)
        position: dict[SSAValue, int] = {v: k for k, v in enumerate(values)}
        ops: list[_OpTemplate] = []
        for op in block.ops:
            node: str | None = None
            if isinstance(op, GEOp):
                name = op.attributes.get(NODE_NAME)
                if isinstance(name, StringAttr):
                    node = name.data
                else:
                    seen = counts.get(op.GE_TYPE, 0)
                    counts[op.GE_TYPE] = seen + 1
                    node = op.GE_TYPE if seen == 0 else f"{op.GE_TYPE}_{seen}"
            types = tuple(op.result_types)
            is_output = isinstance(op, NetOutputOp)
            if not (is_output or isinstance(op, ConstOp)):
                for t in types:
                    if t not in relaxed:
                        relaxed[t] = relaxed_type(t)
                types = tuple(relaxed[t] for t in types)
            # graph.graph verifies that its ops are in topological order: defined before use
            operands = tuple(position[v] for v in op.operands)
            hints = tuple(r.name_hint for r in op.results)
            calls = any(
                isinstance(v, SymbolRefAttr)
                or (isinstance(v, ArrayAttr) and any(isinstance(a, SymbolRefAttr) for a in v.data))
                for v in op.properties.values()
            )
            ops.append(_OpTemplate(op, node, types, operands, hints, is_output, calls))
            for r in op.results:
                position[r] = len(values)
                values.append(r)
        out = block.last_op
        assert isinstance(out, NetOutputOp)
        return cls(ops, values, [i for i in range(len(out.outputs)) if i not in direct])


@dataclass
class _Expansion:
    """One root graph being split into gear branches."""

    module: ModuleOp
    root: GraphOp
    config: GearConfig
    get_dynamic_dims: bool
    hybrid: bool = False
    static_branches: bool = False
    """GE's refusal of a `?` left in a branch ("Multi-batch not support middle dynamic
    shape"); without it such a branch is partitioned into static and dynamic parts."""
    subgraphs: dict[str, GraphOp] = field(default_factory=dict[str, GraphOp])
    """The graphs the root reaches through calls, in first-call order (cloned per gear)."""

    def run(self, ctx: Context) -> GraphOp:
        self.check()
        direct = self.direct_outputs()
        template = BranchTemplate.of(self.root, direct)
        templates = {n: BranchTemplate.of(g, set()) for n, g in self.subgraphs.items()}
        branches = [self.branch(i, template) for i in range(self.config.gear_count)]
        clones = [
            c for i in range(self.config.gear_count) for c in self.subgraph_clones(i, templates)
        ]
        new_root = self.new_root(branches, direct)
        Rewriter.insert_op(new_root, _after(self.root))
        if self.hybrid:
            dynamic = self.dynamic_graph()
            Rewriter.insert_op(dynamic, _after(self.root))
            new_root.attributes[HYBRID_GRAPH] = SymbolRefAttr(dynamic.sym_name.data)
        for graph in reversed([*branches, *clones]):
            Rewriter.insert_op(graph, _after(new_root))
        Rewriter.erase_op(self.root)
        if not self.hybrid:  # the dynamic graph of hybrid mode calls the originals
            self.erase_unused_subgraphs()
        self.infer(ctx)
        self.record_output_dims(new_root, branches, direct)
        return new_root

    # ---- checks ------------------------------------------------------------------------------

    def check(self) -> None:
        root = self.root
        name = root.sym_name.data
        types = root.function_type.inputs.data
        dims = [ge_dims(t.get_shape()) if isinstance(t, TensorType) else None for t in types]
        try:
            check_graph_inputs(self.config, name, root.input_names, dims)
        except GearError as e:
            raise _fail(e.one_line) from None
        for t, n in zip(types, root.input_names, strict=True):
            if not isinstance(t, TensorType):
                raise _fail(f"input '{n}' of @{name} has type {t}; gears need ranked tensors")
        self.subgraphs = self.reachable()
        taken = _symbol_names(self.module)
        for i in range(self.config.gear_count):
            for new in (branch_name(i), *self.renames(i).values()):
                if new in taken:
                    raise _fail(f"the module already has a symbol @{new}")
        if self.get_dynamic_dims:
            total = sum(len(s.unknown) for s in self.config.inputs)
            if total != self.config.gear_length:
                raise _fail(
                    f"get-dynamic-dims gathers {total} -1 dims from the inputs but a gear of "
                    f"--{self.config.option} has {self.config.gear_length} values; use the "
                    "shape-data input (the default)"
                )

    def reachable(self) -> dict[str, GraphOp]:
        try:
            return reachable_graphs(self.module, self.root)
        except ValueError as e:
            raise _fail(str(e)) from None

    def erase_unused_subgraphs(self) -> None:
        """The originals of the cloned subgraphs, unless a graph outside the gears (another
        root) still reaches them."""
        kept: set[str] = set()
        stack = [g for g in self.module.ops if isinstance(g, GraphOp)]
        stack = [g for g in stack if g.sym_name.data not in self.subgraphs]
        while stack:
            for callee in direct_calls(stack.pop()):
                if callee in self.subgraphs and callee not in kept:
                    kept.add(callee)
                    stack.append(self.subgraphs[callee])
        for name, graph in self.subgraphs.items():
            if name not in kept:
                Rewriter.erase_op(graph)

    def direct_outputs(self) -> set[int]:
        """Outputs that are root inputs (GE's direct_output_): not produced by the Case."""
        out = self.root.body.block.last_op
        assert isinstance(out, NetOutputOp)
        return {i for i, v in enumerate(out.outputs) if isinstance(v, BlockArgument)}

    # ---- branches ----------------------------------------------------------------------------

    def branch(self, index: int, template: BranchTemplate) -> GraphOp:
        """Gear `index`'s clone: static inputs, renamed nodes, `_batch_label`, parent indices.

        One pass builds each op with its final attributes and relaxed result types (no clone
        then retype: replacing every value afterwards cost as much as the clone)."""
        root = self.root
        postfix = f"{BRANCH_NODE_POSTFIX}{index}"
        names = root.input_names
        arg_types = [
            _with_dims(t, self.config.shape(n, index))
            for t, n in zip(root.function_type.inputs.data, names, strict=True)
        ]
        arg_attrs = []
        for j, name in enumerate(names):
            old = root.arg_attrs.data[j] if root.arg_attrs is not None else None
            arg_attrs.append(
                _dict_with(
                    old,
                    {
                        NODE_NAME: StringAttr(name + postfix),
                        PARENT_NODE_INDEX: IntegerAttr(j + 1, i64),
                    },
                )
            )
        res_attrs = []
        out_names = root.output_names
        for position, i in enumerate(template.kept):
            old = root.res_attrs.data[i] if root.res_attrs is not None else None
            res_attrs.append(
                _dict_with(
                    old,
                    {
                        NODE_NAME: StringAttr(out_names[i]),
                        PARENT_NODE_INDEX: IntegerAttr(position, i64),
                    },
                )
            )
        graph = instantiate_branch(
            root, template, branch_name(index), arg_types, index, self.renames(index)
        )
        graph.attributes.pop(ENABLE_DYNAMIC_BATCH, None)
        graph.arg_attrs = ArrayAttr(arg_attrs)
        graph.res_attrs = ArrayAttr(res_attrs)
        return graph

    def renames(self, index: int) -> dict[str, str]:
        return renames_of(self.subgraphs, index)

    def subgraph_clones(self, index: int, templates: dict[str, BranchTemplate]) -> list[GraphOp]:
        return clone_subgraphs(self.subgraphs, templates, index)

    def dynamic_graph(self) -> GraphOp:
        return hybrid_dynamic_graph(self.root, self.config)

    # ---- root --------------------------------------------------------------------------------

    def new_root(self, branches: Sequence[GraphOp], direct: set[int]) -> GraphOp:
        """Data (+ shape data) -> MapIndex(gear table) -> Case -> NetOutput (CreateRootGraph)."""
        root, config = self.root, self.config
        names = root.input_names
        in_types = [
            _with_dims(t, config.input(n).dims)
            for t, n in zip(root.function_type.inputs.data, names, strict=True)
        ]
        in_attrs = [
            _dict_with(
                root.arg_attrs.data[j] if root.arg_attrs is not None else None,
                dict(input_attrs(n, config.input(n).dims, config.max_shape(n)).data),
            )
            for j, n in enumerate(names)
        ]
        unknown_inputs = [j for j, n in enumerate(names) if config.input(n).unknown]
        k = config.gear_length
        if not self.get_dynamic_dims:
            in_types.append(TensorType(i32, [k]))
            in_attrs.append(shape_data_attrs(unknown_inputs))
        block = Block(arg_types=in_types)
        for arg, n in zip(block.args[: len(names)], names, strict=True):
            arg.name_hint = _hint(n)
        if not self.get_dynamic_dims:
            block.args[-1].name_hint = "shape_data"
        user_args = list(block.args[: len(names)])
        inserted = {INSERT_BY_MBATCH: BoolAttr.from_bool(True)}

        table = [v for gear in config.gears for v in gear]
        const = ConstOp(DenseIntOrFPElementsAttr.from_list(TensorType(i32, [len(table)]), table))
        const.attributes[NODE_NAME] = StringAttr(SHAPE_CONST_NAME)
        ops: list[Operation] = [const]
        if self.get_dynamic_dims:
            shape_info: list[int] = []
            shapes: list[Operation] = []
            arg_of_name = dict(zip(names, user_args, strict=True))
            for item in config.inputs:  # gear values follow --input_shape order
                shape_info += [len(item.dims), *item.dims]
                shape = ShapeOp(arg_of_name[item.name], dtype=i64)
                shape.attributes[NODE_NAME] = StringAttr(f"{item.name}_shape")
                shapes.append(shape)
            dims_op = GetDynamicDimsOp(shapes, shape_info=shape_info)
            dims_op.attributes[NODE_NAME] = StringAttr(GET_DYNAMIC_DIMS_NAME)
            dims_op.attributes |= inserted
            ops += [*shapes, dims_op]
            current: SSAValue = dims_op.dims
        else:
            current = block.args[-1]
        index = MapIndexOp(current, const)
        index.attributes |= {NODE_NAME: StringAttr(MAP_INDEX_NAME)} | inserted
        out = root.body.block.last_op
        assert isinstance(out, NetOutputOp)
        produced = [i for i in range(len(out.outputs)) if i not in direct]
        case = CaseOp(
            index,
            user_args,
            [b.sym_name.data for b in branches],
            [relaxed_type(out.outputs[i].type) for i in produced],
        )
        case.attributes |= {
            NODE_NAME: StringAttr(CASE_NAME),
            BATCH_NUM: IntegerAttr(config.gear_count, i64),
            **{f"{PRED_VALUE_PREFIX}{g}": int_array(gear) for g, gear in enumerate(config.gears)},
            DYNAMIC_TYPE: IntegerAttr(int(config.dynamic_type), i64),
            USER_DESIGNATE_SHAPE_ORDER: ArrayAttr([StringAttr(s.name) for s in config.inputs]),
            SHAPE_ENV: shape_env(config.symbols()),
            **inserted,
        }
        ops += [index, case]
        results = iter(case.output)
        arg_of: dict[SSAValue, SSAValue] = {a: user_args[a.index] for a in root.body.block.args}
        outputs = [arg_of[v] if i in direct else next(results) for i, v in enumerate(out.outputs)]
        out_attrs = list(root.res_attrs.data) if root.res_attrs is not None else None
        if self.get_dynamic_dims:
            outputs.append(current)
            if out_attrs is None:
                out_attrs = [DictionaryAttr({NODE_NAME: StringAttr(n)}) for n in root.output_names]
            out_attrs.append(DictionaryAttr({NODE_NAME: StringAttr(GET_DYNAMIC_DIMS_NAME)}))
        net = NetOutputOp(outputs)
        net.attributes |= out.attributes
        ops.append(net)
        block.add_ops(ops)
        graph = GraphOp(root.sym_name.data, in_types, [v.type for v in outputs], Region(block))
        graph.attributes |= root.attributes | {ENABLE_DYNAMIC_BATCH: BoolAttr.from_bool(True)}
        graph.arg_attrs = ArrayAttr(in_attrs)
        if out_attrs is not None:
            graph.res_attrs = ArrayAttr(out_attrs)
        return graph

    # ---- shapes ------------------------------------------------------------------------------

    def infer(self, ctx: Context) -> None:
        """`ge-infer-shapes` makes the branches static; anything left `?` is an error."""
        from gedialects.passes.infer_shapes import InferShapesPass

        try:
            InferShapesPass().apply(ctx, self.module)
        except PassFailedException as e:
            raise _fail(f"shape inference of the gear branches failed: {e}") from None

    def record_output_dims(
        self, root: GraphOp, branches: Sequence[GraphOp], direct: set[int]
    ) -> None:
        """GE's GetDynamicOutputShape: `"<gear>,<output>,<dims>"` on the root NetOutput."""
        static: dict[int, bool] = {}  # by type identity: the branches share type objects
        for branch in branches if self.static_branches else ():
            block = branch.body.block
            # An operand is a block argument or the result of an op checked before it: with
            # static arguments, checking the results finds the first op that has a `?`.
            args_static = all(is_static(a.type) for a in block.args)
            for op in block.ops:
                values = op.results
                if not args_static:
                    values = (*values, *(v for v in op.operands if isinstance(v, BlockArgument)))
                for value in values:
                    known = static.get(id(value.type))
                    if known is None:
                        known = static[id(value.type)] = is_static(value.type)
                    if not known:
                        raise _fail(
                            f"'{op.name}' ({_node_name(op)}) in @{branch.sym_name.data} has "
                            f"type {value.type} after shape inference; every value of a gear "
                            "branch must be static (GE: Multi-batch not support middle "
                            "dynamic shape; drop static-branches to partition the branch into "
                            "static and dynamic parts)"
                        )
        entries: list[StringAttr] = []
        count = len(branches[0].function_type.outputs.data) + len(direct)
        produced = [i for i in range(count) if i not in direct]
        others = [i for i in range(len(root.function_type.outputs.data)) if i not in produced]
        for g, branch in enumerate(branches):
            for position, i in enumerate(produced):
                t = branch.function_type.outputs.data[position]
                assert isinstance(t, TensorType)
                entries.append(output_dims_entry(g, i, t.get_shape()))
        out = root.body.block.last_op
        assert isinstance(out, NetOutputOp)
        for i in others:
            t = root.function_type.outputs.data[i]
            assert isinstance(t, TensorType)
            value = out.outputs[i]
            name = root.input_names[value.index] if isinstance(value, BlockArgument) else None
            if name is not None and not is_static(t) and self.config.input(name).unknown:
                # A root input returned as it is (GE's direct output): its shape is the
                # input's in each gear. GE writes one `-1` entry with the root Data's
                # shape, which it has set to the largest gear (SetMaxShapeToData), so a
                # smaller gear would report the largest gear's shape; one entry per gear
                # reports each gear's own.
                for g in range(self.config.gear_count):
                    entries.append(output_dims_entry(g, i, self.config.shape(name, g)))
            else:
                entries.append(output_dims_entry(-1, i, t.get_shape()))
        out.attributes[DYNAMIC_OUTPUT_DIMS] = ArrayAttr(entries)


def hybrid_dynamic_graph(root: GraphOp, config: GearConfig) -> GraphOp:
    """Hybrid mode (GE UserHybridGraphManager): a copy of `root` named `@<root>_dynamic` with
    `?` on the configured -1 dims and every result relaxed for shape inference, run for
    shapes that match no gear (an exported model's fixed batch held for one shape only)."""
    graph = root.clone()
    graph.sym_name = StringAttr(root.sym_name.data + HYBRID_SUFFIX)
    block = graph.body.block
    for arg, name in zip(block.args, root.input_names, strict=True):
        Rewriter.replace_value_with_new_type(arg, _with_dims(arg.type, config.input(name).dims))
    for op in block.ops:
        if not isinstance(op, ConstOp | NetOutputOp):
            for result in op.results:
                Rewriter.replace_value_with_new_type(result, relaxed_type(result.type))
    out = block.last_op
    assert isinstance(out, NetOutputOp)
    graph.function_type = FunctionType.from_lists(
        block.arg_types, [relaxed_type(v.type) for v in out.outputs]
    )
    return graph


def reachable_graphs(module: ModuleOp, root: GraphOp) -> dict[str, GraphOp]:
    """The subgraphs `root` calls, transitively, in first-call order; ValueError for a call of
    no `graph.graph` of `module` or of `root` itself."""
    graphs = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    found: dict[str, GraphOp] = {}
    stack = [root]
    while stack:
        graph = stack.pop()
        for callee in direct_calls(graph):
            if callee in found:
                continue
            target = graphs.get(callee)
            if target is None:
                raise ValueError(
                    f"@{graph.sym_name.data} calls @{callee}, which is not a graph.graph of "
                    "the module"
                )
            if target is root:
                raise ValueError(f"@{graph.sym_name.data} calls @{callee}, the graph expanded")
            found[callee] = target
            stack.append(target)
    return found


def renames_of(
    subgraphs: dict[str, GraphOp], index: int, postfix: str = BRANCH_NODE_POSTFIX
) -> dict[str, str]:
    """Gear `index`'s names of `subgraphs` (GE renames nested subgraphs with the branch's node
    postfix)."""
    return {name: f"{name}{postfix}{index}" for name in subgraphs}


def clone_subgraphs(
    subgraphs: dict[str, GraphOp],
    templates: dict[str, BranchTemplate],
    index: int,
    postfix: str = BRANCH_NODE_POSTFIX,
) -> list[GraphOp]:
    """Gear `index`'s copies of `subgraphs` (GE's MultiBatchClonePass copies the whole graph
    with its subgraphs per branch): relaxed inputs, so that shape inference gives each copy
    its gear's static shapes from the caller."""
    renames = renames_of(subgraphs, index, postfix)
    node_postfix = f"{postfix}{index}"
    clones: list[GraphOp] = []
    for name, graph in subgraphs.items():
        arg_types = [relaxed_type(t) for t in graph.function_type.inputs.data]
        clone = instantiate_branch(
            graph,
            templates[name],
            renames[name],
            arg_types,
            index,
            renames,
            all_kept=True,
            postfix=postfix,
        )
        if graph.arg_attrs is not None:
            clone.arg_attrs = ArrayAttr([_postfixed(a, node_postfix) for a in graph.arg_attrs.data])
        if graph.res_attrs is not None:
            clone.res_attrs = graph.res_attrs
        clones.append(clone)
    return clones


def _postfixed(attrs: DictionaryAttr, postfix: str) -> DictionaryAttr:
    name = attrs.data.get(NODE_NAME)
    if not isinstance(name, StringAttr):
        return attrs
    return _dict_with(attrs, {NODE_NAME: StringAttr(name.data + postfix)})


def instantiate_branch(
    graph: GraphOp,
    template: BranchTemplate,
    name: str,
    arg_types: Sequence[Attribute],
    index: int,
    renames: dict[str, str],
    *,
    all_kept: bool = False,
    postfix: str = BRANCH_NODE_POSTFIX,
) -> GraphOp:
    """Gear `index`'s copy of `graph` (its `template`) named `name`: nodes renamed with the
    branch `postfix` and `index`, `_batch_label`, result types relaxed, subgraph symbols per
    `renames`."""
    label = branch_name(index)
    postfix = f"{postfix}{index}"
    block = Block(arg_types=arg_types)
    for old_arg, arg in zip(graph.body.block.args, block.args, strict=True):
        arg.name_hint = old_arg.name_hint
    label_attr = StringAttr(label)
    values: list[SSAValue] = list(block.args)
    ops: list[Operation] = []
    for t in template.ops:
        op = t.op
        attributes = dict(op.attributes)
        if t.node is not None:
            attributes[NODE_NAME] = StringAttr(t.node + postfix)
        attributes[BATCH_LABEL] = label_attr
        operands = [values[k] for k in t.operands]
        if t.is_output:
            new = NetOutputOp(operands if all_kept else [operands[i] for i in template.kept])
            new.attributes = attributes
        else:
            properties = op.properties
            if t.calls:
                properties = {k: _renamed(v, renames) for k, v in properties.items()}
            new = op.create(
                operands=operands,
                result_types=t.result_types,
                properties=properties,  # create copies the dicts
                attributes=attributes,
                location=op.location,
                regions=[Region() for _ in op.regions] if op.regions else (),
            )
            if op.regions:
                mapper = dict(zip(template.values, values, strict=False))  # a prefix
                for old_region, new_region in zip(op.regions, new.regions, strict=True):
                    old_region.clone_into(new_region, value_mapper=mapper)
            for result, hint in zip(new.results, t.hints, strict=True):
                if hint is not None:
                    result.name_hint = hint
            values.extend(new.results)
        ops.append(new)
    block.add_ops(ops)
    out = ops[-1]
    assert isinstance(out, NetOutputOp)
    clone = GraphOp(name, block.arg_types, [v.type for v in out.outputs], Region(block))
    clone.attributes = dict(graph.attributes)
    return clone


def _node_name(op: Operation) -> str:
    name = op.attributes.get(NODE_NAME)
    return name.data if isinstance(name, StringAttr) else "unnamed"


def _hint(name: str) -> str | None:
    return name if name.replace("_", "a").isalnum() and not name[0].isdigit() else None


def _symbol_names(module: ModuleOp) -> set[str]:
    """What `SymbolTable.lookup_symbol` finds in `module`, in one scan."""
    names: set[str] = set()
    for op in module.ops:
        interface = op.get_trait(SymbolOpInterface)
        name = interface.get_sym_attr_name(op) if interface is not None else None
        if name is not None:
            names.add(name.data)
    return names


def _after(op: Operation) -> InsertPoint:
    return InsertPoint.after(op)


def _roots(module: ModuleOp) -> list[GraphOp]:
    graphs = [g for g in module.ops if isinstance(g, GraphOp)]
    called = {name for g in graphs for name in direct_calls(g)}
    return [g for g in graphs if g.sym_name.data not in called]


@dataclass(frozen=True)
class MultibatchExpandPass(ModulePass):
    """Splits the root graph into one static branch per gear, selected at run time.

    Options, as atc spells them (quote values: `input-shape="x:-1,3;y:-1"`):
    `input-shape` (required; every graph input, -1 on the dims that change),
    one of `dynamic-batch-size="1,4,8"`, `dynamic-image-size="224,224;448,448"`,
    `dynamic-dims="1,20;4,40"`, `input-format` (`NCHW` or `NHWC`, for image sizes),
    `get-dynamic-dims` (take the gear from the input shapes with `multibatch.get_dynamic_dims`,
    GE's GetNext-sink variant, instead of the `ascend_mbatch_shape_data` input), `entry`
    (the root graph when there are several), `hybrid` (also keep the fully dynamic graph
    `@<root>_dynamic`, named by the root's `_hybrid_dynamic_graph`, for shapes of no gear),
    `static-branches` (GE's refusal of a `?` left in a branch, "Multi-batch not support middle
    dynamic shape"; by default such a branch is partitioned into static and dynamic parts).
    Subgraphs the root calls (If / While / Case branches, partitioned calls) are copied per
    gear, as GE's MultiBatchClonePass copies the graph with its subgraphs. Errors carry GE's
    codes and messages.
    """

    name = "ge-expand-multibatch"

    input_shape: str = ""
    dynamic_batch_size: str = ""
    dynamic_image_size: str = ""
    dynamic_dims: str = ""
    input_format: str = "NCHW"
    get_dynamic_dims: bool = False
    entry: str = ""
    hybrid: bool = False
    static_branches: bool = False

    def config(self) -> GearConfig:
        try:
            config = parse_options(
                input_shape=self.input_shape,
                dynamic_batch_size=self.dynamic_batch_size,
                dynamic_image_size=self.dynamic_image_size,
                dynamic_dims=self.dynamic_dims,
                input_format=self.input_format,
            )
        except GearError as e:
            raise _fail(e.one_line) from None
        if config.dynamic_type is DynamicType.FIXED:
            raise _fail(
                "E10058: Parameter --dynamic_batch_size, --dynamic_image_size or --dynamic_dims "
                "is not configured or is empty."
            )
        return config

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        config = self.config()
        roots = _roots(op)
        if self.entry:
            roots = [g for g in roots if g.sym_name.data == self.entry]
            if not roots:
                raise _fail(f"no root graph named @{self.entry}")
        if len(roots) != 1:
            names = ", ".join("@" + g.sym_name.data for g in roots) or "none"
            raise _fail(f"expands exactly one root graph, found {names}; choose with entry=")
        from gedialects.base import paused_gc

        root = roots[0]
        from gedialects.passes import getnext

        get_next = getnext.find_get_next(root)
        with paused_gc():  # a clone per gear: many small objects, no cycles to collect
            if get_next is None:
                _Expansion(
                    op, root, config, self.get_dynamic_dims, self.hybrid, self.static_branches
                ).run(ctx)
                return
            # GetNext sink (GE's InitParamsOfGetNext): the gear comes from the input shapes
            if self.hybrid:
                raise _fail(
                    "hybrid mode needs Data inputs (GE: ge.dynamicNodeType=1); "
                    f"@{root.sym_name.data} is fed by a GetNext"
                )
            ori = getnext.create_ori_graph(root, get_next, _NAME)
            new_root = _Expansion(op, root, config, True, False, self.static_branches).run(ctx)
            getnext.link_get_next(new_root, ori)
