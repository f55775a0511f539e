"""What the view operators share: int-list arguments and view declarations (``TensorShape.cpp``).

A view op computes a new ``(size, stride, storage_offset)`` and returns a tensor over
its input's storage. The dispatcher's ADInplaceOrView step then links the result to
its base (``_base``) and shares the version counter, so an in-place write through
either is seen by autograd on both.

Each view op comes in three layers, as in PyTorch:

* a *geometry* function: pure arithmetic on sizes and strides (``_transpose_geometry``);
* a *kernel*: the CPU implementation of the declared overload, which only wraps the
  geometry in ``self._alias(...)`` (or, for in-place view ops like ``t_``, changes
  ``self``'s own metadata);
* the *public function*: PyTorch's Python signature, argument checks, and the choice
  of overload.

Ops that PyTorch writes in terms of others (``reshape``, ``flatten``, ``narrow``,
``chunk``, ``movedim``, ``T``…) are "composite": they call the declared ops, so a
dispatch trace shows the same primitive steps as PyTorch's, and autograd records the
primitives' nodes (``x.narrow(...)`` has a ``SliceBackward0``).

Every primitive declares its derivative beside it (PyTorch's ``derivatives.yaml``).
The backward of a view op puts the gradient back where the view read it: an
*inverse view* for ops that only rearrange (``t``, ``permute``, ``view``), and
"zeros of the input's shape, with the gradient written into the viewed part" for ops
that pick a part (``select``, ``slice``, ``diagonal``).

This module holds what they share: PyTorch's parsing of int-list arguments
(``view(2, 3)`` and ``view((2, 3))``), the declaration of a composite op, of a view op
with its in-place twin (``t``/``t_``), and of a view property (``Tensor.T``). The view
ops themselves live by idea: ``shape_views`` (``as_strided``, ``view``, ``reshape``,
``expand``…), ``permutations`` (``t``, ``transpose``, ``permute``, ``movedim``…),
``size_one_dims`` (``squeeze``, ``unsqueeze``) and ``parts`` (``select``, ``slice``,
``narrow``, ``diagonal``, ``unfold``).
"""

from __future__ import annotations

import operator

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE, FUNCTIONAL, INPLACE, VIEW
from ..tensor import define_method
from .registry import declare

__all__: list[str] = []


# --- arguments ---------------------------------------------------------------------------


def _int_tuple(fn_name: str, arg_name: str, values) -> tuple[int, ...]:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(
            f"{fn_name}(): argument '{arg_name}' must be tuple of ints, but found element of "
            f"type {next(type(v).__name__ for v in values if not _is_int(v))}"
        ) from None


def _is_int(value) -> bool:
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def _sizes_from_varargs(fn_name: str, args, arg_name: str = "size") -> tuple[int, ...]:
    """PyTorch's ``*size`` convention: ``view(2, 3)``, ``view((2, 3))`` and ``view([2, 3])``."""
    if len(args) == 1 and isinstance(args[0], tuple | list):
        args = tuple(args[0])
    elif not args:
        raise TypeError(f'{fn_name}() missing 1 required positional arguments: "{arg_name}"')
    sizes = []
    for position, value in enumerate(args, start=1):
        if not _is_int(value):
            if isinstance(value, tuple | list):
                got = ", ".join(type(a).__name__ for a in args)
                raise TypeError(
                    f"{fn_name}() received an invalid combination of arguments - got ({got}), "
                    f"but expected one of:\n * (tuple of ints {arg_name})"
                )
            raise TypeError(
                f"{fn_name}(): argument '{arg_name}' failed to unpack the object at pos "
                f'{position} with error "type must be tuple of ints,but got '
                f'{type(value).__name__}"'
            )
        sizes.append(operator.index(value))
    return tuple(sizes)


# --- declaring view ops -------------------------------------------------------------------


def composite(schema: str, kernel):
    """Declare a CompositeImplicitAutograd op: its kernel is made of other ops.

    ``reshape`` is one: the dispatcher enters ``aten::reshape`` and its kernel calls
    ``aten::view`` (or ``aten::clone`` and ``aten::_unsafe_view``), each of which is
    dispatched, traced and differentiated on its own.
    """
    return declare(schema, FUNCTIONAL, kernel, COMPOSITE)


def _bind_property(name: str, getter, setter=None, doc: str = "") -> None:
    getter.__name__ = name
    define_method(name, property(getter, setter, doc=doc or getter.__doc__))


def _declare_view_pair(schema: str, inplace_schema: str, geometry, inplace_geometry=None, *,
                       names: tuple[str, str], grad, save=()):  # fmt: skip
    """Declare a view op and its in-place twin (``t``/``t_``) around one geometry.

    The in-place twin changes ``self``'s own metadata; PyTorch counts that as a write
    (the version counter goes up), so it is an INPLACE overload. Both share one
    gradient formula ``grad(grad, saved)``; PyTorch names their nodes apart
    (``TBackward0`` for ``t``, ``TBackward1`` for ``t_``).
    """
    inplace_geometry = inplace_geometry or geometry

    def view_kernel(self, *args):
        return self._alias(*geometry(self, *args))

    def inplace_kernel(self, *args):
        self._set_metadata(*inplace_geometry(self, *args))
        return self

    view_name, inplace_name = names
    view_derivative = Derivative(view_name, save=save, grads={"self": grad})
    inplace_derivative = Derivative(inplace_name, save=save, grads={"self": grad},
                                    inplace_view=True)  # fmt: skip
    return (
        declare(schema, VIEW, view_kernel, view_derivative),
        declare(inplace_schema, INPLACE, inplace_kernel, inplace_derivative),
    )
