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
from .declaration import StructuredKernel
from .iterator import TensorIterator

__all__ = ["elementwise"]


class elementwise(StructuredKernel):  # noqa: N801 - reads as a wrapper in declarations
    """A NumPy loop plus how ``TensorIterator`` prepares its operands.

    ``promote_integer_inputs_to_float`` makes integer inputs compute in the default
    float dtype (``sqrt``, true ``div``; it may be a function of the call's options);
    ``result_dtype`` fixes the output dtype (``bool`` for ``isnan``); ``compute_dtype``
    overrides the dtype the loop runs in. ``defaults`` fill keyword options the schema
    leaves without a default.
    """

    def __init__(self, kernel, *, promote_integer_inputs_to_float=False, result_dtype=None,
                 compute_dtype=None, defaults=None):  # fmt: skip
        self.kernel = kernel
        self.promote = promote_integer_inputs_to_float
        self.config = {"result_dtype": result_dtype, "compute_dtype": compute_dtype,
                       "promote_integer_inputs_to_float": promote_integer_inputs_to_float}  # fmt: skip
        self.defaults = defaults or {}

    def _iterator_config(self, options: dict) -> dict:
        # ``div(a, b, rounding_mode=None)`` promotes integers to float; the rounded modes
        # don't: the promotion may be a function of the call's options.
        if not callable(self.promote):
            return self.config
        return {**self.config, "promote_integer_inputs_to_float": self.promote(**options)}

    def _options(self, options: dict) -> dict:
        if not self.defaults:
            return options
        merged = dict(options)
        for name, value in self.defaults.items():
            if merged.get(name) is None:
                merged[name] = value
        return merged

    def for_overload(self, schema, variant):
        name, kernel = schema.base_name, self.kernel
        if variant is INPLACE:

            def inplace_kernel(*operands, **options):
                options = self._options(options)
                iterator = TensorIterator(name + "_", operands, out=operands[0], inplace=True,
                                          **self._iterator_config(options))  # fmt: skip
                return iterator.run(kernel, **options)

            return inplace_kernel
        if variant is OUT:

            def out_kernel(*operands, out, **options):
                options = self._options(options)
                iterator = TensorIterator(name, operands, out=out, **self._iterator_config(options))
                return iterator.run(kernel, **options)

            return out_kernel

        def functional_kernel(*operands, **options):
            options = self._options(options)
            return TensorIterator(name, operands, **self._iterator_config(options)).run(
                kernel, **options
            )

        return functional_kernel
