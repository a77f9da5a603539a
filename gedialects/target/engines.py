"""Which engine can run which GE op: the kernel-store facts engine placement needs.

GE asks each engine's ops kernel store `CheckSupported(node)`, trying engines in ascending
`compute_cost` (`hicann/ge:compiler/engines/manager/engine/dnnengines.cc`: AI Core COST_1,
Vector Core COST_2, AI CPU COST_3, DVPP COST_5, host CPU COST_10; GE local and RTS set no cost
and only claim their own structural op types). The real stores are op-info libraries of
thousands of entries; these tables keep their shape: an op-type set per engine plus the dtype and
shape limits that decide between AI Core and AI CPU in practice:

- AI Core (TBE kernels) runs the compute ops on f16/f32/bf16 and small integer types, with `?`
  dims (dynamic-shape kernels compute tiling at run time) but not unknown rank, and not the ops
  whose output size depends on the data (NonZero, Unique, ...);
- Vector Core runs the elementwise and activation subset on f16/f32;
- AI CPU is GE's catch-all: every compute op type, any dtype, any shape;
- host CPU runs the ops GE's HostcpuEngineUpdatePass moves there (`MapIndex`);
- DVPP runs image decode/resize on uint8;
- GE local holds the no-task ops of `compiler/engines/local_engine` (Data, Const, NetOutput,
  Reshape, PartitionedCall, Case, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from gedialects.base import (
    AICORE_ENGINE,
    AICPU_ENGINE,
    DVPP_ENGINE,
    GE_LOCAL_ENGINE,
    HOST_CPU_ENGINE,
    RTS_ENGINE,
    VECTOR_ENGINE,
)
from gedialects.strings import StringType

ENGINE_DEFAULT_DATA = "ENGINE_DEFAULT_DATA"
"""Cluster engine of data-like nodes without inputs in engine partitioning (GE's name)."""
INPUT_NODES_SUBGRAPH = "inputNodesSubGraph"
"""Engine name of the rank-0 subgraph that gathers the data-like nodes (GE's name)."""

GE_LOCAL_OPS = frozenset(
    {
        "Data", "Const", "Constant", "NetOutput", "PartitionedCall", "StatefulPartitionedCall",
        "Case", "If", "While", "StatelessCase", "StatelessIf", "StatelessWhile", "NoOp",
        "For", "_If", "_While",
        "Reshape", "Squeeze", "SqueezeV2", "SqueezeV3", "Unsqueeze", "UnsqueezeV2",
        "UnsqueezeV3", "ExpandDims", "Flatten", "FlattenV2", "Identity", "IdentityN",
        "Shape", "ShapeN", "Size", "Rank", "Snapshot", "StopGradient", "PreventGradient",
        "End", "PlaceHolder", "Bitcast", "Empty", "Variable", "RefData", "VariableRef",
    }
)  # fmt: skip
"""Ops of GE's local engine (`REGISTER_OP_CREATOR` in `compiler/engines/local_engine`); the
functional control-flow ops are all GE-local NoOp kernels (`no_op.cc`; For too, whose
subgraph makes the tasks); Variable and RefData are NoOps there too (their memory is the
session's variable region, no task reads it in)."""

RTS_OPS = frozenset(
    {"StreamActive", "StreamSwitch", "StreamMerge", "Send", "Recv", "LabelSet", "LabelGoto",
     "LabelSwitchByIndex", "MemcpyAsync", "MemcpyAddrAsync"}
)  # fmt: skip
HOST_CPU_OPS = frozenset({"MapIndex"})
"""GE's HostcpuEngineUpdatePass white list (`hostcpu_engine_update_pass.cc`)."""
HOST_CPU_KERNELS = frozenset(
    {"Add", "Sub", "Mul", "Div", "RealDiv", "FloorMod", "Mod", "Maximum", "Minimum", "Neg",
     "Abs", "Cast", "ConcatD", "ConcatV2", "Pack", "Unpack", "GatherV2D", "GatherV2",
     "GatherNd", "StridedSliceV2", "Slice", "Range", "Fill", "Equal", "Less", "Greater",
     "LessEqual", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "SelectV2",
     "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin", "Floor", "Ceil", "Tile", "Expand",
     "Transpose", "MapIndex", "RandomUniform"}
)  # fmt: skip
"""Ops the host CPU kernel store (`DNN_VM_HOST_CPU_OP_STORE`) runs besides its placement white
list: the small shape-arithmetic kernels `HostcpuEngineUpdatePass` may move a node to (GE
refuses RandomUniform there by name)."""
DVPP_OPS = frozenset(
    {"DecodeJpeg", "DecodeAndCropJpeg", "EncodeJpeg", "DecodePng", "ResizeBilinearV2",
     "CropAndResize"}
)  # fmt: skip

TILING_DEPENDS: Mapping[str, tuple[int, ...]] = {
    "Tile": (1,),
    "OneHot": (1,),
    "PadV3": (1,),
    "TopKV2": (1,),
    "Expand": (1,),
    "Range": (0, 1, 2),
    "Fill": (0,),
    "StridedSliceV2": (1, 2, 3, 4),
}
"""Op type -> the inputs whose values the op's tiling function reads (op-info
`tiling depend`; GE `OpImplRegistry` `TilingInputsDataDependency`). DSP makes such a node
unknown-shape when one of these inputs is not a Const and its engine cannot sink the tiling
to the device (`JudgeUnknownShapeForTilingDependNode`)."""

DATA_DEPENDENT_OPS = frozenset(
    {"NonZero", "Unique", "UniqueWithCounts", "Where", "NonMaxSuppression",
     "NonMaxSuppressionV3", "NonMaxSuppressionV6", "GetDynamicDims", "MaskedSelect",
     "GetNext", "UniqueWithCountsAndSorting", "StringSplitPadded", "DecodeImage"}
)  # fmt: skip
"""Ops whose output shape depends on input values: AI CPU kernels only (StringSplitPadded,
ONNX's padded StringSplit, is a DT_STRING kernel as well)."""

AICPU_ONLY_OPS = frozenset(
    {"ROIAlign", "TreeEnsemble", "LabelEncoder", "StringNormalizer", "StaticRegexFullMatch",
     "StringJoin"}
)  # fmt: skip
"""Ops GE's ONNX models run on AI CPU though their shapes are static (the detection heads'
ROIAlign, beside their NonMaxSuppression; TreeEnsemble, a branchy walk with no Cube or Vector
form; LabelEncoder, a table look-up; the DT_STRING ops, whose kernels are all AI CPU's)."""

VECTOR_OPS = frozenset(
    {"Add", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Pow", "Neg", "Abs", "Exp",
     "Log", "Sqrt", "Rsqrt", "Reciprocal", "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Gelu",
     "Elu", "Selu", "Softplus", "Softsign", "HardSigmoid", "HardSwish", "Mish", "Erf",
     "Floor", "Ceil", "Round", "Sign", "Cast", "ClipByValue", "SelectV2", "Equal", "Less",
     "Greater", "LessEqual", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot"}
)  # fmt: skip

FLOAT_ONLY_OPS = frozenset(
    {"Conv2D", "Conv2DTranspose", "Conv3D", "Conv3DTranspose", "MatMul", "MatMulV2",
     "BatchMatMulV2", "BatchNorm", "LayerNormV3", "GroupNorm", "InstanceNorm", "LRN",
     "AvgPoolV2", "MaxPoolV3", "GlobalAveragePool", "SoftmaxV2", "LogSoftmaxV2", "Sigmoid",
     "Tanh", "Gelu", "Exp", "Log", "Sqrt", "Erf", "Elu", "Selu", "Mish", "Softplus"}
)  # fmt: skip
"""AI Core ops whose TBE kernels take floating-point tensors only."""

INT8_CUBE_OPS = frozenset({"Conv2D", "MatMul", "MatMulV2", "BatchMatMulV2"})
"""Float-only AI Core ops whose TBE kernels also take GE's int8 form: int8 x (uint8 here, see
`graph.conv2d`), int8 weight, int32 bias and result (what `ge-fuse-quant` makes)."""


def is_int8_form(op_type: str, dtypes: Sequence[str]) -> bool:
    """Whether `dtypes` (x, weight, the optional bias, the result) are GE's int8 product."""
    return (
        op_type in INT8_CUBE_OPS
        and len(dtypes) >= 3
        and dtypes[0] in ("int8", "uint8")
        and dtypes[1] == "int8"
        and all(d == "int32" for d in dtypes[2:])
    )


AICORE_DTYPES = frozenset({"float16", "float32", "bfloat16", "int8", "uint8", "int32", "bool"})
VECTOR_DTYPES = frozenset({"float16", "float32"})
DVPP_DTYPES = frozenset({"uint8"})
FLOAT_DTYPES = frozenset({"float16", "float32", "bfloat16"})

STRUCTURAL_OPS = GE_LOCAL_OPS | RTS_OPS | HOST_CPU_OPS | DVPP_OPS
"""Op types that only their own engine runs; every other type is a compute op."""


@dataclass(frozen=True)
class EngineSpec:
    """One engine: GE name, compute cost, and what its kernel store accepts."""

    name: str
    cost: int
    ops: frozenset[str] | None
    """Accepted op types; None: every compute op (not in STRUCTURAL_OPS)."""
    excluded_ops: frozenset[str] = frozenset()
    dtypes: frozenset[str] | None = None
    """Accepted element types of all operands and results; None: any."""
    unknown_rank: bool = True
    float_only: frozenset[str] = frozenset()
    tiling_sink: frozenset[str] = frozenset()
    """Op types of `TILING_DEPENDS` whose tiling this engine computes on the device (GE's
    tiling sink), so a non-Const dependent input does not make the node unknown-shape."""
    host_kernels: frozenset[str] = field(default=frozenset())
    """Ops `HostcpuEngineUpdatePass` may move onto this engine (host CPU only)."""

    def check(self, op_type: str, types: Sequence[Attribute]) -> str | None:
        """None when the engine supports the node, else the reason (as GE's EZ3003 lists)."""
        if self.ops is None:
            if op_type in STRUCTURAL_OPS:
                return f"op type {op_type} belongs to another engine"
        elif op_type not in self.ops:
            return f"op type {op_type} is not in its kernel store"
        if op_type in self.excluded_ops:
            if op_type in AICPU_ONLY_OPS:
                return f"op type {op_type} runs on AI CPU only"
            return f"op type {op_type} has a data-dependent output shape"
        names = [dtype_name(t) for t in types]
        if self.dtypes is not None:
            bad = next((d for d in names if d not in self.dtypes), None)
            if bad is not None:
                return f"dtype {bad} is not supported"
        if op_type in self.float_only and not is_int8_form(op_type, names):
            bad = next((d for d in names if d not in FLOAT_DTYPES), None)
            if bad is not None:
                return f"{op_type} takes floating-point tensors, got {bad}"
        if not self.unknown_rank and any(isinstance(t, UnrankedTensorType) for t in types):
            return "unknown rank (-2) is not supported"
        return None


ENGINE_SPECS: list[EngineSpec] = [
    EngineSpec(
        AICORE_ENGINE,
        1,
        None,
        excluded_ops=DATA_DEPENDENT_OPS | AICPU_ONLY_OPS,
        dtypes=AICORE_DTYPES,
        unknown_rank=False,
        float_only=FLOAT_ONLY_OPS,
    ),
    EngineSpec(VECTOR_ENGINE, 2, VECTOR_OPS, dtypes=VECTOR_DTYPES, unknown_rank=False),
    EngineSpec(AICPU_ENGINE, 3, None),
    EngineSpec(DVPP_ENGINE, 5, DVPP_OPS, dtypes=DVPP_DTYPES, unknown_rank=False),
    EngineSpec(HOST_CPU_ENGINE, 10, HOST_CPU_OPS, host_kernels=HOST_CPU_KERNELS),
    EngineSpec(GE_LOCAL_ENGINE, 11, GE_LOCAL_OPS),
    EngineSpec(RTS_ENGINE, 12, RTS_OPS),
]
"""Engines in GE's cost order (placement tries them first to last); `register_engine` adds
to it in place, so every importer sees a user's engine."""

ENGINE_BY_NAME: dict[str, EngineSpec] = {spec.name: spec for spec in ENGINE_SPECS}
BUILTIN_ENGINES: frozenset[str] = frozenset(ENGINE_BY_NAME)


class EngineRegistrationError(ValueError):
    """A user engine that clashes with a registered one or has a malformed op table."""


def register_engine(spec: EngineSpec) -> None:
    """Adds a user engine (GE's custom engine plug-in: an op table and a `compute_cost`) to
    the placement order; equal costs keep registration order, after the built-ins (GE sorts
    candidates by cost, stable)."""
    if not isinstance(spec, EngineSpec):
        raise EngineRegistrationError(
            f"register_engine takes an EngineSpec, got {type(spec).__name__}"
        )
    if not spec.name or not isinstance(spec.name, str):
        raise EngineRegistrationError(f"engine name must be a non-empty string, got {spec.name!r}")
    if spec.name in ENGINE_BY_NAME:
        raise EngineRegistrationError(f"engine '{spec.name}' is already registered")
    if isinstance(spec.cost, bool) or not isinstance(spec.cost, int) or spec.cost < 0:
        raise EngineRegistrationError(
            f"engine '{spec.name}': cost must be a non-negative int, got {spec.cost!r}"
        )
    if spec.ops is not None and not all(isinstance(o, str) for o in spec.ops):
        raise EngineRegistrationError(f"engine '{spec.name}': op table entries must be strings")
    position = next((i for i, s in enumerate(ENGINE_SPECS) if s.cost > spec.cost), None)
    ENGINE_SPECS.insert(len(ENGINE_SPECS) if position is None else position, spec)
    ENGINE_BY_NAME[spec.name] = spec


def unregister_engine(name: str) -> None:
    """Removes a user engine (tests; built-ins stay)."""
    if name in BUILTIN_ENGINES:
        raise EngineRegistrationError(f"engine '{name}' is built in")
    spec = ENGINE_BY_NAME.pop(name, None)
    if spec is not None:
        ENGINE_SPECS.remove(spec)


COMPOSITE_ENGINES: dict[str, frozenset[str]] = {
    "ffts_plus": frozenset(
        {AICORE_ENGINE, "DSAEngine", AICPU_ENGINE, RTS_ENGINE, "DNN_VM_AICPU_ASCEND",
         GE_LOCAL_ENGINE}
    ),
}  # fmt: skip
"""Composite engine -> the atomic engines it contains (`fftsplus_engine.cc`)."""


def composite_engine(atomic: str, op_type: str) -> str:
    """GE `GetCompositeEngine`: the composite containing `atomic`; "" for NetOutput or none."""
    if op_type == "NetOutput":
        return ""
    for name, members in COMPOSITE_ENGINES.items():
        if atomic in members:
            return name
    return ""


def dtype_name(t: Attribute) -> str:
    """GE-style dtype name of a tensor's element type (`float32`, `int64`, ...)."""
    elem = t.element_type if isinstance(t, TensorType | UnrankedTensorType) else t
    if isinstance(elem, Float16Type):
        return "float16"
    if isinstance(elem, BFloat16Type):
        return "bfloat16"
    if isinstance(elem, Float32Type):
        return "float32"
    if isinstance(elem, Float64Type):
        return "float64"
    if isinstance(elem, IntegerType):
        width = elem.width.data
        if width == 1:
            return "bool"
        unsigned = elem.signedness.data == Signedness.UNSIGNED
        return f"{'uint' if unsigned else 'int'}{width}"
    if isinstance(elem, StringType):
        return "string"  # GE's DT_STRING
    return str(elem)
