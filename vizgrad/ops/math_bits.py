"""The fallback of the Conjugate and Negative keys (``MathBitsFallback.h``,
``ConjugateFallback.cpp``, ``NegateFallback.cpp``).

``x.conj()`` copies nothing: it is a view of ``x`` with the *conjugate bit* set, and
``x.conj().imag`` a view with the *negative bit* (``vizgrad.tensor``). The values such a
tensor stands for are its bytes conjugated (negated), so no kernel may read the bytes
as they are. PyTorch makes sure none does with two dispatch keys, ``Negative`` and
``Conjugate``, which a call visits when an argument has the bit, below autograd and
above the backend; each key has one kernel for every operator, a *fallback*:

1. a view (``transpose``, ``select``, ``detach``…) keeps the bit: its result reads the
   same bytes with the same meaning, so the call goes straight on;
2. any other call gets, in place of each argument with the bit, a *resolved* clone
   (``clone`` applies the bit while copying), then goes on to the kernel;
3. if the call writes an argument that has the bit (``x.conj().add_(1)``, or
   ``out=x.conj()``), the kernel writes the clone, and the fallback copies the clone back
   into the argument (``copy_`` writes *through* the bit: the bytes get conjugated
   values), resizing it first for ``out=``.

The operators whose kernels handle the bit themselves are *fall-throughs* for the key:
PyTorch's lists below (the views, ``clone``, ``copy_``, ``conj_physical_``…). PyTorch
also lists ``mm``, ``dot``, ``vdot``… for the Conjugate key, because BLAS can conjugate
while it multiplies; vizgrad's kernels cannot, so for them the fallback resolves.
"""

from __future__ import annotations

from ..dispatcher import (
    CONJUGATE_KEY,
    INPLACE,
    NEGATIVE_KEY,
    NON_DIFFERENTIABLE_VIEW,
    OUT,
    RESIZE,
    VIEW,
    register_fallback,
)
from ..tensor import CONJ_BIT, NEG_BIT, Tensor
from .copy import _copy_, clone
from .iterator import resize_output

__all__: list[str] = []

_clone = clone.overloads["clone"]

# ``TORCH_VIEW_FNS``, ``TENSOR_UTILITIES_AND_CONSTRUCTORS`` and
# ``TORCH_VIEW_FNS_NATIVE_FN_REGISTRATION`` (``MathBitFallThroughLists.h``): views and
# their in-place twins keep the bits; constructors read no values.
_VIEW_FNS = frozenset({
    "as_strided_", "detach", "detach_", "diagonal", "expand", "expand_as", "movedim.int",
    "movedim.intlist", "narrow", "permute", "select.Dimname", "select.int", "squeeze",
    "squeeze_", "transpose.int", "transpose.Dimname", "transpose_", "t", "t_", "real", "imag",
    "view_as_real", "unflatten.int", "unflatten.Dimname", "unfold", "unsqueeze", "unsqueeze_",
    "view_as", "unbind.int", "unbind.Dimname", "split.Tensor", "split_with_sizes", "swapaxes",
    "swapdims", "chunk", "reshape", "alias", "hsplit.int", "hsplit.array", "dsplit.int",
    "dsplit.array", "vsplit.int", "vsplit.array", "conj", "_conj", "_unsafe_view", "resize_",
    "as_strided", "view",
})  # fmt: skip
_UTILITIES_AND_CONSTRUCTORS = frozenset({
    "empty_like", "empty.memory_format", "empty.out", "empty_strided", "full_like",
    "stride.int", "stride.Dimname", "size.int", "size.Dimname", "is_complex",
    "is_floating_point", "requires_grad_",
})  # fmt: skip
# What both fallbacks let through besides (``ConjugateFallback.cpp``, ``NegateFallback.cpp``):
# the kernels that apply the bits (``clone``, ``copy_``) or keep them (``set_``).
_BOTH = frozenset({
    "set_.source_Storage_storage_offset", "set_.source_Tensor", "set_", "copy_", "clone",
    "resolve_conj", "resolve_neg", "repeat_interleave.Tensor", "repeat_interleave.self_Tensor",
    "repeat_interleave.self_int",
    # vizgrad dispatches the questions ``torch.is_conj(x)``, ``torch.numel(x)``… that
    # PyTorch's bindings answer without dispatching: they read metadata, no values.
    "is_complex", "is_conj", "is_neg", "numel", "is_signed", "is_inference", "is_same_size",
})  # fmt: skip
CONJUGATE_FALLTHROUGH = _VIEW_FNS | _UTILITIES_AND_CONSTRUCTORS | _BOTH | {
    # A conjugate view's bytes conjugated in place: the values it stands for too.
    "_conj_physical", "conj_physical", "conj_physical_",
}  # fmt: skip
NEGATIVE_FALLTHROUGH = _VIEW_FNS | _UTILITIES_AND_CONSTRUCTORS | _BOTH | {"neg_"}


def _written_names(op) -> tuple:
    """The arguments the overload writes (``Tensor(a!)``): ``self``, or its ``out=`` tensors."""
    if op.variant is OUT:
        return op.out_names
    if op.variant in (INPLACE, RESIZE):
        return op.argument_names[:1]
    return ()


class _MathBitFallback:
    """``MathOpFallback::fallback_impl`` for one bit (see the module docstring)."""

    def __init__(self, bit: int, name: str):
        self.bit = bit
        self.name = name  # "conjugate", "negation": PyTorch's words in its messages

    def __call__(self, op, args: tuple, kwargs: dict, below):
        if op.variant in (VIEW, NON_DIFFERENTIABLE_VIEW):
            return below(op, args, kwargs)  # the view keeps the bit
        written = _written_names(op)
        mutable = []  # (the argument with the bit, its resolved clone) for a written one
        args = list(args)
        for i, value in enumerate(args):
            name = op.argument_names[i] if i < len(op.argument_names) else None
            args[i] = self._resolve(op, value, name in written, mutable)
        kwargs = {name: self._resolve(op, value, name in written, mutable)
                  for name, value in kwargs.items()}  # fmt: skip
        result = below(op, tuple(args), kwargs)
        if not mutable:
            return result
        original, resolved = mutable[0]
        resize_output(original, resolved._size, warn=False)  # for out=
        _copy_(original, resolved)  # through the bit
        return _put_back(result, resolved, original)

    def _resolve(self, op, value, is_written: bool, mutable: list):
        if isinstance(value, Tensor):
            if not value._key_set & self.bit:
                return value
            resolved = _clone(value)
            if is_written:
                if mutable:
                    raise RuntimeError(
                        f"{self.name} fallback does not support operators with more than one "
                        f"mutable tensors with {self.name}bit set to true."
                    )
                mutable.append((value, resolved))
            return resolved
        if isinstance(value, list | tuple) and any(
            isinstance(v, Tensor) and v._key_set & self.bit for v in value
        ):
            if is_written:
                raise RuntimeError(
                    f" fallback doesn't currently support mutable TensorLists with {self.name} "
                    f"inputs. Please materialize all the {self.name} input tensor(s) in the "
                    f"mutable TensorList inputs before calling {op.name}"
                )
            return type(value)(self._resolve(op, v, False, mutable) for v in value)
        return value


def _put_back(result, resolved: Tensor, original: Tensor):
    """``result`` with the written argument in place of the clone the kernel wrote."""
    if result is resolved:
        return original
    if isinstance(result, tuple):  # a tuple, or a return type built from one sequence
        return type(result)(original if r is resolved else r for r in result)
    return result


register_fallback(CONJUGATE_KEY, CONJ_BIT, _MathBitFallback(CONJ_BIT, "conjugate"),
                  CONJUGATE_FALLTHROUGH)  # fmt: skip
register_fallback(NEGATIVE_KEY, NEG_BIT, _MathBitFallback(NEG_BIT, "negation"),
                  NEGATIVE_FALLTHROUGH)  # fmt: skip
