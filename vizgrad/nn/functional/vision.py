"""Resampling images: ``interpolate`` (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear) and its deprecated spellings ``upsample``, ``upsample_nearest``,
``upsample_bilinear`` (``torch/nn/functional.py``).

``interpolate`` is Python in PyTorch too: it checks ``size`` / ``scale_factor``, picks
the upsampling operator by mode and input rank, and calls its ``.vec`` overload, which
turns scale factors into an output size (``vizgrad.ops.upsample``).
"""

from __future__ import annotations

import warnings

import numpy as np

from ...ops import upsample as _upsample
from ...tensor import Tensor
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"

# (mode, input rank) -> the operator F.interpolate calls.
_OPERATORS = {
    ("nearest", 3): _upsample.upsample_nearest1d,
    ("nearest", 4): _upsample.upsample_nearest2d,
    ("nearest", 5): _upsample.upsample_nearest3d,
    ("nearest-exact", 3): _upsample._upsample_nearest_exact1d,
    ("nearest-exact", 4): _upsample._upsample_nearest_exact2d,
    ("nearest-exact", 5): _upsample._upsample_nearest_exact3d,
    ("linear", 3): _upsample.upsample_linear1d,
    ("bilinear", 4): _upsample.upsample_bilinear2d,
    ("trilinear", 5): _upsample.upsample_trilinear3d,
    ("bicubic", 4): _upsample.upsample_bicubic2d,
}
# A mode given an input of another rank: the rank the mode needs.
_NEEDED_RANK = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _is_integer(x) -> bool:
    """An int, a NumPy integer, or a tensor of integers (PyTorch's ``_is_integer``)."""
    if isinstance(x, int | np.integer):
        return True
    return isinstance(x, Tensor) and not x.is_floating_point()


def _spatial(input: Tensor) -> list:
    return list(input.shape[2:])


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):  # fmt: skip
    """``torch.nn.functional.interpolate``: resample the spatial dims of an ``(N, C, *)``
    input to ``size``, or by ``scale_factor``, with the interpolation ``mode``."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False

    dim = input.dim() - 2  # the number of spatial dims
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, list | tuple):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {_spatial(input)} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}"
                )
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, list | tuple):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {_spatial(input)} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    # "area" mode always requires an explicit size rather than scale factor.
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        # The output size is computed here and the scale factors dropped: the operator
        # then recomputes its scales from the (integer) sizes.
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None

    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if mode == "area" and input.dim() in (3, 4):
        # "area" is adaptive average pooling to the output size, as in PyTorch.
        pool = adaptive_avg_pool1d if input.dim() == 3 else adaptive_avg_pool2d
        return pool(input, output_size)
    if antialias or mode in ("area", "lanczos"):
        # PyTorch's anti-aliased kernels (_upsample_*_aa) and 3-D "area" (adaptive
        # average pooling in 3-D) are operators vizgrad does not have.
        what = "antialias=True" if antialias else f"mode={mode!r} on {input.dim()}-D input"
        raise NotImplementedError(f"interpolate: {what} is not supported by vizgrad")

    operator = _OPERATORS.get((mode, input.dim()))
    if operator is not None:
        if mode.startswith("nearest"):
            return operator(input, output_size, scale_factors)
        return operator(input, output_size, align_corners, scale_factors)
    if mode in _NEEDED_RANK and input.dim() in (3, 4, 5):
        raise NotImplementedError(
            f"Got {input.dim()}D input, but {mode} mode needs {_NEEDED_RANK[mode]}D input"
        )
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {input.dim()}D) for the modes: {_MODES} (got {mode})"
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """``torch.nn.functional.upsample``: deprecated, ``interpolate``."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """``torch.nn.functional.upsample_nearest``: deprecated, ``interpolate(mode="nearest")``."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``torch.nn.functional.upsample_bilinear``: deprecated, ``interpolate(mode="bilinear",
    align_corners=True)``."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
