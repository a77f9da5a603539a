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

Functional control flow (`graph.if`, `graph.while`, `graph.for`: GE's If, While, For) names
its subgraphs by symbol, with GE's IR names as properties (`then_branch`/`else_branch`,
`cond`/`body`, `body`); each subgraph is a `graph.graph` of the module, as GE keeps a node's
subgraphs beside the root graph and as `partition.partitioned_call` and `multibatch.case`
already call theirs. Regions were the alternative MLIR users know, but every graph pass walks
the ops of one `graph.graph` and the interpreter, the call-cycle rule, entry selection and the
lowering already follow graph calls by symbol; nested regions would need all of them taught a
second way to reach a subgraph. Subgraph inputs carry GE's `_parent_node_index` (If d+1,
While d, For 0 then d+2) and the verifier checks any that is given. GE's Case stays
`multibatch.case`: one op per GE type (the op map, placement and lowering key on the type), its
gear attributes optional, so the gear Case is the general Case.
"""

from xdsl.ir import Dialect

from gedialects import fast_verify
from gedialects.base import const_reads, fast_single_accessors
from gedialects.formats import FormatAttr
from gedialects.graph import (
    activation,
    array,
    attention,
    broadcast,
    control,
    dataflow,
    detection,
    elementwise,
    format_ops,
    fused,
    getnext,
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
    structure,
    text,
    trees,
    variables,
)
from gedialects.graph.activation import *  # noqa: F403
from gedialects.graph.array import *  # noqa: F403
from gedialects.graph.attention import *  # noqa: F403
from gedialects.graph.broadcast import *  # noqa: F403
from gedialects.graph.common import (
    AnyTensor,
    ElementwiseBinaryOp,
    ElementwiseUnaryOp,
    broadcast_shape,
    channels_last,
    format_shape,
    reshape_shape,
    spatial_axes,
    tensor_of,
    window_output_size,
)
from gedialects.graph.control import *  # noqa: F403
from gedialects.graph.dataflow import *  # noqa: F403
from gedialects.graph.detection import *  # noqa: F403
from gedialects.graph.elementwise import *  # noqa: F403
from gedialects.graph.format_ops import *  # noqa: F403
from gedialects.graph.fused import *  # noqa: F403
from gedialects.graph.getnext import *  # noqa: F403
from gedialects.graph.image import *  # noqa: F403
from gedialects.graph.indexing import *  # noqa: F403
from gedialects.graph.logical import *  # noqa: F403
from gedialects.graph.loss import *  # noqa: F403
from gedialects.graph.matrix import *  # noqa: F403
from gedialects.graph.nn import *  # noqa: F403
from gedialects.graph.normalization import *  # noqa: F403
from gedialects.graph.pooling import *  # noqa: F403
from gedialects.graph.quant import *  # noqa: F403
from gedialects.graph.recurrent import *  # noqa: F403
from gedialects.graph.reduction import *  # noqa: F403
from gedialects.graph.sampling import *  # noqa: F403
from gedialects.graph.selection import *  # noqa: F403
from gedialects.graph.spectral import *  # noqa: F403
from gedialects.graph.structure import *  # noqa: F403
from gedialects.graph.structure import GraphCallable
from gedialects.graph.text import *  # noqa: F403
from gedialects.graph.trees import *  # noqa: F403
from gedialects.graph.variables import *  # noqa: F403
from gedialects.strings import StringsAttr, StringType

# Each category module lists its ops in `OPS` and exports them in `__all__`.
Graph = Dialect(
    "graph",
    [
        *structure.OPS,
        *elementwise.OPS,
        *activation.OPS,
        *logical.OPS,
        *matrix.OPS,
        *nn.OPS,
        *pooling.OPS,
        *normalization.OPS,
        *array.OPS,
        *broadcast.OPS,
        *indexing.OPS,
        *reduction.OPS,
        *fused.OPS,
        *loss.OPS,
        *attention.OPS,
        *detection.OPS,
        *image.OPS,
        *recurrent.OPS,
        *quant.OPS,
        *sampling.OPS,
        *selection.OPS,
        *spectral.OPS,
        *trees.OPS,
        *text.OPS,
        *control.OPS,
        *format_ops.OPS,
        *getnext.OPS,
        *variables.OPS,
        *dataflow.OPS,
    ],
    [FormatAttr, StringType, StringsAttr],
)
fast_single_accessors(Graph.operations)
fast_verify.install(Graph, const_reads)  # compiled IRDL checks, kept verdicts

__all__ = [
    "AnyTensor",
    "ElementwiseBinaryOp",
    "ElementwiseUnaryOp",
    "Graph",
    "GraphCallable",
    "broadcast_shape",
    "channels_last",
    "format_shape",
    "reshape_shape",
    "spatial_axes",
    "tensor_of",
    "window_output_size",
]
# `+=` of each module's list, the form type checkers follow
__all__ += activation.__all__
__all__ += array.__all__
__all__ += broadcast.__all__
__all__ += control.__all__
__all__ += elementwise.__all__
__all__ += format_ops.__all__
__all__ += fused.__all__
__all__ += getnext.__all__
__all__ += indexing.__all__
__all__ += logical.__all__
__all__ += matrix.__all__
__all__ += nn.__all__
__all__ += normalization.__all__
__all__ += pooling.__all__
__all__ += reduction.__all__
__all__ += structure.__all__
__all__ += variables.__all__
__all__ += dataflow.__all__
__all__ += trees.__all__
__all__ += text.__all__
__all__ += image.__all__
