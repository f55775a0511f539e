"""The discrete Fourier transform: ``fft_fft``, ``fft_rfft``… (``SpectralOps.cpp``)."""

from __future__ import annotations

__all__: list[str] = []
