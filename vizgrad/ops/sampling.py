"""Random sampling: ``rand``, ``randn``, ``randint``, ``normal``… (``Distributions.cpp``).

Each distribution is one in-place *sampler* (``uniform_``, ``normal_``, ``random_``,
``bernoulli_``, ``exponential_``), as in PyTorch's ``DistributionTemplates.h``; the
factories (``rand``, ``randn``, ``randint``…) allocate a tensor and call it.
Values are drawn in the tensor's logical (row-major) order, so a transposed tensor
gets the same numbers at the same indices as a contiguous one. The numbers come from
the ``generator=`` argument, or else the default generator (``vizgrad.ops.generator``).
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from ..derivatives import NON_DIFFERENTIABLE, Derivative
from ..dispatcher import FUNCTIONAL, INPLACE, OUT
from ..dtypes import BOOL, COMPLEX, FLOATING, INTEGRAL, get_default_dtype
from ..dtypes import int64 as INT64
from ..shape import broadcast_shapes, contiguous_strides, has_internal_overlap
from ..tensor import Tensor
from .creation import (
    check_device,
    check_dtype,
    check_out_dtype,
    parse_size,
    preserve_format_strides,
    set_requires_grad,
    wants_contiguous,
)
from .generator import _numpy_generator
from .iterator import resize_output
from .ranges import _CPP_TYPE_NAME
from .registry import bind_method, check_tensor, declare

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


def _c_double(value) -> str:
    """A double as C++ streams print it (``-1``, ``1.5``)."""
    return f"{float(value):g}"


def _not_implemented(kernel_name: str, dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{dtype.scalar_name}'")


def _check_writable(self: Tensor) -> None:
    if has_internal_overlap(self._size, self._stride):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


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
    _check_floating("check_uniform_bounds", self._dtype)
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_c_double(from_)} > "
            f"to={_c_double(to)}"
        )
    _check_writable(self)
    rng = _numpy_generator(generator)
    return _write(self, _uniform_array(rng, self._size, self._dtype, from_, to))


def _check_std(std) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_c_double(std)}")


def _normal_kernel(self, mean=0.0, std=1.0, *, generator=None):
    _check_floating("normal_kernel_cpu", self._dtype)
    _check_std(std)
    _check_writable(self)
    rng = _numpy_generator(generator)
    return _write(self, _normal_array(rng, self._size, self._dtype, mean, std))


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
    if to is None:
        if from_ is None:
            return 0, high + 1
        to = high + 1
    from_ = 0 if from_ is None else from_
    if from_ >= to:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
        )
    cpp = _CPP_TYPE_NAME[dtype.name]
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
            warnings.warn(
                f"to - 1 is out of bounds [-(2^{np.finfo(dtype.numpy).nmant + 1}), "
                f"2^{np.finfo(dtype.numpy).nmant + 1}]. Due to precision limitations {cpp} can "
                "support discrete uniform distribution only within this range. This warning "
                "will become an error in version 1.7 release, please fix the code in advance",
                UserWarning,
                stacklevel=5,
            )
    return from_, to


def _random_kernel(self, from_=None, to=None, *, generator=None):
    low, high = _random_bounds(self._dtype, from_, to)
    _check_writable(self)
    rng = _numpy_generator(generator)
    # NumPy's integers() wants high <= 2**63; the one range beyond is int64's full range.
    values = rng.integers(low, min(high, 2**63), size=self._size, dtype=np.int64)
    return _write(self, values.astype(self._dtype.numpy))


def _check_probability(p) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_c_double(p)}")


def _bernoulli_values(rng, shape, p) -> np.ndarray:
    return rng.random(shape) < p


def _check_probability_tensor(p: Tensor) -> None:
    _check_floating("bernoulli_tensor_cpu_p_", p._dtype)
    values = p._array
    if values.size and not bool(np.all((values >= 0) & (values <= 1))):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )


def _bernoulli_float_kernel(self, p=0.5, *, generator=None):
    _check_probability(p)
    _check_writable(self)
    rng = _numpy_generator(generator)
    return _write(self, _bernoulli_values(rng, self._size, p))


def _bernoulli_tensor_kernel(self, p, *, generator=None):
    _check_probability_tensor(p)
    _check_writable(self)
    broadcast_shapes(self._size, p._size)  # p must broadcast to self
    probabilities = np.broadcast_to(p._array, self._size)
    rng = _numpy_generator(generator)
    return _write(self, _bernoulli_values(rng, self._size, probabilities))


def _exponential_kernel(self, lambd=1.0, *, generator=None):
    if self._dtype.category != FLOATING:
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {self._dtype.scalar_name}"
        )
    if not lambd > 0:
        raise RuntimeError(
            f"exponential_ expects lambda > 0.0, but found lambda={_c_double(lambd)}"
        )
    _check_writable(self)
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


_GEN = "*, Generator? generator=None"
_uniform_op = declare(f"uniform_(Tensor(a!) self, float from=0, float to=1, {_GEN}) -> Tensor(a!)",
                      INPLACE, _uniform_kernel, _sampled("UniformBackward0", "self"))  # fmt: skip
_normal_inplace_op = declare(
    f"normal_(Tensor(a!) self, float mean=0, float std=1, {_GEN}) -> Tensor(a!)",
    INPLACE,
    _normal_kernel,
    _sampled("NormalBackward0", "self"),
)
# Three overloads, as in PyTorch, so each records its own node name.
_random_ops = {
    "from": declare(f"random_.from(Tensor(a!) self, int from, int? to, {_GEN}) -> Tensor(a!)",
                    INPLACE, _random_kernel, _sampled("RandomBackward0", "self")),
    "to": declare(f"random_.to(Tensor(a!) self, int to, {_GEN}) -> Tensor(a!)", INPLACE,
                  lambda self, to, *, generator=None: _random_kernel(self, None, to,
                                                                     generator=generator),
                  _sampled("RandomBackward1", "self")),
    "": declare(f"random_(Tensor(a!) self, {_GEN}) -> Tensor(a!)", INPLACE,
                lambda self, *, generator=None: _random_kernel(self, generator=generator),
                _sampled("RandomBackward2", "self")),
}  # fmt: skip
_bernoulli_float_op = declare(
    f"bernoulli_.float(Tensor(a!) self, float p=0.5, {_GEN}) -> Tensor(a!)",
    INPLACE,
    _bernoulli_float_kernel,
    _sampled("BernoulliBackward2", "self"),
)
_bernoulli_tensor_op = declare(
    f"bernoulli_.Tensor(Tensor(a!) self, Tensor p, {_GEN}) -> Tensor(a!)",
    INPLACE,
    _bernoulli_tensor_kernel,
    _sampled("BernoulliBackward1", "self", "p"),
)
_exponential_op = declare(f"exponential_(Tensor(a!) self, float lambd=1, {_GEN}) -> Tensor(a!)",
                          INPLACE, _exponential_kernel,
                          _sampled("ExponentialBackward0", "self"))  # fmt: skip


def _float_arg(fn_name: str, value, name: str) -> float:
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, complex) or not isinstance(value, int | float | np.number):
        raise TypeError(f"{fn_name}(): argument '{name}' must be float, not {type(value).__name__}")
    return float(value)


def _int_arg(fn_name: str, value, name: str, position: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer | Tensor):
        raise TypeError(
            f"{fn_name}(): argument '{name}' (position {position}) must be int, "
            f"not {type(value).__name__}"
        )
    value = operator.index(value)
    if not -(2**63) <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return value


def _uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    """``Tensor.uniform_(from=0, to=1)``: fill with uniform values on ``[from, to)``."""
    from_ = _float_arg("uniform_", kwargs.pop("from", from_), "from")
    return _uniform_op(self, from_, _float_arg("uniform_", to, "to"), generator=generator)


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    """``Tensor.normal_(mean=0, std=1)``: fill with normal values."""
    mean, std = _float_arg("normal_", mean, "mean"), _float_arg("normal_", std, "std")
    return _normal_inplace_op(self, mean, std, generator=generator)


def _random_(self, from_=None, to=None, *, generator=None, **kwargs):
    """``Tensor.random_(from=0, to=None)``: uniform integers; ``random_(to)`` means ``[0, to)``."""
    from_ = kwargs.pop("from", from_)
    if from_ is not None and to is None and "from" not in kwargs:
        from_, to = None, from_  # random_(to)
    if from_ is not None:
        from_ = _int_arg("random_", from_, "from", 1)
    if to is not None:
        to = _int_arg("random_", to, "to", 2)
    if from_ is not None:
        return _random_ops["from"](self, from_, to, generator=generator)
    if to is not None:
        return _random_ops["to"](self, to, generator=generator)
    return _random_ops[""](self, generator=generator)


def _bernoulli_(self, p=0.5, *, generator=None):
    """``Tensor.bernoulli_(p=0.5)``: 1 with probability ``p`` (a number or a tensor), else 0."""
    if isinstance(p, Tensor):
        return _bernoulli_tensor_op(self, p, generator=generator)
    return _bernoulli_float_op(self, _float_arg("bernoulli_", p, "p"), generator=generator)


def _exponential_(self, lambd=1.0, *, generator=None):
    """``Tensor.exponential_(lambd=1)``: exponential values with rate ``lambd``."""
    return _exponential_op(self, _float_arg("exponential_", lambd, "lambd"), generator=generator)


bind_method("uniform_", _uniform_)
bind_method("normal_", _normal_)
bind_method("random_", _random_)
bind_method("bernoulli_", _bernoulli_)
bind_method("exponential_", _exponential_)


# --- factories: allocate, then sample into the new tensor -------------------------------


def _sampling_factory(name: str, sampler, dtype_check=None):
    """Declare ``name`` and ``name.generator_out`` as allocate-then-sample operators."""

    def kernel(size, *params, generator=None, dtype):
        result = Tensor._from_array(np.empty(size, dtype=dtype.numpy), dtype)
        return sampler(result, *params, generator=generator)

    def out_kernel(size, *params, generator=None, out):
        if dtype_check is not None:
            dtype_check(out._dtype, *params)  # fail before resizing
        resize_output(out, size)
        return sampler(out, *params, generator=generator)

    functional = declare(f"{name}.generator(SymInt[] size, *, Generator? generator, "
                         "ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                         "bool? pin_memory=None) -> Tensor", FUNCTIONAL, kernel)  # fmt: skip
    out = declare(f"{name}.generator_out(SymInt[] size, *, Generator? generator, "
                  "Tensor(a!) out) -> Tensor(a!)", OUT, out_kernel)  # fmt: skip
    return functional, out


_rand_op, _rand_out_op = _sampling_factory(
    "rand", _uniform_kernel, lambda d: _check_floating("check_uniform_bounds", d)
)
_randn_op, _randn_out_op = _sampling_factory(
    "randn", _normal_kernel, lambda d: _check_floating("normal_kernel_cpu", d)
)


def _random_factory(fn_name, functional_op, out_op, size, kwargs):
    """The shared front of ``rand``/``randn``: size, dtype, device, out=, requires_grad."""
    generator = kwargs.pop("generator", None)
    out = kwargs.pop("out", None)
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    requires_grad = kwargs.pop("requires_grad", False)
    kwargs.pop("layout", None)
    kwargs.pop("pin_memory", None)
    shape = parse_size(fn_name, size, kwargs.pop("size", None))
    if kwargs:
        raise TypeError(f"{fn_name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    check_dtype(fn_name, dtype)
    check_device(device)
    _numpy_generator(generator)
    if out is not None:
        check_tensor(fn_name, out, "out", 2)
        check_out_dtype(out, dtype)
        return out_op(shape, generator=generator, out=out)
    result = functional_op(shape, generator=generator, dtype=dtype or get_default_dtype())
    return set_requires_grad(result, requires_grad)


def rand(*size, **kwargs) -> Tensor:
    """``torch.rand``: uniform on ``[0, 1)``.

    Keywords: ``generator``, ``out``, ``dtype``, ``device``, ``requires_grad``, ``size``.
    """
    return _random_factory("rand", _rand_op, _rand_out_op, size, kwargs)


def randn(*size, **kwargs) -> Tensor:
    """``torch.randn``: standard normal (complex: each part has variance 1/2).

    Keywords: ``generator``, ``out``, ``dtype``, ``device``, ``requires_grad``, ``size``.
    """
    return _random_factory("randn", _randn_op, _randn_out_op, size, kwargs)


def _randint_kernel(low, high, size, *, generator=None, dtype):
    result = Tensor._from_array(np.empty(size, dtype=dtype.numpy), dtype)
    return _random_kernel(result, low, high, generator=generator)


def _randint_out_kernel(low, high, size, *, generator=None, out):
    _random_bounds(out._dtype, low, high)
    resize_output(out, size)
    return _random_kernel(out, low, high, generator=generator)


_randint_op = declare(
    "randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, "
    "ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor",
    FUNCTIONAL,
    _randint_kernel,
)
_randint_out_op = declare(
    "randint.low_generator_out(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, "
    "Tensor(a!) out) -> Tensor(a!)",
    OUT,
    _randint_out_kernel,
)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.randint(low=0, high, size)``: uniform integers on ``[low, high)``; int64 unless told.

    Called as ``randint(high, size)`` or ``randint(low, high, size)``.
    """
    high_position = 2
    if size is None and isinstance(high, tuple | list):  # randint(high, size)
        low, high, size, high_position = 0, low, high, 1
    elif high is None:  # randint(high, size=...)
        low, high, high_position = 0, low, 1
    if size is None:
        if high is not None and high_position == 2:
            raise TypeError(
                f"randint(): argument 'size' (position 2) must be tuple of ints, not "
                f"{type(high).__name__}"
            )
        raise TypeError("randint() received an invalid combination of arguments - got (int)")
    if not isinstance(size, tuple | list):
        raise TypeError(
            f"randint(): argument 'size' (position 3) must be tuple of ints, not "
            f"{type(size).__name__}"
        )
    high = _int_arg("randint", high, "high", high_position)
    low = _int_arg("randint", low, "low", 1)
    shape = parse_size("randint", (size,))
    check_dtype("randint", dtype)
    check_device(device)
    _numpy_generator(generator)
    if out is not None:
        check_tensor("randint", out, "out", 4)
        check_out_dtype(out, dtype)
        return _randint_out_op(low, high, shape, generator=generator, out=out)
    result = _randint_op(low, high, shape, generator=generator, dtype=dtype or INT64)
    return set_requires_grad(result, requires_grad)


def _randperm_values(n: int, dtype, rng) -> np.ndarray:
    if dtype.category in (BOOL, COMPLEX):
        raise _not_implemented("randperm", dtype)
    if dtype.numpy == np.float16 and n > 2049:
        raise RuntimeError("n cannot be greater than 2049 for Half type.")
    if dtype.category == INTEGRAL and n > 0 and n - 1 > np.iinfo(dtype.numpy).max:
        from ..dtypes import C_TYPE_NAMES

        raise RuntimeError(
            f"value cannot be converted to type {C_TYPE_NAMES[dtype.name]} without overflow"
        )
    return rng.permutation(n).astype(dtype.numpy)


def _randperm_kernel(n, *, generator=None, dtype):
    values = _randperm_values(n, dtype, _numpy_generator(generator))
    return Tensor._from_array(values, dtype)


def _randperm_out_kernel(n, *, generator=None, out):
    values = _randperm_values(n, out._dtype, _numpy_generator(generator))
    resize_output(out, (n,))
    return _write(out, values)


_randperm_op = declare(
    "randperm.generator(SymInt n, *, Generator? generator, ScalarType? dtype=long, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    FUNCTIONAL,
    _randperm_kernel,
)
_randperm_out_op = declare(
    "randperm.generator_out(SymInt n, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)",
    OUT,
    _randperm_out_kernel,
)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.randperm``: a random permutation of ``0 .. n-1`` (int64 unless told)."""
    n = _int_arg("randperm", n, "n", 1)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    check_dtype("randperm", dtype)
    check_device(device)
    _numpy_generator(generator)
    if out is not None:
        check_tensor("randperm", out, "out", 2)
        check_out_dtype(out, dtype)
        return _randperm_out_op(n, generator=generator, out=out)
    result = _randperm_op(n, generator=generator, dtype=dtype or INT64)
    return set_requires_grad(result, requires_grad)


# --- normal: four overloads, tensor or float mean and std ---------------------------------


def _normal_from_tensors(mean, std, generator) -> Tensor:
    """Draw standard normals of the broadcast shape, then scale: ``mean + std * z``.

    The result has the dtype of ``mean`` when it is a tensor, else of ``std``.
    """
    tensors = [x for x in (mean, std) if isinstance(x, Tensor)]
    dtype = tensors[0]._dtype
    _check_floating("normal_kernel_cpu", dtype)
    if isinstance(std, Tensor):
        if std.numel() and not bool(np.all(std._array >= 0)):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _check_std(std)
    shape = broadcast_shapes(*(t._size for t in tensors))
    rng = _numpy_generator(generator)
    standard = _normal_array(rng, shape, dtype)
    mean_values = mean._array if isinstance(mean, Tensor) else mean
    std_values = std._array if isinstance(std, Tensor) else std
    with np.errstate(all="ignore"):
        values = (mean_values + std_values * standard).astype(dtype.numpy)
    return Tensor._from_array(np.ascontiguousarray(values), dtype)


def _normal_tensor_kernel(mean, std, *, generator=None):
    return _normal_from_tensors(mean, std, generator)


def _normal_tensor_out_kernel(mean, std, *, generator=None, out):
    from .registry import write_to_out

    return write_to_out(_normal_from_tensors(mean, std, generator), out)


def _normal_size_kernel(mean, std, size, *, generator=None, dtype):
    result = Tensor._from_array(np.empty(size, dtype=dtype.numpy), dtype)
    return _normal_kernel(result, mean, std, generator=generator)


def _normal_size_out_kernel(mean, std, size, *, generator=None, out):
    _check_floating("normal_kernel_cpu", out._dtype)
    _check_std(std)
    resize_output(out, size)
    return _normal_kernel(out, mean, std, generator=generator)


_normal_overloads = {
    (True, True): ("Tensor_Tensor", "Tensor mean, Tensor std"),
    (True, False): ("Tensor_float", "Tensor mean, float std=1"),
    (False, True): ("float_Tensor", "float mean, Tensor std"),
}
_NORMAL_DERIVATIVES = {
    "Tensor_float": _sampled("NormalBackward1", "mean"),
    "float_Tensor": _sampled("NormalBackward2", "std"),
    "Tensor_Tensor": _sampled("NormalBackward3", "mean", "std"),
}
_normal_ops = {
    key: (
        declare(
            f"normal.{name}({params}, {_GEN}) -> Tensor",
            FUNCTIONAL,
            _normal_tensor_kernel,
            _NORMAL_DERIVATIVES[name],
        ),
        declare(
            f"normal.{name}_out({params}, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
            OUT,
            _normal_tensor_out_kernel,
        ),  # fmt: skip
    )
    for key, (name, params) in _normal_overloads.items()
}
_normal_size_op = declare(
    f"normal.float_float(float mean, float std, SymInt[] size, {_GEN}, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    FUNCTIONAL,
    _normal_size_kernel,
)
_normal_size_out_op = declare(
    f"normal.float_float_out(float mean, float std, SymInt[] size, {_GEN}, Tensor(a!) out) "
    "-> Tensor(a!)",
    OUT,
    _normal_size_out_kernel,
)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.normal``: normal samples with a mean and a standard deviation.

    Either may be a tensor (the result has their broadcast shape and promoted dtype);
    with two numbers, ``size`` gives the shape.
    """
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    _numpy_generator(generator)
    if not (mean_is_tensor or std_is_tensor):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            f"({type(mean).__name__}, {type(std).__name__})")  # fmt: skip
        mean, std = _float_arg("normal", mean, "mean"), _float_arg("normal", std, "std")
        shape = parse_size("normal", (size,))
        check_dtype("normal", dtype)
        check_device(device)
        if out is not None:
            check_tensor("normal", out, "out", 4)
            return _normal_size_out_op(mean, std, shape, generator=generator, out=out)
        dtype = dtype or get_default_dtype()
        _check_floating("normal_kernel_cpu", dtype)
        result = _normal_size_op(mean, std, shape, generator=generator, dtype=dtype)
        return set_requires_grad(result, requires_grad)
    if not mean_is_tensor:
        mean = _float_arg("normal", mean, "mean")
    if not std_is_tensor:
        std = _float_arg("normal", std, "std")
    functional_op, out_op = _normal_ops[(mean_is_tensor, std_is_tensor)]
    if out is not None:
        check_tensor("normal", out, "out", 3)
        return out_op(mean, std, generator=generator, out=out)
    return functional_op(mean, std, generator=generator)


# --- bernoulli and multinomial ------------------------------------------------------------


def _bernoulli_kernel(self, *, generator=None):
    _check_probability_tensor(self)
    result = Tensor._from_array(np.empty(self._size, dtype=self._dtype.numpy), self._dtype)
    rng = _numpy_generator(generator)
    return _write(result, _bernoulli_values(rng, self._size, self._array))


def _bernoulli_p_kernel(self, p, *, generator=None):
    result = Tensor._from_array(np.empty(self._size, dtype=self._dtype.numpy), self._dtype)
    return _bernoulli_float_kernel(result, p, generator=generator)


def _bernoulli_out_kernel(self, *, generator=None, out):
    _check_probability_tensor(self)
    resize_output(out, self._size)
    rng = _numpy_generator(generator)
    return _write(out, _bernoulli_values(rng, self._size, self._array))


def _no_bernoulli_p_derivative(grad, saved):
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


_bernoulli_op = declare(f"bernoulli(Tensor self, {_GEN}) -> Tensor", FUNCTIONAL, _bernoulli_kernel,
                        _sampled("BernoulliBackward0", "self"))  # fmt: skip
# PyTorch records a node for ``bernoulli(p=...)`` but has no formula: backward raises.
_bernoulli_p_op = declare(
    f"bernoulli.p(Tensor self, float p, {_GEN}) -> Tensor",
    FUNCTIONAL,
    _bernoulli_p_kernel,
    Derivative("NotImplemented", grads={"self": _no_bernoulli_p_derivative}),
)
_bernoulli_out_op = declare(f"bernoulli.out(Tensor self, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
                            OUT, _bernoulli_out_kernel)  # fmt: skip


def bernoulli(input, p=None, *, generator=None, out=None) -> Tensor:
    """``torch.bernoulli``: 1 with probability ``input`` (elementwise), or ``p`` everywhere."""
    check_tensor("bernoulli", input, "input", 1)
    _numpy_generator(generator)
    if p is not None:
        return _bernoulli_p_op(input, _float_arg("bernoulli", p, "p"), generator=generator)
    if out is not None:
        check_tensor("bernoulli", out, "out", 2)
        return _bernoulli_out_op(input, generator=generator, out=out)
    return _bernoulli_op(input, generator=generator)


bind_method("bernoulli", lambda self, p=None, *, generator=None, out=None: bernoulli(
    self, p, generator=generator, out=out))  # fmt: skip


def _multinomial_kernel(self, num_samples, replacement=False, *, generator=None):
    if self._dtype.category != FLOATING:
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{self._dtype.scalar_name}"
        )
    if self.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = self._size[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    weights = np.atleast_2d(self._array).astype(np.float64)
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = weights.sum(axis=1)
    if np.any(totals <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _numpy_generator(generator)
    rows = [rng.choice(categories, size=num_samples, replace=replacement, p=row / total)
            for row, total in zip(weights, totals, strict=True)]  # fmt: skip
    samples = np.array(rows, dtype=np.int64).reshape(*self._size[:-1], num_samples)
    return Tensor._from_array(samples, INT64)


_multinomial_op = declare(
    f"multinomial(Tensor self, int num_samples, bool replacement=False, {_GEN}) -> Tensor",
    FUNCTIONAL,
    _multinomial_kernel,
    NON_DIFFERENTIABLE,  # indices: integers
)


def multinomial(input, num_samples, replacement=False, *, generator=None) -> Tensor:
    """``torch.multinomial``: indices drawn with probabilities proportional to each row."""
    check_tensor("multinomial", input, "input", 1)
    num_samples = _int_arg("multinomial", num_samples, "num_samples", 2)
    return _multinomial_op(input, num_samples, bool(replacement), generator=generator)


# --- *_like -------------------------------------------------------------------------


def _like_sampler(sampler):
    def kernel(self, *params, generator=None, dtype, contiguous):
        stride = contiguous_strides(self._size) if contiguous else preserve_format_strides(self)
        result = Tensor._empty_strided(self._size, stride, dtype)
        return sampler(result, *params, generator=generator)

    return kernel


_LIKE = (
    "*, Generator? generator, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None"
)
# ``*_like`` samplers read only the shape and dtype of ``self``: nothing to differentiate.
_rand_like_op = declare(f"rand_like.generator(Tensor self, {_LIKE}) -> Tensor", FUNCTIONAL,
                        _like_sampler(_uniform_kernel), NON_DIFFERENTIABLE)  # fmt: skip
_randn_like_op = declare(f"randn_like.generator(Tensor self, {_LIKE}) -> Tensor", FUNCTIONAL,
                         _like_sampler(_normal_kernel), NON_DIFFERENTIABLE)  # fmt: skip
_randint_like_op = declare(
    f"randint_like.low_generator_dtype(Tensor self, SymInt low, SymInt high, {_LIKE}) -> Tensor",
    FUNCTIONAL,
    _like_sampler(_random_kernel),
    NON_DIFFERENTIABLE,
)


def _like_front(fn_name, input, dtype, device, generator):
    check_tensor(fn_name, input, "input", 1)
    check_dtype(fn_name, dtype)
    check_device(device)
    _numpy_generator(generator)
    return dtype or input._dtype


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None) -> Tensor:  # fmt: skip
    """``torch.rand_like``: ``rand`` with ``input``'s shape, dtype and (dense) layout."""
    dtype = _like_front("rand_like", input, dtype, device, generator)
    result = _rand_like_op(input, generator=generator, dtype=dtype,
                           contiguous=wants_contiguous(memory_format))  # fmt: skip
    return set_requires_grad(result, requires_grad)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None) -> Tensor:  # fmt: skip
    """``torch.randn_like``: ``randn`` with ``input``'s shape, dtype and (dense) layout."""
    dtype = _like_front("randn_like", input, dtype, device, generator)
    result = _randn_like_op(input, generator=generator, dtype=dtype,
                            contiguous=wants_contiguous(memory_format))  # fmt: skip
    return set_requires_grad(result, requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None) -> Tensor:  # fmt: skip
    """``torch.randint_like(input, low=0, high)``: ``randint`` with ``input``'s shape and dtype."""
    if high is None:
        low, high = 0, low
    dtype = _like_front("randint_like", input, dtype, device, generator)
    low = _int_arg("randint_like", low, "low", 2)
    high = _int_arg("randint_like", high, "high", 3)
    result = _randint_like_op(input, low, high, generator=generator, dtype=dtype,
                              contiguous=wants_contiguous(memory_format))  # fmt: skip
    return set_requires_grad(result, requires_grad)
