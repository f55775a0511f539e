"""``graph_events(*roots)``: a live autograd graph, told as the events that built it.

A view opened after the forward pass missed the ``NodeCreated`` events of its graph.
``graph_events`` rebuilds them from the graph itself, the way ``torchviz`` walks it:
from each root's ``grad_fn`` through ``next_functions`` down to the ``AccumulateGrad``
node of every leaf. What comes out is what a ``vizgrad.events.Recorder`` would have
seen while the graph was recorded, as far as the live graph still tells it:

* ``StorageCreated`` and ``TensorCreated`` for every tensor the graph still holds —
  the roots, the leaves (``AccumulateGrad.variable``) and the tensors nodes saved for
  backward (``_saved_<name>``, or ``saved_tensors`` for a custom ``Function``);
* ``NodeCreated`` for every node, in creation order (a node after the nodes its edges
  point at), with its ``next_functions`` edges, its saved tensors, and
  ``output_meta``: the shape and dtype of its outputs, whose tensors are gone.

Ids are the engine's (``vizgrad.events.event_id``), so the events fit with those the
engine emits next: a view seeded from ``graph_events(loss)`` follows
``loss.backward()``'s ``NodeStarted``/``NodeFinished`` events on the same nodes.

What the graph no longer knows is left out: the operator calls (``call`` is 0, no
``OpDispatched``), views' ``ViewCreated`` (a view is described by its own geometry),
and the tensors a finished backward freed. PyTorch has no such function; the nearest
is walking ``grad_fn.next_functions`` by hand. Only the public API is read (PyTorch's
names), with one exception, see ``_edge_metadata``.
"""

from __future__ import annotations

from .. import events
from ..tensor import Tensor

__all__ = ["graph_events", "tensor_events"]


def tensor_events(tensor) -> tuple[events.StorageCreated, events.TensorCreated]:
    """The events that made ``tensor`` and its storage, told from the live tensor.

    Its geometry is the tensor's as it is now (``shape``, ``stride()``,
    ``storage_offset()``); ids are the engine's. A view uses it for a tensor made
    before a recording started, which the recording names but never saw created.
    """
    storage = tensor.untyped_storage()
    storage_id = events.event_id(storage)
    dtype = _dtype_name(tensor.dtype)
    return (
        events.StorageCreated(storage_id, dtype, storage.nbytes() // tensor.element_size()),
        events.TensorCreated(
            events.event_id(tensor),
            storage_id,
            tuple(tensor.shape),
            tuple(tensor.stride()),
            tensor.storage_offset(),
            dtype,
            tensor.requires_grad,
        ),  # fmt: skip
    )


def graph_events(*roots) -> list[events.Event]:
    """The events a recorder would have seen for the live graph behind ``roots``.

    ``roots``: tensors (their ``grad_fn``'s graph; a tensor without ``grad_fn`` adds
    nothing) or autograd nodes. Returns ``Event`` objects with ``seq`` 0 (never
    emitted): fold them into a view's state, or ``to_dict()`` them.
    """
    tensors, starts = [], []
    for root in roots:
        if isinstance(root, Tensor):
            if root.grad_fn is not None:
                tensors.append(root)
                starts.append(root.grad_fn)
        elif root is not None:
            starts.append(root)
    nodes = sorted(_walk(starts), key=events.event_id)  # ids grow with creation
    output_meta = _output_metadata(nodes)
    out: list[events.Event] = []
    seen_tensors: set[int] = set()
    seen_storages: set[int] = set()

    def describe(t) -> None:
        tensor_id = events.event_id(t)
        if tensor_id in seen_tensors:
            return
        seen_tensors.add(tensor_id)
        storage_created, tensor_created = tensor_events(t)
        if storage_created.storage not in seen_storages:
            seen_storages.add(storage_created.storage)
            out.append(storage_created)
        out.append(tensor_created)

    for node in nodes:
        variable = getattr(node, "variable", None)  # AccumulateGrad's leaf
        saved = _saved_tensors(node)
        outputs = [t for t in tensors if t.grad_fn is node]
        for t in ([variable] if variable is not None else []) + saved + outputs:
            describe(t)
        out.append(events.NodeCreated(
            node=events.event_id(node),
            name=node.name(),
            sequence_nr=node._sequence_nr(),
            outputs=tuple(dict.fromkeys(events.event_id(t) for t in outputs)),
            next_nodes=tuple(events.event_id(n) for n, _ in node.next_functions),
            saved=tuple(events.event_id(t) for t in saved),
            variable=events.event_id(variable),
            next_input_nrs=tuple(nr for _, nr in node.next_functions),
            output_meta=output_meta.get(node, ()),
            module=node.metadata.get("module", ()),
            parameter=node.metadata.get("parameter", ""),
        ))  # fmt: skip
    return out


def _dtype_name(dtype) -> str:
    """``vizgrad.float32`` -> ``float32``, the name events give dtypes."""
    return str(dtype).removeprefix("vizgrad.")


def _walk(starts) -> list:
    """Every node reachable from ``starts`` through ``next_functions``."""
    seen = set(starts)
    stack = list(seen)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is not None and next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return list(seen)


def _output_metadata(nodes) -> dict:
    """Shape and dtype of each node's outputs, read from the nodes they flow into.

    The output tensors of inner nodes are gone after the forward pass, but a node
    keeps the metadata of each of its inputs (to check the gradients it computes for
    them), and a node's input is the output of the node its edge points at.
    AccumulateGrad's "output" is its leaf: its own shape and dtype, as the engine tells
    them when it makes the node (``announce_node``).
    """
    meta: dict = {}
    for node in nodes:
        variable = getattr(node, "variable", None)
        if variable is not None:
            meta[node] = {0: (tuple(variable.shape), _dtype_name(variable.dtype))}
        for (next_node, input_nr), info in zip(node.next_functions, _edge_metadata(node),
                                               strict=False):  # fmt: skip
            if (
                next_node is None
                or info is None
                or getattr(next_node, "variable", None) is not None
            ):
                continue
            shape, dtype = info[:2]
            meta.setdefault(next_node, {})[input_nr] = (tuple(shape), _dtype_name(dtype))
    return {node: tuple(outputs[k] for k in sorted(outputs)) for node, outputs in meta.items()}


def _edge_metadata(node) -> tuple:
    """``(shape, dtype, device)`` of the tensor that fed each edge of ``node`` (None: unknown).

    The one read of an engine field that is not public API: PyTorch exposes this
    metadata from the other end (``Node._input_metadata``: a node's own outputs), which
    vizgrad's nodes do not have yet; formula nodes and custom Functions' nodes keep it
    per edge, as ``_input_meta``. Nodes without it describe no output shapes.
    """
    return getattr(node, "_input_meta", None) or ()


def _saved_tensors(node) -> list:
    """The tensors a node saved for backward, read as PyTorch exposes them.

    Formula nodes show them as ``_saved_<name>`` attributes (``dir(grad_fn)`` lists
    them); custom Functions' nodes as ``saved_tensors``. After a backward without
    ``retain_graph`` they are freed and reading them raises: a freed node shows none.
    """
    names = [n for n in dir(node) if n.startswith("_saved_")]
    if hasattr(type(node), "saved_tensors"):
        names.append("saved_tensors")
    saved = []
    for name in names:
        try:
            value = getattr(node, name)
        except RuntimeError:  # freed by an earlier backward
            continue
        for item in value if isinstance(value, list | tuple) else (value,):
            if isinstance(item, Tensor) and all(item is not s for s in saved):
                saved.append(item)
    return saved
