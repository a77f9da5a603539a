// RUN: ge-opt %s -p 'ge-sink-inputs,ge-expand-multibatch{input-shape="x:-1,3;y:-1" dynamic-dims="1,1;4,4;2,2"}' | filecheck %s
// RUN: ge-opt %s -p 'ge-sink-inputs,ge-compile{input-shape="x:-1,3;y:-1" dynamic-dims="1,1;4,4;2,2"}' | filecheck %s --check-prefix=MODEL
// RUN: not ge-opt %s -p 'ge-sink-inputs,ge-expand-multibatch{input-shape="x:-1,3;y:-1" dynamic-dims="1,1;4,4" hybrid=true}' 2>&1 | filecheck %s --check-prefix=HYBRID
// RUN: not ge-opt %s -p 'ge-sink-inputs,ge-expand-multibatch{input-shape="x:-1,3;y:-1" dynamic-batch-size="1,4"}' 2>&1 | filecheck %s --check-prefix=BATCH

// Tests GetNext sink (GE's MultiBatchClonePass with a GetNext): CreateOriGraph makes the
// GetNext's data outputs the branches' Data; on the root the GetNext feeds the Case with its
// data and GetDynamicDims with its int32 shapes; the GetDynamicDims output is the hidden last
// NetOutput input (getnext_sink_dynamic). Each GetNext output keeps GE's Data attributes, the
// largest gear included.

// CHECK-LABEL: graph.graph @main() -> (tensor<?x3xf32> {node_name = "r"}, tensor<?xf32> {node_name = "s"}, tensor<?xf32> {node_name = "yout"}, tensor<2xi32> {node_name = "ascend_mbatch_get_dynamic_dims_node"})
// CHECK-NEXT:    %[[X:.*]], %[[Y:.*]], %[[XS:.*]], %[[YS:.*]] = graph.get_next output_names ["x", "y"] {node_name = "IteratorGetNext", _getnext_output_attrs = [{node_name = "x", _mbatch_origin_input_dims = array<i64: -1, 3>, _mbatch_max_input_dims = array<i64: 4, 3>, {{.*}}}, {node_name = "y", _mbatch_origin_input_dims = array<i64: -1>, _mbatch_max_input_dims = array<i64: 4>, {{.*}}}]} : () -> (tensor<?x3xf32>, tensor<?xf32>, tensor<2xi32>, tensor<1xi32>)
// CHECK-NEXT:    %[[T:.*]] = graph.const dense<[1, 1, 4, 4, 2, 2]> : tensor<6xi32> {node_name = "ascend_mbatch_shape_const"}
// CHECK-NEXT:    %[[D:.*]] = multibatch.get_dynamic_dims %[[XS]], %[[YS]] shape_info [2, -1, 3, 1, -1] N 2 {node_name = "ascend_mbatch_get_dynamic_dims_node", "mbatch-inserted-node" = true} : (tensor<2xi32>, tensor<1xi32>) -> tensor<2xi32>
// CHECK-NEXT:    %[[I:.*]] = multibatch.map_index %[[D]], %[[T]]
// CHECK-NEXT:    %[[R:.*]], %[[S:.*]] = multibatch.case %[[I]], %[[X]], %[[Y]] branches [@Batch_0, @Batch_1, @Batch_2]
// CHECK-NEXT:    graph.net_output {_dynamic_output_dims = [{{.*}}], getnext_sink_dynamic = true} %[[R]], %[[S]], %[[Y]], %[[D]]

// CHECK-LABEL: graph.graph @Batch_1
// CHECK-SAME:    (%{{.*}}: tensor<4x3xf32> {node_name = "x_ascend_mbatch_batch_1", _parent_node_index = 1 : i64}, %{{.*}}: tensor<4xf32> {node_name = "y_ascend_mbatch_batch_1", _parent_node_index = 2 : i64})
// CHECK-NOT:     graph.get_next

// The GetNext is a kernel task writing buffers of the largest gear (not shared with any
// other tensor); GetDynamicDims reads only its shape buffers.
// MODEL-LABEL: ascend.model @main
// MODEL-SAME:    getnext_sink_dynamic = true
// MODEL:         ascend.output "ascend_mbatch_get_dynamic_dims_node" arena[[[D:[0-9]+]]] : tensor<2xi32>
// MODEL:         ascend.kernel "GetNext" "IteratorGetNext" engine "DNN_VM_AICPU" {{.*}} ins() outs(arena[{{[0-9]+}}] : tensor<4x3xf32>, arena[{{[0-9]+}}] : tensor<4xf32>, arena[[[XS:[0-9]+]]] : tensor<2xi32>, arena[[[YS:[0-9]+]]] : tensor<1xi32>) attrs {output_names = ["x", "y"]}
// MODEL:         ascend.kernel "GetDynamicDims" {{.*}} ins(arena[[[XS]]] : tensor<2xi32>, arena[[[YS]]] : tensor<1xi32>) outs(arena[[[D]]] : tensor<2xi32>)

// HYBRID: error: ge-expand-multibatch: hybrid mode needs Data inputs (GE: ge.dynamicNodeType=1); @main is fed by a GetNext
// BATCH: error: ge-expand-multibatch: get-dynamic-dims gathers 2 -1 dims from the inputs but a gear of --dynamic_batch_size has 1 values; use the shape-data input (the default)

graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %y: tensor<?xf32> {node_name = "y"})
    -> (tensor<?x3xf32> {node_name = "r"}, tensor<?xf32> {node_name = "s"}, tensor<?xf32> {node_name = "yout"}) {
  %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %axes = graph.const dense<[1]> : tensor<1xi64> {node_name = "axes"}
  %m = graph.reduce_sum %r, %axes : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  %s = graph.add %m, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %r, %s, %y : tensor<?x3xf32>, tensor<?xf32>, tensor<?xf32>
}
