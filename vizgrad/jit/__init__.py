"""``vizgrad.jit``: from a dynamic forward to a static graph (``torch.jit``).

``vizgrad.jit.trace(fn, example_inputs)`` runs ``fn`` once and records the operators it
called into a ``Graph`` of ``aten::`` nodes, printable in TorchScript's IR and callable
on new inputs (see ``vizgrad.jit._trace``). Only tracing is here: TorchScript's
compiler of Python source (``torch.jit.script``) is not.
"""

from ._trace import (
    ScriptFunction,
    ScriptModule,
    TopLevelTracedModule,
    TracedModule,
    TracerWarning,
    TracingCheckError,
    trace,
)
from .graph import Graph, Node, Value

__all__ = [
    "trace",
    "TracerWarning",
    "TracingCheckError",
    "ScriptFunction",
    "ScriptModule",
    "TracedModule",
    "TopLevelTracedModule",
    "Graph",
    "Node",
    "Value",
]
