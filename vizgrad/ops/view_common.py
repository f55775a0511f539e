"""What the view operators share: kernels made from a geometry (``TensorShape.cpp``).

A view op computes a new ``(size, stride, storage_offset)`` and returns a tensor over
its input's storage. The dispatcher's ADInplaceOrView step then links the result to
its base (``_base``) and shares the version counter, so an in-place write through
either is seen by autograd on both.

Each view op is made of three pieces, as in PyTorch:

* a *geometry* function: pure arithmetic on sizes and strides (``_transpose_geometry``);
* its *kernels*, which only apply the geometry: the view overload wraps it in
  ``self._alias(...)``, and an in-place view overload (``t_``, ``squeeze_``) changes
  ``self``'s own metadata instead. ``metadata_view`` makes both from the geometry, as
  ``elementwise`` makes an elementwise op's variants from one loop;
* the *declaration* (``native_function``): every overload's schema, the kernels and
  the derivative. The schema's ``Tensor(a)`` return makes the result a view.

Ops that PyTorch writes in terms of others (``reshape``, ``flatten``, ``narrow``,
``chunk``, ``movedim``, ``T``…) are CompositeImplicitAutograd: they call the declared
ops, so a dispatch trace shows the same primitive steps as PyTorch's, and autograd
records the primitives' nodes (``x.narrow(...)`` has a ``SliceBackward0``).

Every primitive declares its derivative beside it (PyTorch's ``derivatives.yaml``).
The backward of a view op puts the gradient back where the view read it: an
*inverse view* for ops that only rearrange (``t``, ``permute``, ``view``), and
"zeros of the input's shape, with the gradient written into the viewed part" for ops
that pick a part (``select``, ``slice``, ``diagonal``). An in-place view op shares its
view twin's formula under its own node name (``TBackward0`` for ``t``, ``TBackward1``
for ``t_``): ``inplace_twin`` makes that derivative.

The view ops themselves live by idea: ``shape_views`` (``as_strided``, ``view``,
``reshape``, ``expand``…), ``permutations`` (``t``, ``transpose``, ``permute``,
``movedim``…), ``size_one_dims`` (``squeeze``, ``unsqueeze``), ``parts`` (``select``,
``slice``, ``narrow``, ``diagonal``, ``unfold``) and ``splitting`` (``unbind``,
``split``, ``chunk``).
"""

from __future__ import annotations

from ..derivatives import Derivative
from ..dispatcher import INPLACE
from .overload_kernels import StructuredKernel

__all__: list[str] = []


class metadata_view(StructuredKernel):  # noqa: N801 - reads as a wrapper in declarations
    """The kernels of a view op and of its in-place twin, from one geometry function.

    ``geometry(self, *args)`` returns the view's ``(size, stride, storage_offset)``.
    The view overload (``transpose.int``) returns a new tensor over ``self``'s storage
    with that metadata; the in-place overload (``transpose_``) gives it to ``self``
    (PyTorch counts that as a write: the version counter goes up).
    """

    def __init__(self, geometry):
        self.geometry = geometry

    def for_overload(self, schema, variant):
        geometry = self.geometry
        if variant is INPLACE:

            def inplace_view_kernel(self, *args):
                self._set_metadata(*geometry(self, *args))
                return self

            return inplace_view_kernel

        def view_kernel(self, *args):
            return self._alias(*geometry(self, *args))

        return view_kernel


def inplace_twin(derivative: Derivative, name: str) -> Derivative:
    """The derivative of an in-place view op (``t_``): its view twin's, under ``name``.

    Only metadata changes, not values: a view's base keeps its history (no
    ``CopySlices``), which ``inplace_view`` tells autograd.
    """
    return Derivative(name, derivative.grads, derivative.save, inplace_view=True,
                      complex=derivative.complex)  # fmt: skip
