// RUN: ge-opt %s -p ge-place-engines | filecheck %s

// Tests that the string ops, and ops that take string tensors (Equal), are placed on AI CPU as
// GE places every DT_STRING kernel; the LabelEncoder from strings to i64 too. ONNX's padded
// StringSplit is also data-dependent: AI Core refuses it for that reason too.

// CHECK-LABEL: graph.graph @strings
// CHECK:         graph.string_normalizer {{.*}}{_engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.static_regex_full_match {{.*}}{_engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.string_join {{.*}}{_engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.equal {{.*}}{_engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.label_encoder {{.*}}{_engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.string_split_padded {{.*}}{_engine_name = "DNN_VM_AICPU"}
graph.graph @strings(%x: tensor<4x!graph.string>, %s: tensor<1x!graph.string>) -> (tensor<?x!graph.string>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xi64>) {
  %n = graph.string_normalizer %x case_change_action "LOWER" : (tensor<4x!graph.string>) -> tensor<?x!graph.string>
  %b = graph.static_regex_full_match %x pattern "a+" : (tensor<4x!graph.string>) -> tensor<4xi1>
  %j = graph.string_join %x, %s : (tensor<4x!graph.string>, tensor<1x!graph.string>) -> tensor<4x!graph.string>
  %e = graph.equal %j, %x : (tensor<4x!graph.string>, tensor<4x!graph.string>) -> tensor<4xi1>
  %l = graph.label_encoder %x keys #graph.strings<["a"] : tensor<1x!graph.string>> values dense<[1]> : tensor<1xi64> default dense<0> : tensor<i64> : (tensor<4x!graph.string>) -> tensor<4xi64>
  %w, %c = graph.string_split_padded %x delimiter "-" : (tensor<4x!graph.string>) -> (tensor<4x?x!graph.string>, tensor<4xi64>)
  graph.net_output %n, %b, %e, %l, %c : tensor<?x!graph.string>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xi64>
}
