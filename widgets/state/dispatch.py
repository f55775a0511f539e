"""DispatchState: the event stream folded into a tree of operator calls.

PyTorch runs every operator call through a chain of *dispatch keys*: ``AutogradCPU``
(record a ``grad_fn`` node, save tensors for backward), ``ADInplaceOrView`` (make a
view share its base, or bump the version counter of what an in-place / ``out=`` op
wrote; a *fall-through* for functional ops), then the backend (``CPU``), whose kernel
makes a second, dtype dispatch (``AT_DISPATCH``). Calls nest: a composite op
(``reshape``) is made of other calls, and a kernel may call ops itself (``resize_``).

The engine reports each step as an event (``OpDispatched``, ``OpReturned``,
``KernelChosen``, ``ViewCreated``, ``InplaceWrite``, ``NodeCreated``, ``TensorCreated``).
Every operator call has a *call id*, so this module rebuilds the call tree from that
flat stream exactly, the way a profiler rebuilds a call stack from enter/exit records
(nothing is inferred from depths or operator names):

* the first ``OpDispatched`` of a call id opens the call; its ``parent`` id names the
  call it was made from (0: top level);
* the later ``OpDispatched`` of that id are its next keys (redispatches);
* ``OpReturned`` closes it (``error`` set when it raised);
* ``KernelChosen``, ``ViewCreated``, ``InplaceWrite`` and ``NodeCreated`` carry the id
  of the call they happened in; a ``TensorCreated`` belongs to the innermost open call.

A call is never changed once closed, so ``copy()`` shares every closed call and copies
only the open ones; the list of calls itself is a ``ChunkedList`` whose chunks the
copies share: a timeline's snapshot costs a few references per 64 calls, not a list
of every call (which made snapshots, and so a replay's memory, grow with the square
of the recording's length).

Pure: no widget library is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vizgrad import events

from .persistent import ChunkedList

__all__ = ["DispatchStep", "OperatorCall", "DispatchState", "VARIANT_LABELS"]

AUTOGRAD_KEY = "AutogradCPU"
INPLACE_OR_VIEW_KEY = "ADInplaceOrView"
BACKEND_SELECT_KEY = "BackendSelect"  # only factories visit it, before their backend

# How each overload variant is named where a learner reads it.
VARIANT_LABELS = {
    "functional": "functional",
    "inplace": "in-place",
    "out": "out=",
    "view": "view",
    "non_differentiable_view": "view (not seen by autograd)",
}


@dataclass(slots=True)
class DispatchStep:
    """One dispatch key visited by one call (one ``OpDispatched`` event)."""

    key: str
    action: str  # "call" (entering the dispatcher) or "redispatch" (the next key)
    depth: int  # nesting, as the text trace indents it
    seq: int
    note: str = ""  # what the key decided, as the dispatcher said it (``OpDispatched.note``)

    def to_json(self) -> dict:
        return {"key": self.key, "action": self.action, "depth": self.depth, "seq": self.seq,
                "note": self.note}  # fmt: skip

    @classmethod
    def from_json(cls, d: dict) -> DispatchStep:
        return cls(d["key"], d["action"], d["depth"], d["seq"], d.get("note", ""))


@dataclass(slots=True)
class OperatorCall:
    """One operator call: its dispatch steps, what each decided, and the calls inside it."""

    index: int  # position in ``DispatchState.calls``: the call's stable id
    op: str  # "aten::mul.Tensor"
    variant: str  # "functional", "inplace", "out", "view"
    depth: int  # depth of its first step
    seq: int  # seq of its first step
    inputs: tuple  # tensor ids passed in
    parent: int = -1  # index of the enclosing call, -1 at top level
    call_id: int = 0  # the engine's call id (``OpDispatched.call``)
    error: str = ""  # the exception's class name when the call raised
    returned: bool = False  # its ``OpReturned`` was seen
    during: str = ""  # the backward node running when it was called ("" in forward)
    steps: list = field(default_factory=list)  # DispatchStep, in order
    children: list = field(default_factory=list)  # indices of nested calls, in order
    kernel: dict | None = None  # the dtype kernel (KernelChosen as a dict)
    views: list = field(default_factory=list)  # ViewCreated as dicts
    writes: list = field(default_factory=list)  # InplaceWrite as dicts
    nodes: list = field(default_factory=list)  # NodeCreated as dicts
    created: list = field(default_factory=list)  # TensorCreated as dicts

    @property
    def name(self) -> str:
        """The operator's base name: ``aten::add_.Tensor`` -> ``add_``."""
        return self.op.split("::", 1)[-1].split(".", 1)[0]

    @property
    def keys(self) -> list[str]:
        return [s.key for s in self.steps]

    def went_through_autograd(self) -> bool:
        return bool(self.steps) and self.steps[0].key == AUTOGRAD_KEY

    def copy(self) -> OperatorCall:
        return OperatorCall(
            self.index, self.op, self.variant, self.depth, self.seq, self.inputs, self.parent,
            self.call_id, self.error, self.returned, self.during, list(self.steps), list(self.children), self.kernel, list(self.views),
            list(self.writes), list(self.nodes), list(self.created),
        )  # fmt: skip

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "op": self.op,
            "variant": self.variant,
            "depth": self.depth,
            "seq": self.seq,
            "inputs": list(self.inputs),
            "parent": self.parent,
            "call_id": self.call_id,
            "error": self.error,
            "returned": self.returned,
            "during": self.during,
            "steps": [s.to_json() for s in self.steps],
            "children": list(self.children),
            "kernel": self.kernel,
            "views": self.views,
            "writes": self.writes,
            "nodes": self.nodes,
            "created": self.created,
        }

    @classmethod
    def from_json(cls, d: dict) -> OperatorCall:
        return cls(
            d["index"], d["op"], d["variant"], d["depth"], d["seq"], tuple(d["inputs"]),
            d["parent"], d.get("call_id", 0), d.get("error", ""), d.get("returned", False),
            d.get("during", ""), [DispatchStep.from_json(s) for s in d["steps"]],
            list(d["children"]), _lists_to_tuples(d["kernel"]),
            [_lists_to_tuples(v) for v in d["views"]], [dict(w) for w in d["writes"]],
            [_lists_to_tuples(n) for n in d["nodes"]], [_lists_to_tuples(c) for c in d["created"]],
        )  # fmt: skip


class _NoItems(list):
    """The empty list every closed call shares for what it never had (no views, no
    children...): a long recording keeps one object here, not one per call, for the
    garbage collector to scan. Closed calls never change; this list refuses to."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise TypeError("a closed call's lists do not change")

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse


_NO_ITEMS = _NoItems()
_LIST_FIELDS = ("children", "views", "writes", "nodes", "created")


def _share_empty_lists(call: OperatorCall) -> None:
    for name in _LIST_FIELDS:
        if not getattr(call, name):
            setattr(call, name, _NO_ITEMS)


def _lists_to_tuples(d: dict | None) -> dict | None:
    """JSON turns tuples into lists; shapes and strides are tuples in the live state."""
    if d is None:
        return None
    return {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}


def _event_fields(event, *names: str) -> dict:
    """The named fields as a dict (shapes as tuples, whether the event came live or as JSON)."""
    values = {}
    for name in names:
        value = getattr(event, name)
        values[name] = tuple(value) if isinstance(value, list) else value
    return values


class _Fields:
    """An event dict read like the event (``e.op``), so one set of handlers serves both."""

    __slots__ = ("_d",)

    def __init__(self, d: dict):
        self._d = d

    def __getattr__(self, name: str):
        try:
            return self._d[name]
        except KeyError:
            raise AttributeError(name) from None


class DispatchState:
    """Every operator call seen so far, as a tree (``roots`` -> ``children``).

    ``apply(event)`` folds one event in; events other than the dispatcher's and the
    autograd node events are ignored, so a whole recording can be fed in.
    """

    def __init__(self):
        self.calls: ChunkedList = ChunkedList()  # OperatorCall, by index
        self.roots: ChunkedList = ChunkedList()  # indices of the top-level calls, in order
        self._open: list[int] = []  # calls not yet returned, outermost first
        self._open_ids: dict[int, int] = {}  # engine call id -> index, for the open calls
        self._during = ""  # the backward node now running, if any
        self.last_call = -1  # the call the last folded event belonged to
        self.events_seen = 0
        # Open calls this state holds in common with a snapshot: copied before a write.
        self._shared: set[int] = set()

    # --- folding ----------------------------------------------------------------------

    def apply(self, event) -> None:
        """Fold one event: an ``Event`` (live) or its dict (a recording's ``to_dicts()``)."""
        self.events_seen += 1
        if isinstance(event, dict):
            handler = _HANDLERS_BY_KIND.get(event["kind"])
            if handler is not None:
                handler(self, _Fields(event))
            return
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def _on_dispatched(self, e: events.OpDispatched) -> None:
        index = self._open_ids.get(e.call)
        if index is None:
            # A new call id opens a call (or, in a recording that starts mid-call, the
            # remaining keys of a call whose first step was dropped).
            self._open_call(e)
            return
        call = self._writable(index)
        call.steps.append(DispatchStep(e.key, e.action, e.depth, e.seq, e.note))
        self.last_call = index

    def _open_call(self, e: events.OpDispatched) -> None:
        parent = self._open_ids.get(e.parent, -1) if e.parent else -1
        index = len(self.calls)
        call = OperatorCall(index, e.op, e.variant, e.depth, e.seq, tuple(e.inputs), parent,
                            call_id=e.call, during=self._during)  # fmt: skip
        call.steps.append(DispatchStep(e.key, e.action, e.depth, e.seq, e.note))
        self.calls.append(call)
        if parent < 0:
            self.roots.append(index)
        else:
            self._writable(parent).children.append(index)
        self._open.append(index)
        if e.call:
            self._open_ids[e.call] = index
        self.last_call = index

    def _on_returned(self, e: events.OpReturned) -> None:
        index = self._open_ids.pop(e.call, None)
        if index is None:
            return  # its first step was dropped before the recording's window
        call = self._writable(index)
        call.returned = True
        call.error = e.error
        _share_empty_lists(call)
        self._open.remove(index)
        self._shared.discard(index)
        self.last_call = index

    def _writable(self, index: int) -> OperatorCall:
        """The open call ``index``, copied first if a snapshot still shares it."""
        call = self.calls[index]
        if index in self._shared:
            call = call.copy()
            self.calls[index] = call
            self._shared.discard(index)
        return call

    def _call_index(self, call_id: int) -> int:
        """The open call an event's ``call`` id names; -1 for 0 (no call) or an unknown id."""
        return self._open_ids.get(call_id, -1) if call_id else -1

    def _attach(self, index: int, attribute: str, value) -> None:
        """Add an event's data to the open call ``index``."""
        if index < 0:
            return  # an event outside any call (e.g. the leaf's AccumulateGrad in backward)
        call = self._writable(index)
        if attribute == "kernel":
            call.kernel = value
        else:
            getattr(call, attribute).append(value)
        self.last_call = index

    def _on_kernel(self, e: events.KernelChosen) -> None:
        value = _event_fields(e, "op", "dtype", "input_dtypes", "shape", "output",
                              "output_stride", "reason")  # fmt: skip
        self._attach(self._call_index(e.call), "kernel", value)

    def _on_view(self, e: events.ViewCreated) -> None:
        value = _event_fields(e, "tensor", "base", "source", "op", "shape", "stride", "offset")
        self._attach(self._call_index(e.call), "views", value)

    def _on_write(self, e: events.InplaceWrite) -> None:
        value = _event_fields(e, "tensor", "storage", "op", "version")
        self._attach(self._call_index(e.call), "writes", value)

    def _on_node(self, e: events.NodeCreated) -> None:
        value = _event_fields(e, "node", "name", "outputs", "next_nodes", "saved", "variable")
        self._attach(self._call_index(e.call), "nodes", value)

    def _on_tensor(self, e: events.TensorCreated) -> None:
        # TensorCreated names no call: a tensor is made by the innermost call running.
        value = _event_fields(e, "tensor", "storage", "shape", "stride", "offset", "dtype")
        self._attach(self._open[-1] if self._open else -1, "created", value)

    def _on_node_started(self, e: events.NodeStarted) -> None:
        self._during = e.name  # calls made from here on run a backward formula

    def _on_node_finished(self, e: events.NodeFinished) -> None:
        self._during = ""

    # --- reading ----------------------------------------------------------------------

    def walk(self, indices=None):
        """``(call, level)`` for every call, depth first, in call order."""
        stack = [(i, 0) for i in reversed(self.roots if indices is None else indices)]
        while stack:
            index, level = stack.pop()
            call = self.calls[index]
            yield call, level
            stack.extend((child, level + 1) for child in reversed(call.children))

    @property
    def open_calls(self) -> tuple[int, ...]:
        """Indices of the calls not yet returned, outermost first."""
        return tuple(self._open)

    def current_call(self) -> OperatorCall | None:
        """The call the most recent event belonged to (what a timeline highlights)."""
        return self.calls[self.last_call] if self.last_call >= 0 else None

    def operator_names(self) -> list[str]:
        """Every operator called, once each, sorted (for a filter's suggestions)."""
        return sorted({call.op for call in self.calls})

    # --- snapshots and plain data ---------------------------------------------------------

    def copy(self) -> DispatchState:
        """A snapshot: closed calls are shared (never changed again), open ones copied
        lazily by whichever state writes them next."""
        other = DispatchState.__new__(DispatchState)
        other.calls = self.calls.copy()
        other.roots = self.roots.copy()
        other._open = list(self._open)
        other._open_ids = dict(self._open_ids)
        other._during = self._during
        other.last_call = self.last_call
        other.events_seen = self.events_seen
        other._shared = set(self._open)
        # Both states now hold the same open call objects: each copies before writing.
        self._shared.update(self._open)
        return other

    def to_json(self) -> dict:
        return {
            "calls": [call.to_json() for call in self.calls],
            "roots": list(self.roots),
            "open": list(self._open),
            "open_ids": [[call_id, index] for call_id, index in self._open_ids.items()],
            "during": self._during,
            "last_call": self.last_call,
            "events_seen": self.events_seen,
        }

    @classmethod
    def from_json(cls, data: dict) -> DispatchState:
        state = cls()
        state.calls = ChunkedList(OperatorCall.from_json(d) for d in data["calls"])
        state.roots = ChunkedList(data["roots"])
        state._open = list(data.get("open", []))
        state._open_ids = {call_id: index for call_id, index in data.get("open_ids", [])}
        state._during = data.get("during", "")
        state.last_call = data.get("last_call", -1)
        state.events_seen = data.get("events_seen", 0)
        return state

    @classmethod
    def from_events(cls, stream) -> DispatchState:
        state = cls()
        for event in stream:
            state.apply(event)
        return state


_HANDLERS = {
    events.OpDispatched: DispatchState._on_dispatched,
    events.OpReturned: DispatchState._on_returned,
    events.KernelChosen: DispatchState._on_kernel,
    events.ViewCreated: DispatchState._on_view,
    events.InplaceWrite: DispatchState._on_write,
    events.NodeCreated: DispatchState._on_node,
    events.TensorCreated: DispatchState._on_tensor,
    events.NodeStarted: DispatchState._on_node_started,
    events.NodeFinished: DispatchState._on_node_finished,
}
_HANDLERS_BY_KIND = {cls.kind: handler for cls, handler in _HANDLERS.items()}
# The event kinds that change this state (a timeline skips redrawing for the others).
DispatchState.KINDS = frozenset(_HANDLERS_BY_KIND)
