"""Backward nodes made from declared formulas (PyTorch's generated ``Functions.cpp``).

Operators declare their formulas as ``vizgrad.derivatives.Derivative`` (PyTorch's
``derivatives.yaml``); here a ``Derivative`` becomes a ``FormulaNode`` subclass named
after it (``MulBackward0``), whose ``apply`` runs the formulas on what was saved.
"""

from __future__ import annotations

from ..derivatives import Derivative
from ..ops.complex_views import real
from ..ops.creation import zeros
from .graph import Node, SavedTensor

__all__ = ["Derivative", "FormulaNode", "NotImplementedNode"]


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
            # A hand-written C++ node (``torch::autograd::CopyBackwards``) is qualified in
            # its ``name()`` only; its Python class is ``CopyBackwards``.
            class_name = derivative.name.rpartition("::")[2]
            node_class = type(class_name, (cls,), {"__module__": "vizgrad.autograd.nodes"})
            cls._classes[derivative.name] = node_class
        return node_class(derivative, input_names, next_edges, input_meta, saved)

    def __init__(self, derivative: Derivative, input_names, next_edges, input_meta, saved):
        super().__init__(next_edges)
        self._derivative = derivative
        self._input_names = tuple(input_names)  # one per edge: the schema name it came from
        self._input_meta = tuple(
            input_meta
        )  # (shape, dtype, device) per edge: what a gradient must fit
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
        for (next_node, _), name, meta in zip(self._next_edges, self._input_names,
                                              self._input_meta, strict=True):  # fmt: skip
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
            value = value[index] if isinstance(value, list | tuple) else value
            if value is not None and value._dtype.is_complex and not meta[1].is_complex:
                # ``handle_r_to_c``: a real input's gradient is the real part of the
                # complex one (``mul(real, complex)``: ``grad * other.conj()``).
                value = real(value)
            results.append(value)
        return tuple(results)

    def _release(self) -> None:
        self._released = True

    def _all_output_grads(self, grad_outputs: tuple) -> tuple:
        """One gradient per output: zeros for outputs that got none (``unbind``'s unused parts)."""
        meta = self.__dict__.get("_output_meta", ())
        grads = list(grad_outputs) + [None] * (len(meta) - len(grad_outputs))
        for i, m in enumerate(meta):
            if grads[i] is None and m is not None:
                grads[i] = zeros(m[0], dtype=m[1], device=m[2])
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
