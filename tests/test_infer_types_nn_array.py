"""Shape inference rules of the nn, pooling, normalization, array, broadcast, indexing and
reduction ops: static, `?` and unranked operands, shape-like operands that are constants
(`values`) or not, the errors the rules raise, and builders that take the rule's types."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    bf16,
    f16,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from gedialects.base import GEOp
from gedialects.graph import (
    ArgMaxDOp,
    AvgPoolV2Op,
    BatchNormOp,
    ConcatDOp,
    ConstOp,
    Conv2DOp,
    Conv2DTransposeOp,
    Conv3DOp,
    CumsumOp,
    DepthToSpaceOp,
    ExpandOp,
    FillOp,
    FlattenOp,
    GatherElementsOp,
    GatherNdOp,
    GatherV2DOp,
    GlobalAveragePoolOp,
    GroupNormOp,
    HardmaxOp,
    IdentityOp,
    InstanceNormOp,
    LayerNormV3Op,
    LRNOp,
    MaxPoolV3Op,
    MaxPoolWithArgmaxOp,
    NonZeroOp,
    OneHotOp,
    PadV3Op,
    RangeOp,
    ReduceMaxOp,
    ReduceSumOp,
    ReshapeOp,
    ResizeDOp,
    ResizeOp,
    ReverseSequenceOp,
    ScatterElementsOp,
    ShapeOp,
    SizeOp,
    SoftmaxV2Op,
    SpaceToDepthOp,
    SplitDOp,
    SplitVOp,
    SqueezeV3Op,
    StridedSliceV2Op,
    TensorScatterUpdateOp,
    TileOp,
    TopKV2Op,
    TransposeOp,
    TriluOp,
    UnsqueezeV3Op,
)
from gedialects.tensors import dense_from_numpy

Q = DYNAMIC_INDEX


def tensor(*dims: int, elem: Attribute = f32) -> TensorType:
    return TensorType(elem, list(dims))


def unranked(elem: Attribute = f32) -> UnrankedTensorType:
    return UnrankedTensorType(elem)


def ints(*values: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def i64a(v: int) -> IntegerAttr:
    return IntegerAttr(v, i64)


def floats(*values: float) -> DenseArrayBase:
    return DenseArrayBase.from_list(f32, values)


def infer_all(
    op_type: type[GEOp],
    *types: Attribute,
    values: Mapping[int, Sequence[int | float]] | None = None,
    **props: Attribute,
) -> tuple[Attribute, ...]:
    """`op_type`'s rule on operand `types`, `values[i]` the constant value of operand i.

    Properties left out are left out of the mapping too: the rule must take the defaults.
    """
    known = {i: tuple(v) for i, v in (values or {}).items()}
    result = op_type.infer_result_types(types, props, lambda i: known.get(i))
    assert result is not None
    return result


def infer(
    op_type: type[GEOp],
    *types: Attribute,
    values: Mapping[int, Sequence[int | float]] | None = None,
    **props: Attribute,
) -> Attribute:
    (result,) = infer_all(op_type, *types, values=values, **props)
    return result


def value(t: Attribute) -> SSAValue:
    return create_ssa_value(t)


def const(*values: int, dtype: type = np.int64) -> ConstOp:
    return ConstOp(dense_from_numpy(np.array(values, dtype=dtype)))


def scalar(v: float, dtype: type = np.int64) -> ConstOp:
    return ConstOp(dense_from_numpy(np.array(v, dtype=dtype)))


def built_matches_rule(op: GEOp) -> None:
    """The builder's result types are the rule's on the op's operands, and they verify."""
    assert tuple(op.result_types) == op.infer_types()
    op.verify_()


# --------------------------------------------------------------------------------------------
# nn: convolutions, resizing, depth <-> space
# --------------------------------------------------------------------------------------------

CONV = {"strides": ints(1, 1, 2, 2), "pads": ints(1, 1, 1, 1)}


def test_conv2d_static_dynamic_and_unranked() -> None:
    w = tensor(16, 3, 3, 3)
    assert infer(Conv2DOp, tensor(1, 3, 8, 8), w, **CONV) == tensor(1, 16, 4, 4)
    assert infer(Conv2DOp, tensor(Q, 3, 8, Q), w, **CONV) == tensor(Q, 16, 4, Q)
    # the rank is known even when x is unranked: N and the spatial dims are `?`
    assert infer(Conv2DOp, unranked(), w, **CONV) == tensor(Q, 16, Q, Q)
    assert infer(Conv2DOp, tensor(2, 3, 8, 8), unranked(), **CONV) == tensor(2, Q, Q, Q)
    nhwc = infer(
        Conv2DOp,
        tensor(1, 8, 8, 3),
        tensor(3, 3, 3, 16),
        strides=ints(1, 2, 2, 1),
        pads=ints(1, 1, 1, 1),
        data_format=StringAttr("NHWC"),
    )
    assert nhwc == tensor(1, 4, 4, 16)
    # the bias does not change the type
    assert infer(Conv2DOp, tensor(1, 3, 8, 8), w, tensor(16), **CONV) == tensor(1, 16, 4, 4)


def test_conv3d_and_conv_errors() -> None:
    x, w = tensor(1, 2, 4, 8, 8), tensor(4, 2, 3, 3, 3)
    strides = ints(1, 1, 1, 2, 2)
    got = infer(Conv3DOp, x, w, strides=strides, pads=ints(1, 1, 1, 1, 1, 1))
    assert got == tensor(1, 4, 4, 4, 4)
    with pytest.raises(ValueError, match=r"dilated 3x3x3 kernel exceeds the padded 2x4x4 input"):
        infer(Conv3DOp, tensor(1, 2, 2, 4, 4), w, strides=ints(1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match=r"x must be 5-D, got tensor<1x2x4x4xf32>"):
        infer(Conv3DOp, tensor(1, 2, 4, 4), w, strides=strides)
    with pytest.raises(ValueError, match=r"strides must have 4 values, got \[1, 1\]"):
        infer(Conv2DOp, tensor(1, 3, 8, 8), tensor(4, 3, 3, 3), strides=ints(1, 1))
    with pytest.raises(ValueError, match=r"strides must be positive"):
        infer(Conv2DOp, tensor(1, 3, 8, 8), tensor(4, 3, 3, 3), strides=ints(1, 1, 0, 1))
    with pytest.raises(ValueError, match=r"needs the property strides"):
        infer(Conv2DOp, tensor(1, 3, 8, 8), tensor(4, 3, 3, 3))


def test_conv2d_transpose_from_input_size_or_computed() -> None:
    size, x, w = tensor(4, elem=i64), tensor(1, 3, 4, 4), tensor(3, 2, 3, 3)
    props = {"strides": ints(1, 1, 2, 2)}
    assert infer(Conv2DTransposeOp, size, x, w, **props) == tensor(1, 2, 9, 9)
    known = infer(Conv2DTransposeOp, size, x, w, values={0: (1, 2, 9, 9)}, **props)
    assert known == tensor(1, 2, 9, 9)
    # a constant input_size fills the dims an unranked x leaves unknown
    assert infer(Conv2DTransposeOp, size, unranked(), w, **props) == tensor(Q, 2, Q, Q)
    filled = infer(Conv2DTransposeOp, size, unranked(), w, values={0: (5, 2, 7, 7)}, **props)
    assert filled == tensor(5, 2, 7, 7)
    grouped = infer(
        Conv2DTransposeOp, size, tensor(Q, 4, 4, 4), tensor(4, 3, 1, 1), **props, groups=i64a(2)
    )
    assert grouped == tensor(Q, 6, 7, 7)
    with pytest.raises(ValueError, match=r"input_size \[1, 2, 8, 8\] differs from the computed"):
        infer(Conv2DTransposeOp, size, x, w, values={0: (1, 2, 8, 8)}, **props)
    with pytest.raises(ValueError, match=r"pads leave no output: computed shape \[1, 1, 0, 1\]"):
        infer(
            Conv2DTransposeOp,
            size,
            tensor(1, 2, 1, 1),
            tensor(2, 1, 1, 1),
            strides=ints(1, 1, 1, 1),
            pads=ints(1, 0, 0, 0),
        )


def test_resize_d_sizes_scales_and_unranked_x() -> None:
    x = tensor(1, 1, 3, 3)
    assert infer(ResizeDOp, x, scales=floats(1, 1, 1.5, 2)) == tensor(1, 1, 4, 6)
    assert infer(ResizeDOp, tensor(Q, 1, 3, Q), scales=floats(1, 1, 2, 2)) == tensor(Q, 1, 6, Q)
    assert infer(ResizeDOp, unranked(), sizes=ints(1, 1, 5, 5)) == tensor(1, 1, 5, 5)
    assert infer(ResizeDOp, unranked(), scales=floats(1, 2)) == tensor(Q, Q)
    with pytest.raises(ValueError, match="needs sizes or scales"):
        infer(ResizeDOp, x)
    with pytest.raises(ValueError, match="has 2 sizes/scales for the 4 dims of x"):
        infer(ResizeDOp, x, sizes=ints(4, 4))


def test_resize_reads_constant_scales_and_sizes() -> None:
    x, roi = tensor(1, 1, 2, 2), tensor(0)
    scales, sizes = tensor(2), tensor(0, elem=i64)
    axes = {"axes": ints(2, 3)}
    # the empty sizes tensor is known empty from its type alone
    got = infer(ResizeOp, x, roi, scales, sizes, values={2: (2.0, 3.0)}, **axes)
    assert got == tensor(1, 1, 4, 6)
    # unknown scales: only the resized axes are `?`
    assert infer(ResizeOp, x, roi, scales, sizes, **axes) == tensor(1, 1, Q, Q)
    assert infer(ResizeOp, x, roi, tensor(4), sizes) == tensor(Q, Q, Q, Q)
    by_size = infer(ResizeOp, x, roi, tensor(0), tensor(4, elem=i64), values={3: (1, 1, 3, 5)})
    assert by_size == tensor(1, 1, 3, 5)
    # not_larger scales every resized axis by the smaller ratio; a `?` resized dim hides it
    policy = {"keep_aspect_ratio_policy": StringAttr("not_larger"), **axes}
    sized = infer(ResizeOp, x, roi, tensor(0), tensor(2, elem=i64), values={3: (4, 6)}, **policy)
    assert sized == tensor(1, 1, 4, 4)
    dyn = infer(
        ResizeOp,
        tensor(1, 1, Q, 2),
        roi,
        tensor(0),
        tensor(2, elem=i64),
        values={3: (4, 6)},
        **policy,
    )
    assert dyn == tensor(1, 1, Q, Q)
    assert infer(ResizeOp, unranked(), roi, scales, sizes) == unranked()
    with pytest.raises(ValueError, match=r"axes \[2, -2\] are not distinct dims of x"):
        infer(ResizeOp, x, roi, scales, sizes, axes=ints(2, -2))


def test_depth_space() -> None:
    block = {"block_size": i64a(2)}
    assert infer(DepthToSpaceOp, tensor(1, 8, 2, 3), **block) == tensor(1, 2, 4, 6)
    assert infer(SpaceToDepthOp, tensor(1, 2, 4, 6), **block) == tensor(1, 8, 2, 3)
    assert infer(SpaceToDepthOp, tensor(Q, 2, Q, 6), **block) == tensor(Q, 8, Q, 3)
    assert infer(DepthToSpaceOp, unranked(), **block) == tensor(Q, Q, Q, Q)
    nhwc = infer(SpaceToDepthOp, tensor(1, 4, 6, 2), data_format=StringAttr("NHWC"), **block)
    assert nhwc == tensor(1, 2, 3, 8)
    with pytest.raises(ValueError, match=r"6 channels are not a multiple of block_size\^2 = 4"):
        infer(DepthToSpaceOp, tensor(1, 6, 2, 2), **block)
    with pytest.raises(ValueError, match="spatial dim 5 is not a multiple of block_size 2"):
        infer(SpaceToDepthOp, tensor(1, 1, 5, 4), **block)
    with pytest.raises(ValueError, match="block_size must be positive, got 0"):
        infer(SpaceToDepthOp, tensor(1, 1, 4, 4), block_size=i64a(0))


# --------------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------------

POOL = {"ksize": ints(1, 1, 3, 3), "strides": ints(1, 1, 2, 2), "pads": ints(1, 1, 1, 1)}


def test_window_pooling() -> None:
    assert infer(MaxPoolV3Op, tensor(1, 3, 8, 8), **POOL) == tensor(1, 3, 4, 4)
    assert infer(AvgPoolV2Op, tensor(Q, 3, 8, Q), **POOL) == tensor(Q, 3, 4, Q)
    assert infer(MaxPoolV3Op, unranked(f16), **POOL) == tensor(Q, Q, Q, Q, elem=f16)
    ceil = {
        "ksize": ints(1, 1, 2, 2),
        "strides": ints(1, 1, 2, 2),
        "ceil_mode": BoolAttr.from_bool(True),
    }
    assert infer(MaxPoolV3Op, tensor(1, 3, 5, 5), **ceil) == tensor(1, 3, 3, 3)
    y, argmax = infer_all(MaxPoolWithArgmaxOp, tensor(1, Q, 4, 4), **POOL)
    assert (y, argmax) == (tensor(1, Q, 2, 2), tensor(1, Q, 2, 2, elem=i64))
    assert infer_all(MaxPoolWithArgmaxOp, unranked(), **POOL)[1] == tensor(Q, Q, Q, Q, elem=i64)
    with pytest.raises(ValueError, match="x has rank 3, but ksize has 4 entries"):
        infer(MaxPoolV3Op, tensor(1, 3, 8), **POOL)
    with pytest.raises(
        ValueError, match=r"the window does not fit the padded input \[1, 2, 1, 1\]"
    ):
        infer(MaxPoolV3Op, tensor(1, 2, 1, 1), ksize=ints(1, 1, 4, 4), strides=ints(1, 1, 1, 1))
    with pytest.raises(ValueError, match=r"ksize must be 1 in the N and C dims"):
        infer(MaxPoolV3Op, tensor(1, 3, 8, 8), ksize=ints(1, 2, 2, 2), strides=ints(1, 1, 1, 1))


def test_global_pooling() -> None:
    assert infer(GlobalAveragePoolOp, tensor(2, 3, 7, 7)) == tensor(2, 3, 1, 1)
    assert infer(GlobalAveragePoolOp, tensor(Q, 3, Q, Q, Q)) == tensor(Q, 3, 1, 1, 1)
    assert infer(GlobalAveragePoolOp, unranked()) == unranked()
    with pytest.raises(ValueError, match="x must be N, C and at least one spatial dim"):
        infer(GlobalAveragePoolOp, tensor(2, 3))


# --------------------------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------------------------


def test_batch_and_instance_norm_take_the_channels_from_the_parameters() -> None:
    c = tensor(3)
    assert infer(BatchNormOp, tensor(1, 3, 8, 8), c, c, c, c) == tensor(1, 3, 8, 8)
    assert infer(BatchNormOp, tensor(Q, Q, 8, 8), c, c, c, c) == tensor(Q, 3, 8, 8)
    nhwc = infer(BatchNormOp, tensor(1, 8, 8, Q), c, c, c, c, data_format=StringAttr("NHWC"))
    assert nhwc == tensor(1, 8, 8, 3)
    assert infer(BatchNormOp, unranked(), c, c, c, c) == unranked()
    assert infer(InstanceNormOp, tensor(2, Q, 4), tensor(Q), c) == tensor(2, 3, 4)
    groups = {"num_groups": i64a(1)}
    assert infer(GroupNormOp, tensor(2, Q, 4), c, c, **groups) == tensor(2, 3, 4)
    with pytest.raises(ValueError, match=r"a parameter has length 3, expected C = 4"):
        infer(BatchNormOp, tensor(1, 4, 2, 2), c, c, c, c)
    with pytest.raises(ValueError, match=r"x must be \[N, C, spatial...\], got tensor<2x3xf32>"):
        infer(InstanceNormOp, tensor(2, 3), c, c)


def test_layer_norm_stats() -> None:
    axes = {"begin_norm_axis": i64a(-1), "begin_params_axis": i64a(-1)}
    y, mean, rstd = infer_all(LayerNormV3Op, tensor(2, 5, 6), tensor(6), tensor(6), **axes)
    assert (y, mean, rstd) == (tensor(2, 5, 6), tensor(2, 5, 1), tensor(2, 5, 1))
    # 16-bit floats keep float32 statistics; `?` dims are refined by gamma
    half = infer_all(
        LayerNormV3Op, tensor(Q, 5, Q, elem=f16), tensor(6, elem=f16), tensor(Q, elem=f16), **axes
    )
    assert half == (tensor(Q, 5, 6, elem=f16), tensor(Q, 5, 1), tensor(Q, 5, 1))
    assert infer_all(LayerNormV3Op, unranked(bf16), tensor(6), tensor(6))[1] == unranked(f32)
    with pytest.raises(ValueError, match="begin_norm_axis 2 is out of range for the 2 dims"):
        infer_all(LayerNormV3Op, tensor(2, 5), tensor(5), tensor(5), begin_norm_axis=i64a(2))


def test_softmax_family_and_lrn() -> None:
    assert infer(SoftmaxV2Op, tensor(Q, 5)) == tensor(Q, 5)
    assert infer(HardmaxOp, unranked(), axes=ints(3)) == unranked()
    with pytest.raises(ValueError, match="axes must not be empty"):
        infer(SoftmaxV2Op, unranked(), axes=ints())
    with pytest.raises(ValueError, match=r"axes \[2\] are out of range for the 2 dims of x"):
        infer(SoftmaxV2Op, tensor(2, 5), axes=ints(2))
    assert infer(LRNOp, tensor(1, 5, Q, 4)) == tensor(1, 5, Q, 4)
    with pytest.raises(ValueError, match=r"x must be \[N, C, spatial...\]"):
        infer(LRNOp, tensor(5, 4))


# --------------------------------------------------------------------------------------------
# Array: reshaping, concat/split, shapes
# --------------------------------------------------------------------------------------------


def test_reshape_constant_and_unknown_shape() -> None:
    x, s2 = tensor(2, 3, 4), tensor(2, elem=i64)
    assert infer(ReshapeOp, x, s2, values={1: (0, -1)}) == tensor(2, 12)
    assert infer(ReshapeOp, tensor(Q, 3, 4), s2, values={1: (0, -1)}) == tensor(Q, Q)
    assert infer(ReshapeOp, tensor(Q, 3, 4), s2, values={1: (-1, 12)}) == tensor(Q, 12)
    # unknown values of known length give the rank only; an unknown length gives nothing
    assert infer(ReshapeOp, x, s2) == tensor(Q, Q)
    assert infer(ReshapeOp, x, tensor(Q, elem=i64)) == unranked()
    # an unranked x still takes the dims the shape spells out
    assert infer(ReshapeOp, unranked(), s2, values={1: (0, 7)}) == tensor(Q, 7)
    zero = {"allowzero": BoolAttr.from_bool(True)}
    assert infer(ReshapeOp, unranked(), s2, values={1: (0, 7)}, **zero) == tensor(0, 7)
    assert infer(ReshapeOp, tensor(0, 3), s2, values={1: (3, 0)}, **zero) == tensor(3, 0)
    with pytest.raises(ValueError, match="cannot reshape 24 elements into"):
        infer(ReshapeOp, x, s2, values={1: (5, -1)})
    with pytest.raises(ValueError, match="more than one -1"):
        infer(ReshapeOp, unranked(), s2, values={1: (-1, -1)})


def test_transpose_flatten_identity() -> None:
    perm = {"perm": ints(2, 0, 1)}
    assert infer(TransposeOp, tensor(1, Q, 5), **perm) == tensor(5, 1, Q)
    assert infer(TransposeOp, unranked(i32), **perm) == tensor(Q, Q, Q, elem=i32)
    with pytest.raises(ValueError, match=r"perm \[0, 0\] does not permute the 2 dims"):
        infer(TransposeOp, tensor(2, 3), perm=ints(0, 0))
    assert infer(FlattenOp, tensor(2, 3, 4, 5), axis=i64a(2)) == tensor(6, 20)
    assert infer(FlattenOp, tensor(2, 3, Q, 5), axis=i64a(2)) == tensor(6, Q)
    assert infer(FlattenOp, tensor(Q, 0, 5)) == tensor(Q, 0)  # 0 elements whatever `?` is
    assert infer(FlattenOp, unranked()) == tensor(Q, Q)
    with pytest.raises(ValueError, match="axis 3 is out of range for rank 2"):
        infer(FlattenOp, tensor(2, 3), axis=i64a(3))
    assert infer(IdentityOp, tensor(Q, 2, elem=i1)) == tensor(Q, 2, elem=i1)


def test_squeeze_unsqueeze() -> None:
    a1 = tensor(1, elem=i64)
    assert infer(SqueezeV3Op, tensor(1, 3, 1)) == tensor(3)
    assert infer(SqueezeV3Op, tensor(1, Q, 1)) == unranked()  # the `?` might be 1
    assert infer(SqueezeV3Op, tensor(1, Q, 1), a1, values={1: (-1,)}) == tensor(1, Q)
    assert infer(SqueezeV3Op, tensor(1, Q, 1), a1) == tensor(Q, Q)
    assert infer(SqueezeV3Op, tensor(1, 3), tensor(Q, elem=i64)) == unranked()
    with pytest.raises(ValueError, match="cannot squeeze dim 1 of size 3"):
        infer(SqueezeV3Op, tensor(1, 3), a1, values={1: (1,)})
    assert infer(UnsqueezeV3Op, tensor(Q, 3), a1, values={1: (0,)}) == tensor(1, Q, 3)
    assert infer(UnsqueezeV3Op, tensor(2, 3), tensor(2, elem=i64)) == tensor(Q, Q, Q, Q)
    assert infer(UnsqueezeV3Op, unranked(), a1, values={1: (0,)}) == unranked()
    with pytest.raises(ValueError, match=r"axes \[0, -3\] repeat an axis"):
        infer(UnsqueezeV3Op, tensor(3), tensor(2, elem=i64), values={1: (0, -3)})


def test_concat() -> None:
    one = {"concat_dim": i64a(1)}
    assert infer(ConcatDOp, tensor(2, 3), tensor(2, 5), **one) == tensor(2, 8)
    assert infer(ConcatDOp, tensor(Q, 3), tensor(2, Q), **one) == tensor(2, Q)
    assert infer(ConcatDOp, tensor(2, 3), unranked(), **one) == tensor(2, Q)
    assert infer(ConcatDOp, unranked(), unranked(), **one) == unranked()
    with pytest.raises(ValueError, match="inputs differ in rank"):
        infer(ConcatDOp, tensor(2, 3), tensor(2), **one)
    with pytest.raises(ValueError, match="one element type for inputs, got f32, f16"):
        infer(ConcatDOp, tensor(2, 3), tensor(2, 3, elem=f16), **one)
    with pytest.raises(ValueError, match=r"inputs differ in dim 0: \[2, 4\]"):
        infer(ConcatDOp, tensor(2, 3), tensor(4, 3), **one)
    with pytest.raises(ValueError, match="needs at least one input"):
        infer(ConcatDOp, **one)


def test_split() -> None:
    x, sizes, dim = tensor(3, 6), tensor(2, elem=i64), tensor(elem=i64)
    two = {"num_split": i64a(2)}
    got = infer_all(SplitVOp, x, sizes, dim, values={1: (2, -1), 2: (1,)}, **two)
    assert got == (tensor(3, 2), tensor(3, 4))
    # unknown sizes: `?` along the split dim; unknown split_dim: `?` everywhere
    assert infer_all(SplitVOp, x, sizes, dim, values={2: (1,)}, **two) == (tensor(3, Q),) * 2
    assert infer_all(SplitVOp, x, sizes, dim, **two) == (tensor(Q, Q),) * 2
    assert infer_all(SplitVOp, unranked(), sizes, dim, **two) == (unranked(),) * 2
    with pytest.raises(ValueError, match=r"split sizes \[2, 3\] do not add up to dim 1 \(6\)"):
        infer_all(SplitVOp, x, sizes, dim, values={1: (2, 3), 2: (1,)}, **two)
    with pytest.raises(ValueError, match="size_splits has 3 sizes for 2 results"):
        infer_all(SplitVOp, x, tensor(3, elem=i64), dim, values={1: (1, 2, 3), 2: (1,)}, **two)
    uneven = infer_all(SplitDOp, tensor(7, Q), split_dim=i64a(0), num_split=i64a(3))
    assert uneven == (tensor(3, Q), tensor(3, Q), tensor(1, Q))
    assert infer_all(SplitDOp, tensor(Q, 2), split_dim=i64a(0), **two) == (tensor(Q, 2),) * 2
    with pytest.raises(ValueError, match="num_split must be positive"):
        infer_all(SplitDOp, tensor(4), split_dim=i64a(0), num_split=i64a(0))


def test_shape_and_size_follow_dtype() -> None:
    assert infer(ShapeOp, tensor(2, Q)) == tensor(2, elem=i64)
    assert infer(ShapeOp, unranked()) == tensor(Q, elem=i64)  # always 1-D
    assert infer(ShapeOp, tensor(2, 3), dtype=i32) == tensor(2, elem=i32)
    assert infer(SizeOp, unranked(), dtype=i32) == tensor(elem=i32)
    with pytest.raises(ValueError, match="dtype must be i32 or i64, got i1"):
        infer(SizeOp, tensor(2), dtype=i1)


# --------------------------------------------------------------------------------------------
# Broadcast: expand, tile, pad, fill, range
# --------------------------------------------------------------------------------------------


def test_expand() -> None:
    s3 = tensor(3, elem=i64)
    assert infer(ExpandOp, tensor(3, 1), s3, values={1: (2, 1, 4)}) == tensor(2, 3, 4)
    assert infer(ExpandOp, tensor(Q, 1), s3, values={1: (2, 5, 4)}) == tensor(2, 5, 4)
    # unknown target values: dims of x > 1 survive, the rest is `?`
    assert infer(ExpandOp, tensor(3, 1), s3) == tensor(Q, 3, Q)
    assert infer(ExpandOp, tensor(3, 1), tensor(Q, elem=i64)) == unranked()
    assert infer(ExpandOp, unranked(), s3, values={1: (2, 1, 4)}) == unranked()
    with pytest.raises(ValueError, match=r"cannot expand \[3, 2\] to \[4, 3\]"):
        infer(ExpandOp, tensor(3, 2), tensor(2, elem=i64), values={1: (4, 3)})


def test_tile() -> None:
    m2 = tensor(2, elem=i64)
    assert infer(TileOp, tensor(2, 3), m2, values={1: (2, 1)}) == tensor(4, 3)
    assert infer(TileOp, tensor(Q, 3), m2, values={1: (2, 0)}) == tensor(Q, 0)
    assert infer(TileOp, tensor(0, 3), m2) == tensor(0, Q)
    assert infer(TileOp, unranked(), m2) == tensor(Q, Q)  # the rank is the multiples' length
    with pytest.raises(ValueError, match="multiples has 3 values for rank 2"):
        infer(TileOp, tensor(2, 3), tensor(3, elem=i64))
    with pytest.raises(ValueError, match=r"multiples \[1, -1\] has a negative value"):
        infer(TileOp, tensor(2, 3), m2, values={1: (1, -1)})


def test_pad() -> None:
    x, p4, c = tensor(2, 3), tensor(4, elem=i64), tensor()
    onnx = {"paddings_contiguous": BoolAttr.from_bool(False)}
    assert infer(PadV3Op, x, p4, c, values={1: (0, 1, 0, 2)}, **onnx) == tensor(2, 6)
    assert infer(PadV3Op, x, p4, c, values={1: (0, 1, 0, 2)}) == tensor(3, 5)
    assert infer(PadV3Op, tensor(Q, 3), p4, c, values={1: (1, 1, -1, 0)}) == tensor(Q, 2)
    assert infer(PadV3Op, x, p4, c) == tensor(Q, Q)
    # with axes: only those dims change; unknown pads make just them `?`
    axes = tensor(1, elem=i64)
    p2 = tensor(2, elem=i64)
    assert infer(PadV3Op, x, p2, c, axes, values={1: (1, 1), 3: (-1,)}) == tensor(2, 5)
    assert infer(PadV3Op, x, p2, c, axes, values={3: (0,)}) == tensor(Q, 3)
    assert infer(PadV3Op, x, p2, c, axes, values={1: (1, 1)}) == tensor(Q, Q)
    # an unranked x has as many dims as paddings has pairs
    assert infer(PadV3Op, unranked(), p4, c) == tensor(Q, Q)
    with pytest.raises(ValueError, match=r"paddings \[-2, -2\] remove more than dim 0 holds"):
        infer(PadV3Op, tensor(3), p2, c, values={1: (-2, -2)})
    with pytest.raises(ValueError, match="paddings has 4 values for 1 axes"):
        infer(PadV3Op, x, p4, c, axes, values={1: (1, 1, 1, 1), 3: (0,)})


def test_fill_and_range() -> None:
    d2 = tensor(2, elem=i64)
    assert infer(FillOp, d2, tensor(elem=f16), values={0: (2, 3)}) == tensor(2, 3, elem=f16)
    assert infer(FillOp, d2, tensor()) == tensor(Q, Q)
    assert infer(FillOp, tensor(Q, elem=i64), tensor()) == unranked()
    with pytest.raises(ValueError, match=r"dims \[2, -1\] has a negative dim"):
        infer(FillOp, d2, tensor(), values={0: (2, -1)})
    s = tensor(elem=i64)
    assert infer(RangeOp, s, s, s, values={0: (1,), 1: (10,), 2: (3,)}) == tensor(3, elem=i64)
    assert infer(RangeOp, s, s, s, values={0: (10,), 1: (1,), 2: (2,)}) == tensor(0, elem=i64)
    assert infer(RangeOp, s, s, s, values={0: (1,), 1: (10,)}) == tensor(Q, elem=i64)
    f = tensor()
    assert infer(RangeOp, f, f, f, values={0: (0.0,), 1: (1.0,), 2: (0.3,)}) == tensor(4)
    with pytest.raises(ValueError, match="delta must not be 0"):
        infer(RangeOp, s, s, s, values={0: (1,), 1: (10,), 2: (0,)})
    assert infer(TriluOp, tensor(Q, 3, 4), tensor(elem=i64)) == tensor(Q, 3, 4)
    with pytest.raises(ValueError, match="x must have rank 2 or more"):
        infer(TriluOp, tensor(3))


# --------------------------------------------------------------------------------------------
# Indexing: slices, gathers, scatters, data-dependent shapes
# --------------------------------------------------------------------------------------------


def test_strided_slice() -> None:
    x, v1 = tensor(4, 6), tensor(1, elem=i64)
    bounds = {1: (1,), 2: (-1,), 3: (1,), 4: (2,)}
    assert infer(StridedSliceV2Op, x, v1, v1, v1, v1, values=bounds) == tensor(4, 2)
    assert infer(StridedSliceV2Op, tensor(Q, 6), v1, v1, v1, v1, values=bounds) == tensor(Q, 2)
    # unknown bounds: the sliced axes are `?`; unknown axes: every dim may be sliced
    assert infer(StridedSliceV2Op, x, v1, v1, v1, v1, values={3: (-1,)}) == tensor(4, Q)
    assert infer(StridedSliceV2Op, x, v1, v1, v1, v1) == tensor(Q, Q)
    assert infer(StridedSliceV2Op, unranked(), v1, v1, v1, v1, values=bounds) == unranked()
    reverse = {1: (-1,), 2: (-10,), 3: (0,), 4: (-1,)}
    assert infer(StridedSliceV2Op, x, v1, v1, v1, v1, values=reverse) == tensor(4, 6)
    with pytest.raises(ValueError, match="strides must not be 0"):
        infer(StridedSliceV2Op, x, v1, v1, v1, v1, values={**bounds, 4: (0,)})
    with pytest.raises(ValueError, match="axis 2 is out of range for rank 2"):
        infer(StridedSliceV2Op, x, v1, v1, v1, v1, values={3: (2,)})


def test_gathers() -> None:
    idx = tensor(2, Q, elem=i64)
    assert infer(GatherV2DOp, tensor(3, 5), idx, axis=i64a(1)) == tensor(3, 2, Q)
    assert infer(GatherV2DOp, tensor(3, 5), unranked(i64)) == unranked()
    with pytest.raises(ValueError, match="axis 2 is out of range for rank 2"):
        infer(GatherV2DOp, tensor(3, 5), idx, axis=i64a(2))
    assert infer(GatherElementsOp, tensor(2, 3), tensor(2, 2, elem=i64)) == tensor(2, 2)
    assert infer(GatherElementsOp, tensor(2, 3), unranked(i64)) == tensor(Q, Q)
    with pytest.raises(ValueError, match="index rank 1 differs from x rank 2"):
        infer(GatherElementsOp, tensor(2, 3), tensor(2, elem=i64))
    assert infer(GatherNdOp, tensor(2, 3, 4), tensor(5, 2, elem=i64)) == tensor(5, 4)
    assert infer(GatherNdOp, tensor(2, 3, 4), tensor(5, Q, elem=i64)) == unranked()
    batch = infer(GatherNdOp, tensor(2, 3, 4), tensor(2, 1, elem=i64), batch_dims=i64a(1))
    assert batch == tensor(2, 4)
    with pytest.raises(ValueError, match="indices of depth 3 after 1 batch dims exceed"):
        infer(GatherNdOp, tensor(2, 3, 4), tensor(2, 3, elem=i64), batch_dims=i64a(1))


def test_scatters_keep_the_data_type() -> None:
    data = tensor(Q, 3)
    assert infer(ScatterElementsOp, data, tensor(2, 1, elem=i64), tensor(2, 1)) == data
    assert infer(TensorScatterUpdateOp, unranked(), tensor(2, 1, elem=i64), tensor(2, 3)) == (
        unranked()
    )
    with pytest.raises(ValueError, match="axis 2 is out of range for rank 2"):
        infer(ScatterElementsOp, data, tensor(2, 1, elem=i64), tensor(2, 1), axis=i64a(2))


def test_non_zero_one_hot_reverse_sequence() -> None:
    assert infer(NonZeroOp, tensor(2, 3)) == tensor(2, Q, elem=i64)
    assert infer(NonZeroOp, tensor(Q, Q, Q)) == tensor(3, Q, elem=i64)
    assert infer(NonZeroOp, unranked()) == tensor(Q, Q, elem=i64)  # always 2-D
    transposed = infer(NonZeroOp, tensor(2, 3), transpose=BoolAttr.from_bool(True), dtype=i32)
    assert transposed == tensor(Q, 2, elem=i32)
    depth, on = tensor(elem=i64), tensor(elem=f16)
    assert infer(OneHotOp, tensor(3, elem=i64), depth, on, on, values={1: (5,)}) == tensor(
        3, 5, elem=f16
    )
    assert infer(OneHotOp, tensor(3, 4, elem=i64), depth, on, on, axis=i64a(0)) == tensor(
        Q, 3, 4, elem=f16
    )
    # a float depth (ONNX allows any numeric type) is cast to an integer
    assert infer(OneHotOp, tensor(2, elem=i64), tensor(), on, on, values={1: (3.0,)}) == tensor(
        2, 3, elem=f16
    )
    assert infer(OneHotOp, unranked(i64), depth, on, on, values={1: (5,)}) == unranked(f16)
    with pytest.raises(ValueError, match="depth must be positive, got -2"):
        infer(OneHotOp, tensor(3, elem=i64), depth, on, on, values={1: (-2,)})
    seq = infer(ReverseSequenceOp, tensor(4, Q), tensor(4, elem=i64), seq_dim=i64a(1))
    assert seq == tensor(4, Q)


# --------------------------------------------------------------------------------------------
# Reductions, arg-reductions, TopK, CumSum
# --------------------------------------------------------------------------------------------

KEEP = {"keep_dims": BoolAttr.from_bool(True)}
NOOP = {"noop_with_empty_axes": BoolAttr.from_bool(True)}


def test_reduce_with_constant_axes() -> None:
    x, a1 = tensor(2, Q, 4), tensor(1, elem=i64)
    assert infer(ReduceSumOp, x, a1, values={1: (1,)}) == tensor(2, 4)
    assert infer(ReduceSumOp, x, a1, values={1: (-1,)}, **KEEP) == tensor(2, Q, 1)
    assert infer(ReduceSumOp, x) == tensor()
    assert infer(ReduceSumOp, x, **KEEP) == tensor(1, 1, 1)
    assert infer(ReduceSumOp, x, **NOOP) == x
    assert infer(ReduceMaxOp, unranked(), a1, values={1: (0,)}) == unranked()
    with pytest.raises(ValueError, match="axis 3 is out of range for rank 3"):
        infer(ReduceSumOp, x, a1, values={1: (3,)})
    with pytest.raises(ValueError, match=r"axes \[0, -3\] repeat an axis"):
        infer(ReduceSumOp, x, tensor(2, elem=i64), values={1: (0, -3)})


def test_reduce_with_unknown_axes() -> None:
    x = tensor(2, 1, 4)
    # the rank drops by the number of axes; kept dims that are 1 stay 1 whichever are reduced
    assert infer(ReduceSumOp, x, tensor(2, elem=i64)) == tensor(Q)
    assert infer(ReduceSumOp, x, tensor(2, elem=i64), **KEEP) == tensor(Q, 1, Q)
    assert infer(ReduceSumOp, x, tensor(Q, elem=i64)) == unranked()
    # an empty axes tensor is known: all dims, or none with noop_with_empty_axes
    assert infer(ReduceSumOp, x, tensor(0, elem=i64)) == tensor()
    assert infer(ReduceSumOp, x, tensor(0, elem=i64), **NOOP) == x
    with pytest.raises(ValueError, match="axes has 4 values for rank 3"):
        infer(ReduceSumOp, x, tensor(4, elem=i64))


def test_arg_reduce_top_k_cumsum() -> None:
    assert infer(ArgMaxDOp, tensor(2, Q, 4), dimension=i64a(-2)) == tensor(2, 4, elem=i64)
    kept = infer(ArgMaxDOp, tensor(2, 3), dimension=i64a(1), dtype=i32, **KEEP)
    assert kept == tensor(2, 1, elem=i32)
    assert infer(ArgMaxDOp, unranked()) == unranked(i64)
    with pytest.raises(ValueError, match="dimension 2 is out of range for rank 2"):
        infer(ArgMaxDOp, tensor(2, 3), dimension=i64a(2))
    k = tensor(1, elem=i64)
    got = infer_all(TopKV2Op, tensor(2, 5, elem=f16), k, values={1: (3,)}, dim=i64a(1))
    assert got == (tensor(2, 3, elem=f16), tensor(2, 3, elem=i64))
    assert infer_all(TopKV2Op, tensor(2, 5), k) == (tensor(2, Q), tensor(2, Q, elem=i64))
    assert infer_all(TopKV2Op, unranked(), k) == (unranked(), unranked(i64))
    with pytest.raises(ValueError, match=r"k 6 exceeds dim 1 \(5\)"):
        infer_all(TopKV2Op, tensor(2, 5), k, values={1: (6,)})
    assert infer(CumsumOp, tensor(Q, 3), tensor(elem=i64), values={1: (-1,)}) == tensor(Q, 3)
    with pytest.raises(ValueError, match="axis -3 is out of range for rank 2"):
        infer(CumsumOp, tensor(2, 3), tensor(elem=i64), values={1: (-3,)})


# --------------------------------------------------------------------------------------------
# Builders take the rule's types; verifiers check declared types against it
# --------------------------------------------------------------------------------------------


def test_builders_without_result_types_use_the_rule() -> None:
    x = value(tensor(Q, 3, 8, 8))
    built = [
        Conv2DOp(x, value(tensor(16, 3, 3, 3)), strides=(1, 1, 2, 2), pads=(1, 1, 1, 1)),
        Conv2DTransposeOp(
            const(1, 2, 9, 9),
            value(tensor(1, 3, 4, 4)),
            value(tensor(3, 2, 3, 3)),
            strides=(1, 1, 2, 2),
        ),
        ResizeOp(
            value(tensor(1, 1, 2, 2)),
            const(dtype=np.float32),
            value(tensor(2)),
            const(),
            axes=(2, 3),
        ),
        DepthToSpaceOp(value(tensor(1, 8, Q, 3)), block_size=2),
        MaxPoolV3Op(x, ksize=(1, 1, 3, 3), strides=(1, 1, 2, 2), pads=(1, 1, 1, 1)),
        MaxPoolWithArgmaxOp(x, ksize=(1, 1, 2, 2), strides=(1, 1, 2, 2)),
        GlobalAveragePoolOp(value(unranked())),
        BatchNormOp(value(tensor(Q, Q, 4)), *(value(tensor(3)) for _ in range(4))),
        LayerNormV3Op(
            value(tensor(2, 5, elem=f16)),
            value(tensor(5, elem=f16)),
            value(tensor(5, elem=f16)),
            begin_norm_axis=-1,
            begin_params_axis=-1,
        ),
        ReshapeOp(x, const(0, -1)),
        ReshapeOp(x, value(tensor(3, elem=i64))),
        TransposeOp(value(unranked()), (1, 0)),
        SqueezeV3Op(value(tensor(1, Q, 1)), value(tensor(1, elem=i64))),
        ConcatDOp([x, value(unranked())], 1),
        SplitVOp(value(tensor(3, 6)), const(2, -1), scalar(1), num_split=2),
        ShapeOp(value(unranked()), dtype=i32),
        SizeOp(x),
        ExpandOp(value(tensor(3, 1)), value(tensor(3, elem=i64))),
        TileOp(value(tensor(2, 3)), const(2, 0)),
        PadV3Op(value(tensor(2, 3)), const(0, 1, 0, 2), scalar(0.0, np.float32)),
        FillOp(const(2, 3), scalar(1.0, np.float32)),
        RangeOp(scalar(1), scalar(10), scalar(3)),
        StridedSliceV2Op(value(tensor(4, 6)), const(1), const(-1), const(1), const(2)),
        GatherNdOp(value(tensor(2, 3, 4)), value(tensor(5, 2, elem=i64))),
        NonZeroOp(value(unranked())),
        OneHotOp(
            value(tensor(3, elem=i64)), scalar(5), scalar(1.0, np.float32), scalar(0.0, np.float32)
        ),
        ReduceSumOp(value(tensor(2, 1, 4)), value(tensor(2, elem=i64)), keep_dims=True),
        ArgMaxDOp(value(tensor(2, 3)), dimension=1),
        TopKV2Op(value(tensor(2, 5)), const(3), dim=1),
        CumsumOp(x, scalar(1)),
    ]
    for op in built:
        built_matches_rule(op)
    assert built[0].results[0].type == tensor(Q, 16, 4, 4)
    assert built[2].results[0].type == tensor(1, 1, Q, Q)
    assert [r.type for r in built[8].results][1:] == [tensor(2, 1), tensor(2, 1)]
    assert built[9].results[0].type == tensor(Q, Q)
    assert [r.type for r in built[14].results] == [tensor(3, 2), tensor(3, 4)]
    assert built[19].results[0].type == tensor(3, 5)
    assert built[22].results[0].type == tensor(4, 2)


def test_builders_raise_the_rules_error() -> None:
    with pytest.raises(ValueError, match="cannot reshape 6 elements"):
        ReshapeOp(value(tensor(2, 3)), const(4, -1))
    with pytest.raises(ValueError, match=r"inputs differ in dim 0"):
        ConcatDOp([value(tensor(2, 3)), value(tensor(4, 3))], 1)
    with pytest.raises(ValueError, match="x has rank 3, but ksize has 4 entries"):
        MaxPoolV3Op(value(tensor(1, 3, 8)), ksize=(1, 1, 2, 2), strides=(1, 1, 1, 1))


def test_nonzero_declared_static_count_is_refused_unless_the_input_is_empty() -> None:
    """Fuzz finding nonzero-result-shape: `?x1` for a 1-d input passed the wildcard test."""
    with pytest.raises(VerifyException, match=r"\[\?, 1\] differs from the index layout \[1, \?\]"):
        NonZeroOp(value(tensor(4, elem=i64)), result_type=tensor(Q, 1, elem=i64)).verify_()
    with pytest.raises(VerifyException, match="dim 0 counts the non-zeros"):
        NonZeroOp(value(tensor(4, 5)), transpose=True, result_type=tensor(3, 2, elem=i64)).verify_()
    # the count of an empty input is 0 whatever the data; a `?` rank dim stays a wildcard
    NonZeroOp(value(tensor(0, 3)), result_type=tensor(2, 0, elem=i64)).verify_()
    NonZeroOp(value(tensor(4)), result_type=tensor(Q, Q, elem=i64)).verify_()
    with pytest.raises(VerifyException, match="counts the non-zeros"):
        NonZeroOp(value(tensor(Q, 3)), result_type=tensor(2, 0, elem=i64)).verify_()


def test_verifiers_check_the_declared_types_against_the_rule() -> None:
    # a constant shape decides the reshape's result; the types alone allow 3x4
    op = ReshapeOp(value(tensor(2, 6)), const(4, 3), result_type=tensor(3, 4))
    with pytest.raises(VerifyException, match=r"result shape \[3, 4\] differs from the reshaped"):
        op.verify_()
    ReshapeOp(value(tensor(2, 6)), value(tensor(2, elem=i64)), result_type=tensor(3, 4)).verify_()
    # a result that agrees with a consistent constant input_size but not the computed shape
    deconv = Conv2DTransposeOp(
        const(1, 2, 9, 9),
        value(tensor(1, 3, 4, 4)),
        value(tensor(3, 2, 3, 3)),
        strides=(1, 1, 2, 2),
        result_type=tensor(1, 2, 8, 9),
    )
    with pytest.raises(VerifyException, match=r"differs from input_size \[1, 2, 9, 9\]"):
        deconv.verify_()
    # the element type follows dtype
    size = SizeOp(value(tensor(2)), result_type=tensor(elem=i32))
    with pytest.raises(VerifyException, match="result element type i32 differs from dtype i64"):
        size.verify_()
    SizeOp(value(tensor(2)), dtype=i32).verify_()
    # a `?` result dim stays compatible with a known inferred one
    BatchNormOp(
        value(tensor(Q, Q, 4)), *(value(tensor(3)) for _ in range(4)), result_type=tensor(Q, Q, 4)
    ).verify_()
    with pytest.raises(VerifyException, match=r"differs from the normalised shape \[\?, 3, 4\]"):
        BatchNormOp(
            value(tensor(Q, Q, 4)),
            *(value(tensor(3)) for _ in range(4)),
            result_type=tensor(Q, 2, 4),
        ).verify_()


def test_missing_properties_take_the_definition_defaults() -> None:
    # the same rule with and without the defaults spelled out
    x = tensor(2, 3, 4)
    spelled = {"axis": i64a(1)}
    assert infer(FlattenOp, x) == infer(FlattenOp, x, **spelled) == tensor(2, 12)
    props = {
        "keep_dims": BoolAttr.from_bool(False),
        "noop_with_empty_axes": BoolAttr.from_bool(False),
    }
    assert infer(ReduceSumOp, x) == infer(ReduceSumOp, x, **props)
    with pytest.raises(ValueError, match="property axis has the wrong kind of value"):
        infer(FlattenOp, x, axis=FloatAttr(1.0, f32))
