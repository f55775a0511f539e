"""Derivative formulas, declared beside their operators (PyTorch's ``derivatives.yaml``).

An operator's ``derivative`` holds a ``Derivative``: the node name PyTorch gives
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

**Complex numbers.** A formula is written for real numbers unless its ``Derivative`` says
``complex=True``: then it computes PyTorch's gradient for complex inputs and outputs too,
the *conjugate Wirtinger* derivative ``grad * conj(df/dz)`` (``derivatives.yaml``'s
formulas, with their ``.conj()`` calls; PyTorch lists these operators in
``GRADIENT_IMPLEMENTED_FOR_COMPLEX``). Declare it beside the formula::

    Derivative("MulBackward0", save=("self", "other"), complex=True, grads={
        "self": lambda grad, saved: grad * saved.other.conj(),
        "other": lambda grad, saved: grad * saved.self.conj(),
    })

The autograd key refuses to record an operator whose formula is not declared so when a
complex tensor that requires grad goes in or comes out (PyTorch's
``throw_error_for_complex_autograd``). A formula's gradient for a *real* input is the
real part of what it computes (``handle_r_to_c``), taken once for every formula where
the nodes apply them (``autograd/formula.py``).

This module is data only: operators (``vizgrad.ops``) import it to declare their
formulas, and ``vizgrad.autograd`` turns a ``Derivative`` into backward nodes. Keeping
it below both is what lets autograd import the operators without a cycle.
"""

from __future__ import annotations

__all__ = ["Derivative"]


class Derivative:
    """The backward of one operator overload."""

    __slots__ = ("name", "save", "grads", "differentiable_outputs", "multi_output",
                 "inplace_view", "reads", "save_plan", "_listed_reads", "complex")  # fmt: skip

    def __init__(self, name: str, grads: dict, save=(), *, differentiable_outputs=None,
                 multi_output: bool = False, inplace_view: bool = False, reads=None,
                 complex: bool = False):  # fmt: skip
        self.name = name
        # The formulas hold for complex numbers (conjugate Wirtinger calculus): see above.
        self.complex = complex
        self.grads = grads
        self.save = tuple(save)
        # What each input's formula reads (``{"self": ("other",), "other": ("self",)}`` for
        # mul): a name listed here is saved only if an input that needs a gradient reads it,
        # as PyTorch's codegen does (``a * b`` keeps no ``self`` when only ``a`` needs grad).
        # Names never listed (and derivatives without ``reads``) are always saved.
        self.reads = reads
        self._listed_reads = frozenset(n for names in (reads or {}).values() for n in names)
        # How each saved name is found in a call, read once from its spelling:
        # ``(name, how, argument)``; see ``SAVE_HOW``.
        self.save_plan = tuple(_save_how(name) for name in self.save)
        # Indices of outputs that carry gradients (``max.dim``: values yes, indices no).
        self.differentiable_outputs = differentiable_outputs
        # If True, formulas receive the tuple of all output gradients.
        self.multi_output = multi_output
        # An in-place *view* op (``t_``, ``squeeze_``) changes only the tensor's metadata,
        # not any values: a view's base keeps its history (no ``CopySlices``).
        self.inplace_view = inplace_view

    def unneeded_saves(self, needs_grad) -> frozenset:
        """The saved names no input in ``needs_grad`` (names needing a gradient) reads."""
        if self.reads is None:
            return _NOTHING
        read = {name for input_name in needs_grad for name in self.reads.get(input_name, ())}
        return self._listed_reads - read


_NOTHING = frozenset()

# What a saved name stands for, by its spelling (``derivatives.yaml``'s): ``result``, an
# argument itself (``self``, ``dim``), or a fact about one (``self_sym_sizes``…).
SAVE_HOW = ("_sym_sizes", "_sym_strides", "_geometry", "_args_sizes", "_sym_numel")


def _save_how(name: str) -> tuple:
    if name == "result":
        return (name, "result", None)
    for suffix in SAVE_HOW:
        if name.endswith(suffix):
            return (name, suffix, name[: -len(suffix)])
    return (name, "argument", name)
