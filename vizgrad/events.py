"""The event stream: what the engine tells the views, and nothing more.

The engine *emits* events; widgets, ``dispatch_trace`` and recorders *subscribe*. The
engine never waits on a listener and never reads anything back: data flows one way
(see docs/architecture.md). Every event is a small dataclass with a sequence number, naming
tensors, storages and autograd nodes by small integer ids (never by ``id()``), so a
recording is deterministic and can be saved as JSON and replayed.

Emission is free when nobody listens: emitters test ``events.bus.active`` (one
attribute read) before building an event of an operator call, and whether anyone wants
their event's kind (``kind in events.bus.wanted``). A subscriber may want some kinds
only (``subscribe(view.on_event, kinds={"inplace_write"})``) and may be held weakly
(``weak=True``), so a view nobody holds any more stops costing anything.

Schema version history:

* 1 — storage/tensor/view creation, dispatch steps, kernel choice, in-place writes,
  and the autograd events (node created, backward started, node run, ready queue,
  gradient accumulated, hook fired, version checked).
* 2 — every operator call has a call id: ``OpDispatched`` carries ``call`` and ``parent``
  (0 at top level), the new ``OpReturned`` closes each call (with ``error`` when it
  raised), and ``KernelChosen``, ``ViewCreated``, ``InplaceWrite`` and ``NodeCreated``
  name the ``call`` they were emitted in (0 outside any call). ``KernelChosen.op`` is
  the call's qualified overload name (``aten::add.Tensor``). Call ids are renumbered
  from 1 in the ``"call"`` namespace, like tensor ids.

  Additive, still version 2 (every new field has a default, so events and recordings
  of either form read the same): ``NodeCreated.output_meta`` (the shape and dtype of
  each output of a node described after the fact, by
  ``vizgrad.autograd.graph_events``), and ``event_id(obj)``, the id events name a
  live tensor, storage or node by.

  Additive, still version 2: an ``AccumulateGrad``'s ``NodeCreated.output_meta`` holds
  its leaf's shape and dtype, whenever it is emitted (a leaf made before a recording
  started has no ``TensorCreated`` in it).

  Additive, still version 2: ``OpDispatched.module`` and ``NodeCreated.module``, the
  path of ``nn.Module``s whose forward was running (``(("", "Sequential"), ("0",
  "Linear"))``, empty outside any module), and ``NodeCreated.parameter``, the qualified
  name of the module parameter an ``AccumulateGrad`` feeds (``"0.weight"``); see
  ``vizgrad.module_scope``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import ClassVar

__all__ = [
    "SCHEMA_VERSION",
    "Event",
    "StorageCreated",
    "TensorCreated",
    "ViewCreated",
    "OpDispatched",
    "OpReturned",
    "KernelChosen",
    "InplaceWrite",
    "NodeCreated",
    "BackwardStarted",
    "NodeStarted",
    "NodeFinished",
    "ReadyQueueChanged",
    "GradAccumulated",
    "HookFired",
    "VersionChecked",
    "BACKWARD_KINDS",
    "bus",
    "subscribe",
    "unsubscribe",
    "Recorder",
    "event_from_dict",
    "event_id",
    "check_event_dict",
    "check_recording",
]

SCHEMA_VERSION = 2
_MAX_NR = sys.maxsize  # AccumulateGrad's sequence number (see vizgrad.autograd.graph)


@dataclass(slots=True)
class Event:
    """Base of every event. ``seq`` orders events across the whole process."""

    kind: ClassVar[str] = "event"
    # Fields that hold ids, by the namespace they live in ("tensor", "storage", "node",
    # "call").
    # A recording renumbers them from 1 so that it does not depend on what ran before.
    id_fields: ClassVar[dict[str, str]] = {}
    seq: int = field(default=0, init=False)

    def to_dict(self) -> dict:
        d = {"kind": self.kind}
        for f in dataclasses.fields(self):
            d[f.name] = getattr(self, f.name)
        return d


# --- tensors and storage ------------------------------------------------------------


@dataclass(slots=True)
class StorageCreated(Event):
    """A new flat buffer (``c10::StorageImpl``) was allocated or wrapped."""

    kind: ClassVar[str] = "storage_created"
    id_fields: ClassVar[dict[str, str]] = {"storage": "storage"}
    storage: int
    dtype: str
    numel: int


@dataclass(slots=True)
class TensorCreated(Event):
    """A new tensor: its storage and the metadata that reads it."""

    kind: ClassVar[str] = "tensor_created"
    id_fields: ClassVar[dict[str, str]] = {"tensor": "tensor", "storage": "storage"}
    tensor: int
    storage: int
    shape: tuple
    stride: tuple
    offset: int
    dtype: str
    requires_grad: bool = False


@dataclass(slots=True)
class ViewCreated(Event):
    """A view shares ``base``'s storage and version counter; only metadata is new."""

    kind: ClassVar[str] = "view_created"
    id_fields: ClassVar[dict[str, str]] = {"tensor": "tensor", "base": "tensor", "source": "tensor",
                                           "call": "call"}  # fmt: skip
    tensor: int
    base: int  # the tensor that owns the memory (``_base``)
    source: int  # the tensor the view op was called on
    op: str
    shape: tuple
    stride: tuple
    offset: int
    call: int = 0  # the operator call that made the view


# --- the dispatcher -------------------------------------------------------------------


@dataclass(slots=True)
class OpDispatched(Event):
    """One step of one operator call through one dispatch key.

    ``action`` is ``"call"`` (entering the dispatcher) or ``"redispatch"`` (a key
    handing the call to the next one); ``note`` says what the key decided. ``call``
    names the call (the same id for all its keys) and ``parent`` the call it was made
    from (0 at top level): the call tree is exact, never inferred from depths.
    """

    kind: ClassVar[str] = "op_dispatched"
    id_fields: ClassVar[dict[str, str]] = {"inputs": "tensor", "call": "call", "parent": "call"}
    op: str  # "aten::add.Tensor"
    key: str  # "AutogradCPU", "ADInplaceOrView", "CPU"
    action: str
    depth: int
    variant: str  # "functional", "inplace", "out", "view"
    inputs: tuple = ()
    note: str = ""
    call: int = 0
    parent: int = 0
    # The nn.Module path the call ran in: ((qualified_name, type_name), ...), outermost first.
    module: tuple = ()


@dataclass(slots=True)
class OpReturned(Event):
    """An operator call finished: returned, or raised ``error`` (the exception's class name).

    Every call's events come between its first ``OpDispatched`` and this one.
    """

    kind: ClassVar[str] = "op_returned"
    id_fields: ClassVar[dict[str, str]] = {"call": "call"}
    call: int
    op: str
    error: str = ""


@dataclass(slots=True)
class KernelChosen(Event):
    """The backend picked its dtype kernel (the second dispatch, ``AT_DISPATCH``)."""

    kind: ClassVar[str] = "kernel_chosen"
    id_fields: ClassVar[dict[str, str]] = {"output": "tensor", "call": "call"}
    op: str  # the call's overload: "aten::add.Tensor"
    dtype: str  # the dtype the kernel computes in
    input_dtypes: tuple
    shape: tuple  # the broadcast shape the kernel iterates over
    output: int
    output_stride: tuple
    reason: str = ""  # why this dtype: the promotion rule that decided
    call: int = 0  # the operator call whose kernel this is


@dataclass(slots=True)
class InplaceWrite(Event):
    """A tensor's memory was written in place; its version counter went up."""

    kind: ClassVar[str] = "inplace_write"
    id_fields: ClassVar[dict[str, str]] = {"tensor": "tensor", "storage": "storage",
                                           "call": "call"}  # fmt: skip
    tensor: int
    storage: int
    op: str
    version: int
    call: int = 0


# --- autograd (emitted by vizgrad.autograd) -------------------------------------------


@dataclass(slots=True)
class NodeCreated(Event):
    """The autograd key recorded a ``grad_fn`` node for an operator call."""

    kind: ClassVar[str] = "node_created"
    id_fields: ClassVar[dict[str, str]] = {"node": "node", "outputs": "tensor", "next_nodes": "node",
                                           "saved": "tensor", "variable": "tensor",
                                           "call": "call"}  # fmt: skip
    node: int
    name: str
    sequence_nr: int
    outputs: tuple
    next_nodes: tuple  # node ids (0 where an input needs no gradient)
    saved: tuple = ()
    variable: int = 0  # for AccumulateGrad: the leaf it accumulates into
    next_input_nrs: tuple = ()  # per next node: which of its inputs this edge feeds
    call: int = 0  # the operator call that recorded it (0: made outside any call)
    # ``((shape, dtype), ...)``: the shape and dtype name of each output, by output_nr
    # (what PyTorch's ``Node._input_metadata`` holds: what the gradient flowing in must
    # look like). Empty when the ``outputs`` tensors' own events say it; filled by
    # ``vizgrad.autograd.graph_events`` for a graph described after the forward pass,
    # whose inner outputs are gone; always filled for an AccumulateGrad, with its leaf's
    # (``variable``'s) shape and dtype. No ids: a recording keeps it as it is.
    output_meta: tuple = ()
    # The nn.Module path whose forward recorded the node (as ``OpDispatched.module``), and
    # for an AccumulateGrad of a module parameter, the parameter's name ("0.weight").
    module: tuple = ()
    parameter: str = ""


@dataclass(slots=True)
class BackwardStarted(Event):
    """The engine found the graph from the roots and counted each node's dependencies."""

    kind: ClassVar[str] = "backward_started"
    id_fields: ClassVar[dict[str, str]] = {"roots": "node"}
    roots: tuple
    dependencies: dict  # node id -> count of edges still to arrive


@dataclass(slots=True)
class NodeStarted(Event):
    kind: ClassVar[str] = "node_started"
    id_fields: ClassVar[dict[str, str]] = {"node": "node"}
    node: int
    name: str
    grad_inputs: tuple  # summaries of the gradients flowing in


@dataclass(slots=True)
class NodeFinished(Event):
    kind: ClassVar[str] = "node_finished"
    id_fields: ClassVar[dict[str, str]] = {"node": "node"}
    node: int
    name: str
    grad_outputs: tuple  # summaries of the gradients flowing out, one per next edge


@dataclass(slots=True)
class ReadyQueueChanged(Event):
    """The ready queue after a step, and the dependency counts that step changed."""

    kind: ClassVar[str] = "ready_queue_changed"
    id_fields: ClassVar[dict[str, str]] = {"queue": "node"}
    queue: tuple  # node ids, in the order the engine will run them
    dependencies: dict  # node id -> new count, for the nodes this step counted down


@dataclass(slots=True)
class GradAccumulated(Event):
    kind: ClassVar[str] = "grad_accumulated"
    id_fields: ClassVar[dict[str, str]] = {"tensor": "tensor"}
    tensor: int
    grad: str  # summary


@dataclass(slots=True)
class HookFired(Event):
    kind: ClassVar[str] = "hook_fired"
    id_fields: ClassVar[dict[str, str]] = {"node": "node", "tensor": "tensor"}
    hook: str
    node: int = 0
    tensor: int = 0


@dataclass(slots=True)
class VersionChecked(Event):
    kind: ClassVar[str] = "version_checked"
    id_fields: ClassVar[dict[str, str]] = {"node": "node", "tensor": "tensor"}
    node: int
    tensor: int
    saved_version: int
    current_version: int


EVENT_TYPES = {cls.kind: cls for cls in (
    StorageCreated, TensorCreated, ViewCreated, OpDispatched, OpReturned, KernelChosen,
    InplaceWrite,
    NodeCreated, BackwardStarted, NodeStarted, NodeFinished, ReadyQueueChanged,
    GradAccumulated, HookFired, VersionChecked,
)}  # fmt: skip


def event_from_dict(d: dict, index: int | None = None, *, check: bool = True) -> Event:
    """Rebuild an event from ``Event.to_dict()`` (after a JSON round trip).

    The dict is checked first (``check_event_dict``): a malformed or crafted one is a
    ``ValueError`` naming the field and what it should hold (``index``: the event's
    place in its recording, for the message). ``check=False`` skips that for a dict
    checked already (a replay rebuilds the event of every step it shows).
    """
    if check:
        check_event_dict(d, index)
    d = dict(d)
    cls = EVENT_TYPES[d.pop("kind")]
    seq = d.pop("seq", 0)
    for f in dataclasses.fields(cls):
        if isinstance(d.get(f.name), list):
            d[f.name] = _tuplify(d[f.name])
        if f.name == "dependencies" and isinstance(d.get(f.name), dict):
            d[f.name] = {int(k): v for k, v in d[f.name].items()}
    event = cls(**d)
    event.seq = seq
    return event


# --- checking a loaded recording ----------------------------------------------------------
#
# A recording is data from a file: before anything folds it, every event is checked
# against its dataclass, so a malformed or crafted file fails at once, saying which
# event and field are wrong, instead of as a KeyError or AttributeError deep inside a
# view. What each sequence field holds (the annotations say only "tuple"):

_INT_SEQUENCES = frozenset({"shape", "stride", "output_stride", "inputs", "outputs",
                            "next_nodes", "saved", "next_input_nrs", "queue", "roots"})  # fmt: skip
_STR_SEQUENCES = frozenset({"input_dtypes", "grad_inputs", "grad_outputs"})
_NON_NEGATIVE = frozenset({"numel", "offset", "depth", "version", "seq"})
_MAX_DIMS = 64


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ints(value) -> bool:
    return isinstance(value, list | tuple) and all(_is_int(v) for v in value)


def _expected(name: str, annotation: str, id_space: str | None) -> tuple:
    """``(test, words)`` for one field: what it must hold, and how a message says it."""
    if name in _INT_SEQUENCES:
        return _ints, "a list of integers"
    if name in _STR_SEQUENCES:
        return (lambda v: isinstance(v, list | tuple) and all(isinstance(x, str) for x in v),
                "a list of strings")  # fmt: skip
    if name == "module":
        return (lambda v: isinstance(v, list | tuple) and all(
            isinstance(p, list | tuple) and len(p) == 2 and all(isinstance(x, str) for x in p)
            for p in v), "a list of [qualified name, type name] string pairs")  # fmt: skip
    if name == "output_meta":
        return (lambda v: isinstance(v, list | tuple) and all(
            isinstance(p, list | tuple) and len(p) == 2 and _ints(p[0]) and isinstance(p[1], str)
            for p in v), "a list of [shape, dtype] pairs")  # fmt: skip
    if name == "dependencies":
        return (lambda v: isinstance(v, dict) and all(
            (_is_int(k) or (isinstance(k, str) and k.isdigit())) and _is_int(c) and c >= 0
            for k, c in v.items()), "an object of node id -> count (integers >= 0)")  # fmt: skip
    if annotation == "int":
        if id_space is not None or name in _NON_NEGATIVE:
            return (lambda v: _is_int(v) and v >= 0), "an integer >= 0"
        return _is_int, "an integer"
    if annotation == "str":
        return (lambda v: isinstance(v, str)), "a string"
    if annotation == "bool":
        return (lambda v: isinstance(v, bool)), "true or false"
    return (lambda v: True), "anything"


def check_event_dict(d, index: int | None = None) -> None:
    """Raise ``ValueError`` unless ``d`` is an event as ``Event.to_dict()`` writes it
    (after a JSON round trip): a known kind, every field without a default present,
    no unknown field, each field of the right type (ids and sizes >= 0, shapes and
    strides of equal length)."""
    where = "event" if index is None else f"event {index}"
    if not isinstance(d, dict):
        raise ValueError(f"{where}: expected an object (a dict), got {type(d).__name__}")
    kind = d.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"{where}: field 'kind' must be one of {', '.join(sorted(EVENT_TYPES))}; "
                         f"got {kind!r:.60}")  # fmt: skip
    where = f"{where} ({kind})"
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(d) - set(fields) - {"kind"})
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0]!r:.60} (a {kind} event has "
                         f"{', '.join(fields)})")  # fmt: skip
    for name, f in fields.items():
        if name not in d:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{where}: missing field {name!r}")
            continue
        test, words = _expected(name, str(f.type), cls.id_fields.get(name))
        if not test(d[name]):
            raise ValueError(f"{where}: field {name!r} must be {words}; got {d[name]!r:.60}")
    if "shape" in d and "stride" in d and len(d["shape"]) != len(d["stride"]):
        raise ValueError(f"{where}: fields 'shape' and 'stride' must have the same length; "
                         f"got {len(d['shape'])} and {len(d['stride'])}")  # fmt: skip
    for name in ("shape", "stride", "output_stride"):
        if name in d and len(d[name]) > _MAX_DIMS:
            raise ValueError(f"{where}: field {name!r} must have at most {_MAX_DIMS} "
                             f"dimensions; got {len(d[name])}")  # fmt: skip
    if "shape" in d and any(n < 0 for n in d["shape"]):
        raise ValueError(f"{where}: field 'shape' must hold sizes >= 0; got {d['shape']!r:.60}")


def event_id(obj) -> int:
    """The id the events name ``obj`` by: a tensor (``TensorCreated.tensor``, a node's
    ``outputs``…), a storage (``StorageCreated.storage``) or an autograd node
    (``NodeCreated.node``); 0 for None, the events' "none".

    This is how a view matches a live object with the events about it (the user's
    names for tensors, the storage an ``InplaceWrite`` wrote), and how
    ``vizgrad.autograd.graph_events`` describes a live graph with the ids a recorder
    would have seen. Ids count up from 1 per kind, in creation order, for the whole
    process; ``Recorder.to_dicts()`` renumbers them per recording.
    """
    return 0 if obj is None else obj._id


def _tuplify(value):
    return tuple(_tuplify(v) for v in value) if isinstance(value, list) else value


# --- the bus --------------------------------------------------------------------------


# The kinds the backward engine emits (``backward()`` and ``autograd.grad``: the engine,
# AccumulateGrad, hooks, and the version check of a saved tensor unpacked); every other
# kind is emitted while operators run.
BACKWARD_KINDS = frozenset({
    "backward_started", "ready_queue_changed", "node_started", "node_finished",
    "grad_accumulated", "hook_fired", "version_checked",
})  # fmt: skip


class _Subscription:
    """One subscriber: what it is (a callable, or a weak reference to a bound method),
    the kinds it wants (None: all), and what ``emit`` calls."""

    __slots__ = ("target", "kinds", "weak", "call")

    def __init__(self, target, kinds, weak, call):
        self.target, self.kinds, self.weak, self.call = target, kinds, weak, call

    def holds(self, callback) -> bool:
        return (self.target() if self.weak else self.target) == callback


class _WeakBoundMethod:
    """A bound method held through a weak reference to its object; calling it gives
    the method while the object lives, else None. The function is held strongly: it
    belongs to the class. (``weakref.WeakMethod`` also watches the function, and at
    interpreter exit that second callback can fire after the WeakMethod itself is gone,
    printing "AttributeError: 'NoneType' object has no attribute '_alive'".)"""

    __slots__ = ("ref", "func")

    def __init__(self, method, on_collected):
        self.ref = weakref.ref(method.__self__, on_collected)
        self.func = method.__func__

    def __call__(self):
        obj = self.ref()
        return None if obj is None else types.MethodType(self.func, obj)


def _weak_caller(ref):
    """Call the method ``ref`` refers to, while its object lives (a view nobody holds
    any more is left alone until the collector ends its subscription)."""

    def call(event):
        method = ref()
        if method is not None:
            method(event)

    return call


class EventBus:
    """Hands each emitted event to the subscribers that want its kind, in subscription order.

    What the emitters read before building an event (nothing is built that nobody wants):

    * ``active`` — someone wants an event of operator calls (dispatch steps, storages,
      tensors, kernels, views, in-place writes, recorded nodes): the one attribute the
      dispatcher and tensor creation read when nobody listens;
    * ``wanted`` — the kinds someone wants: each emitter checks its own kind.

    So a view that only waits for ``backward()`` to start (a GraphView not following)
    costs an operator call nothing, and a backward pass one call per such view.
    """

    __slots__ = ("active", "wanted", "_subscriptions", "_routes", "_everyone", "next_seq")

    def __init__(self):
        self.active = False  # read first by every emitter of an operator call's events
        self.wanted: frozenset = frozenset()
        self._subscriptions: list[_Subscription] = []
        self._routes: dict[str, tuple] = {}  # kind -> what emit calls, in order
        self._everyone: tuple = ()  # what emit calls for a kind not in EVENT_TYPES
        self.next_seq = 1

    def subscribe(self, callback, kinds=None, *, weak: bool = False) -> None:
        """Call ``callback(event)`` for every event emitted from now on, or, with
        ``kinds`` (``{"inplace_write"}``), for the events of those kinds only.

        ``weak=True`` holds ``callback``, a bound method, through a weak reference:
        once nothing else holds its object, the subscription ends by itself.
        """
        if kinds is not None:
            kinds = frozenset(kinds)
            unknown = sorted(kinds - EVENT_TYPES.keys())
            if unknown:
                raise ValueError(f"unknown event kinds {unknown}; known: {sorted(EVENT_TYPES)}")
        if weak:
            if not hasattr(callback, "__self__") or not hasattr(callback, "__func__"):
                raise TypeError("subscribe(weak=True) needs a bound method (view.on_event), "
                                f"not {type(callback).__name__}")  # fmt: skip
            target = _WeakBoundMethod(callback, self._collected)
            subscription = _Subscription(target, kinds, True, _weak_caller(target))
        else:
            subscription = _Subscription(callback, kinds, False, callback)
        self._subscriptions.append(subscription)
        self._route()

    def unsubscribe(self, callback) -> None:
        """End ``callback``'s subscription (the first, if it subscribed more than once)."""
        for subscription in self._subscriptions:
            if subscription.holds(callback):
                self._subscriptions.remove(subscription)
                self._route()
                return
        raise ValueError(f"{callback!r} is not subscribed")

    def subscribers(self) -> list:
        """The callbacks subscribed now, in order (weakly held ones while they live)."""
        held = (s.target() if s.weak else s.target for s in self._subscriptions)
        return [callback for callback in held if callback is not None]

    def _collected(self, ref) -> None:
        # The collector freed a weakly subscribed method's object: its subscription ends.
        self._subscriptions = [
            s for s in self._subscriptions if not (s.weak and s.target.ref is ref)
        ]
        self._route()

    def _route(self) -> None:
        """Recompute, for each kind, whom ``emit`` calls, and what the emitters read."""
        routes: dict[str, list] = {kind: [] for kind in EVENT_TYPES}
        everyone = []
        for subscription in self._subscriptions:
            if subscription.kinds is None:
                everyone.append(subscription.call)
            for kind in EVENT_TYPES if subscription.kinds is None else subscription.kinds:
                routes[kind].append(subscription.call)
        self._routes = {kind: tuple(calls) for kind, calls in routes.items()}
        self._everyone = tuple(everyone)
        self.wanted = frozenset(kind for kind, calls in routes.items() if calls)
        self.active = not self.wanted <= BACKWARD_KINDS

    def emit(self, event: Event) -> None:
        event.seq = self.next_seq
        self.next_seq += 1
        for call in self._routes.get(event.kind, self._everyone):
            call(event)


bus = EventBus()
subscribe = bus.subscribe
unsubscribe = bus.unsubscribe


def check_recording(data) -> dict:
    """``data`` (a parsed recording) if its top level is as ``Recorder.to_json`` writes
    it, else a ``ValueError`` naming the field (the events are checked one by one as
    they are read)."""
    if not isinstance(data, dict):
        raise ValueError(f"a recording is a JSON object; got {type(data).__name__}")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(
            f"recording has event schema version {data.get('schema_version')!r:.40}, "
            f"this vizgrad reads version {SCHEMA_VERSION}"
        )
    if not isinstance(data.get("events"), list):
        raise ValueError(f"field 'events' must be a list of events; got "
                         f"{type(data.get('events')).__name__}")  # fmt: skip
    dropped = data.get("dropped", 0)
    if not _is_int(dropped) or dropped < 0:
        raise ValueError(f"field 'dropped' must be an integer >= 0; got {dropped!r:.40}")
    return data


class Recorder:
    """Keeps the events emitted while it is active, in a bounded buffer.

    ``with Recorder() as rec: ...`` records; ``rec.events`` are the events kept.
    At most ``max_events`` are kept; older ones are dropped and counted in
    ``rec.dropped`` so a long training loop cannot exhaust memory.
    """

    def __init__(self, max_events: int = 1_000_000):
        self.max_events = max_events
        self._events: deque = deque(maxlen=max_events)
        self._dropped_before = 0  # from a loaded recording
        self._first_seq = None
        self._recording = False

    def __call__(self, event: Event) -> None:
        self._events.append(event)

    @property
    def dropped(self) -> int:
        """How many events the bounded buffer let go (the oldest first)."""
        if not self._events or self._first_seq is None:
            return self._dropped_before
        received = self._events[-1].seq - self._first_seq + 1
        return self._dropped_before + received - len(self._events)

    @dropped.setter
    def dropped(self, value: int) -> None:
        self._dropped_before = value

    def start(self) -> Recorder:
        if not self._recording:
            # The deque's own append is the subscriber: recording costs one call per event.
            bus.subscribe(self._events.append)
            self._first_seq = bus.next_seq
            self._recording = True
        return self

    def stop(self) -> None:
        if self._recording:
            bus.unsubscribe(self._events.append)
            self._recording = False

    def __enter__(self) -> Recorder:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __len__(self) -> int:
        return len(self._events)

    @property
    def events(self) -> list[Event]:
        return list(self._events)

    def to_dicts(self) -> list[dict]:
        """Events as plain dicts, ids renumbered from 1 per namespace, ``seq`` from 1."""
        renumber: dict[str, dict[int, int]] = {"tensor": {}, "storage": {}, "node": {}, "call": {}}

        def local(space: str, value):
            if isinstance(value, tuple | list):
                return [local(space, v) for v in value]
            if not isinstance(value, int) or value == 0:
                return value  # 0 means "none"
            table = renumber[space]
            return table.setdefault(value, len(table) + 1)

        out = []
        first_seq = self._events[0].seq - 1 if self._events else 0
        # Autograd's sequence numbers count every node the process ever made; a recording
        # keeps them relative to its first node (AccumulateGrad's "run first" max stays).
        first_node_nr = next((e.sequence_nr for e in self._events
                              if isinstance(e, NodeCreated) and e.sequence_nr < _MAX_NR), 0)  # fmt: skip
        for event in self._events:
            d = event.to_dict()
            d["seq"] -= first_seq
            if isinstance(event, NodeCreated) and event.sequence_nr < _MAX_NR:
                d["sequence_nr"] -= first_node_nr
            for name, space in event.id_fields.items():
                d[name] = local(space, d[name])
            if "dependencies" in d:
                d["dependencies"] = {local("node", k): v for k, v in d["dependencies"].items()}
            out.append(d)
        return out

    def to_json(self) -> str:
        return json.dumps(
            {"schema_version": SCHEMA_VERSION, "dropped": self.dropped, "events": self.to_dicts()}
        )

    @classmethod
    def from_json(cls, text: str) -> Recorder:
        """A recording saved by ``to_json``. Every part is checked before it is kept:
        a malformed or crafted file is a ``ValueError`` saying which field is wrong."""
        data = check_recording(json.loads(text))
        rec = cls(max_events=max(len(data["events"]), 1))
        rec.dropped = data.get("dropped", 0)
        rec._events.extend(event_from_dict(d, i) for i, d in enumerate(data["events"]))
        return rec
