"""Attention as one node (GE's fused attention prototypes, fusion_ops.h / incre_flash_attention)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, BoolAttr, FloatAttr, IntegerAttr, StringAttr, f32, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure

from gedialects.base import GEOp, NodeSyntax, OperandValues, element_type, tensor_shape
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    Shape,
    bool_attr,
    build_result_types,
    fail,
    i64_attr,
    prop_int,
    prop_str,
    tensor_of,
    verify_element_types,
    verify_index_tensor,
    verify_inferred,
)
from gedialects.graph.elementwise import is_float

OPTIONAL_INPUTS = ("attn_mask", "past_key", "past_value", "nonpad_kv_seqlen")
"""The optional operands, in operand order; `optional_inputs` names the ones present."""


def _dim(a: int, b: int, what: str) -> int:
    """The joint value of two dims that must agree (`?` is a wildcard)."""
    if a >= 0 and b >= 0 and a != b:
        raise ValueError(f"{what} differ: {a} and {b}")
    return a if a >= 0 else b


def _div(total: int, parts: int, what: str) -> int:
    if total < 0 or parts <= 0:
        return -1
    if total % parts:
        raise ValueError(f"{what} {total} is not a multiple of {parts} heads")
    return total // parts


def present_names(properties: Mapping[str, Attribute], cls: type[GEOp]) -> tuple[str, ...]:
    """The names in `optional_inputs`, checked: known, in operand order, each once."""
    text = prop_str(cls, properties, "optional_inputs")
    names = tuple(n for n in text.split(",") if n) if text else ()
    order = [OPTIONAL_INPUTS.index(n) if n in OPTIONAL_INPUTS else -1 for n in names]
    if -1 in order:
        bad = names[order.index(-1)]
        raise ValueError(f'optional input "{bad}" is none of {", ".join(OPTIONAL_INPUTS)}')
    if order != sorted(set(order)):
        raise ValueError(f'optional_inputs "{text}" must list each name once, in operand order')
    if ("past_key" in names) != ("past_value" in names):
        raise ValueError("past_key and past_value go together")
    if "past_key" in names and "nonpad_kv_seqlen" in names:
        raise ValueError("nonpad_kv_seqlen cannot be combined with past_key/past_value")
    return names


@irdl_op_definition
class FusedInferAttentionScoreOp(GEOp, NodeSyntax):
    """GE FusedInferAttentionScore: `softmax(scale * Q K^T + bias) V` over heads, as one node.

    Models CANN's fused inference attention (prompt and incremental decoding in one prototype)
    with ONNX Attention's semantics (opsets 23-25). Q, K, V are 4-D `[B, heads, S, D]` (GE's
    `input_layout` "BNSD") or 3-D `[B, S, heads * D]` ("BSH", `num_heads` and
    `num_key_value_heads` give the head counts). `optional_inputs` names the trailing operands
    present, of `attn_mask` (bool: keep where true; float: added; its last dim padded with
    masked keys up to the key count), `past_key`/`past_value` (the cache, `[B, kv_heads, P, D]`,
    prepended to K and V: the second and third results), and `nonpad_kv_seqlen` (int64 `[B]`,
    keys from there on masked). `is_causal` masks key j for query i when `j > i + offset`
    (offset: the cache length, or `nonpad_kv_seqlen - S_q`); `left_window_size` /
    `right_window_size` (-1: unbounded) bound the keys around that position. Grouped-query
    attention repeats K and V over `num_heads / kv_heads`. `softcap` > 0 applies
    `softcap * tanh(logits / softcap)` before the bias. A query whose keys are all masked gives
    0. The fourth result is `qk_matmul_output_mode`'s logits: 0 raw, 1 softcapped, 2 with the
    bias, 3 the softmax. `scale_value` absent is `1 / sqrt(D)`; `softmax_precision` is the
    ONNX dtype code the softmax runs in (0: float32 for 16-bit inputs, else the input's).

        %y, %k, %v, %qk = graph.fused_infer_attention_score %q, %k0, %v0
            : (tensor<2x3x4x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>)
            -> (tensor<2x3x4x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>,
                tensor<2x3x4x6xf32>)
    """

    name = "graph.fused_infer_attention_score"
    GE_TYPE: ClassVar[str] = "FusedInferAttentionScore"

    query = operand_def(AnyTensor)
    key = operand_def(AnyTensor)
    value = operand_def(AnyTensor)
    optional = var_operand_def(AnyTensor)
    y = result_def(AnyTensor)
    present_key = result_def(AnyTensor)
    present_value = result_def(AnyTensor)
    qk_matmul_output = result_def(AnyTensor)

    optional_inputs = prop_def(StringAttr, default_value=StringAttr(""))
    num_heads = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    num_key_value_heads = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    scale_value = opt_prop_def(FloatAttr.constr(f32))
    is_causal = prop_def(BoolAttr, default_value=FALSE)
    softcap = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(0.0, f32))
    qk_matmul_output_mode = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    softmax_precision = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    left_window_size = prop_def(IntegerAttr[I64], default_value=IntegerAttr(-1, i64))
    right_window_size = prop_def(IntegerAttr[I64], default_value=IntegerAttr(-1, i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        query: SSAValue | Operation,
        key: SSAValue | Operation,
        value: SSAValue | Operation,
        optional: Mapping[str, SSAValue | Operation] | None = None,
        *,
        num_heads: int = 0,
        num_key_value_heads: int = 0,
        scale_value: float | None = None,
        is_causal: bool = False,
        softcap: float = 0.0,
        qk_matmul_output_mode: int = 0,
        softmax_precision: int = 0,
        left_window_size: int = -1,
        right_window_size: int = -1,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        """`optional` maps names of OPTIONAL_INPUTS to their values."""
        given = dict(optional or {})
        names = [n for n in OPTIONAL_INPUTS if n in given]
        props: dict[str, Attribute] = {
            "optional_inputs": StringAttr(",".join(names)),
            "num_heads": i64_attr(num_heads),
            "num_key_value_heads": i64_attr(num_key_value_heads),
            "is_causal": bool_attr(is_causal),
            "softcap": FloatAttr(softcap, f32),
            "qk_matmul_output_mode": i64_attr(qk_matmul_output_mode),
            "softmax_precision": i64_attr(softmax_precision),
            "left_window_size": i64_attr(left_window_size),
            "right_window_size": i64_attr(right_window_size),
        }
        if scale_value is not None:
            props["scale_value"] = FloatAttr(scale_value, f32)
        operands = [query, key, value, [given[n] for n in names]]
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
        """Y like Q with V's head size; the presents `[B, kv_heads, P + S_kv, D]`; the logits
        `[B, heads, S_q, P + S_kv]`."""
        names = present_names(properties, cls)
        if len(operand_types) != 3 + len(names):
            raise ValueError(
                f"optional_inputs names {len(names)} operands, got {len(operand_types) - 3}"
            )
        if prop_int(cls, properties, "qk_matmul_output_mode") not in (0, 1, 2, 3):
            raise ValueError("qk_matmul_output_mode must be 0, 1, 2 or 3")
        for side in ("left_window_size", "right_window_size"):
            if prop_int(cls, properties, side) < -1:
                raise ValueError(f"{side} must be -1 or non-negative")
        tq, tk, tv = operand_types[:3]
        given = dict(zip(names, operand_types[3:], strict=True))
        q, k, v = tensor_shape(tq), tensor_shape(tk), tensor_shape(tv)
        eq, ev = element_type(tq), element_type(tv)
        heads = prop_int(cls, properties, "num_heads")
        kv_heads = prop_int(cls, properties, "num_key_value_heads")
        ranks = {len(s) for s in (q, k, v) if s is not None}
        if len(ranks) > 1 or not ranks <= {3, 4}:
            raise ValueError("Q, K and V must all be 3-D or all 4-D")
        rank = ranks.pop() if ranks else None
        unknown = tensor_of(eq, None)
        if rank is None or q is None or k is None or v is None:
            return (unknown, tensor_of(eq, None), tensor_of(ev, None), unknown)
        if rank == 3:
            if heads <= 0 or kv_heads <= 0:
                raise ValueError("3-D Q, K, V need num_heads and num_key_value_heads")
            batch = _dim(_dim(q[0], k[0], "batch sizes"), v[0], "batch sizes")
            s_q, s_kv = q[1], _dim(k[1], v[1], "key and value lengths")
            d_q = _div(q[2], heads, "Q hidden size")
            d_k = _div(k[2], kv_heads, "K hidden size")
            d_v = _div(v[2], kv_heads, "V hidden size")
        else:
            if heads > 0 or kv_heads > 0:
                raise ValueError("num_heads and num_key_value_heads are for 3-D inputs")
            batch = _dim(_dim(q[0], k[0], "batch sizes"), v[0], "batch sizes")
            heads, kv_heads = q[1], _dim(k[1], v[1], "key and value heads")
            s_q, s_kv = q[2], _dim(k[2], v[2], "key and value lengths")
            d_q, d_k, d_v = q[3], k[3], v[3]
        head_size = _dim(d_q, d_k, "Q and K head sizes")
        if heads > 0 and kv_heads > 0 and heads % kv_heads:
            raise ValueError(f"{heads} query heads are not a multiple of {kv_heads} kv heads")
        past = 0
        if "past_key" in given:
            pk, pv = tensor_shape(given["past_key"]), tensor_shape(given["past_value"])
            if pk is not None and pv is not None:
                if len(pk) != 4 or len(pv) != 4:
                    raise ValueError("past_key and past_value must be 4-D")
                batch = _dim(_dim(batch, pk[0], "batch sizes"), pv[0], "batch sizes")
                kv_heads = _dim(_dim(kv_heads, pk[1], "kv heads"), pv[1], "kv heads")
                head_size = _dim(head_size, pk[3], "past_key head size")
                d_v = _dim(d_v, pv[3], "past_value head size")
                past = _dim(pk[2], pv[2], "past lengths")
            else:
                past = -1
        total = s_kv + past if s_kv >= 0 and past >= 0 else -1
        if "nonpad_kv_seqlen" in given:
            n = tensor_shape(given["nonpad_kv_seqlen"])
            if n is not None and len(n) != 1:
                raise ValueError("nonpad_kv_seqlen must be 1-D [batch]")
            if element_type(given["nonpad_kv_seqlen"]) != i64:
                raise ValueError("nonpad_kv_seqlen must be int64")
        if "attn_mask" in given:
            m = tensor_shape(given["attn_mask"])
            if m is not None and not 1 <= len(m) <= 4:
                raise ValueError(f"attn_mask must have 1 to 4 dims, got {len(m)}")
        y: Shape = (
            (batch, s_q, heads * d_v if heads >= 0 and d_v >= 0 else -1)
            if rank == 3
            else (batch, heads, s_q, d_v)
        )
        return (
            tensor_of(eq, y),
            tensor_of(eq, (batch, kv_heads, total, head_size)),
            tensor_of(ev, (batch, kv_heads, total, d_v)),
            tensor_of(eq, (batch, heads, s_q, total)),
        )

    def verify_(self) -> None:
        elems = (self.query.type, self.key.type, self.y.type, self.present_key.type)
        verify_element_types(self, elems, "Q, K, Y and present_key")
        verify_element_types(self, (self.value.type, self.present_value.type), "V, present_value")
        if not is_float(element_type(self.query.type)):
            fail(self, f"Q must be a floating-point tensor, got {self.query.type}")
        if self.softcap.value.data < 0:
            fail(self, f"softcap must be non-negative, got {self.softcap.value.data}")
        if self.softmax_precision.value.data not in (0, 1, 10, 11):
            fail(self, "softmax_precision must be 0, 1 (float), 10 (float16) or 11 (double)")
        verify_inferred(self, "the attention shape")


@irdl_op_definition
class RotaryPositionEmbeddingOp(GEOp, NodeSyntax):
    """GE RotaryPositionEmbedding: rotates pairs of features of `x` by position angles.

    `x` is `[B, heads, S, D]` or `[B, S, heads * D]` (`num_heads` given); the first
    `rotary_dim` features of each head (0: all) are rotated, the rest pass. `cos` and `sin`
    are `[B, S, rotary_dim / 2]`, or `[max_position, rotary_dim / 2]` rows picked by the
    optional int64 `position_ids` `[B, S]`. `mode` 0 pairs feature i with i + rotary_dim / 2
    (GE's "half"), 1 pairs neighbours (ONNX's interleaved): `(a, b) -> (a cos - b sin,
    a sin + b cos)`. ONNX RotaryEmbedding imports to it.

        %y = graph.rotary_position_embedding %x, %c, %s
            : (tensor<1x2x3x4xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x2x3x4xf32>
    """

    name = "graph.rotary_position_embedding"
    GE_TYPE: ClassVar[str] = "RotaryPositionEmbedding"

    x = operand_def(AnyTensor)
    cos = operand_def(AnyTensor)
    sin = operand_def(AnyTensor)
    position_ids = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    mode = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    num_heads = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    rotary_dim = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        cos: SSAValue | Operation,
        sin: SSAValue | Operation,
        position_ids: SSAValue | Operation | None = None,
        *,
        mode: int = 0,
        num_heads: int = 0,
        rotary_dim: int = 0,
    ) -> None:
        props: dict[str, Attribute] = {
            "mode": i64_attr(mode),
            "num_heads": i64_attr(num_heads),
            "rotary_dim": i64_attr(rotary_dim),
        }
        operands = [x, cos, sin, [] if position_ids is None else [position_ids]]
        result_types = build_result_types(type(self), operands, props)
        super().__init__(operands=operands, result_types=result_types, properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The type of x."""
        if len(operand_types) not in (3, 4):
            raise ValueError(f"'{cls.name}' takes 3 or 4 operands, got {len(operand_types)}")
        if prop_int(cls, properties, "mode") not in (0, 1):
            raise ValueError("mode must be 0 (half) or 1 (interleaved)")
        x = tensor_shape(operand_types[0])
        heads = prop_int(cls, properties, "num_heads")
        if x is not None:
            if len(x) not in (3, 4):
                raise ValueError(f"x must be 3-D or 4-D, got {len(x)} dims")
            if len(x) == 3 and heads <= 0:
                raise ValueError("a 3-D x needs num_heads")
            head = x[3] if len(x) == 4 else (x[2] // heads if x[2] >= 0 else -1)
            rotary = prop_int(cls, properties, "rotary_dim") or head
            if rotary >= 0 and (rotary % 2 or (head >= 0 and rotary > head)):
                raise ValueError(f"rotary_dim {rotary} must be even and at most {head}")
            for what, t in (("cos", operand_types[1]), ("sin", operand_types[2])):
                c = tensor_shape(t)
                if c is not None and c[-1] >= 0 and rotary >= 0 and c[-1] * 2 != rotary:
                    raise ValueError(f"{what} must end in rotary_dim / 2 = {rotary // 2}")
        return (operand_types[0],)

    def verify_(self) -> None:
        types = (self.x.type, self.cos.type, self.sin.type, self.y.type)
        verify_element_types(self, types, "x, cos, sin and y")
        if not is_float(element_type(self.x.type)):
            fail(self, f"x must be a floating-point tensor, got {self.x.type}")
        if self.position_ids is not None:
            verify_index_tensor(self, "position_ids", self.position_ids.type, 2)
        verify_inferred(self, "the shape of x")


__all__ = [
    "OPTIONAL_INPUTS",
    "FusedInferAttentionScoreOp",
    "RotaryPositionEmbeddingOp",
    "present_names",
]

OPS = (FusedInferAttentionScoreOp, RotaryPositionEmbeddingOp)
"""The ops of this module, in the order the dialect lists them."""
