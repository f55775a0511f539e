"""Random sampling: ``rand``, ``randn``, ``randint``, ``normal``… (``Distributions.cpp``).

Each distribution is one in-place *sampler* (``uniform_``, ``normal_``, ``random_``,
``bernoulli_``, ``exponential_``), as in PyTorch's ``DistributionTemplates.h``; the
factories (``rand``, ``randn``, ``randint``…) allocate a tensor and call it.
Values are drawn in the tensor's logical (row-major) order, so a transposed tensor
gets the same numbers at the same indices as a contiguous one. The numbers come from
the ``generator=`` argument, or else the default generator (``vizgrad.generator``).
"""

from __future__ import annotations

import operator

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import NONDIFFERENTIABLE
from ..dtypes import (
    BOOL,
    C_TYPE_NAMES,
    COMPLEX,
    CPP_TYPE_NAMES,
    FLOATING,
    INTEGRAL,
    get_default_dtype,
)
from ..dtypes import int64 as INT64
from ..generator import _numpy_generator
from ..memory_overlap import assert_no_internal_overlap
from ..meta_device import empty_meta
from ..shape import broadcast_shapes, check_storage_nbytes, contiguous_strides
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .creation import (
    check_device,
    check_nonnegative,
    strides_like,
)
from .declaration import native_function
from .iterator import resize_output
from .overload_kernels import Overlap, out_wrapper

__all__ = [
    "rand",
    "randn",
    "randint",
    "randperm",
    "normal",
    "bernoulli",
    "multinomial",
    "rand_like",
    "randn_like",
    "randint_like",
]


# --- checks -----------------------------------------------------------------------------


def _int64(value) -> int:
    """An ``int`` argument as the C++ kernel gets it: a Python int that fits in int64.

    # machinery: PyTorch's parser unpacks an ``int`` into an int64_t and raises
    # "Overflow when unpacking long long" itself (``THPUtils_unpackLong``), and turns a
    # ``float`` into a double; vizgrad's parser passes the value on as given (a Python
    # int of any size, or a 0-dim tensor), so the kernels here convert.
    """
    value = operator.index(value)
    if not -(2**63) <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return value


def _c_double(value) -> str:
    """A double as C++ streams print it (``-1``, ``1.5``)."""
    return f"{float(value):g}"


def _not_implemented(kernel_name: str, dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{dtype.scalar_name}'")


def _check_floating(kernel_name: str, dtype) -> None:
    if dtype.category < FLOATING:
        raise _not_implemented(kernel_name, dtype)


# --- the samplers: values in logical order, written into a tensor -------------------------


def _uniform_array(rng, shape, dtype, low=0.0, high=1.0) -> np.ndarray:
    """Uniform on ``[low, high)`` in ``dtype``; complex draws both parts independently."""
    if dtype.category == COMPLEX:
        real = dtype.to_real()
        return _uniform_array(rng, shape, real, low, high) + 1j * _uniform_array(
            rng, shape, real, low, high
        )
    if dtype.numpy == np.float16:
        # Round down to float16's 11 bits so that 1.0 can't appear by rounding up.
        unit = np.floor(rng.random(shape) * 2048) / 2048
    else:
        unit = rng.random(shape, dtype=dtype.numpy)
    if (low, high) == (0.0, 1.0):
        return unit.astype(dtype.numpy, copy=False)
    return (low + (high - low) * unit.astype(np.float64)).astype(dtype.numpy)


def _normal_array(rng, shape, dtype, mean=0.0, std=1.0) -> np.ndarray:
    """Normal with ``mean``/``std``; a complex normal splits the variance between its parts."""
    if dtype.category == COMPLEX:
        real = dtype.to_real()
        part_std = std / np.sqrt(2)
        return (_normal_array(rng, shape, real, 0.0, part_std)
                + 1j * _normal_array(rng, shape, real, 0.0, part_std) + mean)  # fmt: skip
    work = np.float64 if dtype.numpy == np.float64 else np.float32
    values = rng.standard_normal(shape, dtype=work)
    with np.errstate(all="ignore"):
        return (mean + std * values).astype(dtype.numpy)


def _write(self: Tensor, values) -> Tensor:
    with np.errstate(all="ignore"):
        self._array[...] = values
    return self


def _uniform_kernel(self, from_=0.0, to=1.0, *, generator=None):
    from_, to = float(from_), float(to)
    _check_floating("check_uniform_bounds", self._dtype)
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_c_double(from_)} > "
            f"to={_c_double(to)}"
        )
    assert_no_internal_overlap(self)
    rng = _numpy_generator(generator)
    return _write(self, _uniform_array(rng, self._size, self._dtype, from_, to))


def _check_std(std) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_c_double(std)}")


def _normal_kernel(self, mean=0.0, std=1.0, *, generator=None):
    mean, std = float(mean), float(std)
    # ``normal_impl_`` checks std, then the kernel its dtype (if there is something to
    # draw), then its iterator the overlap.
    _check_std(std)
    if self.numel():
        _check_floating("normal_kernel_cpu", self._dtype)
    assert_no_internal_overlap(self)
    rng = _numpy_generator(generator)
    return _write(self, _normal_array(rng, self._size, self._dtype, mean, std))


def check_from_less_than_to(from_: int, to: int) -> None:
    """``random_(from, to)``'s range must hold a number: the one check of its bounds that
    ``randint`` makes on the meta device too."""
    if from_ >= to:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
        )


def _random_bounds(dtype, from_, to):
    """``random_``'s range ``[from, to)``; ``to=None`` means up to the dtype's largest value."""
    if dtype.category == COMPLEX:
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types"
        )
    if dtype.category == BOOL:
        low, high = 0, 1
    elif dtype.category == INTEGRAL:
        info = np.iinfo(dtype.numpy)
        low, high = int(info.min), int(info.max)
    else:  # floats: the integers they represent exactly
        high = 2 ** (np.finfo(dtype.numpy).nmant + 1)
        low = -high
    from_ = None if from_ is None else _int64(from_)
    to = None if to is None else _int64(to)
    if to is None:
        if from_ is None:
            return 0, high + 1
        to = high + 1
    from_ = 0 if from_ is None else from_
    check_from_less_than_to(from_, to)
    cpp = CPP_TYPE_NAMES[dtype.name]
    if dtype.category <= INTEGRAL:
        if not low <= from_ <= high:
            raise RuntimeError(f"from is out of bounds for {cpp}")
        if not low <= to - 1 <= high:
            raise RuntimeError(f"to - 1 is out of bounds for {cpp}")
    else:
        limit = float(np.finfo(dtype.numpy).max)
        if not -limit <= from_ <= limit:
            raise RuntimeError(f"from is out of bounds for {cpp}")
        if not -limit <= to - 1 <= limit:
            raise RuntimeError(f"to - 1 is out of bounds for {cpp}")
        if max(abs(from_), abs(to - 1)) > high:
            warn_at_user_code(
                f"to - 1 is out of bounds [-(2^{np.finfo(dtype.numpy).nmant + 1}), "
                f"2^{np.finfo(dtype.numpy).nmant + 1}]. Due to precision limitations {cpp} can "
                "support discrete uniform distribution only within this range. This warning "
                "will become an error in version 1.7 release, please fix the code in advance",
                UserWarning,
            )
    return from_, to


def _random_kernel(self, from_=None, to=None, *, generator=None):
    low, high = _random_bounds(self._dtype, from_, to)
    assert_no_internal_overlap(self)
    rng = _numpy_generator(generator)
    # NumPy's integers() wants high <= 2**63; the one range beyond is int64's full range.
    values = rng.integers(low, min(high, 2**63), size=self._size, dtype=np.int64)
    return _write(self, values.astype(self._dtype.numpy))


def _check_probability(p) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_c_double(p)}")


def _bernoulli_values(rng, shape, p) -> np.ndarray:
    return rng.random(shape) < p


def _check_bernoulli_self(self: Tensor) -> None:
    """``bernoulli_tensor_cpu_kernel`` dispatches on the written tensor first: any real
    dtype or bool (``AT_DISPATCH_ALL_TYPES_AND3``), not complex; with no element to write
    it dispatches on nothing."""
    if self._dtype.category == COMPLEX and self.numel():
        raise _not_implemented("bernoulli_tensor_cpu_self_", self._dtype)


def _check_probability_tensor_dtype(p: Tensor) -> None:
    # AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half): no complex probabilities either
    # (and no dispatch when there is nothing to draw).
    if p._dtype.category != FLOATING and p.numel():
        raise _not_implemented("bernoulli_tensor_cpu_p_", p._dtype)


def _check_probability_tensor(p: Tensor) -> None:
    _check_probability_tensor_dtype(p)
    values = p._array
    if values.size and not bool(np.all((values >= 0) & (values <= 1))):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )


def _bernoulli_float_kernel(self, p=0.5, *, generator=None):
    p = float(p)
    _check_probability(p)
    if self._dtype.category == COMPLEX and self.numel():
        raise _not_implemented("bernoulli_scalar_cpu_", self._dtype)
    assert_no_internal_overlap(self)
    rng = _numpy_generator(generator)
    return _write(self, _bernoulli_values(rng, self._size, p))


def _bernoulli_tensor_kernel(self, p, *, generator=None):
    _check_bernoulli_self(self)
    _check_probability_tensor(p)
    assert_no_internal_overlap(self)
    broadcast_shapes(self._size, p._size)  # p must broadcast to self
    probabilities = np.broadcast_to(p._array, self._size)
    rng = _numpy_generator(generator)
    return _write(self, _bernoulli_values(rng, self._size, probabilities))


def _check_exponential(dtype, lambd: float, dtype_first: bool) -> None:
    """``exponential_``'s two checks: a positive rate, a floating dtype. PyTorch's CPU
    kernel checks the rate first (``exponential_impl_``, then its ``TensorIterator``
    dispatch); its meta kernel the dtype first."""

    def check_dtype():
        if dtype.category != FLOATING:
            raise RuntimeError(
                "Exponential distribution is a continuous probability distribution. dtype must "
                f"be a floating point but you specified {dtype.scalar_name}"
            )

    if dtype_first:
        check_dtype()
    if not lambd > 0:
        raise RuntimeError(
            f"exponential_ expects lambda > 0.0, but found lambda={_c_double(lambd)}"
        )
    check_dtype()


def _exponential_kernel(self, lambd=1.0, *, generator=None):
    _check_exponential(self._dtype, float(lambd), dtype_first=False)
    assert_no_internal_overlap(self)
    rng = _numpy_generator(generator)
    return _write(self, rng.exponential(1.0 / lambd, size=self._size))


def _zeros_shaped_like(input_name: str):
    """A formula giving zeros of ``input_name``'s saved shape."""
    key = f"{input_name}_sym_sizes"
    return lambda grad, saved: grad.new_zeros(getattr(saved, key))


def _sampled(name: str, *inputs: str) -> Derivative:
    """Samples do not depend on their parameters differentiably (no reparameterization):
    PyTorch records a node whose gradients are zeros, for the overwritten tensor and for
    tensor parameters alike (``normal(mean, std)``'s mean and std)."""
    return Derivative(
        name,
        save=tuple(f"{i}_sym_sizes" for i in inputs),
        grads={i: _zeros_shaped_like(i) for i in inputs},
    )


# --- the in-place samplers: ``Tensor.uniform_``, ``Tensor.normal_``… -------------------------
# Each is an operator with in-place overloads only, so it makes no function and no
# ``Tensor.<name>`` method of its own (``variants=""``): only ``Tensor.<name>_``.

_uniform = native_function(
    "uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> Tensor(a!)",
    kernel=_uniform_kernel,
    derivative=_sampled("UniformBackward0", "self"),
    variants="",
)
_exponential = native_function(
    "exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> Tensor(a!)",
    kernel=_exponential_kernel,
    derivative=_sampled("ExponentialBackward0", "self"),
    variants="",
)


def _random_to_kernel(self, to, *, generator=None):
    return _random_kernel(self, None, to, generator=generator)


# ``random_(to)`` means ``[0, to)``; each overload records its own node name, as in PyTorch.
_random = native_function(
    "random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)",
    "random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)",
    "random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)",
    kernel=_random_kernel,
    kernels={"random_.to": _random_to_kernel},
    derivatives={
        "random_.from": _sampled("RandomBackward0", "self"),
        "random_.to": _sampled("RandomBackward1", "self"),
        "random_": _sampled("RandomBackward2", "self"),
    },
    variants="",
)


# --- factories: allocate, then sample into the new tensor -------------------------------


def _empty(size, dtype, device) -> Tensor:
    check_device(device)
    check_nonnegative(size)
    check_storage_nbytes(size, dtype.itemsize)
    return Tensor._from_array(np.empty(size, dtype=dtype.numpy), dtype)


def _resized(out: Tensor, size) -> Tensor:
    # ``out.resize_(size)``: its checks, not the factory's, judge ``size``.
    resize_output(out, size)
    return out


def _long_unless(dtype):
    """``ScalarType? dtype=long``: int64 unless another dtype was asked for."""
    return INT64 if dtype is None else dtype


# Each factory has an overload with a ``Generator? generator`` that must be given (by
# keyword) and one without it; the parser tries them in the order declared.


def _sampling_kernels(sampler, kernel_name: str):
    """The kernels of ``rand``/``randn``: allocate (or resize ``out``), then sample into it."""

    def kernel(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
        return sampler(_empty(size, dtype or get_default_dtype(), device), generator=generator)

    def out_kernel(size, *, generator=None, out, **options):
        _check_floating(kernel_name, out._dtype)  # fail before resizing
        return sampler(_resized(out, size), generator=generator)

    return kernel, out_kernel


_rand_kernel, _rand_out_kernel = _sampling_kernels(_uniform_kernel, "check_uniform_bounds")
_randn_kernel, _randn_out_kernel = _sampling_kernels(_normal_kernel, "normal_kernel_cpu")


rand = native_function(
    "rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor",
    "rand.generator(SymInt[] size, *, Generator? generator, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "rand.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    "rand.generator_out(SymInt[] size, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)",
    kernel=_rand_kernel,
    kernels={"rand.generator_out": _rand_out_kernel, "rand.out": _rand_out_kernel},
    variants="function",
    doc="``torch.rand(*size)``: uniform on ``[0, 1)`` (``rand(2, 3)`` or ``rand((2, 3))``).",
)  # fmt: skip
randn = native_function(
    "randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor",
    "randn.generator(SymInt[] size, *, Generator? generator, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "randn.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    "randn.generator_out(SymInt[] size, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)",
    kernel=_randn_kernel,
    kernels={"randn.generator_out": _randn_out_kernel, "randn.out": _randn_out_kernel},
    variants="function",
    doc="``torch.randn(*size)``: standard normal (complex: each part has variance 1/2).",
)  # fmt: skip


def _randint_kernel(low, high, size, *, generator=None, dtype=None, layout=None, device=None,
                    pin_memory=None):  # fmt: skip
    result = _empty(size, _long_unless(dtype), device)
    return _random_kernel(result, low, high, generator=generator)


def _randint_out_kernel(low, high, size, *, generator=None, out, **options):
    _random_bounds(out._dtype, low, high)  # fail before resizing
    return _random_kernel(_resized(out, size), low, high, generator=generator)


def _randint_high_kernel(high, size, **options):
    return _randint_kernel(0, high, size, **options)


def _randint_high_out_kernel(high, size, **options):
    return _randint_out_kernel(0, high, size, **options)


randint = native_function(
    "randint(SymInt high, SymInt[] size, *, ScalarType? dtype=long, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "randint.generator(SymInt high, SymInt[] size, *, Generator? generator, "
    "ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor",
    "randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=long, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, "
    "ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor",
    "randint.out(SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    "randint.generator_out(SymInt high, SymInt[] size, *, Generator? generator, Tensor(a!) out) "
    "-> Tensor(a!)",
    "randint.low_out(SymInt low, SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    "randint.low_generator_out(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "randint.generator": _randint_high_kernel,
        "randint": _randint_high_kernel,
        "randint.low_generator": _randint_kernel,
        "randint.low": _randint_kernel,
        "randint.generator_out": _randint_high_out_kernel,
        "randint.out": _randint_high_out_kernel,
        "randint.low_generator_out": _randint_out_kernel,
        "randint.low_out": _randint_out_kernel,
    },
    variants="function",
    doc="``torch.randint(low=0, high, size)``: uniform integers on ``[low, high)``; int64 "
    "unless told. Called as ``randint(high, size)`` or ``randint(low, high, size)``.",
)  # fmt: skip


def _randperm_values(n: int, dtype, rng) -> np.ndarray:
    if dtype.category in (BOOL, COMPLEX):
        raise _not_implemented("randperm", dtype)
    if dtype.numpy == np.float16 and n > 2049:
        raise RuntimeError("n cannot be greater than 2049 for Half type.")
    if dtype.category == INTEGRAL and n > 0 and n - 1 > np.iinfo(dtype.numpy).max:
        raise RuntimeError(
            f"value cannot be converted to type {C_TYPE_NAMES[dtype.name]} without overflow"
        )
    return rng.permutation(n).astype(dtype.numpy)


def _randperm_kernel(n, *, generator=None, dtype=None, layout=None, device=None,
                     pin_memory=None):  # fmt: skip
    n = _int64(n)
    check_nonnegative((n,))
    check_device(device)
    dtype = _long_unless(dtype)
    check_storage_nbytes((n,), dtype.itemsize)  # ``at::empty(n)`` before the permutation
    return Tensor._from_array(_randperm_values(n, dtype, _numpy_generator(generator)), dtype)


def _randperm_out_kernel(n, *, generator=None, out, **options):
    n = _int64(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")  # sic: PyTorch's words
    values = _randperm_values(n, out._dtype, _numpy_generator(generator))
    return _write(_resized(out, (n,)), values)


randperm = native_function(
    "randperm(SymInt n, *, ScalarType? dtype=long, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor",
    "randperm.generator(SymInt n, *, Generator? generator, ScalarType? dtype=long, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "randperm.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)",
    "randperm.generator_out(SymInt n, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)",
    kernel=_randperm_kernel,
    kernels={"randperm.generator_out": _randperm_out_kernel, "randperm.out": _randperm_out_kernel},
    variants="function",
    doc="``torch.randperm``: a random permutation of ``0 .. n-1`` (int64 unless told).",
)  # fmt: skip


# --- normal: four overloads, tensor or float mean and std ---------------------------------


def _check_std_real(std: Tensor) -> None:
    if std._dtype.category == COMPLEX:
        raise RuntimeError("normal expects standard deviation to be non-complex")


def _check_std_tensor(std: Tensor) -> None:
    """``CHECK_NORMAL_TENSOR_STD``: a real std, every element >= 0 (NaN is not)."""
    _check_std_real(std)
    if std.numel() and not bool(np.all(std._array >= 0)):
        raise RuntimeError("normal expects all elements of std >= 0.0")


# The ``normal`` overloads with a tensor mean or std are ``normal_out_impl``: standard
# normals written into the (resized) output, then scaled by ``std`` and shifted by ``mean``
# in place. The functional overloads allocate that output as PyTorch does: contiguous, of
# ``mean``'s dtype (``std``'s when ``mean`` is a number), of the broadcast shape (0-d when
# both are 0-d), so a Long output is refused by ``normal_``'s dtype check.


def _normal_tensor_tensor_out(mean: Tensor, std: Tensor, *, generator=None, out: Tensor):
    _check_std_tensor(std)
    resize_output(out, broadcast_shapes(mean._size, std._size))
    _normal_kernel(out, 0.0, 1.0, generator=generator)
    return out.mul_(std).add_(mean)


def _normal_tensor_float_out(mean: Tensor, std=1.0, *, generator=None, out: Tensor):
    _check_std(float(std))
    # PyTorch broadcasts ``mean`` with a tensor shaped like ``out`` (its ``std`` tensor),
    # so ``out``'s own shape takes part: a 0-d mean fills all of a (2, 2) ``out``.
    resize_output(out, broadcast_shapes(mean._size, out._size))
    _normal_kernel(out, 0.0, std, generator=generator)
    return out.add_(mean)


def _normal_float_tensor_out(mean, std: Tensor, *, generator=None, out: Tensor):
    _check_std_tensor(std)
    resize_output(out, std._size)
    _normal_kernel(out, 0.0, 1.0, generator=generator)
    return out.mul_(std).add_(float(mean))


def _normal_tensor_tensor(mean: Tensor, std: Tensor, *, generator=None) -> Tensor:
    _check_std_tensor(std)
    out = _empty(broadcast_shapes(mean._size, std._size), mean._dtype, None)
    return _normal_tensor_tensor_out(mean, std, generator=generator, out=out)


def _normal_tensor_float(mean: Tensor, std=1.0, *, generator=None) -> Tensor:
    _check_std(float(std))
    out = _empty(mean._size, mean._dtype, None)
    return _normal_tensor_float_out(mean, std, generator=generator, out=out)


def _normal_float_tensor(mean, std: Tensor, *, generator=None) -> Tensor:
    _check_std_tensor(std)
    out = _empty(std._size, std._dtype, None)
    return _normal_float_tensor_out(mean, std, generator=generator, out=out)


def _normal_size_kernel(mean, std, size, *, generator=None, dtype=None, layout=None,
                        device=None, pin_memory=None):  # fmt: skip
    dtype = dtype or get_default_dtype()
    if check_device(device, meta=True).type == "meta":
        # Nothing to draw (the generator stays where it is); the checks ``normal_`` makes.
        check_nonnegative(size)
        _check_std(float(std))
        _check_floating("normal_kernel_cpu", dtype)
        return empty_meta(tuple(size), contiguous_strides(tuple(size)), dtype)
    result = _empty(size, dtype, device)
    return _normal_kernel(result, mean, std, generator=generator)


def _normal_size_out_kernel(mean, std, size, *, generator=None, out, **options):
    # ``out.resize_(size)``, then ``out.normal_(mean, std)`` and its checks.
    return _normal_kernel(_resized(out, size), mean, std, generator=generator)


# ``normal_`` fills a tensor; the ``normal`` overloads make one, the result of the
# broadcast mean and std tensors, or of ``size`` for two numbers.
normal = native_function(
    "normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor",
    "normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> Tensor",
    "normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor",
    "normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, "
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor",
    "normal.Tensor_Tensor_out(Tensor mean, Tensor std, *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    "normal.Tensor_float_out(Tensor mean, float std=1, *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    "normal.float_Tensor_out(float mean, Tensor std, *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    "normal.float_float_out(float mean, float std, SymInt[] size, *, "
    "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
    "normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) "
    "-> Tensor(a!)",
    kernels={
        "normal.Tensor_Tensor": _normal_tensor_tensor,
        "normal.Tensor_float": _normal_tensor_float,
        "normal.float_Tensor": _normal_float_tensor,
        "normal.float_float": _normal_size_kernel,
        "normal.Tensor_Tensor_out": _normal_tensor_tensor_out,
        "normal.Tensor_float_out": _normal_tensor_float_out,
        "normal.float_Tensor_out": _normal_float_tensor_out,
        "normal.float_float_out": _normal_size_out_kernel,
        "normal_": _normal_kernel,
    },
    derivatives={
        "normal_": _sampled("NormalBackward0", "self"),
        "normal.Tensor_float": _sampled("NormalBackward1", "mean"),
        "normal.float_Tensor": _sampled("NormalBackward2", "std"),
        "normal.Tensor_Tensor": _sampled("NormalBackward3", "mean", "std"),
    },
    variants="function",
    doc="``torch.normal``: normal samples with a mean and a standard deviation. Either may "
    "be a tensor (the result has their broadcast shape); with two numbers, ``size`` gives "
    "the shape.",
)  # fmt: skip


# --- bernoulli and multinomial ------------------------------------------------------------


def _bernoulli_kernel(self, *, generator=None):
    _check_bernoulli_self(self)
    _check_probability_tensor(self)
    result = Tensor._from_array(np.empty(self._size, dtype=self._dtype.numpy), self._dtype)
    rng = _numpy_generator(generator)
    return _write(result, _bernoulli_values(rng, self._size, self._array))


def _bernoulli_p_kernel(self, p, *, generator=None):
    result = Tensor._from_array(np.empty(self._size, dtype=self._dtype.numpy), self._dtype)
    return _bernoulli_float_kernel(result, p, generator=generator)


def _like_self_any_dtype(self, **_options) -> tuple:
    return self._size, None


def _check_bernoulli_out_dtypes(self, *, generator=None, out) -> None:
    _check_bernoulli_self(out)
    _check_probability_tensor_dtype(self)


# ``bernoulli_out_impl``: ``out.resize_(self.sizes())`` (no warning; any dtype), then the
# in-place sampler's checks: no element of ``out`` shared, and ``out`` is ``self`` or apart
# from it, then the dtypes ``out`` and ``self`` are dispatched on, before the
# probabilities are read.
_bernoulli_out = out_wrapper(
    _bernoulli_kernel,
    check_cast=False,
    meta=_like_self_any_dtype,
    warn_resize=False,
    resized_checks=(Overlap(internal=True, partial=("self",)), _check_bernoulli_out_dtypes),
)


def _no_bernoulli_p_derivative(grad, saved):
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


# 1 with probability ``input`` (elementwise), or ``p`` everywhere; ``Tensor.bernoulli_``
# fills a tensor with probability ``p`` (a number or a tensor).
bernoulli = native_function(
    "bernoulli(Tensor self, *, Generator? generator=None) -> Tensor",
    "bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
    "bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)",
    "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)",
    "bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
    kernels={
        "bernoulli": _bernoulli_kernel,
        "bernoulli.out": _bernoulli_out,
        "bernoulli_.Tensor": _bernoulli_tensor_kernel,
        "bernoulli_.float": _bernoulli_float_kernel,
        "bernoulli.p": _bernoulli_p_kernel,
    },
    derivatives={
        "bernoulli": _sampled("BernoulliBackward0", "self"),
        "bernoulli_.Tensor": _sampled("BernoulliBackward1", "self", "p"),
        "bernoulli_.float": _sampled("BernoulliBackward2", "self"),
        # PyTorch records a node for ``bernoulli(p=...)`` but has no formula: backward raises.
        "bernoulli.p": Derivative("NotImplemented", grads={"self": _no_bernoulli_p_derivative}),
    },
    doc="``torch.bernoulli``: 1 with probability ``input`` (elementwise), or ``p`` everywhere.",
)


def _check_multinomial_dim(self: Tensor) -> None:
    if self.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")


def _check_multinomial_out(out: Tensor) -> None:
    if out._dtype is not INT64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out._dtype.scalar_name}")


def _multinomial_out_kernel(self, num_samples, replacement=False, *, generator=None, out):
    """``multinomial_out``: the checks (``out`` must be int64), ``out.resize_`` (no
    warning), and nothing more to check or draw if there is nothing to sample."""
    num_samples = _int64(num_samples)
    _check_multinomial_dim(self)
    if self._dtype.category != FLOATING:
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{self._dtype.scalar_name}"
        )
    _check_multinomial_out(out)
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = self._size[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    resize_output(out, (*self._size[:-1], num_samples), warn=False)
    if out.numel() == 0:
        return out
    return _write(out, _multinomial_samples(self, num_samples, replacement, generator))


def _multinomial_kernel(self, num_samples, replacement=False, *, generator=None):
    """``multinomial``: ``multinomial_out`` into a new int64 tensor, as PyTorch writes it."""
    out = Tensor._from_array(np.empty(0, dtype=np.int64), INT64)
    return _multinomial_out_kernel(self, num_samples, replacement, generator=generator, out=out)


def _multinomial_samples(self, num_samples, replacement, generator) -> np.ndarray:
    """Indices drawn from each row of ``self`` with probabilities its weights."""
    categories = self._size[-1]
    weights = np.atleast_2d(self._array).astype(np.float64)
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = weights.sum(axis=1)
    if np.any(totals <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _numpy_generator(generator)
    rows = [rng.choice(categories, size=num_samples, replace=replacement, p=row / total)
            for row, total in zip(weights, totals, strict=True)]  # fmt: skip
    return np.array(rows, dtype=np.int64).reshape(*self._size[:-1], num_samples)


multinomial = native_function(
    "multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, "
    "Generator? generator=None) -> Tensor",
    "multinomial.out(Tensor self, SymInt num_samples, bool replacement=False, *, "
    "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
    kernels={"multinomial": _multinomial_kernel, "multinomial.out": _multinomial_out_kernel},
    kind=NONDIFFERENTIABLE,  # indices: integers
    doc="``torch.multinomial``: indices drawn with probabilities proportional to each row.",
)  # fmt: skip


# --- *_like -------------------------------------------------------------------------


def _like(self, dtype, device, memory_format) -> Tensor:
    """A new tensor of ``self``'s shape (and dense layout, unless contiguous is asked for),
    where ``self`` is unless told (``rand_like(meta_tensor)`` is a meta tensor)."""
    where = self.device if device is None else check_device(device, meta=True)
    allocate = empty_meta if where.type == "meta" else Tensor._empty_strided
    return allocate(self._size, strides_like(self, memory_format), dtype or self._dtype)


# On the meta device nothing is drawn: the checks PyTorch's meta samplers make (none for
# ``uniform_`` and ``random_``, the dtype for ``normal_``) and the empty result.


def _rand_like_kernel(self, *, generator=None, dtype=None, layout=None, device=None,
                      pin_memory=None, memory_format=None):  # fmt: skip
    result = _like(self, dtype, device, memory_format)
    return result if result.is_meta else _uniform_kernel(result, generator=generator)


def _randn_like_kernel(self, *, generator=None, dtype=None, layout=None, device=None,
                       pin_memory=None, memory_format=None):  # fmt: skip
    result = _like(self, dtype, device, memory_format)
    if result.is_meta:
        _check_floating("normal_kernel_cpu", result._dtype)
        return result
    return _normal_kernel(result, generator=generator)


def _randint_like_kernel(self, low, high, *, generator=None, dtype=None, layout=None,
                         device=None, pin_memory=None, memory_format=None):  # fmt: skip
    result = _like(self, dtype, device, memory_format)
    return result if result.is_meta else _random_kernel(result, low, high, generator=generator)


def _randint_like_high_kernel(self, high, **options):
    return _randint_like_kernel(self, 0, high, **options)


def _randint_like_tensor_kernel(self, high, **options):
    if high.dim() != 0:
        raise RuntimeError("high must be a scalar tensor and on CPU")
    return _randint_like_kernel(self, 0, int(high.item()), **options)


# ``*_like`` samplers read only the shape and dtype of ``self``: nothing to differentiate.
rand_like = native_function(
    "rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "rand_like.generator(Tensor self, *, Generator? generator, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None) -> Tensor",
    kernel=_rand_like_kernel,
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.rand_like``: ``rand`` with ``input``'s shape, dtype and (dense) layout.",
)  # fmt: skip
randn_like = native_function(
    "randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "randn_like.generator(Tensor self, *, Generator? generator, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None) -> Tensor",
    kernel=_randn_like_kernel,
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.randn_like``: ``randn`` with ``input``'s shape, dtype and (dense) layout.",
)  # fmt: skip
randint_like = native_function(
    "randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None) -> Tensor",
    "randint_like.low_generator_dtype(Tensor self, SymInt low, SymInt high, *, "
    "Generator? generator, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "randint_like.Tensor(Tensor self, Tensor high, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None) -> Tensor",
    "randint_like.Tensor_generator(Tensor self, Tensor high, *, Generator? generator, "
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None) -> Tensor",
    "randint_like(Tensor self, SymInt high, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "randint_like.generator(Tensor self, SymInt high, *, Generator? generator, "
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None) -> Tensor",
    kernels={
        "randint_like.low_generator_dtype": _randint_like_kernel,
        "randint_like.low_dtype": _randint_like_kernel,
        "randint_like.Tensor_generator": _randint_like_tensor_kernel,
        "randint_like.Tensor": _randint_like_tensor_kernel,
        "randint_like.generator": _randint_like_high_kernel,
        "randint_like": _randint_like_high_kernel,
    },
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.randint_like(input, low=0, high)``: ``randint`` with ``input``'s shape and "
    "dtype.",
)  # fmt: skip
