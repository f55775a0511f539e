"""The static graph a trace records: ``Graph``, ``Node`` and ``Value`` (TorchScript's IR).

PyTorch's tracer builds a ``torch._C.Graph`` (``torch/csrc/jit/ir/ir.h``): a list of
*nodes*, each one operator call (``aten::mul``) or a bit of glue (``prim::Constant``,
``prim::ListConstruct``, ``prim::GetAttr``), whose inputs and outputs are *values*
(``%x``, ``%3``). Every value is defined once, by a graph input or by one node, so the
graph is in SSA form and can be printed, inspected and run again without the Python
code that produced it. This module is that IR in plain Python: the part of it a trace
needs, printed in TorchScript's own text form::

    graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):
      %1 : int = prim::Constant[value=2]()
      %2 : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::mul(%x, %1)
      return (%2)
"""

from __future__ import annotations

from ..dtypes import dtype as DType
from ..tensor import Tensor

__all__ = ["Graph", "Node", "Value", "tensor_type", "value_type", "wrapped_number_type"]

# TorchScript's names of the scalar types (``c10::ScalarType``), as a tensor type prints.
_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
    "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}  # fmt: skip
# ``c10::ScalarType``'s numbers: a dtype argument is an ``int`` constant in the IR.
_SCALAR_TYPE_CODES = {
    "uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5, "float32": 6,
    "float64": 7, "complex64": 9, "complex128": 10, "bool": 11, "bfloat16": 15,
}  # fmt: skip


def tensor_type(t: Tensor) -> str:
    """A tensor's type as the IR prints it: ``Float(2, 3, strides=[3, 1], requires_grad=0,
    device=cpu)`` (the shape, strides and dtype the trace saw, a *complete* tensor type)."""
    sizes = "".join(f"{n}, " for n in t.shape)
    strides = f"strides={list(t.stride())}, " if t.dim() else ""
    name = _TYPE_NAMES.get(t.dtype.name, t.dtype.name)
    return f"{name}({sizes}{strides}requires_grad={int(t.requires_grad)}, device=cpu)"


def value_type(value) -> str:
    """The IR type of a Python value a node takes or makes (``int``, ``float[]``, ``NoneType``)."""
    if isinstance(value, Tensor):
        return tensor_type(value)
    if value is None:
        return "NoneType"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | DType):
        return "int"  # a dtype is its ScalarType number
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, tuple | list):
        inner = {value_type(v).split("(")[0] for v in value}
        if len(inner) == 1:
            (element,) = inner
            if element in _TYPE_NAMES.values():
                element = "Tensor"
            return f"{element}[]"
        return "Any[]"
    return type(value).__name__


def wrapped_number_type(value) -> str:
    """The type of a Python number passed for a ``Tensor`` argument: a 0-dim tensor."""
    name = "Bool" if isinstance(value, bool) else "Long" if isinstance(value, int) else "Double"
    return f"{name}(requires_grad=0, device=cpu)"


def constant_text(value) -> str:
    """How a ``prim::Constant``'s ``value`` attribute prints (``0`` for False, as torch)."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, DType):
        return str(_SCALAR_TYPE_CODES.get(value.name, value.name))
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, Tensor):
        return (
            "{" + repr(value.item()) + "}"
            if value.numel() == 1 and not value.dim()
            else ("<Tensor>")
        )
    return repr(value)


class Value:
    """One SSA value (``torch._C.Value``): defined once, by a graph input or a node."""

    __slots__ = ("graph", "_name", "type_str", "producer", "offset", "example")

    def __init__(self, graph: Graph, name: str, type_str: str, producer=None, offset=0):
        self.graph = graph
        self._name = name
        self.type_str = type_str
        self.producer = producer  # the Node that defines it; None for a graph input
        self.offset = offset  # which output of its node it is
        self.example = None  # the Python value it held when traced (set for inputs)

    def debugName(self) -> str:  # noqa: N802 - torch._C.Value's name
        return self._name

    def type(self) -> str:
        return self.type_str

    def node(self):
        """The node that defines this value (None for a graph input)."""
        return self.producer

    def uses(self) -> list:
        """The nodes that read this value, in graph order."""
        return [n for n in self.graph.nodes() if any(v is self for v in n.inputs())]

    def __repr__(self) -> str:
        return f"{self._name} defined in ({self.producer or 'graph input'})"


class Node:
    """One node (``torch._C.Node``): its ``kind()``, input and output values, attributes.

    An ``aten::`` node also keeps what running it again needs: the operator overload
    (``op``) and its call's arguments with every input replaced by the value it reads
    (``args``, ``kwargs``), so ``Graph.run`` calls ``op(*args, **kwargs)`` with the
    values of this run.
    """

    __slots__ = ("graph", "_kind", "_inputs", "_outputs", "attributes", "op", "args",
                 "kwargs", "scope", "container")  # fmt: skip

    def __init__(self, graph: Graph, kind: str, inputs=(), attributes=None, op=None,
                 args=(), kwargs=None, scope=""):  # fmt: skip
        self.graph = graph
        self._kind = kind
        self._inputs = list(inputs)
        self._outputs: list[Value] = []
        self.attributes = dict(attributes or {})
        self.op = op
        self.args = args
        self.kwargs = kwargs or {}
        self.scope = scope  # the module the call ran in: "__module.0"
        # The Python container a node builds (``prim::ListConstruct`` of a tuple of sizes
        # makes a tuple again), or for an ``aten::`` node whose call returned a tuple of
        # tensors, ``tuple``: its outputs are that tuple's items, in order.
        self.container = None

    def kind(self) -> str:
        return self._kind

    def inputs(self) -> list[Value]:
        return list(self._inputs)

    def outputs(self) -> list[Value]:
        return list(self._outputs)

    def output(self) -> Value:
        """The node's one output (as ``torch._C.Node.output()``)."""
        if len(self._outputs) != 1:
            raise RuntimeError(f"{self._kind} has {len(self._outputs)} outputs, not 1")
        return self._outputs[0]

    def hasAttribute(self, name: str) -> bool:  # noqa: N802 - torch._C.Node's name
        return name in self.attributes

    def __getitem__(self, name: str):
        """An attribute (``node["value"]``, ``node["name"]``), as torch's ``node[...]``."""
        return self.attributes[name]

    def has_side_effects(self) -> bool:
        """Whether the node writes memory (``add_``, ``out=``): dead-code elimination keeps it."""
        return self.op is not None and self.op.variant in ("inplace", "out", "resize")

    def __str__(self) -> str:
        outs = ", ".join(f"%{v.debugName()} : {v.type_str}" for v in self._outputs)
        attrs = ""
        if self._kind == "prim::Constant" and self._outputs and "(" in self._outputs[0].type_str:
            value = self.attributes["value"]  # a tensor constant, or a wrapped number
            if not isinstance(value, Tensor):
                number = int(value) if isinstance(value, float) and value.is_integer() else value
                attrs = "[value={" + str(number) + "}]"
            else:
                attrs = f"[value={constant_text(value)}]"
        elif self.attributes:
            attrs = "[" + ", ".join(
                f"{k}={constant_text(v) if k == 'value' else _quoted(v)}"
                for k, v in self.attributes.items()
            ) + "]"  # fmt: skip
        ins = ", ".join(f"%{v.debugName()}" for v in self._inputs)
        scope = f", scope: {self.scope}" if self.scope else ""
        return f"{outs} = {self._kind}{attrs}({ins}){scope}"

    __repr__ = __str__


def _quoted(value) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


class Graph:
    """A traced graph (``torch._C.Graph``): inputs, nodes in execution order, one output."""

    def __init__(self):
        self._inputs: list[Value] = []
        self._nodes: list[Node] = []
        self._output: Value | None = None
        self._counter = 0  # how many values were made: the unnamed ones are %<number>
        self._names: dict[str, int] = {}  # how often a debug name was given

    # --- building ------------------------------------------------------------------------

    def _fresh_name(self, hint: str | None) -> str:
        # As torch's ``Value::unique()``: every value made takes the next number, and an
        # unnamed one is called by it (so a graph of one input starts at %1).
        number = self._counter
        self._counter += 1
        if hint is None:
            return str(number)
        seen = self._names.get(hint, 0)
        self._names[hint] = seen + 1
        return hint if seen == 0 else f"{hint}.{seen}"

    def add_input(self, name: str, type_str: str) -> Value:
        value = Value(self, self._fresh_name(name), type_str)
        self._inputs.append(value)
        return value

    def append(self, node: Node, output_types=(), output_names=None) -> Node:
        """Add ``node`` at the end, with one output value per type in ``output_types``."""
        names = output_names or [None] * len(output_types)
        for offset, (type_str, name) in enumerate(zip(output_types, names, strict=True)):
            node._outputs.append(Value(self, self._fresh_name(name), type_str, node, offset))
        self._nodes.append(node)
        return node

    def _add_outputs(self, node: Node, output_types) -> list[Value]:
        """Give ``node`` (appended already, its call now returned) its output values."""
        start = len(node._outputs)
        for offset, type_str in enumerate(output_types, start):
            node._outputs.append(Value(self, self._fresh_name(None), type_str, node, offset))
        return node._outputs[start:]

    def set_output(self, value: Value) -> None:
        self._output = value

    # --- reading ------------------------------------------------------------------------

    def inputs(self) -> list[Value]:
        return list(self._inputs)

    def nodes(self) -> list[Node]:
        return list(self._nodes)

    def outputs(self) -> list[Value]:
        return [self._output] if self._output is not None else []

    def return_node(self) -> Value | None:
        return self._output

    def findAllNodes(self, kind: str) -> list[Node]:  # noqa: N802 - torch._C.Graph's name
        return [n for n in self._nodes if n.kind() == kind]

    # --- passes -------------------------------------------------------------------------

    def eliminate_dead_code(self) -> None:
        """Drop the nodes nothing reads (``torch._C._jit_pass_dce``): a value computed
        only to be turned into a Python ``bool`` leaves no trace in the graph."""
        live = {id(self._output)} if self._output is not None else set()
        kept = []
        for node in reversed(self._nodes):
            if node.has_side_effects() or any(id(v) in live for v in node._outputs):
                kept.append(node)
                live.update(id(v) for v in node._inputs)
        self._nodes = kept[::-1]

    # --- printing -----------------------------------------------------------------------

    def __str__(self) -> str:
        params = ",\n      ".join(f"%{v.debugName()} : {v.type_str}" for v in self._inputs)
        lines = [f"graph({params}):"]
        lines += [f"  {node}" for node in self._nodes]
        out = f"%{self._output.debugName()}" if self._output is not None else ""
        lines.append(f"  return ({out})")
        return "\n".join(lines) + "\n"

    __repr__ = __str__
