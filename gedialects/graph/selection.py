"""Selection ops of GE's selection_ops.h that ONNX ops import to: UniqueWithCountsAndSorting
(ONNX Unique) and Scatter (the KV-cache write of ONNX TensorScatter); and TfIdfVectorizer,
n-gram counting, which has no GE counterpart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    element_count,
    element_type,
    int_array,
    tensor_shape,
)
from gedialects.graph.common import (
    AnyTensor,
    bool_attr,
    build_result_types,
    fail,
    i64_attr,
    infer_or_fail,
    init_node,
    prop,
    prop_bool,
    prop_floats,
    prop_int,
    prop_ints,
    prop_str,
    tensor_of,
    verify_element_types,
    verify_index_tensor,
    verify_inferred,
)

SCATTER_MODES = ("linear", "circular")


@irdl_op_definition
class UniqueWithCountsAndSortingOp(GEOp, NodeSyntax):
    """GE UniqueWithCountsAndSorting: the distinct elements of `x` (the distinct slices along
    `axis` when it is given), with the index of each one's first occurrence, the index of
    each input element (slice) in `y`, and the counts.

    `sorted` orders `y` ascending (slices lexicographically), else by first occurrence. GE's
    op has no axis and no first-occurrence output; ONNX Unique needs both, so they are here.
    The number of distinct values is data-dependent: `y`, `indices` and `counts` are `?` on
    it, and the op partitions as unknown-shape (AI CPU).

        %y, %i, %inv, %c = graph.unique_with_counts_and_sorting %x axis 0
            : (tensor<3x3xf32>) -> (tensor<?x3xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
    """

    name = "graph.unique_with_counts_and_sorting"
    GE_TYPE: ClassVar[str] = "UniqueWithCountsAndSorting"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)
    indices = result_def(AnyTensor)
    inverse_indices = result_def(AnyTensor)
    counts = result_def(AnyTensor)

    sorted = prop_def(BoolAttr, default_value=bool_attr(True))
    axis = opt_prop_def(IntegerAttr[I64])

    traits = traits_def(Pure())

    def __init__(
        self, x: SSAValue | Operation, *, sorted: bool = True, axis: int | None = None
    ) -> None:
        props: dict[str, Attribute] = {"sorted": bool_attr(sorted)}
        if axis is not None:
            props["axis"] = i64_attr(axis)
        types = build_result_types(type(self), [x], props)
        IRDLOperation.__init__(self, operands=[x], result_types=types, properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`y` `[?]` (x's shape with `?` on `axis`), `indices` and `counts` `[?]`, `inverse`
        one index per element (slice) of x."""
        prop_bool(cls, properties, "sorted")
        elem = element_type(operand_types[0])
        x = tensor_shape(operand_types[0])
        index = (tensor_of(i64, (-1,)),)
        if "axis" not in properties or properties["axis"] is None:
            n = -1 if x is None or any(d < 0 for d in x) else element_count(x)
            return (tensor_of(elem, (-1,)), *index, tensor_of(i64, (n,)), *index)
        axis = prop_int(cls, properties, "axis")
        if x is None:
            return (tensor_of(elem, None), *index, tensor_of(i64, (-1,)), *index)
        if not -len(x) <= axis < len(x):
            raise ValueError(f"axis {axis} is out of range for x of rank {len(x)}")
        axis %= len(x)
        y = list(x)
        y[axis] = -1
        return (tensor_of(elem, y), *index, tensor_of(i64, (x[axis],)), *index)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and y")
        for what, t in (
            ("indices", self.indices.type),
            ("inverse_indices", self.inverse_indices.type),
            ("counts", self.counts.type),
        ):
            if element_type(t) != i64:
                fail(self, f"{what} must be an i64 tensor, got {t}")
        inferred = infer_or_fail(self)
        verify_inferred(self, "the unique shapes", inferred)
        # A static count claims the data (`?` is a wildcard elsewhere): refused, as NonZero's.
        counts = tensor_shape(self.counts.type)
        if counts is not None and counts[0] >= 0 and _count_varies(self.x.type):
            fail(self, "the number of distinct values depends on the data: its dim must be ?")


def _count_varies(x: Attribute) -> bool:
    shape = tensor_shape(x)
    return shape is None or element_count(shape) > 1 or any(d < 0 for d in shape)


@irdl_op_definition
class ScatterOp(GEOp, NodeSyntax):
    """GE Scatter: `var` with `updates` written along `axis` from position `indices[b]` of
    each batch row b (the KV-cache update of incremental attention).

    `var` is `[B, ..., S, ...]` and `updates` `[B, ..., L, ...]` with `S` and `L` on `axis`
    (not 0), the other dims equal; `indices` `[B]` (absent: all 0). `mode` "linear" needs
    `indices[b] + L <= S`; "circular" wraps the positions modulo S (ONNX TensorScatter's
    circular buffer, which GE's op lacks). `reduce` is GE's, "none" only.

        %y = graph.scatter %cache, %u, %i axis 2
            : (tensor<2x1x4x5xf32>, tensor<2x1x1x5xf32>, tensor<2xi64>) -> tensor<2x1x4x5xf32>
    """

    name = "graph.scatter"
    GE_TYPE: ClassVar[str] = "Scatter"

    var = operand_def(AnyTensor)
    updates = operand_def(AnyTensor)
    indices = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    axis = prop_def(IntegerAttr[I64])
    reduce = prop_def(StringAttr, default_value=StringAttr("none"))
    mode = prop_def(StringAttr, default_value=StringAttr("linear"))

    traits = traits_def(Pure())

    def __init__(
        self,
        var: SSAValue | Operation,
        updates: SSAValue | Operation,
        indices: SSAValue | Operation | None,
        *,
        axis: int,
        mode: str = "linear",
    ) -> None:
        props: dict[str, Attribute] = {"axis": i64_attr(axis), "mode": StringAttr(mode)}
        init_node(self, [var, updates, [] if indices is None else [indices]], None, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """var's type."""
        if prop_str(cls, properties, "mode") not in SCATTER_MODES:
            raise ValueError('mode must be "linear" or "circular"')
        if prop_str(cls, properties, "reduce") != "none":
            raise ValueError('reduce must be "none"')
        prop(cls, properties, "axis")
        var, upd = tensor_shape(operand_types[0]), tensor_shape(operand_types[1])
        if var is not None:
            rank = len(var)
            axis = prop_int(cls, properties, "axis")
            if rank < 2 or not -rank <= axis < rank or axis % rank == 0:
                raise ValueError(f"axis {axis} must be a non-batch axis of var {list(var)}")
            axis %= rank
            if upd is not None:
                if len(upd) != rank:
                    raise ValueError(f"updates {list(upd)} and var {list(var)} differ in rank")
                for d, (a, b) in enumerate(zip(var, upd, strict=True)):
                    if a >= 0 and b >= 0 and (a != b if d != axis else b > a):
                        raise ValueError(f"updates {list(upd)} do not fit var {list(var)}")
        return (operand_types[0],)

    def verify_(self) -> None:
        verify_element_types(self, (self.var.type, self.updates.type, self.y.type), "operands")
        if self.indices is not None:
            verify_index_tensor(self, "indices", self.indices.type, 1)
        verify_inferred(self, "var's shape")


TFIDF_MODES = ("TF", "IDF", "TFIDF")


@irdl_op_definition
class TfIdfVectorizerOp(GEOp, NodeSyntax):
    """GE TfIdfVectorizer (GE has no such prototype: named after ONNX's op): counts of the
    pooled n-grams in each row of `x` `[C]` or `[B, C]` (integers), weighted.

    `pool` holds the n-grams, grouped by length: `ngram_counts[k]` is where the (k+1)-grams
    start. N-gram j counts in column `ngram_indexes[j]` of the result `[B, max(index) + 1]`
    (`[max + 1]` for a 1-D x, float32). Only lengths `min_gram_length` to `max_gram_length`
    count; an n-gram's items may be up to `max_skip_count` apart (the same gap throughout;
    unigrams count once). `mode` "TF" gives the counts, "IDF" `weights[i]` (1 without
    weights) where the count is non-zero, "TFIDF" the counts times the weights.

        %y = graph.tf_idf_vectorizer %x min_gram_length 2 max_gram_length 2 mode "TF"
            ngram_counts [0, 0] ngram_indexes [0, 1] pool [2, 3, 5, 4]
            : (tensor<2x6xi32>) -> tensor<2x2xf32>
    """

    name = "graph.tf_idf_vectorizer"
    GE_TYPE: ClassVar[str] = "TfIdfVectorizer"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    min_gram_length = prop_def(IntegerAttr[I64])
    max_gram_length = prop_def(IntegerAttr[I64])
    max_skip_count = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    mode = prop_def(StringAttr)
    ngram_counts = prop_def(DenseArrayBase.constr(i64))
    ngram_indexes = prop_def(DenseArrayBase.constr(i64))
    pool = prop_def(DenseArrayBase.constr(i64))
    weights = prop_def(DenseArrayBase.constr(f32), default_value=DenseArrayBase.from_list(f32, ()))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        min_gram_length: int,
        max_gram_length: int,
        max_skip_count: int,
        mode: str,
        ngram_counts: Sequence[int],
        ngram_indexes: Sequence[int],
        pool: Sequence[int],
        weights: Sequence[float] = (),
    ) -> None:
        props: dict[str, Attribute] = {
            "min_gram_length": i64_attr(min_gram_length),
            "max_gram_length": i64_attr(max_gram_length),
            "max_skip_count": i64_attr(max_skip_count),
            "mode": StringAttr(mode),
            "ngram_counts": int_array(ngram_counts),
            "ngram_indexes": int_array(ngram_indexes),
            "pool": int_array(pool),
            "weights": DenseArrayBase.from_list(f32, list(weights)),
        }
        init_node(self, [x], None, props)

    @classmethod
    def ngrams(cls, properties: Mapping[str, Attribute]) -> dict[tuple[int, ...], int]:
        """n-gram -> result column, for the lengths that count; ValueError on a bad pool."""
        low = prop_int(cls, properties, "min_gram_length")
        high = prop_int(cls, properties, "max_gram_length")
        if prop_int(cls, properties, "max_skip_count") < 0 or not 1 <= low <= high:
            raise ValueError(
                f"need 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0, got "
                f"{low}, {high}, {prop_int(cls, properties, 'max_skip_count')}"
            )
        if prop_str(cls, properties, "mode") not in TFIDF_MODES:
            raise ValueError('mode must be "TF", "IDF" or "TFIDF"')
        counts = prop_ints(cls, properties, "ngram_counts")
        indexes = prop_ints(cls, properties, "ngram_indexes")
        pool = prop_ints(cls, properties, "pool")
        weights = prop_floats(cls, properties, "weights")
        width = max(indexes, default=-1) + 1
        if weights and len(weights) != width:
            raise ValueError(f"weights has {len(weights)} values for {width} result columns")
        table: dict[tuple[int, ...], int] = {}
        j = 0
        for k, start in enumerate(counts):
            end = counts[k + 1] if k + 1 < len(counts) else len(pool)
            size = k + 1
            if not 0 <= start <= end <= len(pool) or (end - start) % size:
                raise ValueError(
                    f"ngram_counts {list(counts)} does not split a pool of {len(pool)}"
                )
            for first in range(start, end, size):
                if j >= len(indexes):
                    raise ValueError(f"the pool has more n-grams than the {len(indexes)} indexes")
                if low <= size <= high:
                    table[tuple(pool[first : first + size])] = indexes[j]
                j += 1
        if j != len(indexes) or not indexes or min(indexes) < 0:
            raise ValueError(
                f"ngram_indexes must give a non-negative column to each of {j} n-grams"
            )
        return table

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[B, max(ngram_indexes) + 1]` f32 (`[max + 1]` for a 1-D x)."""
        cls.ngrams(properties)
        width = max(prop_ints(cls, properties, "ngram_indexes")) + 1
        x = tensor_shape(operand_types[0])
        if x is None:
            return (tensor_of(f32, None),)
        if len(x) not in (1, 2):
            raise ValueError(f"x must be [C] or [B, C], got {list(x)}")
        return (tensor_of(f32, (width,) if len(x) == 1 else (x[0], width)),)

    def verify_(self) -> None:
        elem = element_type(self.x.type)
        if not isinstance(elem, IntegerType) or elem.width.data == 1:
            fail(self, f"x must be an integer tensor, got {self.x.type}")
        verify_inferred(self, "the counts' shape")


__all__ = [
    "SCATTER_MODES",
    "TFIDF_MODES",
    "ScatterOp",
    "TfIdfVectorizerOp",
    "UniqueWithCountsAndSortingOp",
]

OPS = (UniqueWithCountsAndSortingOp, ScatterOp, TfIdfVectorizerOp)
"""The ops of this module, in the order the dialect lists them."""
