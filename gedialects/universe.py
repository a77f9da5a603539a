"""The `xdsl.universe` entry point: lets stock `xdsl-opt`/`xdsl-run` see our dialects and passes.

Loading it installs `gedialects.lexer_workaround` (through `dialect_factories`): xdsl-opt loads
every universe before it parses, so it too reports an unterminated string at once.
"""

from xdsl.universe import Universe

from gedialects import dialect_factories
from gedialects.passes import get_all_passes

GE_UNIVERSE = Universe(all_dialects=dialect_factories(), all_passes=get_all_passes())
