"""GE's GetNext (TF's IteratorGetNext over an IteratorV2): the graph's inputs pulled from a
queue of input sets, as GE's GetNext sink mode feeds a model from a data channel.

In sink mode the op has 2N results: the N data tensors of one input set, then the N int32
shape tensors of those tensors (`InitParamsOfGetNext`), which `multibatch.get_dynamic_dims`
reads to find the gear on the device. Each execution pulls the next input set, so a sunk loop
of N iterations (`ge-sink-loop`) pulls N sets per launch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, StringAttr, TensorType, i32
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, prop_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gedialects.base import GEOp

GETNEXT_OUTPUT_ATTRS = "_getnext_output_attrs"
"""On a GetNext of an expanded root: per data output, the attributes GE puts on the Data it
stands for (`_mbatch_origin_input_dims`, `_mbatch_max_input_dims`, ...), as one dictionary
each: the lowering sizes the data buffers for the largest gear from them, and the gear table
reads the inputs' dims back."""
GETNEXT_SINK_DYNAMIC = "getnext_sink_dynamic"
"""GE's attribute on the root NetOutput (LinkGetDynamicDimsToNetOutput): its last input is the
GetDynamicDims output, a hidden output the runtime reads back after each run."""


@irdl_op_definition
class GetNextOp(GEOp):
    """GE GetNext (sink mode): the next input set of the queue feeding the model.

    `output_names` names the N data outputs (the inputs of one set, as `--input_shape` names
    them); results 0..N-1 are the data, results N..2N-1 their shapes (int32, one per dim).

        %x, %y, %xs, %ys = graph.get_next output_names ["x", "y"]
            : () -> (tensor<?x3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<1xi32>)
    """

    name = "graph.get_next"
    GE_TYPE: ClassVar[str] = "GetNext"

    outputs = var_result_def(TensorType)
    output_names = prop_def(ArrayAttr[StringAttr])

    def __init__(self, names: Sequence[str], data_types: Sequence[Attribute]) -> None:
        shapes = [
            TensorType(i32, [t.get_num_dims() if isinstance(t, TensorType) else 0])
            for t in data_types
        ]
        super().__init__(
            result_types=[[*data_types, *shapes]],
            properties={"output_names": ArrayAttr([StringAttr(n) for n in names])},
        )

    @classmethod
    def parse(cls, parser: Parser) -> GetNextOp:
        parser.parse_keyword("output_names")
        pos = parser.pos
        names = parser.parse_attribute()
        if not isinstance(names, ArrayAttr) or not all(
            isinstance(n, StringAttr) for n in names.data
        ):
            parser.raise_error("'graph.get_next' output_names must be a list of strings", pos)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_function_type()
        if ftype.inputs.data:
            parser.raise_error("'graph.get_next' takes no operands", pos)
        op = cls.create(
            result_types=list(ftype.outputs.data),
            properties={"output_names": names},
            attributes=attrs,
        )
        assert isinstance(op, GetNextOp)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" output_names ")
        printer.print_attribute(self.output_names)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_function_type((), self.result_types)

    @property
    def count(self) -> int:
        """N: the data outputs (the inputs of one set)."""
        return len(self.output_names.data)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.data for s in self.output_names.data)

    def verify_(self) -> None:
        n = self.count
        if len(self.outputs) != 2 * n:
            raise VerifyException(
                f"'graph.get_next' names {n} outputs in output_names and has "
                f"{len(self.outputs)} results; sink mode has 2N: N data, then N shapes"
            )
        if len(set(self.names)) != n:
            raise VerifyException("'graph.get_next' output_names has a name twice")
        for i in range(n):
            data, shape = self.outputs[i].type, self.outputs[n + i].type
            assert isinstance(data, TensorType) and isinstance(shape, TensorType)
            rank = data.get_num_dims()
            if shape.element_type != i32 or tuple(shape.get_shape()) != (rank,):
                raise VerifyException(
                    f"'graph.get_next' result {n + i} is the shape of result {i} ({data}): "
                    f"it must be tensor<{rank}xi32>, got {shape}"
                )


__all__ = ["GETNEXT_OUTPUT_ATTRS", "GETNEXT_SINK_DYNAMIC", "GetNextOp"]

OPS = (GetNextOp,)
