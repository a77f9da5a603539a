// RUN: ge-opt %s -p ge-place-engines | filecheck %s
// RUN: ge-opt %s -p ge-place-engines,ge-partition-dynamic-shape | filecheck %s --check-prefix=DYN

// Tests that DecodeImage lands on AI CPU as GE places it (its image size is in the data,
// DATA_DEPENDENT_OPS; not DVPP, whose decoders take one format each) and partitions as
// unknown-shape.

graph.graph @decode(%x: tensor<312xui8>) -> tensor<?x?x3xui8> {
  %y = graph.decode_image %x : (tensor<312xui8>) -> tensor<?x?x3xui8>
  graph.net_output %y : tensor<?x?x3xui8>
}

// CHECK-LABEL: graph.graph @decode
// CHECK:         graph.decode_image {{.*}} {_engine_name = "DNN_VM_AICPU"}

// DYN-LABEL: graph.graph @decode
// DYN:         graph.decode_image {{.*}}_is_unknown_shape = true
