"""ONNX converters: elementwise ops."""
