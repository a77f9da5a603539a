"""The memory budget: size syntax, the limit in force, and the error it raises."""

from __future__ import annotations

import pytest

from gedialects import budget


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("4096", 4096),
        ("512K", 512 << 10),
        ("64m", 64 << 20),
        ("8G", 8 << 30),
        ("1.5G", 3 << 29),
        ("2GiB", 2 << 30),
        ("1T", 1 << 40),
    ],
)
def test_sizes_parse(text: str, value: int) -> None:
    assert budget.parse_size(text) == value


@pytest.mark.parametrize("text", ["", "abc", "-1", "0", "1X", "\u0661\u0662"])
def test_bad_sizes_are_one_line_errors(text: str) -> None:
    with pytest.raises(ValueError, match="max-memory"):
        budget.parse_size(text, "max-memory")


def test_limit_is_set_restored_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(budget.ENV_VAR, "1M")
    assert budget.max_memory() == 1 << 20
    with budget.max_memory_set("2K"):
        assert budget.max_memory() == 2048
        budget.check(2048, "x")
        with pytest.raises(
            budget.MemoryBudgetError,
            match=r"constant 'w' needs 3\.0 KiB, over the memory limit of 2\.0 KiB",
        ):
            budget.check(2049 + 1023, "constant 'w'")
    assert budget.max_memory() == 1 << 20
    monkeypatch.delenv(budget.ENV_VAR)
    assert budget.max_memory() == int(budget.physical_memory() * budget.DEFAULT_FRACTION)
