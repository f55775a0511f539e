"""Kernels made for the overload they serve: structured kernels and the ``out=`` wrapper.

A declaration (``native_function``) names one kernel for several overloads; the
overload's schema and variant decide the kernel it really runs. A ``StructuredKernel``
(``elementwise``, built on TensorIterator) makes its functional, in-place and ``out=``
kernels from one loop, as PyTorch's ``structured: True`` kernels do. ``out_wrapper``
makes the ``out=`` kernel of a kernel that returns a fresh result, with the checks of
its ATen kernel in their order: the ``out=`` contract of
``torch/_prims_common/wrappers.py``, plus ``Overlap``, the ``at::assert_no_*`` calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..memory_overlap import (
    assert_no_internal_overlap,
    assert_no_overlap,
    assert_no_partial_overlap,
    warn_if_expanded,
)
from ..meta_device import META, check_copy_device, check_out_device, empty_meta
from ..promotion import check_can_cast
from ..schema import FunctionSchema
from ..shape import contiguous_strides
from ..tensor import Tensor
from .iterator import resize_output
from .registry import check_out_dtype, write_to_out

__all__ = [
    "OverloadKernel",
    "StructuredKernel",
    "Overlap",
    "Precomputed",
    "meta_then_impl",
    "out_wrapper",
    "run_checks",
]


class OverloadKernel:
    """A kernel made for the overload it serves, from that overload's schema and variant."""

    def for_overload(self, schema: FunctionSchema, variant: str):
        raise NotImplementedError


class StructuredKernel(OverloadKernel):
    """A kernel that makes its own functional, in-place and ``out=`` variants.

    PyTorch's ``structured: True`` kernels compute into an output that a shared
    set-up prepared (allocated, or checked and resized); subclasses say how.
    """


@dataclass(frozen=True)
class Overlap:
    """The memory an ``out=`` overload's outputs must not share with its inputs, by name.

    The ``at::assert_no_*`` calls of its ATen kernel (``vizgrad.memory_overlap``):
    ``internal`` refuses an output whose elements share memory
    (``assert_no_internal_overlap``); each input named in ``full`` must share no memory
    with an output (``assert_no_overlap``: a kernel that reads it in another order than
    it writes, as ``gather`` reads ``self``); each named in ``partial`` may be exactly an
    output, not part of one (``assert_no_partial_overlap``). A ``Tensor[]`` argument
    names each of its tensors. ``outs`` says which outputs are checked (all by default),
    one after the other.

    The same steps check an in-place overload (``from_inplace(inplace_checks=...)``),
    whose one output is ``self``. ``deprecated_expanded``, the operator's name, replaces
    ``internal`` for the in-place writes that only warn about an expanded ``self``
    (``index_fill_``, ``masked_fill_``, ``index_put_``: ``warn_if_expanded``).
    """

    internal: bool = False
    deprecated_expanded: str | None = None
    full: tuple[str, ...] = ()
    partial: tuple[str, ...] = ()
    outs: tuple[str, ...] | None = None

    def check(self, outs: dict, arguments: dict) -> None:
        # One output after the other, each refused for itself first, as TensorIterator's
        # ``compute_mem_overlaps`` checks them.
        for out in (outs[name] for name in (self.outs or outs)):
            if self.internal:
                assert_no_internal_overlap(out)
            if self.deprecated_expanded is not None:
                # The dispatcher's depth varies: the warning names this check, as before.
                warn_if_expanded(out, self.deprecated_expanded)
            for name in self.full:
                for t in _tensors_of(arguments.get(name)):
                    assert_no_overlap(out, t)
            for name in self.partial:
                for t in _tensors_of(arguments.get(name)):
                    assert_no_partial_overlap(out, t)


def _tensors_of(value) -> list:
    """The tensors an argument holds: itself, the tensors of a list, or none."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, list | tuple):
        return [t for t in value if isinstance(t, Tensor)]
    return []


class Precomputed:
    """What a meta function returns when it also computed arguments for its kernel
    (``TORCH_PRECOMPUTE_META_FUNC``: ``max.dim``'s ``dim``, wrapped against ``self`` as
    the caller gave it): each output's spec, and those arguments by name, which the
    kernel then receives in place of the caller's."""

    __slots__ = ("specs", "arguments")

    def __init__(self, specs, **arguments):
        self.specs, self.arguments = specs, arguments


def meta_then_impl(meta, impl):
    """The functional overload of a structured kernel declared as ``out_wrapper(...,
    meta=meta, impl=impl)``: its meta step's checks, then its impl, which computes into
    fresh outputs (empty ones, of the meta step's shapes, when it writes nothing).

    A ``Precomputed`` meta step's arguments are not passed on here: with no output to
    resize, ``self`` is as the caller gave it, and the impl wraps ``dim`` the same way."""

    def kernel(*args, **kwargs):
        specs = meta(*args, **kwargs)
        if isinstance(specs, Precomputed):
            specs = specs.specs
        results = impl(*args, **kwargs)
        if results is None:
            return tuple(Tensor._empty_strided(spec[0], contiguous_strides(spec[0]), spec[1])
                         for spec in specs)  # fmt: skip
        return results

    kernel.__name__ = getattr(impl, "__name__", "kernel")
    # Its Meta kernel is its meta step alone (``vizgrad.ops.meta_kernels``): a meta
    # result has the shape and dtype this kernel allocates, by construction.
    kernel.meta_function = meta
    return kernel


def meta_outputs(meta, single: bool):
    """The Meta kernel of a kernel that starts with the meta function ``meta``: its checks,
    and empty meta outputs of the ``(shape, dtype[, strides])`` it gives each (None for one
    the call does not ask for: ``output_mask``).

    PyTorch's structured kernels get their Meta kernel the same way: ``TORCH_META_FUNC``
    runs, and ``set_output`` allocates on the meta device."""

    def kernel(*args, **kwargs):
        specs = meta(*args, **kwargs)
        if isinstance(specs, Precomputed):
            specs = specs.specs
        outputs = [
            None if spec is None else empty_meta(
                spec[0], spec[2] if len(spec) > 2 else contiguous_strides(spec[0]), spec[1]
            )
            for spec in ([specs] if single else specs)
        ]  # fmt: skip
        return outputs[0] if single else tuple(outputs)

    kernel.__name__ = f"{getattr(meta, '__name__', 'meta')}_kernel"
    return kernel


class out_wrapper(OverloadKernel):  # noqa: N801 - reads as a wrapper in declarations
    """The ``out=`` overload of a kernel that returns a fresh result.

    Compute as the functional overload does, then check the cast (with ``exact_dtype``:
    that ``out`` already has the result's dtype), resize ``out`` and copy into it
    (``_prims_common.wrappers.out_wrapper``). An operator with several results writes
    each into the tensor its schema names (``max.dim_max``'s ``max`` and
    ``max_values``: ``out_wrapper(kernel, "max", "max_values")``; by default the
    overload's own out arguments); every one is checked before any is written.

    The other checks of its ATen kernel are declared in the order it makes them, around
    the moment it sets its outputs (``set_output``: their dtypes checked, then resized):

    * ``checks``, before: steps, each an ``Overlap`` (memory the outputs, as the caller
      gave them, must not share) or a function called as the kernel is, with the
      outputs by name (the ``TORCH_CHECK``s of the arguments; one that checks the
      outputs' dtypes in the operator's own words goes with ``check_cast=False``);
    * ``set_output``: each output's dtype checked (``check_dtypes(dtypes, *outs)``
      raises an operator's own message) and the output resized (``warn_resize=False``:
      a plain ``resize_``, as ``bernoulli`` and ``multinomial`` resize);
    * ``resized_checks``, after: steps as above, on the resized outputs (a structured
      kernel's meta function checks overlap after ``set_output``).

    Without ``meta``, ``set_output`` and ``resized_checks`` come after the kernel ran,
    from its results. ``meta`` is a function of the arguments giving each output's
    ``(shape, dtype)`` (``None`` for an output that may have any dtype), or
    ``(shape, dtype, strides)`` for an output a resize lays out as the meta function
    says (``sort``'s follow ``self``'s), as a structured kernel's meta function knows
    them (or a ``Precomputed`` of them): then they come before the kernel, and the
    errors the kernel raises come after them, as in PyTorch.

    After ``meta``, the kernel reads ``self`` as it is then: an output that is ``self``
    has been resized with it. ``impl`` is the kernel run then, if not ``kernel`` (a
    structured kernel's ``TORCH_IMPL_FUNC``, without the checks its meta function
    made): its results are written as the impl writes them, resizing the outputs
    again where their shapes differ (only an output that was ``self`` can: the same
    warning), then ``impl_checks``, the steps of the TensorIterator it writes
    through, on the outputs as they are then. An impl that writes nothing (``max.dim``
    of an empty ``self``) returns None: the outputs stay as ``set_output`` made them.

    Without ``meta``, an output that ``set_output`` resizes is laid out row-major, as
    ``resize_output`` lays it out; with ``resized_like_result``, it takes the result's
    strides instead, as the output of an ATen ``*_out`` function that writes through a
    ``TensorIterator`` does (``resize_out`` gives it the iterator's layout: an unreduced
    ``mse_loss`` of a transposed input is transposed).

    On the meta device an output elsewhere is refused as PyTorch's Python out wrapper
    refuses the copy; with ``structured_device``, first, as a C++ structured kernel's
    ``set_output`` refuses it (``gather``, ``scatter``: ``check_out_device``).
    """

    def __init__(self, kernel, *out_names: str, exact_dtype: bool = False,
                 check_cast: bool = True, check_dtypes=None, checks=(), meta=None,
                 resized_checks=(), warn_resize: bool = True, impl=None,
                 impl_checks=(), structured_device: bool = False,
                 resized_like_result: bool = False):  # fmt: skip
        self.kernel = kernel
        self.out_names = out_names
        self.exact_dtype = exact_dtype
        self.check_cast = check_cast
        self.check_dtypes = check_dtypes
        self.checks = _steps(checks)
        self.meta = meta
        self.resized_checks = _steps(resized_checks)
        self.warn_resize = warn_resize
        self.impl = impl
        self.impl_checks = _steps(impl_checks)
        self.structured_device = structured_device
        self.resized_like_result = resized_like_result

    def for_overload(self, schema: FunctionSchema, variant: str):
        out_names = self.out_names or tuple(a.name for a in schema.out_arguments)
        positional = [a.name for a in schema.arguments if not a.kwarg_only]
        meta, single = self.meta, len(out_names) == 1
        structured_device = self.structured_device
        kernel = self.kernel if self.impl is None else self.impl

        def out_kernel(*args, **kwargs):
            return run(args, kwargs, kernel)

        def meta_out_kernel(*args, **kwargs):
            """On the meta device: the checks and ``set_output``, then nothing to write
            but that the outputs are where the result would be (``_safe_copy_out``)."""
            outs = run(args, kwargs, None)
            for out in [outs] if single else outs:
                check_copy_device(META, out)
            return outs

        def run(args, kwargs, kernel):
            """The out= contract; ``kernel`` None on the meta device (nothing to compute)."""
            outs = {name: kwargs.pop(name) for name in out_names}
            call = _Call(args, kwargs, outs, positional)
            call.run(self.checks)
            if meta is not None:
                specs = meta(*args, **kwargs)
                if isinstance(specs, Precomputed):
                    args, kwargs = _with_arguments(args, kwargs, positional, specs.arguments)
                    specs = specs.specs
                    call = _Call(args, kwargs, outs, positional)
                if kernel is None and structured_device:  # ``set_output``'s first check
                    for out in outs.values():
                        check_out_device(META, out)
                self._set_outputs(call, [specs] if single else list(specs))
            result = None if kernel is None else kernel(*args, **kwargs)
            if result is None:  # an impl that wrote nothing (an empty ``self``)
                return outs[out_names[0]] if single else tuple(outs.values())
            results = [result] if single else list(result)
            if meta is None:
                like_result = self.resized_like_result
                self._set_outputs(call, [(r._size, r._dtype, r._stride) if like_result
                                         else (r._size, r._dtype) for r in results])  # fmt: skip
            else:
                # The impl writes results of the shape it computed from ``self`` as it
                # found it: an output that was ``self`` may have changed shape since.
                for value, out in zip(results, outs.values(), strict=True):
                    resize_output(out, value._size, warn=self.warn_resize)
                call.run(self.impl_checks)
            written = [write_to_out(value, out, check_cast=False)
                       for value, out in zip(results, outs.values(), strict=True)]  # fmt: skip
            return written[0] if single else tuple(written)

        out_kernel.__name__ = f"{getattr(kernel, '__name__', 'kernel')}_out"
        if meta is not None:  # a structured kernel's: ``vizgrad.ops.meta_kernels`` registers it
            out_kernel.meta_kernel = meta_out_kernel
        return out_kernel

    def _set_outputs(self, call: _Call, specs: list) -> None:
        """``set_output``: check the outputs' dtypes and resize them; then the checks
        made on the resized outputs."""
        outs = list(call.outs.values())
        dtypes = [spec[1] for spec in specs]
        if self.check_dtypes is not None:
            self.check_dtypes(dtypes, *outs)
        elif self.exact_dtype or self.check_cast:
            for dtype, out in zip(dtypes, outs, strict=True):
                if dtype is None:
                    continue
                if self.exact_dtype:
                    check_out_dtype(out, dtype)
                else:
                    check_can_cast(dtype, out._dtype)
        for spec, out in zip(specs, outs, strict=True):
            shape = tuple(spec[0])
            resized = out._size != shape
            resize_output(out, shape, warn=self.warn_resize)
            if resized and len(spec) > 2:
                # ``resize_out``: only an output that was resized takes the meta
                # function's strides; one of the right shape keeps its own.
                out._set_metadata(shape, tuple(spec[2]), out._offset)
        call.run(self.resized_checks)


def _with_arguments(args: tuple, kwargs: dict, positional: list, replaced: dict):
    """The call's arguments with those a meta function precomputed in their place."""
    args = list(args)
    for name, value in replaced.items():
        if name in positional and positional.index(name) < len(args):
            args[positional.index(name)] = value
        else:
            kwargs = {**kwargs, name: value}
    return tuple(args), kwargs


def _steps(steps) -> tuple:
    return tuple(steps) if isinstance(steps, list | tuple) else (steps,)


def run_checks(steps: tuple, schema: FunctionSchema, self: Tensor, args: tuple,
               kwargs: dict) -> None:  # fmt: skip
    """Run an in-place overload's checks (``from_inplace(inplace_checks=...)``): each
    ``Overlap`` with ``self`` as the written tensor, each function as the kernel is called."""
    positional = [a.name for a in schema.arguments if not a.kwarg_only]
    _Call((self, *args), kwargs, {}, positional, written={"self": self}).run(steps)


class _Call:
    """One call of an ``out=`` kernel, as its checks see it: the arguments (also by
    their schema names, for an ``Overlap``) and the outputs by name; ``written`` are the
    tensors an ``Overlap`` checks (the outputs, or an in-place overload's ``self``)."""

    __slots__ = ("args", "kwargs", "outs", "positional", "written", "_arguments")

    def __init__(self, args: tuple, kwargs: dict, outs: dict, positional: list, *,
                 written: dict | None = None):  # fmt: skip
        self.args, self.kwargs, self.outs, self.positional = args, kwargs, outs, positional
        self.written = outs if written is None else written
        self._arguments = None

    def run(self, steps: tuple) -> None:
        for step in steps:
            if isinstance(step, Overlap):
                if self._arguments is None:
                    # An internal call may leave trailing defaults out: zip what was given.
                    given = zip(self.positional, self.args, strict=False)
                    self._arguments = {**dict(given), **self.kwargs}
                step.check(self.written, self._arguments)
            else:
                step(*self.args, **self.kwargs, **self.outs)
