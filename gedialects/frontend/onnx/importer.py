"""ONNX model -> `graph` dialect: loading, checking, graph signature, initializers, node loop.

The importer builds IR directly (no printing or parsing): graph inputs become named block
arguments, initializers become `graph.const` ops created at their first use, and each node is
handed to the converter registered for its op type (`registry.py`, `ops/`). Every problem with
the model itself is an `OnnxImportError` with a one-line message; exceptions of any other kind
are bugs of the importer or of a converter and are not masked.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np
import onnx
import onnx.external_data_helper
from onnx import numpy_helper
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneAttr,
    Signedness,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from gedialects import budget, progress
from gedialects.base import NODE_NAME, PARENT_NODE_INDEX, paused_gc, shapes_compatible
from gedialects.frontend.onnx.registry import (
    ImportState,
    NodeContext,
    OnnxImportError,
    get_converter,
    unicode_array,
)
from gedialects.graph import ConstOp, GraphOp, NetOutputOp
from gedialects.strings import STRING
from gedialects.tensors import UnsupportedDtypeError, const_from_numpy, numpy_dtype

logger = logging.getLogger(__name__)

MIN_OPSET = 11
"""Oldest ai.onnx opset imported directly; older models go through onnx.version_converter."""

TensorProto = onnx.TensorProto

ELEMENT_TYPES: dict[int, Attribute] = {
    TensorProto.FLOAT: f32,
    TensorProto.FLOAT16: f16,
    TensorProto.DOUBLE: f64,
    TensorProto.BOOL: i1,
    TensorProto.INT8: i8,
    TensorProto.INT16: i16,
    TensorProto.INT32: i32,
    TensorProto.INT64: i64,
    TensorProto.UINT8: IntegerType(8, Signedness.UNSIGNED),
    TensorProto.UINT16: IntegerType(16, Signedness.UNSIGNED),
    TensorProto.UINT32: IntegerType(32, Signedness.UNSIGNED),
    TensorProto.UINT64: IntegerType(64, Signedness.UNSIGNED),
    TensorProto.STRING: STRING,
}
"""ONNX tensor element types with an xDSL (and numpy) counterpart; signed ints are signless;
STRING (UTF-8 in ONNX) is `!graph.string`, a numpy unicode array in the interpreter."""

_SYMBOL_CHARS = re.compile(r"[^A-Za-z0-9_.$-]")
_SSA_NAME = re.compile(r"[A-Za-z_$.-][\w$.-]*")


def max_opset() -> int:
    """Newest ai.onnx opset the installed onnx package knows."""
    return onnx.defs.onnx_opset_version()


def dtype_name(elem_type: int) -> str:
    try:
        return TensorProto.DataType.Name(elem_type)
    except ValueError:
        return f"data type {elem_type}"


def element_type(elem_type: int, what: str) -> Attribute:
    """The xDSL element type of ONNX `elem_type`; `what` names the value for the error."""
    if elem_type not in ELEMENT_TYPES:
        raise OnnxImportError(f"{what} has unsupported dtype {dtype_name(elem_type)}")
    return ELEMENT_TYPES[elem_type]


def tensor_type(type_proto: onnx.TypeProto, what: str) -> TensorType | UnrankedTensorType:
    """Tensor type of an ONNX value: `dim_param` and missing dims are `?`, no shape is `*`."""
    kind = type_proto.WhichOneof("value")
    if kind != "tensor_type":
        names = {
            "sequence_type": "a sequence",
            "map_type": "a map",
            "optional_type": "an optional",
            "sparse_tensor_type": "a sparse tensor",
        }
        raise OnnxImportError(
            f"{what} is {names.get(kind or '', 'untyped')}; only tensors are supported"
        )
    tt = type_proto.tensor_type
    elem = element_type(tt.elem_type, what)
    if not tt.HasField("shape"):
        return UnrankedTensorType(elem)
    dims = [
        d.dim_value if d.HasField("dim_value") and d.dim_value >= 0 else DYNAMIC_INDEX
        for d in tt.shape.dim
    ]
    return TensorType(elem, dims)


def refine_by_declaration(value: SSAValue, declared: Attribute, what: str) -> SSAValue:
    """`value` with the dims the model declares for it where inference left `?` (or no rank),
    as onnxruntime merges a graph output's declared shape into the inferred one
    (`MergeShapeInfo`): the detector's `boxes`, a Reshape to a Concat over the Shape of the
    kept boxes, is `[?, 4]` as declared, not `[?, ?]`. A declaration that contradicts the
    inferred type (element type, rank or a static dim) is ignored with a warning, as
    onnxruntime does; one the op's verifier refuses (a dim the data decides must stay `?`) is
    ignored; a graph input passed through keeps its input type."""
    ours = value.type
    if (
        not isinstance(value, OpResult)
        or not isinstance(declared, TensorType)
        or not isinstance(ours, TensorType | UnrankedTensorType)
        or (isinstance(ours, TensorType) and ours.encoding != NoneAttr())
    ):
        return value
    theirs = declared.get_shape()
    mine = theirs if isinstance(ours, UnrankedTensorType) else ours.get_shape()
    if ours.element_type != declared.element_type or not (
        len(mine) == len(theirs) and shapes_compatible(mine, theirs)
    ):
        logger.warning(
            "%s is declared %s but inferred %s: kept the inferred type", what, declared, ours
        )
        return value
    dims = [m if m >= 0 else t for m, t in zip(mine, theirs, strict=True)]
    if isinstance(ours, TensorType) and dims == list(mine):
        return value
    op = value.owner
    new = Rewriter.replace_value_with_new_type(value, TensorType(ours.element_type, dims))
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException:
        # a dim the op's data decides (NonZero's count, NonMaxSuppression's selected boxes,
        # an ImageDecoder's height and width) stays `?`: the declaration holds for one input
        logger.debug("%s: the declared %s does not fit its op: kept %s", what, declared, ours)
        return Rewriter.replace_value_with_new_type(new, ours)
    return new


# --------------------------------------------------------------------------------------------
# Loading and checking
# --------------------------------------------------------------------------------------------


def _first_line(error: BaseException) -> str:
    lines = [ln.strip() for ln in str(error).splitlines() if ln.strip()]
    return lines[0] if lines else type(error).__name__


def _one_line(error: BaseException) -> str:
    """All of a multi-line message (the checker splits node dumps over lines) on one line."""
    text = " ".join(ln.strip() for ln in str(error).splitlines() if ln.strip())
    return text or type(error).__name__


def load_model(path: str | os.PathLike[str], data: bytes | None = None) -> onnx.ModelProto:
    """Reads an ONNX file (external data resolved next to it); `data` replaces the file's bytes.

    Unreadable, truncated or non-ONNX input is an `OnnxImportError`.
    """
    from google.protobuf.message import DecodeError

    label = os.fspath(path)
    try:
        if data is None:
            data = budget.read_file(label)
        # protobuf keeps the parsed model next to the bytes: about as much again
        budget.check(2 * len(data), f"parsing '{label}'")
        model = onnx.ModelProto()
        model.ParseFromString(data)
    except OSError as e:
        raise OnnxImportError(f"cannot read '{label}': {e.strerror or e}") from None
    except budget.MemoryBudgetError as e:
        raise OnnxImportError(str(e)) from None
    except (DecodeError, RuntimeError, ValueError) as e:
        raise OnnxImportError(f"'{label}' is not an ONNX model: {_first_line(e)}") from None
    if model.ir_version <= 0 or not model.HasField("graph"):
        what = "no IR version" if model.ir_version <= 0 else "no graph"
        raise OnnxImportError(f"'{label}' is not an ONNX model: it has {what}")
    if _uses_external_data(model):
        base_dir = os.path.dirname(os.path.abspath(label))
        check_external_data(model, base_dir, label)
        try:
            onnx.external_data_helper.load_external_data_for_model(model, base_dir)
        except (OSError, ValueError, onnx.checker.ValidationError) as e:
            raise OnnxImportError(
                f"'{label}': cannot load external data: {_first_line(e)}"
            ) from None
    return model


def check_external_data(model: onnx.ModelProto, base_dir: str, label: str) -> None:
    """Each external data file is a regular file, and what each tensor takes from it fits the
    memory budget, before onnx reads any of it (a `location` naming a FIFO or `/dev/zero`
    would be read without end)."""
    total = 0
    for tensor in _graph_tensors(model.graph):
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        info = {entry.key: entry.value for entry in tensor.external_data}
        where = os.path.join(base_dir, info.get("location", ""))
        what = f"'{label}': external data of '{tensor.name}' ({where})"
        try:
            size = budget.regular_file_size(where, "reading")
        except OSError as e:
            raise OnnxImportError(
                f"'{label}': cannot load external data: {e.strerror or e}: {where}"
            ) from None
        except budget.MemoryBudgetError as e:
            raise OnnxImportError(f"'{label}': {e}") from None
        length = info.get("length", "")
        total += int(length) if length.isdigit() and length.isascii() else size
        try:
            budget.check(total, what)
        except budget.MemoryBudgetError as e:
            raise OnnxImportError(str(e)) from None


def declared_size_check(dims: Iterable[int], elem_type: int, what: str) -> None:
    """A declared shape (graph input, initializer, sparse initializer) against the budget,
    before anything of that shape is allocated; OnnxImportError (one line) otherwise."""
    try:
        itemsize = numpy_dtype(ELEMENT_TYPES[elem_type]).itemsize
    except (KeyError, UnsupportedDtypeError):
        return  # the dtype is reported where it is used
    try:
        budget.check_shape(list(dims), itemsize, what)
    except budget.MemoryBudgetError as e:
        raise OnnxImportError(str(e)) from None
    except ValueError:
        return  # a negative dim: the checker or the converter reports it


def _graph_tensors(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    """Initializers and tensor attributes of `graph` and of its subgraphs."""
    yield from graph.initializer
    yield from (s.values for s in graph.sparse_initializer)
    for node in graph.node:
        for a in node.attribute:
            if a.HasField("t"):
                yield a.t
            yield from a.tensors
            if a.HasField("g"):
                yield from _graph_tensors(a.g)
            for g in a.graphs:
                yield from _graph_tensors(g)


def _uses_external_data(model: onnx.ModelProto) -> bool:
    return any(t.data_location == TensorProto.EXTERNAL for t in _graph_tensors(model.graph))


FULL_CHECK_NODE_LIMIT = 2000
"""Models up to this many nodes also get the checker's strict shape inference."""


_NESTED_FAILURE = re.compile(
    r"\(op_type:(\w+)[^)]*\): \[ShapeInferenceError\] Inference error\(s\): \(op_type:"
)


def _function_body_failure(message: str) -> bool:
    """The strict inference failed inside the function body of an op type that has a
    converter (the import never expands it)."""
    from gedialects.frontend.onnx.registry import get_converter

    found = _NESTED_FAILURE.search(message)
    return found is not None and get_converter(found.group(1)) is not None


_CHECKER_DEFAULTS: dict[str, tuple[str, int]] = {"STFT": ("onesided", 1)}
"""Op type -> (attribute, schema default) that onnx 1.23's shape inference reads as 0 when
the attribute is absent (STFT's output then has the two-sided length, and a model declaring
the one-sided one fails the strict check): the check sees the default written out."""


def _defaults_written_out(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model`, or a copy whose _CHECKER_DEFAULTS nodes carry their defaults explicitly."""

    def lacking(graph: onnx.GraphProto) -> Iterator[onnx.NodeProto]:
        for node in graph.node:
            default = _CHECKER_DEFAULTS.get(node.op_type)
            if (
                node.domain in ("", "ai.onnx")
                and default is not None
                and all(a.name != default[0] for a in node.attribute)
            ):
                yield node
            for g in _subgraphs(node):
                yield from lacking(g)

    if next(lacking(model.graph), None) is None:
        return model
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for node in list(lacking(copy.graph)):
        name, value = _CHECKER_DEFAULTS[node.op_type]
        node.attribute.append(onnx.helper.make_attribute(name, value))
    return copy


def check_model(model: onnx.ModelProto, label: str) -> None:
    """`onnx.checker` (with strict shape inference for small models) as one-line errors."""
    full = len(model.graph.node) <= FULL_CHECK_NODE_LIMIT
    model = _defaults_written_out(model)
    unranked = [
        v
        for v in (*model.graph.input, *model.graph.output)
        if v.type.WhichOneof("value") == "tensor_type" and not v.type.tensor_type.HasField("shape")
    ]
    if unranked:
        # The checker insists on a shape for graph inputs and outputs, but ONNX Runtime and
        # the IR spec allow none (unknown rank): check a copy where they are scalars, without
        # shape inference (which would then see wrong ranks).
        model = _with_placeholder_shapes(model)
        full = False
    try:
        try:
            onnx.checker.check_model(model, full_check=full)
        except onnx.shape_inference.InferenceError as e:
            if not (full and _function_body_failure(str(e))):
                raise
            # onnx 1.23's strict inference expands function ops and fails inside some bodies
            # (MeanVarianceNormalization without `axes`: its body's Constant reads the absent
            # attribute); the converter does not use the body, so check the model itself.
            onnx.checker.check_model(model, full_check=False)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as e:
        raise OnnxImportError(f"'{label}' is not a valid ONNX model: {_one_line(e)}") from None
    except ValueError as e:  # > 2 GB protos cannot be checked in memory
        raise OnnxImportError(f"'{label}' cannot be checked: {_first_line(e)}") from None


def _with_placeholder_shapes(model: onnx.ModelProto) -> onnx.ModelProto:
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for v in (*copy.graph.input, *copy.graph.output):
        if v.type.WhichOneof("value") == "tensor_type" and not v.type.tensor_type.HasField("shape"):
            v.type.tensor_type.shape.SetInParent()
    return copy


def model_opset(model: onnx.ModelProto, label: str) -> int:
    """The ai.onnx opset the model imports, within [MIN_OPSET, max_opset()]."""
    versions = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if not versions:
        if model.ir_version < 3:  # IR 1/2 had no opset_import: opset 1
            return 1
        if model.opset_import:
            # only other domains (the training optimisers' models): no node is ai.onnx (the
            # checker requires the import of every domain used), so no converter reads it
            return max_opset()
        raise OnnxImportError(f"'{label}' imports no ai.onnx opset")
    version = max(versions)
    if version > max_opset():
        raise OnnxImportError(
            f"'{label}' uses ai.onnx opset {version}; the installed onnx {onnx.__version__} "
            f"supports opsets up to {max_opset()}"
        )
    return version


SCAN8_DOMAIN = "org.gedialects.scan8"
"""Private domain a Scan-8 node is moved to while onnx.version_converter upgrades its model:
the converter's Scan 8 -> 9 adapter drops the batch axis from the values around the node (the
graph's inputs become `[2]` for `[1, 2]`), so the node keeps its opset-8 meaning and
`ops/control.py` converts it (batch loop around a Scan-9)."""


def _subgraphs(node: onnx.NodeProto) -> Iterator[onnx.GraphProto]:
    for a in node.attribute:
        if a.HasField("g"):
            yield a.g
        yield from a.graphs


def _stash_scan8(graph: onnx.GraphProto) -> int:
    """Moves every Scan (opset 8 here) of `graph`, at any depth, to SCAN8_DOMAIN."""
    count = 0
    for node in graph.node:
        for g in _subgraphs(node):
            count += _stash_scan8(g)
        if node.op_type == "Scan" and node.domain in ("", "ai.onnx"):
            node.domain = SCAN8_DOMAIN
            count += 1
    return count


def _upgrade_scan8_bodies(graph: onnx.GraphProto, version: int, label: str) -> None:
    """Upgrades the body of every stashed Scan-8 of `graph` (the version converter leaves the
    subgraphs of a node it does not know): the body becomes a model of its own whose extra
    inputs are the outer-scope names it reads, converted and stripped of them again."""
    from onnx import version_converter

    for node in graph.node:
        if node.domain != SCAN8_DOMAIN:
            for g in _subgraphs(node):
                _upgrade_scan8_bodies(g, version, label)
            continue
        for a in node.attribute:
            if a.name != "body" or not a.HasField("g"):
                continue
            body = onnx.GraphProto()
            body.CopyFrom(a.g)
            outer = sorted(free_names(body))
            for name in outer:
                body.input.add().name = name
            wrapper = onnx.helper.make_model(
                body,
                opset_imports=[
                    onnx.helper.make_opsetid("", version),
                    onnx.helper.make_opsetid(SCAN8_DOMAIN, 1),
                ],
            )
            wrapper.ir_version = 4
            try:
                upgraded = version_converter.convert_version(wrapper, MIN_OPSET).graph
            except Exception as e:  # bare RuntimeErrors from C++
                raise OnnxImportError(
                    f"'{label}': onnx.version_converter could not convert the body of Scan "
                    f"node '{node.name}' to opset {MIN_OPSET}: {_first_line(e)}"
                ) from None
            del upgraded.input[len(upgraded.input) - len(outer) :]
            a.g.CopyFrom(upgraded)
            _upgrade_scan8_bodies(a.g, version, label)


def upgrade_opset(model: onnx.ModelProto, version: int, label: str) -> onnx.ModelProto:
    """Converts a model below opset 11 with onnx.version_converter, or fails clearly. Scan-8
    nodes go around the converter (SCAN8_DOMAIN)."""
    from onnx import version_converter

    stashed = 0
    if version == 8:
        model = onnx.ModelProto.FromString(model.SerializeToString())
        stashed = _stash_scan8(model.graph)
        if stashed:
            model.opset_import.append(onnx.helper.make_opsetid(SCAN8_DOMAIN, 1))
    try:
        upgraded = version_converter.convert_version(model, MIN_OPSET)
    except Exception as e:  # the converter raises bare RuntimeErrors from C++
        raise OnnxImportError(
            f"'{label}' uses ai.onnx opset {version}; opsets {MIN_OPSET} to {max_opset()} are "
            f"supported and onnx.version_converter could not convert it: {_first_line(e)}"
        ) from None
    if stashed:
        _upgrade_scan8_bodies(upgraded.graph, version, label)
    if version < 7:
        _channelwise_prelu_slopes(upgraded)
    return upgraded


def _channelwise_prelu_slopes(model: onnx.ModelProto) -> None:
    """Opset-6 PRelu applied a [C] slope per channel (axis 1); from opset 7 it broadcasts
    numpy-style, and the version converter leaves the slope alone: reshape such initializer
    slopes to [C, 1, ..., 1]."""
    graph = model.graph
    prelus = [n for n in graph.node if n.op_type == "PRelu" and len(n.input) == 2]
    inits = {t.name: t for t in graph.initializer}
    if not any(n.input[1] in inits and len(inits[n.input[1]].dims) == 1 for n in prelus):
        return
    inferred = onnx.shape_inference.infer_shapes(model).graph
    ranks = {
        v.name: len(v.type.tensor_type.shape.dim)
        for v in (*inferred.input, *inferred.value_info, *inferred.output)
        if v.type.tensor_type.HasField("shape")
    }
    for node in prelus:
        slope = inits.get(node.input[1])
        rank = ranks.get(node.input[0], 0)
        if slope is None or len(slope.dims) != 1 or slope.dims[0] == 1 or rank <= 2:
            continue
        users = [n for n in graph.node if node.input[1] in n.input]
        if len(users) != 1:
            continue
        slope.dims.extend([1] * (rank - 2))


# --------------------------------------------------------------------------------------------
# Building the graph
# --------------------------------------------------------------------------------------------


def symbol_name(name: str) -> str:
    """A bare symbol name from an ONNX graph name (`main` when nothing usable is left)."""
    name = _SYMBOL_CHARS.sub("_", name).strip("_")
    if not name:
        return "main"
    if not (name[0].isalpha() or name[0] == "_"):
        name = "g_" + name
    return name


def _set_hint(value: SSAValue, name: str) -> None:
    if value.name_hint is None and _SSA_NAME.fullmatch(name):
        value.name_hint = name


def initializer_array(tensor: onnx.TensorProto) -> np.ndarray:
    """The initializer's value as numpy (from its bytes), checking the dtype first."""
    element_type(tensor.data_type, f"initializer '{tensor.name}'")
    what = f"initializer '{tensor.name}' (dims {list(tensor.dims)})"
    declared_size_check(list(tensor.dims), tensor.data_type, what)
    try:
        return unicode_array(numpy_helper.to_array(tensor), f"initializer '{tensor.name}'")
    except (ValueError, TypeError) as e:
        raise OnnxImportError(f"initializer '{tensor.name}': {_first_line(e)}") from None


def sparse_initializer_array(sparse: onnx.SparseTensorProto) -> np.ndarray:
    """A sparse initializer made dense (values at flat or coordinate indices)."""
    shape = tuple(sparse.dims)
    what = f"sparse initializer '{sparse.values.name}' (dims {list(shape)})"
    declared_size_check(list(shape), sparse.values.data_type, what)
    values = initializer_array(sparse.values)
    indices = numpy_helper.to_array(sparse.indices).astype(np.int64)
    dense = np.zeros(shape, dtype=values.dtype)
    if indices.ndim == 2:
        dense[tuple(indices.T)] = values
    else:
        dense.reshape(-1)[indices] = values
    return dense


def _bound_value(
    value: np.ndarray, ttype: TensorType | UnrankedTensorType, what: str
) -> np.ndarray:
    """A value bound to a graph input, checked against the input's declared type."""
    array = np.asarray(value)
    expected = numpy_dtype(ttype.element_type)
    if array.dtype != expected:
        raise OnnxImportError(f"{what} is {expected}; the value bound to it is {array.dtype}")
    if isinstance(ttype, TensorType) and not shapes_compatible(ttype.get_shape(), array.shape):
        raise OnnxImportError(
            f"{what} has type {ttype}; the value bound to it has shape {list(array.shape)}"
        )
    return array


def free_names(graph: onnx.GraphProto) -> set[str]:
    """Names `graph` (and the subgraphs of its nodes, at any depth) reads from outer scope:
    used, and neither its input, initializer nor node output."""
    defined = {v.name for v in graph.input}
    defined.update(t.name for t in graph.initializer)
    defined.update(s.values.name for s in graph.sparse_initializer)
    used: set[str] = {v.name for v in graph.output}
    for node in graph.node:
        defined.update(node.output)
        used.update(name for name in node.input if name)
        for a in node.attribute:
            if a.HasField("g"):
                used |= free_names(a.g)
            for g in a.graphs:
                used |= free_names(g)
    return used - defined


class _Importer:
    """Fills one `graph.graph` from an ONNX GraphProto (the model's, or a node's subgraph:
    then `root` is the importer of the model, which keeps every subgraph and their names)."""

    def __init__(
        self,
        model: onnx.ModelProto,
        opset: int,
        name: str,
        constants: Mapping[str, np.ndarray] | None = None,
        graph: onnx.GraphProto | None = None,
        root: _Importer | None = None,
    ) -> None:
        self.model = model
        self.graph = model.graph if graph is None else graph
        self.opset = opset
        self.name = name
        self.constants = dict(constants or {})
        self.values: dict[str, SSAValue] = {}
        self.pending: dict[str, onnx.TensorProto | onnx.SparseTensorProto | np.ndarray] = {}
        self.absent: dict[str, str] = {}
        """Output names a converter did not produce -> node name."""
        self.root = self if root is None else root
        self.used_names: set[str] = {name}
        """(root) Symbols given to graphs so far."""
        self.kept: list[GraphOp] = []
        """(root) The subgraphs of the module, in the order they were built."""
        self.bar = progress.Task(name)
        """(root) The import's progress, advanced per node of the model's graph."""

    # The SubgraphHost of converters (registry.SubgraphHost) ---------------------------------

    def free_names(self, graphs: Sequence[onnx.GraphProto]) -> list[str]:
        """The outer-scope names the subgraphs read, sorted (GE's if adapter keeps a
        std::set): each becomes an extra input of the node and of every subgraph."""
        names: set[str] = set()
        for g in graphs:
            names |= free_names(g)
        return sorted(names)

    def graph_name(self, node: str, index: int, attr: str) -> str:
        """GE's subgraph name `<node>_<index>_<attr>` as a symbol, unique in the module."""
        base = symbol_name(f"{node}_{index}_{attr}")
        name, n = base, 1
        while name in self.root.used_names:
            name, n = f"{base}_{n}", n + 1
        self.root.used_names.add(name)
        return name

    def keep(self, graphs: Sequence[GraphOp]) -> None:
        self.root.kept.extend(graphs)

    def convert_nodes(self, nodes: Sequence[onnx.NodeProto]) -> None:
        """Converts `nodes` (a function body, its names made unique) into this graph."""
        self.produced_later |= {out for n in nodes for out in n.output if out}
        for node in nodes:
            self.convert(node)

    @contextmanager
    def trial(self) -> Iterator[None]:
        """Subgraphs built inside are thrown away: names and kept graphs are restored (the
        loop converters build bodies until their carried types are a fixed point)."""
        root = self.root
        names, count = set(root.used_names), len(root.kept)
        try:
            yield
        finally:
            root.used_names = names
            del root.kept[count:]

    def subgraph(
        self,
        proto: onnx.GraphProto,
        name: str,
        inputs: Sequence[tuple[str | None, Attribute]],
        parent_index: Sequence[int],
        finish: Callable[[NodeContext, list[SSAValue], list[SSAValue]], list[SSAValue]]
        | None = None,
        node: onnx.NodeProto | None = None,
        prologue: Callable[[NodeContext, list[SSAValue]], dict[str, SSAValue]] | None = None,
    ) -> GraphOp:
        """`proto` as graph `name` with inputs `inputs` (ONNX name or None for an input of
        the caller's own, and type); `parent_index[i]` is input i's `_parent_node_index`.
        `prologue(ctx, args)` (ctx on the subgraph, for `node`) may emit ops first and bind
        ONNX names to them; `finish(ctx, args, outputs)` may append ops and returns the
        graph's outputs. The graph is not kept (`keep`)."""
        sub = _Importer(self.model, self.opset, name, graph=proto, root=self.root)
        return sub.build_subgraph(inputs, parent_index, finish, node, prologue)

    def build_subgraph(
        self,
        inputs: Sequence[tuple[str | None, Attribute]],
        parent_index: Sequence[int],
        finish: Callable[[NodeContext, list[SSAValue], list[SSAValue]], list[SSAValue]] | None,
        node: onnx.NodeProto | None,
        prologue: Callable[[NodeContext, list[SSAValue]], dict[str, SSAValue]] | None = None,
    ) -> GraphOp:
        graph = self.graph
        for t in graph.initializer:
            self.pending[t.name] = t
        for s in graph.sparse_initializer:
            self.pending[s.values.name] = s
        block = Block(arg_types=[t for _, t in inputs])
        arg_names: list[str] = []
        for i, (arg, (onnx_name, _)) in enumerate(zip(block.args, inputs, strict=True)):
            if onnx_name is not None:
                self.values[onnx_name] = arg
                _set_hint(arg, onnx_name)
            arg_names.append(onnx_name or f"{self.name}_input_{i}")
        self.state = ImportState(block, host=self)
        if prologue is not None:
            assert node is not None
            self.values.update(
                prologue(NodeContext(node, [], self.opset, self.state), list(block.args))
            )
        self.produced_later = {out for n in graph.node for out in n.output if out}
        for n in graph.node:
            self.convert(n)
        outputs = [self.lookup(v.name, f"subgraph @{self.name} output") for v in graph.output]
        names = [v.name for v in graph.output]
        if finish is not None:
            assert node is not None
            outputs = finish(
                NodeContext(node, [], self.opset, self.state), list(block.args), outputs
            )
            names = [f"{self.name}_output_{i}" for i in range(len(outputs))]
        block.add_op(NetOutputOp(outputs))
        op = GraphOp(self.name, [t for _, t in inputs], [v.type for v in outputs], Region(block))
        arg_attrs = [
            {NODE_NAME: StringAttr(n), PARENT_NODE_INDEX: IntegerAttr(p, i64)}
            for n, p in zip(arg_names, parent_index, strict=True)
        ]
        op.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in arg_attrs])
        if len(set(names)) == len(names):
            op.res_attrs = ArrayAttr([DictionaryAttr({NODE_NAME: StringAttr(n)}) for n in names])
        return op

    def build(self) -> ModuleOp:
        graph = self.graph
        for t in graph.initializer:
            self.pending[t.name] = t
        for s in graph.sparse_initializer:
            self.pending[s.values.name] = s
        arg_names: list[str] = []
        arg_types: list[Attribute] = []
        for value_info in graph.input:
            if value_info.name in self.pending:
                continue  # IR < 4 lists initializers as inputs too
            if value_info.name in arg_names:
                raise OnnxImportError(f"graph input '{value_info.name}' is listed twice")
            what = f"graph input '{value_info.name}'"
            ttype = tensor_type(value_info.type, what)
            if isinstance(ttype, TensorType) and all(d >= 0 for d in ttype.get_shape()):
                # what a run of the model allocates for it: refused now, not at run time
                elem = value_info.type.tensor_type.elem_type
                declared_size_check(ttype.get_shape(), elem, f"{what} ({ttype})")
            if value_info.name in self.constants:
                self.pending[value_info.name] = _bound_value(
                    self.constants.pop(value_info.name), ttype, what
                )
                continue
            arg_names.append(value_info.name)
            arg_types.append(ttype)
        if self.constants:
            unknown = sorted(self.constants)[0]
            raise OnnxImportError(f"cannot bind '{unknown}' to a constant: no such graph input")
        block = Block(arg_types=arg_types)
        for arg, name in zip(block.args, arg_names, strict=True):
            self.values[name] = arg
            _set_hint(arg, name)
        self.state = ImportState(block, host=self)
        self.produced_later = {out for node in graph.node for out in node.output if out}

        for node in graph.node:
            self.convert(node)
            self.bar.advance()

        outputs: list[SSAValue] = []
        output_names: list[str] = []
        refined: dict[SSAValue, SSAValue] = {}
        for value_info in graph.output:
            kind = value_info.type.WhichOneof("value")
            what = f"graph output '{value_info.name}'"
            if kind not in (None, "tensor_type"):
                tensor_type(value_info.type, what)
            value = self.lookup(value_info.name, None)
            value = refined.get(value, value)
            if kind == "tensor_type":
                new = refine_by_declaration(value, tensor_type(value_info.type, what), what)
                if new is not value:
                    refined[value] = new
                    self.values[value_info.name] = value = new
            outputs.append(value)
            output_names.append(value_info.name)
        block.add_op(NetOutputOp(outputs))
        op = GraphOp(
            self.name,
            arg_types,
            [v.type for v in outputs],
            Region(block),
            input_names=arg_names,
            output_names=output_names,
        )
        try:
            op.verify(verify_nested_ops=False)
            if (terminator := block.last_op) is not None:
                terminator.verify()
        except VerifyException as e:
            raise OnnxImportError(_first_line(e)) from None
        module = ModuleOp([op, *self.kept])
        if self.kept:  # the control-flow ops' subgraphs, now that symbols resolve
            try:
                module.verify()
            except VerifyException as e:
                raise OnnxImportError(_first_line(e)) from None
        return module

    def lookup(self, name: str, what: str | None) -> SSAValue:
        """The value named `name`: a graph input, an initializer or an earlier node's output.

        `what` is the label of the node using it, None for a graph output.
        """
        if name in self.values:
            return self.values[name]
        if name in self.pending:
            return self.materialize(name)
        if what is None:
            if name in self.absent:
                raise OnnxImportError(
                    f"graph output '{name}' is an output that node '{self.absent[name]}' "
                    "does not produce"
                )
            raise OnnxImportError(
                f"graph output '{name}' is no graph input, initializer or node output"
            )
        if name in self.absent:
            raise OnnxImportError(
                f"{what} uses '{name}', an output that node '{self.absent[name]}' does not produce"
            )
        if name in self.produced_later:
            raise OnnxImportError(
                f"{what} uses '{name}' before the node that produces it; "
                "ONNX nodes must be in topological order"
            )
        raise OnnxImportError(
            f"{what} uses '{name}', which is no graph input, initializer or node output"
        )

    def materialize(self, name: str) -> SSAValue:
        """Creates the `graph.const` of an initializer at its first use."""
        tensor = self.pending.pop(name)
        if isinstance(tensor, np.ndarray):
            array = tensor
        elif isinstance(tensor, onnx.SparseTensorProto):
            array = sparse_initializer_array(tensor)
        else:
            array = initializer_array(tensor)
        try:
            op = ConstOp(const_from_numpy(array))
        except UnsupportedDtypeError as e:
            raise OnnxImportError(f"initializer '{name}': {e}") from None
        op.attributes[NODE_NAME] = StringAttr(name)
        self.state.block.add_op(op)
        value = op.results[0]
        _set_hint(value, name)
        self.values[name] = value
        return value

    def node_label(self, node: onnx.NodeProto, ctx: NodeContext | None = None) -> str:
        name = ctx.name if ctx is not None else node.name or node.op_type
        op_type = (
            f"{node.domain}::{node.op_type}"
            if node.domain not in ("", "ai.onnx")
            else (node.op_type)
        )
        return f"node '{name}' ({op_type}, opset {self.opset})"

    def convert(self, node: onnx.NodeProto) -> None:
        ctx = NodeContext(node, [], self.opset, self.state)
        label = self.node_label(node, ctx)
        fn = get_converter(node.op_type, node.domain)
        if fn is None:
            op_type = (
                node.op_type
                if node.domain in ("", "ai.onnx")
                else (f"{node.domain}::{node.op_type}")
            )
            raise OnnxImportError(f"{label}: unsupported ONNX op type {op_type}")
        ctx.inputs = [self.lookup(name, label) if name else None for name in node.input]
        block = self.state.block
        before = block.last_op
        try:
            results = fn(ctx)
            op: Operation | None = before.next_op if before is not None else block.first_op
            while op is not None:
                op.verify()
                op = op.next_op
        except OnnxImportError as e:
            if str(e).startswith("node '"):
                raise
            raise OnnxImportError(f"{label}: {e}") from None
        except (VerifyException, ValueError) as e:
            raise OnnxImportError(f"{label}: {_first_line(e)}") from None
        if len(results) > len(node.output):
            raise AssertionError(
                f"converter of {node.op_type} returned {len(results)} values for "
                f"{len(node.output)} outputs"
            )
        for i, out in enumerate(node.output):
            if not out:
                continue
            if out in self.values or out in self.pending:
                raise OnnxImportError(f"{label}: output '{out}' is already defined")
            value = results[i] if i < len(results) else None
            if value is None:
                self.absent[out] = ctx.name
            else:
                self.values[out] = value
                _set_hint(value, out)


def import_model(
    model: str | os.PathLike[str] | onnx.ModelProto,
    *,
    graph_name: str | None = None,
    constants: Mapping[str, np.ndarray] | None = None,
) -> ModuleOp:
    """Imports an ONNX model (a path or a ModelProto) as a module holding one `graph.graph`.

    `constants` binds graph inputs to values: they become named `graph.const`s instead of
    graph arguments (as atc freezes shape inputs), so converters that need a value at import
    time (Reshape's shape, Resize's scales) can use it. Raises `OnnxImportError` (one line) for
    unreadable, invalid or unsupported models.
    """
    if isinstance(model, onnx.ModelProto):
        label = model.graph.name or "<model>"
        proto = model
        if _uses_external_data(proto):
            raise OnnxImportError(
                f"'{label}' refers to external data; pass the model's path instead"
            )
    else:
        label = os.fspath(model)
        proto = load_model(label)
    return import_proto(proto, label, graph_name=graph_name, constants=constants)


def check_strings(graph: onnx.GraphProto, label: str, where: str = "") -> None:
    """ONNX strings are UTF-8; protobuf hands a name that is not as bytes, which would reach
    the IR's StringAttrs and crash the printer, so such a model is refused here."""

    def check(value: str | bytes, what: str) -> None:
        if not isinstance(value, str):
            raise OnnxImportError(f"'{label}': {where}{what} is not UTF-8")

    check(graph.name, "graph name")
    for kind, values in (
        ("graph input", graph.input),
        ("graph output", graph.output),
        ("value_info", graph.value_info),
        ("initializer", graph.initializer),
        ("sparse initializer", (s.values for s in graph.sparse_initializer)),
    ):
        for i, v in enumerate(values):
            check(v.name, f"{kind} {i} name")
    for n, node in enumerate(graph.node):
        if not _plain_names(node):  # else name each field, for the message
            check(node.name, f"node {n} name")
            for field in ("op_type", "domain"):
                check(getattr(node, field), f"node {n} {field}")
            for i, name in enumerate(node.input):
                check(name, f"node {n} input {i}")
            for i, name in enumerate(node.output):
                check(name, f"node {n} output {i}")
        for a in node.attribute:
            if type(a.name) is not str:
                check(a.name, f"node {n} attribute name")
            strings = a.type == onnx.AttributeProto.STRING or a.strings
            if not (strings or a.HasField("g") or a.graphs):
                continue  # a number, tensor or list of them: no text
            what = f"node {n} attribute '{a.name}'"
            if a.type == onnx.AttributeProto.STRING:
                _check_utf8(a.s, what, label, where)
            for s in a.strings:
                _check_utf8(s, what, label, where)
            if a.HasField("g"):
                check_strings(a.g, label, f"{where}{what}: ")
            for g in a.graphs:
                check_strings(g, label, f"{where}{what}: ")


def _plain_names(node: onnx.NodeProto) -> bool:
    """Whether the node's name, op type, domain, inputs and outputs are all `str`: checked
    without building the per-field messages `check_strings` names a bad one with (a
    quarter of its time at 100k nodes)."""
    return (
        type(node.name) is str
        and type(node.op_type) is str
        and type(node.domain) is str
        and all(type(s) is str for s in node.input)
        and all(type(s) is str for s in node.output)
    )


def _check_utf8(value: bytes, what: str, label: str, where: str) -> None:
    try:
        value.decode()
    except UnicodeDecodeError:
        raise OnnxImportError(f"'{label}': {where}{what} is not UTF-8") from None


def check_names(graph: onnx.GraphProto, opset: int) -> None:
    """Every node input is defined before use (clearer messages than the checker's)."""
    defined = {v.name for v in graph.input}
    defined.update(t.name for t in graph.initializer)
    defined.update(s.values.name for s in graph.sparse_initializer)
    produced = {out for node in graph.node for out in node.output if out}
    unnamed = 0
    for node in graph.node:
        node_name = node.name or f"{node.op_type}_{unnamed}"  # as NodeContext.name names it
        unnamed += not node.name
        for name in node.input:
            if name and name not in defined:
                label = f"node '{node_name}' ({node.op_type}, opset {opset})"
                if name in produced:
                    raise OnnxImportError(
                        f"{label} uses '{name}' before the node that produces it; "
                        "ONNX nodes must be in topological order"
                    )
                raise OnnxImportError(
                    f"{label} uses '{name}', which is no graph input, initializer or node output"
                )
        defined.update(node.output)


def unsupported_nodes(graph: onnx.GraphProto, scope: str = "") -> dict[str, list[str]]:
    """Op type (`domain::Type` outside ai.onnx) -> the names of the nodes of that type no
    converter handles, in `graph` and its subgraphs (If/Loop/Scan bodies), in model order;
    an unnamed node is `<op_type>_<n>`, as the importer names it, and a node of a subgraph is
    named by its path (`If_0/then_branch/Foo_0`): unnamed nodes of two branches are both
    `Foo_0` in their own graphs."""
    found: dict[str, list[str]] = {}
    unnamed = 0
    for node in graph.node:
        name = node.name or f"{node.op_type}_{unnamed}"
        unnamed += not node.name
        if get_converter(node.op_type, node.domain) is None:
            domain = "" if node.domain in ("", "ai.onnx") else f"{node.domain}::"
            found.setdefault(f"{domain}{node.op_type}", []).append(scope + name)
        for a in node.attribute:
            subs = ([a.g] if a.HasField("g") else []) + list(a.graphs)
            for sub in subs:
                for op_type, names in unsupported_nodes(sub, f"{scope}{name}/{a.name}/").items():
                    found.setdefault(op_type, []).extend(names)
    return found


def check_tensor_values(graph: onnx.GraphProto, scope: str = "") -> None:
    """The declared inputs and outputs of `graph` and its subgraphs are tensors: a sequence,
    map or optional is refused naming the value and its kind (before the unsupported-op
    listing, whose ops such values usually come from, so the message names the real limit)."""
    for kind, values in (("input", graph.input), ("output", graph.output)):
        for v in values:
            if v.type.WhichOneof("value") not in (None, "tensor_type"):
                tensor_type(v.type, f"{scope}graph {kind} '{v.name}'")
    unnamed = 0
    for node in graph.node:
        name = node.name or f"{node.op_type}_{unnamed}"
        unnamed += not node.name
        for a in node.attribute:
            for sub in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                check_tensor_values(sub, f"{scope}node '{name}' ({node.op_type}) {a.name} ")


def check_supported(graph: onnx.GraphProto, label: str, opset: int) -> None:
    """Every node has a converter, checked before any is converted, so that a model with
    several unsupported ops names them all in one message (one node: the importer's own
    message, which names it where it fails)."""
    found = unsupported_nodes(graph)
    count = sum(len(names) for names in found.values())
    if count < 2:
        return
    check_tensor_values(graph)

    def nodes(names: list[str]) -> str:
        shown = ", ".join(f"'{n}'" for n in names[:MAX_NAMES_SHOWN])
        more = f" and {len(names) - MAX_NAMES_SHOWN} more" if len(names) > MAX_NAMES_SHOWN else ""
        return f"{'node' if len(names) == 1 else f'{len(names)} nodes'} {shown}{more}"

    listing = "; ".join(f"{op} ({nodes(names)})" for op, names in found.items())
    kinds = "op type" if len(found) == 1 else f"{len(found)} op types"
    raise OnnxImportError(
        f"'{label}': {count} nodes use unsupported ONNX {kinds} (opset {opset}): {listing}"
    )


MAX_NAMES_SHOWN = 5
"""Node names listed per unsupported op type (then `and N more`)."""


def import_proto(
    proto: onnx.ModelProto,
    label: str,
    *,
    graph_name: str | None = None,
    constants: Mapping[str, np.ndarray] | None = None,
) -> ModuleOp:
    """Checks and converts a loaded model; `label` names it in errors. A long import shows a
    progress bar over the model's nodes (`gedialects.progress`), `-v` logs its time."""
    start = time.perf_counter()
    nodes = len(proto.graph.node)
    what = f"importing {os.path.basename(label) or label}"
    with progress.task(what, total=nodes, unit="nodes") as bar:
        opset = model_opset(proto, label)
        check_strings(proto.graph, label)
        check_names(proto.graph, opset)
        check_model(proto, label)
        if opset < MIN_OPSET:
            proto = upgrade_opset(proto, opset, label)
            opset = MIN_OPSET
        check_supported(proto.graph, label, opset)
        name = graph_name if graph_name is not None else symbol_name(proto.graph.name)
        importer = _Importer(proto, opset, name, constants)
        importer.bar = bar
        with paused_gc():  # what it builds stays alive: collections would only walk it
            module = importer.build()
    logger.info("imported %s (opset %d): %d nodes in %.2f s", label, opset, nodes, _since(start))
    return module


def _since(start: float) -> float:
    return time.perf_counter() - start


__all__ = [
    "ELEMENT_TYPES",
    "MIN_OPSET",
    "SCAN8_DOMAIN",
    "OnnxImportError",
    "check_model",
    "import_model",
    "import_proto",
    "load_model",
    "max_opset",
    "tensor_type",
]
