"""``torch.nn.Parameter`` and ``torch.nn.Buffer``: tensors a module registers as its state.

A ``Parameter`` is a tensor that a module lists among its weights when it is assigned
as an attribute (``self.weight = Parameter(...)``); a plain tensor assigned the same
way is just an attribute. A ``Buffer`` is registered the same way as part of the
module's state that is not trained (BatchNorm's running mean).
"""

from __future__ import annotations

from ..dtypes import FLOATING
from ..ops.creation import empty
from ..tensor import Tensor

__all__ = ["Parameter", "Buffer"]


def _check_tensor(data, kind: str) -> Tensor:
    if data is None:
        return empty(0)
    if not isinstance(data, Tensor):
        raise TypeError(f"{kind}(): argument 'data' must be Tensor, not {type(data).__name__}")
    return data


class Parameter(Tensor):
    """``torch.nn.Parameter``: a leaf tensor that a module counts among its parameters.

    ``Parameter(data)`` does not copy: it reads ``data``'s storage with ``data``'s
    metadata and shares its version counter, as PyTorch's ``Tensor._make_subclass``
    does (it starts from ``data.detach()``). It is a leaf that requires grad (unless
    ``requires_grad=False``), even inside ``no_grad``. Operations on it return plain
    tensors: only the parameter itself is a ``Parameter``.
    """

    # Like any PyTorch tensor, a parameter takes attributes of the user's (optimizers and
    # pruning tag parameters this way); the engine's plain tensors keep their slots only.
    __slots__ = ("__dict__",)

    def __init__(self, data=None, requires_grad=True):
        data = _check_tensor(data, "Parameter")
        Tensor.__init__(self, data._storage, data._size, data._stride, data._offset)
        self._inference = data._inference
        self._key_set = data._key_set  # read as ``data`` is: a conjugate stays conjugate
        self._version_counter = data._version_counter  # ``detach()`` shares it
        if requires_grad:
            if (
                data._dtype.category < FLOATING
            ):  # ``_make_subclass``'s words, not ``requires_grad_``'s
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            self.requires_grad_(True)

    def __deepcopy__(self, memo):
        """A copy with its own storage (``torch.nn.Parameter.__deepcopy__``)."""
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (type(self), (self.data, self.requires_grad))


class Buffer(Tensor):
    """``torch.nn.Buffer``: a tensor a module registers as (non-trainable) state.

    Assigning ``module.name = Buffer(t)`` registers it as ``register_buffer(name, t,
    persistent)`` does. Like ``Parameter`` it aliases ``data`` (``data.detach()``, keeping
    ``requires_grad``). PyTorch returns a plain ``torch.Tensor`` that carries a
    ``persistent`` attribute; vizgrad's plain tensors take no attributes, so the buffer
    is an instance of this subclass instead.
    """

    __slots__ = ("persistent",)

    def __init__(self, data=None, *, persistent=True):
        data = _check_tensor(data, "Buffer")
        Tensor.__init__(self, data._storage, data._size, data._stride, data._offset)
        self._inference = data._inference
        self._key_set = data._key_set
        self._version_counter = data._version_counter
        if data.requires_grad:
            self.requires_grad_(True)
        self.persistent = persistent
