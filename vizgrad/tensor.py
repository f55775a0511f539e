"""The Tensor: a storage plus the metadata that reads it (``c10::TensorImpl``).

A tensor is ``(storage, size, stride, storage_offset, dtype)``. Element
``[i0, i1, ...]`` lives at storage position ``offset + i0*stride[0] + i1*stride[1] + ...``,
counted in elements of the tensor's dtype: the storage is bytes (``vizgrad.storage``),
and a tensor may read them as another dtype than they were allocated for
(``view(dtype)``, ``view_as_real``). A *view* is another tensor over the same storage
with other metadata; nothing is copied.

Two *math bits* say that the values a tensor stands for are not its bytes as they are
but their complex conjugate (``conj()``: the conjugate bit, ``is_conj()``) or their
negation (``conj().imag``: the negative bit, ``is_neg()``). Setting one is a view that
costs nothing; views keep them; anything that reads the values resolves them first:
the dispatcher's ``Conjugate`` and ``Negative`` keys for operators, and
``_resolved_array`` for the Python conversions here. Views and their base share one version counter, bumped by every in-place
write, which autograd uses to notice that a saved tensor was changed. What autograd
knows about a tensor (``grad``, ``grad_fn``, a view's base…) is one ``AutogradMeta``
object (``vizgrad.autograd_meta``), absent until autograd needs it.

Operators (``add``, ``sum``, ``view``…) are not written here: each is declared once
in ``vizgrad.ops`` with ``native_function``, which defines its methods on this class
through ``define_method`` (as torchgen fills ``TensorBase``'s method table).
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

from . import events
from .autograd_meta import AutogradMeta, DifferentiableViewMeta
from .device import channels_last, strided
from .device import device as Device
from .dtypes import CPP_TYPE_NAMES, FLOATING, INTEGRAL
from .dtypes import dtype as DType
from .grad_mode import state as _grad_state
from .printing import tensor_repr
from .shape import (
    Size,
    check_numel,
    check_storage_nbytes,
    contiguous_strides,
    is_channels_last_contiguous,
    is_contiguous,
    numel_of,
    storage_extent,
    wrap_dim,
)
from .storage import Storage
from .user_warnings import warn_at_user_code

__all__ = ["Tensor", "VersionCounter", "define_method", "python_value_watch",
           "set_legacy_constructor", "CONJ_BIT", "NEG_BIT", "SPARSE_BIT", "META_BIT", "apply_math_bits"]  # fmt: skip

_tensor_ids = itertools.count(1)

# The bits of ``Tensor._key_set``: what a tensor adds to the dense CPU default of PyTorch's
# ``DispatchKeySet``. First the math bits (PyTorch's ``Conjugate`` and ``Negative`` keys).
CONJ_BIT = 1
NEG_BIT = 2
# Not a math bit: the ``SparseCPU`` backend key of a sparse tensor (``vizgrad.sparse_tensor``).
# It shares ``_key_set`` with them because the dispatcher unions that field over the
# arguments in one scan: a call on dense tensors pays nothing for the sparse layout.
SPARSE_BIT = 4
# Not a math bit either: the ``Meta`` backend key of a tensor on the meta device
# (``vizgrad.meta_device``), which has metadata and no data.
META_BIT = 8


def apply_math_bits(array: np.ndarray, bits: int) -> np.ndarray:
    """``array`` conjugated and/or negated as ``bits`` say (a new array): the values a
    tensor with those bits stands for, or, conjugation and negation being their own
    inverses, the bytes to store for given values."""
    if bits & CONJ_BIT:
        array = np.conjugate(array)
    if bits & NEG_BIT:
        array = np.negative(array)
    return array


class _PythonValueWatch:
    """Who wants to know when a tensor becomes a Python value (``bool(t)``, ``t.item()``).

    PyTorch's conversions ask ``torch._C._get_tracing_state()`` (``tracer::isTracing()``)
    and, while ``torch.jit.trace`` records, warn that the value will be a constant of the
    trace. ``vizgrad.jit.trace`` sets ``observer`` for the length of a trace, and the
    conversions below call it with what the tensor became ("boolean", "number",
    "integer", "float", "list", "len", "iter"); ``None`` (the rule) costs one read.
    """

    __slots__ = ("observer",)

    def __init__(self):
        self.observer = None


python_value_watch = _PythonValueWatch()


class VersionCounter:
    """``c10::VariableVersion``: one counter shared by a tensor, its views and aliases."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


def strided_array(storage: Storage, dtype: DType, size, stride, offset: int) -> np.ndarray:
    """A NumPy view of ``storage``'s bytes read as ``dtype`` with the tensor's metadata.

    NumPy counts offset and strides in bytes, PyTorch in elements of the tensor's dtype.
    This is how kernels read a non-contiguous tensor without copying it, and how a
    tensor reads a storage allocated for another dtype (``view(dtype)``, ``view_as_real``).
    """
    if storage._bytes is None:
        return None  # a meta storage holds no bytes: a meta tensor has no array to read
    itemsize = dtype.itemsize
    try:
        if 0 in size:
            return np.empty(size, dtype=dtype.numpy)
        return np.ndarray(
            size,
            dtype.numpy,
            storage._bytes,
            offset * itemsize,
            tuple([s * itemsize for s in stride]),  # (a list is cheaper to build than a generator)
        )
    except ValueError:
        # NumPy refuses a negative size, and more elements than it can count in bytes.
        # PyTorch's TensorImpl counts the elements first (``safe_compute_numel``), and
        # keeps a negative size whose count a 0 makes 0 (``expand(-2, 0)``): it reads
        # nothing, as the empty array here.
        check_numel(size)
        if 0 in size:
            return np.empty(tuple(max(s, 0) for s in size), dtype=dtype.numpy)
        raise


# ``vizgrad.Tensor(...)`` called as PyTorch's legacy constructor (``torch.Tensor(2, 3)``,
# ``torch.Tensor([1, 2])``) is answered by ``vizgrad.legacy_constructors``, which needs
# the factories and installs itself here (the core cannot import them).
_legacy_constructor = None


def set_legacy_constructor(construct) -> None:
    """Install ``construct(*args, **kwargs)``, what ``Tensor(...)`` returns for user calls."""
    global _legacy_constructor
    _legacy_constructor = construct


class _TensorType(type):
    """Tensor's class: ``Tensor(storage, size, stride…)`` builds a tensor (the engine's
    internal constructor); any other call of ``Tensor`` itself is PyTorch's legacy
    constructor. Subclasses (``Parameter``) construct as usual."""

    def __call__(cls, *args, **kwargs):
        if cls is Tensor and not (args and isinstance(args[0], Storage)):
            return _legacy_constructor(*args, **kwargs)
        return super().__call__(*args, **kwargs)


# The engine's own constructions (``_from_array``, ``_empty_strided``, ``_alias``: every
# tensor a kernel makes) skip ``_TensorType.__call__``, a Python frame per tensor whose
# check they would always pass: ``type.__call__`` is what it calls for them.
_construct = type.__call__


class Tensor(metaclass=_TensorType):
    """A strided view of a storage, with autograd metadata (``torch.Tensor``).

    Create tensors with ``vizgrad.tensor``, ``zeros``, ``arange``…; the constructor
    ``Tensor(storage, size, stride…)`` is internal, and any other call is PyTorch's legacy
    constructor (``Tensor(2, 3)`` uninitialised, ``Tensor([1, 2])`` from data).
    """

    # Named where users reach it, as torch.Tensor is (``<class 'torch.Tensor'>``).
    __module__ = "vizgrad"

    __slots__ = (
        "_storage",
        "_size",
        "_stride",
        "_offset",
        "_dtype",
        "_cached_array",  # NumPy view of the storage with this metadata (see ``_array``)
        "_array_generation",  # the storage's generation when it was made
        "_contiguous",  # is_contiguous(), computed once per metadata change
        "_inference",  # made in inference mode: no version counter, no autograd
        "_id",
        "_key_set",  # CONJ_BIT | NEG_BIT (values are the bytes conjugated / negated), SPARSE_BIT, META_BIT
        "_version_counter",
        "_autograd_meta",  # AutogradMeta, or None while autograd knows nothing of it
        "__weakref__",
    )

    # Tensors win over NumPy arrays in mixed expressions (``array + tensor``).
    __array_priority__ = 1000

    def __init__(self, storage: Storage, size, stride, offset: int = 0, array=None,
                 contiguous: bool | None = None, dtype: DType | None = None):  # fmt: skip
        self._storage = storage
        self._size = size = tuple(size)
        self._stride = stride = tuple(stride)
        self._offset = offset
        # What the bytes are read as: the storage's own dtype unless told otherwise.
        self._dtype = dtype = storage.dtype if dtype is None else dtype
        if array is None:
            array = strided_array(storage, dtype, size, stride, offset)
        self._cached_array = array
        self._array_generation = storage.generation
        self._contiguous = is_contiguous(size, stride) if contiguous is None else contiguous
        self._inference = _grad_state.inference
        self._id = next(_tensor_ids)
        self._version_counter = VersionCounter()
        self._autograd_meta = None
        self._key_set = 0
        if events.bus.active and "tensor_created" in events.bus.wanted:
            events.bus.emit(
                events.TensorCreated(
                    self._id, storage._id, self._size, self._stride, offset, self._dtype.name
                )
            )

    # --- construction helpers used by kernels ---------------------------------------

    @classmethod
    def _from_array(cls, array: np.ndarray, dtype: DType | None = None) -> Tensor:
        """Wrap a freshly computed NumPy array that nothing else refers to.

        A C-contiguous array becomes the storage as it is (no copy); anything else is
        copied into a contiguous storage.
        """
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        shape = array.shape
        storage = Storage(array.reshape(-1), dtype)
        return _construct(cls, storage, shape, contiguous_strides(shape), 0, array, True)

    @classmethod
    def _new_contiguous(cls, size: tuple, dtype: DType) -> Tensor:
        """``at::empty(size)``: a new uninitialised row-major tensor (what every
        elementwise op on contiguous inputs allocates), without ``_from_array``'s checks."""
        array = np.empty(size, dtype=dtype.numpy)
        storage = Storage(array.ravel(), dtype)  # (``ravel`` of a row-major array: a view)
        return _construct(cls, storage, size, contiguous_strides(size), 0, array, True)

    @classmethod
    def _empty_strided(cls, size, stride, dtype: DType) -> Tensor:
        """``at::empty_strided``: storage just big enough for ``size``/``stride``."""
        if tuple(stride) == contiguous_strides(size):  # exactly row-major: NumPy's layout
            check_storage_nbytes(size, dtype.itemsize)
            return cls._new_contiguous(tuple(size), dtype)
        check_storage_nbytes(size, dtype.itemsize, stride)
        return _construct(cls, Storage.empty(storage_extent(size, stride), dtype), size, stride, 0)

    def _alias(self, size, stride, offset: int, dtype: DType | None = None) -> Tensor:
        """A new tensor over this tensor's storage: the body of every view op. It reads the
        bytes as this tensor's dtype, or as ``dtype`` (``view(dtype)``, ``view_as_real``)."""
        dtype = self._dtype if dtype is None else dtype
        view = _construct(Tensor, self._storage, size, stride, offset, None, None, dtype)
        view._inference = self._inference  # a view is an inference tensor iff its base is
        view._key_set = self._key_set  # and reads the values as its base does
        return view

    def _set_metadata(self, size, stride, offset: int) -> None:
        """Change how this tensor reads its storage (``as_strided_``, ``t_``, …)."""
        self._size, self._stride, self._offset = tuple(size), tuple(stride), offset
        self._contiguous = is_contiguous(self._size, self._stride)
        self._rebuild_array()

    @property
    def _array(self) -> np.ndarray:
        """The NumPy view of the storage with this tensor's metadata: what kernels read.

        It is made once and cached. If the storage swapped its buffer since (``resize_``
        grew it through another tensor), the cached array reads the old buffer: the
        storage's ``generation`` has moved on, and the array is rebuilt over the new one.
        """
        if self._array_generation == self._storage.generation:
            return self._cached_array
        return self._rebuild_array()

    def _rebuild_array(self) -> np.ndarray:
        storage = self._storage
        self._cached_array = strided_array(storage, self._dtype, self._size, self._stride,
                                           self._offset)  # fmt: skip
        self._array_generation = storage.generation
        return self._cached_array

    # --- metadata ---------------------------------------------------------------------

    def size(self, dim=None):
        if dim is None:
            return Size(self._size)
        return self._size[wrap_dim(dim, len(self._size), wrap_scalar=False)]

    @property
    def shape(self) -> Size:
        return Size(self._size)

    def stride(self, dim=None):
        if dim is None:
            return self._stride
        return self._stride[wrap_dim(dim, len(self._size), wrap_scalar=False)]

    def storage_offset(self) -> int:
        return self._offset

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def device(self) -> Device:
        return self._storage.device

    @property
    def layout(self):
        return strided

    # A strided tensor; ``vizgrad.sparse_tensor.SparseCooTensor`` says True.
    is_sparse = False

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def is_meta(self) -> bool:
        """On the meta device: metadata without data (``vizgrad.meta_device``)."""
        return bool(self._key_set & META_BIT)

    @property
    def is_cuda(self) -> bool:
        return False

    def dim(self) -> int:
        return len(self._size)

    ndim = property(dim)
    ndimension = dim

    def numel(self) -> int:
        return numel_of(self._size)

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    def is_contiguous(self, memory_format=None) -> bool:
        """Row-major; with ``memory_format=channels_last``, dense in channels-last order
        (a 4-D tensor only; size-1 dims do not count, as in PyTorch)."""
        if memory_format is channels_last:
            return is_channels_last_contiguous(self._size, self._stride)
        return self._contiguous

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    # --- the conjugate and negative bits (``TensorImpl::is_conj``, ``is_neg``) -----------

    def is_conj(self) -> bool:
        """The values are the complex conjugate of the bytes (``conj()``'s lazy view)."""
        return bool(self._key_set & CONJ_BIT)

    def is_neg(self) -> bool:
        """The values are the negation of the bytes (``conj().imag``'s lazy view)."""
        return bool(self._key_set & NEG_BIT)

    def _set_conj(self, conj: bool) -> None:
        """``TensorImpl::_set_conj``: the metadata of a view op (``_conj``), not a write."""
        self._key_set = (self._key_set & ~CONJ_BIT) | (CONJ_BIT if conj else 0)

    def _set_neg(self, neg: bool) -> None:
        """``TensorImpl::_set_neg``: the metadata of a view op (``_neg_view``), not a write."""
        self._key_set = (self._key_set & ~NEG_BIT) | (NEG_BIT if neg else 0)

    def _resolved_array(self) -> np.ndarray:
        """The values this tensor stands for: its array through its math bits (a new
        array when a bit is set, the array itself otherwise). For reading, never writing."""
        if not self._key_set:
            return self._array
        return apply_math_bits(self._array, self._key_set)

    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def data_ptr(self) -> int:
        """Address of this tensor's first element: the storage's plus the offset in bytes.

        An empty tensor has no first element; PyTorch reports 0.
        """
        if 0 in self._size or self._key_set & META_BIT:
            return 0  # (a meta tensor's storage has a null data pointer)
        return self._storage.data_ptr() + self._offset * self._dtype.itemsize

    def untyped_storage(self) -> Storage:
        return self._storage

    def storage(self):
        """``Tensor.storage()``: the storage read as this tensor's dtype, a ``TypedStorage``
        (deprecated in PyTorch, which warns once; ``untyped_storage()`` is the bytes)."""
        from .typed_storage import tensor_storage  # a layer above: it reads through tensors

        return tensor_storage(self)

    def get_device(self) -> int:
        return -1

    # --- views and versions -------------------------------------------------------

    @property
    def _version(self) -> int:
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.value

    def is_inference(self) -> bool:
        """Made inside ``inference_mode``: no version counter, never part of a graph."""
        return self._inference

    def _is_view(self) -> bool:
        return isinstance(self._autograd_meta, DifferentiableViewMeta)

    @property
    def _base(self) -> Tensor | None:
        """The tensor whose memory this view reads (None if this is not a view)."""
        meta = self._autograd_meta
        return meta.base if isinstance(meta, DifferentiableViewMeta) else None

    # --- autograd metadata: one AutogradMeta (vizgrad.autograd adds backward and hooks) -

    def _materialize_autograd_meta(self) -> AutogradMeta:
        """This tensor's AutogradMeta, made on first need (``impl::materialize_autograd_meta``)."""
        if self._autograd_meta is None:
            self._autograd_meta = AutogradMeta()
        return self._autograd_meta

    # ``_requires_grad`` and ``_grad_fn`` are the stored fields, read and written without
    # PyTorch's checks or a view's regeneration (``autograd_meta->grad_fn_``): the
    # engine's access, where ``requires_grad`` and ``grad_fn`` below are the user's.

    @property
    def _requires_grad(self) -> bool:
        meta = self._autograd_meta
        return meta is not None and meta.requires_grad

    @_requires_grad.setter
    def _requires_grad(self, value: bool) -> None:
        if value or self._autograd_meta is not None:
            self._materialize_autograd_meta().requires_grad = value

    @property
    def _grad_fn(self):
        meta = self._autograd_meta
        return None if meta is None else meta.grad_fn

    @_grad_fn.setter
    def _grad_fn(self, node) -> None:
        if node is not None or self._autograd_meta is not None:
            self._materialize_autograd_meta().grad_fn = node

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if not isinstance(requires_grad, bool):  # PyTorch's parser: bool means a real bool
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{type(requires_grad).__name__}"
            )
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and self._dtype.category < FLOATING:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not _grad_state.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        """A leaf's accumulated gradient (None until a backward reaches it)."""
        meta = self._autograd_meta
        if meta is None:
            return None
        if meta.grad_fn is not None and not meta.retains_grad:
            warn_at_user_code(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information.",
                UserWarning,
            )
        return meta.grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{CPP_TYPE_NAMES[value._dtype.name]}' to a tensor with grad_dtype "
                    f"'{self._dtype.scalar_name}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype)."
                )
            if value._size != self._size:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._size)}' to a tensor "
                    f"of size '{list(self._size)}'. Please ensure that the gradient and the "
                    "tensor are the same size"
                )
        if value is not None or self._autograd_meta is not None:
            self._materialize_autograd_meta().grad = value

    @property
    def grad_fn(self):
        """The node that made this tensor; a view's is regenerated if its base was written since."""
        meta = self._autograd_meta
        return None if meta is None else meta.current_grad_fn(self)

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def retains_grad(self) -> bool:
        meta = self._autograd_meta
        return meta is not None and meta.retains_grad

    # --- Python protocols ---------------------------------------------------------

    def __len__(self) -> int:
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        if python_value_watch.observer is not None:
            python_value_watch.observer("len")
        return self._size[0]

    def __iter__(self):
        if not self._size:
            raise TypeError("iteration over a 0-d tensor")
        if python_value_watch.observer is not None:
            python_value_watch.observer("iter")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def item(self):
        """The one value of a one-element tensor, as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        if self._key_set & META_BIT:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        if python_value_watch.observer is not None:
            python_value_watch.observer("number")
        return self._resolved_array().reshape(-1)[0].item()

    def _to_python_scalar(self, kind, name: str):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._key_set & META_BIT:  # ``float(t)`` is ``t.item()`` in PyTorch
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        if python_value_watch.observer is not None:
            python_value_watch.observer(name)
        return kind(self._resolved_array().reshape(-1)[0].item())

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if self.numel() > 1
                else "Boolean value of Tensor with no values is ambiguous"
            )
        if self._key_set & META_BIT:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        if python_value_watch.observer is not None:
            python_value_watch.observer("boolean")
        return bool(self._resolved_array().reshape(-1)[0].item())

    def __int__(self) -> int:
        return self._to_python_scalar(int, "integer")

    def __float__(self) -> float:
        return self._to_python_scalar(float, "float")

    def __complex__(self) -> complex:
        return self._to_python_scalar(complex, "complex")

    def __index__(self) -> int:
        if self._dtype.category != INTEGRAL or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return operator.index(self.item())

    def tolist(self):
        if self._key_set & META_BIT:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        if python_value_watch.observer is not None:
            python_value_watch.observer("list")
        return self._resolved_array().tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy array sharing this tensor's memory, as ``Tensor.numpy()``.

        A math bit would have the array show other values than the tensor's: refused,
        as in PyTorch, unless ``force=True`` (then the values are copied out resolved).
        """
        if self._key_set & META_BIT:
            raise TypeError(
                "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the "
                "tensor to host memory first."
            )
        if force:
            return self._resolved_array() if self._key_set else self._array
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if self._key_set & CONJ_BIT:
            raise RuntimeError(
                "Can't call numpy() on Tensor that has conjugate bit set. Use "
                "tensor.resolve_conj().numpy() instead."
            )
        if self._key_set & NEG_BIT:
            raise RuntimeError(
                "Can't call numpy() on Tensor that has negative bit set. Use "
                "tensor.resolve_neg().numpy() instead."
            )
        return self._array

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __repr__(self) -> str:
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._key_set & META_BIT:  # no value to format: ``object.__format__``
            return object.__format__(self, spec)
        if self.dim() == 0:
            return self.item().__format__(spec)
        return repr(self)


def define_method(name: str, attribute) -> None:
    """Give ``Tensor`` a method or property that an operator declaration generated.

    PyTorch's ``Tensor`` gets most of its methods from a table its code generator fills
    (``TensorBase``, ``python_variable_methods.cpp``); vizgrad's declarations fill this
    class the same way, through this one door. Each name is defined once: nothing may
    replace what the class, or an earlier declaration, already defines.
    """
    if name in Tensor.__dict__:
        raise RuntimeError(f"Tensor.{name} is defined twice: each Tensor attribute has one home")
    if callable(attribute):
        attribute.__name__ = name
        attribute.__qualname__ = f"Tensor.{name}"
    setattr(Tensor, name, attribute)
