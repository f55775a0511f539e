"""PyTorch's documentation examples, run with vizgrad in torch's place (``torch_doc_examples``).

The names are those of the everyday namespace a tutorial reaches for: each one's
``>>>`` examples give the same values (or the same exception class) in both libraries.
"""

from __future__ import annotations

import pytest
from torch_doc_examples import assert_same_outcome, examples, run_both

SHAPES = """broadcast_to broadcast_tensors meshgrid ravel atleast_1d atleast_2d atleast_3d block_diag
rot90 kron vander tril_indices triu_indices cartesian_prod combinations diag_embed diagflat
column_stack dstack row_stack hsplit vsplit dsplit tensor_split swapaxes swapdims moveaxis
narrow_copy select_scatter slice_scatter diagonal_scatter as_strided_scatter index_copy
index_fill index_reduce scatter_reduce take_along_dim masked_scatter Tensor.index_reduce_
Tensor.scatter_reduce_ Tensor.index_copy_ Tensor.index_fill_ Tensor.masked_scatter_"""
MATH = """acosh asinh atanh lgamma digamma polygamma erfc erfinv logit xlogy logaddexp logaddexp2
hypot copysign nextafter ldexp frexp float_power true_divide sinc deg2rad rad2deg nan_to_num
signbit heaviside gcd lcm clamp_min clamp_max positive"""
SPECIAL = """expit logit erf erfc erfinv xlogy log_softmax softmax logsumexp gammaln digamma i0
sinc entr"""
REDUCTIONS = """cummax cummin logcumsumexp diff quantile nanquantile nanmean nansum nanmedian mode
aminmax var_mean std_mean cov corrcoef trapezoid cumulative_trapezoid histc histogram bincount
searchsorted bucketize isin unique_consecutive"""
MATRICES = """trace addmv addr addbmm baddbmm chain_matmul cross cdist det logdet slogdet inverse
pinverse matrix_power matrix_exp dist"""
LINALG = """norm vector_norm matrix_norm det slogdet inv inv_ex solve lstsq cholesky qr svd svdvals
eig eigh eigvalsh pinv matrix_rank cross vecdot multi_dot lu_factor lu_solve"""
COMPLEX = """complex polar real imag angle conj is_conj resolve_conj view_as_real view_as_complex
Tensor.view"""
FFT = "fft ifft rfft irfft fft2 fftn fftfreq fftshift"
TUTORIAL_BASICS = "testing.assert_close finfo iinfo Tensor.new_tensor Tensor.new_zeros Tensor.new_ones Tensor.new_full Tensor.new_empty"

NAMES = (
    SHAPES.split() + MATH.split() + REDUCTIONS.split() + MATRICES.split() + COMPLEX.split()
    + [f"special.{name}" for name in SPECIAL.split()]
    + [f"linalg.{name}" for name in LINALG.split()]
    + [f"fft.{name}" for name in FFT.split()]
    + TUTORIAL_BASICS.split()
)  # fmt: skip
DOCUMENTED = [name for name in NAMES if examples(name)]
# Results of uninitialised memory: only their dtype and shape can be compared.
UNINITIALISED = {"Tensor.new_empty"}
# Examples that need what vizgrad does not have yet; strict, so they fail once it does.
NOT_YET: dict[str, str] = {}


def test_most_names_have_examples():
    """The list is not vacuous: PyTorch documents examples for nearly all of them."""
    assert len(DOCUMENTED) > 0.8 * len(NAMES)


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=pytest.mark.xfail(reason=NOT_YET[name], strict=True))
     if name in NOT_YET else name for name in DOCUMENTED],
)  # fmt: skip
def test_documentation_examples(name):
    for source, torch_outcome, vizgrad_outcome in run_both(name):
        assert_same_outcome(source, torch_outcome, vizgrad_outcome,
                            values=name not in UNINITIALISED)  # fmt: skip
