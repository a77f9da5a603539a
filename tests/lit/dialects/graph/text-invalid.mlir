// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests StringNormalizer on numbers.

graph.graph @normalize_numbers(%x: tensor<4xf32>) {
  %y = graph.string_normalizer %x : (tensor<4xf32>) -> tensor<?x!graph.string>
  graph.net_output
}
// CHECK-LABEL: 'graph.string_normalizer' x must be a string tensor, got tensor<4xf32>

// -----

// Tests StringNormalizer on a [2, C] tensor (GE takes [C] or [1, C]).

graph.graph @normalize_matrix(%x: tensor<2x3x!graph.string>) {
  %y = graph.string_normalizer %x : (tensor<2x3x!graph.string>) -> tensor<2x?x!graph.string>
  graph.net_output
}
// CHECK-LABEL: 'graph.string_normalizer' x must be [C] or [1, C], got [2, 3]

// -----

// Tests an unknown case_change_action.

graph.graph @normalize_action(%x: tensor<3x!graph.string>) {
  %y = graph.string_normalizer %x case_change_action "TITLE" : (tensor<3x!graph.string>) -> tensor<?x!graph.string>
  graph.net_output
}
// CHECK-LABEL: 'graph.string_normalizer' case_change_action must be one of NONE, LOWER, UPPER

// -----

// Tests a pattern with an RE2 Unicode class, which Python's re reads otherwise.

graph.graph @regex_unicode_class(%x: tensor<3x!graph.string>) {
  %y = graph.static_regex_full_match %x pattern "\5Cp{L}+" : (tensor<3x!graph.string>) -> tensor<3xi1>
  graph.net_output
}
// CHECK-LABEL: 'graph.static_regex_full_match' pattern '\\p{L}+': Unicode classes (\p) differ between RE2 and Python

// -----

// Tests a lookahead, which RE2 does not have.

graph.graph @regex_lookahead(%x: tensor<3x!graph.string>) {
  %y = graph.static_regex_full_match %x pattern "a(?=b)b" : (tensor<3x!graph.string>) -> tensor<3xi1>
  graph.net_output
}
// CHECK-LABEL: 'graph.static_regex_full_match' pattern 'a(?=b)b': (?= is not RE2 syntax

// -----

// Tests a pattern that does not compile.

graph.graph @regex_broken(%x: tensor<3x!graph.string>) {
  %y = graph.static_regex_full_match %x pattern "a(b" : (tensor<3x!graph.string>) -> tensor<3xi1>
  graph.net_output
}
// CHECK-LABEL: 'graph.static_regex_full_match' pattern 'a(b' is not a valid regular expression: missing ), unterminated subpattern at position 1

// -----

// Tests StringJoin of inputs that do not broadcast.

graph.graph @join_shapes(%a: tensor<2x!graph.string>, %b: tensor<3x!graph.string>) {
  %y = graph.string_join %a, %b : (tensor<2x!graph.string>, tensor<3x!graph.string>) -> tensor<3x!graph.string>
  graph.net_output
}
// CHECK-LABEL: 'graph.string_join' shapes [2] and [3] do not broadcast

// -----

// Tests StringJoin of a number.

graph.graph @join_number(%a: tensor<2x!graph.string>, %b: tensor<2xi64>) {
  %y = graph.string_join %a, %b : (tensor<2x!graph.string>, tensor<2xi64>) -> tensor<2x!graph.string>
  graph.net_output
}
// CHECK-LABEL: 'graph.string_join' inputs must be string tensors, got tensor<2xi64>

// -----

// Tests LabelEncoder keys and values of different lengths.

graph.graph @labels_lengths(%x: tensor<4x!graph.string>) {
  %y = graph.label_encoder %x keys #graph.strings<["a", "b"] : tensor<2x!graph.string>> values dense<[1, 2, 3]> : tensor<3xi64> default dense<-1> : tensor<i64> : (tensor<4x!graph.string>) -> tensor<4xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.label_encoder' keys and values must be 1-D of one length, got [2] and [3]

// -----

// Tests LabelEncoder keys of another type than x.

graph.graph @labels_key_type(%x: tensor<4xi64>) {
  %y = graph.label_encoder %x keys #graph.strings<["a", "b"] : tensor<2x!graph.string>> values dense<[1, 2]> : tensor<2xi64> default dense<-1> : tensor<i64> : (tensor<4xi64>) -> tensor<4xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.label_encoder' keys (tensor<2x!graph.string>) must have x's element type (i64)

// -----

// Tests a default of another type than the values.

graph.graph @labels_default(%x: tensor<4x!graph.string>) {
  %y = graph.label_encoder %x keys #graph.strings<["a", "b"] : tensor<2x!graph.string>> values dense<[1, 2]> : tensor<2xi64> default dense<-1.0> : tensor<f32> : (tensor<4x!graph.string>) -> tensor<4xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.label_encoder' default (tensor<f32>) must have the element type of values (i64)

// -----

// Tests StringSplit of numbers.

graph.graph @split_numbers(%x: tensor<2xi64>) {
  %y, %n = graph.string_split_padded %x : (tensor<2xi64>) -> (tensor<2x?x!graph.string>, tensor<2xi64>)
  graph.net_output
}
// CHECK-LABEL: 'graph.string_split_padded' x must be a string tensor, got tensor<2xi64>

// -----

// Tests a negative maxsplit (the importer drops ONNX's negative one: no limit).

graph.graph @split_maxsplit(%x: tensor<2x!graph.string>) {
  %y, %n = graph.string_split_padded %x maxsplit -1 : (tensor<2x!graph.string>) -> (tensor<2x?x!graph.string>, tensor<2xi64>)
  graph.net_output
}
// CHECK-LABEL: 'graph.string_split_padded' maxsplit must be >= 0 (absent: no limit), got -1

// -----

// Tests a static substring dim: the count of substrings depends on the data.

graph.graph @split_static(%x: tensor<2x!graph.string>) {
  %y, %n = graph.string_split_padded %x delimiter "," : (tensor<2x!graph.string>) -> (tensor<2x3x!graph.string>, tensor<2xi64>)
  graph.net_output
}
// CHECK-LABEL: 'graph.string_split_padded' the number of substrings depends on the data: y's last dim must be ?

// -----

// Tests counts of another shape than x.

graph.graph @split_counts(%x: tensor<2x!graph.string>) {
  %y, %n = graph.string_split_padded %x : (tensor<2x!graph.string>) -> (tensor<2x?x!graph.string>, tensor<3xi64>)
  graph.net_output
}
// CHECK-LABEL: 'graph.string_split_padded' result #1 shape [3] differs from x's shape [2]

// -----

// Tests f32 counts.

graph.graph @split_count_type(%x: tensor<2x!graph.string>) {
  %y, %n = graph.string_split_padded %x : (tensor<2x!graph.string>) -> (tensor<2x?x!graph.string>, tensor<2xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.string_split_padded' counts must be an i64 tensor, got tensor<2xf32>

// -----

// Tests a repeated alternation whose alternatives start alike, which backtracks exponentially
// in Python's re (RE2 is linear).

graph.graph @regex_repeated_alternation(%x: tensor<3x!graph.string>) {
  %y = graph.static_regex_full_match %x pattern "(a|a)*" : (tensor<3x!graph.string>) -> tensor<3xi1>
  graph.net_output
}
// CHECK-LABEL: 'graph.static_regex_full_match' pattern '(a|a)*': a repeated group holding alternatives not all starting with distinct literals ((a|a)*) can take exponential time in Python's backtracking re (RE2 matches it in linear time)

// -----

// Tests Python's verbose flag, which RE2 does not have.

graph.graph @regex_python_flag(%x: tensor<3x!graph.string>) {
  %y = graph.static_regex_full_match %x pattern "(?x)a b" : (tensor<3x!graph.string>) -> tensor<3xi1>
  graph.net_output
}
// CHECK-LABEL: 'graph.static_regex_full_match' pattern '(?x)a b': the (?x) flag is Python syntax, not RE2

// -----

// Tests a Python \u escape, which RE2 does not have.

graph.graph @regex_python_escape(%x: tensor<3x!graph.string>) {
  %y = graph.static_regex_full_match %x pattern "\5Cu00e9" : (tensor<3x!graph.string>) -> tensor<3xi1>
  graph.net_output
}
// CHECK-LABEL: 'graph.static_regex_full_match' pattern '\\u00e9': \u escapes are Python syntax, not RE2

// -----

// Tests \S inside a class, which has no Python equivalent with RE2's \s.

graph.graph @regex_not_space_in_class(%x: tensor<3x!graph.string>) {
  %y = graph.static_regex_full_match %x pattern "[\5CSa]" : (tensor<3x!graph.string>) -> tensor<3xi1>
  graph.net_output
}
// CHECK-LABEL: 'graph.static_regex_full_match' pattern '[\\Sa]': \S inside a class has no equivalent in Python's re (RE2's \s has no \v)
