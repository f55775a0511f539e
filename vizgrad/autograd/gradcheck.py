"""``gradcheck`` and ``gradgradcheck``: compare autograd with finite differences.

For a function ``f`` of tensors, the *numerical* Jacobian perturbs each input element
by ``±eps`` and measures the change of each output element (central differences);
the *analytical* Jacobian asks autograd for one vector-Jacobian product per output
element. They must agree within ``atol + rtol * |numerical|``. Use float64 inputs:
with float32, the finite differences themselves are too noisy.

Complex numbers are checked as PyTorch's gradcheck checks them, as pairs of reals: a
complex input element is perturbed along its real and its imaginary part (two rows of
the Jacobian), a complex output element is two outputs, its real and imaginary parts.
Autograd's gradient of a complex input is PyTorch's conjugate Wirtinger derivative
``dL/dx + i dL/dy`` of the real function ``L = Re(sum(conj(v) * out))``: the product with
``v = 1`` at one output element gives the row of its real part, ``v = 1j`` that of its
imaginary part, and the real and imaginary parts of each gradient are the derivatives
along the input's real and imaginary parts. Both Wirtinger derivatives of a
non-holomorphic function (``abs``, ``conj``) are checked so.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..generator import Generator
from ..ops.creation import from_numpy, zeros
from ..ops.sampling import randn
from ..tensor import Tensor
from .entry_points import grad as autograd_grad
from .grad_mode import enable_grad, no_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when the Jacobians differ (a RuntimeError, as in PyTorch)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def _differentiable_outputs(outputs):
    return [o for o in outputs if isinstance(o, Tensor) and o.requires_grad]


def _as_reals(values: np.ndarray) -> np.ndarray:
    """An output's values as real numbers: a complex one's real parts, then imaginary parts."""
    flat = values.reshape(-1)
    return np.concatenate([flat.real, flat.imag]) if np.iscomplexobj(flat) else flat


def _real_size(t: Tensor) -> int:
    return t.numel() * (2 if t._dtype.is_complex else 1)


def _directions(t: Tensor) -> tuple:
    """The steps an input element is perturbed along: its real part, and its imaginary one."""
    return (1, 1j) if t._dtype.is_complex else (1,)


def _numerical_jacobian(func, inputs, input_index, eps):
    """d(outputs)/d(inputs[input_index]) by central differences: one row per input element
    (per part of a complex one), one column per output element (per part)."""
    target = inputs[input_index]
    flat = target.detach()
    rows = {}
    with no_grad():
        for direction_index, direction in enumerate(_directions(target)):
            for element, flat_index in enumerate(np.ndindex(*target._size)):
                original = flat._array[flat_index].item()
                flat._array[flat_index] = original + eps * direction
                # (Clones: an output may be a view of the input, and clone resolves the bits.)
                plus = [o.detach().clone() for o in _outputs_of(func, inputs)]
                flat._array[flat_index] = original - eps * direction
                minus = [o.detach().clone() for o in _outputs_of(func, inputs)]
                flat._array[flat_index] = original
                row = direction_index * target.numel() + element
                rows[row] = [_as_reals(p._array - m._array) / (2 * eps)
                             for p, m in zip(plus, minus, strict=True)]  # fmt: skip
    outputs = _outputs_of(func, inputs)
    jacobians = []
    for out_index, out in enumerate(outputs):
        j = np.zeros((_real_size(target), _real_size(out)), dtype=np.float64)
        for row, columns in rows.items():
            j[row] = columns[out_index]
        jacobians.append(j)
    return jacobians


def _outputs_of(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]


def _analytical_jacobian(outputs, inputs, input_index):
    """Columns of d(output)/d(input) from one backward per output element (per part)."""
    target = inputs[input_index]
    jacobians = []
    for out in outputs:
        j = np.zeros((_real_size(target), _real_size(out)), dtype=np.float64)
        if out.requires_grad:
            for part, direction in enumerate(_directions(out)):
                for k in range(out.numel()):
                    grad_output = zeros(out.shape, dtype=out.dtype)
                    grad_output._array.reshape(-1)[k] = direction
                    (grad,) = autograd_grad(out, target, grad_output, retain_graph=True,
                                            allow_unused=True)  # fmt: skip
                    if grad is not None:
                        # ``dL/dx + i dL/dy``: the real part, then the imaginary part.
                        j[:, part * out.numel() + k] = _as_reals(grad.detach()._resolved_array())
        jacobians.append(j)
    return jacobians


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked=None) -> bool:  # fmt: skip
    """``torch.autograd.gradcheck``: True if autograd's gradients match finite differences.

    On a mismatch it raises ``GradcheckError`` showing both Jacobians (or returns False
    with ``raise_exception=False``).
    """
    inputs = _as_tuple(inputs)
    differentiable = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not differentiable:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")  # fmt: skip
    for i in differentiable:
        t = inputs[i]
        if t._dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    outputs = _outputs_of(func, inputs)
    if not _differentiable_outputs(outputs):
        raise RuntimeError("gradcheck: none of the outputs require grad; there is nothing to check")

    for i in differentiable:
        numerical = _numerical_jacobian(func, inputs, i, eps)
        analytical = _analytical_jacobian(_outputs_of(func, inputs), inputs, i)
        for out_index, (n, a) in enumerate(zip(numerical, analytical, strict=True)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                message = _mismatch_message(out_index, i, n, a)
                if raise_exception:
                    raise GradcheckError(message)
                return False
    return True


def _mismatch_message(out_index: int, input_index: int, numerical, analytical) -> str:
    return (
        f"Jacobian mismatch for output {out_index} with respect to input {input_index},\n"
        f"numerical:{from_numpy(numerical)!r}\nanalytical:{from_numpy(analytical)!r}\n"
    )


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:  # fmt: skip
    """``torch.autograd.gradgradcheck``: gradcheck of the gradients themselves.

    The function checked is ``(inputs, grad_outputs) -> d(outputs)/d(inputs) · grad_outputs``,
    computed with ``create_graph=True``, so second derivatives are compared with
    finite differences of first derivatives.
    """
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(_outputs_of(func, inputs))
    if grad_outputs is None:
        generator = Generator().manual_seed(0)
        grad_outputs = tuple(
            randn(o.shape, dtype=o.dtype, generator=generator).requires_grad_() for o in outputs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)
    diff_positions = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]

    def first_derivatives(*args):
        ins, gos = args[:n_inputs], args[n_inputs:]
        # Finite differences call this under no_grad; the first derivatives need a graph.
        with enable_grad():
            outs = _differentiable_outputs(_outputs_of(func, ins))
            diff_inputs = [ins[i] for i in diff_positions]
            grads = autograd_grad(outs, diff_inputs, gos, create_graph=True,
                                     allow_unused=True)  # fmt: skip
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)  # fmt: skip
