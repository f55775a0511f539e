"""The parts of a floating-point number: ``copysign``, ``nextafter``, ``ldexp``, ``frexp``.

A float is a sign, a mantissa and a power of two. These functions read or set one part:
``copysign`` takes the magnitude of one number and the sign of another (the sign of
-0.0 counts), ``nextafter`` steps to the neighbouring representable number, ``frexp``
splits ``x = mantissa * 2**exponent`` with ``0.5 <= |mantissa| < 1``, and ``ldexp``
puts them back together. (``signbit``, a test of the sign alone, is with the tests of
values in ``unary.py``.)
"""

from __future__ import annotations

import math

import numpy as np

from ..derivatives import Derivative
from ..dtypes import CPP_TYPE_NAMES, FLOATING, int32
from ..memory_overlap import assert_no_internal_overlap, assert_no_partial_overlap
from ..tensor import Tensor
from .arithmetic import mul, pow
from .creation import empty_like, strides_like, zeros_like
from .declaration import native_function
from .elementwise import elementwise
from .iterator import FLOATING_TYPES, dispatch_dtypes, resize_output
from .logical import where

__all__ = ["copysign", "nextafter", "ldexp", "ldexp_", "frexp"]


def _zero_grad(grad, saved):
    """The sign (or the direction) taken from ``other`` moves the result in steps only:
    its gradient is 0."""
    return zeros_like(grad)


# --- copysign --------------------------------------------------------------------------


@dispatch_dtypes("copysign_cpu", FLOATING_TYPES)
def _copysign_loop(out, magnitude, sign):
    np.copysign(magnitude, sign, out=out)


def _copysign_self_grad(grad, saved):
    """``copysign_tensor_self_backward``: the slope is +1 or -1, ``result / self``, taken
    to be 0 where ``self`` is 0 (where the two may differ only in the sign of zero)."""
    ratio = (saved.result / saved.self).masked_fill(saved.self == 0, 0.0)
    return grad * ratio


copysign = native_function(
    "copysign.Tensor(Tensor self, Tensor other) -> Tensor",
    "copysign_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "copysign.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "copysign.Scalar(Tensor self, Scalar other) -> Tensor",
    "copysign_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "copysign.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    # Integer (and bool) inputs compute in the default float dtype.
    kernel=elementwise(_copysign_loop, promote_integer_inputs_to_float=True),
    derivatives={
        "copysign.Tensor": Derivative(
            "CopysignBackward0",
            save=("self", "result"),
            grads={"self": _copysign_self_grad, "other": _zero_grad},
        ),
        "copysign.Scalar": Derivative(
            "CopysignBackward1", save=("self", "result"), grads={"self": _copysign_self_grad}
        ),
    },
    doc="``torch.copysign``: the magnitude of ``input`` with the sign of ``other`` (of -0.0 "
    "too); integer inputs compute in the default float dtype.",
)


# --- nextafter -------------------------------------------------------------------------


@dispatch_dtypes("nextafter_cpu", FLOATING_TYPES)
def _nextafter_loop(out, x, toward):
    np.nextafter(x, toward, out=out)


nextafter = native_function(
    "nextafter(Tensor self, Tensor other) -> Tensor",
    "nextafter_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "nextafter.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_nextafter_loop),
    # One step of the last bit: the result follows ``self`` (slope 1), unless the two
    # are equal and the result is ``other`` itself.
    derivative=Derivative(
        "NextafterBackward0",
        save=("self", "other"),
        grads={
            "self": lambda grad, saved: where(saved.self != saved.other, grad, 0),
            "other": _zero_grad,
        },
    ),
    doc="``torch.nextafter``: the next representable number after ``input`` toward "
    "``other``, in the dtype of the two (floating dtypes only).",
)


# --- ldexp: mantissa * 2**exponent -----------------------------------------------------
# CompositeExplicitAutograd in ATen: its kernels call ``mul`` and ``pow`` (below autograd),
# and the node recorded is ldexp's own.


def _ldexp_out(self, other, *, out):
    # A float result never fits an integer tensor: ldexp says so in its own words first.
    if out._dtype.category < FLOATING:
        raise RuntimeError(
            f"ldexp can't be cast to the desired output type {out._dtype.scalar_name}"
        )
    return mul(self, pow(2.0, other), out=out)


ldexp = native_function(
    "ldexp.Tensor(Tensor self, Tensor other) -> Tensor",
    "ldexp_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "ldexp.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "ldexp.Tensor": lambda self, other: mul(self, pow(2.0, other)),
        "ldexp_": lambda self, other: _ldexp_out(self, other, out=self),
        "ldexp.out": _ldexp_out,
    },
    # d(x 2^e)/dx = 2^e; d(x 2^e)/de = x 2^e ln 2 = result ln 2
    derivative=Derivative(
        "LdexpBackward0",
        save=("other", "result"),
        grads={
            "self": lambda grad, saved: grad * pow(2, saved.other).conj(),
            "other": lambda grad, saved: grad * saved.result.conj() * math.log(2.0),
        },
        complex=True,
    ),
    inplace_variants="function, method",
    doc="``torch.ldexp``: ``input * 2**other``; integer inputs give the default float dtype.",
)
ldexp_ = ldexp.inplace


# --- frexp: x = mantissa * 2**exponent -------------------------------------------------


def _check_frexp(input, out=None):
    # ATen checks the input, then the dtypes of the two tensors given to write.
    if input._dtype.category != FLOATING:
        raise RuntimeError("vizgrad.frexp() only supports floating-point dtypes")
    if out is None or len(out) != 2:
        return  # (the binding refuses a wrong count of tensors)
    mantissa, exponent = out
    if mantissa._dtype is not input._dtype:
        raise RuntimeError(
            "vizgrad.frexp() expects mantissa to have dtype "
            f"{CPP_TYPE_NAMES[input._dtype.name]} but got {CPP_TYPE_NAMES[mantissa._dtype.name]}"
        )
    if exponent._dtype is not int32:
        raise RuntimeError(
            "vizgrad.frexp() expects exponent to have int dtype but got "
            f"{CPP_TYPE_NAMES[exponent._dtype.name]}"
        )


def _frexp_into(self: Tensor, mantissa: Tensor, exponent: Tensor):
    # NumPy's frexp is C's: (±inf, 0) for ±inf, (NaN, 0) for NaN, as in PyTorch.
    np.frexp(self._array, out=(mantissa._array, exponent._array))
    return mantissa, exponent


def frexp_outputs(self: Tensor) -> tuple:
    """Both outputs are ``empty_like(input)``; the exponent is int32. (Also the meta
    kernel: ``vizgrad.ops.meta_kernels``.)"""
    return empty_like(self), empty_like(self, dtype=int32)


def frexp_set_outputs(self: Tensor, *, mantissa: Tensor, exponent: Tensor) -> tuple:
    """The TensorIterator of two outputs: each checked not to overlap itself nor (in part)
    the input, as given, then resized to the input's shape. (Also the meta kernel.)"""
    for out in (mantissa, exponent):
        assert_no_internal_overlap(out)
        assert_no_partial_overlap(out, self)
    for out in (mantissa, exponent):
        if out._size != self._size:
            resize_output(out, self._size)
            # A resized output is laid out as the iterator lays out a new one: like ``self``.
            out._set_metadata(self._size, strides_like(self), out._offset)
    return mantissa, exponent


def _frexp_kernel(self: Tensor):
    return _frexp_into(self, *frexp_outputs(self))


def _frexp_out_kernel(self: Tensor, *, mantissa: Tensor, exponent: Tensor):
    return _frexp_into(self, *frexp_set_outputs(self, mantissa=mantissa, exponent=exponent))


frexp = native_function(
    "frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)",
    "frexp.Tensor_out(Tensor self, *, Tensor(a!) mantissa, Tensor(b!) exponent) "
    "-> (Tensor(a!) mantissa, Tensor(b!) exponent)",
    kernels={"frexp.Tensor": _frexp_kernel, "frexp.Tensor_out": _frexp_out_kernel},
    check=_check_frexp,
    # x = m 2^e with e piecewise constant: dm/dx = 2^-e. The exponent has no gradient.
    derivative=Derivative(
        "FrexpBackward0",
        save=("exponent",),
        grads={"self": lambda grad, saved: grad / saved.exponent.exp2()},
        differentiable_outputs=(0,),
    ),
    doc="``torch.frexp``: ``input`` split into a mantissa in [0.5, 1) (in magnitude) and an "
    "int32 exponent, ``input = mantissa * 2**exponent``.",
)
