"""CPU time of `ascend.dynamic_control` tasks (GE's hybrid ControlOpNodeTask) in the compiled
executor: a dynamic If and a dynamic While whose cond and body are one or two dynamic tasks
each, so that an iteration is two subgraph model runs plus the task's own work.

The figure is the CPU time per While iteration (the run with N iterations minus the run with
none, over N), with the binder of `ascend.dynamic_control` and with the generic IMPL step the
executor falls back to without it (alternating, best of several runs each).

    python bench/bench_dynamic_control.py [--iterations 300] [--repeat 15]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.ascend import DynamicControlOp
from gedialects.interpreters.ascend import compiled
from gedialects.interpreters.run import run_entry
from gedialects.passes.pipelines import CompilePipelinePass

MODEL = """
graph.graph @cond(%i: tensor<i32>, %n: tensor<i32>, %x: tensor<?xf32>) -> tensor<i1> {
  %c = graph.less %i, %n {node_name = "less"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %n: tensor<i32>, %x: tensor<?xf32>)
    -> (tensor<i32>, tensor<i32>, tensor<?xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one {node_name = "inc"} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = graph.relu %x {node_name = "r"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %j, %n, %y : tensor<i32>, tensor<i32>, tensor<?xf32>
}
graph.graph @then(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = graph.relu %x {node_name = "t"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
graph.graph @else(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = graph.neg %x {node_name = "e"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
graph.graph @main(%i: tensor<i32>, %n: tensor<i32>, %x: tensor<?xf32>, %c: tensor<i1>)
    -> (tensor<i32> {node_name = "k"}, tensor<?xf32> {node_name = "y"}) {
  %a = graph.if %c, %x then_branch @then else_branch @else {node_name = "pick"}
      : (tensor<i1>, tensor<?xf32>) -> tensor<?xf32>
  %r:3 = graph.while %i, %n, %a cond @cond body @body {node_name = "loop"}
      : (tensor<i32>, tensor<i32>, tensor<?xf32>) -> (tensor<i32>, tensor<i32>, tensor<?xf32>)
  graph.net_output %r#0, %r#2 : tensor<i32>, tensor<?xf32>
}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    module = Parser(make_context(), MODEL, "bench").parse_module()
    CompilePipelinePass().apply(make_context(), module)
    x = np.linspace(-1, 1, 4).astype(np.float32)
    binder = compiled.BINDERS.get(DynamicControlOp)

    def best(n: int) -> float:
        inputs = {
            "i": np.array(0, np.int32),
            "n": np.array(n, np.int32),
            "x": x,
            "c": np.array(True),
        }
        times = []
        for _ in range(args.repeat):
            start = time.process_time()
            outputs = run_entry(module, inputs, entry="main").outputs
            times.append(time.process_time() - start)
        assert int(outputs["k"]) == n
        return min(times)

    rows: dict[str, list[tuple[float, float]]] = {"binder": [], "generic": []}
    for _ in range(3):
        for mode, row in rows.items():
            if mode == "binder" and binder is not None:
                compiled.BINDERS[DynamicControlOp] = binder
            else:
                compiled.BINDERS.pop(DynamicControlOp, None)
            none, many = best(0), best(args.iterations)
            row.append((none * 1e6, (many - none) / args.iterations * 1e6))
    if binder is not None:
        compiled.BINDERS[DynamicControlOp] = binder
    for mode, row in rows.items():
        print(
            f"{mode:8} run with If + 0-iteration While {min(a for a, _ in row):7.0f} us CPU; "
            f"per While iteration {min(b for _, b in row):6.1f} us CPU"
        )


if __name__ == "__main__":
    main()
