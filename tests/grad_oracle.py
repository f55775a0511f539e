"""Gradient oracle: compare vizgrad's autograd with PyTorch's and with finite differences.

``check_gradients(fn_name_or_callable, shapes, ...)`` builds the same float64 inputs
in both libraries (in any oracle layout), runs the forward, backward with the same
random upstream gradient, and compares: output values, ``grad_fn`` name, the
gradients of every input, and ``gradcheck`` (finite differences) in vizgrad.
"""

from __future__ import annotations

import numpy as np
import torch
from oracle import assert_same, make_pair

import vizgrad as vg


def leaf_pair(shape, layout="contiguous", seed=0, dtype="float64", **value_range):
    """A leaf requiring grad in each library, same values, same layout."""
    v, t = make_pair(shape, dtype, layout, seed, **value_range)
    # Leaves must be leaves: detach from the storage-building views, keep the layout.
    v = v.detach().requires_grad_()
    t = t.detach().requires_grad_()
    return v, t


def _first_tensor(result):
    if isinstance(result, tuple | list):
        return result[0]
    return result


def check_gradients(vg_fn, torch_fn, shapes, *, layouts=None, seed=0, grad_fn_name=None,
                    gradcheck=True, check_output_strides=False, value_range=None,
                    atol=1e-7, rtol=1e-6):  # fmt: skip
    """Forward and backward in both libraries on the same inputs; compare everything.

    ``vg_fn(*vg_inputs)`` and ``torch_fn(*torch_inputs)`` return a tensor (or a tuple
    whose first element is differentiated). ``shapes`` gives one shape per input;
    ``layouts`` one oracle layout per input (default: all contiguous).
    """
    layouts = layouts or ["contiguous"] * len(shapes)
    value_range = value_range or {}
    pairs = [leaf_pair(s, lay, seed + i, **value_range)
             for i, (s, lay) in enumerate(zip(shapes, layouts, strict=True))]  # fmt: skip
    v_in = [p[0] for p in pairs]
    t_in = [p[1] for p in pairs]

    v_out = _first_tensor(vg_fn(*v_in))
    t_out = _first_tensor(torch_fn(*t_in))
    assert_same(v_out.detach(), t_out.detach(), check_stride=check_output_strides)
    expected_name = grad_fn_name or type(t_out.grad_fn).__name__
    assert v_out.grad_fn is not None, "vizgrad recorded no grad_fn"
    assert v_out.grad_fn.name() == expected_name, (
        f"grad_fn {v_out.grad_fn.name()} != {expected_name}"
    )

    rng = np.random.default_rng(seed + 100)
    upstream = rng.standard_normal(tuple(t_out.shape))
    v_out.backward(vg.tensor(upstream, dtype=v_out.dtype))
    t_out.backward(torch.tensor(upstream, dtype=t_out.dtype))
    for i, (v, t) in enumerate(zip(v_in, t_in, strict=True)):
        if t.grad is None:
            assert v.grad is None, f"input {i}: torch has no gradient, vizgrad has one"
            continue
        assert v.grad is not None, f"input {i}: vizgrad computed no gradient"
        assert_same(v.grad, t.grad, check_stride=False, atol=atol, rtol=rtol)
        # The gradient is laid out like its parameter, as PyTorch's AccumulateGrad does.
        assert v.grad.stride() == t.grad.stride(), (
            f"input {i}: grad stride {v.grad.stride()} != {t.grad.stride()}"
        )

    if gradcheck:
        fresh = [leaf_pair(s, lay, seed + i, **value_range)[0]
                 for i, (s, lay) in enumerate(zip(shapes, layouts, strict=True))]  # fmt: skip
        assert vg.autograd.gradcheck(lambda *xs: _first_tensor(vg_fn(*xs)), fresh)
