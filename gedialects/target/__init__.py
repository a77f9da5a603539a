"""The Ascend target description: what the device offers, apart from the IR and the passes.

`engines` holds GE's engines and their kernel stores (which op types, dtypes and shapes each
engine's `OpsKernelInfoStore` supports, as `DNNEngineManager` consults them); `cost_model` holds
the time each task takes (the estimates stream assignment and the timing simulator share).
Both import only the dialects, so every layer above may use them.
"""
