"""ONNX converters: reduction ops."""
