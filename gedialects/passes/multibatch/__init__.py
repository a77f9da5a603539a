"""Multi-batch (gear) passes: `ge-expand-multibatch` (GE's MultiBatchClonePass).

The names and attribute codecs are the dialect's (`gedialects.multibatch`), option parsing
and validation `gedialects.gear_options`, the gear table read back `interpreters.gears`; all
below this pass, shared with the interpreter, the Session and the tools.
"""
