"""``torch.fx``: capture a model's ``forward`` as a graph of operations, edit the graph,
and turn it back into runnable Python (``torch/fx/__init__.py``).

Three steps, each a module of this package, as in PyTorch:

1. **Trace** — ``symbolic_trace(model)`` (``_symbolic_trace``) runs ``forward`` once
   on ``Proxy`` objects (``proxy``) that record every call into a ``Graph``.
2. **Edit** — a ``Graph`` (``graph``) is a list of ``Node`` objects (``node``): add,
   replace or erase nodes, change their targets.
3. **Run** — a ``GraphModule`` (``graph_module``) generates Python source from the
   graph and runs it as its ``forward``; an ``Interpreter`` (``interpreter``) runs the
   graph node by node instead, and a ``Transformer`` rewrites it.

Example::

    import vizgrad as vg

    model = vg.nn.Sequential(vg.nn.Linear(4, 8), vg.nn.ReLU(), vg.nn.Linear(8, 2))
    gm = vg.fx.symbolic_trace(model)
    print(gm.code)             # def forward(self, input): ...
    gm.graph.print_tabular()   # opcode, name, target, args, kwargs

Symbolic tracing sees one path through the code: a branch on a traced value
(``if x.sum() > 0:``) raises ``TraceError``; fix it with ``concrete_args``.
"""

from . import graph, graph_module, interpreter, node, proxy
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap
from .graph import CodeGen, Graph, PythonCode
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy

__all__ = [
    "symbolic_trace", "Tracer", "wrap", "PH", "Graph", "GraphModule", "Node", "Proxy",
    "Interpreter", "Transformer", "CodeGen", "PythonCode", "map_arg", "has_side_effect",
    "graph", "graph_module", "interpreter", "node", "proxy",
]  # fmt: skip
