"""Views and in-place writes under autograd: ``CopySlices`` and regenerated view history.

A view shares memory with its base. When an in-place op writes through a view, the
*base's* values change too, so the base needs new history: PyTorch gives it a
``CopySlices`` node, which runs the in-place op's backward on the viewed slice of the
base's gradient and passes the rest through. The view then reads its history from
the base again, as an ``AsStridedBackward0`` of it; or, for a view ``as_strided`` cannot
make (another dtype, a math bit: ``z.imag``, ``z.conj()``), by making it again from the
base with its ``view_fn`` (``ViewAsRealBackward0`` and the rest, recorded afresh).

Other views of the same base notice the write through the shared version counter:
the next time their ``grad_fn`` is asked for, their ``DifferentiableViewMeta`` sees
that its ``attr_version`` is behind and calls ``regenerate_view_grad_fn`` (which
``vizgrad.autograd`` installs there), which rebuilds it the same way.
"""

from __future__ import annotations

import re

from ..autograd_meta import CreationMeta, DifferentiableViewMeta
from ..ops.creation import empty_strided
from ..ops.shape_views import as_strided_backward
from .formula import Derivative, FormulaNode
from .grad_mode import enable_grad
from .graph import Node, announce_node, gradient_edge, rebase_grad_fn

__all__ = [
    "CopySlices",
    "CreationMeta",
    "rebase_view_history",
    "refresh_view_grad_fn",
    "regenerate_view_grad_fn",
]


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
                       [(base._size, base._dtype, base.device)], saved)  # fmt: skip


def _view_node(base, view, meta) -> tuple:
    """The view's history from its base's: ``(node, announced)``. An AsStrided node (not yet
    announced), or the nodes recorded by making the view again with its ``view_fn``
    (announced as they were recorded), as ``VariableHooks::grad_fn`` does."""
    if meta.view_fn is None:
        return _as_strided_node(base, view), False
    with enable_grad():  # (the engine may ask with grad mode off)
        return meta.view_fn(base)._grad_fn, True


class CopySlices(Node):
    """The base's new history after an in-place op on one of its views."""

    def __init__(self, base, view, fn: Node):
        super().__init__([gradient_edge(base), *fn.next_functions[1:]])
        self.fn = fn
        self._base_geometry = _geometry(base)
        self._base_dtype = base._dtype
        self._view_geometry = (view._size, view._stride, view._offset - base._offset)
        # A view of another dtype or with a math bit is made again, not ``as_strided``.
        self._view_fn = view._autograd_meta.view_fn

    def name(self) -> str:
        return "vizgrad::autograd::CopySlices"

    def apply(self, grad_outputs: tuple) -> tuple:
        grad = grad_outputs[0]
        size, stride, _ = self._base_geometry
        result = empty_strided(size, stride, dtype=grad.dtype)
        result.copy_(grad)
        if self._view_fn is not None:
            grad_slice = self._view_fn(result)
        else:
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
    rebase_grad_fn(base, copy_slices).grad_accumulator = None
    announce_node(copy_slices, [base])
    view_node, announced = _view_node(base, view, view._autograd_meta)
    view_meta = rebase_grad_fn(view, view_node)
    view_meta.attr_version = view._version_counter.value
    if not announced:
        announce_node(view_meta.grad_fn, [view])


def regenerate_view_grad_fn(view, meta: DifferentiableViewMeta) -> None:
    """A view's ``grad_fn`` after its base was written in place: an AsStrided of the base's.

    ``meta`` (the view's) found its ``attr_version`` behind the version counter.
    """
    base = meta.base
    if base._requires_grad or meta.grad_fn is not None:
        check_view_rebase_allowed(view, indirect=True)
    meta.attr_version = view._version_counter.value
    if not base._requires_grad:
        return
    view_node, announced = _view_node(base, view, meta)
    rebase_grad_fn(view, view_node)
    if not announced:
        announce_node(meta.grad_fn, [view])


def refresh_view_grad_fn(tensor) -> None:
    """Regenerate ``tensor``'s history now if it is a view whose base was written since."""
    meta = tensor._autograd_meta
    if meta is not None:
        meta.current_grad_fn(tensor)


def creation_meta_of(view) -> CreationMeta:
    meta = view._autograd_meta
    return meta.creation_meta if isinstance(meta, DifferentiableViewMeta) else CreationMeta.DEFAULT


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
                f"Output {view._autograd_meta.output_nr} of {fn_name} is a view of a view which "
                "was created in"
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
            f"Output {view._autograd_meta.output_nr} of {fn_name} is a view and {modified} "
            "modified inplace."
        )
    raise RuntimeError(message + _ADVICE[meta])
