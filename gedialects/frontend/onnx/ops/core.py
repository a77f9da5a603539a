"""ONNX converters: core ops."""
