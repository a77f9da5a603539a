"""The `graph` dialect: GE operators on tensors.

This is the top level of gedialects, the equivalent of a GE `ComputeGraph` before partitioning.
A `graph.graph` is a named graph whose entry-block arguments are GE's `Data` nodes (their names
are the `node_name` argument attributes, or the SSA names) and whose terminator `graph.net_output`
is GE's `NetOutput`. Every other op is one GE node, printed as
`%y = graph.<type> %operands (property value)* {discardable} : (operand types) -> result types`.
Op classes are named after GE's op type (`Conv2DOp` for `Conv2D`) and carry it in `GE_TYPE`.

Tensor types are builtin tensors: GE's -1 (unknown dim) is `?`, -2 (unknown rank) `tensor<*xf32>`.
Discardable GE node attributes (`_stream_label`, `_stage_level`, `_force_unknown_shape`,
`_specified_engine_name`, `_engine_name`, `node_name`) may appear on any op.

Ops appear in a graph in topological order (the verifier checks it): passes and the interpreter
rely on it.
"""

from xdsl.ir import Dialect

from gedialects.graph.array import ReshapeOp, TransposeOp
from gedialects.graph.common import (
    AnyTensor,
    ElementwiseBinaryOp,
    ElementwiseUnaryOp,
    broadcast_shape,
    format_shape,
    reshape_shape,
    tensor_of,
)
from gedialects.graph.elementwise import AddOp, MulOp, ReluOp, SubOp
from gedialects.graph.matrix import MatMulOp
from gedialects.graph.nn import BatchNormOp, Conv2DOp, channel_axis, conv2d_output_shape
from gedialects.graph.structure import ConstOp, GraphCallable, GraphOp, NetOutputOp

__all__ = [
    "AddOp",
    "AnyTensor",
    "BatchNormOp",
    "ConstOp",
    "Conv2DOp",
    "ElementwiseBinaryOp",
    "ElementwiseUnaryOp",
    "Graph",
    "GraphCallable",
    "GraphOp",
    "MatMulOp",
    "MulOp",
    "NetOutputOp",
    "ReluOp",
    "ReshapeOp",
    "SubOp",
    "TransposeOp",
    "broadcast_shape",
    "channel_axis",
    "conv2d_output_shape",
    "format_shape",
    "reshape_shape",
    "tensor_of",
]

Graph = Dialect(
    "graph",
    [
        # Structure
        GraphOp,
        NetOutputOp,
        # Constants
        ConstOp,
        # Elementwise
        AddOp,
        MulOp,
        SubOp,
        # Activations
        ReluOp,
        # Matrix
        MatMulOp,
        # NN
        BatchNormOp,
        Conv2DOp,
        # Shape manipulation
        ReshapeOp,
        TransposeOp,
    ],
    [],
)
