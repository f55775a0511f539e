"""GraphState: the backward graph, and the engine's walk through it, as events tell them.

A ``grad_fn`` graph is built during the forward pass: each recorded operation adds a
node (``NodeCreated``) whose ``next_functions`` point at the nodes of its inputs, down
to the ``AccumulateGrad`` node of every leaf. ``backward()`` then runs PyTorch's
engine algorithm (``torch/csrc/autograd/engine.cpp``): count each node's
*dependencies*, keep a *ready queue* of nodes whose gradients have all arrived, run
the one with the highest ``sequence_nr``, send its gradients along its edges, and
add what reaches a leaf into ``leaf.grad``. This state folds the events of both
phases into plain data a view can draw:

* ``nodes[id]`` — ``{"name", "sequence_nr", "outputs", "saved", "variable", "next",
  "output_meta"}`` (``sequence_nr`` as the engine gave it; ``relative_sequence_nr``
  counts from the first node seen, which is what a deterministic drawing shows);
  ``next`` is ``next_functions`` as ``[node_id, input_nr]`` pairs (``[0, 0]`` where an
  input needs no gradient); ``variable`` is the leaf of an ``AccumulateGrad`` node;
  ``output_meta`` is ``NodeCreated.output_meta`` as ``[shape, dtype]`` lists (the
  outputs' shapes when their tensors are unknown: a graph described after the fact).
* ``tensors[id]`` — ``{"shape", "dtype"}``, for labels; ``names[id]`` the user's names;
  ``values[id]`` a short preview of a tensor's values, when a live view knows it.
* during and after a backward pass (``phase`` is ``"backward"`` then ``"done"``):
  ``running`` (the node being applied, 0 for none), ``queue`` (the ready queue, next
  to run first), ``dependencies`` (node -> gradients still to arrive), ``edge_grads``
  (``(node, position)`` -> summary of the gradient sent along that edge),
  ``grads_in`` (node -> summaries of the gradients it received), ``finished``,
  ``accumulated`` (leaf tensor -> summary of its ``.grad``) and ``hooks``.

**Ids.** The state numbers nodes and tensors itself, from 1, in the order their ids
first appear in the events it folds — the rule ``Recorder.to_dicts()`` follows. So a
recording loaded from JSON, the same recording's live events, and a live view all
give the same ids, and the DOT drawn from them is deterministic (``n1``, ``n2``…).

**Only events.** Live or replayed, the state is folded from events alone: a live view
seeds it with ``vizgrad.autograd.graph_events(tensor)`` (the graph told as the events
that built it) and then follows the event bus; a Timeline folds a recording. Nothing
here reads an engine object.
"""

from __future__ import annotations

import json

from vizgrad import events as _events
from vizgrad.autograd import graph_events

from .persistent import ChunkedMap

__all__ = ["GraphState", "events_for_graph"]

_BACKWARD_KINDS = frozenset({
    "backward_started", "ready_queue_changed", "node_started", "node_finished",
    "grad_accumulated", "hook_fired",
})  # fmt: skip


def _as_dict(event) -> dict:
    """Events arrive as ``Event`` objects (live) or as their dicts (from a recording)."""
    return event if isinstance(event, dict) else event.to_dict()


class GraphState:
    """The autograd graph and the backward engine's progress through it."""

    def __init__(self):
        # The tables that grow with a recording are ChunkedMaps: a snapshot (``copy``)
        # shares their chunks, so a Timeline's snapshots and a GraphView's backward frames
        # cost what changed since the last one, not the whole graph.
        self.nodes: ChunkedMap = ChunkedMap()
        self.tensors: ChunkedMap = ChunkedMap()
        self.names: ChunkedMap = ChunkedMap()
        # Leaves that are module parameters, by the parameter's qualified name ("0.weight"):
        # the title of their AccumulateGrad when the user gave the tensor no name.
        self.parameter_names: ChunkedMap = ChunkedMap()
        self.values: ChunkedMap = ChunkedMap()
        self._ids: dict[str, ChunkedMap] = {"node": ChunkedMap(), "tensor": ChunkedMap()}
        # Names and previews given by engine id before the events numbered that tensor.
        self._pending: dict[int, list[tuple[str, str]]] = {}
        self.first_sequence_nr: int | None = None
        self._reset_backward()
        self.phase = "forward"

    def _reset_backward(self) -> None:
        self.phase = "backward"
        # roots and queue are replaced whole by each event, never changed in place:
        # snapshots share them.
        self.roots: list[int] = []
        self.running = 0
        self.queue: list[int] = []
        self.dependencies: ChunkedMap = ChunkedMap()  # node -> gradients still to arrive
        self.edge_grads: ChunkedMap = ChunkedMap()  # (node, position) -> summary
        self.grads_in: ChunkedMap = ChunkedMap()  # node -> summaries
        self.finished: ChunkedMap = ChunkedMap()  # the nodes run, in order (keys; values None)
        self.accumulated: ChunkedMap = ChunkedMap()  # leaf -> summary of its .grad
        self.hooks: ChunkedMap = ChunkedMap()  # node -> hook names
        self.last_step = ""  # one sentence: what the engine just did

    # --- ids --------------------------------------------------------------------------

    def local_id(self, space: str, engine_id: int) -> int:
        """This state's number for an engine id ("node" or "tensor"); 0 stays "none"."""
        if not engine_id:
            return 0
        table = self._ids[space]
        local = table.get(engine_id)
        if local is None:
            local = table[engine_id] = len(table) + 1
            for table_name, text in self._pending.pop(engine_id, ()) if space == "tensor" else ():
                self._remember(local, table_name, text)
        return local

    def known(self, space: str, engine_id: int) -> int:
        """This state's number for an engine id, or 0 if it was never seen (numbers nothing)."""
        return self._ids[space].get(engine_id, 0)

    def _renumber(self, d: dict) -> dict:
        """``d`` with its ids replaced by local ones, visiting fields as ``to_dicts`` does."""
        cls = _events.EVENT_TYPES.get(d["kind"])
        if cls is None:
            return d
        d = dict(d)
        for name, space in cls.id_fields.items():
            if space not in self._ids:
                continue  # storages: not drawn here
            value = d.get(name)
            if isinstance(value, tuple | list):
                d[name] = [self.local_id(space, v) for v in value]
            elif isinstance(value, int):
                d[name] = self.local_id(space, value)
        return d  # "dependencies" keeps the engine's ids: _set_dependencies renumbers it

    # --- folding events ---------------------------------------------------------------

    def apply(self, event) -> None:
        """Fold one event (an ``Event`` or its dict); others are ignored but numbered."""
        d = self._renumber(_as_dict(event))
        handler = self._HANDLERS.get(d["kind"])
        if handler is not None:
            handler(self, d)

    def name_tensor(self, engine_tensor_id: int, name: str) -> None:
        """Give a tensor the user's name (``GraphView(names=...)``).

        Naming does not number the tensor: numbers follow the events alone, so a view
        with names draws the same ids as a recording without them.
        """
        self._name_later(engine_tensor_id, "names", str(name))

    def describe_tensor(self, engine_tensor_id: int, shape, dtype: str) -> None:
        """The shape and dtype of a tensor whose creation the events do not tell (one made
        before a recording started), for its labels; like ``name_tensor``, it numbers
        nothing. A ``TensorCreated`` folded later wins."""
        self._name_later(engine_tensor_id, "tensors", {"shape": list(shape), "dtype": dtype})

    def set_value(self, engine_tensor_id: int, preview: str) -> None:
        """Remember a short preview of a tensor's values (only live views know them)."""
        self._name_later(engine_tensor_id, "values", str(preview))

    def _name_later(self, engine_tensor_id: int, table: str, text) -> None:
        local = self.known("tensor", engine_tensor_id)
        if local:
            self._remember(local, table, text)
        else:
            self._pending[engine_tensor_id] = [
                *self._pending.get(engine_tensor_id, []),
                (table, text),
            ]

    def _remember(self, local: int, table: str, text: str) -> None:
        getattr(self, table)[local] = text

    def _tensor_created(self, d: dict) -> None:
        self.tensors[d["tensor"]] = {"shape": list(d["shape"]), "dtype": d["dtype"]}

    def _node_created(self, d: dict) -> None:
        if not d.get("variable") and self.first_sequence_nr is None:
            self.first_sequence_nr = d["sequence_nr"]
        next_nodes = list(d["next_nodes"])
        input_nrs = list(d.get("next_input_nrs") or [0] * len(next_nodes))
        self.nodes[d["node"]] = {
            "name": d["name"],
            "sequence_nr": d["sequence_nr"],
            "outputs": list(d["outputs"]),
            "saved": list(d.get("saved", ())),
            "variable": d.get("variable", 0),
            "next": [[n, nr if n else 0] for n, nr in zip(next_nodes, input_nrs, strict=True)],
            # Shapes of outputs whose tensors are unknown (a graph walked after the fact).
            "output_meta": [[list(shape), dtype] for shape, dtype in d.get("output_meta", ())],
            # The nn.Module path that recorded it: [[qualified_name, type_name], ...].
            "module": [list(step) for step in d.get("module", ())],
        }
        if d.get("parameter") and d.get("variable"):
            self.parameter_names[d["variable"]] = d["parameter"]
        leaf = d.get("variable")
        if leaf and leaf not in self.tensors and d.get("output_meta"):
            # A leaf made before this state's events began: its AccumulateGrad tells its
            # shape (otherwise "(shape unknown)").
            (shape, dtype), *_ = d["output_meta"]
            self.tensors[leaf] = {"shape": list(shape), "dtype": dtype}

    def _backward_started(self, d: dict) -> None:
        self._reset_backward()
        self.roots = list(d["roots"])
        self._set_dependencies(d["dependencies"])
        self.last_step = (
            f"backward starts at {self.describe_nodes(self.roots)}: dependencies counted"
        )

    def _ready_queue_changed(self, d: dict) -> None:
        self.queue = list(d["queue"])
        self._set_dependencies(d["dependencies"])
        if not self.queue and self.running == 0 and self.finished:
            self.phase = "done"
            self.last_step = "the ready queue is empty: backward is done"
        else:
            self.last_step = f"ready queue: {self.describe_nodes(self.queue) or 'empty'}"

    def _set_dependencies(self, counts: dict) -> None:
        """Fold dependency counts: ``BackwardStarted`` gives every node's, each
        ``ReadyQueueChanged`` only those its step counted down (written in place, so
        the snapshots of a backward pass, one per step, share the rest)."""
        for node, count in counts.items():
            self.dependencies[self.local_id("node", int(node))] = count

    def _node_started(self, d: dict) -> None:
        node = d["node"]
        self.running = node
        if node in self.queue:
            self.queue = [n for n in self.queue if n != node]  # popped from the queue
        self.grads_in[node] = list(d["grad_inputs"])
        self.last_step = f"{self.node_title(node)} runs on {', '.join(d['grad_inputs'])}"

    def _node_finished(self, d: dict) -> None:
        node = d["node"]
        for position, summary in enumerate(d["grad_outputs"]):
            if summary != "None":
                self.edge_grads[(node, position)] = summary
        self.running = 0
        self.finished[node] = None
        sent = sum(1 for s in d["grad_outputs"] if s != "None")
        self.last_step = f"{self.node_title(node)} finished: {sent} gradient(s) sent on"

    def _grad_accumulated(self, d: dict) -> None:
        self.accumulated[d["tensor"]] = d["grad"]
        self.last_step = f"{self.tensor_title(d['tensor'])}.grad is now {d['grad']}"

    def _hook_fired(self, d: dict) -> None:
        node = d.get("node", 0)
        self.hooks[node] = [*self.hooks.get(node, []), d["hook"]]
        self.last_step = f"a {d['hook']} hook ran on {self.node_title(node)}"

    # The backward engine's steps this state folds (``events.BACKWARD_KINDS`` but the
    # version checks, which change nothing drawn).
    BACKWARD_KINDS = _BACKWARD_KINDS

    _HANDLERS = {
        "tensor_created": _tensor_created,
        "node_created": _node_created,
        "backward_started": _backward_started,
        "ready_queue_changed": _ready_queue_changed,
        "node_started": _node_started,
        "node_finished": _node_finished,
        "grad_accumulated": _grad_accumulated,
        "hook_fired": _hook_fired,
    }

    @staticmethod
    def is_backward_event(event) -> bool:
        """Is this one of the engine's backward steps (worth a frame of its own)?"""
        kind = event["kind"] if isinstance(event, dict) else event.kind
        return kind in _BACKWARD_KINDS

    # --- reading ----------------------------------------------------------------------

    def edges(self) -> list[tuple[int, int, int, int]]:
        """Every edge as ``(node, position, next_node, input_nr)``, in a stable order."""
        out = []
        for node in sorted(self.nodes):
            for position, (next_node, input_nr) in enumerate(self.nodes[node]["next"]):
                if next_node:
                    out.append((node, position, next_node, input_nr))
        return out

    def leaves(self) -> dict[int, int]:
        """AccumulateGrad node -> the leaf tensor it accumulates into."""
        return {n: rec["variable"] for n, rec in sorted(self.nodes.items()) if rec["variable"]}

    def drawn_tensors(self) -> set[int]:
        """Tensors a drawing can mention: outputs, saved tensors and leaves of the nodes."""
        drawn: set[int] = set()
        for record in self.nodes.values():
            drawn.update(record["outputs"], record["saved"], [record["variable"]])
        drawn.discard(0)
        return drawn

    def forget_undrawn_tensors(self) -> None:
        """Drop shapes of tensors no node mentions (bounds memory in a long live session).

        A tensor made but not yet used by a node is forgotten too: its node will say
        "(shape unknown)" -- the price of a bounded view.
        """
        drawn = self.drawn_tensors()
        self.tensors = ChunkedMap((t, rec) for t, rec in self.tensors.items() if t in drawn)

    @staticmethod
    def short_name(name: str) -> str:
        """``vizgrad::autograd::AccumulateGrad`` -> ``AccumulateGrad`` (the class name)."""
        return name.rsplit("::", 1)[-1]

    def relative_sequence_nr(self, node: int) -> int | None:
        """``sequence_nr`` counted from the first node this state saw (None for AccumulateGrad).

        PyTorch's counter is per thread and never goes back, so its raw value depends
        on everything that ran before; only differences matter to the engine (the ready
        queue runs the highest first), and differences are what a drawing can keep
        deterministic.
        """
        record = self.nodes[node]
        if record["variable"] or self.first_sequence_nr is None:
            return None
        return record["sequence_nr"] - self.first_sequence_nr

    def tensor_title(self, tensor: int) -> str:
        return self.names.get(tensor) or self.parameter_names.get(tensor) or f"tensor {tensor}"

    def node_title(self, node: int) -> str:
        record = self.nodes.get(node)
        if record is None:
            return f"node {node}"
        title = self.short_name(record["name"])
        if record["variable"]:
            title += f"({self.tensor_title(record['variable'])})"
        return title

    def describe_nodes(self, nodes) -> str:
        return ", ".join(self.node_title(n) for n in nodes)

    # --- snapshots and export -----------------------------------------------------------

    _TABLES = ("nodes", "tensors", "names", "parameter_names", "values", "dependencies",
               "edge_grads", "grads_in", "finished", "accumulated", "hooks")  # fmt: skip

    def copy(self) -> GraphState:
        """A snapshot: tables share their chunks until written (``persistent``), records
        are shared (never changed in place), and so are the tables events replace whole."""
        new = GraphState.__new__(GraphState)
        new.__dict__.update(self.__dict__)
        for name in self._TABLES:
            setattr(new, name, getattr(self, name).copy())
        new._ids = {space: table.copy() for space, table in self._ids.items()}
        new._pending = dict(self._pending)
        return new

    def to_json(self, *, drawn_only: bool = False) -> dict:
        """Plain, JSON-able data (int keys become strings; edge keys ``"node:position"``).

        ``drawn_only`` keeps only the tensors the graph mentions and leaves out the
        engine's ids (what a widget syncs: its size follows the drawing, not the
        recording).
        """

        def keyed(table) -> dict:
            return {str(k): v for k, v in table.items()}

        tensors, names, parameters, values = (self.tensors, self.names, self.parameter_names,
                                              self.values)  # fmt: skip
        if drawn_only:
            drawn = sorted(self.drawn_tensors())

            def only_drawn(table) -> dict:
                return {t: table[t] for t in drawn if t in table}

            tensors, names, parameters, values = (only_drawn(tensors), only_drawn(names),
                                                  only_drawn(parameters), only_drawn(values))  # fmt: skip
            ids = {}
        else:
            ids = {space: [[k, v] for k, v in table.items()] for space, table in self._ids.items()}
        return {
            "nodes": keyed(self.nodes),
            "tensors": keyed(tensors),
            "names": keyed(names),
            "parameter_names": keyed(parameters),
            "values": keyed(values),
            "ids": ids,
            "phase": self.phase,
            "first_sequence_nr": self.first_sequence_nr,
            "roots": list(self.roots),
            "running": self.running,
            "queue": list(self.queue),
            "dependencies": keyed(self.dependencies),
            "edge_grads": {f"{n}:{p}": s for (n, p), s in self.edge_grads.items()},
            "grads_in": keyed(self.grads_in),
            "finished": list(self.finished),
            "accumulated": keyed(self.accumulated),
            "hooks": keyed(self.hooks),
            "last_step": self.last_step,
        }

    @classmethod
    def from_json(cls, data) -> GraphState:
        """Rebuild a state from ``to_json()`` (or its JSON text)."""
        if isinstance(data, str):
            data = json.loads(data)

        def keyed(table: dict) -> ChunkedMap:
            return ChunkedMap((int(k), v) for k, v in table.items())

        state = cls()
        state.nodes = keyed(data["nodes"])
        state.tensors = keyed(data["tensors"])
        state.names = keyed(data["names"])
        state.parameter_names = keyed(data.get("parameter_names", {}))
        state.values = keyed(data["values"])
        state._ids.update(
            (space, ChunkedMap(pairs)) for space, pairs in data.get("ids", {}).items()
        )
        state.phase = data["phase"]
        state.first_sequence_nr = data["first_sequence_nr"]
        state.roots = list(data["roots"])
        state.running = data["running"]
        state.queue = list(data["queue"])
        state.dependencies = keyed(data["dependencies"])
        state.edge_grads = ChunkedMap(
            (tuple(int(x) for x in key.split(":")), s) for key, s in data["edge_grads"].items()
        )
        state.grads_in = keyed(data["grads_in"])
        state.finished = ChunkedMap((node, None) for node in data["finished"])
        state.accumulated = keyed(data["accumulated"])
        state.hooks = keyed(data["hooks"])
        state.last_step = data["last_step"]
        return state


# --- a graph that already exists ------------------------------------------------------


def events_for_graph(tensor) -> list[dict]:
    """The events that built ``tensor``'s graph, as dicts: ``graph_events(tensor)``.

    A view opened on a finished forward pass missed those events; the engine tells
    them again from the live graph (``vizgrad.autograd.graph_events``), with its own
    ids, so the backward events that follow find the same nodes.
    """
    return [event.to_dict() for event in graph_events(tensor)]
