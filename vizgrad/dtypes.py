"""Data types: PyTorch's ``torch.dtype`` (c10's ``ScalarType``).

A dtype names how the bytes of a storage are read. Each vizgrad dtype wraps the NumPy
dtype that holds its elements, and knows the facts type promotion needs: its
category (bool < integral < floating < complex), its size, its sign.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "dtype",
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "get_default_dtype",
    "set_default_dtype",
    "finfo",
    "iinfo",
]

_builtin_bool = bool


class dtype:  # noqa: N801 - the PyTorch name
    """One element type, as ``torch.dtype``: ``vizgrad.float32``, ``vizgrad.int64``…

    ``scalar_name`` is the name PyTorch's C++ core uses in error messages
    (``Float``, ``Long``…), so our messages read like PyTorch's.
    """

    __slots__ = ("name", "numpy", "scalar_name", "category", "itemsize", "is_signed")

    def __init__(self, name: str, numpy_dtype, scalar_name: str, category: int):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.scalar_name = scalar_name
        # 0 bool, 1 integral, 2 floating, 3 complex: the order promotion climbs.
        self.category = category
        self.itemsize = self.numpy.itemsize
        self.is_signed = name not in ("bool", "uint8")

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOATING

    @property
    def is_complex(self) -> bool:
        return self.category == COMPLEX

    def to_real(self) -> dtype:
        """``complex64 -> float32``; other dtypes are their own real type."""
        return _COMPLEX_TO_REAL.get(self, self)

    def to_complex(self) -> dtype:
        """``float64 -> complex128``; ``float16``/``float32 -> complex64``."""
        return _REAL_TO_COMPLEX.get(self, self)

    def __repr__(self) -> str:
        return f"vizgrad.{self.name}"

    def __reduce__(self):
        return self.name  # pickles/copies as the module-level singleton


BOOL, INTEGRAL, FLOATING, COMPLEX = 0, 1, 2, 3

bool = dtype("bool", np.bool_, "Bool", BOOL)  # noqa: A001 - PyTorch's name
uint8 = dtype("uint8", np.uint8, "Byte", INTEGRAL)
int8 = dtype("int8", np.int8, "Char", INTEGRAL)
int16 = dtype("int16", np.int16, "Short", INTEGRAL)
int32 = dtype("int32", np.int32, "Int", INTEGRAL)
int64 = dtype("int64", np.int64, "Long", INTEGRAL)
float16 = dtype("float16", np.float16, "Half", FLOATING)
float32 = dtype("float32", np.float32, "Float", FLOATING)
float64 = dtype("float64", np.float64, "Double", FLOATING)
complex64 = dtype("complex64", np.complex64, "ComplexFloat", COMPLEX)
complex128 = dtype("complex128", np.complex128, "ComplexDouble", COMPLEX)

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, float32, float64,
              complex64, complex128)  # fmt: skip

# PyTorch's aliases: torch.float is float32, torch.long is int64, …
ALIASES = {
    "half": float16,
    "float": float32,
    "double": float64,
    "short": int16,
    "int": int32,
    "long": int64,
    "cfloat": complex64,
    "cdouble": complex128,
}

_COMPLEX_TO_REAL = {complex64: float32, complex128: float64}
_REAL_TO_COMPLEX = {float16: complex64, float32: complex64, float64: complex128}
_FROM_NUMPY = {d.numpy: d for d in ALL_DTYPES}

# The C++ type names PyTorch's messages print for a dtype. They come in three spellings,
# because different parts of PyTorch print a type differently:
# * ``CPP_TYPE_NAMES``, the demangled C++ names ("long int", "short int"): the dtype
#   checks of out= and in-place calls ("Expected out tensor to have dtype long int",
#   cumsum's "Bad in-place call", lerp's "expected dtype … for `end`", clamp's cast
#   check) and lerp's complex-weight overflow;
# * ``C_TYPE_NAMES``, the fixed-width typedefs ("int64_t", "uint8_t"): c10's
#   ``checked_convert`` overflow message, "value cannot be converted to type int64_t
#   without overflow" (TensorIterator, fills, creation, random, wrapped scalars);
# * ``TYPEMETA_NAMES``, how ``caffe2::TypeMeta`` prints ("short" for int16):
#   masked_fill's "only supports boolean masks, but got mask with dtype …".
CPP_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "float16": "c10::Half", "float32": "float",
    "float64": "double", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}  # fmt: skip
C_TYPE_NAMES = {**CPP_TYPE_NAMES, "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t",
                "int64": "int64_t"}  # fmt: skip
TYPEMETA_NAMES = {**CPP_TYPE_NAMES, "int16": "short"}


def from_numpy_dtype(np_dtype) -> dtype:
    """The vizgrad dtype for a NumPy dtype; ``TypeError`` for one PyTorch lacks."""
    try:
        return _FROM_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. "
            "The only supported types are: float64, float32, float16, complex64, complex128, "
            "int64, int32, int16, int8, uint8, and bool."
        ) from None


_default_dtype = float32


def get_default_dtype() -> dtype:
    """The dtype Python floats become (``torch.get_default_dtype``)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Set the dtype Python floats become; only floating dtypes are allowed, as in PyTorch."""
    global _default_dtype
    if not isinstance(d, dtype):
        raise TypeError(
            f"set_default_dtype(): argument 'd' must be vizgrad.dtype, not {type(d).__name__}"
        )
    if d not in (float16, float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_dtype = d


def default_complex_dtype() -> dtype:
    """Python complex numbers become the complex type matching the default dtype."""
    return complex128 if _default_dtype is float64 else complex64


def scalar_dtype(value) -> dtype:
    """The dtype PyTorch gives a bare Python number: bool, int64, default float, complex."""
    if isinstance(value, _builtin_bool | np.bool_):
        return bool
    if isinstance(value, int | np.integer):
        return int64
    if isinstance(value, float | np.floating):
        return _default_dtype
    if isinstance(value, complex | np.complexfloating):
        return default_complex_dtype()
    raise TypeError(f"expected a Python number, got {type(value).__name__}")


def _check_dtype_argument(name: str, value) -> None:
    if not isinstance(value, dtype):
        raise TypeError(
            f"{name}(): argument 'type' (position 1) must be vizgrad.dtype, not "
            f"{type(value).__name__}"
        )


class _TypeInfo:
    """What ``finfo`` and ``iinfo`` share: equality by the dtype they describe, and the
    printed form of ``torch/csrc/TypeInfo.cpp`` (numbers as C++ prints doubles, ``%g``)."""

    _shown: tuple[str, ...] = ()

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.dtype))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name):g}" for name in self._shown)
        return f"{type(self).__name__}({shown}, dtype={self.dtype})"


class finfo(_TypeInfo):  # noqa: N801 - the PyTorch name
    """Machine limits of a floating dtype (``torch.finfo``); a complex dtype's are those of
    its real and imaginary parts. ``resolution`` is ``10 ** -digits10``, the decimal
    precision the dtype always holds, as PyTorch computes it."""

    _shown = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")

    def __init__(self, type: dtype | None = None):  # noqa: A002 - PyTorch's name
        type = _default_dtype if type is None else type
        _check_dtype_argument("finfo", type)
        if type.category < FLOATING:
            raise TypeError(
                "vizgrad.finfo() requires a floating point input type. Use vizgrad.iinfo to "
                "handle 'vizgrad.finfo'"
            )
        info = np.finfo(type.to_real().numpy)
        self.dtype = type.to_real().name
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)


class iinfo(_TypeInfo):  # noqa: N801 - the PyTorch name
    """Limits of an integer dtype (``torch.iinfo``); ``bool`` has none."""

    _shown = ("min", "max")

    def __init__(self, type: dtype):  # noqa: A002 - PyTorch's name
        _check_dtype_argument("iinfo", type)
        if type is bool:
            raise TypeError("vizgrad.bool is not supported by vizgrad.iinfo")
        if type.category > INTEGRAL:
            raise TypeError(
                "vizgrad.iinfo() requires an integer input type. Use vizgrad.finfo to handle "
                "'vizgrad.iinfo'"
            )
        info = np.iinfo(type.numpy)
        self.dtype = type.name
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
