"""``torch.fx.Proxy``: the stand-in value that records what a program does to it
(``torch/fx/proxy.py``).

Symbolic tracing runs ``forward`` once, not on tensors but on ``Proxy`` objects. A
proxy holds a ``Node`` and a tracer; whatever the program does with it adds a node to
the graph and returns a new proxy for the result:

* ``x + y``, ``-x``, ``x[0]``, ``x @ w`` — Python's operators — record
  ``call_function`` nodes whose targets are the ``operator`` module's functions
  (``operator.add``…), as in PyTorch;
* ``x.relu()``, ``x.view(-1, 4)`` — ``x.relu`` first makes an ``Attribute`` proxy,
  which becomes a ``call_method`` node when called, or a ``getattr`` node when used as
  a value (``x.shape``);
* ``vizgrad.relu(x)``, ``F.linear(x, w)`` — engine functions — are recorded by the
  ``Tracer``, which wraps them while it traces (see ``_symbolic_trace``).

What a proxy *cannot* do is give a value: ``bool(proxy)`` (an ``if`` on a traced
value), ``len(proxy)`` and ``for v in proxy`` raise, because the value only exists when
the graph runs. ``TraceError`` and its messages are PyTorch's.
"""

from __future__ import annotations

import dis
import inspect
import operator
import sys
from bisect import bisect_left
from typing import Any

from .graph import Graph, magic_methods, reflectable_magic_methods
from .node import Argument, Node, Target, map_aggregate

__all__ = ["TracerBase", "GraphAppendingTracer", "TraceError", "Proxy", "Attribute"]


class TraceError(ValueError):
    """A traced program asked for a value only a real run can give (control flow)."""


class TracerBase:
    """What every tracer does: turn values into node arguments and nodes into proxies."""

    graph: Graph
    # Buffers used in ``forward`` become ``get_attr`` nodes (PyTorch's default).
    proxy_buffer_attributes: bool = True
    traced_func_name: str = "forward"

    def create_node(self, kind: str, target: Target, args: tuple, kwargs: dict,
                    name: str | None = None, type_expr: Any | None = None) -> Node:  # fmt: skip
        """Insert a node into ``self.graph`` (override to annotate every node)."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> Proxy:
        return Proxy(node, self)

    def create_proxy(self, kind: str, target: Target, args: tuple, kwargs: dict,
                     name: str | None = None, type_expr: Any | None = None,
                     proxy_factory_fn=None) -> Proxy:  # fmt: skip
        """Record one operation: lower its arguments (``create_arg``), make the node and
        return a proxy for its result."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        # A tracing wrapper of an engine function (met while the functions are
        # patched) is recorded as the function itself.
        target = getattr(target, "__fx_orig__", target)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a: Any) -> Argument:
        """Lower a value seen during tracing into something a node can hold: a proxy
        becomes its node, containers are lowered element by element, constants stay."""
        if isinstance(a, Proxy):
            return a.node
        elif isinstance(a, tuple):
            if hasattr(a, "_fields"):
                return type(a)(*[self.create_arg(elem) for elem in a])
            return tuple(self.create_arg(elem) for elem in a)
        elif isinstance(a, list):
            return [self.create_arg(elem) for elem in a]
        elif isinstance(a, dict):
            r = {}
            for k, v in a.items():
                if not isinstance(k, str):
                    k = self.create_arg(k)
                    if isinstance(k, Node):
                        raise RuntimeError(
                            "Keys for dictionaries used as an argument cannot contain a "
                            f"Node. Got key: {k}"
                        )
                r[k] = self.create_arg(v)
            return r
        elif isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))  # fmt: skip
        elif isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))  # fmt: skip
        elif isinstance(a, (str, int, float, bool, complex, type(None), type(...))):
            return a
        from .. import device, dtype, layout

        if isinstance(a, (device, dtype, layout)):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: Proxy) -> bool:
        """Called by ``bool(proxy)``: an ``if`` or ``while`` on a traced value."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: Proxy):
        """Called by ``iter(proxy)``: a loop over a traced value, or ``*proxy``."""
        raise TraceError(
            "Proxy object cannot be iterated. This can be "
            "attempted when the Proxy is used in a loop or"
            " as a *args or **kwargs function argument. "
            "See the torch.fx docs on pytorch.org for a "
            "more detailed explanation of what types of "
            "control flow can be traced, and check out the"
            " Proxy docstring for help troubleshooting "
            "Proxy iteration errors"
        )

    def keys(self, obj: Proxy) -> Proxy:
        """Called by ``proxy.keys()`` (what ``**proxy`` does)."""
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """The tracer of a ``Proxy`` made around a bare node: it appends to that graph."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph


class Proxy:
    """A ``Node`` flowing through the program during tracing: every operation on it is
    recorded as a new node, and its result is a new ``Proxy``.

    Wrap a node yourself (``Proxy(node)``) to build graph code with ordinary Python
    operators: ``(Proxy(a) + Proxy(b)).node`` appends an ``add`` node.
    """

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        # Not in the graph yet: ``x.relu()`` only needs a ``call_method`` node.
        return Attribute(self, k)

    def __getstate__(self) -> dict:
        return self.__dict__

    def __setstate__(self, d: dict) -> None:
        self.__dict__ = d

    def __deepcopy__(self, memo) -> Proxy:
        return Proxy(self.node, self.tracer)

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # ``a, b = proxy`` is fine: the bytecode says how many values to unpack, so each
        # becomes ``proxy[i]``. Any other iteration needs a value the trace lacks.
        frame = inspect.currentframe()
        calling_frame = frame.f_back
        inst_list = list(dis.get_instructions(calling_frame.f_code))
        if sys.version_info >= (3, 11):
            inst_idx = bisect_left(inst_list, calling_frame.f_lasti, key=lambda x: x.offset)
        else:
            inst_idx = calling_frame.f_lasti // 2
        inst = inst_list[inst_idx]
        if inst.opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __abs__(self) -> Proxy:
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def keys(self) -> Proxy:
        return self.tracer.keys(self)

    def __len__(self) -> int:
        raise RuntimeError(
            "'len' is not supported in symbolic tracing by default. If you want "
            "this call to be recorded, please call vizgrad.fx.wrap('len') at "
            "module scope"
        )


class Attribute(Proxy):
    """``proxy.name``: a ``call_method`` node if called, else a ``getattr`` node —
    created lazily, since most attribute reads are method calls."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:
        if self._node is None:
            self._node = self.tracer.create_proxy(
                "call_function", getattr, (self.root, self.attr), {}
            ).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


# Python's operators on a proxy record the ``operator`` module's function, as PyTorch.
def _define_magic(method: str) -> None:
    def impl(*args, **kwargs) -> Proxy:
        tracer = args[0].tracer
        target = getattr(operator, method)
        return tracer.create_proxy("call_function", target, args, kwargs)

    impl.__name__ = method
    setattr(Proxy, f"__{method.strip('_')}__", impl)


def _define_reflectable(orig_method_name: str) -> None:
    method_name = f"__r{orig_method_name.strip('_')}__"

    def impl(self: Proxy, rhs: Any) -> Proxy:
        # ``2 * x``: ``operator.mul(2, x)``, the operands in the order written.
        target = getattr(operator, orig_method_name)
        return self.tracer.create_proxy("call_function", target, (rhs, self), {})

    impl.__name__ = impl.__qualname__ = method_name
    setattr(Proxy, method_name, impl)


for _method in magic_methods:
    _define_magic(_method)
for _orig_method_name in reflectable_magic_methods:
    _define_reflectable(_orig_method_name)


def _find_proxy(*objects_to_search) -> Proxy | None:
    """The last ``Proxy`` inside these (nested) arguments, or ``None``."""
    proxy = None

    def find_proxy(x) -> None:
        nonlocal proxy
        if isinstance(x, Proxy):
            proxy = x

    map_aggregate(objects_to_search, find_proxy)
    return proxy
