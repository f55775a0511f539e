"""``torch.fft``: the discrete Fourier transform (``fft.fft``, ``fft.rfft``…), each an
operator declared in ``vizgrad/ops/spectral.py``."""

from __future__ import annotations
