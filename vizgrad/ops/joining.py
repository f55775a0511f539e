"""Joining and repeating: ``cat``, ``stack``, ``repeat``, ``flip``, ``roll``…"""

from __future__ import annotations

__all__: list[str] = []
