"""The linear algebra operators on the meta device, against PyTorch 2.13.

Every overload of the family (products, solvers, decompositions, FFT primitives,
distances) on meta tensors of several layouts and dtypes: the result's shape, strides,
storage offset and dtype are PyTorch's (its CPU kernel's where its meta path lays the
result out otherwise: ``check_op``), and bad input raises PyTorch's errors. ``out=``
overloads are resized as PyTorch resizes them, in-place ones keep ``self``, and a small
MLP runs forward and backward on the meta device as in PyTorch.
"""

import pytest
import torch
from meta_checks import (
    assert_meta_same,
    check_op,
    meta_pair,
    meta_pairs,
    metadata,
    outcome,
    raise_,
)
from oracle import assert_same_error

import vizgrad as vg
from vizgrad.ops.registry import OPERATORS


def aten(lib, name: str):
    """An ATen overload by name: ``torch.ops.aten``'s, or vizgrad's operator."""
    if lib is torch:
        packet, _, overload = name.partition(".")
        return getattr(getattr(torch.ops.aten, packet), overload or "default")
    return OPERATORS[f"aten::{name}"]


def out_of(lib, like, dtype=None):
    """An empty ``out=`` tensor where ``like`` is (meta or CPU), of its dtype or ``dtype``."""
    dtype = like.dtype if dtype is None else getattr(lib, dtype)
    return lib.empty(0, dtype=dtype, device=like.device)


C = None  # contiguous strides
T2 = "t"  # a transposed matrix (the last two dims swapped in memory)


def geometry(size, layout=C):
    size = tuple(size)
    if layout == T2:  # column-major: the strides of the transpose of a contiguous tensor
        swapped = (*size[:-2], size[-1], size[-2])
        stride = list(torch.empty(swapped).stride())
        stride[-1], stride[-2] = stride[-2], stride[-1]
        return size, tuple(stride)
    return size, layout


def case(fn, shapes, dtypes="float32", layouts=None):
    """One ``check_op`` call: the operands' shapes, their dtype(s) and layouts."""
    layouts = layouts or [C] * len(shapes)
    dtypes = [dtypes] * len(shapes) if isinstance(dtypes, str) else list(dtypes)
    return fn, [geometry(s, lay) for s, lay in zip(shapes, layouts, strict=True)], dtypes


def _mm(lib, a, b):
    return lib.mm(a, b)


def _mm_out(lib, a, b):
    return lib.mm(a, b, out=out_of(lib, a))


def _mm_out_double(lib, a, b):
    return lib.mm(a, b, out=out_of(lib, a, "float64"))


def _dot_out_double(lib, a, b):
    return lib.dot(a, b, out=out_of(lib, a, "float64"))


def _bmm(lib, a, b):
    return lib.bmm(a, b)


def _bmm_out(lib, a, b):
    return lib.bmm(a, b, out=out_of(lib, a))


def _mv(lib, a, b):
    return lib.mv(a, b)


def _mv_out(lib, a, b):
    return lib.mv(a, b, out=out_of(lib, a))


def _dot(lib, a, b):
    return lib.dot(a, b)


def _dot_out(lib, a, b):
    return lib.dot(a, b, out=out_of(lib, a))


def _vdot(lib, a, b):
    return lib.vdot(a, b)


def _vdot_out(lib, a, b):
    return lib.vdot(a, b, out=out_of(lib, a))


def _addmm(lib, s, a, b):
    return lib.addmm(s, a, b, beta=2, alpha=3)


def _addmm_out(lib, s, a, b):
    return lib.addmm(s, a, b, out=out_of(lib, a))


def _addmm_(lib, s, a, b):
    return s.addmm_(a, b, alpha=2)


def _addmv_(lib, s, a, b):
    return s.addmv_(a, b)


def _baddbmm_(lib, s, a, b):
    return s.baddbmm_(a, b, beta=0.5)


def _addbmm(lib, s, a, b):
    return lib.addbmm(s, a, b)


def _addbmm_(lib, s, a, b):
    return s.addbmm_(a, b)


def _addbmm_out(lib, s, a, b):
    return lib.addbmm(s, a, b, out=out_of(lib, s))


def _matmul_out(lib, a, b):
    return lib.matmul(a, b, out=out_of(lib, a))


def _outer_out(lib, a, b):
    return lib.outer(a, b, out=out_of(lib, a, "float64"))


def _ger_out(lib, a, b):
    return lib.ger(a, b, out=out_of(lib, a))


def _tensordot_out(lib, a, b):
    return lib.tensordot(a, b, dims=([1], [0]), out=out_of(lib, a))


def _linear_out(lib, x, w, b):
    return torch._C._nn.linear(x, w, b, out=out_of(torch, x)) if lib is torch else \
        aten(vg, "linear.out")(x, w, b, out=out_of(vg, x))  # fmt: skip


def _trilinear(lib, a, b, c):
    # bilinear's call: (n, 1, in1, 1) * (1, out, in1, in2) * (n, 1, 1, in2), summed.
    return aten(lib, "_trilinear")(a, b, c, [1, 3], [0], [1, 2], [2, 3], 1)


PRODUCTS = {
    "mm": case(_mm, [(2, 3), (3, 4)]),
    "mm-transposed": case(_mm, [(2, 3), (3, 4)], layouts=[T2, T2]),
    "mm-empty": case(_mm, [(0, 3), (3, 4)]),
    "mm-empty-inner": case(_mm, [(2, 0), (0, 4)], "int64"),
    "mm-expanded": case(_mm, [(2, 3), (3, 4)], layouts=[(0, 1), C]),
    "mm-bool": case(_mm, [(2, 3), (3, 4)], "bool"),
    "mm-bad-shapes": case(_mm, [(2, 3), (2, 4)]),
    "mm-bad-dim": case(_mm, [(2, 3, 4), (4, 2)]),
    "mm-bad-dtypes": case(_mm, [(2, 3), (3, 4)], ["float32", "float64"]),
    "mm.out": case(_mm_out, [(2, 3), (3, 4)], layouts=[T2, C]),
    "mm.out-bad": case(_mm_out, [(2, 3), (4, 4)]),
    "mm.out-bad-dtype": case(_mm_out_double, [(2, 3), (3, 4)]),
    "bmm": case(_bmm, [(2, 3, 4), (2, 4, 5)], layouts=[T2, C]),
    "bmm-complex": case(_bmm, [(2, 3, 4), (2, 4, 5)], "complex64"),
    "bmm-empty": case(_bmm, [(0, 3, 4), (0, 4, 5)]),
    "bmm-bad-batches": case(_bmm, [(2, 3, 4), (3, 4, 5)]),
    "bmm-bad-dim": case(_bmm, [(3, 4), (2, 4, 5)]),
    "bmm.out": case(_bmm_out, [(2, 3, 4), (2, 4, 5)], "int64"),
    "mv": case(_mv, [(2, 3), (3,)], layouts=[T2, C]),
    "mv-expanded": case(_mv, [(2, 3), (3,)], layouts=[C, (0,)]),
    "mv-bad": case(_mv, [(2, 3), (4,)]),
    "mv-bad-dtypes": case(_mv, [(2, 3), (3,)], ["float64", "float32"]),
    "mv.out": case(_mv_out, [(2, 3), (3,)], "float64"),
    "dot": case(_dot, [(3,), (3,)]),
    "dot-bool": case(_dot, [(3,), (3,)], "bool"),
    "dot-empty": case(_dot, [(0,), (0,)], "int64"),
    "dot-bad-sizes": case(_dot, [(3,), (4,)]),
    "dot-bad-dim": case(_dot, [(3, 1), (3,)]),
    "dot-bad-dtypes": case(_dot, [(3,), (3,)], ["float32", "int64"]),
    "dot.out": case(_dot_out, [(3,), (3,)]),
    "dot.out-bad-dtype": case(_dot_out_double, [(3,), (3,)]),
    "vdot": case(_vdot, [(3,), (3,)], "complex64", layouts=[(2,), (0,)]),
    "vdot.out": case(_vdot_out, [(3,), (3,)], "complex64"),
    "addmm": case(_addmm, [(4,), (2, 3), (3, 4)]),
    "addmm-transposed": case(_addmm, [(2, 4), (2, 3), (3, 4)], layouts=[T2, T2, T2]),
    "addmm-0dim": case(_addmm, [(), (2, 3), (3, 4)], "int64"),
    "addmm-bool": case(_addmm, [(2, 4), (2, 3), (3, 4)], "bool"),
    "addmm-bad-self": case(_addmm, [(3, 4), (2, 3), (3, 4)]),
    "addmm-bad-self-dim": case(_addmm, [(2, 3, 4, 5), (2, 3), (3, 4)]),
    "addmm-bad-mat1": case(_addmm, [(4,), (2, 2, 3), (3, 4)]),
    "addmm-bad-dtypes": case(_addmm, [(4,), (2, 3), (3, 4)], ["float64", "float32", "float32"]),
    "addmm-bad-mat-dtypes": case(_addmm, [(4,), (2, 3), (3, 4)],
                                 ["float32", "float64", "float32"]),
    "addmm.out": case(_addmm_out, [(1, 4), (2, 3), (3, 4)]),
    "addmm_": case(_addmm_, [(2, 4), (2, 3), (3, 4)], layouts=[T2, C, T2]),
    "addmm_-broadcast-self": case(_addmm_, [(1, 4), (2, 3), (3, 4)]),
    "addmm_-bool": case(_addmm_, [(2, 4), (2, 3), (3, 4)], "bool"),
    "addmv_": case(_addmv_, [(2,), (2, 3), (3,)], layouts=[C, T2, C]),
    "addmv_-broadcast-self": case(_addmv_, [(1,), (2, 3), (3,)]),
    "baddbmm_": case(_baddbmm_, [(2, 3, 5), (2, 3, 4), (2, 4, 5)], layouts=[T2, C, C]),
    "baddbmm_-bad-self": case(_baddbmm_, [(1, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "addbmm": case(_addbmm, [(3, 5), (2, 3, 4), (2, 4, 5)]),
    "addbmm-broadcast": case(_addbmm, [(5,), (2, 3, 4), (2, 4, 5)], "int64"),
    "addbmm-no-batches": case(_addbmm, [(3, 5), (0, 3, 4), (0, 4, 5)]),
    "addbmm-bad-dtypes": case(_addbmm, [(3, 5), (2, 3, 4), (2, 4, 5)],
                              ["float64", "float32", "float32"]),
    "addbmm-bad-sizes": case(_addbmm, [(3, 5), (2, 3, 4), (2, 3, 5)]),
    "addbmm_": case(_addbmm_, [(3, 5), (2, 3, 4), (2, 4, 5)], layouts=[T2, C, C]),
    "addbmm.out": case(_addbmm_out, [(3, 5), (2, 3, 4), (2, 4, 5)]),
    "matmul.out": case(_matmul_out, [(2, 2, 3), (3, 4)]),
    "matmul.out-batched": case(_matmul_out, [(2, 1, 2, 3), (3, 3, 4)], layouts=[C, T2]),
    "matmul.out-vector": case(_matmul_out, [(3,), (2, 3, 4)]),
    "outer.out": case(_outer_out, [(2,), (3,)], ["float32", "int64"]),
    "outer.out-bad": case(_outer_out, [(2, 1), (3,)]),
    "ger.out": case(_ger_out, [(2,), (3,)], "int64"),
    "tensordot.out": case(_tensordot_out, [(2, 3), (3, 4)], layouts=[T2, C]),
    "linear.out": case(_linear_out, [(5, 3), (4, 3), (4,)]),
    "linear.out-3d": case(_linear_out, [(2, 5, 3), (4, 3), (4,)]),
    "_trilinear": case(_trilinear, [(5, 2), (4, 2, 3), (5, 3)]),
    "_trilinear-bad-dtypes": case(_trilinear, [(5, 2), (4, 2, 3), (5, 3)],
                                  ["float32", "float64", "float32"]),
}  # fmt: skip


def _cdist_forward(lib, a, b):
    return aten(lib, "_cdist_forward")(a, b, 2.0, None)


def _cdist_forward_p(lib, a, b):
    return aten(lib, "_cdist_forward")(a, b, 1.5, 2)


def _cdist_backward(lib, grad, a, b, dist):
    return aten(lib, "_cdist_backward")(grad, a, b, 1.0, dist)


def _euclidean_dist(lib, a, b):
    return aten(lib, "_euclidean_dist")(a, b)


DISTANCES = {
    "_cdist_forward": case(_cdist_forward, [(4, 3), (5, 3)], layouts=[T2, C]),
    "_cdist_forward-batched": case(_cdist_forward_p, [(2, 1, 4, 3), (3, 5, 3)]),
    "_cdist_forward-int": case(_cdist_forward, [(4, 3), (5, 3)], "int64"),
    "_cdist_forward-bad-columns": case(_cdist_forward, [(4, 3), (5, 2)]),
    "_cdist_forward-bad-dim": case(_cdist_forward, [(3,), (5, 3)]),
    "_cdist_backward": case(_cdist_backward, [(4, 5), (4, 3), (5, 3), (4, 5)]),
    "_cdist_backward-empty": case(_cdist_backward, [(0, 5), (0, 3), (5, 3), (0, 5)]),
    "_euclidean_dist": case(_euclidean_dist, [(4, 3), (5, 3)]),
    "_euclidean_dist-batched": case(_euclidean_dist, [(2, 4, 3), (5, 3)], "float64"),
}


def _cholesky(lib, a):
    return lib.cholesky(a)


def _cholesky_out(lib, a):
    return lib.cholesky(a, upper=True, out=out_of(lib, a, "float64"))


def _cholesky_inverse(lib, a):
    return lib.cholesky_inverse(a)


def _cholesky_inverse_out(lib, a):
    return lib.cholesky_inverse(a, out=out_of(lib, a))


def _cholesky_solve(lib, b, a):
    return lib.cholesky_solve(b, a)


def _cholesky_solve_out(lib, b, a):
    return lib.cholesky_solve(b, a, out=out_of(lib, b))


def _eig(lib, a):
    return tuple(lib.linalg.eig(a))


def _eig_out(lib, a):
    values, vectors = out_of(lib, a, "complex64"), out_of(lib, a, "complex128")
    return tuple(lib.linalg.eig(a, out=(values, vectors)))


def _eigvals(lib, a):
    return aten(lib, "_linalg_eigvals")(a)


def _eigvals_out(lib, a):
    return lib.linalg.eigvals(a, out=out_of(lib, a, "complex128"))


def _lu_solve(lib, lu, pivots, b):
    return lib.linalg.lu_solve(lu, pivots, b)


def _lu_solve_right(lib, lu, pivots, b):
    return lib.linalg.lu_solve(lu, pivots, b, left=False)


def _matrix_exp(lib, a):
    return lib.linalg.matrix_exp(a)


def _pinv(lib, a, atol, rtol):
    return lib.linalg.pinv(a, atol=atol, rtol=rtol)


def _pinv_out(lib, a, atol, rtol):
    return lib.linalg.pinv(a, atol=atol, rtol=rtol, out=out_of(lib, a))


def _solve_ex(lib, a, b):
    return tuple(aten(lib, "_linalg_solve_ex")(a, b))


def _solve_ex_right(lib, a, b):
    return tuple(aten(lib, "_linalg_solve_ex")(a, b, left=False))


def _lstsq(lib, a, b):
    return tuple(lib.linalg.lstsq(a, b))


def _lstsq_out(lib, a, b):
    solution, residuals, values = (out_of(lib, a) for _ in range(3))
    rank = out_of(lib, a, "int64")
    return tuple(lib.linalg.lstsq(a, b, out=(solution, residuals, rank, values)))


SOLVERS = {
    "cholesky": case(_cholesky, [(3, 3)]),
    "cholesky-batched": case(_cholesky, [(2, 3, 3)], "float64", layouts=[T2]),
    "cholesky-empty": case(_cholesky, [(0, 3, 3)]),
    "cholesky-bad": case(_cholesky, [(3, 4)]),
    "cholesky-bad-dim": case(_cholesky, [(3,)]),
    "cholesky.out": case(_cholesky_out, [(3, 3)]),
    "cholesky.out-bad-dtype": case(_cholesky_out, [(3, 3)], "complex64"),
    "cholesky_inverse": case(_cholesky_inverse, [(2, 3, 3)]),
    "cholesky_inverse-bad": case(_cholesky_inverse, [(2, 3)]),
    "cholesky_inverse.out": case(_cholesky_inverse_out, [(3, 3)], "float64"),
    "cholesky_solve": case(_cholesky_solve, [(3, 2), (3, 3)]),
    "cholesky_solve-broadcast": case(_cholesky_solve, [(2, 1, 3, 2), (4, 3, 3)]),
    "cholesky_solve-bad-dtypes": case(_cholesky_solve, [(3, 2), (3, 3)],
                                      ["float32", "float64"]),
    "cholesky_solve-bad-dim": case(_cholesky_solve, [(3,), (3, 3)]),
    "cholesky_solve.out": case(_cholesky_solve_out, [(3, 2), (3, 3)]),
    "linalg_eig": case(_eig, [(3, 3)]),
    "linalg_eig-batched": case(_eig, [(2, 3, 3)], "float64", layouts=[T2]),
    "linalg_eig-int": case(_eig, [(3, 3)], "int64"),
    "linalg_eig-bad": case(_eig, [(3, 4)]),
    "linalg_eig.out": case(_eig_out, [(3, 3)]),
    "_linalg_eigvals": case(_eigvals, [(2, 3, 3)], "complex64"),
    "linalg_eigvals.out": case(_eigvals_out, [(3, 3)]),
    "linalg_eigvals.out-bad-dtype": case(_eigvals_out, [(3, 3)], "complex128"),
    "linalg_lu_solve": case(_lu_solve, [(3, 3), (3,), (3, 2)], ["float32", "int32", "float32"]),
    "linalg_lu_solve-right": case(_lu_solve_right, [(2, 3, 3), (2, 3), (4, 3)],
                                  ["float64", "int32", "float64"]),
    "linalg_lu_solve-bad-pivots": case(_lu_solve, [(3, 3), (3,), (3, 2)],
                                       ["float32", "int64", "float32"]),
    "linalg_matrix_exp": case(_matrix_exp, [(2, 3, 3)], layouts=[T2]),
    "linalg_matrix_exp-1x1": case(_matrix_exp, [(4, 1, 1)], "float64", layouts=[T2]),
    "linalg_matrix_exp-0x0": case(_matrix_exp, [(4, 0, 0)]),
    "linalg_matrix_exp-int": case(_matrix_exp, [(3, 3)], "int64"),
    "linalg_matrix_exp-bad": case(_matrix_exp, [(3, 4)]),
    "linalg_pinv.atol_rtol_tensor": case(_pinv, [(3, 4), (), ()], ["float32", "float64", "float64"]),
    "linalg_pinv.atol_rtol_tensor-batched": case(_pinv, [(2, 4, 3), (2,), ()],
                                                 ["float64", "float64", "float64"]),
    "linalg_pinv.atol_rtol_tensor_out": case(_pinv_out, [(3, 4), (), ()],
                                             ["float32", "float64", "float64"]),
    "_linalg_solve_ex": case(_solve_ex, [(3, 3), (3, 2)]),
    "_linalg_solve_ex-vector": case(_solve_ex, [(2, 3, 3), (3,)], "float64", layouts=[T2, C]),
    "_linalg_solve_ex-right": case(_solve_ex_right, [(3, 3), (2, 3)]),
    "_linalg_solve_ex-bad": case(_solve_ex, [(3, 3), (4, 2)]),
    "linalg_lstsq": case(_lstsq, [(3, 3), (3, 2)]),
    "linalg_lstsq.out": case(_lstsq_out, [(3, 3), (3, 2)]),
}  # fmt: skip


def _c2c(lib, a):
    return aten(lib, "_fft_c2c")(a, [0, 2], 0, True)


def _c2c_out(lib, a):
    return aten(lib, "_fft_c2c.out")(a, [1], 2, False, out=out_of(lib, a))


def _c2c_nothing(lib, a):
    return aten(lib, "_fft_c2c")(a, [], 0, True)


def _r2c(lib, a):
    return aten(lib, "_fft_r2c")(a, [0, 2], 1, True)


def _r2c_full(lib, a):
    return aten(lib, "_fft_r2c")(a, [1], 0, False)


def _r2c_out(lib, a):
    return aten(lib, "_fft_r2c.out")(a, [1], 0, True, out=out_of(lib, a, "complex64"))


def _c2r(lib, a):
    return aten(lib, "_fft_c2r")(a, [0, 1], 0, 6)


def _c2r_out(lib, a):
    return aten(lib, "_fft_c2r.out")(a, [1], 2, 7, out=out_of(lib, a, "float32"))


FFT = {
    "_fft_c2c": case(_c2c, [(3, 4, 5)], "complex64"),
    "_fft_c2c-transposed": case(_c2c, [(3, 4, 5)], "complex128", layouts=[T2]),
    "_fft_c2c-channels-last": case(_c2c, [(2, 3, 4, 5)], "complex64",
                                   layouts=[(60, 1, 15, 3)]),
    "_fft_c2c-nothing": case(_c2c_nothing, [(3, 4)], "complex64", layouts=[T2]),
    "_fft_c2c-real": case(_c2c, [(3, 4, 5)]),
    "_fft_c2c.out": case(_c2c_out, [(3, 4)], "complex64", layouts=[T2]),
    "_fft_r2c": case(_r2c, [(3, 4, 5)], layouts=[T2]),
    "_fft_r2c-two-sided": case(_r2c_full, [(3, 4)], "float64"),
    "_fft_r2c-complex": case(_r2c, [(3, 4, 5)], "complex64"),
    "_fft_r2c-half": case(_r2c, [(3, 4, 5)], "float16"),
    "_fft_r2c.out": case(_r2c_out, [(3, 4)]),
    "_fft_c2r": case(_c2r, [(3, 4, 5)], "complex64", layouts=[T2]),
    "_fft_c2r-real": case(_c2r, [(3, 4)]),
    "_fft_c2r.out": case(_c2r_out, [(3, 4)], "complex64"),
}  # fmt: skip

CASES = {**PRODUCTS, **DISTANCES, **SOLVERS, **FFT}


@pytest.mark.parametrize("name", CASES)
def test_meta_result_matches_pytorch(name):
    fn, geometries, dtypes = CASES[name]
    check_op(fn, meta_pairs(geometries, dtypes))


def test_every_overload_of_the_family_has_a_meta_kernel_and_a_case():
    """The overloads this family's meta kernels were written for are all registered,
    and each has a case above."""
    from vizgrad.ops.meta_kernels import META_OVERLOADS
    from vizgrad.ops.meta_linear_algebra import KERNELS

    family = set(KERNELS) | {
        "aten::addmm", "aten::addmm_", "aten::addmm.out", "aten::addmv_", "aten::baddbmm_", "aten::bmm",
        "aten::bmm.out", "aten::mm", "aten::mm.out", "aten::mv", "aten::mv.out",
        "aten::linalg_lu_solve", "aten::_linalg_solve_ex",
    }  # fmt: skip
    assert family <= META_OVERLOADS
    covered = {name.split("-")[0] for name in CASES}
    assert {q.removeprefix("aten::") for q in family} <= covered


# --- what the meta device does for a student's model ------------------------------------------


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(
        lib.nn.Linear(3, 8, device="meta"),
        lib.nn.ReLU(),
        lib.nn.Linear(8, 8, device="meta"),
        lib.nn.Tanh(),
        lib.nn.Linear(8, 2, device="meta"),
    )


@pytest.mark.parametrize("batch", [(5,), (2, 5), ()])
def test_mlp_forward_and_backward_on_meta(batch):
    v_model, t_model = _mlp(vg), _mlp(torch)
    v_x, t_x = meta_pair((*batch, 3), requires_grad=True)
    v_y, t_y = v_model(v_x), t_model(t_x)
    assert_meta_same(v_y, t_y)
    assert v_y.grad_fn.name() == t_y.grad_fn.name()
    v_y.sum().backward()
    t_y.sum().backward()
    for v_p, t_p in zip(v_model.parameters(), t_model.parameters(), strict=True):
        assert_meta_same(v_p.grad, t_p.grad)
    assert_meta_same(v_x.grad, t_x.grad)


def test_linear_without_bias_and_transposed_input():
    v_w, t_w = meta_pair((4, 3), requires_grad=True)
    v_x, t_x = meta_pair((3, 5), requires_grad=True)
    v_y = vg.nn.functional.linear(v_x.t(), v_w)
    t_y = torch.nn.functional.linear(t_x.t(), t_w)
    assert_meta_same(v_y, t_y)
    v_y.backward(vg.empty(v_y.shape, device="meta"))
    t_y.backward(torch.empty(t_y.shape, device="meta"))
    assert_meta_same(v_w.grad, t_w.grad)
    assert_meta_same(v_x.grad, t_x.grad)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda a, b: a.mm(b), [(2, 3), (3, 4)]),
        (lambda a, b: a.bmm(b), [(2, 2, 3), (2, 3, 4)]),
        (lambda a, b: a.mv(b), [(2, 3), (3,)]),
        (lambda a, b: a.dot(b), [(3,), (3,)]),
        (lambda a, b: a @ b, [(2, 1, 2, 3), (3, 3, 4)]),
        (lambda a, b: a.addmm(b, b, beta=2), [(3,), (3, 3)]),
        (lambda a, b: a.cholesky_solve(b), [(3, 2), (3, 3)]),
    ],
)
def test_backward_through_products_on_meta(fn, shapes):
    pairs = [meta_pair(s, requires_grad=True) for s in shapes]
    v_y = fn(*[p[0] for p in pairs])
    t_y = fn(*[p[1] for p in pairs])
    assert_meta_same(v_y, t_y)
    v_y.sum().backward()
    t_y.sum().backward()
    for v, t in pairs:
        assert_meta_same(v.grad, t.grad)


# --- in-place and out= ------------------------------------------------------------------------


@pytest.mark.parametrize("method, shapes", [
    ("addmm_", [(2, 4), (2, 3), (3, 4)]),
    ("addmv_", [(2,), (2, 3), (3,)]),
    ("baddbmm_", [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("addbmm_", [(3, 5), (2, 3, 4), (2, 4, 5)]),
])  # fmt: skip
def test_inplace_returns_self_and_keeps_its_layout(method, shapes):
    """``self`` transposed in memory stays so."""
    (v, t), *others = [meta_pair(*geometry(s, T2 if i == 0 and len(s) > 1 else C))
                       for i, s in enumerate(shapes)]  # fmt: skip
    before = metadata(v)
    assert getattr(v, method)(*[p[0] for p in others]) is v
    getattr(t, method)(*[p[1] for p in others])
    assert metadata(v) == before == metadata(t)


@pytest.mark.parametrize("name", [n for n in CASES if ".out" in n or n.endswith("_")])
def test_out_and_inplace_overloads_return_their_tensor(name):
    fn, geometries, dtypes = CASES[name]
    vs = [p[0] for p in meta_pairs(geometries, dtypes)]
    result, error = outcome(fn, vg, *vs)
    if error is None:
        results = result if isinstance(result, tuple) else (result,)
        assert all(r.is_meta for r in results)


@pytest.mark.parametrize("call", [
    lambda lib, a, b: lib.mm(a, b, out=lib.empty(0)),
    lambda lib, a, b: lib.bmm(a.unsqueeze(0), b.unsqueeze(0), out=lib.empty(0)),
    lambda lib, a, b: lib.addmm(b[0], a, b, out=lib.empty(0)),
    lambda lib, a, b: lib.dot(a[0], b[:, 0], out=lib.empty(0)),
    lambda lib, a, b: lib.matmul(a, b, out=lib.empty(0)),
    lambda lib, a, b: lib.outer(a[0], b[0], out=lib.empty(0)),
    lambda lib, a, b: lib.addbmm(b, a.unsqueeze(0), b.unsqueeze(0), out=lib.empty(0)),
    lambda lib, a, b: lib.cholesky_solve(a, b, out=lib.empty(0)),
    lambda lib, a, b: lib.cholesky_inverse(b, out=lib.empty(0)),
    lambda lib, a, b: lib.linalg.eigvals(b, out=lib.empty(0, dtype=lib.complex64)),
])  # fmt: skip
def test_out_on_the_cpu_with_meta_inputs_is_refused(call):
    (v_a, t_a), (v_b, t_b) = meta_pair((3, 3)), meta_pair((3, 3))
    _, error = outcome(call, torch, t_a, t_b)
    assert_same_error(lambda: call(vg, v_a, v_b), lambda: raise_(error))


MIXED = {
    "dot": (lambda lib, a, b: lib.dot(a, b), [(3,), (3,)]),
    "vdot": (lambda lib, a, b: lib.vdot(a, b), [(3,), (3,)]),
    "mv": (lambda lib, a, b: lib.mv(a, b), [(2, 3), (3,)]),
    "addmm": (lambda lib, s, a, b: lib.addmm(s, a, b), [(4,), (2, 3), (3, 4)]),
    "addmm_": (lambda lib, s, a, b: s.addmm_(a, b), [(2, 4), (2, 3), (3, 4)]),
    "addmv": (lambda lib, s, a, b: lib.addmv(s, a, b), [(2,), (2, 3), (3,)]),
    "addmv_": (lambda lib, s, a, b: s.addmv_(a, b), [(2,), (2, 3), (3,)]),
    "cholesky_solve": (lambda lib, b, a: lib.cholesky_solve(b, a), [(3, 2), (3, 3)]),
}


@pytest.mark.parametrize("name", MIXED)
def test_a_meta_and_a_cpu_operand_are_refused_as_in_pytorch(name):
    """Each operand on the CPU in turn, the others on the meta device."""
    fn, shapes = MIXED[name]
    for cpu in range(len(shapes)):
        pairs = [meta_pair(s) for s in shapes]
        v_args = [
            vg.ones(s) if i == cpu else p[0]
            for i, (s, p) in enumerate(zip(shapes, pairs, strict=True))
        ]
        t_args = [
            torch.ones(s) if i == cpu else p[1]
            for i, (s, p) in enumerate(zip(shapes, pairs, strict=True))
        ]
        t_result, error = outcome(fn, torch, *t_args)
        if error is None:  # PyTorch lets this operand be elsewhere
            assert_meta_same(fn(vg, *v_args), t_result)
            continue
        assert_same_error(lambda a=v_args: fn(vg, *a), lambda e=error: raise_(e))


def test_lstsq_has_no_meta_kernel_as_in_pytorch():
    (v_a, t_a), (v_b, t_b) = meta_pair((3, 3)), meta_pair((3, 2))
    _, error = outcome(torch.linalg.lstsq, t_a, t_b)
    assert_same_error(lambda: vg.linalg.lstsq(v_a, v_b), lambda: raise_(error))

    def outs(lib):
        solution, residuals, values = (lib.empty(0, device="meta") for _ in range(3))
        return solution, residuals, lib.empty(0, dtype=lib.int64, device="meta"), values

    _, error = outcome(lambda: torch.linalg.lstsq(t_a, t_b, out=outs(torch)))
    assert_same_error(lambda: vg.linalg.lstsq(v_a, v_b, out=outs(vg)), lambda: raise_(error))


# Differentiable operators of the family whose backward formulas are made of operators
# with Meta kernels: each input's gradient as PyTorch's.
BACKWARD = {
    "cholesky_solve": (lambda lib, b, a: lib.cholesky_solve(b, a), [(3, 2), (3, 3)]),
    "cholesky_inverse": (lambda lib, a: lib.cholesky_inverse(a), [(2, 3, 3)]),
    "matrix_exp": (lambda lib, a: lib.linalg.matrix_exp(a), [(3, 3)]),
    "eig": (lambda lib, a: lib.linalg.eig(a)[0].abs(), [(3, 3)]),
    "eigvals": (lambda lib, a: lib.linalg.eigvals(a).abs(), [(2, 3, 3)]),
    "cdist": (lambda lib, a, b: lib.cdist(a, b, p=1.5), [(4, 3), (2, 5, 3)]),
    "rfft": (lambda lib, a: lib.fft.rfft(a).abs(), [(4, 5)]),
    "irfft2": (lambda lib, a: lib.fft.irfft2(a.to(lib.complex64)), [(4, 5)]),
    "solve": (lambda lib, a, b: lib.linalg.solve(a, b), [(3, 3), (2, 3, 2)]),
    "pinv": (lambda lib, a: lib.linalg.pinv(a), [(3, 4)]),
    "bilinear": (lambda lib, a, b, w: lib.nn.functional.bilinear(a, b, w), [(5, 2), (5, 3), (4, 2, 3)]),
    "addbmm": (lambda lib, s, a, b: lib.addbmm(s, a, b, beta=2), [(5,), (2, 3, 4), (2, 4, 5)]),
    "baddbmm": (lambda lib, s, a, b: lib.baddbmm(s, a, b), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "addmv": (lambda lib, s, a, b: lib.addmv(s, a, b), [(1,), (2, 3), (3,)]),
    "vdot": (lambda lib, a, b: lib.vdot(a, b), [(3,), (3,)]),
    "tensordot": (lambda lib, a, b: lib.tensordot(a, b, 1), [(2, 3), (3, 4)]),
    "inverse": (lambda lib, a: lib.inverse(a), [(3, 3)]),
}  # fmt: skip


@pytest.mark.parametrize("name", BACKWARD)
def test_backward_of_the_family_on_meta(name):
    fn, shapes = BACKWARD[name]
    pairs = [meta_pair(s, requires_grad=True) for s in shapes]
    v_y, t_y = fn(vg, *[p[0] for p in pairs]), fn(torch, *[p[1] for p in pairs])
    assert_meta_same(v_y, t_y)
    v_y.sum().backward()
    t_y.sum().backward()
    for v, t in pairs:
        assert_meta_same(v.grad, t.grad)


def transposed_out(lib, like, dtype=None):
    """A non-empty ``out=`` of another shape, transposed in memory: it is resized."""
    dtype = like.dtype if dtype is None else getattr(lib, dtype)
    return lib.empty(5, 5, dtype=dtype, device=like.device).t()


RESIZED_OUT = {
    "mm.out": (lambda lib, a, b: lib.mm(a, b, out=transposed_out(lib, a)), [(2, 3), (3, 4)]),
    "dot.out": (lambda lib, a, b: lib.dot(a, b, out=transposed_out(lib, a)), [(3,), (3,)]),
    "addbmm.out": (lambda lib, s, a, b: lib.addbmm(s, a, b, out=transposed_out(lib, s)),
                   [(3, 5), (2, 3, 4), (2, 4, 5)]),
    "matmul.out": (lambda lib, a, b: lib.matmul(a, b, out=transposed_out(lib, a)),
                   [(2, 2, 3), (3, 4)]),
    "outer.out": (lambda lib, a, b: lib.outer(a, b, out=transposed_out(lib, a)), [(2,), (3,)]),
    "cholesky.out": (lambda lib, a: lib.cholesky(a, out=transposed_out(lib, a)), [(3, 3)]),
    "cholesky_inverse.out": (lambda lib, a: lib.cholesky_inverse(a, out=transposed_out(lib, a)),
                             [(3, 3)]),
    "linalg_eigvals.out": (lambda lib, a: lib.linalg.eigvals(
        a, out=transposed_out(lib, a, "complex64")), [(3, 3)]),
    "_fft_r2c.out": (lambda lib, a: aten(lib, "_fft_r2c.out")(
        a, [1], 0, True, out=transposed_out(lib, a, "complex64")), [(3, 4)]),
}  # fmt: skip


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", RESIZED_OUT)
def test_out_of_another_shape_is_resized_as_in_pytorch(name):
    fn, shapes = RESIZED_OUT[name]
    check_op(fn, [meta_pair(s) for s in shapes])
