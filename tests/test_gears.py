"""atc's gear options: grammar, every validation rule with its GE message, and GearConfig.

Each negative case checks the GE error code and the parts of the message that say which
option, which value and why; syntax errors also check the caret column.
"""

from __future__ import annotations

import pytest

from gedialects.gear_options import (
    GearConfig,
    GearError,
    InputShape,
    check_gears,
    check_graph_inputs,
    parse_gears,
    parse_input_shape,
    parse_options,
)
from gedialects.multibatch import DynamicType

# --------------------------------------------------------------------------------------------
# Grammar: what parses
# --------------------------------------------------------------------------------------------


def test_input_shape_splits_items_on_semicolons_and_names_at_the_last_colon() -> None:
    shapes = parse_input_shape("data:1,-1,40,-1; scope:label:1,-1;mask:;", dynamic=True)
    assert shapes == (
        InputShape("data", (1, -1, 40, -1)),
        InputShape("scope:label", (1, -1)),
        InputShape("mask", ()),
    )
    assert shapes[0].unknown == (1, 3)


def test_input_shape_allows_spaces_around_dims() -> None:
    assert parse_input_shape("x: 1, 3", dynamic=False) == (InputShape("x", (1, 3)),)


def test_batch_sizes_drop_a_trailing_comma() -> None:
    assert parse_gears("dynamic_batch_size", "1,2,4,") == ((1,), (2,), (4,))


def test_image_sizes_and_dims_drop_a_trailing_semicolon() -> None:
    assert parse_gears("dynamic_image_size", "224, 224;448,448;") == ((224, 224), (448, 448))
    assert parse_gears("dynamic_dims", "20,20,1;40,40,2;") == ((20, 20, 1), (40, 40, 2))


def test_dims_mode_gives_each_input_its_slice_of_the_gear_in_input_shape_order() -> None:
    config = parse_options(
        input_shape="data:1,1,40,-1;label:1,-1;mask:-1,-1",
        dynamic_dims="20,20,1,1;40,40,2,2;80,60,4,4",
    )
    assert config.dynamic_type is DynamicType.DIMS
    assert config.gear_length == 4
    assert config.input_gear("data", 1) == (40,)
    assert config.input_gear("label", 1) == (40,)
    assert config.input_gear("mask", 2) == (4, 4)
    assert config.shape("data", 2) == (1, 1, 40, 80)
    assert config.shape("mask", 0) == (1, 1)
    assert config.match({"data": (1, 1, 40, 40), "label": (1, 40), "mask": (2, 2)}) == 1
    assert config.match({"data": (1, 1, 40, 40), "label": (1, 20), "mask": (2, 2)}) is None


def test_batch_mode_gives_every_dynamic_input_the_whole_gear() -> None:
    config = parse_options(input_shape="x:-1,3;y:-1;z:2", dynamic_batch_size="1,8,4")
    assert config.shape("x", 1) == (8, 3)
    assert config.shape("y", 2) == (4,)
    assert config.shape("z", 0) == (2,)
    assert config.max_shape("x") == (8, 3)
    assert config.gear_of([4]) == 2


def test_max_gear_is_the_largest_product_of_the_inputs_own_values() -> None:
    config = parse_options(input_shape="a:-1,-1;b:-1", dynamic_dims="2,9,1;4,4,7;3,3,2")
    assert config.max_shape("a") == (2, 9)  # 18 > 16 > 9
    assert config.max_shape("b") == (7,)


def test_image_size_takes_h_and_w_in_nhwc() -> None:
    config = parse_options(
        input_shape="img:1,-1,-1,3", dynamic_image_size="32,48;64,64", input_format="NHWC"
    )
    assert config.dynamic_type is DynamicType.IMAGE_SIZE
    assert config.shape("img", 0) == (1, 32, 48, 3)


def test_static_input_shape_gives_a_fixed_config() -> None:
    config = parse_options(input_shape="x:1,3")
    assert config.dynamic_type is DynamicType.FIXED and config.gears == ()


# --------------------------------------------------------------------------------------------
# One negative case per rule
# --------------------------------------------------------------------------------------------


def error(**options: str) -> GearError:
    with pytest.raises(GearError) as info:
        parse_options(**options)
    return info.value


def caret_column(e: GearError) -> int:
    """Column of the caret relative to the option value on the line above."""
    lines = str(e).splitlines()
    prefix = lines[1].index("=") + 1
    return lines[2].index("^") - prefix


@pytest.mark.parametrize(
    "options",
    [
        {"dynamic_batch_size": "1,2", "dynamic_dims": "1;2"},
        {"dynamic_image_size": "1,2;3,4", "dynamic_batch_size": "1,2"},
        {"dynamic_dims": "1;2", "input_shape_range": "x:[1~2]"},
    ],
)
def test_e10009_options_are_mutually_exclusive(options: dict[str, str]) -> None:
    e = error(input_shape="x:-1", **options)
    assert e.code == "E10009"
    assert "are mutually exclusive" in str(e)
    for name in options:
        assert f"--{name}" in str(e).splitlines()[0].split("given:")[1]


def test_e10004_input_shape_is_required() -> None:
    e = error(dynamic_batch_size="1,2")
    assert str(e) == "E10004: Value for --input_shape is empty (--dynamic_batch_size needs it)."


def test_e10040_no_ranges_with_gears() -> None:
    e = error(input_shape="x:1~4,3", dynamic_batch_size="1,2")
    assert e.code == "E10040" and "cannot have '~'" in str(e)
    assert caret_column(e) == len("x:1")


def test_e10002_item_without_a_colon() -> None:
    e = error(input_shape="x:-1,3;y1,2", dynamic_batch_size="1,2")
    first = str(e).splitlines()[0]
    assert first == (
        "E10002: Value y1,2 for parameter --input_shape is invalid. Reason: The shape must "
        "contain two parts: name and value. The value must be formatted as "
        '"input_name1:n1,c1,h1,w1".'
    )
    assert caret_column(e) == len("x:-1,3;")


def test_e10002_empty_name() -> None:
    e = error(input_shape=":1,3", dynamic_batch_size="1,2")
    assert "Reason: The input name is empty" in str(e) and caret_column(e) == 0


def test_e10002_float_dim() -> None:
    e = error(input_shape="x:-1,1.5", dynamic_batch_size="1,2")
    assert "Value x:-1,1.5 for parameter --input_shape" in str(e)
    assert "Reason: The float number is unsupported" in str(e)
    assert caret_column(e) == len("x:-1,1")


def test_e10002_not_a_digit() -> None:
    e = error(input_shape="x:-1,a", dynamic_batch_size="1,2")
    assert "Reason: It is not a digit ('a')" in str(e) and caret_column(e) == len("x:-1,")


def test_e10011_static_shape_needs_positive_dims() -> None:
    e = error(input_shape="x:-1,3")
    assert str(e).splitlines()[0] == (
        "E10011: Value x:-1,3 for parameter --input_shape is invalid. Shape values must be "
        "positive integers. The error value in the shape is -1."
    )
    assert caret_column(e) == len("x:")


def test_e10011_only_minus_one_marks_a_dynamic_dim() -> None:
    e = error(input_shape="x:-2,3", dynamic_batch_size="1,2")
    assert e.code == "E10011" and "The error value in the shape is -2." in str(e)


def test_input_named_twice() -> None:
    e = error(input_shape="x:-1;x:-1", dynamic_batch_size="1,2")
    assert e.code == "E10001" and "Value x for parameter --input_shape" in str(e)
    assert "given twice" in str(e) and caret_column(e) == len("x:-1;")


def test_e10012_batch_needs_no_scalar_input() -> None:
    e = error(input_shape="x:-1,3;s:", dynamic_batch_size="1,2")
    assert e.code == "E10012" and "less than 1 (s is a scalar)" in str(e)


def test_e10018_batch_only_on_n() -> None:
    e = error(input_shape="x:-1,-1", dynamic_batch_size="1,2")
    assert str(e) == (
        "E10018: Value -1 for shape 1 is invalid. When --dynamic_batch_size is included, only "
        "batch size N can be -1 in --input_shape (x:-1,-1)."
    )


def test_e10031_batch_needs_a_minus_one_n() -> None:
    e = error(input_shape="x:2,3", dynamic_batch_size="1,2")
    assert e.code == "E10031" and "has a batch size equaling -1" in str(e)


def test_e10003_batch_sizes_are_digits_and_commas() -> None:
    e = error(input_shape="x:-1,3", dynamic_batch_size="1,2;4")
    assert str(e).splitlines()[0] == (
        "E10003: Value 1,2;4 for parameter --dynamic_batch_size is invalid. "
        'Reason: It can only contain digits and ",".'
    )
    assert caret_column(e) == 3


def test_e10003_batch_size_missing_value() -> None:
    e = error(input_shape="x:-1,3", dynamic_batch_size="1,,4")
    assert e.code == "E10003" and "A value is missing here." in str(e)
    assert caret_column(e) == 2


def test_e10003_image_format_must_be_nchw_or_nhwc() -> None:
    e = error(input_shape="x:1,3,-1,-1", dynamic_image_size="1,2;3,4", input_format="ND")
    assert e.code == "E10003"
    assert "Value ND for parameter --input_format" in str(e) and "NCHW or NHWC" in str(e)


@pytest.mark.parametrize(
    ("shape", "why"),
    [
        ("x:-1,3,-1,-1", "(x:-1,3,-1,-1, format NCHW)"),  # N is -1 too
        ("x:1,-1,-1", "(x:1,-1,-1, format NCHW)"),  # not 4-D
        ("x:1,3,-1,4", "(x:1,3,-1,4, format NCHW)"),  # only H
        ("x:1,3,4,4", "(no input has -1 height and width)"),
    ],
)
def test_e10019_image_size_only_on_h_and_w(shape: str, why: str) -> None:
    e = error(input_shape=shape, dynamic_image_size="1,2;3,4")
    assert e.code == "E10019"
    assert "only the height and width axes can be -1" in str(e) and why in str(e)


def test_e10003_image_sizes_are_digits_commas_spaces_semicolons() -> None:
    e = error(input_shape="x:1,3,-1,-1", dynamic_image_size="224x224;448,448")
    assert 'Reason: It can only contain digits, ",", " " and ";".' in str(e)
    assert caret_column(e) == 3


def test_e10020_image_size_profiles_have_two_values() -> None:
    e = error(input_shape="x:1,3,-1,-1", dynamic_image_size="1,2;3,4,5")
    assert str(e).splitlines()[0] == (
        "E10020: Value 1,2;3,4,5 for parameter --dynamic_image_size is invalid. Each profile is "
        "height,width; this one has 3 values."
    )
    assert caret_column(e) == 4


def test_e10001_dims_need_a_minus_one() -> None:
    e = error(input_shape="x:1,3", dynamic_dims="1;2")
    assert e.code == "E10001"
    assert "At least one dim should be -1 when dynamic_dims is set." in str(e)


def test_e10058_dims_empty() -> None:
    e = error(input_shape="x:-1,3", dynamic_dims=";")
    assert str(e) == "E10058: Parameter --dynamic_dims is not configured or is empty."


def test_e10003_dims_per_profile_match_the_minus_ones() -> None:
    e = error(input_shape="x:-1,-1;y:-1", dynamic_dims="1,2,3;4,5")
    assert str(e).splitlines()[0] == (
        "E10003: Value 1,2,3;4,5 for parameter --dynamic_dims is invalid. Reason: Each setting "
        "needs to be consistent with the number of -1 in the input shape (profile [4,5] has 2 "
        "values, --input_shape has 3 -1 dims)."
    )
    assert caret_column(e) == len("1,2,3;")


def test_e10001_dims_are_positive_integers() -> None:
    e = error(input_shape="x:-1,3", dynamic_dims="1;-2;4")
    assert str(e).splitlines()[0] == (
        "E10001: Value -2 for parameter --dynamic_dims is invalid. Reason: Dynamic dims must be "
        "a positive integer."
    )
    assert caret_column(e) == 2


def test_e10035_at_least_two_gears() -> None:
    e = error(input_shape="x:-1,3", dynamic_batch_size="4")
    assert str(e) == (
        "E10035: --dynamic_batch_size, --dynamic_image_size, or --dynamic_dims has 1 profiles, "
        "which is less than the minimum 2."
    )


def test_e10036_at_most_a_hundred_gears() -> None:
    hundred = ",".join(str(i) for i in range(1, 101))
    assert parse_options(input_shape="x:-1", dynamic_batch_size=hundred).gear_count == 100
    e = error(input_shape="x:-1", dynamic_batch_size=hundred + ",101")
    assert e.code == "E10036"
    assert "has 101 profiles, which is greater than the maximum 100" in str(e)


def test_e10037_profiles_of_one_length() -> None:
    with pytest.raises(GearError) as info:
        check_gears([(1, 2), (3,)])
    assert str(info.value) == (
        "E10037: The profiles configured in --dynamic_batch_size, --dynamic_image_size, or "
        "--dynamic_dims have inconsistent dimension counts. A profile has 2 dimensions while "
        "another has 1 dimensions."
    )


def test_e10038_values_greater_than_zero() -> None:
    e = error(input_shape="x:-1,3", dynamic_batch_size="1,0,4")
    assert str(e) == (
        "E10038: Dimension size 0 is invalid. The value must be greater than 0 (profile [0])."
    )
    with pytest.raises(GearError, match=r"^E10038: Dimension size -3 is invalid"):
        GearConfig((InputShape("x", (-1,)),), DynamicType.BATCH, ((1,), (-3,)))


def test_e10039_no_duplicate_profiles() -> None:
    e = error(input_shape="x:-1,-1", dynamic_dims="1,2;3,4;1,2")
    assert e.code == "E10039" and "has duplicate profiles ([1,2] appears twice)" in str(e)


def test_e10046_api_config_with_too_many_minus_ones() -> None:
    with pytest.raises(GearError, match=r"^E10046: .*--dynamic_dims \(x:-1,-1\)"):
        GearConfig((InputShape("x", (-1, -1)),), DynamicType.DIMS, ((1,), (2,)))


# --------------------------------------------------------------------------------------------
# Against a graph
# --------------------------------------------------------------------------------------------


CONFIG = parse_options(input_shape="x:-1,3;y:-1", dynamic_batch_size="1,2")


def test_e10016_input_shape_names_a_graph_input() -> None:
    with pytest.raises(GearError) as info:
        check_graph_inputs(CONFIG, "main", ["x", "w"], [(-1, 3), (-1,)])
    assert str(info.value).startswith(
        "E10016: Op name y specified in --input_shape is not found in the model."
    )
    assert "(inputs of @main: x, w)" in str(info.value)


def test_e10001_every_graph_input_is_in_input_shape() -> None:
    with pytest.raises(GearError) as info:
        check_graph_inputs(CONFIG, "main", ["x", "y", "z"], [(-1, 3), (-1,), (2,)])
    assert str(info.value) == (
        "E10001: Value 2 for parameter input_shape is invalid. Reason: Count:3 of data_nodes in "
        "graph:main should be equal to input_shape count:2 from option (missing: z)."
    )


def test_e10001_ranks_agree() -> None:
    with pytest.raises(GearError, match=r"^E10001: .*The output shape of x is \[-1,3,1\]"):
        check_graph_inputs(CONFIG, "main", ["x", "y"], [(-1, 3, 1), (-1,)])


def test_e10001_fixed_dims_agree() -> None:
    with pytest.raises(GearError) as info:
        check_graph_inputs(CONFIG, "main", ["x", "y"], [(-1, 4), (-1,)])
    assert "Value of input shape [-1,3] from option and output shape [-1,4] of data op:x" in str(
        info.value
    )
    assert "index:1, graph:main" in str(info.value)


def test_graph_unknown_dims_and_ranks_take_any_value() -> None:
    check_graph_inputs(CONFIG, "main", ["y", "x"], [None, (-1, -1)])
