"""The session's variables as the interpreters hold them: GE's per-session variable memory
(VarManager), one host array per variable name, kept across runs, sunk iterations and graphs.

Both levels read and write the same store: the graph interpreter at each `graph.variable` and
writer, the ascend interpreter by copying the store into the model's variable region when a
run starts and the region back when it ends (its tasks address the region by offset, so the
placement is proved as the arena's is). A variable enters the store the first time a run
meets it, with its initial value; the user may set or read one by name at any time
(`Session.write_variable`, `ge-run --variables`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions
from xdsl.utils.exceptions import InterpretationError

from gedialects import budget
from gedialects.interpreters.entry import RunError
from gedialects.tensors import UnsupportedDtypeError, numpy_dtype, numpy_from_dense


def variable_spec(ttype: TensorType) -> tuple[tuple[int, ...], np.dtype]:
    return tuple(ttype.get_shape()), numpy_dtype(ttype.element_type)


def _describe(shape: tuple[int, ...], dtype: np.dtype) -> str:
    return f"{dtype} [{','.join(map(str, shape))}]"


@dataclass
class VariableStore:
    """Variable name -> its current value (a host array owned by the store)."""

    values: dict[str, np.ndarray] = field(default_factory=dict)

    def __contains__(self, name: str) -> bool:
        return name in self.values

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.values))

    def get(self, name: str) -> np.ndarray:
        """A copy of the variable's value (RunError when the store has none)."""
        found = self.values.get(name)
        if found is None:
            known = ", ".join(sorted(self.values)) or "none"
            raise RunError(f"no variable '{name}' has a value (variables with values: {known})")
        return found.copy()

    def snapshot(self) -> dict[str, np.ndarray]:
        return {name: value.copy() for name, value in sorted(self.values.items())}

    def set(self, name: str, value: np.ndarray, declared: TensorType | None = None) -> None:
        """The user's value for `name`: it must have the variable's shape and dtype (its
        declared type, else the value the store holds); RunError otherwise."""
        array = np.asarray(value)
        expected: tuple[tuple[int, ...], np.dtype] | None = None
        if declared is not None:
            try:
                expected = variable_spec(declared)
            except UnsupportedDtypeError as e:
                raise RunError(f"variable '{name}': {e}") from None
        elif name in self.values:
            old = self.values[name]
            expected = tuple(old.shape), old.dtype
        if expected is not None and (tuple(array.shape), array.dtype) != expected:
            raise RunError(
                f"variable '{name}' is {_describe(*expected)}, the value given is "
                f"{_describe(tuple(array.shape), array.dtype)}"
            )
        budget.check(array.nbytes, f"variable '{name}'")
        self.values[name] = np.array(array, copy=True, order="C")

    def update(self, values: Mapping[str, np.ndarray], declared: Mapping[str, TensorType]) -> None:
        """`set` of each value; a name no graph declares is a RunError (a typo would
        otherwise be silently ignored)."""
        for name in sorted(values):
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                raise RunError(f"unknown variable '{name}' (the module's variables: {known})")
            self.set(name, values[name], declared[name])

    def read(
        self,
        name: str,
        ttype: TensorType,
        initial: DenseIntOrFPElementsAttr | None,
        reader: str,
    ) -> np.ndarray:
        """The value a run reads: the store's, else the initial value (entered now, once per
        session); InterpretationError when there is neither (read before initialisation) or
        the store's value does not fit `ttype`."""
        found = self.values.get(name)
        if found is None:
            if initial is None:
                raise InterpretationError(uninitialised(name, reader))
            found = self.values[name] = np.array(numpy_from_dense(initial), copy=True)
        self.check_fits(name, found, ttype, reader)
        return found

    def check_fits(self, name: str, found: np.ndarray, ttype: TensorType, reader: str) -> None:
        shape, dtype = variable_spec(ttype)
        if (tuple(found.shape), found.dtype) != (shape, dtype):
            raise InterpretationError(
                f'{reader} declares the variable "{name}" as {_describe(shape, dtype)}, but the '
                f"session holds it as {_describe(tuple(found.shape), found.dtype)}"
            )

    def write(self, name: str, value: np.ndarray) -> None:
        self.values[name] = value


def uninitialised(name: str, reader: str) -> str:
    return (
        f'{reader} reads the variable "{name}" before it is initialised (give it an initial '
        "value, a value with Session.write_variable or ge-run --variables, or graph.assign it "
        "first)"
    )


def module_variables(module: ModuleOp) -> dict[str, TensorType]:
    """The variables a module declares, with their types: its graphs' var-like ops and its
    models' `ascend.variable` declarations."""
    from gedialects.ascend import ModelOp, VariableOp
    from gedialects.graph import variable_types

    found = variable_types(module)
    for model in module.body.block.ops:
        if isinstance(model, ModelOp):
            for op in model.body.block.ops:
                if isinstance(op, VariableOp):
                    found.setdefault(op.variable, op.buffer.type)
    return found


class _Variables(InterpreterFunctions):
    """The key of the store in an interpreter's data (no implementations)."""


def store_of(interpreter: Interpreter) -> VariableStore:
    """The interpreter's store (a fresh one the first time: a run on its own is a session
    of its own)."""
    return interpreter.get_data(_Variables, "store", VariableStore)


def use_store(interpreter: Interpreter, store: VariableStore) -> None:
    """Runs on `interpreter` read and write `store` (the Session's, kept across runs)."""
    interpreter.set_data(_Variables, "store", store)
