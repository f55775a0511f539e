"""The dispatcher: every operator call walks PyTorch's dispatch keys in order.

For a CPU strided tensor an operator call visits, in order:

1. ``AutogradCPU`` — records a ``grad_fn`` node when an input requires grad, then
   *redispatches* below autograd. ``vizgrad.autograd`` installs this step's work
   with ``set_autograd_handler``; until then it only redispatches.
2. ``ADInplaceOrView`` — for view ops, makes the result a view of its base (shared
   version counter, ``_base``); for in-place and ``out=`` ops, bumps the version
   counter of what was written. For functional ops this key is a *fall-through*:
   it is skipped, as PyTorch skips it.
3. ``Negative``, then ``Conjugate`` — only when an argument has that *math bit* set
   (``conj()``'s lazy conjugate, ``conj().imag``'s lazy negation: see ``vizgrad.tensor``).
   Their *fallback* (``register_fallback``; ``vizgrad.ops.math_bits`` installs it, as
   PyTorch's ``ConjugateFallback.cpp``) resolves those arguments into plain tensors so
   the kernel never sees the bit, except for the operators that handle it themselves
   (views keep it; ``clone``, ``copy_`` apply it): for them the key is a fall-through.
4. ``CPU`` — the backend kernel. Inside it, a second dispatch picks the dtype loop
   (``AT_DISPATCH_ALL_TYPES``); see ``vizgrad.ops.iterator``. When an argument is a
   sparse COO tensor, the backend is ``SparseCPU`` instead: the operator's kernel for that
   layout (``register_kernel``), or PyTorch's ``NotImplementedError`` if it has none.
   When an argument is on the meta device, it is ``Meta``: the operator's meta kernel,
   which computes the result's metadata and no data (``vizgrad.meta_device``).

Most calls have work for none of the keys above the backend (no input requires grad, no
math bit, no other backend): the walk would pass them down unchanged, so they go
straight to the backend kernel. (PyTorch's autograd kernel runs for them and finds
nothing to do, in C++; here its Python frames would be a tenth of a small ``add``.)

Each step emits an ``OpDispatched`` event, which is what ``dispatch_trace`` prints (a
call that goes straight to the backend still shows the autograd key's step and the
backend's).
While someone listens, each call also gets a *call id*: its steps carry it (and the
id of the call it was made from), every event emitted during the call names it, and
an ``OpReturned`` event closes it — so the views rebuild the call tree exactly, the
way a profiler's enter/exit records do.
"""

from __future__ import annotations

from . import events, module_scope
from .autograd_meta import CreationMeta, DifferentiableViewMeta
from .device import device as Device
from .device import get_default_device
from .grad_mode import state as grad_state
from .schema import FunctionSchema
from .tensor import CONJ_BIT, META_BIT, NEG_BIT, SPARSE_BIT, Tensor

__all__ = [
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
    "call_arguments",
    "call_result",
    "current_call",
    "current_op",
    "dispatch",
    "register_fallback",
    "meta_missing",
    "register_kernel",
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

AUTOGRAD_KEY = "AutogradCPU"
INPLACE_OR_VIEW_KEY = "ADInplaceOrView"
NEGATIVE_KEY = "Negative"
CONJUGATE_KEY = "Conjugate"
BACKEND_SELECT_KEY = "BackendSelect"
BACKEND_KEY = "CPU"
SPARSE_BACKEND_KEY = "SparseCPU"
META_BACKEND_KEY = "Meta"
SPARSE_META_BACKEND_KEY = "SparseMeta"


class Operator:
    """One operator overload, as one entry of PyTorch's ``native_functions.yaml``.

    ``schema`` is its signature in PyTorch's schema language
    (``add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor``);
    ``kernel`` is the CPU implementation (``sparse_kernel`` the SparseCPU one and
    ``meta_kernel`` the Meta one, if any: ``register_kernel``); ``derivative`` its backward formula
    (``derivatives.yaml``) when ``kind`` is ``EXPLICIT``. ``kind`` says what the
    autograd key does with it: record a node (``EXPLICIT``), run the kernel there and
    let its inner calls record (``COMPOSITE_IMPLICIT``), or nothing
    (``NONDIFFERENTIABLE``).
    """

    __slots__ = ("schema", "function_schema", "name", "overload", "qualname", "variant",
                 "kernel", "derivative", "kind", "params", "params_names", "out_names",
                 "argument_names", "tensor_inputs", "lists_may_hold_tensors",
                 "below_autograd", "overload_name", "keyword_defaults",
                 "sparse_kernel", "meta_kernel", "backend_select",
                 "straight_to_backend")  # fmt: skip

    def __init__(self, schema: str, variant: str, kernel, derivative=None, kind=EXPLICIT):
        self.schema = schema
        self.function_schema = parsed = FunctionSchema.parse(schema)
        self.name, self.overload = parsed.name, parsed.overload_name
        self.qualname = f"aten::{parsed.qualified_name}"
        self.overload_name = parsed.qualified_name  # ``transpose.int``: what fallbacks list
        self.variant = variant
        self.kernel = kernel
        self.sparse_kernel = None
        self.meta_kernel = None
        if kind is not EXPLICIT and derivative is not None:
            raise ValueError(f"{schema}: only an EXPLICIT operator has a derivative formula")
        self.kind = kind
        self.derivative = derivative
        # ``(type, name)`` of every argument, keyword-only ones included: autograd binds a
        # call's arguments by these names and finds its tensor inputs by these types.
        self.params = tuple((argument.type, argument.name) for argument in parsed.arguments)
        self.argument_names = tuple(name for _, name in self.params)
        # The keyword-only options' defaults: a call that leaves them out (the parser
        # passes on only the keywords given) has these values.
        self.keyword_defaults = {argument.name: argument.default for argument in parsed.arguments
                                 if argument.kwarg_only and argument.has_default}  # fmt: skip
        # The tensor inputs a node has edges for, as ``(name, is_list)``: every Tensor
        # parameter but ``out`` (``Tensor[]`` and ``Tensor?[]`` give one edge per element).
        self.tensor_inputs = tuple(
            (name, type_.startswith(("Tensor[]", "Tensor?[]")))
            for type_, name in self.params
            if type_.startswith("Tensor") and name != "out"
        )
        # Whether a list argument may hold tensors: the autograd key looks inside lists
        # only then (the parser makes ``int[]`` lists of ints).
        self.lists_may_hold_tensors = any(
            "[" in type_ and not type_.startswith(("int", "SymInt")) for type_, _ in self.params
        )
        # What an ``out=`` overload writes (``out``, or ``values, indices``) and the names
        # of everything else, for the argument parser's routing of ``out=``.
        self.out_names = tuple(argument.name for argument in parsed.out_arguments)
        self.params_names = frozenset(argument.name for argument in parsed.without_out())
        # The keys under autograd: a functional op has nothing for ADInplaceOrView to do
        # (no version to bump, no view to track), so it goes straight to the math bits'
        # keys and the backend.
        self.below_autograd = _math_bit_keys if variant is FUNCTIONAL else redispatch_below_autograd
        # A factory (``empty``, ``arange``, ``rand``…) takes TensorOptions: its backend
        # comes from its ``device=``, not only from tensor arguments it may not have
        # (PyTorch's BackendSelect key; torchgen's ``needs_backend_select`` leaves out the
        # ``*_like`` and ``new_*`` factories, whose ``self`` says where they are).
        self.backend_select = parsed.has_tensor_options and not (
            self.name.endswith("_like") or self.name.startswith("new_")
        )
        # Whether a call whose arguments bring no work for a key above the backend may go
        # straight to it (see ``dispatch``): a functional operator that autograd records
        # (or never differentiates), whose backend its tensors decide.
        self.straight_to_backend = (
            variant is FUNCTIONAL and kind is not COMPOSITE_IMPLICIT and not self.backend_select
        )

    def __call__(self, *args, **kwargs):
        return dispatch(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<Operator {self.qualname} ({self.variant})>"


class _DispatchState:
    __slots__ = ("depth", "autograd_handler", "below_autograd", "call", "parent", "call_op",
                 "next_call", "arguments", "result", "fallbacks")  # fmt: skip

    def __init__(self):
        self.depth = 0  # nesting of calls in progress, for the trace's indentation
        self.autograd_handler = None
        # The Negative and Conjugate keys' kernels: ``bit -> (key, fallback, fall-through
        # overload names)``, registered by ``register_fallback``.
        self.fallbacks = {}
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
        # While someone listens: ``(op, args, kwargs)`` of the call in progress, and what
        # the call that is returning returned, for a subscriber that needs the Python
        # values its events name by id (``call_arguments``, ``call_result``).
        self.arguments = None
        self.result = None


_state = _DispatchState()


def set_autograd_handler(handler) -> None:
    """Install the AutogradCPU kernel: ``handler(op, args, kwargs, redispatch)``."""
    _state.autograd_handler = handler


def register_fallback(key: str, bit: int, fallback, fallthrough: frozenset) -> None:
    """Install the kernel of a math bit's key (``TORCH_LIBRARY_IMPL(_, Conjugate, m)``).

    ``fallback(op, args, kwargs, redispatch)`` runs for every call with an argument whose
    ``bit`` is set, except the overloads named in ``fallthrough`` (``"clone"``,
    ``"transpose.int"``), whose kernels handle the bit; ``redispatch(op, args, kwargs)``
    continues at the keys below.
    """
    _state.fallbacks[bit] = (key, fallback, fallthrough)


def register_kernel(op: Operator, key: str, kernel) -> None:
    """Give ``op`` its kernel for the backend ``key`` (``TORCH_LIBRARY_IMPL(aten, SparseCPU, m)``,
    or a ``dispatch: SparseCPU:`` entry in ``native_functions.yaml``).

    The dense kernel is the operator's own (``Operator.kernel``); the other backends are
    ``SparseCPU``, whose kernels live with the sparse layout (``vizgrad.ops.sparse_coo``),
    and ``Meta``, whose kernels live with the meta device (``vizgrad.ops.meta_kernels``).
    """
    backend = _OTHER_BACKENDS.get(key)
    if backend is None or backend[0] is None:
        raise ValueError(f"vizgrad has no kernels for {key!r}; it has CPU, SparseCPU and Meta")
    slot = backend[0]
    if getattr(op, slot) is not None:
        raise RuntimeError(f"{op.qualname} has two {key} kernels")
    setattr(op, slot, kernel)


def current_call() -> int:
    """The id of the operator call in progress (0 outside any call): what events name."""
    return _state.call


def current_op() -> str:
    """The qualified overload name of the call in progress (``aten::add.Tensor``), or ""."""
    return _state.call_op


def call_arguments():
    """``(op, args, kwargs)`` of the call in progress, or None outside any observed call.

    Events name tensors by id; a subscriber that must rebuild the call itself (the tracer
    of ``vizgrad.jit.trace``, as PyTorch's ``tracer::addInputs`` reads the arguments at
    its dispatch key) reads them here while handling the call's ``OpDispatched``.
    """
    return _state.arguments


def call_result():
    """What the call that is returning returned: valid while its ``OpReturned`` is handled."""
    return _state.result


def dispatch(op: Operator, args: tuple, kwargs: dict):
    """Call ``op``: enter at the highest key (AutogradCPU) and walk down."""
    if events.bus.active:
        return _dispatch_observed(op, args, kwargs)
    # ``_walk_keys`` without its events, written out here: every call takes this path,
    # and a Python call more costs it as much as the checks below.
    state = _state
    if state.below_autograd:
        return _math_bit_keys(op, args, kwargs, "call")
    if _nothing_above_backend(op, args, kwargs):
        return _run_backend_kernel(op, args, kwargs)
    state.depth += 1
    try:
        if op.kind is COMPOSITE_IMPLICIT:
            return op.kernel(*args, **kwargs)
        handler = state.autograd_handler
        if handler is None:
            return op.below_autograd(op, args, kwargs)
        return handler(op, args, kwargs, op.below_autograd)
    finally:
        state.depth -= 1


def _nothing_above_backend(op: Operator, args: tuple, kwargs: dict) -> bool:
    """No key above the backend has work in this call: the walk would pass it down to the
    backend unchanged, so ``dispatch`` calls the backend at once.

    That is a functional operator whose backend its tensors decide, called without
    keywords (options, or a tensor among them, take the walk), with no tensor argument
    that has a math bit set or another backend (sparse, meta): their keys are visited
    only for those bits. The autograd key records nothing either: grad mode is off, or
    no argument is a tensor autograd knows (one with an ``AutogradMeta``: it requires
    grad, or is a view of one that may). A list of tensors (``stack``) takes the walk.
    """
    if not op.straight_to_backend or kwargs:
        return False
    autograd_may_record = grad_state.enabled
    for value in args:
        if isinstance(value, Tensor):
            if value._key_set or (autograd_may_record and value._autograd_meta is not None):
                return False
        elif op.lists_may_hold_tensors and isinstance(value, _SEQUENCES):
            return False
    return True


def _dispatch_observed(op: Operator, args: tuple, kwargs: dict):
    """``dispatch`` while someone listens: the call gets an id, and ``OpReturned`` ends it."""
    state = _state
    outer = (state.call, state.parent, state.call_op, state.arguments)
    call = state.next_call
    state.next_call = call + 1
    state.call, state.parent, state.call_op = call, outer[0], op.qualname
    state.arguments = (op, args, kwargs)
    try:
        result = _walk_keys(op, args, kwargs)
    except BaseException as error:
        state.call, state.parent, state.call_op, state.arguments = outer
        if "op_returned" in events.bus.wanted:
            events.bus.emit(events.OpReturned(call, op.qualname, type(error).__name__))
        raise
    state.call, state.parent, state.call_op, state.arguments = outer
    if "op_returned" in events.bus.wanted:
        state.result = result
        try:
            events.bus.emit(events.OpReturned(call, op.qualname))
        finally:
            state.result = None  # hold no tensor longer than its OpReturned
    return result


def _walk_keys(op: Operator, args: tuple, kwargs: dict):
    """Walk the keys from AutogradCPU down (only the backend when called inside a kernel)."""
    if _state.below_autograd:
        # Called from inside a kernel: PyTorch's AutoDispatchBelowADInplaceOrView guard
        # excludes the autograd and ADInplaceOrView keys, so only the math bits' keys and
        # the backend run. The outer call's own keys record history and bump versions for
        # what it returns.
        return _math_bit_keys(op, args, kwargs, "call")
    if op.backend_select and not op.tensor_inputs:
        # A factory of no tensor: no argument brings an autograd key, so the walk starts at
        # BackendSelect (``requires_grad=True`` is set on the result by the binding).
        return _math_bit_keys(op, args, kwargs, "call")
    if _nothing_above_backend(op, args, kwargs):
        # The walk's two steps are shown: the autograd key's (the call's first), then the
        # backend's, a level deeper.
        if events.bus.active and "op_dispatched" in events.bus.wanted:
            _emit_steps(op, args, ((AUTOGRAD_KEY, "call", _RECORDS_NOTHING[grad_state.enabled]),
                                   (BACKEND_KEY, "redispatch", _BACKEND_NOTE)))  # fmt: skip
        _state.depth += 1
        try:
            return _run_backend_kernel(op, args, kwargs)
        finally:
            _state.depth -= 1
    if events.bus.active and "op_dispatched" in events.bus.wanted:
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
    variant = op.variant
    if variant is FUNCTIONAL:
        return _math_bit_keys(op, args, kwargs, action)
    if variant is INPLACE:
        target = args[0]
        if target._inference and not grad_state.inference:
            _check_inference_write(target)
    elif variant is OUT:
        _check_inference_write(_outputs(op, kwargs))
    elif variant is RESIZE:
        _check_inference_write(args[0])
    size_before = args[0]._size if variant is RESIZE else None
    if events.bus.active and "op_dispatched" in events.bus.wanted:
        _emit_step(op, INPLACE_OR_VIEW_KEY, action, args, _INPLACE_OR_VIEW_NOTES[variant])
    _state.depth += 1
    try:
        result = _math_bit_keys(op, args, kwargs)
    finally:
        _state.depth -= 1
    if variant is VIEW:
        _make_views(op, args, kwargs, result)
    elif variant is NON_DIFFERENTIABLE_VIEW:
        result._version_counter = args[0]._version_counter
    elif variant is INPLACE:
        target = args[0]
        if events.bus.active or target._inference:
            _record_write(op, target)
        else:  # ``_record_write``'s common case, without the call
            target._version_counter.value += 1
    elif variant is RESIZE:
        if args[0]._size != size_before:
            _record_write(op, args[0])
    else:  # OUT
        for t in _outputs(op, kwargs):
            _record_write(op, t)
    return result


def _outputs(op: Operator, kwargs: dict) -> list:
    """The tensors an out= overload writes, by their schema names (``out``, or
    ``max.dim_max``'s ``max`` and ``max_values``)."""
    return [kwargs[name] for name in op.out_names]


_SEQUENCES = (tuple, list)  # made once: ``tuple | list`` in a call builds a union each time


def _key_set_of(op: Operator, args: tuple, kwargs: dict) -> int:
    """The union of the tensor arguments' key sets (PyTorch's ``computeDispatchKeySet``):
    which of the Negative and Conjugate keys the call visits, and whether its backend is
    ``SparseCPU`` or ``Meta`` rather than ``CPU``."""
    bits = 0
    for value in args:
        if isinstance(value, Tensor):
            bits |= value._key_set
        elif op.lists_may_hold_tensors and isinstance(value, _SEQUENCES):
            for v in value:
                if isinstance(v, Tensor):
                    bits |= v._key_set
    if kwargs:
        for value in kwargs.values():
            if isinstance(value, Tensor):
                bits |= value._key_set
            elif isinstance(value, _SEQUENCES):  # ``out=(values, indices)``
                for v in value:
                    if isinstance(v, Tensor):
                        bits |= v._key_set
    return bits


# The math bits' keys, from the highest (PyTorch's ``DispatchKey`` order: Negative, then
# Conjugate).
_MATH_BIT_KEYS = (NEG_BIT, CONJ_BIT)


def _math_bit_keys(op: Operator, args: tuple, kwargs: dict, action="redispatch",
                   keys=_MATH_BIT_KEYS):  # fmt: skip
    """The Negative and Conjugate keys from ``keys`` on, then the backend.

    A key is visited when an argument has its bit set and ``op`` does not fall through
    it; its fallback gets ``below``, the rest of the walk, to redispatch to.
    """
    bits = _key_set_of(op, args, kwargs)
    if not bits:  # the rule: a single scan of the arguments
        if op.backend_select:
            return _backend_select(op, args, kwargs, action, bits)
        return _backend(op, args, kwargs, action)
    for i, bit in enumerate(keys):
        registered = _state.fallbacks.get(bit)
        if not bits & bit or registered is None or op.overload_name in registered[2]:
            continue
        key, fallback, _ = registered
        rest = keys[i + 1 :]

        def below(op, args, kwargs, rest=rest):
            return _math_bit_keys(op, args, kwargs, "redispatch", rest)

        if events.bus.active and "op_dispatched" in events.bus.wanted:
            _emit_step(op, key, action, args, _MATH_BIT_NOTES[op.variant].format(key.lower()))
        # Below autograd: what the fallback calls (``clone``, ``copy_``) records nothing.
        _state.depth += 1
        _state.below_autograd += 1
        try:
            return fallback(op, args, kwargs, below)
        finally:
            _state.depth -= 1
            _state.below_autograd -= 1
    if op.backend_select:
        return _backend_select(op, args, kwargs, action, bits)
    if bits & SPARSE_BIT:
        # A sparse argument beside a meta one: PyTorch's key is SparseMeta, which vizgrad
        # has no kernels for.
        key = SPARSE_META_BACKEND_KEY if bits & META_BIT else SPARSE_BACKEND_KEY
        return _layout_or_device_backend(op, args, kwargs, action, key)
    if bits & META_BIT:
        return _layout_or_device_backend(op, args, kwargs, action, META_BACKEND_KEY)
    return _backend(op, args, kwargs, action)


def _backend_select(op: Operator, args: tuple, kwargs: dict, action: str, bits: int):
    """BackendSelect: a factory's backend, from its ``device=`` (or the default device)
    and the tensors it was given (``linspace`` of a 0-dim tensor), as PyTorch's generated
    BackendSelect kernels compute it (``computeDispatchKey`` of the TensorOptions).

    ``layout=`` is left to the CPU kernel, which makes only strided tensors.
    """
    device = kwargs.get("device")
    # (A device the parser cannot read raises here, as the kernel's own check would.)
    on_meta = (get_default_device() if device is None else Device(device)).type == "meta"
    key = META_BACKEND_KEY if on_meta or bits & META_BIT else BACKEND_KEY
    if events.bus.active and "op_dispatched" in events.bus.wanted:
        if on_meta or not bits & META_BIT:
            note = f"a factory: its backend comes from device= ({key.lower()})"
        else:
            note = "a factory given a tensor on the meta device: its backend is Meta"
        _emit_step(op, BACKEND_SELECT_KEY, action, args, note)
    _state.depth += 1
    try:
        if key is BACKEND_KEY:
            return _backend(op, args, kwargs)
        why = "device=meta" if on_meta else None  # else a tensor argument is on the meta device
        return _layout_or_device_backend(op, args, kwargs, "redispatch", key, why)
    finally:
        _state.depth -= 1


def _backend(op: Operator, args: tuple, kwargs: dict, action="redispatch"):
    if events.bus.active and "op_dispatched" in events.bus.wanted:
        _emit_step(op, BACKEND_KEY, action, args, _BACKEND_NOTE)
    return _run_backend_kernel(op, args, kwargs)


def _run_backend_kernel(op: Operator, args: tuple, kwargs: dict):
    """The CPU kernel, below autograd (what it calls records nothing)."""
    _state.depth += 1
    _state.below_autograd += 1
    try:
        return op.kernel(*args, **kwargs)
    except MemoryError as error:
        raise _allocation_failed(error) from None
    finally:
        _state.depth -= 1
        _state.below_autograd -= 1


def _layout_or_device_backend(op: Operator, args: tuple, kwargs: dict, action, key: str,
                              why: str | None = None):  # fmt: skip
    """The backend step when an argument is sparse (``SparseCPU``) or on the meta device
    (``Meta``): the operator's kernel for that key.

    PyTorch picks the backend from the union of the arguments' dispatch keys, in which
    ``SparseCPU`` and ``Meta`` outrank ``CPU``: one such argument is enough (``dense +
    sparse`` runs ``add``'s sparse kernel; a meta kernel checks the devices itself, an
    elementwise one through its TensorIterator set-up). An operator without one fails.
    ``why`` replaces the note's reason when the backend was chosen otherwise (BackendSelect).
    """
    slot, note, no_kernel_note, missing = _OTHER_BACKENDS[key]
    kernel = None if slot is None else getattr(op, slot)
    if why is not None:
        note, no_kernel_note = (text.replace(_META_REASON, why) for text in (note, no_kernel_note))
    if events.bus.active and "op_dispatched" in events.bus.wanted:
        _emit_step(op, key, action, args, note if kernel is not None else no_kernel_note)
    if kernel is None:
        raise missing(op)
    _state.depth += 1
    _state.below_autograd += 1
    try:
        return kernel(*args, **kwargs)
    finally:
        _state.depth -= 1
        _state.below_autograd -= 1


def meta_missing(op: Operator) -> NotImplementedError:
    """PyTorch 2.13's error for an operator with no meta kernel, called from Python.

    Its C++ dispatcher would say ``Could not run 'aten::equal' with arguments from the
    'Meta' backend`` (``backend_missing``); but from Python, 2.13 first looks for a meta
    function written in Python (``torch/_meta_registrations.py``), and the error that
    reaches the user is the one of that look-up, naming the overload (``aten::histc``,
    ``aten::masked_select.out``: the default overload by the operator's name alone).
    """
    return meta_missing_named(op.qualname)


def meta_missing_named(qualname: str) -> NotImplementedError:
    """``meta_missing`` for an overload vizgrad computes inside a formula, not as an
    operator (``multi_margin_loss_backward``)."""
    return NotImplementedError(
        f"{qualname}: attempted to run this operator with Meta tensors, but there was no "
        "fake impl or Meta kernel registered. You may have run into this message while using an "
        "operator with PT2 compilation APIs (torch.compile/torch.export); in order to use this "
        "operator with those APIs you'll need to add a fake impl. Please see the following for "
        "next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
    )


def backend_missing(op: Operator, key: str) -> NotImplementedError:
    """PyTorch's error for an operator with no kernel for the backend ``key`` (which it
    follows with the registration site of each kernel it has: here, the keys)."""
    available = [BACKEND_KEY] if key != BACKEND_KEY else []
    if op.sparse_kernel is not None and key != SPARSE_BACKEND_KEY:
        available.append(SPARSE_BACKEND_KEY)
    available += [NEGATIVE_KEY, CONJUGATE_KEY, INPLACE_OR_VIEW_KEY, AUTOGRAD_KEY]
    return NotImplementedError(
        f"Could not run '{op.qualname}' with arguments from the '{key}' backend. This could be "
        f"because the operator doesn't exist for this backend. '{op.qualname}' is only "
        f"available for these backends: [{', '.join(available)}]."
    )


def _allocation_failed(error: MemoryError) -> RuntimeError:
    """A kernel's NumPy buffer could not be allocated: PyTorch's CPU allocator's error.

    NumPy says how many bytes it asked for (``_ArrayMemoryError._total_size``); a student
    sees what ``torch`` says for the same tensor, a ``RuntimeError`` naming the size.
    """
    nbytes = getattr(error, "_total_size", None)
    asked = f" you tried to allocate {nbytes} bytes." if nbytes is not None else ""
    return RuntimeError(
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
        f"memory:{asked} Error code 12 (Cannot allocate memory)"
    )


# View operators whose results ``as_strided`` of the base cannot make again: they change
# the dtype or a math bit (PyTorch's ``VIEW_FUNCTIONS_WITH_METADATA_CHANGE``). Autograd
# remakes them, and every view made from them, by calling them again (``view_fn``).
VIEWS_WITH_METADATA_CHANGE = frozenset({"view_as_real", "view_as_complex", "_conj", "_neg_view"})


def _view_fn(op: Operator, args: tuple, kwargs: dict, source, source_meta, view):
    """``ViewInfo::chain``: how to make ``view`` from the root base, or None if
    ``as_strided`` of the root base does (see ``DifferentiableViewMeta.view_fn``)."""
    parent = source_meta.view_fn if isinstance(source_meta, DifferentiableViewMeta) else None
    if op.name in VIEWS_WITH_METADATA_CHANGE:
        rest = args[1:]
        if parent is None and isinstance(source_meta, DifferentiableViewMeta):
            geometry = (source._size, source._stride, source._offset)

            def parent(root):
                return root.as_strided(*geometry)

        if parent is None:  # made from the root base itself
            return lambda root: op(root, *rest, **kwargs)
        return lambda root: op(parent(root), *rest, **kwargs)
    if parent is not None:
        geometry = (view._size, view._stride, view._offset)
        return lambda root: parent(root).as_strided(*geometry)
    return None


def _make_views(op: Operator, args: tuple, kwargs: dict, result) -> None:
    """``as_view``: results share the source's storage, base and version counter.

    Each view also records how it was made (its ``CreationMeta``), which decides whether
    autograd may later rewrite its history for an in-place write through it: made in grad
    mode by a single-output view op (``DEFAULT``), by a multi-output one (``unbind``), or
    under ``no_grad``/``inference_mode``. A view of a view keeps its source's restriction
    (``propagate_creation_meta``).
    """
    source = args[0]
    source_meta = source._autograd_meta
    if isinstance(source_meta, DifferentiableViewMeta):
        base, previous = source_meta.base, source_meta.creation_meta
    else:  # the source owns its memory
        base, previous = source, CreationMeta.DEFAULT
    multi_output = isinstance(result, tuple | list)
    if not grad_state.enabled:
        how = CreationMeta.INFERENCE_MODE if grad_state.inference else CreationMeta.NO_GRAD_MODE
    else:
        how = CreationMeta.MULTI_OUTPUT_NODE if multi_output else CreationMeta.DEFAULT
    if how is CreationMeta.DEFAULT or previous is CreationMeta.INFERENCE_MODE:
        how = previous
    for view in result if multi_output else (result,):
        if view is source:  # in-place view ops (``t_``) change metadata, not identity
            continue
        view_fn = _view_fn(op, args, kwargs, source, source_meta, view)
        view._autograd_meta = DifferentiableViewMeta(base, how, source._version_counter.value,
                                                     view_fn)  # fmt: skip
        view._version_counter = source._version_counter
        if events.bus.active and "view_created" in events.bus.wanted:
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
    if events.bus.active and "inplace_write" in events.bus.wanted:
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
_SPARSE_BACKEND_NOTE = "SparseCPU kernel: an argument has layout sparse_coo"
_NO_SPARSE_KERNEL_NOTE = (
    "an argument has layout sparse_coo, and this operator has no SparseCPU kernel: "
    "NotImplementedError"
)
_META_REASON = "an argument is on the meta device"
_META_BACKEND_NOTE = f"Meta kernel: {_META_REASON}; computes the result's metadata, no data"
_NO_META_KERNEL_NOTE = f"{_META_REASON}, and this operator has no Meta kernel: NotImplementedError"
# ``key -> (Operator slot of its kernels, note, note without a kernel, error without one)``.
_OTHER_BACKENDS = {
    SPARSE_BACKEND_KEY: ("sparse_kernel", _SPARSE_BACKEND_NOTE, _NO_SPARSE_KERNEL_NOTE,
                         lambda op: backend_missing(op, SPARSE_BACKEND_KEY)),
    META_BACKEND_KEY: ("meta_kernel", _META_BACKEND_NOTE, _NO_META_KERNEL_NOTE, meta_missing),
    SPARSE_META_BACKEND_KEY: (None, "", "an argument has layout sparse_coo and one is on the meta "
                              "device (SparseMeta), which has no kernels: NotImplementedError",
                              lambda op: backend_missing(op, SPARSE_META_BACKEND_KEY)),
}  # fmt: skip
_RESOLVES = "{} bit set on an input: a resolved clone of it goes to the kernel"
_MATH_BIT_NOTES = {
    FUNCTIONAL: _RESOLVES,
    VIEW: "view: the result keeps the {} bit",
    NON_DIFFERENTIABLE_VIEW: "view: the result keeps the {} bit",
    INPLACE: _RESOLVES + "; what it writes is copied back through the bit",
    OUT: _RESOLVES + "; what it writes is copied back through the bit",
    RESIZE: _RESOLVES,
}


def _input_requires_grad(args, kwargs) -> bool:
    for value in (*args, *kwargs.values()):
        if isinstance(value, Tensor) and value.requires_grad:
            return True
        if isinstance(value, _SEQUENCES) and any(
            isinstance(v, Tensor) and v.requires_grad for v in value
        ):
            return True
    return False


# The autograd key's note when it records nothing, by whether grad mode is on.
_RECORDS_NOTHING = {
    False: "grad mode is off: records nothing",
    True: "no input requires grad: records nothing",
}


def _autograd_note(op: Operator, args: tuple, kwargs: dict) -> str:
    """What the autograd key will do with this call, decided before it does it."""
    if op.kind is COMPOSITE_IMPLICIT:
        return "CompositeImplicitAutograd: runs here; the operators it calls record their nodes"
    if not grad_state.enabled or not _input_requires_grad(args, kwargs):
        return _RECORDS_NOTHING[grad_state.enabled]
    if op.kind is NONDIFFERENTIABLE or op.variant is NON_DIFFERENTIABLE_VIEW:
        return "not differentiable: records nothing"
    if op.variant is OUT:
        return "out= with an argument that requires grad: refused"
    if op.derivative is None:
        return "no derivative formula: records a node that raises in backward"
    return f"records {op.derivative.name}"


def _emit_step(op: Operator, key: str, action: str, args: tuple, note: str = "") -> None:
    _emit_steps(op, args, ((key, action, note),))


def _emit_steps(op: Operator, args: tuple, steps) -> None:
    """``OpDispatched`` for each ``(key, action, note)`` of ``steps``, one level deeper
    each (the keys a call passes through in turn)."""
    inputs = []  # (a loop: cheaper than a comprehension's frame, on every recorded call)
    for value in args:
        if isinstance(value, Tensor):
            inputs.append(value._id)
    inputs = tuple(inputs)
    depth, call, parent = _state.depth, _state.call, _state.parent
    module = module_scope.current_path()
    for key, action, note in steps:
        events.bus.emit(events.OpDispatched(op.qualname, key, action, depth, op.variant, inputs,
                                            note, call, parent, module))  # fmt: skip
        depth += 1
