"""Graph structure: `graph.graph` (GE ComputeGraph), `graph.net_output`, `graph.const`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
    UnrankedTensorType,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    ConstantLike,
    HasParent,
    IsTerminator,
    Pure,
    ReturnLike,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from gedialects import exact_text, fast_text, fast_verify
from gedialects.base import NODE_NAME, GEOp, block_ops, init_op, new_array, new_string
from gedialects.formats import verify_tensor_format
from gedialects.strings import StringsAttr

# --------------------------------------------------------------------------------------------
# Graph structure
# --------------------------------------------------------------------------------------------


class GraphCallable(CallableOpInterface):
    """Lets `partition.partitioned_call`, `multibatch.case` and the interpreter call a graph."""

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        assert isinstance(op, GraphOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, GraphOp)
        return op.function_type.inputs.data

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, GraphOp)
        return op.function_type.outputs.data


def _names(attrs: ArrayAttr[DictionaryAttr] | None, index: int) -> str | None:
    if attrs is None or index >= len(attrs.data):
        return None
    name = attrs.data[index].data.get(NODE_NAME)
    return name.data if isinstance(name, StringAttr) else None


def function_type(inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> FunctionType:
    """`FunctionType.from_lists(inputs, outputs)` without xDSL's generic verification of the
    three attributes (each only checks that the parameters are array attributes, which they
    are here by construction): one per graph the partitioners make."""
    attr = FunctionType.__new__(FunctionType)
    object.__setattr__(attr, "inputs", new_array(inputs))
    object.__setattr__(attr, "outputs", new_array(outputs))
    return attr


def ssa_values(values: Sequence[SSAValue | Operation]) -> list[SSAValue]:
    """The operands as `irdl_op_init` takes them: an op stands for its single result."""
    return [v if isinstance(v, SSAValue) else SSAValue.get(v) for v in values]


@irdl_op_definition
class GraphOp(GEOp):
    """GE ComputeGraph: a named graph; block arguments are its Data inputs.

    Input `i` is named by the `node_name` argument attribute, else by its SSA name, else
    `arg<i>`; outputs likewise by `node_name` result attributes, else `output<i>`. The names are
    the keys of `ge-run`'s npz files.

        graph.graph @main(%x: tensor<1x4xf32>) -> (tensor<1x4xf32> {node_name = "y"}) {
          %y = graph.relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
          graph.net_output %y : tensor<1x4xf32>
        }
    """

    name = "graph.graph"
    GE_TYPE: ClassVar[str] = "ComputeGraph"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def("single_block")

    traits = traits_def(fast_verify.BodyIsolatedFromAbove(), SymbolOpInterface(), GraphCallable())

    def __init__(
        self,
        name: str,
        inputs: Sequence[Attribute],
        outputs: Sequence[Attribute],
        body: Region | None = None,
        *,
        input_names: Sequence[str] | None = None,
        output_names: Sequence[str] | None = None,
    ) -> None:
        body = body if body is not None else Region(Block(arg_types=inputs))
        props: dict[str, Attribute] = {
            "sym_name": new_string(name),
            "function_type": function_type(inputs, outputs),
        }
        if input_names is not None:
            props["arg_attrs"] = _name_attrs(input_names)
        if output_names is not None:
            props["res_attrs"] = _name_attrs(output_names)
        # What `irdl_op_init` ends in, without its generic argument lists (a single region,
        # no segments): the engine partitioner builds one graph per subgraph (2.6k at 10k
        # nodes); tests/test_partition_builders.py checks it against the generic build.
        init_op(self, properties=props, regions=(body,))

    @classmethod
    def parse(cls, parser: Parser) -> GraphOp:
        with fast_text.fast_block_bodies(parser):
            name, ins, outs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
                parser, reserved_attr_names=("sym_name", "function_type", "arg_attrs", "res_attrs")
            )
        op = cls(name, ins, outs, region)
        op.arg_attrs = arg_attrs
        op.res_attrs = res_attrs
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=("sym_name", "function_type", "arg_attrs", "res_attrs"),
        )

    @property
    def input_names(self) -> tuple[str, ...]:
        args = self.body.block.args
        return tuple(
            _names(self.arg_attrs, i) or args[i].name_hint or f"arg{i}" for i in range(len(args))
        )

    @property
    def output_names(self) -> tuple[str, ...]:
        count = len(self.function_type.outputs.data)
        return tuple(_names(self.res_attrs, i) or f"output{i}" for i in range(count))

    def verify_(self) -> None:
        block = self.body.block
        if tuple(block.arg_types) != self.function_type.inputs.data:
            raise VerifyException(
                f"'graph.graph' @{self.sym_name.data}: entry block argument types "
                "must match the function type inputs"
            )
        for attrs, count, what in (
            (self.arg_attrs, len(block.args), "arg_attrs"),
            (self.res_attrs, len(self.function_type.outputs.data), "res_attrs"),
        ):
            if attrs is not None and len(attrs.data) != count:
                raise VerifyException(
                    f"'graph.graph' @{self.sym_name.data}: {what} has {len(attrs.data)} "
                    f"entries for {count} values"
                )
        for names, what in ((self.input_names, "input"), (self.output_names, "output")):
            if len(set(names)) != len(names):
                dup = next(n for n in names if names.count(n) > 1)
                raise VerifyException(
                    f"'graph.graph' @{self.sym_name.data}: duplicate {what} name '{dup}'"
                )
        _verify_topological(self)
        _verify_module_rules(self)


ModuleRule = Callable[[ModuleOp], None]
Needs = Callable[[type[Operation]], bool]
"""Of an op class: whether a rule can fail on a module holding an op of that class."""

MODULE_RULES: list[tuple[ModuleRule, Needs]] = []
"""Rules over a whole module (a cycle of graph calls; in `gedialects.partition`, `peerIndex`
pairs). An op verifier sees one op, and checking such a rule from every op would walk the module
once per op: the first `graph.graph` of a module runs each rule once per verification instead,
and only when the module's graphs hold an op the rule needs (a module without variables has no
variable rule to check). Dialects add theirs with `module_rule` when they are imported, i.e.
before any of their ops can exist."""


def module_rule(needs: Needs) -> Callable[[ModuleRule], ModuleRule]:
    """Registers a rule that can only fail on a module whose graphs hold an op of a class
    `needs` accepts."""

    def register(rule: ModuleRule) -> ModuleRule:
        MODULE_RULES.append((rule, needs))
        return rule

    return register


def _verify_module_rules(graph: GraphOp) -> None:
    module = graph.parent_op()
    if not isinstance(module, ModuleOp):
        return
    graphs = [op for op in module.body.block.ops if isinstance(op, GraphOp)]
    if graphs[0] is not graph:
        return
    kinds = {type(op) for g in graphs for op in block_ops(g.body.block)}
    for rule, needs in MODULE_RULES:
        if any(needs(kind) for kind in kinds):
            rule(module)


def find_call_cycle(graphs: Mapping[str, GraphOp]) -> tuple[Operation, str, list[str]] | None:
    """The first cycle of graph calls (iterative DFS over the ops that run graphs, those with a
    `called_graphs()` method: `partitioned_call`, `case`), as the op that closes it, the graph
    holding that op and the cycle's names (`[a, b, a]`); None without one. Shared by the module
    verifier and `ge-verify-graph`."""
    calls: dict[str, list[tuple[Operation, str]]] = {}
    calling: dict[type[Operation], bool] = {}  # per class: a failed getattr per op is slow
    for name, graph in graphs.items():
        found = calls[name] = []
        for op in block_ops(graph.body.block):
            kind = type(op)
            has = calling.get(kind)
            if has is None:
                has = calling[kind] = getattr(kind, "called_graphs", None) is not None
            if has:
                callees = op.called_graphs  # pyright: ignore[reportAttributeAccessIssue]
                found.extend((op, c) for c in callees() if c in graphs)
    state: dict[str, int] = {}  # 1 = on the DFS stack, 2 = finished
    for root in graphs:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(calls[root]))]
        while stack:
            current, edges = stack[-1]
            edge = next(edges, None)
            if edge is None:
                state[current] = 2
                stack.pop()
                continue
            op, child = edge
            if state.get(child) == 1:
                names = [n for n, _ in stack]
                return op, current, [*names[names.index(child) :], child]
            if child not in state:
                state[child] = 1
                stack.append((child, iter(calls[child])))
    return None


def _calls_graphs(kind: type[Operation]) -> bool:
    return hasattr(kind, "called_graphs")


@module_rule(_calls_graphs)
def check_call_cycles(module: ModuleOp) -> None:
    """No graph reaches itself through the ops that run graphs: the interpreter would recurse
    without end and GE rejects such a graph. The error names the op that closes the cycle and
    the cycle."""
    graphs = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, GraphOp)}
    found = find_call_cycle(graphs)
    if found is not None:
        op, current, cycle = found
        raise VerifyException(
            f"'{op.name}' in @{current} calls @{cycle[-1]}: graphs call "
            f"each other in a cycle @{' -> @'.join(cycle)}"
        )


def _name_attrs(names: Sequence[str]) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr([DictionaryAttr({NODE_NAME: StringAttr(n)}) for n in names])


def _verify_topological(graph: GraphOp) -> None:
    """Every operand is a graph input or the result of an earlier op (linear time).

    The values are kept by object identity: the IR holds them alive, and `SSAValue.__hash__`
    is a Python call per operand and per result (a third of this check)."""
    defined: set[int] = set(map(id, graph.body.block.args))
    for op in block_ops(graph.body.block):
        for operand in op._operands:  # pyright: ignore[reportPrivateUsage]
            if id(operand) not in defined:
                raise VerifyException(
                    f"'graph.graph' @{graph.sym_name.data}: operand of '{op.name}' is used "
                    "before it is defined; graph ops must be in topological order"
                )
        defined.update(map(id, op.results))


@irdl_op_definition
class NetOutputOp(GEOp):
    """GE NetOutput: the outputs of the enclosing graph, in order.

    Its operand types are exactly the result types of the graph.

        graph.net_output %a, %b : tensor<2xf32>, tensor<3xi32>
    """

    name = "graph.net_output"
    GE_TYPE: ClassVar[str] = "NetOutput"
    OWN_FORMATS: ClassVar[bool] = True
    """A subgraph's NetOutput passes its tensors' formats to the function node (FE's
    propagation crosses it, `ge-select-formats`): any storage format whose encoding holds."""

    outputs = var_operand_def(TensorType | UnrankedTensorType)

    traits = traits_def(IsTerminator(), ReturnLike(), HasParent(GraphOp))

    assembly_format = "attr-dict ($outputs^ `:` type($outputs))?"

    def __init__(self, outputs: Sequence[SSAValue | Operation]) -> None:
        # `irdl_op_init` without its generic argument lists (one variadic operand, no
        # segments): two per engine subgraph; checked against the generic build in
        # tests/test_partition_builders.py.
        init_op(self, ssa_values(outputs))

    def verify_(self) -> None:
        graph = self.parent_op()
        assert isinstance(graph, GraphOp)
        for t in self.outputs.types:
            if (why := verify_tensor_format(t)) is not None:
                raise VerifyException(f"'graph.net_output' {why}")
        expected = graph.function_type.outputs.data
        if tuple(self.outputs.types) != expected:
            raise VerifyException(
                f"'graph.net_output' types ({', '.join(map(str, self.outputs.types))}) do not "
                f"match the outputs of @{graph.sym_name.data} ({', '.join(map(str, expected))})"
            )


# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ConstOp(GEOp):
    """GE Const: a weight or other constant tensor, its bytes held in a dense attribute.

    The result type is the type of the value. A `DT_STRING` constant holds a
    `#graph.strings` attribute instead (`gedialects.strings`).

        %w = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
        %s = graph.const #graph.strings<["a", ""] : tensor<2x!graph.string>>
    """

    name = "graph.const"
    GE_TYPE: ClassVar[str] = "Const"
    OWN_FORMATS: ClassVar[bool] = True

    value = prop_def(DenseIntOrFPElementsAttr | StringsAttr)
    y = result_def(TensorType)

    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr | StringsAttr) -> None:
        # what irdl_op_init ends in for one property and one result (its argument lists
        # would change nothing; the importer builds one per initializer and helper constant),
        # by `init_op` (Operation.__init__ less its generic paths)
        init_op(self, result_types=(value.type,), properties={"value": value})

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        pos = parser.pos
        value = exact_text.parse_dense_value(parser) or parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr | StringsAttr):
            parser.raise_error(
                "'graph.const' expects a dense<...> : tensor<...> or #graph.strings<...> value",
                pos,
            )
        attributes = fast_text.parse_optional_attr_dict(parser)
        if isinstance(value.type, TensorType):  # what __init__ builds, without its checks
            return cls.create(
                properties={"value": value}, result_types=[value.type], attributes=attributes
            )
        op = cls(value)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        if isinstance(self.value, StringsAttr):
            printer.print_string(" ")
            printer.print_attribute(self.value)
            fast_text.print_attr_dict(printer, self.attributes)
            return
        text = exact_text.dense_text(self.value)
        attrs = fast_text.attr_dict_text(self.attributes) if text is not None else None
        if text is not None and attrs is not None:
            printer.print_string(f" {text}{attrs}")
            return
        printer.print_string(" ")
        printer.print_attribute(self.value)
        fast_text.print_attr_dict(printer, self.attributes)

    def verify_(self) -> None:
        if self.y.type != self.value.type:
            raise VerifyException(
                f"'graph.const' result type {self.y.type} differs from its value's "
                f"type {self.value.type}"
            )
        if (why := verify_tensor_format(self.y.type)) is not None:
            raise VerifyException(f"'graph.const' {why}")


__all__ = ["ConstOp", "GraphOp", "NetOutputOp"]

OPS = (GraphOp, NetOutputOp, ConstOp)
"""The ops of this module, in the order the dialect lists them."""
