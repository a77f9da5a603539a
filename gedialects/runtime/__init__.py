"""The run-time layer: what the Session (`gedialects.session`, the user API) is built from:
its options, graph loading, compilation by `ge-compile`, JIT slices and runs. Above the passes,
below the tools."""
