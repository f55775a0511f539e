"""``torch.testing``: ``assert_close``, comparing tensors with dtype-aware tolerances."""

from __future__ import annotations
