"""``torch.fft``: the discrete Fourier transform (``fft.fft``, ``fft.rfft``…), each an
operator declared in ``vizgrad/ops/spectral.py``.

The operators are named as ATen names them (``fft_fft``, ``fft_rfftn``…: their errors
say ``fft_fft()``, as PyTorch's); this module only gives them their short names.
"""

from __future__ import annotations

from .ops.spectral import fft_fft as fft
from .ops.spectral import fft_fft2 as fft2
from .ops.spectral import fft_fftfreq as fftfreq
from .ops.spectral import fft_fftn as fftn
from .ops.spectral import fft_fftshift as fftshift
from .ops.spectral import fft_hfft as hfft
from .ops.spectral import fft_hfft2 as hfft2
from .ops.spectral import fft_hfftn as hfftn
from .ops.spectral import fft_ifft as ifft
from .ops.spectral import fft_ifft2 as ifft2
from .ops.spectral import fft_ifftn as ifftn
from .ops.spectral import fft_ifftshift as ifftshift
from .ops.spectral import fft_ihfft as ihfft
from .ops.spectral import fft_ihfft2 as ihfft2
from .ops.spectral import fft_ihfftn as ihfftn
from .ops.spectral import fft_irfft as irfft
from .ops.spectral import fft_irfft2 as irfft2
from .ops.spectral import fft_irfftn as irfftn
from .ops.spectral import fft_rfft as rfft
from .ops.spectral import fft_rfft2 as rfft2
from .ops.spectral import fft_rfftfreq as rfftfreq
from .ops.spectral import fft_rfftn as rfftn

__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
    "fftn", "ifftn", "rfftn", "irfftn", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
    "rfftfreq", "fftshift", "ifftshift",
]  # fmt: skip
