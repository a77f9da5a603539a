"""Fusion passes: each collapses one kind of op chain of the `graph` dialect into fewer nodes.

One pass per module, one pattern per class (`FuseConv2DBatchNorm`, `FuseErfGelu`, ...);
`ge-fuse` (`gedialects.passes.fusion.fuse`) runs them all in a fixed order and can leave kinds out.
`gedialects.passes.fusion.matching` holds what the patterns share: reading constants, the
group check that keeps a fusion from dropping a value another op uses or creating a cycle,
and the replacement of a matched group by its fused op.
"""
