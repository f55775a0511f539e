"""``torch.fx.Interpreter`` and ``Transformer``: run a graph node by node
(``torch/fx/interpreter.py``).

A ``GraphModule`` runs its graph as generated Python code. An ``Interpreter`` runs the
same graph one node at a time, keeping each node's value in ``env``: ``run_node``
fetches the node's arguments from ``env`` and calls the method named after its opcode —
``placeholder``, ``get_attr``, ``call_function``, ``call_method``, ``call_module``,
``output``. Override one of them to change what a kind of node does (swap a function,
log shapes, count operations) without touching the graph.

``Transformer`` is an interpreter that runs on proxies instead of values: each node,
re-executed symbolically, records a node into a *new* graph, so overriding its
methods rewrites the program; ``transform()`` returns the new ``GraphModule``.
"""

from __future__ import annotations

import inspect
from typing import Any

from ._symbolic_trace import Tracer, _tracing_patches
from .graph import Graph
from .graph_module import GraphModule
from .node import Argument, Node, Target, map_aggregate, map_arg
from .proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Execute a ``GraphModule``'s graph node by node: ``Interpreter(gm).run(x)``.

    With ``garbage_collect_values`` (the default), a value leaves ``env`` after its
    last use, as the generated code frees it; pass False to inspect every
    intermediate value in ``env`` after the run.
    """

    def __init__(self, module, garbage_collect_values: bool = True,
                 graph: Graph | None = None) -> None:  # fmt: skip
        self.module = module
        self.submodules = dict(self.module.named_modules())
        self.graph = graph if graph is not None else self.module.graph
        self.env: dict[Node, Any] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if self.garbage_collect_values:
            # A value's last user is the first node that reads it, walking backwards.
            node_to_last_use: dict[Node, Node] = {}
            self.user_to_last_uses: dict[Node, list[Node]] = {}
            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    if n not in node_to_last_use:
                        node_to_last_use[n] = node
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env: dict[Node, Any] | None = None) -> Any:
        """Run the graph on ``args`` (one per placeholder) and return its output.

        ``initial_env`` pre-fills values for some nodes, which are then not run.
        """
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    msg = f"{e.args[0]}\n\n{msg}" if e.args else str(msg)
                    e.args = (msg,) + e.args[1:]
                    if isinstance(e, KeyError):
                        raise RuntimeError(*e.args) from e
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def run_node(self, n: Node) -> Any:
        """Run one node: fetch its arguments' values, then call ``self.<n.op>``."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # --- one method per opcode ----------------------------------------------------------------

    def placeholder(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The next argument given to ``run`` (or the parameter's default)."""
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(
                f"Expected positional argument for parameter {target}, but one was not passed in!"
            ) from si

    def get_attr(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The attribute ``self.module.<target>``."""
        return self.fetch_attr(target)

    def call_function(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """``target(*args, **kwargs)``."""
        if isinstance(target, str):
            raise AssertionError("target should not be a string for call_function")
        return target(*args, **kwargs)

    def call_method(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """``args[0].<target>(*args[1:], **kwargs)``."""
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The submodule at ``target``, called on ``args``."""
        submod = self.fetch_attr(target)
        return submod(*args, **kwargs)

    def output(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The value the graph returns."""
        return args[0]

    # --- helpers -------------------------------------------------------------------------------

    def fetch_attr(self, target: str) -> Any:
        """Follow the dotted path ``target`` from ``self.module``."""
        target_atoms = target.split(".")
        attr_itr = self.module
        for i, atom in enumerate(target_atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(
                    f"Node referenced nonexistent target {'.'.join(target_atoms[: i + 1])}"
                )
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        """``n``'s arguments with each node replaced by its value in ``env``."""
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return args, kwargs

    def map_nodes_to_values(self, args: Argument, n: Node) -> Argument:
        def load_arg(n_arg: Node) -> Any:
            if n_arg not in self.env:
                raise RuntimeError(
                    f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() "
                    "to diagnose such issues"
                )
            return self.env[n_arg]

        return map_arg(args, load_arg)


class Transformer(Interpreter):
    """Rewrite a ``GraphModule`` by re-running it on proxies: every node becomes a node
    of a new graph, unless an overridden method records something else::

        class ReluToGelu(vizgrad.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target is vizgrad.relu:
                    target = vizgrad.nn.functional.gelu
                return super().call_function(target, args, kwargs)

        new_gm = ReluToGelu(gm).transform()
    """

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.new_graph = Graph()
        self.new_graph.set_codegen(module.graph._codegen)

        class TransformerTracer(Tracer):
            def __init__(self, graph: Graph) -> None:
                super().__init__()
                self.graph = graph
                self.tensor_attrs: dict[int, str] = {}

            def is_leaf_module(self, _, __) -> bool:
                return True  # every call_module stays one node

        self.tracer = TransformerTracer(self.new_graph)
        self.tracer.root = module
        self._patched_targets: dict[int, Any] = {}

    def placeholder(self, target: Target, args: tuple, kwargs: dict) -> Proxy:
        """A new placeholder of the same name (and default)."""
        default_value = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default_value), self.tracer)

    def get_attr(self, target: Target, args: tuple, kwargs: dict) -> Proxy:
        """A new ``get_attr`` node."""
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target: Target, args: tuple, kwargs: dict) -> Any:
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target: Target, args: tuple, kwargs: dict) -> Any:
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def run_node(self, n: Node) -> Any:
        """As ``Interpreter.run_node``, but an engine function's target is handed over as
        the tracing wrapper the namespace holds during the transform, so an override
        that tests ``target is vizgrad.relu`` sees the object ``vizgrad.relu`` is now."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        target = self._patched_targets.get(id(n.target), n.target)
        return getattr(self, n.op)(target, args, kwargs)

    def transform(self) -> GraphModule:
        """Run the whole graph symbolically and return the new ``GraphModule``.

        The engine functions are patched while it runs, so an overridden method may call
        ``vizgrad.sigmoid(proxy)`` and get a node recorded, as during tracing.
        """
        with _tracing_patches() as patcher:
            self._patched_targets = {
                id(p.orig_fn): p.new_fn for p in patcher.patches_made if p.orig_fn is not None
            }
            try:
                result = super().run()
            finally:
                self._patched_targets = {}
        if result is not None:

            def strip_proxy(a):
                return a.node if isinstance(a, Proxy) else a

            self.new_graph.output(map_aggregate(result, strip_proxy))
        return GraphModule(self.module, self.new_graph)
