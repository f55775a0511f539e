"""The AutogradCPU kernel: what the autograd key does for every operator call.

When grad mode is on and an input requires grad, it:

1. checks that an in-place op may write its target (not a leaf that requires grad);
2. saves what the derivative formula will need (each saved tensor remembers its
   version, so an in-place change before backward is caught);
3. redispatches below autograd to compute the result;
4. refuses complex numbers where the formula is written for real ones only (see below);
5. records a node (``MulBackward0``…) whose ``next_functions`` are the inputs'
   gradient edges, and makes it the output's ``grad_fn``.

An in-place op *rebases* history: the written tensor's ``grad_fn`` becomes the new
node. If that tensor is a view, the base's history is rebased too, through a
``CopySlices`` node, because the base's values changed.

Complex numbers: PyTorch differentiates complex functions with the conjugate Wirtinger
convention, and its code generator lets an operator's outputs be complex and require
grad only if the operator is on its list ``GRADIENT_IMPLEMENTED_FOR_COMPLEX`` (the
others raise ``throw_error_for_complex_autograd``'s error). vizgrad's list is the
``complex=True`` of each ``Derivative`` (``vizgrad.derivatives``), checked here, the one
place every operator call goes through: a formula not declared so is refused when a
complex tensor that requires grad goes in or comes out. PyTorch checks only the
outputs, trusting its real-valued formulas of complex inputs (``abs``, ``norm``…);
vizgrad checks the inputs too, because its formulas are trusted only where declared:
a refusal is better than a wrong gradient.
"""

from __future__ import annotations

from .. import events
from ..dispatcher import (
    INPLACE,
    NON_DIFFERENTIABLE_VIEW,
    NONDIFFERENTIABLE,
    OUT,
    VIEW,
    set_autograd_handler,
)
from ..dtypes import COMPLEX, FLOATING
from ..tensor import Tensor
from .anomaly import anomaly_state, capture_forward_trace
from .formula import FormulaNode, NotImplementedNode
from .grad_mode import state as grad_state
from .graph import SavedTensor, announce_node, gradient_edge, rebase_grad_fn, set_grad_fn
from .view_history import check_view_rebase_allowed, rebase_view_history

__all__ = ["autograd_kernel", "install"]


def _requires_grad(value) -> bool:
    """``value`` is a tensor that requires grad (read straight from its AutogradMeta)."""
    if not isinstance(value, Tensor):
        return False
    meta = value._autograd_meta
    return meta is not None and meta.requires_grad


_NO_EDGE = (None, 0)  # where an input needs no gradient
_SEQUENCES = (list, tuple)  # made once: ``list | tuple`` in a call builds a union each time


def bind_arguments(op, args, kwargs) -> dict:
    """Name each argument by the operator's schema (positional, then keyword; a keyword
    option the call left out has its default)."""
    bound = {**op.keyword_defaults, **kwargs}
    bound.update(zip(op.argument_names, args, strict=False))
    return bound


def _differentiable_inputs(op, bound):
    """``(name, value)`` per gradient edge: every Tensor parameter the derivative has a
    formula for (all of them for an operator without one), lists flattened.

    An input with no formula (``nll_loss``'s ``target`` and ``weight``) gets no edge, as
    in PyTorch, whose generated code collects the next edges of the inputs with
    derivatives only (``collect_next_edges`` in ``VariableType``); if it requires grad,
    the call is refused as PyTorch's ``check_no_requires_grad`` refuses it, rather than
    leaving that input without a gradient.
    """
    formulas = op.derivative.grads if op.derivative is not None else None
    for name, is_list in op.tensor_inputs:
        value = bound.get(name)
        if formulas is not None and name not in formulas:
            if any(_requires_grad(v) for v in (value or () if is_list else (value,))):
                raise RuntimeError(
                    f"The function '{op.name}' is not differentiable with respect to "
                    f"argument '{name}'. This input cannot have requires_grad True."
                )
            continue
        if is_list:
            for item in value or ():
                yield name, item
        else:
            yield name, value


def autograd_kernel(op, args, kwargs, redispatch):
    """The autograd key's work for one call (see the module docstring)."""
    if not grad_state.enabled:
        return redispatch(op, args, kwargs)
    # On every call in grad mode: does an input require grad? Tensor arguments are
    # looked at here (a tensor autograd never touched has no AutogradMeta), then lists
    # and keywords.
    for value in args:
        if isinstance(value, Tensor):
            meta = value._autograd_meta
            if meta is not None and meta.requires_grad:
                break
        elif (
            isinstance(value, _SEQUENCES)
            and op.lists_may_hold_tensors
            and any(_requires_grad(v) for v in value)
        ):
            break
    else:
        # Keywords are options (``alpha``) or ``out=``; only a tensor among them counts.
        for value in kwargs.values():
            if isinstance(value, Tensor) and _requires_grad(value):
                break
        else:
            if op.variant is INPLACE:
                _check_view_of_requiring_base(args[0])
            return redispatch(op, args, kwargs)
    derivative = op.derivative
    if op.kind is NONDIFFERENTIABLE or op.variant is NON_DIFFERENTIABLE_VIEW:
        # Checked first: out= is fine for ops without gradients (``nonzero(x, out=o)``).
        return redispatch(op, args, kwargs)
    if op.variant is OUT:
        raise RuntimeError(
            f"{op.name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    target = args[0] if op.variant is INPLACE else None
    if target is not None:
        check_inplace_allowed(target)

    bound = bind_arguments(op, args, kwargs)
    names, edges, meta = [], [], []
    needs_grad = set()  # the names of the inputs that need a gradient
    complex_input = False  # a complex input requires grad
    for name, value in _differentiable_inputs(op, bound):
        if isinstance(value, Tensor):
            requires = _requires_grad(value)
            if requires:
                complex_input = complex_input or value._dtype.category == COMPLEX
                needs_grad.add(name)
            edges.append(gradient_edge(value) if requires else _NO_EDGE)
            meta.append((value._size, value._dtype, value.device))
        else:
            edges.append(_NO_EDGE)
            meta.append(None)
        names.append(name)

    if derivative is None:
        result = redispatch(op, args, kwargs)
        _check_complex(op, derivative, result, complex_input)
        node = NotImplementedNode(op.qualname, edges)
    else:
        saved = _save_before(derivative, bound, target, derivative.unneeded_saves(needs_grad))
        result = redispatch(op, args, kwargs)
        _check_complex(op, derivative, result, complex_input)
        node = FormulaNode.create(derivative, names, edges, meta, saved)
        _save_after(derivative, saved, result, node)
    if anomaly_state.enabled:
        node._anomaly_trace = capture_forward_trace()

    outputs = _set_history(node, op, derivative, result, target)
    if outputs is not None and events.bus.active:
        announce_node(node, outputs, [v.tensor for v in _saved_tensors(node)])
    return result


def _complex_formula(derivative) -> bool:
    """The derivative is declared right for complex numbers (``Derivative(complex=True)``)."""
    return derivative is not None and derivative.complex


def complex_autograd_refused(op, where: str) -> str:
    """PyTorch's ``throw_error_for_complex_autograd`` message, naming the operator as its
    codegen does (``base_name``: ``sub_`` and ``sub.out`` are ``sub``); ``where`` is
    "outputs" (PyTorch's words) or "inputs" (vizgrad's own check)."""
    name = op.name[:-1] if op.name.endswith("_") and not op.name.endswith("__") else op.name
    return f"{name} does not support automatic differentiation for {where} with complex dtype."


def _check_complex(op, derivative, result, complex_input: bool) -> None:
    """Refuse complex outputs, or complex inputs that require grad, of a formula written
    for real numbers, before the outputs get a node. Made after the kernel ran, as
    PyTorch's check is (it reads the outputs' dtypes)."""
    if _complex_formula(derivative):
        return
    chosen = getattr(derivative, "differentiable_outputs", None)
    for i, out in enumerate(result if isinstance(result, tuple | list) else (result,)):
        complex_output = isinstance(out, Tensor) and out._dtype.category == COMPLEX
        if complex_output and (chosen is None or i in chosen):
            raise RuntimeError(complex_autograd_refused(op, "outputs"))
    if complex_input:
        raise RuntimeError(complex_autograd_refused(op, "inputs"))


def check_inplace_allowed(target: Tensor) -> None:
    """An in-place write may not change a leaf that requires grad (or a view of one).

    Nor a view whose history can't be rewritten (made by ``unbind``, under ``no_grad``…).
    """
    base = target._base
    if base is not None:
        check_view_rebase_allowed(target)
    if target._grad_fn is None and target._requires_grad and base is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    if base is not None and base._grad_fn is None and base._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


def _check_view_of_requiring_base(target) -> None:
    # A view made under no_grad of a base that requires grad requires grad itself in
    # PyTorch (without a grad_fn): writing it in place in grad mode is checked the same way.
    base = target._base if isinstance(target, Tensor) else None
    if base is not None and base._requires_grad:
        check_view_rebase_allowed(target)


def _save_before(derivative, bound, target, unneeded=frozenset()) -> dict:
    saved = {}
    # Each name's meaning was read from its spelling once, when it was declared.
    for name, how, argument in derivative.save_plan:
        if name in unneeded:
            # No gradient that will be computed reads it: keep nothing (``_saved_self`` is
            # None; PyTorch keeps an empty tuple for unneeded strides).
            saved[name] = () if how == "_sym_strides" else None
            continue
        if how == "argument":
            value = bound.get(name)
            if isinstance(value, Tensor):
                if value is target:
                    # The in-place kernel is about to overwrite it: keep the original values.
                    value = value.clone()
                saved[name] = SavedTensor(value)
            elif isinstance(value, list) and any(isinstance(v, Tensor) for v in value):
                # ``Tensor?[]`` (index's indices) may hold None entries: kept as None.
                saved[name] = [SavedTensor(v) if isinstance(v, Tensor) else v for v in value]
            else:
                saved[name] = value
        elif how == "result":
            continue
        elif how == "_sym_sizes":
            saved[name] = bound[argument]._size
        elif how == "_sym_strides":
            saved[name] = bound[argument]._stride
        elif how == "_geometry":  # size, stride and offset (``as_strided``'s backward)
            t = bound[argument]
            saved[name] = (t._size, t._stride, t._offset)
        elif how == "_args_sizes":  # the shapes of a Tensor[] argument (cat)
            saved[name] = [t._size for t in bound[argument]]
        else:  # "_sym_numel"
            saved[name] = bound[argument].numel()
    return saved


def _save_after(derivative, saved, result, node) -> None:
    if "result" in derivative.save and "result" not in saved:
        first = result[0] if isinstance(result, tuple | list) else result
        saved["result"] = SavedTensor(first, node, is_output=True)
    for name in derivative.save:
        # Other outputs are saved by their name in the schema (``max.dim``'s ``indices``,
        # ``aminmax``'s ``min``) or by position (``std_mean``'s ``result0``).
        output = _named_output(result, name) if saved.get(name) is None else None
        if output is not None:
            saved[name] = SavedTensor(output, node, is_output=True)
    for v in saved.values():
        if isinstance(v, SavedTensor):
            v.node = node


def _named_output(result, name: str):
    fields = getattr(result, "_fields", ())
    if name in fields:
        return getattr(result, name)
    if isinstance(result, tuple) and name.startswith("result") and name[6:].isdigit():
        return result[int(name[6:])]
    return None


def _saved_tensors(node):
    # In the order of their ``_saved_<name>`` attributes (as ``dir(grad_fn)`` lists them).
    for _, v in sorted(getattr(node, "_saved", {}).items()):
        if isinstance(v, SavedTensor):
            yield v
        elif isinstance(v, list):
            yield from (s for s in v if isinstance(s, SavedTensor))


def _set_history(node, op, derivative, result, target) -> list | None:
    """Make ``node`` the ``grad_fn`` of the differentiable outputs; return them.

    Returns None when the write went through a view: then ``node`` lives inside the
    base's CopySlices, which (with the view's new AsStrided node) is what joined the graph.
    """
    if target is not None:
        if target._base is not None and not getattr(derivative, "inplace_view", False):
            rebase_view_history(target, node)
            return None
        else:
            meta = rebase_grad_fn(target, node, 0)
            if target._base is not None:  # ``v.t_()``: v's own history, from this write on
                meta.attr_version = target._version_counter.value
        return [target]
    results = list(result) if isinstance(result, tuple | list) else [result]
    chosen = getattr(derivative, "differentiable_outputs", None)
    outputs = []
    for i, out in enumerate(results):
        if not isinstance(out, Tensor) or (chosen is not None and i not in chosen):
            continue
        if out._dtype.category < FLOATING:  # integer outputs never require grad
            continue
        meta = set_grad_fn(out, node, i)
        if op.variant is VIEW:
            meta.attr_version = out._version_counter.value
        outputs.append(out)
    if getattr(derivative, "multi_output", False):
        # Outputs that get no gradient in backward get zeros of this shape (FormulaNode).
        node._output_meta = tuple((o._size, o._dtype, o.device) if isinstance(o, Tensor) else None
                                  for o in results)  # fmt: skip
    return outputs


def install() -> None:
    set_autograd_handler(autograd_kernel)
