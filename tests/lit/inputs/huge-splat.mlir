// A 130-byte file whose splat would take 1.5 GiB (see dialects/graph/exact-text-invalid.mlir).

%c = graph.const dense<1.0> : tensor<400000000xf32>
