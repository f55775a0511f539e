"""View states: plain objects that fold engine events into what a view draws.

A state has ``apply(event)`` (one event, as an ``Event`` or its ``to_dict()``),
``copy()`` (a cheap snapshot, so a Timeline can keep one every N events) and
``to_json()``/``from_json()`` (plain data, for export). States import no widget
library: the same state drives a live widget and a replay.
"""

from .tensors import TensorState

__all__ = ["TensorState"]
