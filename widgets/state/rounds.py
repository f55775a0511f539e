"""Rounds: a recording's autograd graphs, one per forward-and-backward.

A training loop builds a new graph every iteration: the forward pass records its
nodes, ``backward()`` walks them, and the next iteration records new ones (PyTorch
frees the walked graph unless ``retain_graph``). A ``GraphState`` keeps every node it
ever saw, so after 200 iterations it holds 200 graphs; a view of "the graph at this
step" wants only the one being built or walked. ``Rounds`` splits the stream:

* a *round* starts with the first grad_fn node recorded after a backward pass
  finished (the first round starts with the first node);
* its nodes are the nodes it records and every older node they lead to (a
  parameter's ``AccumulateGrad``, a graph kept by ``retain_graph``), so each round
  is a whole graph.

``Rounds.fold`` sees each event before and after the ``GraphState`` folds it; a
Timeline and an exported page both ask it which round a step is in.

Pure: no widget library is imported here.
"""

from __future__ import annotations

import bisect

from .graph import GraphState

__all__ = ["Round", "Rounds", "round_state"]


class Round:
    """One round: where it starts, the nodes it records and the nodes it reaches."""

    __slots__ = ("start", "created", "nodes", "backward")

    def __init__(self, start: int):
        self.start = start  # the step whose event recorded its first node
        self.created: list[int] = []  # its own nodes, in the order they were recorded
        self.nodes: dict[int, None] = {}  # those and the older nodes they reach
        self.backward = False  # has its backward pass started?

    def add(self, graph: GraphState, node: int) -> None:
        self.created.append(node)
        stack = [node]
        while stack:
            current = stack.pop()
            if current in self.nodes:
                continue
            self.nodes[current] = None
            record = graph.nodes.get(current)
            if record is not None:
                stack.extend(n for n, _ in record["next"] if n)


class Rounds:
    """The rounds of one stream of events, folded alongside a ``GraphState``."""

    def __init__(self):
        self.rounds: list[Round] = []
        self._starts: list[int] = []
        self._backward_done = False
        self._nodes_before = 0

    def before(self, d: dict, step: int) -> Round | None:
        """Call before the graph folds event ``d`` (step ``step``); returns the round
        that this event ends, if it starts a new one."""
        if d["kind"] == "node_created" and not d.get("variable") and self._backward_done:
            self._backward_done = False
            ended = self.rounds[-1] if self.rounds else None
            self._open(step)
            return ended
        return None

    def _open(self, step: int) -> None:
        self.rounds.append(Round(step))
        self._starts.append(step)

    def after(self, d: dict, graph: GraphState, step: int) -> None:
        """Call after the graph folded event ``d``."""
        kind = d["kind"]
        if len(graph.nodes) > self._nodes_before:
            self._nodes_before = len(graph.nodes)
            if not self.rounds:
                self._open(step)
            self.rounds[-1].add(graph, graph.known("node", d["node"]))
        elif kind == "backward_started" and self.rounds:
            self.rounds[-1].backward = True
        elif kind == "ready_queue_changed" and graph.phase == "done":
            self._backward_done = True

    def at(self, step: int) -> Round | None:
        """The round step ``step`` belongs to (None before the first node)."""
        index = bisect.bisect_right(self._starts, step) - 1
        return self.rounds[index] if index >= 0 else None


def round_state(graph: GraphState, nodes, numbering: dict[int, int] | None = None) -> GraphState:
    """``graph`` showing only ``nodes`` (those recorded by now), as a snapshot to draw.

    With ``numbering`` (node -> the number to draw it as) the nodes are renumbered, and
    the round is drawn as a graph of its own in the forward phase (an exported page
    marks the backward pass on it). ``seq`` counts from the round's first node.
    """
    state = graph.copy()
    kept = {}
    for node in nodes:
        record = graph.nodes.get(node)
        if record is None:
            continue
        if numbering is not None:
            record = {**record, "next": [[numbering.get(n, 0) if n else 0, nr]
                                         for n, nr in record["next"]]}  # fmt: skip
            node = numbering[node]
        kept[node] = record
    state.nodes = type(graph.nodes)(kept)
    if numbering is not None:  # the graph alone: no backward pass drawn into it
        state._reset_backward()
        state.phase = "forward"
    seqs = [r["sequence_nr"] for r in kept.values() if not r["variable"]]
    state.first_sequence_nr = min(seqs) if seqs else None
    return state
