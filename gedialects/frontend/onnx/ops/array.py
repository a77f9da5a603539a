"""ONNX converters: array ops."""
