"""Which operators run on the meta device, and their ``Meta`` kernels.

A meta kernel computes its result's metadata and no data (``vizgrad.meta_device``). In
PyTorch most come for free from how the CPU kernel is written, and so they do here; this
module registers them all (``_register``), once every operator is declared:

* **Elementwise operators** (every kernel ``elementwise`` or ``structured`` made, with its
  in-place and ``out=`` overloads): their set-up is a ``TensorIterator``, which with a
  meta operand is all that runs (``vizgrad.ops.iterator``). The Meta kernel *is* the CPU
  kernel, and a meta result has the CPU result's shape, dtype and strides by construction.
* **Structured kernels**, whose CPU kernel is a meta function then an impl
  (``meta_then_impl``, ``out_wrapper(meta=...)``): the meta function alone
  (``_structured``).
* **View operators**, **CompositeImplicitAutograd** operators, and the kernels listed in
  ``_RUN_AS_ON_CPU``, which read no data or only call other operators: the CPU kernel.
* **Families written apart** (``meta_reductions``, ``meta_linear_algebra``,
  ``meta_indexing``, ``meta_nn``, ``meta_factories``), and the few below whose CPU kernel
  writes or reads data (``clone``, ``_to_copy``, ``copy_``, ``fill_``, ``uniform_``…):
  meta functions made of the CPU modules' own checks and shape and dtype rules.

The operators PyTorch 2.13 has no meta kernel for either (``nonzero``-like results whose
shape is in the values, ``equal``, the sparse layout's own operators) have none here, and
the dispatcher refuses them with PyTorch's ``NotImplementedError``
(``dispatcher.meta_missing``); ``tests/test_meta_device.py`` lists them.
"""

from __future__ import annotations

from ..dispatcher import (
    COMPOSITE_IMPLICIT,
    META_BACKEND_KEY,
    NON_DIFFERENTIABLE_VIEW,
    VIEW,
    register_kernel,
)
from ..meta_device import NO_DATA, empty_meta
from ..shape import broadcast_shapes
from ..tensor import Tensor
from .creation import checked_scalar, strides_like
from .elementwise import ITERATOR_KERNELS
from .float_bits import frexp_outputs, frexp_set_outputs
from .iterator import check_inplace_target
from .meta_factories import KERNELS as FACTORY_KERNELS
from .meta_indexing import KERNELS as INDEXING_KERNELS
from .meta_linear_algebra import KERNELS as LINEAR_ALGEBRA_KERNELS
from .meta_nn import KERNELS as NN_KERNELS
from .meta_reductions import KERNELS as REDUCTION_KERNELS
from .overload_kernels import meta_outputs
from .registry import OPERATORS
from .sampling import _check_floating, _check_std

__all__ = ["META_OVERLOADS"]

# Overloads whose CPU kernel reads no data, or only through operators it calls, so runs on
# meta tensors as it is: ``where`` with a number calls ``where.self``; ``_unsafe_view``
# (``reshape``'s copy path) is ``view``'s geometry without the view tracking; the
# factories and the ``*_like`` and ``new_*`` ones make their result on the device they
# are told or where ``self`` is (``vizgrad.ops.creation``); ``resize_`` grows a meta
# storage by counting (``vizgrad.ops.resize``); ``ldexp``, ``mvlgamma``, ``fftfreq`` are
# made of other operators; the queries read metadata. Verified against PyTorch's meta
# results (``tests/test_meta_device.py``, ``tests/test_meta_factories.py``).
_RUN_AS_ON_CPU = frozenset({
    "aten::where.ScalarSelf", "aten::where.ScalarOther", "aten::where.Scalar",
    "aten::_unsafe_view", "aten::resize_",
    "aten::empty.memory_format", "aten::empty_strided", "aten::zeros", "aten::ones", "aten::full",
    "aten::empty.out", "aten::zeros.out", "aten::ones.out", "aten::full.out",
    "aten::fft_fftfreq", "aten::fft_fftfreq.out", "aten::fft_rfftfreq", "aten::fft_rfftfreq.out",
    "aten::square.out", "aten::ldexp.Tensor", "aten::ldexp_", "aten::ldexp.out", "aten::hardtanh",
    "aten::hardtanh.out", "aten::conj_physical_", "aten::_conj_physical", "aten::mvlgamma",
    "aten::mvlgamma_", "aten::mvlgamma.out",
    "aten::is_complex", "aten::is_floating_point", "aten::is_same_size", "aten::numel",
    "aten::is_conj", "aten::is_neg", "aten::is_inference", "aten::is_signed",
    "aten::is_nonzero", "aten::result_type.Tensor", "aten::result_type.Scalar",
    "aten::result_type.Scalar_Tensor", "aten::result_type.Scalar_Scalar", "aten::dense_dim",
    "aten::sparse_dim", "aten::is_coalesced", "aten::indices", "aten::values",
    "aten::_sparse_addmm",
    "aten::empty_like", "aten::zeros_like", "aten::ones_like", "aten::full_like",
    "aten::new_empty", "aten::new_zeros", "aten::new_ones", "aten::new_full",
})  # fmt: skip


def _clone(self: Tensor, *, memory_format=None) -> Tensor:
    return empty_meta(self._size, strides_like(self, memory_format), self._dtype)


def _to_copy(self: Tensor, *, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None) -> Tensor:  # fmt: skip
    """``x.to(...)`` of a meta tensor: another meta tensor; to the CPU there is nothing to copy."""
    if device is not None and str(device) != "meta":
        raise NotImplementedError(NO_DATA)
    return empty_meta(self._size, strides_like(self, memory_format), dtype or self._dtype)


def _copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """``copy_`` into a meta tensor checks the shapes and writes nothing; out of one into a
    CPU tensor it has nothing to copy (PyTorch's ``NotImplementedError``)."""
    if not self.is_meta:
        raise NotImplementedError(NO_DATA)
    if src is not self:
        shape = self._size if src._size == self._size else broadcast_shapes(self._size, src._size)
        check_inplace_target("copy_", self, shape, [src])
    return self


def _fill_(self: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.dim()} dimensions."
            )
    else:
        checked_scalar(value, self._dtype)
    return self


def _zero_(self: Tensor) -> Tensor:
    return self


def _fill(self: Tensor, value) -> Tensor:
    """``fill``: ``empty_like(self).fill_(value)``, a new tensor in ``self``'s layout."""
    return _fill_(empty_meta(self._size, strides_like(self), self._dtype), value)


def _uniform_(self: Tensor, from_=0.0, to=1.0, *, generator=None) -> Tensor:
    """Nothing to draw: the generator is not advanced. PyTorch 2.13's meta ``uniform_``
    checks neither the bounds nor the dtype, so neither does this."""
    return self


def _normal_(self: Tensor, mean=0.0, std=1.0, *, generator=None) -> Tensor:
    # PyTorch's meta ``normal_`` checks ``std`` and the dtype (worded here as its CPU kernel).
    _check_std(float(std))
    _check_floating("normal_kernel_cpu", self._dtype)
    return self


_WRITTEN_HERE = {
    "aten::clone": _clone,
    "aten::_to_copy": _to_copy,
    "aten::copy_": _copy_,
    "aten::fill_.Scalar": _fill_,
    "aten::fill_.Tensor": _fill_,
    "aten::zero_": _zero_,
    "aten::fill.Scalar": _fill,
    "aten::fill.Tensor": _fill,
    "aten::frexp.Tensor": frexp_outputs,
    "aten::frexp.Tensor_out": frexp_set_outputs,
    "aten::uniform_": _uniform_,
    "aten::normal_": _normal_,
}


def _structured(op) -> object:
    """``op``'s Meta kernel if its CPU kernel carries one: its twin, made beside it (an
    ``out_wrapper(meta=...)``'s, a ``from_inplace``'s, or one a module attached, as
    ``nonzero`` and ``histc``), or the meta step of a ``meta_then_impl`` kernel."""
    twin = getattr(op.kernel, "meta_kernel", None)
    if twin is not None:
        return twin
    meta = getattr(op.kernel, "meta_function", None)  # ``meta_then_impl``
    if meta is None:
        return None
    return _named_as_on_cpu(op, meta_outputs(meta, len(op.function_schema.returns) == 1))


def _named_as_on_cpu(op, kernel):
    """``kernel``, returning the named tuple ``op``'s CPU kernel returns (``max.dim``'s
    ``return_types.max``), if it does."""
    result_type = getattr(op.kernel, "result_type", None)
    if result_type is None:
        return kernel
    return lambda *args, **kwargs: result_type(kernel(*args, **kwargs))


def _written() -> dict:
    """Every meta kernel written out, by qualified name: those above and each family's."""
    written = dict(_WRITTEN_HERE)
    families = (
        FACTORY_KERNELS,
        REDUCTION_KERNELS,
        LINEAR_ALGEBRA_KERNELS,
        INDEXING_KERNELS,
        NN_KERNELS,
    )
    for family in families:
        for qualname, kernel in family.items():
            if qualname in written:
                raise RuntimeError(f"{qualname} has two meta kernels")
            if qualname not in OPERATORS:
                raise RuntimeError(f"a meta kernel for {qualname}, which is not an operator")
            written[qualname] = kernel
    return written


def _register() -> frozenset:
    written = _written()
    registered = []
    for qualname, op in OPERATORS.items():
        if qualname in written:
            kernel = _named_as_on_cpu(op, written[qualname])
        elif _structured(op) is not None:
            kernel = _structured(op)
        elif (
            op.kernel in ITERATOR_KERNELS
            or op.variant is VIEW
            or op.variant is NON_DIFFERENTIABLE_VIEW
            or qualname in _RUN_AS_ON_CPU
            # CompositeImplicitAutograd kernels are registered for every backend in
            # PyTorch: made of other operators, they run wherever those do.
            or op.kind is COMPOSITE_IMPLICIT
        ):
            kernel = op.kernel
        else:
            continue
        register_kernel(op, META_BACKEND_KEY, kernel)
        registered.append(qualname)
    return frozenset(registered)


# Every overload with a Meta kernel, by qualified name.
META_OVERLOADS = _register()
