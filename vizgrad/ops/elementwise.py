"""Elementwise kernels as structured kernels: one NumPy loop, three variants.

PyTorch writes an elementwise operator once, as a *structured* kernel: the
``TensorIterator`` set-up (broadcast, promote, allocate or check the output) is
shared, and the functional (``add``), in-place (``add_``) and ``out=`` (``add.out``)
overloads differ only in which output the set-up prepares. ``elementwise`` wraps a
NumPy loop ``kernel(out_array, *input_arrays, **options)`` the same way; the
declaration (``native_function``) asks it for each overload's kernel.
"""

from __future__ import annotations

from ..dispatcher import INPLACE, OUT
from ..promotion import result_type
from .iterator import run_elementwise
from .overload_kernels import StructuredKernel

__all__ = ["elementwise", "structured", "ITERATOR_KERNELS"]

# Every kernel these wrappers made, with the wrapper that made it: a kernel whose whole
# set-up is its TensorIterator's, which is what runs on the meta device
# (``vizgrad.ops.meta_kernels`` gives these kernels to the ``Meta`` key).
ITERATOR_KERNELS: dict = {}


class elementwise(StructuredKernel):  # noqa: N801 - reads as a wrapper in declarations
    """A NumPy loop plus how ``TensorIterator`` prepares its operands.

    ``promote_integer_inputs_to_float`` makes integer inputs compute in the default
    float dtype (``sqrt``, true ``div``; it may be a function of the call's options);
    ``result_dtype`` fixes the output dtype (``bool`` for ``isnan``); ``compute_dtype``
    overrides the dtype the loop runs in. ``check_all_same_dtype`` is the
    TensorIteratorConfig flag of the dtype-keeping unary ops (``neg``, ``floor``…): an
    ``out=`` tensor of another dtype is an error, not a cast. ``scalar_parameters``:
    the Python numbers are the kernel's parameters in PyTorch (``lerp``'s weight), not
    operands of its TensorIterator (``TensorIterator``'s flag of that name says more).
    """

    def __init__(self, kernel, *, promote_integer_inputs_to_float=False, result_dtype=None,
                 compute_dtype=None, check_all_same_dtype=False, scalar_parameters=False):  # fmt: skip
        self.kernel = kernel
        self.promote = promote_integer_inputs_to_float
        # ``TensorIterator``'s flags after ``out`` and ``inplace``, in its order (passed by
        # position: the functional call of every elementwise operator builds them).
        self.config = (promote_integer_inputs_to_float, result_dtype, compute_dtype,
                       scalar_parameters)  # fmt: skip
        self.check_all_same_dtype = check_all_same_dtype

    def _iterator_config(self, options: dict) -> tuple:
        # ``div(a, b, rounding_mode=None)`` promotes integers to float; the rounded modes
        # don't: the promotion may be a function of the call's options.
        if not callable(self.promote):
            return self.config
        return (self.promote(**options), *self.config[1:])

    def for_overload(self, schema, variant):
        kernel = self._kernel_for_overload(schema, variant)
        ITERATOR_KERNELS[kernel] = self
        return kernel

    def _kernel_for_overload(self, schema, variant):
        kernel = self._variant_kernel(schema.base_name, variant)
        # Options the schema takes by position (``isclose(a, b, rtol, atol)``,
        # ``rsub.Scalar``'s ``alpha``) reach the loop by name, as the keyword ones do.
        positional = [a for a in schema.arguments if not a.kwarg_only]
        options = [a.name for a in positional if a.has_default]
        if not options:
            return kernel
        count = len(positional) - len(options)

        def with_positional_options(*args, **keywords):
            keywords.update(zip(options, args[count:], strict=False))
            return kernel(*args[:count], **keywords)

        return with_positional_options

    def _variant_kernel(self, name, variant):
        kernel = self.kernel
        # The configuration, unless it depends on the call's options: then each call asks.
        config = None if callable(self.promote) else self.config
        configure = self._iterator_config
        if variant is INPLACE:
            inplace_name = name + "_"

            def inplace_kernel(*operands, **options):
                return run_elementwise(inplace_name, kernel, operands, operands[0], True,
                                       config or configure(options), options)  # fmt: skip

            return inplace_kernel
        if variant is OUT:

            def out_kernel(*operands, out, **options):
                if self.check_all_same_dtype:
                    check_same_dtype(out, result_type(*operands))
                return run_elementwise(name, kernel, operands, out, False,
                                       config or configure(options), options)  # fmt: skip

            return out_kernel

        def functional_kernel(*operands, **options):
            return run_elementwise(name, kernel, operands, None, False,
                                   config or configure(options), options)  # fmt: skip

        return functional_kernel


def check_same_dtype(out, expected) -> None:
    """``check_all_same_dtype``: an ``out=`` tensor must have exactly the result's dtype."""
    if out is not None and out._dtype is not expected:
        raise RuntimeError(
            f"Found dtype {out._dtype.scalar_name} but expected {expected.scalar_name}"
        )


class structured(StructuredKernel):  # noqa: N801 - reads as a wrapper in declarations
    """A structured kernel whose set-up depends on the call (PyTorch's meta function).

    ``impl(operands, out, inplace, **options)`` builds the ``TensorIterator`` itself and
    runs it: ``abs`` of a complex tensor is real, ``clamp`` skips a missing bound,
    ``where`` promotes only its two sources. ``out`` is the tensor to write: None for
    the functional overload, the ``out=`` tensor, or ``self`` in place.
    """

    def __init__(self, impl):
        self.impl = impl

    def for_overload(self, schema, variant):
        impl = self.impl
        if variant is INPLACE:

            def kernel(*operands, **options):
                return impl(operands, operands[0], True, **options)

        elif variant is OUT:

            def kernel(*operands, out, **options):
                return impl(operands, out, False, **options)

        else:

            def kernel(*operands, **options):
                return impl(operands, None, False, **options)

        ITERATOR_KERNELS[kernel] = self
        return kernel
