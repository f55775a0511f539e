"""The dispatcher: every operator call walks PyTorch's dispatch keys in order.

For a CPU strided tensor an operator call visits, in order:

1. ``AutogradCPU`` — records a ``grad_fn`` node when an input requires grad, then
   *redispatches* below autograd. ``vizgrad.autograd`` installs this step's work
   with ``set_autograd_handler``; until then it only redispatches.
2. ``ADInplaceOrView`` — for view ops, makes the result a view of its base (shared
   version counter, ``_base``); for in-place and ``out=`` ops, bumps the version
   counter of what was written. For functional ops this key is a *fall-through*:
   it is skipped, as PyTorch skips it.
3. ``CPU`` — the backend kernel. Inside it, a second dispatch picks the dtype loop
   (``AT_DISPATCH_ALL_TYPES``); see ``vizgrad.ops.iterator``.

Each step emits an ``OpDispatched`` event, which is what ``dispatch_trace`` prints.
While someone listens, each call also gets a *call id*: its steps carry it (and the
id of the call it was made from), every event emitted during the call names it, and
an ``OpReturned`` event closes it — so the views rebuild the call tree exactly, the
way a profiler's enter/exit records do.
"""

from __future__ import annotations

from . import events
from .autograd_meta import DifferentiableViewMeta
from .grad_mode import state as grad_state
from .tensor import Tensor

__all__ = [
    "COMPOSITE",
    "COMPOSITE_IMPLICIT",
    "EXPLICIT",
    "NONDIFFERENTIABLE",
    "FUNCTIONAL",
    "INPLACE",
    "OUT",
    "VIEW",
    "NON_DIFFERENTIABLE_VIEW",
    "RESIZE",
    "Operator",
    "current_call",
    "current_op",
    "dispatch",
    "set_autograd_handler",
]

# An overload's variant decides what ADInplaceOrView does for it.
FUNCTIONAL = "functional"  # returns a new tensor
INPLACE = "inplace"  # writes its first argument (``add_``)
OUT = "out"  # writes the tensor passed as ``out=``
VIEW = "view"  # returns a tensor sharing its first argument's storage
# ``detach``: shares storage and version counter, but autograd does not see a view
# (``_base`` stays None), as ``make_variable_non_differentiable_view``.
NON_DIFFERENTIABLE_VIEW = "non_differentiable_view"
# ``resize_``: writes its first argument's size (and may grow its storage), but the
# version goes up only if the size changed (PyTorch's ADInplaceOrView::resize_).
RESIZE = "resize"

# What the autograd key does for an operator: its *kind*, a fact about the operator
# (PyTorch's dispatch table entry for the Autograd key), not about one call.
# An explicit derivative formula (``derivatives.yaml``): the autograd key records a node.
EXPLICIT = "explicit"
# CompositeImplicitAutograd (``matmul``, ``reshape``…): the kernel runs at the autograd
# key and is made of other operators, which record their own nodes.
COMPOSITE_IMPLICIT = "CompositeImplicitAutograd"
# Outputs never require grad (``argmax``, comparisons…): nothing is recorded.
NONDIFFERENTIABLE = "non-differentiable"
# The markers an old-style declaration passes in the derivative slot (see ``Operator``).
COMPOSITE = COMPOSITE_IMPLICIT

AUTOGRAD_KEY = "AutogradCPU"
INPLACE_OR_VIEW_KEY = "ADInplaceOrView"
BACKEND_KEY = "CPU"


class Operator:
    """One operator overload, as one entry of PyTorch's ``native_functions.yaml``.

    ``schema`` is its signature in PyTorch's schema language
    (``add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor``);
    ``kernel`` is the CPU implementation; ``derivative`` its backward formula
    (``derivatives.yaml``) when ``kind`` is ``EXPLICIT``. ``kind`` says what the
    autograd key does with it: record a node (``EXPLICIT``), run the kernel there and
    let its inner calls record (``COMPOSITE_IMPLICIT``), or nothing
    (``NONDIFFERENTIABLE``). Without a ``kind``, it is read from ``derivative``,
    which may then be the marker ``COMPOSITE`` or ``"non-differentiable"``.
    """

    __slots__ = ("schema", "name", "overload", "qualname", "variant", "kernel", "derivative",
                 "kind", "params", "params_info", "positional_count", "keyword_names",
                 "params_names", "out_names")  # fmt: skip

    def __init__(self, schema: str, variant: str, kernel, derivative=None, kind=None):
        self.schema = schema
        full_name = schema.split("(", 1)[0]
        self.name, _, self.overload = full_name.partition(".")
        self.qualname = f"aten::{full_name}"
        self.variant = variant
        self.kernel = kernel
        if kind is None:
            kind = {COMPOSITE_IMPLICIT: COMPOSITE_IMPLICIT,
                    NONDIFFERENTIABLE: NONDIFFERENTIABLE}.get(derivative, EXPLICIT)  # fmt: skip
            derivative = derivative if kind is EXPLICIT else None
        self.kind = kind
        self.derivative = derivative
        self.params = schema_params(schema)
        # For the argument parser: each non-out parameter's (schema name, keyword-only,
        # Python name) and the names of the tensors an out= overload writes.
        self.params_info, self.out_names = _call_layout(schema)
        self.positional_count = sum(not kwarg_only for _, kwarg_only, _ in self.params_info)
        self.keyword_names = tuple(name for name, kwarg_only, _ in self.params_info if kwarg_only)
        self.params_names = frozenset(name for name, _, _ in self.params_info)

    def __call__(self, *args, **kwargs):
        return dispatch(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<Operator {self.qualname} ({self.variant})>"


def schema_params(schema: str) -> tuple[tuple[str, str], ...]:
    """``(type, name)`` of each parameter: ``add.Tensor(Tensor self, …)`` -> ``(("Tensor", "self"), …)``.

    Keyword-only parameters (after ``*``) are included; autograd binds arguments by name.
    """
    inside = schema.split("(", 1)[1].rsplit(") ->", 1)[0]
    params, depth, current = [], 0, ""
    for char in inside + ",":
        if char == "," and depth == 0:
            param = current.strip().split("=")[0].strip()
            if param and param != "*":
                type_, _, name = param.rpartition(" ")
                params.append((type_, name))
            current = ""
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        current += char
    return tuple(params)


def _call_layout(schema: str):
    inside = schema.split("(", 1)[1].rsplit(") ->", 1)[0]
    layout, outs, kwarg_only, depth, current = [], [], False, 0, ""
    for char in inside + ",":
        if char == "," and depth == 0:
            param = current.strip().split("=")[0].strip()
            current = ""
            if param == "*":
                kwarg_only = True
            elif param:
                type_, _, name = param.rpartition(" ")
                if kwarg_only and "!" in type_:
                    outs.append(name)
                else:
                    layout.append((name, kwarg_only, "input" if name == "self" else name))
            continue
        depth += (char in "([") - (char in ")]")
        current += char
    return tuple(layout), tuple(outs)


class _DispatchState:
    __slots__ = ("depth", "autograd_handler", "below_autograd", "call", "parent", "call_op",
                 "next_call")  # fmt: skip

    def __init__(self):
        self.depth = 0  # nesting of calls in progress, for the trace's indentation
        self.autograd_handler = None
        # > 0 while a backend kernel runs: the ops it calls skip the autograd key, as
        # PyTorch's AutoDispatchBelowADInplaceOrView guard makes them do.
        self.below_autograd = 0
        # The call in progress, for the events: its id (0 outside any call, or in a call
        # that began while nobody listened), the id of the call that made it, and its
        # overload's name. Ids are counted only while someone listens.
        self.call = 0
        self.parent = 0
        self.call_op = ""
        self.next_call = 1


_state = _DispatchState()


def set_autograd_handler(handler) -> None:
    """Install the AutogradCPU kernel: ``handler(op, args, kwargs, redispatch)``."""
    _state.autograd_handler = handler


def current_call() -> int:
    """The id of the operator call in progress (0 outside any call): what events name."""
    return _state.call


def current_op() -> str:
    """The qualified overload name of the call in progress (``aten::add.Tensor``), or ""."""
    return _state.call_op


def dispatch(op: Operator, args: tuple, kwargs: dict):
    """Call ``op``: enter at the highest key (AutogradCPU) and walk down."""
    if events.bus.active:
        return _dispatch_observed(op, args, kwargs)
    return _walk_keys(op, args, kwargs)


def _dispatch_observed(op: Operator, args: tuple, kwargs: dict):
    """``dispatch`` while someone listens: the call gets an id, and ``OpReturned`` ends it."""
    state = _state
    outer = (state.call, state.parent, state.call_op)
    call = state.next_call
    state.next_call = call + 1
    state.call, state.parent, state.call_op = call, outer[0], op.qualname
    try:
        result = _walk_keys(op, args, kwargs)
    except BaseException as error:
        state.call, state.parent, state.call_op = outer
        if events.bus.active:
            events.bus.emit(events.OpReturned(call, op.qualname, type(error).__name__))
        raise
    state.call, state.parent, state.call_op = outer
    if events.bus.active:
        events.bus.emit(events.OpReturned(call, op.qualname))
    return result


def _walk_keys(op: Operator, args: tuple, kwargs: dict):
    """Walk the keys from AutogradCPU down (only the backend when called inside a kernel)."""
    if _state.below_autograd:
        # Called from inside a kernel: PyTorch's AutoDispatchBelowADInplaceOrView guard
        # excludes the autograd and ADInplaceOrView keys, so only the backend runs. The
        # outer call's own keys record history and bump versions for what it returns.
        return _backend(op, args, kwargs, "call")
    if events.bus.active:
        _emit_step(op, AUTOGRAD_KEY, "call", args, _autograd_note(op, args, kwargs))
    _state.depth += 1
    try:
        if op.kind is COMPOSITE_IMPLICIT:
            return op.kernel(*args, **kwargs)
        handler = _state.autograd_handler
        if handler is None:
            return redispatch_below_autograd(op, args, kwargs)
        return handler(op, args, kwargs, redispatch_below_autograd)
    finally:
        _state.depth -= 1


def redispatch_below_autograd(op: Operator, args: tuple, kwargs: dict, action="redispatch"):
    """The keys under autograd: ADInplaceOrView (unless it falls through), then CPU."""
    if op.variant is FUNCTIONAL:
        return _backend(op, args, kwargs, action)
    if op.variant is INPLACE or op.variant is OUT or op.variant is RESIZE:
        _check_inference_write(kwargs["out"] if op.variant is OUT else args[0])
    size_before = args[0]._size if op.variant is RESIZE else None
    if events.bus.active:
        _emit_step(op, INPLACE_OR_VIEW_KEY, action, args, _INPLACE_OR_VIEW_NOTES[op.variant])
    _state.depth += 1
    try:
        result = _backend(op, args, kwargs)
    finally:
        _state.depth -= 1
    if op.variant is VIEW:
        _make_views(op, args[0], result)
    elif op.variant is NON_DIFFERENTIABLE_VIEW:
        result._version_counter = args[0]._version_counter
    elif op.variant is INPLACE:
        _record_write(op, args[0])
    elif op.variant is RESIZE:
        if args[0]._size != size_before:
            _record_write(op, args[0])
    else:  # OUT
        out = kwargs["out"]
        for t in out if isinstance(out, tuple | list) else (out,):
            _record_write(op, t)
    return result


def _backend(op: Operator, args: tuple, kwargs: dict, action="redispatch"):
    if events.bus.active:
        _emit_step(op, BACKEND_KEY, action, args, _BACKEND_NOTE)
    _state.depth += 1
    _state.below_autograd += 1
    try:
        return op.kernel(*args, **kwargs)
    finally:
        _state.depth -= 1
        _state.below_autograd -= 1


def _make_views(op: Operator, source, result) -> None:
    """``as_view``: results share the source's storage, base and version counter."""
    base = source._base
    if base is None:  # the source owns its memory
        base = source
    for view in result if isinstance(result, tuple | list) else (result,):
        if view is source:  # in-place view ops (``t_``) change metadata, not identity
            continue
        view._autograd_meta = DifferentiableViewMeta(base)
        view._version_counter = source._version_counter
        if events.bus.active:
            made = events.ViewCreated(view._id, base._id, source._id, op.name, view._size,
                                      view._stride, view._offset, _state.call)  # fmt: skip
            events.bus.emit(made)


def _check_inference_write(target) -> None:
    for t in target if isinstance(target, tuple | list) else (target,):
        if t._inference and not grad_state.inference:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
                "make a clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details."
            )


def _record_write(op: Operator, tensor) -> None:
    if tensor._inference:
        return  # inference tensors keep no version counter
    tensor._version_counter.value += 1
    if events.bus.active:
        written = events.InplaceWrite(tensor._id, tensor._storage._id, op.qualname,
                                      tensor._version_counter.value, _state.call)  # fmt: skip
        events.bus.emit(written)


# --- what each key decided, for the ``note`` of its ``OpDispatched`` event -----------------

_INPLACE_OR_VIEW_NOTES = {
    VIEW: "view: the result shares its input's storage, base and version counter",
    NON_DIFFERENTIABLE_VIEW: "shares storage and version counter; autograd sees no view",
    RESIZE: "resize: bumps the version counter of self if its size changed",
    INPLACE: "in-place: bumps the version counter of self after the kernel writes it",
    OUT: "out=: bumps the version counter of out after the kernel writes it",
}
_BACKEND_NOTE = "CPU strided kernel; the dtype is dispatched inside it"


def _input_requires_grad(args, kwargs) -> bool:
    for value in (*args, *(v for k, v in kwargs.items() if k != "out")):
        if isinstance(value, Tensor) and value.requires_grad:
            return True
        if isinstance(value, tuple | list) and any(
            isinstance(v, Tensor) and v.requires_grad for v in value
        ):
            return True
    return False


def _autograd_note(op: Operator, args: tuple, kwargs: dict) -> str:
    """What the autograd key will do with this call, decided before it does it."""
    if op.kind is COMPOSITE_IMPLICIT:
        return "CompositeImplicitAutograd: runs here; the operators it calls record their nodes"
    if not grad_state.enabled:
        return "grad mode is off: records nothing"
    if not _input_requires_grad(args, kwargs):
        return "no input requires grad: records nothing"
    if op.kind is NONDIFFERENTIABLE or op.variant is NON_DIFFERENTIABLE_VIEW:
        return "not differentiable: records nothing"
    if op.variant is OUT:
        return "out= with an input that requires grad: refused"
    if op.derivative is None:
        return "no derivative formula: records a node that raises in backward"
    return f"records {op.derivative.name}"


def _emit_step(op: Operator, key: str, action: str, args: tuple, note: str = "") -> None:
    inputs = tuple([a._id for a in args if isinstance(a, Tensor)])
    events.bus.emit(events.OpDispatched(op.qualname, key, action, _state.depth, op.variant, inputs,
                                        note, _state.call, _state.parent))  # fmt: skip
