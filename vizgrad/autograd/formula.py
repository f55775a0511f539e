"""Derivative formulas, declared beside their operators (PyTorch's ``derivatives.yaml``).

An operator's ``derivative`` slot holds a ``Derivative``: the node name PyTorch gives
its backward (``MulBackward0``), what to save during the forward (inputs by schema
name, ``result``, or scalar arguments), and one formula per differentiable input::

    Derivative(
        "MulBackward0",
        save=("self", "other"),
        grads={
            "self": lambda grad, saved: grad * saved.other,
            "other": lambda grad, saved: grad * saved.self,
        },
    )

Formulas are written with vizgrad operators, so with ``create_graph=True`` they are
recorded too and can be differentiated again. A formula may return a gradient of the
broadcast shape: the engine sums it down to the input's shape, as PyTorch's does.
"""

from __future__ import annotations

from .. import dispatcher
from .graph import Node, SavedTensor

__all__ = [
    "Derivative",
    "FormulaNode",
    "NON_DIFFERENTIABLE",
    "COMPOSITE",
    "NotImplementedNode",
]

# Markers for the derivative slot:
# the outputs never require grad (argmax, comparisons, ...);
NON_DIFFERENTIABLE = "non-differentiable"
# the op is built from other ops that each record their own nodes
# (CompositeImplicitAutograd: matmul, reshape, einsum, ...): see the dispatcher.
COMPOSITE = dispatcher.COMPOSITE


class Derivative:
    """The backward of one operator overload."""

    __slots__ = ("name", "save", "grads", "differentiable_outputs", "multi_output",
                 "inplace_view", "reads")  # fmt: skip

    def __init__(self, name: str, grads: dict, save=(), *, differentiable_outputs=None,
                 multi_output: bool = False, inplace_view: bool = False, reads=None):  # fmt: skip
        self.name = name
        self.grads = grads
        self.save = tuple(save)
        # What each input's formula reads (``{"self": ("other",), "other": ("self",)}`` for
        # mul): a name listed here is saved only if an input that needs a gradient reads it,
        # as PyTorch's codegen does (``a * b`` keeps no ``self`` when only ``a`` needs grad).
        # Names never listed (and derivatives without ``reads``) are always saved.
        self.reads = reads
        # Indices of outputs that carry gradients (``max.dim``: values yes, indices no).
        self.differentiable_outputs = differentiable_outputs
        # If True, formulas receive the tuple of all output gradients.
        self.multi_output = multi_output
        # An in-place *view* op (``t_``, ``squeeze_``) changes only the tensor's metadata,
        # not any values: a view's base keeps its history (no ``CopySlices``).
        self.inplace_view = inplace_view

    def unneeded_saves(self, needs_grad) -> set:
        """The saved names no input in ``needs_grad`` (names needing a gradient) reads."""
        if self.reads is None:
            return set()
        listed = {name for names in self.reads.values() for name in names}
        read = {name for input_name in needs_grad for name in self.reads.get(input_name, ())}
        return listed - read


class Saved:
    """What a formula reads: saved tensors (version-checked) and arguments, by name."""

    def __init__(self, values: dict):
        self.__dict__.update(values)

    def layout(self, name: str) -> SavedLayout:
        """An input's shape and strides (``self_sym_sizes``, ``self_sym_strides``), not its values.

        ``mm``'s gradient for ``mat2`` needs ``mat2``'s layout (to come out column-major like
        it) but not its values: PyTorch saves only the layout then.
        """
        return SavedLayout(getattr(self, f"{name}_sym_sizes"), getattr(self, f"{name}_sym_strides"))


class SavedLayout:
    """Stands for a tensor where only its ``_size`` and ``_stride`` are read."""

    __slots__ = ("_size", "_stride")

    def __init__(self, size: tuple, stride: tuple):
        self._size = size
        self._stride = stride


class FormulaNode(Node):
    """A backward node built from a ``Derivative``: named ``MulBackward0`` and so on.

    Each derivative gets its own subclass named after it, so ``type(y.grad_fn).__name__``
    is ``MulBackward0`` as in PyTorch (whose codegen writes one C++ class per formula).
    Make nodes with ``FormulaNode.create``.
    """

    _classes: dict = {}

    @classmethod
    def create(cls, derivative: Derivative, input_names, next_edges, input_meta, saved):
        node_class = cls._classes.get(derivative.name)
        if node_class is None:
            node_class = type(derivative.name, (cls,), {"__module__": "vizgrad.autograd.nodes"})
            cls._classes[derivative.name] = node_class
        return node_class(derivative, input_names, next_edges, input_meta, saved)

    def __init__(self, derivative: Derivative, input_names, next_edges, input_meta, saved):
        super().__init__(next_edges)
        self._derivative = derivative
        self._input_names = tuple(input_names)  # one per edge: the schema name it came from
        self._input_meta = tuple(input_meta)  # (shape, dtype) per edge, to shape gradients
        self._saved = saved  # name -> SavedTensor | value | list[SavedTensor]
        self._released = False

    def name(self) -> str:
        return self._derivative.name

    def __getattr__(self, attr: str):
        # PyTorch exposes what a node saved as ``_saved_<name>``.
        if attr.startswith("_saved_"):
            key = attr[len("_saved_") :]
            saved = self.__dict__.get("_saved", {})
            if key in saved:
                return _unpack(saved[key], self.__dict__.get("_released", False))
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def __dir__(self):
        # ``dir(grad_fn)`` lists what the node saved, as PyTorch's nodes do.
        return [*super().__dir__(), *(f"_saved_{name}" for name in self._saved)]

    def saved_values(self) -> Saved:
        return Saved({k: _unpack(v, self._released) for k, v in self._saved.items()})

    def apply(self, grad_outputs: tuple) -> tuple:
        saved = self.saved_values()
        if self._derivative.multi_output:
            grad = self._all_output_grads(grad_outputs)
        else:
            grad = grad_outputs[0]
        results = []
        computed: dict = {}
        position_in_list: dict = {}
        for (next_node, _), name in zip(self._next_edges, self._input_names, strict=True):
            # A list input (``cat``'s tensors) has one formula giving a list of gradients,
            # one per tensor of the list, in order.
            index = position_in_list.get(name, 0)
            position_in_list[name] = index + 1
            if next_node is None:
                results.append(None)
                continue
            if name not in computed:
                computed[name] = self._derivative.grads[name](grad, saved)
            value = computed[name]
            results.append(value[index] if isinstance(value, list | tuple) else value)
        return tuple(results)

    def _release(self) -> None:
        self._released = True

    def _all_output_grads(self, grad_outputs: tuple) -> tuple:
        """One gradient per output: zeros for outputs that got none (``unbind``'s unused parts)."""
        import vizgrad as vg

        meta = self.__dict__.get("_output_meta", ())
        grads = list(grad_outputs) + [None] * (len(meta) - len(grad_outputs))
        for i, m in enumerate(meta):
            if grads[i] is None and m is not None:
                grads[i] = vg.zeros(m[0], dtype=m[1])
        return tuple(grads)


def _unpack(value, released: bool):
    if isinstance(value, SavedTensor):
        return value.unpack(released)
    if isinstance(value, list) and any(isinstance(v, SavedTensor) for v in value):
        return [v.unpack(released) if isinstance(v, SavedTensor) else v for v in value]
    return value


class NotImplementedNode(Node):
    """Stands where an operator has no derivative yet: backward through it raises."""

    def __init__(self, op_name: str, next_edges):
        super().__init__(next_edges)
        self._op_name = op_name

    def name(self) -> str:
        return "NotImplemented"

    def apply(self, grad_outputs: tuple) -> tuple:
        # PyTorch names the operator without its overload: "aten::remainder".
        operator = self._op_name.split(".")[0]
        raise RuntimeError(f"derivative for {operator} is not implemented")
