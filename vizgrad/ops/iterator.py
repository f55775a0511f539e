"""TensorIterator: the shared set-up of every elementwise kernel (``at::TensorIterator``).

Before a pointwise kernel runs, PyTorch's TensorIterator decides, once for all ops:

* the **broadcast shape** of the operands;
* the **common dtype** (type promotion), and the dtype the kernel computes in;
* the **output**: for a functional call it allocates one whose strides follow the
  inputs' layout (a transposed input gives a transposed output); for ``out=`` it
  checks the dtype can be cast and resizes; for in-place it checks the shape, the
  cast, and that the written tensor does not overlap itself or its inputs.

Kernels then only compute: ``kernel(out_array, *input_arrays)`` with NumPy on strided
views of the storages, so non-contiguous inputs are never copied.

This set-up is PyTorch's *meta function* of the structured kernel: with an operand on the
meta device it is all that runs. The output is made on the meta device (after
``check_same_device``), and ``run`` returns it without calling the loop, so a meta
result's shape, dtype and strides are, by construction, those of the CPU result.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import events
from ..dispatcher import current_call, current_op
from ..dtypes import (
    ALL_DTYPES,
    BOOL,
    C_TYPE_NAMES,
    FLOATING,
    INTEGRAL,
    from_numpy_dtype,
    get_default_dtype,
    scalar_dtype,
)
from ..dtypes import dtype as DType
from ..memory_overlap import assert_no_internal_overlap, assert_no_partial_overlap
from ..meta_device import check_copy_device, check_same_device, empty_meta
from ..promotion import check_can_cast, result_type
from ..shape import (
    broadcast_shapes,
    contiguous_strides,
    is_contiguous,
    is_non_overlapping_and_dense,
)
from ..tensor import META_BIT, Tensor
from ..user_warnings import warn_at_user_code
from .cache_blocking import MIN_ELEMENTS as TILED_MIN_ELEMENTS
from .cache_blocking import blocked_calls

__all__ = [
    "TensorIterator",
    "output_strides",
    "check_inplace_target",
    "resize_output",
    "dispatch_dtypes",
]


class TensorIterator:
    """Lines up the operands of one elementwise call and owns its output.

    ``operands`` are tensors or Python numbers. ``out`` is the tensor to write (the
    ``out=`` argument, or ``self`` when ``inplace``), else one is allocated.
    ``promote_integer_inputs_to_float`` makes integer inputs compute in the default
    float dtype (``sqrt``, true ``div``); ``result_dtype`` fixes the output dtype
    (``bool`` for comparisons); ``compute_dtype`` overrides the computation dtype.
    A Python number is an operand, as PyTorch wraps one into a 0-dim tensor (``x + 1``);
    with ``scalar_parameters`` the numbers are instead the kernel's parameters
    (``clamp(x, 0)``, ``pow(x, 2)``), which in PyTorch never reach the iterator: they
    take part in type promotion alike, but not in choosing the output's layout.
    """

    __slots__ = ("op_name", "shape", "common_dtype", "compute_dtype", "output", "inputs",
                 "_write_array", "_needs_copy_back")  # fmt: skip

    def __init__(
        self,
        op_name: str,
        operands,
        out: Tensor | None = None,
        inplace: bool = False,
        promote_integer_inputs_to_float: bool = False,
        result_dtype=None,
        compute_dtype=None,
        scalar_parameters: bool = False,
        *,
        alike_tried: bool = False,
    ):
        self.op_name = op_name
        # (``run_elementwise`` says with ``alike_tried`` that the call is not the common case.)
        alike = None
        if compute_dtype is None and not alike_tried:
            alike = set_up_alike(
                operands, out, promote_integer_inputs_to_float, result_dtype, scalar_parameters
            )
        if alike is not None:
            self.output, self._write_array, self.inputs, common = alike
            self.shape = self.output._size
            self.common_dtype = self.compute_dtype = common
            self._needs_copy_back = False
            if events.bus.active and "kernel_chosen" in events.bus.wanted:
                emit_kernel_chosen(op_name, operands, common, common, self.output)
            return

        tensors = [t for t in operands if isinstance(t, Tensor)]
        # Whether an operand (or ``out``) is on the meta device: then only this set-up runs.
        bits = 0 if out is None else out._key_set
        for t in tensors:
            bits |= t._key_set
        meta = bits & META_BIT
        # Which operands PyTorch's iterator holds: the tensors, and the Python numbers
        # wrapped as 0-dim tensors unless they are the kernel's parameters.
        only_tensors = scalar_parameters or len(tensors) == len(operands)
        self.shape = broadcast_shapes(*(t._size for t in tensors)) if tensors else ()

        common = result_type(*operands)
        if promote_integer_inputs_to_float and common.category < FLOATING:
            common = get_default_dtype()
        self.common_dtype = common
        self.compute_dtype = compute_dtype or common
        output_dtype = result_dtype or common

        if meta and not inplace:
            # An in-place write needs no device check (nor does PyTorch make one: ``meta.add_(cpu)``
            # passes, and ``cpu.add_(meta)`` computes nothing); anything else is computed on the
            # operands' one device, and written to an ``out=`` only if that is its device too.
            device = check_same_device(operands)
            if out is not None:
                check_copy_device(device, out)
        if out is None:
            stride = output_strides(self.shape, tensors, only_tensors)
            allocate = empty_meta if meta else Tensor._empty_strided
            self.output = allocate(self.shape, stride, output_dtype)
        else:
            # PyTorch checks memory overlap before dtypes: ``expanded.add_(1.5)`` of an
            # int tensor reports the overlap, not the cast.
            if inplace:
                check_inplace_target(op_name, out, self.shape, tensors)
            if result_dtype is None:
                check_can_cast(common, out._dtype)
            if not inplace:
                if out._size != self.shape:
                    resize_output(out, self.shape)
                    # An output the iterator resized is laid out like the inputs.
                    strides = output_strides(self.shape, tensors, only_tensors)
                    out._set_metadata(self.shape, strides, out._offset)
                assert_no_internal_overlap(out)
                for t in tensors:
                    assert_no_partial_overlap(out, t)
            self.output = out
        if meta:  # the meta function ends here: there is no data to compute
            self._write_array = self.inputs = None
            return

        self.inputs = [_as_compute_array(x, self.compute_dtype) for x in operands]
        # The kernel writes in the compute dtype (or the fixed result dtype); if the
        # output's dtype differs (``int_tensor.mul_(2)`` computes in int64, fine; a
        # float ``out=`` for a double result) we write a temporary and cast back.
        kernel_dtype = result_dtype or self.compute_dtype
        if self.output._dtype is kernel_dtype:
            self._write_array = self.output._array
            self._needs_copy_back = False
        else:
            self._write_array = np.empty(self.shape, dtype=kernel_dtype.numpy)
            self._needs_copy_back = True

        if events.bus.active and "kernel_chosen" in events.bus.wanted:
            emit_kernel_chosen(
                op_name, operands, self.common_dtype, self.compute_dtype, self.output
            )

    def run(self, kernel, *args, **kwargs) -> Tensor:
        """Call ``kernel(out_array, *input_arrays, *args, **kwargs)``; return the output.

        When an input is laid out against the output, the kernel runs tile by tile
        (``cache_blocking``): the same elements, computed in a cache-friendly order.
        """
        out = self._write_array
        if out is None:  # the operands are on the meta device: the set-up was everything
            _check_compiled_for(kernel, self.compute_dtype)
            return self.output
        calls = None if out.size < TILED_MIN_ELEMENTS else blocked_calls(out, self.inputs)
        if calls is None:
            kernel(out, *self.inputs, *args, **kwargs)
        else:
            for arrays in calls:
                kernel(*arrays, *args, **kwargs)
        if self._needs_copy_back:
            np.copyto(self.output._array, self._write_array, casting="unsafe")
        return self.output


def emit_kernel_chosen(op_name: str, operands, common: DType, compute: DType, output) -> None:
    """``KernelChosen``: the dtype loop the call's kernel runs (its ``AT_DISPATCH``)."""
    kinds = []
    for x in operands:
        if isinstance(x, Tensor):
            kinds.append((x._dtype, not x._size))
        else:
            kinds.append((scalar_dtype(x), type(x).__name__))
    input_dtypes, reason = _described_operands(tuple(kinds), common, compute)
    # The event names the call's overload (``aten::add.Tensor``) rather than the kernel's
    # short name, and the call id, so a view attaches it to its exact call.
    events.bus.emit(
        events.KernelChosen(
            current_op() or op_name,
            compute.name,
            input_dtypes,
            output._size,
            output._id,
            output._stride,
            reason,
            current_call(),
        )
    )


# Made once per combination: a recorded training loop repeats a few, and building the
# strings on every call cost half a microsecond of a recorded 4x4 add's ten.
@functools.lru_cache(maxsize=1024)
def _described_operands(kinds: tuple, common: DType, compute: DType) -> tuple[tuple, str]:
    """``KernelChosen``'s input dtypes and reason (which dtypes promoted to which), from the
    operands' kinds: ``(dtype, zero_dim)`` for a tensor, ``(dtype, type name)`` for a
    Python number."""
    names = []
    for dtype, kind in kinds:
        if kind is True:
            names.append(dtype.name + " zero-dim tensor")
        elif kind is False:
            names.append(dtype.name + " tensor")
        else:
            names.append("Python " + kind)
    reason = " and ".join(names) + " promote to " + common.name
    if compute is not common:
        reason += "; computed in " + compute.name
    return tuple(dtype.name for dtype, _ in kinds), reason


def set_up_alike(operands, out, promote, result_dtype, scalar_parameters):
    """The common case of ``TensorIterator``'s set-up, without its general machinery:
    ``(output, output array to write, input arrays, common dtype)``, or None if the call
    is not one.

    Every tensor operand is of one dtype and one shape (nothing to broadcast, nothing
    to promote among them) and of one layout: contiguous, or dense with the same
    strides (``a.t() * b.t()``, two channels-last tensors), whose output PyTorch lays
    out alike. The other operands are Python ints and floats that leave that dtype as
    it is (``x * 0.9`` of a float tensor, ``n + 1`` of an int one). An ``out=`` tensor
    (or ``self``, in place) must be of that shape and layout and of the dtype the
    kernel writes, and share no storage with an input it is not. Anything else (and
    any call that may fail) takes the general path, which gives the same results and
    raises PyTorch's errors.
    """
    first = None
    has_int = has_float = False
    inputs = []  # the tensors' arrays; a number's place is filled once the dtype is known
    for x in operands:
        if isinstance(x, Tensor):
            if first is None:
                first = x
                if not x._contiguous and not _dense_alike(x):
                    return None
            elif (
                x._dtype is not first._dtype
                or x._size != first._size
                # laid out as ``first``:
                or not (x._contiguous if first._contiguous else x._stride == first._stride)
            ):
                return None
            # ``x._array``, written out: the cached array unless the storage swapped
            # its buffer since.
            array = x._cached_array
            if x._array_generation != x._storage.generation:
                array = x._rebuild_array()
            if array is None:  # (a meta tensor has no array)
                return None
            inputs.append(array)
            continue
        inputs.append(None)
        if type(x) is float:
            has_float = True
        elif type(x) is int:
            has_int = True
        else:
            return None
    if first is None:
        return None
    # A number is an operand of another shape (a 0-dim tensor) to PyTorch's iterator,
    # so the output follows the input's strides, not its contiguity: an empty or
    # size-1 dim's stride may differ from the row-major one.
    if (
        (has_int or has_float)
        and not scalar_parameters
        and (0 in first._size or 1 in first._size)
        and first._stride != contiguous_strides(first._size)
    ):
        return None
    common = first._dtype
    category = common.category
    if (has_float and category < FLOATING) or (has_int and category == BOOL):
        return None  # the number raises the category: promotion decides
    if promote and category < FLOATING:
        common = get_default_dtype()
    kernel_dtype = result_dtype or common
    if out is not None:
        if (
            out._dtype is not kernel_dtype
            or out._size != first._size
            or not (out._contiguous if first._contiguous else out._stride == first._stride)
        ):
            return None
        if out._key_set & META_BIT:  # on the meta device: the general set-up checks devices
            return None
        for x in operands:
            if x is not out and isinstance(x, Tensor) and x._storage is out._storage:
                return None  # it may overlap what is written: checked in full
    if common is not first._dtype:  # integers computed as floats
        inputs = [a if a is None else a.astype(common.numpy) for a in inputs]
    if has_int or has_float:
        for i, x in enumerate(operands):
            if inputs[i] is None:  # a number converts only if it cannot overflow, wrap or fail
                int_limits, float_limits = _NUMBER_LIMITS[common]
                limits = int_limits if type(x) is int else float_limits
                if limits is None or not limits[0] <= x <= limits[1]:
                    return None
                inputs[i] = np.asarray(x, common.numpy)
    if out is None:
        if first._contiguous:
            out = Tensor._new_contiguous(first._size, kernel_dtype)
        else:
            out = Tensor._empty_strided(first._size, first._stride, kernel_dtype)
        return out, out._cached_array, inputs, common  # (just made: its array is current)
    return out, out._array, inputs, common


def _dense_alike(x: Tensor) -> bool:
    """A non-contiguous ``x`` whose layout an output of the common case copies: dense
    (a permutation of row-major strides), with no dimension of size 0 or 1 (whose
    strides PyTorch's output does not take from the input)."""
    size = x._size
    return 0 not in size and 1 not in size and is_non_overlapping_and_dense(size, x._stride)


def run_elementwise(op_name, kernel, operands, out, inplace, config, options) -> Tensor:
    """``TensorIterator(op_name, operands, out, inplace, *config).run(kernel, **options)``:
    what an elementwise operator's kernel does (``vizgrad.ops.elementwise``).

    The common case (``set_up_alike``) runs without building the iterator: the object and
    its two methods are a tenth of a small ``add``'s time.
    """
    promote, result_dtype, compute_dtype, scalar_parameters = config
    if compute_dtype is None:
        alike = set_up_alike(operands, out, promote, result_dtype, scalar_parameters)
        if alike is not None:
            output, out_array, inputs, common = alike
            if events.bus.active and "kernel_chosen" in events.bus.wanted:
                emit_kernel_chosen(op_name, operands, common, common, output)
            kernel(out_array, *inputs, **options)
            return output
    # Not the common case: the iterator need not try it again.
    iterator = TensorIterator(op_name, operands, out, inplace, *config, alike_tried=True)
    return iterator.run(kernel, **options)


# The Python ints and floats a dtype takes exactly as ``_as_compute_array`` would, without
# its overflow handling: in range for an integral dtype; within the largest finite value
# (and int64, for an int) for a floating or complex one. ``(int_limits, float_limits)``.
def _number_limits(dtype):
    if dtype.category == INTEGRAL:
        info = np.iinfo(dtype.numpy)
        return (int(info.min), int(info.max)), None
    if dtype.category >= FLOATING:
        largest = float(np.finfo(dtype.numpy).max)
        return (max(-largest, -(2**63)), min(largest, 2**63 - 1)), (-largest, largest)
    return None, None


_NUMBER_LIMITS = {dtype: _number_limits(dtype) for dtype in ALL_DTYPES}


def _as_compute_array(x, compute_dtype) -> np.ndarray:
    """An operand as a NumPy array in the compute dtype (a strided view when possible)."""
    if isinstance(x, Tensor):
        array = x._array
        return array if x._dtype is compute_dtype else array.astype(compute_dtype.numpy)
    try:
        with np.errstate(over="ignore"):  # 1e10 in float16 is inf, as in PyTorch
            return np.asarray(x, dtype=compute_dtype.numpy)
    except OverflowError:
        # A Python int is a wrapped int64 tensor, and its cast wraps around as a C++
        # cast does (``uint8_tensor + (-3)`` adds 253); only beyond int64 is it an error.
        if isinstance(x, int) and -(2**63) <= x < 2**63:
            return np.asarray(x, dtype=np.int64).astype(compute_dtype.numpy)
        raise RuntimeError(
            f"value cannot be converted to type {C_TYPE_NAMES[compute_dtype.name]} without overflow"
        ) from None


def output_strides(shape, tensors, only_tensors: bool = True) -> tuple[int, ...]:
    """Strides for a new output that follow the inputs' memory layout, as PyTorch does.

    If every input has the output's shape and is contiguous (or all share one dense
    layout), the output copies that layout (``TensorIterator``'s fast set-up). Otherwise
    dimensions are sorted by the inputs' strides (``reorder_dimensions``), ignoring
    broadcast dimensions, and the output is laid out densely in that order. A Python
    number among the operands (``not only_tensors``) is a 0-dim tensor to PyTorch, of
    another shape, so it always takes the second way: that differs only where an empty
    or size-1 dim's stride is not the row-major one (``x + 1`` for ``x`` of shape (3, 0)
    and strides (1, 3) keeps (1, 3), where ``x.exp()`` gives (1, 1)).
    """
    ndim = len(shape)
    if ndim == 0:
        return ()
    if only_tensors and tensors and all(t._size == shape for t in tensors):
        if all(is_contiguous(t._size, t._stride) for t in tensors):
            return contiguous_strides(shape)
        first = tensors[-1]._stride
        if all(t._stride == first for t in tensors) and is_non_overlapping_and_dense(shape, first):
            return first
    if ndim == 1:
        return contiguous_strides(shape)

    # Each operand's strides in bytes over the broadcast shape; broadcast dims get 0.
    operand_strides = []
    for t in tensors:
        offset = ndim - len(t._size)
        strides = [0] * ndim
        for i, (size, stride) in enumerate(zip(t._size, t._stride, strict=True)):
            if not (size == 1 and shape[offset + i] != 1):
                strides[offset + i] = stride * t._dtype.itemsize
        operand_strides.append(strides)

    def should_swap(dim0: int, dim1: int) -> int:
        # 1: dim0 moves slower than dim1 in the inputs; -1: faster; 0: no input says.
        for strides in operand_strides:
            s0, s1 = strides[dim0], strides[dim1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    # perm[0] is the fastest-moving dimension; start from row-major order.
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break

    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)
    strides = [0] * ndim
    step = 1
    for dim in perm:
        strides[dim] = step
        step *= shape[dim]
    return tuple(strides)


def check_inplace_target(op_name: str, out: Tensor, shape, inputs) -> None:
    """An in-place result must have the broadcast shape and not overlap anything read."""
    if out._size != shape:
        raise RuntimeError(
            f"output with shape {list(out._size)} doesn't match the broadcast shape {list(shape)}"
        )
    assert_no_internal_overlap(out)
    for t in inputs:  # reading and writing one tensor in place is fine, part of it is not
        assert_no_partial_overlap(out, t)


def resize_output(out: Tensor, shape, *, warn: bool = True) -> None:
    """``at::native::resize_output``: an ``out=`` tensor of the wrong shape is resized.

    Resizing a tensor that has elements is deprecated in PyTorch and warns; the few
    kernels that call ``out.resize_`` themselves (``bernoulli``, ``multinomial``) pass
    ``warn=False``.
    """
    shape = tuple(shape)
    if out._size == shape:
        return
    if warn and out.numel() != 0:
        warn_at_user_code(
            f"An output with one or more elements was resized since it had shape "
            f"{list(out._size)}, which does not match the required output shape {list(shape)}. "
            "This behavior is deprecated, and in a future PyTorch release outputs will not be "
            "resized unless they have zero elements. You can explicitly reuse an out tensor t "
            "by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning,
        )
    # PyTorch resizes ``out`` below the dispatcher, so only the write that follows
    # bumps its version (once), not the resize.
    version = out._version_counter.value
    out.resize_(shape)
    out._version_counter.value = version


# Dtype groups of PyTorch's ``AT_DISPATCH_*`` macros, by NumPy dtype name.
INTEGRAL_TYPES = frozenset({"uint8", "int8", "int16", "int32", "int64"})
FLOATING_TYPES = frozenset({"float16", "float32", "float64"})
COMPLEX_TYPES = frozenset({"complex64", "complex128"})
ALL_TYPES = INTEGRAL_TYPES | FLOATING_TYPES  # PyTorch's name: no bool, no complex
ALL_TYPES_AND_COMPLEX = ALL_TYPES | COMPLEX_TYPES


def dispatch_dtypes(kernel_name: str, supported):
    """The second, dtype dispatch inside a CPU kernel (``AT_DISPATCH_..._TYPES``).

    A C++ kernel is compiled for a set of dtypes only; called with any other it
    raises ``NotImplementedError: "<kernel_name>" not implemented for '<Type>'``.
    The decorated ``kernel(out, *inputs)`` is dispatched on its first input's dtype
    (the dtype it computes in), or on the output's when it has no inputs.
    """

    # Compared as NumPy dtype objects: reading ``np.dtype.name`` is a Python property
    # that costs more than the rest of the check on every call.
    compiled_for = frozenset(np.dtype(name) for name in supported)

    def decorate(kernel):
        def dispatched(out, *inputs, **options):
            np_dtype = inputs[0].dtype if inputs else out.dtype
            if np_dtype not in compiled_for:
                raise _not_compiled_for(kernel_name, np_dtype)
            return kernel(out, *inputs, **options)

        dispatched.__name__ = kernel.__name__
        dispatched.__doc__ = kernel.__doc__
        dispatched.compiled_for = (kernel_name, compiled_for)  # for the meta set-up's check
        return dispatched

    return decorate


def _not_compiled_for(kernel_name: str, np_dtype) -> NotImplementedError:
    name = from_numpy_dtype(np_dtype).scalar_name
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{name}'")


def _check_compiled_for(kernel, compute_dtype) -> None:
    """On the meta device the loop does not run, but its dtype dispatch still decides:
    a dtype the CPU kernel was not compiled for is refused as the CPU call refuses it."""
    dispatch = getattr(kernel, "compiled_for", None)
    if dispatch is not None:
        kernel_name, compiled_for = dispatch
        np_dtype = np.dtype(compute_dtype.numpy)
        if np_dtype not in compiled_for:
            raise _not_compiled_for(kernel_name, np_dtype)
