"""The discrete Fourier transform: ``fft_fft``, ``fft_rfft``… (``SpectralOps.cpp``).

Every ``torch.fft`` function is made of three operators, each one transform over a list
of dimensions of a batch, as PyTorch's CPU kernels (``mkl/SpectralOps.cpp``) compute it:

* ``_fft_c2c``: complex to complex, forward (``e^{-2πi jk/n}``) or backward;
* ``_fft_r2c``: real to complex, forward, keeping only the first ``n // 2 + 1``
  frequencies of the last dimension (``onesided``: a real signal's spectrum is
  Hermitian, ``X[n - k] = conj(X[k])``, so the rest says nothing new) or all of them;
* ``_fft_c2r``: complex to real, backward, reading only the first half of a Hermitian
  spectrum (``last_dim_size`` says how long the real signal is: ``2 (m - 1)`` or
  ``2 (m - 1) + 1``, both have ``m`` such frequencies).

``normalization`` is ATen's ``fft_norm_mode``: 0 multiplies by nothing, 1 divides by
``sqrt(n)``, 2 divides by ``n`` (``n`` the number of points transformed). NumPy's names
(``norm="backward"``, ``"ortho"``, ``"forward"``) say which *direction* is divided by
``n``; ``_norm_from_string`` turns them into a mode for the direction computed.

The user-facing functions (``fft_fft``, ``fft_rfftn``…) are CompositeImplicitAutograd:
they promote the input (integers to the default float dtype, real to complex when the
transform needs it), zero-pad or trim it to ``n`` points (``constant_pad_nd``,
``slice``), and call one of the three, so the backward graph has PyTorch's nodes
(``FftR2CBackward0``, ``ConjBackward0`` for an inverse transform of a real input…).

NumPy's ``numpy.fft`` (pocketfft) computes the transforms, in the precision of the
input (``complex64`` for ``float32``, as PyTorch). The result is laid out as MKL writes
it: batch dimensions first in the input's stride order, then the transformed ones
(``_exec_fft``), so the output strides follow the input's layout as PyTorch's do.
"""

from __future__ import annotations

import math

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import float32, float64, get_default_dtype
from ..shape import contiguous_strides, wrap_dim
from ..tensor import Tensor
from .complex_views import conj_physical, real
from .copy import clone
from .creation import empty
from .declaration import native_function
from .joining import roll
from .padding import constant_pad_nd
from .parts import _slice_op
from .ranges import arange

__all__ = ["_fft_r2c", "_fft_c2r", "_fft_c2c"]


# --- normalization (SpectralOpsUtils.h) ------------------------------------------------------

# ``fft_norm_mode``: what the transform is divided by.
NORM_NONE, NORM_BY_ROOT_N, NORM_BY_N = 0, 1, 2


def _norm_from_string(norm, forward: bool) -> int:
    """``norm_from_string``: NumPy's names are relative to the direction. ``"backward"``
    (the default) divides the inverse transform by ``n``, ``"forward"`` the forward
    one, ``"ortho"`` both by ``sqrt(n)``."""
    if norm is None or norm == "backward":
        return NORM_NONE if forward else NORM_BY_N
    if norm == "forward":
        return NORM_BY_N if forward else NORM_NONE
    if norm == "ortho":
        return NORM_BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _numpy_norm(normalization: int, forward: bool) -> str:
    """The ``norm=`` that makes NumPy's transform in the ``forward`` direction divide as
    ``normalization`` says."""
    if normalization == NORM_BY_ROOT_N:
        return "ortho"
    divided = normalization == NORM_BY_N
    # NumPy's "forward" divides the forward transform by n, its "backward" the inverse one.
    if forward:
        return "forward" if divided else "backward"
    return "backward" if divided else "forward"


# --- the output layout (mkl/SpectralOps.cpp: _exec_fft, _sort_dims) --------------------------


def _partition(order: list, keep) -> int:
    """libstdc++'s ``std::partition`` (not stable): the elements ``keep`` accepts moved to
    the front by swapping from both ends, as ``_exec_fft`` calls it. Which batch
    dimension comes first among equal strides depends on it."""
    first, last = 0, len(order)
    while True:
        while True:
            if first == last:
                return first
            if not keep(order[first]):
                break
            first += 1
        last -= 1
        while True:
            if first == last:
                return first
            if keep(order[last]):
                break
            last -= 1
        order[first], order[last] = order[last], order[first]
        first += 1


def _by_stride(dims, stride) -> list:
    """Dims sorted by decreasing stride, ties kept in order (``std::sort`` of a few
    elements is an insertion sort, which is stable)."""
    return sorted(dims, key=lambda d: -stride[d])


def _sort_dims(stride, dim, exclude_last: bool = False) -> list:
    """``_sort_dims``: transform the dims in the input's memory order (the last one of a
    one-sided transform must stay last)."""
    dim = list(dim)
    if exclude_last:
        return [*_by_stride(dim[:-1], stride), dim[-1]]
    return _by_stride(dim, stride)


def _exec_fft_strides(in_stride, out_size, dim) -> tuple:
    """The strides of what ``_exec_fft`` returns: MKL writes a contiguous batch of
    transforms, the batch dims (in decreasing input stride) collapsed into one and the
    transformed ones after them in ``dim``'s order; then the dims are put back."""
    ndim = len(out_size)
    order = list(range(ndim))
    transformed = set(dim)
    batch_end = _partition(order, lambda d: d not in transformed)
    batch = _by_stride(order[:batch_end], in_stride)
    batch_numel = math.prod(out_size[d] for d in batch)
    batched = contiguous_strides((batch_numel, *(out_size[d] for d in dim)))
    strides = [0] * ndim
    numel = 1
    for d in reversed(batch):
        strides[d] = numel * batched[0]
        numel *= out_size[d]
    for i, d in enumerate(dim):
        strides[d] = batched[1 + i]
    return tuple(strides)


def _laid_out(values: np.ndarray, dtype, strides) -> Tensor:
    """A new tensor with these strides holding ``values``."""
    result = Tensor._empty_strided(values.shape, strides, dtype)
    result._array[...] = values
    return result


def _check_batch(numel: int) -> None:
    # MKL refuses a batch of no transforms (PyTorch's CPU build raises this for an empty
    # input; pocketfft builds return an empty result).
    if numel == 0:
        raise RuntimeError(
            "MKL FFT error: Intel oneMKL DFTI ERROR: Inconsistent configuration parameters"
        )


# --- the kernels ---------------------------------------------------------------------------------


def _wrap_dims(dim, ndim: int) -> list:
    return [wrap_dim(d, ndim, wrap_scalar=False) for d in dim]


def _check_precision(self: Tensor) -> None:
    if self._dtype.to_real() not in (float32, float64):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {self._dtype.scalar_name}")


def _c2c_array(a: np.ndarray, dim, normalization: int, forward: bool) -> np.ndarray:
    transform = np.fft.fftn if forward else np.fft.ifftn
    return transform(a, axes=tuple(dim), norm=_numpy_norm(normalization, forward))


def c2c_layout(self: Tensor, dim) -> tuple:
    """``_fft_c2c_mkl``'s checks, read from no data: the dims (wrapped) and the result's
    strides, or None when there is nothing to transform (the result is a ``clone``)."""
    if not self.is_complex():
        raise RuntimeError(f"Only supports complex dtypes, but found: {self._dtype.scalar_name}")
    _check_precision(self)
    dim = _wrap_dims(dim, self.dim())
    if not dim:
        return dim, None
    _check_batch(self.numel())
    return dim, _exec_fft_strides(self._stride, self._size, _sort_dims(self._stride, dim))


def _c2c_kernel(self: Tensor, dim, normalization: int, forward: bool) -> Tensor:
    """``_fft_c2c_mkl``: one complex transform over all of ``dim``."""
    dim, strides = c2c_layout(self, dim)
    if strides is None:  # nothing to transform: a copy
        return clone(self)
    values = _c2c_array(self._array, dim, normalization, forward).astype(self._dtype.numpy)
    return _laid_out(values, self._dtype, strides)


def _fill_conjugate_symmetry(half: np.ndarray, dim, n: int) -> np.ndarray:
    """``_fft_fill_with_conjugate_symmetry_``: the full spectrum of a real signal from
    its first half, ``X[(n - k) mod n …] = conj(X[k …])`` over every transformed dim."""
    last = dim[-1]
    kept = half.shape[last]
    full = np.empty(half.shape[:last] + (n,) + half.shape[last + 1 :], dtype=half.dtype)
    into = [slice(None)] * half.ndim
    into[last] = slice(0, kept)
    full[tuple(into)] = half
    if n > kept:
        mirrored = half
        for d in dim[:-1]:  # index i of dim d reads index (n_d - i) mod n_d
            mirrored = np.roll(np.flip(mirrored, d), 1, d)
        source = [slice(None)] * half.ndim
        source[last] = slice(n - kept, 0, -1)
        into[last] = slice(kept, n)
        full[tuple(into)] = np.conj(mirrored[tuple(source)])
    return full


def r2c_layout(self: Tensor, dim, onesided: bool) -> tuple:
    """``_fft_r2c_mkl``'s checks, read from no data: the dims (wrapped), and the result's
    shape, dtype and strides."""
    if not self.is_floating_point():
        raise RuntimeError(
            f"Only supports floating-point dtypes, but found: {self._dtype.scalar_name}"
        )
    _check_precision(self)
    dim = _wrap_dims(dim, self.dim())
    last = dim[-1]
    out_size = list(self._size)
    if onesided:
        out_size[last] = self._size[last] // 2 + 1
    _check_batch(self.numel())
    strides = _exec_fft_strides(self._stride, out_size,
                                _sort_dims(self._stride, dim, exclude_last=True))  # fmt: skip
    return dim, tuple(out_size), self._dtype.to_complex(), strides


def _r2c_kernel(self: Tensor, dim, normalization: int, onesided: bool) -> Tensor:
    """``_fft_r2c_mkl``: the spectrum of a real signal, its last dimension cut to
    ``n // 2 + 1`` frequencies if ``onesided`` (else completed by symmetry)."""
    dim, _, dtype, strides = r2c_layout(self, dim, onesided)
    last = dim[-1]
    half = np.fft.rfftn(self._array, axes=tuple(dim), norm=_numpy_norm(normalization, True))
    half = half.astype(dtype.numpy, copy=False)
    values = half if onesided else _fill_conjugate_symmetry(half, dim, self._size[last])
    return _laid_out(values, dtype, strides)


def c2r_layout(self: Tensor, dim, last_dim_size: int) -> tuple:
    """``_fft_c2r_mkl``'s checks, read from no data: the dims (wrapped), and the result's
    shape, dtype and strides (those the last, one-dimensional ``c2r`` gives what the
    complex transforms over the other dims left)."""
    if not self.is_complex():
        raise RuntimeError(f"Only supports complex dtypes, but found: {self._dtype.scalar_name}")
    _check_precision(self)
    dim = _wrap_dims(dim, self.dim())
    _check_batch(self.numel())
    stride = self._stride
    if len(dim) > 1:
        stride = _exec_fft_strides(stride, self._size, _sort_dims(stride, dim[:-1]))
    out_size = list(self._size)
    out_size[dim[-1]] = last_dim_size
    strides = _exec_fft_strides(stride, out_size, [dim[-1]])
    return dim, tuple(out_size), self._dtype.to_real(), strides


def _c2r_kernel(self: Tensor, dim, normalization: int, last_dim_size: int) -> Tensor:
    """``_fft_c2r_mkl``: a real signal of ``last_dim_size`` points along the last dim from
    the first half of its spectrum. As MKL's, a multi-dimensional transform is a complex
    backward transform over all but the last dim, then a one-dimensional ``c2r``."""
    dim, _, dtype, strides = c2r_layout(self, dim, last_dim_size)
    values = self._array
    if len(dim) > 1:
        values = _c2c_array(values, dim[:-1], normalization, False)
    values = np.fft.irfft(values, n=last_dim_size, axis=dim[-1],
                          norm=_numpy_norm(normalization, False))  # fmt: skip
    return _laid_out(values.astype(dtype.numpy, copy=False), dtype, strides)


# --- the derivatives (FunctionsManual.cpp) ----------------------------------------------------


def fft_r2c_backward(grad: Tensor, dim, normalization: int, onesided: bool,
                     last_dim_size: int) -> Tensor:  # fmt: skip
    """``fft_r2c_backward``: think of a one-sided ``r2c`` as a ``c2c`` of the real signal
    whose second half of results is thrown away. Its adjoint puts zeros where that half
    was, transforms back (``c2c``, backward, same normalization) and keeps the real part."""
    if not onesided:
        return real(_fft_c2c(grad, dim, normalization, False))
    last = wrap_dim(dim[-1], grad.dim())
    zero_length = last_dim_size - grad.size(last)
    full = grad
    if zero_length > 0:
        size = list(grad.shape)
        size[last] = last_dim_size
        full = grad.new_zeros(size)
        full.narrow(last, 0, grad.size(last)).copy_(grad)
    return real(_fft_c2c(full, dim, normalization, False))


def fft_c2r_backward(grad: Tensor, dim, normalization: int) -> Tensor:
    """``fft_c2r_backward``: a ``c2r`` first completes the half spectrum by symmetry, so
    each frequency ``k`` with ``0 < k < n - (n // 2 + 1) + 1`` is read twice (as itself
    and as its mirror ``n - k``). Its adjoint is the one-sided ``r2c`` of the gradient,
    those frequencies doubled."""
    grad_input = _fft_r2c(grad, dim, normalization, True)
    last = dim[-1]
    double_length = grad.size(last) - grad_input.size(last)
    if double_length > 0:
        grad_input.narrow(last, 1, double_length).mul_(2)
    return grad_input


_fft_r2c = native_function(
    "_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
    "_fft_r2c.out(Tensor self, int[] dim, int normalization, bool onesided, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_r2c_kernel,
    derivative=Derivative(
        "FftR2CBackward0",
        complex=True,
        save=("dim", "normalization", "onesided", "self_sym_sizes"),
        grads={
            "self": lambda grad, s: fft_r2c_backward(
                grad, s.dim, s.normalization, s.onesided, s.self_sym_sizes[s.dim[-1]]
            )
        },
    ),
    variants="function",
    doc="""``torch._fft_r2c``: the discrete Fourier transform of a real signal over
    ``dim``; ``onesided`` keeps the first ``n // 2 + 1`` frequencies of the last one.""",
)

_fft_c2r = native_function(
    "_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor",
    "_fft_c2r.out(Tensor self, int[] dim, int normalization, SymInt last_dim_size, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_c2r_kernel,
    derivative=Derivative(
        "FftC2RBackward0",
        complex=True,
        save=("dim", "normalization"),
        grads={"self": lambda grad, s: fft_c2r_backward(grad, s.dim, s.normalization)},
    ),
    variants="function",
    doc="""``torch._fft_c2r``: the inverse transform of a Hermitian spectrum given by its
    first half, a real signal of ``last_dim_size`` points along the last of ``dim``.""",
)

_fft_c2c = native_function(
    "_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor",
    "_fft_c2c.out(Tensor self, SymInt[] dim, int normalization, bool forward, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_c2c_kernel,
    # A linear map whose adjoint is the transform the other way, same normalization.
    derivative=Derivative(
        "FftC2CBackward0",
        complex=True,
        save=("dim", "normalization", "forward"),
        grads={"self": lambda grad, s: _fft_c2c(grad, s.dim, s.normalization, not s.forward)},
    ),
    variants="function",
    doc="""``torch._fft_c2c``: the complex discrete Fourier transform over ``dim``,
    forward (``exp(-2πi jk/n)``) or backward (``exp(+2πi jk/n)``).""",
)


# --- the user-facing transforms (SpectralOps.cpp) -----------------------------------------------


def _promote(t: Tensor, require_complex: bool) -> Tensor:
    """``promote_tensor_fft``: integers become the default float dtype; only float32 and
    float64 (and their complex types) have CPU transforms; ``require_complex`` makes a
    real input complex (a ``to``, which the graph records)."""
    dtype = t._dtype
    if dtype.is_complex:
        return t
    new = dtype if dtype.is_floating_point else get_default_dtype()
    if new not in (float32, float64):
        raise RuntimeError(f"Unsupported dtype {new.scalar_name}")
    if require_complex:
        new = new.to_complex()
    return t if new is dtype else t.to(new)


def _resize_fft_input(x: Tensor, dims, sizes) -> Tensor:
    """``resize_fft_input``: ``x`` with ``sizes[i]`` points along ``dims[i]``, trimmed
    (a ``slice`` view) or zero-padded at the end (``constant_pad_nd``, a copy)."""
    pad = [0] * (2 * x.dim())
    must_copy = False
    original = x._size
    for d, n in zip(dims, sizes, strict=True):
        if n == -1:
            continue
        if original[d] < n:
            must_copy = True
            pad[len(pad) - 2 * d - 1] = n - original[d]
        if original[d] > n:
            x = _slice_op(x, d, 0, n, 1)
    return constant_pad_nd(x, pad) if must_copy else x


def _check_points(n: int) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _check_out(function_name: str, out, complex_out: bool) -> None:
    if out is None:
        return
    if complex_out and not out.is_complex():
        raise RuntimeError(
            f"{function_name} expects a complex output tensor, but got {out._dtype.scalar_name}"
        )
    if not complex_out and not out.is_floating_point():
        raise RuntimeError(
            f"{function_name} expects a floating point output tensor, but got "
            f"{out._dtype.scalar_name}"
        )


def _call(op, out, *args) -> Tensor:
    """The functional overload, or the out= one when ``out`` is given (``*_maybe_out``:
    autograd works through the functional one only)."""
    return op(*args) if out is None else op(*args, out=out)


def _c2r_transform(function_name: str, out, input: Tensor, n, dim: int, norm, forward: bool):
    """``fft_c2r``: ``irfft`` (``forward=False``) and ``hfft``, whose forward transform of
    a Hermitian signal is the inverse transform of its conjugate."""
    _check_out(function_name, out, complex_out=False)
    input = _promote(input, True)
    dim = wrap_dim(dim, input.dim(), wrap_scalar=False)
    points = 2 * (input._size[dim] - 1) if n is None else n
    _check_points(points)
    if n is not None:
        input = _resize_fft_input(input, (dim,), (points // 2 + 1,))
    normalization = _norm_from_string(norm, forward)
    if forward:
        input = input.conj()
    return _call(_fft_c2r, out, input, [dim], normalization, points)


def _r2c_transform(function_name: str, out, input: Tensor, n, dim: int, norm, forward: bool,
             onesided: bool):  # fmt: skip
    """``fft_r2c``: ``rfft``, ``ihfft`` and ``fft``/``ifft`` of a real input. An inverse
    transform of a real signal is the conjugate of its forward one (a conjugate view)."""
    if input.is_complex():
        raise RuntimeError(
            f"{function_name} expects a real input tensor, but got {input._dtype.scalar_name}"
        )
    _check_out(function_name, out, complex_out=True)
    input = _promote(input, False)
    dim = wrap_dim(dim, input.dim(), wrap_scalar=False)
    points = input._size[dim] if n is None else n
    _check_points(points)
    if n is not None:
        input = _resize_fft_input(input, (dim,), (points,))
    normalization = _norm_from_string(norm, forward)
    result = _call(_fft_r2c, out if forward else None, input, [dim], normalization, onesided)
    if forward:
        return result
    return conj_physical(result, out=out) if out is not None else result.conj()


def _c2c_transform(function_name: str, out, input: Tensor, n, dim: int, norm, forward: bool):
    """``fft_c2c``: ``fft`` and ``ifft`` of a complex input."""
    dim = wrap_dim(dim, input.dim(), wrap_scalar=False)
    points = input._size[dim] if n is None else n
    _check_points(points)
    if n is not None:
        input = _resize_fft_input(input, (dim,), (points,))
    normalization = _norm_from_string(norm, forward)
    _check_out(function_name, out, complex_out=True)
    return _call(_fft_c2c, out, input, [dim], normalization, forward)


def _one_dim(name: str, transform):
    """The functional and out= kernels of a one-dimensional ``torch.fft`` function."""

    def kernel(self, n=None, dim=-1, norm=None):
        return transform(name, None, self, n, dim, norm)

    def out_kernel(self, n=None, dim=-1, norm=None, *, out):
        transform(name, out, self, n, dim, norm)
        return out

    return {"kernel": kernel, "kernels": {f"fft_{name}.out": out_kernel}}


def _one_dim_schemas(name: str) -> tuple:
    arguments = "Tensor self, SymInt? n=None, int dim=-1, str? norm=None"
    return (f"fft_{name}({arguments}) -> Tensor",
            f"fft_{name}.out({arguments}, *, Tensor(a!) out) -> Tensor(a!)")  # fmt: skip


def _declare_one_dim(name: str, transform, doc: str):
    return native_function(
        *_one_dim_schemas(name),
        **_one_dim(name, transform),
        kind=COMPOSITE_IMPLICIT,
        kinds={f"fft_{name}.out": COMPOSITE_IMPLICIT},
        variants="function",
        doc=doc,
    )


def _fft(name, out, self, n, dim, norm):
    if self.is_complex():
        return _c2c_transform(name, out, self, n, dim, norm, True)
    return _r2c_transform(name, out, self, n, dim, norm, True, False)


def _ifft(name, out, self, n, dim, norm):
    if self.is_complex():
        return _c2c_transform(name, out, self, n, dim, norm, False)
    return _r2c_transform(name, out, self, n, dim, norm, False, False)


fft_fft = _declare_one_dim(
    "fft", _fft, "``torch.fft.fft``: the discrete Fourier transform along ``dim``."
)
fft_ifft = _declare_one_dim(
    "ifft", _ifft, "``torch.fft.ifft``: the inverse discrete Fourier transform along ``dim``."
)
fft_rfft = _declare_one_dim(
    "rfft",
    lambda name, out, self, n, dim, norm: _r2c_transform(name, out, self, n, dim, norm, True, True),
    "``torch.fft.rfft``: the transform of a real signal, its ``n // 2 + 1`` first "
    "frequencies (the others are their conjugates).",
)
fft_irfft = _declare_one_dim(
    "irfft",
    lambda name, out, self, n, dim, norm: _c2r_transform(name, out, self, n, dim, norm, False),
    "``torch.fft.irfft``: the inverse of ``rfft``, a real signal of ``n`` points "
    "(``2 (m - 1)`` by default) from the first half of its spectrum.",
)
fft_hfft = _declare_one_dim(
    "hfft",
    lambda name, out, self, n, dim, norm: _c2r_transform(name, out, self, n, dim, norm, True),
    "``torch.fft.hfft``: the (real) transform of a Hermitian signal given by its first half.",
)
fft_ihfft = _declare_one_dim(
    "ihfft",
    lambda name, out, self, n, dim, norm: _r2c_transform(
        name, out, self, n, dim, norm, False, True
    ),
    "``torch.fft.ihfft``: the inverse of ``hfft``, the first half of the inverse "
    "transform of a real signal.",
)


# --- n-dimensional transforms -----------------------------------------------------------------


def _shape_and_dims(input: Tensor, s, dim) -> tuple[list, list]:
    """``canonicalize_fft_shape_and_dim_args``: which dims to transform and how many
    points each. ``s`` alone transforms the last ``len(s)`` dims; ``-1`` in ``s`` keeps
    a dim's size; neither transforms every dim."""
    ndim, sizes = input.dim(), input._size
    dims = []
    if dim is not None:
        dims = [wrap_dim(d, ndim, wrap_scalar=False) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [sizes[d] if n == -1 else n for n, d in zip(s, dims, strict=True)]
    elif dim is None:
        dims, shape = list(range(ndim)), list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for n in shape:
        _check_points(n)
    return shape, dims


def _fftn_c2c(out, self: Tensor, s, dim, norm, forward: bool):
    shape, dims = _shape_and_dims(self, s, dim)
    x = _resize_fft_input(_promote(self, True), dims, shape)
    normalization = _norm_from_string(norm, forward)
    # (PyTorch names ``fftn`` in this message for every c2c transform: ifft2 too.)
    _check_out("fftn", out, complex_out=True)
    return _call(_fft_c2c, out, x, dims, normalization, forward)


def _rfftn(out, self: Tensor, s, dim, norm):
    if self.is_complex():
        raise RuntimeError(
            f"rfftn expects a real-valued input tensor, but got {self._dtype.scalar_name}"
        )
    shape, dims = _shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize_fft_input(_promote(self, False), dims, shape)
    normalization = _norm_from_string(norm, True)
    _check_out("rfftn", out, complex_out=True)
    return _call(_fft_r2c, out, x, dims, normalization, True)


def _c2r_shape_and_dims(function_name: str, self: Tensor, s, dim) -> tuple[list, list, int]:
    """``canonicalize_fft_c2r_shape_and_dim_args``: the last dim holds half a spectrum;
    its real signal has ``2 (m - 1)`` points unless ``s`` says otherwise, and it reads
    that many points' ``n // 2 + 1`` frequencies."""
    shape, dims = _shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError(f"{function_name} must transform at least one axis")
    default = s is None or s[-1] == -1
    last_dim_size = 2 * (self._size[dims[-1]] - 1) if default else shape[-1]
    _check_points(last_dim_size)
    shape[-1] = last_dim_size // 2 + 1
    return shape, dims, last_dim_size


def _irfftn(out, self: Tensor, s, dim, norm):
    """``fft_irfftn_impl``: a real signal from the first half of its spectrum."""
    shape, dims, last_dim_size = _c2r_shape_and_dims("irfftn", self, s, dim)
    x = _resize_fft_input(_promote(self, True), dims, shape)
    normalization = _norm_from_string(norm, False)
    _check_out("irfftn", out, complex_out=False)
    return _call(_fft_c2r, out, x, dims, normalization, last_dim_size)


def _hfftn(out, self: Tensor, s, dim, norm):
    """``fft_hfftn_impl``: the forward transform of a Hermitian signal given by its first
    half along the last dim: ``c2c`` over the other dims, then ``c2r`` of the conjugate
    over the last."""
    shape, dims, last_dim_size = _c2r_shape_and_dims("hfftn", self, s, dim)
    x = _resize_fft_input(_promote(self, True), dims, shape)
    normalization = _norm_from_string(norm, True)
    if len(dims) > 1:
        x = _fft_c2c(x, dims[:-1], normalization, True)
    x = x.conj()
    _check_out("hfftn", out, complex_out=False)
    return _call(_fft_c2r, out, x, [dims[-1]], normalization, last_dim_size)


def _ihfftn(out, self: Tensor, s, dim, norm):
    """``fft_ihfftn_impl``: the first half of the inverse transform of a real signal: a
    one-sided ``r2c`` over the last dim, conjugated, then ``c2c`` backward over the rest."""
    shape, dims = _shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resize_fft_input(_promote(self, False), dims, shape)
    normalization = _norm_from_string(norm, False)
    half = _fft_r2c(x, [dims[-1]], normalization, True)
    if len(dims) == 1:
        if out is None:
            return half.conj()
        # PyTorch 2.13 calls ``conj_physical_out(tmp, out)`` here, arguments swapped: it
        # writes ``conj(out)`` into its own result and leaves ``out`` as it was.
        conj_physical(out, out=half)
        return out
    _check_out("ihfftn", out, complex_out=True)
    return _call(_fft_c2c, out, conj_physical(half), dims[:-1], normalization, False)


def _n_dim(name: str, transform, default_dim: str, doc: str):
    """Declare ``fft_<name>`` and its out= twin, both CompositeImplicitAutograd."""
    dim_type = "int[1]? dim=None" if default_dim is None else f"int[1] dim={default_dim}"
    arguments = f"Tensor self, SymInt[1]? s=None, {dim_type}, str? norm=None"

    def kernel(self, s=None, dim=None, norm=None):
        return transform(None, self, s, dim, norm)

    def out_kernel(self, s=None, dim=None, norm=None, *, out):
        transform(out, self, s, dim, norm)
        return out

    return native_function(
        f"fft_{name}({arguments}) -> Tensor",
        f"fft_{name}.out({arguments}, *, Tensor(a!) out) -> Tensor(a!)",
        kernel=kernel,
        kernels={f"fft_{name}.out": out_kernel},
        kind=COMPOSITE_IMPLICIT,
        kinds={f"fft_{name}.out": COMPOSITE_IMPLICIT},
        variants="function",
        doc=doc,
    )


def _fftn(out, self, s, dim, norm):
    return _fftn_c2c(out, self, s, dim, norm, True)


def _ifftn(out, self, s, dim, norm):
    return _fftn_c2c(out, self, s, dim, norm, False)


fft_fft2 = _n_dim("fft2", _fftn, "[-2,-1]",
                  "``torch.fft.fft2``: the transform over two dims (the last two).")  # fmt: skip
fft_ifft2 = _n_dim("ifft2", _ifftn, "[-2,-1]",
                   "``torch.fft.ifft2``: the inverse transform over two dims.")  # fmt: skip
fft_rfft2 = _n_dim("rfft2", _rfftn, "[-2,-1]",
                   "``torch.fft.rfft2``: ``rfftn`` over two dims.")  # fmt: skip
fft_irfft2 = _n_dim("irfft2", _irfftn, "[-2,-1]",
                    "``torch.fft.irfft2``: ``irfftn`` over two dims.")  # fmt: skip
fft_fftn = _n_dim("fftn", _fftn, None,
                  "``torch.fft.fftn``: the transform over ``dim`` (every dim by default).")  # fmt: skip
fft_ifftn = _n_dim("ifftn", _ifftn, None,
                   "``torch.fft.ifftn``: the inverse transform over ``dim``.")  # fmt: skip
fft_rfftn = _n_dim(
    "rfftn", _rfftn, None,
    "``torch.fft.rfftn``: the transform of a real signal over ``dim``, the last one cut "
    "to its ``n // 2 + 1`` first frequencies.",
)  # fmt: skip
fft_irfftn = _n_dim("irfftn", _irfftn, None,
                    "``torch.fft.irfftn``: the inverse of ``rfftn``, a real signal.")  # fmt: skip
fft_hfft2 = _n_dim("hfft2", _hfftn, "[-2,-1]",
                   "``torch.fft.hfft2``: ``hfftn`` over two dims.")  # fmt: skip
fft_ihfft2 = _n_dim("ihfft2", _ihfftn, "[-2,-1]",
                    "``torch.fft.ihfft2``: ``ihfftn`` over two dims.")  # fmt: skip
fft_hfftn = _n_dim(
    "hfftn", _hfftn, None,
    "``torch.fft.hfftn``: the (real) transform over ``dim`` of a signal Hermitian in the "
    "last one, given by its first half there.",
)  # fmt: skip
fft_ihfftn = _n_dim("ihfftn", _ihfftn, None,
                    "``torch.fft.ihfftn``: the inverse of ``hfftn``, its first half.")  # fmt: skip


# --- sample frequencies and shifts ---------------------------------------------------------------


def _check_freq_dtype(name: str, dtype) -> None:
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")


def _scale(out: Tensor, n: int, d: float) -> Tensor:
    """``out.mul_(1.0 / (n * d))``: the scale in double (``d = 0`` gives ``inf``, as C++
    divides), then multiplied in ``out``'s dtype."""
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.float64(1.0) / (np.float64(n) * np.float64(d))
    return out.mul_(float(factor))


def _fftfreq_out(n: int, d: float = 1.0, *, out: Tensor) -> Tensor:
    """``fft_fftfreq_out``: ``[0, 1, …, (n - 1) // 2, -(n // 2), …, -1] / (n d)``: the
    frequencies of ``fft``'s results, in cycles per unit of ``d``."""
    _check_freq_dtype("fftfreq", out._dtype)
    arange(n, out=out)  # the resize (and its warning) and arange's dtype checks
    right = _slice_op(out, 0, (n + 1) // 2, n, 1)
    arange(-(n // 2), 0, 1, out=right)
    return _scale(out, n, d)


def _half(n: int) -> int:
    """C++'s ``n / 2``, which truncates towards zero (``rfftfreq(-1)`` has one element)."""
    return -(-n // 2) if n < 0 else n // 2


def _rfftfreq_out(n: int, d: float = 1.0, *, out: Tensor) -> Tensor:
    """``fft_rfftfreq_out``: ``[0, 1, …, n // 2] / (n d)``, the frequencies of ``rfft``'s."""
    _check_freq_dtype("rfftfreq", out._dtype)
    arange(_half(n) + 1, out=out)
    return _scale(out, n, d)


def _freq(size_of, out_kernel):
    def kernel(n, d=1.0, *, dtype=None, layout=None, device=None, pin_memory=None):
        out = empty(size_of(n), dtype=dtype, layout=layout, device=device)
        return out_kernel(n, d, out=out)

    return kernel


fft_fftfreq = native_function(
    "fft_fftfreq(int n, float d=1.0, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "fft_fftfreq.out(int n, float d=1.0, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_freq(lambda n: n, _fftfreq_out),
    kernels={"fft_fftfreq.out": _fftfreq_out},
    variants="function",
    doc="``torch.fft.fftfreq``: the sample frequencies of an ``n``-point ``fft``.",
)
fft_rfftfreq = native_function(
    "fft_rfftfreq(int n, float d=1.0, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "fft_rfftfreq.out(int n, float d=1.0, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_freq(lambda n: _half(n) + 1, _rfftfreq_out),
    kernels={"fft_rfftfreq.out": _rfftfreq_out},
    variants="function",
    doc="``torch.fft.rfftfreq``: the sample frequencies of an ``n``-point ``rfft``.",
)


def _all_dims(self: Tensor, dim) -> list:
    """``default_alldims``: the given dims wrapped, or every dim."""
    if dim is None:
        return list(range(self.dim()))
    return [wrap_dim(d, self.dim(), wrap_scalar=False) for d in dim]


def _fftshift_kernel(self: Tensor, dim=None) -> Tensor:
    dims = _all_dims(self, dim)
    return roll(self, [self._size[d] // 2 for d in dims], dims)


def _ifftshift_kernel(self: Tensor, dim=None) -> Tensor:
    dims = _all_dims(self, dim)
    return roll(self, [(self._size[d] + 1) // 2 for d in dims], dims)


fft_fftshift = native_function(
    "fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor",
    kernel=_fftshift_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="""``torch.fft.fftshift``: ``roll`` each dim by half its size, so that frequency
    zero is in the middle (as ``fftfreq`` orders them: ``[0, 1, 2, -2, -1]`` becomes
    ``[-2, -1, 0, 1, 2]``).""",
)
fft_ifftshift = native_function(
    "fft_ifftshift(Tensor self, int[1]? dim=None) -> Tensor",
    kernel=_ifftshift_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.fft.ifftshift``: the inverse of ``fftshift``.",
)
