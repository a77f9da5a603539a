"""A multi-batch model's gear table at run time, and how runs use it.

- `GearInfo.from_module(module)` / `find(graph)` / `find_model(model)` read the gear table back
  from an expanded root or its lowered `ascend.model`, with the ACL query API
  (`aclmdlGetInputDynamicGearCount`, `aclmdlGetInputDynamicDims`, `aclmdlSetInputDynamicDims`)
  and the binding of user inputs to a gear (GE's DavinciModel::GetCurDynamicDims);
- `hybrid_route` is the one routing rule of hybrid mode, `gear_signature` the user-facing
  signature `interpreters.run.signature` gives an entry with gears.

In the interpreter layer because the model interpreter runs gears itself (it selects the gear,
writes inputs into the largest gear's buffers, shapes outputs by `_dynamic_output_dims`); the
Session, the tools and the tests query the same table. numpy is imported only when needed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable

from gedialects.ascend import ModelOp
from gedialects.base import NODE_NAME, ge_dims, int_array_values, symbol_name
from gedialects.errors import DynamicInputError, GearMismatchError
from gedialects.gear_options import GearConfig, InputShape, dims_text
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.graph.getnext import GETNEXT_OUTPUT_ATTRS, GETNEXT_SINK_DYNAMIC, GetNextOp
from gedialects.interpreters.entry import RunError, Signature, find_entry
from gedialects.multibatch import (
    BATCH_NUM,
    DYNAMIC_OUTPUT_DIMS,
    DYNAMIC_TYPE,
    HYBRID_GRAPH,
    IS_MULTI_BATCH_SHAPE_DATA,
    ORIGIN_INPUT_DIMS,
    PRED_VALUE_PREFIX,
    SHAPE_DATA_NAME,
    SYMBOLIC_OUTPUT_SHAPE,
    USER_DESIGNATE_SHAPE_ORDER,
    CaseOp,
    DynamicType,
    GetDynamicDimsOp,
    parse_output_dims,
    symbolic_output_shape,
)

if TYPE_CHECKING:
    import numpy as np


def _int_list(attr: Attribute | None) -> tuple[int, ...] | None:
    if isinstance(attr, DenseArrayBase):
        return int_array_values(attr)
    return None


def _flag(attrs: Mapping[str, Attribute], key: str) -> bool:
    value = attrs.get(key)
    return isinstance(value, IntegerAttr) and bool(value.value.data)


def _arg_attrs(graph: GraphOp, index: int) -> dict[str, Attribute]:
    if graph.arg_attrs is None:
        return {}
    return dict(graph.arg_attrs.data[index].data)


@dataclass(frozen=True)
class GearInfo:
    """The gears of an expanded root graph, as ACL's model description reports them.

    `from_module` / `from_graph` read them from the Case attributes (`_batch_num`,
    `_pred_value_<i>`, `mbatch_dynamic_type`, `user_designate_shape_order`), the inputs'
    `_mbatch_origin_input_dims` and the root output's `_dynamic_output_dims`.
    """

    graph: str
    config: GearConfig
    input_names: tuple[str, ...]
    """User inputs in root-graph order (the shape-data input excluded)."""
    shape_data_index: int | None
    """Position of `ascend_mbatch_shape_data` among the root inputs; None with GetDynamicDims."""
    output_names: tuple[str, ...]
    output_dims: dict[int, dict[int, tuple[int, ...]]]
    """Gear (-1 = any gear) -> output index -> dims, from `_dynamic_output_dims`."""
    getnext_types: tuple[Attribute, ...] = ()
    """GetNext sink (`getnext_sink_dynamic`): the types of the GetNext's data outputs, the
    last inputs of `input_names` (the graph's result types, or the model's largest-gear
    buffers); the gear is found on the device and read back from the hidden last output
    (not in `output_names`)."""

    recorded_shapes: tuple[tuple[str, ...], ...] | None = None
    """A model's `_symbolic_output_shape` (what the compile recorded), per output."""

    @property
    def getnext(self) -> bool:
        return bool(self.getnext_types)

    @classmethod
    def from_module(cls, module: ModuleOp, entry: str | None = None) -> GearInfo:
        graph = find_entry(module, entry)
        if not isinstance(graph, GraphOp):
            raise ValueError(f"@{graph.sym_name.data} is not a graph.graph")
        return cls.from_graph(graph)

    @classmethod
    def from_graph(cls, graph: GraphOp) -> GearInfo:
        info = cls.find(graph)
        if info is None:
            raise ValueError(
                f"@{graph.sym_name.data} has no gears (no multibatch.case with {BATCH_NUM}); "
                "run ge-expand-multibatch first"
            )
        return info

    @classmethod
    def find(cls, graph: GraphOp) -> GearInfo | None:
        """The gears of `graph`, or None when it is not an expanded multi-batch root."""
        case = next(
            (
                op
                for op in graph.body.block.ops
                if isinstance(op, CaseOp) and BATCH_NUM in op.attributes
            ),
            None,
        )
        if case is None:
            return None
        inputs = [
            (name, _arg_attrs(graph, i), graph.function_type.inputs.data[i])
            for i, name in enumerate(graph.input_names)
        ]
        has_dims_op = any(isinstance(op, GetDynamicDimsOp) for op in graph.body.block.ops)
        last = graph.body.block.last_op
        out_attr = (
            last.attributes.get(DYNAMIC_OUTPUT_DIMS) if isinstance(last, NetOutputOp) else None
        )
        get_next = next((op for op in graph.body.block.ops if isinstance(op, GetNextOp)), None)
        output_names = graph.output_names
        if get_next is not None and isinstance(last, NetOutputOp):
            found = get_next.attributes.get(GETNEXT_OUTPUT_ATTRS)
            dicts = found.data if isinstance(found, ArrayAttr) else ()
            for i, name in enumerate(get_next.names):
                attrs = (
                    dicts[i] if i < len(dicts) and isinstance(dicts[i], DictionaryAttr) else None
                )
                inputs.append((name, dict(attrs.data) if attrs else {}, get_next.outputs[i].type))
            if _flag(last.attributes, GETNEXT_SINK_DYNAMIC):
                output_names = output_names[:-1]
        return cls._build(
            graph.sym_name.data,
            case.attributes,
            inputs,
            output_names,
            out_attr,
            has_dims_op,
            tuple(r.type for r in get_next.outputs[: get_next.count]) if get_next else (),
        )

    @classmethod
    def find_model(cls, model: Operation) -> GearInfo | None:
        """The gears of a lowered `ascend.model`, or None: the lowering copies the Case's gear
        attributes and `_dynamic_output_dims` onto the model and the root inputs' attributes
        onto its `ascend.input`s (what GE's DavinciModel reads from the OM file)."""
        if not isinstance(model, ModelOp) or BATCH_NUM not in model.attributes:
            return None
        inputs = [(op.input_name.data, op.attributes, op.buffer.type) for op in model.inputs()]
        tasks = model.tasks()
        has_dims_op = any(
            op.effects().kernel == GetDynamicDimsOp.GE_TYPE and not op.effects().hybrid
            for op in tasks
        )
        output_names = model.output_names
        getnext = _flag(model.attributes, GETNEXT_SINK_DYNAMIC)
        types: list[Attribute] = []
        if getnext:
            task = next((t for t in tasks if t.effects().kernel == GetNextOp.GE_TYPE), None)
            found = model.attributes.get(GETNEXT_OUTPUT_ATTRS)
            if task is None or not isinstance(found, ArrayAttr):
                raise ValueError(
                    f"@{model.sym_name.data}: {GETNEXT_SINK_DYNAMIC} without a GetNext task "
                    f"and {GETNEXT_OUTPUT_ATTRS}"
                )
            outs = task.effects().outs
            for attrs, buffer in zip(found.data, outs, strict=False):
                if not isinstance(attrs, DictionaryAttr):
                    raise ValueError(f"@{model.sym_name.data}: malformed {GETNEXT_OUTPUT_ATTRS}")
                name = attrs.data.get(NODE_NAME)
                if not isinstance(name, StringAttr):
                    raise ValueError(f"@{model.sym_name.data}: a GetNext output has no name")
                inputs.append((name.data, dict(attrs.data), buffer.type))
                types.append(buffer.type)
            output_names = output_names[:-1]
        info = cls._build(
            model.sym_name.data,
            model.attributes,
            inputs,
            output_names,
            model.attributes.get(DYNAMIC_OUTPUT_DIMS),
            has_dims_op,
            tuple(types) if getnext else (),
        )
        recorded = model.attributes.get(SYMBOLIC_OUTPUT_SHAPE)
        if not isinstance(recorded, ArrayAttr):
            return info
        shapes = tuple(
            tuple(d.data for d in dims.data if isinstance(d, StringAttr))
            for dims in recorded.data
            if isinstance(dims, ArrayAttr)
        )
        return dataclasses.replace(info, recorded_shapes=shapes)

    @classmethod
    def _build(
        cls,
        name: str,
        attrs: Mapping[str, Attribute],
        inputs: Sequence[tuple[str, Mapping[str, Attribute], Attribute]],
        output_names: tuple[str, ...],
        output_dims: Attribute | None,
        has_dims_op: bool,
        getnext_types: tuple[Attribute, ...] = (),
    ) -> GearInfo:
        count = attrs[BATCH_NUM]
        kind = attrs.get(DYNAMIC_TYPE)
        order = attrs.get(USER_DESIGNATE_SHAPE_ORDER)
        if not isinstance(count, IntegerAttr) or not isinstance(kind, IntegerAttr):
            raise ValueError(f"@{name}: malformed {BATCH_NUM}/{DYNAMIC_TYPE}")
        gears = []
        for i in range(count.value.data):
            gear = _int_list(attrs.get(f"{PRED_VALUE_PREFIX}{i}"))
            if gear is None:
                raise ValueError(f"@{name}: no {PRED_VALUE_PREFIX}{i}")
            gears.append(gear)
        shape_data = None
        dims: dict[str, tuple[int, ...]] = {}
        for i, (input_name, arg, t) in enumerate(inputs):
            if _flag(arg, IS_MULTI_BATCH_SHAPE_DATA):
                shape_data = i
                continue
            origin = _int_list(arg.get(ORIGIN_INPUT_DIMS))
            if origin is None:
                origin = ge_dims(t.get_shape()) if isinstance(t, TensorType) else ()
            dims[input_name] = origin
        user_order = (
            [s.data for s in order.data if isinstance(s, StringAttr)]
            if isinstance(order, ArrayAttr)
            else list(dims)
        )
        if shape_data is None and not has_dims_op:
            raise ValueError(
                f"@{name}: no {SHAPE_DATA_NAME} input and no "
                "multibatch.get_dynamic_dims feed the gear lookup"
            )
        config = GearConfig(
            tuple(InputShape(n, dims[n]) for n in user_order),
            DynamicType(kind.value.data),
            tuple(gears),
        )
        return cls(
            name,
            config,
            tuple(n for i, (n, _, _) in enumerate(inputs) if i != shape_data),
            shape_data,
            output_names,
            parse_output_dims(output_dims),
            getnext_types,
        )

    # aclmdlGetInputDynamicGearCount / aclmdlGetInputDynamicDims
    @property
    def gear_count(self) -> int:
        return self.config.gear_count

    @property
    def dynamic_type(self) -> DynamicType:
        return self.config.dynamic_type

    @property
    def gears(self) -> tuple[tuple[int, ...], ...]:
        """The gear table: the values of the -1 dims, one row per gear (`_pred_value_<i>`)."""
        return self.config.gears

    def input_dims(self, gear: int) -> dict[str, tuple[int, ...]]:
        """The full dims of every input in gear `gear` (what aclmdlGetInputDynamicDims lists)."""
        self._check_index(gear)
        return {name: self.config.shape(name, gear) for name in self.input_names}

    def output_dims_of(self, gear: int) -> dict[str, tuple[int, ...]]:
        """The output dims in gear `gear` (GE's GetGearAndRealOutShapeInfo)."""
        self._check_index(gear)
        merged = self.output_dims.get(-1, {}) | self.output_dims.get(gear, {})
        count = len(self.output_names)  # GetNext sink: the hidden last output has no name
        return {self.output_names[i]: dims for i, dims in sorted(merged.items()) if i < count}

    def symbolic_output_shapes(self) -> dict[str, tuple[str, ...]]:
        """Each output's dims over the gear symbols `s0`, `s1`, ... (gear value `j` is `s<j>`;
        `?` where no affine function of one gear value explains a dim): the model's
        `_symbolic_output_shape`, fitted over every gear's `_dynamic_output_dims`."""
        names = self.output_names
        if self.recorded_shapes is not None:
            return dict(zip(names, self.recorded_shapes, strict=False))
        shapes = symbolic_output_shape(self.gears, self.output_dims)
        if shapes is None:
            return {}
        return {
            names[o]: tuple(d.data for d in dims.data if isinstance(d, StringAttr))
            for o, dims in enumerate(shapes.data)
            if o < len(names)
        }

    def describe_gear(self, gear: int) -> str:
        """One line for a run of gear `gear`: its symbol values and each output's shape as
        an expression and its value, e.g. `gear 3 of 6 (s0 = 4): y [s0, 3] = [4, 3]`."""
        values = ", ".join(f"s{j} = {v}" for j, v in enumerate(self.gears[gear]))
        dims = self.output_dims_of(gear)
        outs = [
            f"{name} [{', '.join(exprs)}] = {list(dims.get(name, ()))}"
            for name, exprs in self.symbolic_output_shapes().items()
        ]
        return f"gear {gear} of {self.gear_count} ({values}): " + "; ".join(outs)

    def max_input_dims(self) -> dict[str, tuple[int, ...]]:
        """The buffer shape of every input: its largest gear (E.4)."""
        return {name: self.config.max_shape(name) for name in self.input_names}

    # aclmdlSetInputDynamicDims
    def set_dims(self, dims: Sequence[int]) -> int:
        """The index of the gear `dims` (values of the -1 dims, in `--input_shape` order)."""
        gear = self.config.gear_of(dims)
        if gear is None:
            raise GearMismatchError(self._mismatch(dims_text([int(d) for d in dims])), "E13025")
        return gear

    # GeExecutor::SetDynamicBatchSize / SetDynamicImageSize / SetDynamicDims
    def set_dynamic_batch_size(self, batch_size: int, length: int | None = None) -> int:
        """GE's SetDynamicBatchSize: the gear of `batch_size`. `length` is the byte size of
        the dynamic input buffer (default: one uint64); fewer than 4 bytes is 145012, a model
        whose gears are not one value each or that has no gear `[batch_size]` is 145013
        (IsDynamicBatchSizeMatchModel)."""
        self._check_length(length, 1, "Dynamic input size")
        for gear in self.gears:
            if len(gear) != 1:
                raise self._no_gear(
                    f"Dynamic batch param num is 1, current batch size is {len(gear)}"
                )
        return self._gear_or_fail([batch_size], f"Dynamic batch {batch_size}")

    def set_dynamic_image_size(self, height: int, width: int, length: int | None = None) -> int:
        """GE's SetDynamicImageSize: the gear `[height, width]`. `length` below two uint32
        is 145012; gears that are not two values or no gear `[height, width]` is 145013
        (IsDynamicImageSizeMatchModel)."""
        self._check_length(length, 2, "Dynamic input size")
        for gear in self.gears:
            if len(gear) != 2:
                raise self._no_gear(
                    f"Dynamic resolution param num is 2, current resolution size is {len(gear)}"
                )
        return self._gear_or_fail([height, width], f"Dynamic resolution ({height},{width})")

    def set_dynamic_dims(self, dims: Sequence[int], length: int | None = None) -> int:
        """GE's SetDynamicDims: `dims` are ALL dims of the inputs in `user_designate_shape_order`
        (GetCurDynamicDims): their count must be that of the inputs' dims and every fixed dim
        must be kept (145012); the values at the -1 dims must be a gear (145013); `length`
        below one uint32 per -1 dim is 145012."""
        order = [s.name for s in self.config.inputs]
        all_dims = [d for s in self.config.inputs for d in s.dims]
        if len(dims) != len(all_dims):
            raise DynamicInputError(
                f"145012: ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID: Dynamic input size "
                f"[{len(dims)}] is not equal with all data dims size [{len(all_dims)}] "
                f"(the dims of {', '.join(order)})",
                "145012",
            )
        current: list[int] = []
        for i, (given, model) in enumerate(zip(dims, all_dims, strict=True)):
            if model < 0:
                current.append(int(given))
            elif int(given) != model:
                raise DynamicInputError(
                    f"145012: ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID: Static dims should be "
                    f"same, index:{i} value:{int(given)} should be {model}",
                    "145012",
                )
        gear = self._gear_or_fail(current, f"Cur dynamic dims {dims_text(current)}")
        self._check_length(length, len(current), "input dynamic size")
        return gear

    def _check_length(self, length: int | None, values: int, what: str) -> None:
        need = 4 * values  # GE takes uint32 values at least (uint64 when the buffer holds them)
        if length is not None and length < need:
            raise DynamicInputError(
                f"145012: ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID: {what} [{length}] is less "
                f"than [{need}] (model @{self.graph})",
                "145012",
            )

    def _no_gear(self, reason: str) -> DynamicInputError:
        table = "[" + ", ".join(dims_text(g) for g in self.gears) + "]"
        return DynamicInputError(
            f"145013: ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID: The current dynamic input does "
            f"not match the gear of the model @{self.graph}: {reason} (gears {table})",
            "145013",
        )

    def _gear_or_fail(self, values: Sequence[int], what: str) -> int:
        gear = self.config.gear_of(values)
        if gear is None:
            raise self._no_gear(f"{what} can not match the gear of model")
        return gear

    def select(self, shapes: Mapping[str, Sequence[int]]) -> int:
        """The gear the actual input shapes belong to (GE's GetCurDynamicDims + check)."""
        gear = self.config.match(shapes)
        if gear is None:
            values = [int(shapes[s.name][i]) for s in self.config.inputs for i in s.unknown]
            given = ", ".join(f"{n}:{dims_text(shapes[n])}" for n in self.input_names)
            raise GearMismatchError(self._mismatch(f"{dims_text(values)} ({given})"), "E13025")
        return gear

    def _mismatch(self, what: str) -> str:
        table = "[" + ", ".join(dims_text(g) for g in self.gears) + "]"
        return (
            f"E13025: Input tensor is invalid. Reason: The input tensor dimension {what} is not "
            f"in the dynamic dimension list {table} configured by --{self.config.option}."
        )

    def _check_index(self, gear: int) -> None:
        if not 0 <= gear < self.gear_count:
            raise IndexError(f"gear {gear} out of range: @{self.graph} has {self.gear_count}")

    def bind(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        """The root's arguments for user `inputs` (root order): the gear's dims go into
        `ascend_mbatch_shape_data`, as GE's runtime appends them as an extra input blob."""
        import numpy as np

        shapes = {n: tuple(a.shape) for n, a in zip(self.input_names, inputs, strict=True)}
        gear = self.select(shapes)
        args = list(inputs)
        if self.shape_data_index is not None:
            args.insert(self.shape_data_index, np.array(self.gears[gear], dtype=np.int32))
        return tuple(args)

    def crop(self, inputs: Mapping[str, np.ndarray], gear: int) -> dict[str, np.ndarray]:
        """Inputs cut to gear `gear`: the leading elements of each buffer (ACL passes buffers
        of the largest gear's size and sets the dims with aclmdlSetInputDynamicDims)."""
        import numpy as np

        out: dict[str, np.ndarray] = dict(inputs)
        for name, shape in self.input_dims(gear).items():
            if name not in inputs:
                continue
            flat = np.asarray(inputs[name]).reshape(-1)
            need = math.prod(shape)
            if flat.size < need:
                raise GearMismatchError(
                    f"input '{name}' holds {flat.size} elements, gear {gear} "
                    f"{dims_text(self.gears[gear])} needs {dims_text(shape)} ({need})"
                )
            out[name] = flat[:need].reshape(shape)
        return out


def hybrid_graph(entry: Operation) -> GraphOp | ModelOp | None:
    """The fully dynamic graph an expanded root falls back to (hybrid mode), or the model
    (of dynamic tasks) `ge-convert-graph-to-ascend` made of it, for the root's model."""
    ref = entry.attributes.get(HYBRID_GRAPH)
    parent = entry.parent_op()
    if not isinstance(ref, SymbolRefAttr) or parent is None:
        return None
    graph = SymbolTable.lookup_symbol(parent, ref.root_reference.data)
    return graph if isinstance(graph, GraphOp | ModelOp) else None


class HybridFallbackError(ValueError):
    """A hybrid root whose dynamic graph cannot take the root's inputs (a hand-edited model)."""


def hybrid_route(
    entry: Operation, info: GearInfo, inputs: Mapping[str, np.ndarray]
) -> tuple[Operation, tuple[np.ndarray, ...]] | None:
    """Where hybrid mode sends user `inputs` (by name, no shape data): None when their shapes
    are a gear or `entry` has no dynamic graph (the entry runs them, E13025 when no gear),
    else the dynamic graph and its arguments. The one routing rule of every run: `run()`,
    its instrumented form, `execute_model` and ge-run (GE's hybrid executor picks the
    dynamic graph for shapes of no gear the same way)."""
    dynamic = hybrid_graph(entry)
    if dynamic is None:
        return None
    shapes = {n: tuple(a.shape) for n, a in inputs.items() if n in info.input_names}
    if len(shapes) != len(info.input_names) or info.config.match(shapes) is not None:
        return None
    root = symbol_name(entry)
    names = dynamic.input_names
    extra = [n for n in names if n not in inputs]
    if extra:
        raise HybridFallbackError(
            f"hybrid fallback @{dynamic.sym_name.data} of @{root} takes input '{extra[0]}', "
            f"which @{root} does not have (its inputs: {', '.join(info.input_names)})"
        )
    if dynamic.output_names != info.output_names:
        raise HybridFallbackError(
            f"hybrid fallback @{dynamic.sym_name.data} of @{root} has outputs "
            f"({', '.join(dynamic.output_names)}), @{root} has "
            f"({', '.join(info.output_names)})"
        )
    return dynamic, tuple(inputs[n] for n in names)


def gear_signature(entry: Operation, sig: Signature) -> Signature | None:
    """For an expanded root or its lowered model: the user-facing signature (no shape-data
    input, `?` on the gear dims), with a binder that selects the gear (E13025 when none
    matches) and fills the shape data, gear 0's shapes for random inputs, and in hybrid mode a
    route that sends shapes of no gear to the dynamic graph. None for any other entry."""
    try:
        info = GearInfo.find(entry) if isinstance(entry, GraphOp) else GearInfo.find_model(entry)
    except ValueError as e:
        raise RunError(f"cannot run the gears of {e}") from None
    if info is None:
        return None
    keep = [i for i in range(len(sig.input_names)) if i != info.shape_data_index]
    types: list[Attribute] = []
    example: list[Attribute] = []
    configured = {s.name for s in info.config.inputs}
    declared = [sig.input_types[i] for i in keep] + list(info.getnext_types)
    for t, name in zip(declared, info.input_names, strict=True):
        if isinstance(t, TensorType) and name in configured:
            dims = info.config.input(name).dims
            types.append(TensorType(t.element_type, [DYNAMIC_INDEX if d < 0 else d for d in dims]))
            example.append(TensorType(t.element_type, info.config.shape(name, 0)))
        else:
            types.append(t)
            example.append(t)

    def bind(inputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        try:
            return info.bind(inputs)
        except GearMismatchError as e:
            raise RunError(str(e)) from None

    def route(inputs: tuple[np.ndarray, ...]) -> tuple[Operation, tuple[np.ndarray, ...]] | None:
        try:
            return hybrid_route(entry, info, dict(zip(info.input_names, inputs, strict=True)))
        except HybridFallbackError as e:
            raise RunError(str(e)) from None

    if info.getnext:
        # GetNext sink: the gear is found on the device; the Data arguments (if any) are
        # passed as they are and the GetNext's inputs queued (`run.run_entry`).
        return dataclasses.replace(
            sig,
            input_names=info.input_names,
            input_types=tuple(types),
            output_names=info.output_names,
            example_types=tuple(example),
            getnext=len(info.getnext_types),
        )
    return dataclasses.replace(
        sig,
        input_names=info.input_names,
        input_types=tuple(types),
        binder=bind,
        example_types=tuple(example),
        route=route if hybrid_graph(entry) is not None else None,
    )
