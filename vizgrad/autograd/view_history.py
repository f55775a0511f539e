"""Views and in-place writes under autograd: ``CopySlices`` and regenerated view history.

A view shares memory with its base. When an in-place op writes through a view, the
*base's* values change too, so the base needs new history: PyTorch gives it a
``CopySlices`` node, which runs the in-place op's backward on the viewed slice of the
base's gradient and passes the rest through. The view then reads its history from
the base again, as an ``AsStridedBackward0`` of it.

Other views of the same base notice the write through the shared version counter:
the next time their ``grad_fn`` is asked for, it is regenerated the same way.
"""

from __future__ import annotations

import enum
import re

from ..ops.shape_views import as_strided_backward
from .formula import Derivative, FormulaNode
from .graph import Node, announce_node, gradient_edge

__all__ = ["CopySlices", "rebase_view_history", "refresh_view_grad_fn"]


def _geometry(t) -> tuple:
    return (t._size, t._stride, t._offset)


_AS_STRIDED = Derivative(
    "AsStridedBackward0",
    save=("self_geometry", "size", "stride", "storage_offset"),
    grads={
        "self": lambda grad, s: as_strided_backward(
            grad, s.self_geometry, (s.size, s.stride, s.storage_offset)
        )
    },
)


def _as_strided_node(base, view) -> Node:
    """``AsStridedBackward0`` from the base to this view's geometry."""
    saved = {
        "self_geometry": _geometry(base),
        "size": view._size,
        "stride": view._stride,
        "storage_offset": view._offset,
    }
    return FormulaNode.create(_AS_STRIDED, ["self"], [gradient_edge(base)],
                       [(base._size, base._dtype)], saved)  # fmt: skip


class CopySlices(Node):
    """The base's new history after an in-place op on one of its views."""

    def __init__(self, base, view, fn: Node):
        super().__init__([gradient_edge(base), *fn.next_functions[1:]])
        self.fn = fn
        self._base_geometry = _geometry(base)
        self._base_dtype = base._dtype
        self._view_geometry = (view._size, view._stride, view._offset - base._offset)

    def name(self) -> str:
        return "vizgrad::autograd::CopySlices"

    def apply(self, grad_outputs: tuple) -> tuple:
        import vizgrad as vg

        grad = grad_outputs[0]
        size, stride, _ = self._base_geometry
        result = vg.empty_strided(size, stride, dtype=grad.dtype)
        result.copy_(grad)
        grad_slice = result.as_strided(*self._view_geometry)
        fn_grads = self.fn.apply((grad_slice.clone(),))
        if fn_grads[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(fn_grads[0])
        return (result, *fn_grads[1:])

    def _release(self) -> None:
        self.fn._release()


def rebase_view_history(view, node: Node) -> None:
    """After ``node`` wrote ``view`` in place: CopySlices on the base, AsStrided on the view."""
    base = view._base
    copy_slices = CopySlices(base, view, node)
    base._grad_fn = copy_slices
    base._output_nr = 0
    base._requires_grad = True
    base.__dict__.pop("_grad_accumulator", None)
    view._grad_fn = _as_strided_node(base, view)
    view._output_nr = 0
    view._requires_grad = True
    view.__dict__["_view_version"] = view._version_counter.value
    announce_node(copy_slices, [base])
    announce_node(view._grad_fn, [view])


def refresh_view_grad_fn(view) -> None:
    """Regenerate a view's ``grad_fn`` if its base was written in place since it was made."""
    recorded = view.__dict__.get("_view_version")
    if recorded is None or recorded == view._version_counter.value:
        return
    base = view._base
    if base is not None and (base._requires_grad or view._grad_fn is not None):
        check_view_rebase_allowed(view, indirect=True)
    view.__dict__["_view_version"] = view._version_counter.value
    if base is None or not base._requires_grad:
        return
    view._grad_fn = _as_strided_node(base, view)
    view._output_nr = 0
    view._requires_grad = True
    announce_node(view._grad_fn, [view])


class CreationMeta(enum.Enum):
    """How a differentiable view was made (PyTorch's ``CreationMeta``).

    Autograd handles an in-place write through a view by rewriting the base's history
    (``CopySlices``). That is only sound for a view made by a single-output view op in
    grad mode (``DEFAULT``); for the others PyTorch refuses the write, because the
    rewritten history would be wrong or ambiguous.
    """

    DEFAULT = "default"
    IN_CUSTOM_FUNCTION = "in custom function"  # its custom backward would be bypassed
    MULTI_OUTPUT_NODE = "multi-output node"  # unbind/split: one node for all the views
    NO_GRAD_MODE = "no_grad mode"  # made where nothing was recorded
    INFERENCE_MODE = "inference mode"


def creation_meta_of(view) -> CreationMeta:
    return view.__dict__.get("_creation_meta", CreationMeta.DEFAULT)


def record_creation_meta(source, result, grad_enabled: bool, inference: bool) -> None:
    """Stamp the views a view op just made with their ``CreationMeta`` (``as_view``)."""
    views = list(result) if isinstance(result, tuple | list) else [result]
    if not grad_enabled:
        meta = CreationMeta.INFERENCE_MODE if inference else CreationMeta.NO_GRAD_MODE
    elif isinstance(result, tuple | list):
        meta = CreationMeta.MULTI_OUTPUT_NODE
    else:
        meta = CreationMeta.DEFAULT
    # A view of a view inherits its source's restriction (``propagate_creation_meta``).
    previous = creation_meta_of(source) if source._base is not None else CreationMeta.DEFAULT
    if meta is CreationMeta.DEFAULT or previous is CreationMeta.INFERENCE_MODE:
        meta = previous
    for view in views:
        if view is source or view._base is None:
            continue
        view.__dict__["_creation_meta"] = meta
        if meta is not CreationMeta.DEFAULT:
            # Remember the version, so a later write to the base is noticed (indirect case).
            view.__dict__.setdefault("_view_version", view._version_counter.value)


_MODE_ADVICE = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify"
    " your code by moving both the view and the inplace either both inside the {block} block"
    " (if you don't want the inplace to be tracked) or both outside (if you want the inplace"
    " to be tracked)."
)
_ADVICE = {
    CreationMeta.MULTI_OUTPUT_NODE: (
        " This view is the output of a function that returns multiple views. Such functions do"
        " not allow the output views to be modified inplace. You should replace the inplace"
        " operation by an out-of-place one."
    ),
    CreationMeta.NO_GRAD_MODE: _MODE_ADVICE.format(block="no_grad"),
    CreationMeta.INFERENCE_MODE: _MODE_ADVICE.format(block="inference_mode"),
    CreationMeta.IN_CUSTOM_FUNCTION: (
        " This view was created inside a custom Function (or because an input was returned"
        " as-is) and the autograd logic to handle view+inplace would override the custom"
        " backward associated with the custom Function, leading to incorrect gradients. This"
        " behavior is forbidden. You can fix this by cloning the output of the custom Function."
    ),
}


def check_view_rebase_allowed(view, indirect: bool = False) -> None:
    """Raise PyTorch's error if ``view``'s history may not be rewritten (``handle_view_on_rebase``).

    ``indirect``: the view itself was not written, its base (or another view of it) was,
    and the view's ``grad_fn`` is being regenerated.
    """
    meta = creation_meta_of(view)
    if meta is CreationMeta.DEFAULT:
        return
    modified = "its base or another view of its base has been" if indirect else "is being"
    grad_fn = view._grad_fn
    # PyTorch names the view's node without its "Backward0" suffix ("Output 0 of Unbind").
    fn_name = re.sub(r"Backward\d*$", "", grad_fn.name()) if grad_fn is not None else None
    if meta in (CreationMeta.INFERENCE_MODE, CreationMeta.NO_GRAD_MODE) or grad_fn is None:
        if grad_fn is not None:
            prefix = (
                f"Output {view._output_nr} of {fn_name} is a view of a view which was created in"
            )
        else:
            prefix = "A view was created in"
        if meta is CreationMeta.INFERENCE_MODE:
            message = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:  # without a grad_fn, the view was made where nothing was recorded
            message = (
                f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
            )
    else:
        message = (
            f"Output {view._output_nr} of {fn_name} is a view and {modified} modified inplace."
        )
    raise RuntimeError(message + _ADVICE[meta])
