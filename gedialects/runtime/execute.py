"""How the Session runs a compiled graph: user inputs checked and named, the gear chosen (or
GE's E13025 outside hybrid mode), the interpreter called, its errors made `GEError`s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from gedialects.errors import ExecutionError, GearMismatchError, InputError
from gedialects.runtime import jit
from gedialects.runtime.graphs import GraphState
from gedialects.runtime.session_options import max_steps

if TYPE_CHECKING:
    import numpy as np
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.interpreter import Interpreter

    from gedialects.interpreters.run import Signature
    from gedialects.interpreters.variables import VariableStore


def run_graph(
    graph: GraphState,
    sig: Signature,
    inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray],
    queue: Sequence[Mapping[str, np.ndarray] | Sequence[np.ndarray]] = (),
    variables: VariableStore | None = None,
) -> dict[str, np.ndarray]:
    """The last launch's outputs of `run_queue` (one launch, unless a GetNext pulls a
    `queue`); `variables`: the session's variable store the runs read and update."""
    return run_queue(graph, sig, [inputs, *queue], variables)[-1]


def run_queue(
    graph: GraphState,
    sig: Signature,
    sets: Sequence[Mapping[str, np.ndarray] | Sequence[np.ndarray]],
    variables: VariableStore | None = None,
) -> list[dict[str, np.ndarray]]:
    """Outputs by name of each launch of the compiled `graph` on the input `sets` (each by
    name or in input order): one set, one launch, except for a graph fed by a GetNext
    (`ge.dynamicNodeType=0`), whose launches pull the sets in order. A hybrid model
    (`ge-expand-multibatch{hybrid}`) runs input shapes of no gear on its dynamic model (the
    interpreter's route, as `ge-run` takes it); without hybrid mode they are GE's E13025."""
    from gedialects.interpreters.gears import hybrid_graph
    from gedialects.interpreters.run import RunError, check_inputs, find_entry, run_entry

    if not sets:
        raise InputError("no input set given")
    if len(sets) > 1 and not sig.getnext:
        raise InputError(
            f"{len(sets)} input sets given: only a graph fed by a GetNext "
            "(ge.dynamicNodeType=0) takes a queue of input sets"
        )
    named = named_inputs(sig.input_names, sets[0])
    queue = [named_inputs(sig.input_names, s) for s in sets[1:]]
    if graph.jit is not None:
        return [jit.run(graph.jit, sig, named, graph)]
    module = graph.compiled
    assert module is not None
    if graph.info is not None:
        for given in (named, *queue):
            try:
                check_inputs(sig, given)
            except RunError as e:
                raise InputError(str(e)) from None
            try:
                graph.info.select({n: a.shape for n, a in given.items()})
            except GearMismatchError:
                if hybrid_graph(find_entry(module)) is None:
                    raise
    interpreter = _take_interpreter(graph, module)
    try:
        result = run_entry(
            module,
            named,
            max_steps=max_steps(graph.options),
            interpreter=interpreter,
            queue=queue,
            variables=variables,
        )
    except RunError as e:
        if any(key in str(e) for key in ("input '", "unknown input", "missing input")):
            raise InputError(str(e)) from None
        raise ExecutionError(str(e)) from None
    graph.interpreters.append((module, interpreter))
    return list(result.launches or (result.outputs,))


def _take_interpreter(graph: GraphState, module: ModuleOp) -> Interpreter:
    """An idle interpreter of `module` (its compiled programs reused), or a new one: runs on
    several threads each get their own."""
    from gedialects.interpreters import make_interpreter

    while graph.interpreters:
        try:
            ran, interpreter = graph.interpreters.pop()
        except IndexError:  # another thread took the last one
            break
        if ran is module:
            return interpreter
    return make_interpreter(module)


def named_inputs(
    names: Sequence[str], inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray]
) -> dict[str, np.ndarray]:
    """`inputs` keyed by name: a dict as given, a list in input order; numpy arrays only."""
    import numpy as np

    if isinstance(inputs, Mapping):
        values = dict(inputs)
    elif isinstance(inputs, Sequence) and not isinstance(inputs, str):
        if len(inputs) != len(names):
            raise InputError(
                f"{len(inputs)} positional inputs given, the graph takes {len(names)} "
                f"({', '.join(names)})"
            )
        values = dict(zip(names, inputs, strict=True))
    else:
        raise InputError(
            f"inputs must be a dict of arrays keyed by name or a list, not {type(inputs).__name__}"
        )
    for name, value in values.items():
        if not isinstance(value, np.ndarray | np.generic):
            raise InputError(
                f"input '{name}' is a {type(value).__name__}; pass a numpy array "
                "(no implicit conversion, as in GE)"
            )
    return {name: np.asarray(value) for name, value in values.items()}
