"""Loss ops (GE nn_norm_ops.h): NLLLoss, which ONNX's NegativeLogLikelihoodLoss and the
log-softmax half of SoftmaxCrossEntropyLoss import to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from gedialects.base import GEOp, NodeSyntax, OperandValues, element_type, tensor_shape
from gedialects.graph.common import (
    AnyTensor,
    build_result_types,
    fail,
    i64_attr,
    operand_count,
    prop_str,
    tensor_of,
    verify_element_types,
    verify_index_tensor,
    verify_inferred,
)
from gedialects.graph.elementwise import is_float

REDUCTIONS = ("none", "sum", "mean")


@irdl_op_definition
class NLLLossOp(GEOp, NodeSyntax):
    """GE NLLLoss: the negative log-likelihood of `target` classes under log-probabilities `x`.

    `x` is `[N, C, d1, ...]` (GE's prototype takes `[N, C]`; the extra dims are ONNX's), `target`
    `[N, d1, ...]` int class indices, the optional `weight` `[C]` per-class weights. Each element
    loses `-weight[t] * x[n, t, d...]`; `reduction` "none" keeps them, "sum" adds them, "mean"
    divides the sum by the sum of the weights used. Elements whose target is `ignore_index`
    count with weight 0 (absent, as in ONNX, nothing is ignored; GE's parser writes -100). The
    second result is that weight sum (GE's `total_weight`).

        %y, %w = graph.nllloss %x, %t reduction "sum"
            : (tensor<3x5xf32>, tensor<3xi64>) -> (tensor<f32>, tensor<f32>)
    """

    name = "graph.nllloss"
    GE_TYPE: ClassVar[str] = "NLLLoss"

    x = operand_def(AnyTensor)
    target = operand_def(AnyTensor)
    weight = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)
    total_weight = result_def(AnyTensor)

    reduction = prop_def(StringAttr, default_value=StringAttr("mean"))
    ignore_index = opt_prop_def(IntegerAttr)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        target: SSAValue | Operation,
        weight: SSAValue | Operation | None = None,
        *,
        reduction: str = "mean",
        ignore_index: int | None = None,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"reduction": StringAttr(reduction)}
        if ignore_index is not None:
            props["ignore_index"] = i64_attr(ignore_index)
        operands = [x, target, [] if weight is None else [weight]]
        if result_types is None:
            result_types = build_result_types(type(self), operands, props)
        super().__init__(operands=operands, result_types=list(result_types), properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The target's shape for "none", a scalar otherwise; `total_weight` a scalar."""
        operand_count(cls, operand_types, 2, 3)
        reduction = prop_str(cls, properties, "reduction")
        if reduction not in REDUCTIONS:
            raise ValueError(f'reduction must be "none", "sum" or "mean", got "{reduction}"')
        x, t = tensor_shape(operand_types[0]), tensor_shape(operand_types[1])
        if x is not None and len(x) < 2:
            raise ValueError(f"x must be [N, C, ...], got {len(x)} dims")
        if x is not None and t is not None:
            if len(t) != len(x) - 1:
                raise ValueError(f"target must have {len(x) - 1} dims, got {len(t)}")
            for a, b in zip((x[0], *x[2:]), t, strict=True):
                if a >= 0 and b >= 0 and a != b:
                    raise ValueError(
                        f"target shape {list(t)} does not match x shape {list(x)} without C"
                    )
        if len(operand_types) == 3:
            w = tensor_shape(operand_types[2])
            if w is not None and (
                len(w) != 1 or (x is not None and w[0] >= 0 and x[1] >= 0 and w[0] != x[1])
            ):
                raise ValueError(f"weight must be [C], got {list(w)}")
        elem = element_type(operand_types[0])
        if reduction == "none":
            shape = t if t is not None else (None if x is None else (x[0], *x[2:]))
        else:
            shape = ()
        return (tensor_of(elem, shape), tensor_of(elem, ()))

    def verify_(self) -> None:
        types = [self.x.type, self.y.type, self.total_weight.type]
        if self.weight is not None:
            types.append(self.weight.type)
        verify_element_types(self, types, "x, weight and results")
        if not is_float(element_type(self.x.type)):
            fail(self, f"x must be a floating-point tensor, got {self.x.type}")
        verify_index_tensor(self, "target", self.target.type)
        verify_inferred(self, "the loss shape")


__all__ = ["NLLLossOp"]

OPS = (NLLLossOp,)
"""The ops of this module, in the order the dialect lists them."""
