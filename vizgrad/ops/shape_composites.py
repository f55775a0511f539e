"""Shapes built from other operators: broadcast_to, meshgrid, atleast_Nd, block_diag, kron… (``TensorShape.cpp``)."""

from __future__ import annotations

__all__: list[str] = []
