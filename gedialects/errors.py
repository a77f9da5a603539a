"""GE's user errors: `GEError` and its subclasses, each with a one-line message and GE's code.

Below every layer that raises them: the model interpreter raises `GearMismatchError` (GE's
E13025, input shapes of no gear) from the gear table, the `Session` raises the rest, and each
is the one class of its kind (`gedialects.session` re-exports them as its API).
"""

from __future__ import annotations


class GEError(Exception):
    """A session call GE would refuse; `code` is GE's error code (`E10001`, ...) or None."""

    codes: tuple[str, ...] = ()
    """GE error codes this class carries (the reference page lists them)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        self.code = code
        super().__init__(
            message if code is None or message.startswith(code) else f"{code}: {message}"
        )


class OptionError(GEError):
    """An unknown option name or an invalid option value: E10001 for a bad value, E10003 for
    JIT mode with gears or hybrid mode, and the E10xxx codes of atc's checks for the gear
    options (`gedialects.gear_options`: E10004 no input shape, E10035 too few gears, ...)."""

    codes = ("E10001", "E10003", "E100xx (gear options)")


class GraphIdError(GEError):
    """A graph id that is not an integer >= 0, already added, or never added."""


class GraphError(GEError):
    """A graph that cannot be read (ONNX import, IR parse) or compiled (a pass failed)."""


class InputError(GEError):
    """Run inputs with wrong names, count, shapes or dtypes, or an unknown output name."""


class GearMismatchError(InputError, ValueError):
    """Input shapes that are no configured gear (GE's E13025), outside hybrid mode.

    Raised by the gear table itself (`GearInfo.select`, the model interpreter); a `ValueError`
    too, like the gear table's other errors."""

    codes = ("E13025",)


class DynamicInputError(InputError, ValueError):
    """A gear set through GE's GeExecutor API (`GearInfo.set_dynamic_batch_size`,
    `set_dynamic_image_size`, `set_dynamic_dims`) that the model refuses, with GE's ACL code:
    145012 `ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID` (the dynamic input buffer is too small,
    or the dims given do not cover the inputs / change a fixed dim), 145013
    `ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID` (no gear of the model matches)."""

    codes = ("145012", "145013")


class ExecutionError(GEError):
    """A kernel failed while running (e.g. an index out of range in the data)."""
