// Named symbolic dims (issue 19): a gear model records each output's dims over the gear
// symbols (`_shape_env`, `_symbolic_output_shape`), the same whether the gears are compiled
// one by one (ge-opt runs the stages) or from probes (ge-compile as one pass, `xdsl-opt`).
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:-1,3;w:-1" dynamic-batch-size="1,2,3,4,5,8"}' -o %t.each.mlir
// RUN: filecheck %s --check-prefix=EACH < %t.each.mlir
// RUN: xdsl-opt %s -p 'ge-compile{input-shape="x:-1,3;w:-1" dynamic-batch-size="1,2,3,4,5,8"}' | filecheck %s --check-prefix=EACH
// RUN: ge-opt %t.each.mlir --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ge-opt %t.each.mlir --print-op-generic | ge-opt | filecheck %s --check-prefix=EACH
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:-1,3;w:-1" dynamic-dims="1,1;2,4;3,9;4,16;5,25;6,36"}' | filecheck %s --check-prefix=DIMS
// RUN: sed 's/"s0 + 2"/"s0 + 3"/' %t.each.mlir | not ge-opt 2>&1 | filecheck %s --check-prefix=WRONG
// RUN: sed 's/"s0 + 2"/"s1 + 2"/' %t.each.mlir | not ge-opt 2>&1 | filecheck %s --check-prefix=SYMBOL
// RUN: sed 's/"s0 + 2"/"s0 ** 2"/' %t.each.mlir | not ge-opt 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: sed 's/\["s0", "3"\], //' %t.each.mlir | not ge-opt 2>&1 | filecheck %s --check-prefix=SHIFTED

// Six batch gears: every input's -1 dim is s0; y is s0 x 3, z adds two constant rows, f is
// x flattened, p is w twice.
// EACH-LABEL:  ascend.model @main
// EACH-SAME:     _shape_env = ["s0 = x[0] = w[0]"]
// EACH-SAME:     _symbolic_output_shape = [["s0", "3"], ["s0 + 2", "3"], ["1", "s0 * 3"], ["s0 * 2"]]

// The generic form keeps the attributes as they are (and reads back to the custom form).
// GENERIC-LABEL: "ascend.model"()
// GENERIC:       _shape_env = ["s0 = x[0] = w[0]"]
// GENERIC-SAME:  _symbolic_output_shape = [["s0", "3"], ["s0 + 2", "3"], ["1", "s0 * 3"], ["s0 * 2"]]

// Six dims gears: x's dim is s0, w's s1 (= s0 squared, which no affine function of s0 is).
// DIMS-LABEL:  ascend.model @main
// DIMS-SAME:     _shape_env = ["s0 = x[0]", "s1 = w[0]"]
// DIMS-SAME:     _symbolic_output_shape = [["s0", "3"], ["s0 + 2", "3"], ["1", "s0 * 3"], ["s1 * 2"]]

// An expression that is not that gear's dims, one of an unknown symbol, one that does not
// parse, and expressions shifted onto the wrong outputs are refused by the model verifier.
// WRONG:   error: 'ascend.model' op @main: _symbolic_output_shape output 1 dim 0 "s0 + 3" is 4 at gear 0 [1], but that gear's output is [3, 3]
// SYMBOL:  error: 'ascend.model' op @main: _symbolic_output_shape output 1 dim 0 "s1 + 2" names s1, no symbol of _shape_env (s0)
// SYNTAX:  error: 'ascend.model' op @main: _symbolic_output_shape "s0 ** 2" is no gear expression (`s<j> * a + b` or an integer)
// SHIFTED: error: 'ascend.model' op @main: _symbolic_output_shape output 0 dim 0 "s0 + 2" is 3 at gear 0 [1], but that gear's output is [1, 3]

builtin.module {
  graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %w: tensor<?xf32> {node_name = "w"})
      -> (tensor<?x3xf32> {node_name = "y"}, tensor<?x3xf32> {node_name = "z"},
          tensor<1x?xf32> {node_name = "f"}, tensor<?xf32> {node_name = "p"}) {
    %c = graph.const dense<1.5> : tensor<2x3xf32>
    %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %y = graph.mul %r, %x : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %z = graph.concat_d %y, %c concat_dim 0 : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
    %f = graph.flatten %x axis 0 : (tensor<?x3xf32>) -> tensor<1x?xf32>
    %p = graph.concat_d %w, %w concat_dim 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    graph.net_output %y, %z, %f, %p : tensor<?x3xf32>, tensor<?x3xf32>, tensor<1x?xf32>, tensor<?xf32>
  }
}
