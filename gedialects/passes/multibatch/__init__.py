"""Multi-batch (gear) passes: `ge-expand-multibatch` (GE's MultiBatchClonePass).

Option parsing, validation and the gear table live in `gedialects.gears`, shared with the
runtime.
"""
