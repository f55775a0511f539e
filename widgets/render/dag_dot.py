"""The backward DAG as a drawing: GraphState -> nodes and edges with labels -> DOT source.

What is drawn follows what a student sees in PyTorch:

* one box per ``grad_fn`` node, with PyTorch's name (``MulBackward0``), its
  ``sequence_nr`` (the engine runs the highest first; counted from the first node the
  state saw, so the drawing does not depend on what ran before) and its output shape;
* one box per ``AccumulateGrad`` node, with the leaf tensor it feeds (the user's name
  if one was given, and its shape);
* optionally (``show_saved``) one dashed box per tensor a node saved for backward;
* optionally (``show_values``) value previews and the gradients a node received;
* one arrow per ``next_functions`` edge, from a node to the node its gradient goes to
  next (the direction gradients flow), labelled with ``input_nr`` when it is not 0;
* with ``group_modules``, one box per ``nn.Module`` whose forward recorded nodes
  (``Linear (0)`` around its ``AddmmBackward0``, ``TBackward0`` and the
  ``AccumulateGrad`` of its parameters), nested as the modules are. A module named in
  ``collapsed`` is drawn as one node standing for all of its nodes, with the edges
  that enter or leave it; an AccumulateGrad of a module parameter is titled with the
  parameter's name (``0.weight``) unless the user named the tensor.

During ``backward()`` the engine's state is drawn on top: the running node, the
ready queue (with each node's place in it), every node's dependency count, the
edges that carried a gradient (with its summary) and the leaves whose ``.grad`` was
accumulated.

The drawing is plain data (``Drawing``): ``to_dot`` turns it into DOT for graphviz,
and ``dag_layout`` can lay out the same drawing itself when graphviz is missing.
Everything is deterministic: node ids are ``n<id>`` from the state's numbering (the
recording's), nodes are listed by id, edges by (node, position). Every text that
may come from the user goes through ``escape_html`` (labels are DOT HTML-labels).

CSS classes (kept in the SVG, for the widget and the browser tests): every node has
``vg-node`` plus ``vg-grad-fn``, ``vg-accumulate``, ``vg-saved`` or ``vg-unseen`` (a
node an edge points at whose creation the view did not see); during backward
``vg-running``, ``vg-queued``, ``vg-waiting``, ``vg-done``, ``vg-accumulated``. Edges
have ``vg-edge`` (``vg-saved-edge`` for saved tensors) and ``vg-carried`` once a
gradient went along them. A module's box is a cluster ``<g id="m-0" class="cluster
vg-module">`` (``m-`` then the module's qualified name; ``m-`` alone for the outermost
module); a collapsed module is a node ``<g id="m-0" class="node vg-node
vg-module-collapsed">``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..state.graph import GraphState
from .escape import escape_html

__all__ = [
    "Drawing",
    "DrawnNode",
    "DrawnEdge",
    "DrawnGroup",
    "graph_drawing",
    "to_dot",
    "dag_dot",
    "module_id",
    "backward_overlay",
]

# Colours of the standalone drawing (the widget's CSS may restyle by class).
FILL = {
    "grad_fn": "#f3f4f6",
    "leaf": "#dbeafe",
    "saved": "#ffedd5",
    "running": "#fb923c",
    "queued": "#fde68a",
    "done": "#e5e7eb",
    "accumulated": "#86efac",
    "module": "#ede9fe",
}
EDGE_COLOR = "#6b7280"
CARRIED_COLOR = "#dc2626"


@dataclass(frozen=True)
class DrawnNode:
    id: str
    title: str  # the first, bold line (plain text: escaping happens when drawn)
    lines: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()
    fill: str = FILL["grad_fn"]
    dashed: bool = False


@dataclass(frozen=True)
class DrawnEdge:
    id: str
    source: str
    target: str
    label: str = ""
    classes: tuple[str, ...] = ()
    color: str = EDGE_COLOR
    width: float = 1.0
    dashed: bool = False
    arrow: bool = True


@dataclass(frozen=True)
class DrawnGroup:
    """A box around the nodes an ``nn.Module`` recorded (a DOT cluster)."""

    id: str
    label: str
    parent: str | None  # the enclosing group's id
    members: tuple[str, ...]  # node ids directly inside (not inside a nested group)


@dataclass(frozen=True)
class Drawing:
    nodes: tuple[DrawnNode, ...] = ()
    edges: tuple[DrawnEdge, ...] = field(default=())
    groups: tuple[DrawnGroup, ...] = ()


def module_id(qualified_name: str) -> str:
    """The drawing id of a module's box: ``m-`` and its qualified name (``m-0.fc``)."""
    return f"m-{qualified_name}"


def _module_label(name: str, type_name: str) -> str:
    return f"{type_name} ({name})" if name else type_name


# --- state -> drawing --------------------------------------------------------------


def _describe_tensor(state: GraphState, tensor: int, show_values: bool) -> list[str]:
    """``a: [3] float32`` (name if known), then ``= [1.0, 2.0, 3.0]`` with show_values."""
    record = state.tensors.get(tensor)
    kind = f"{record['shape']} {record['dtype']}" if record else "(shape unknown)"
    name = state.names.get(tensor) or state.parameter_names.get(tensor)
    lines = [f"{name}: {kind}" if name else kind]
    if show_values and tensor in state.values:
        lines.append(f"= {state.values[tensor]}")
    return lines


def _backward_status(state: GraphState, node: int) -> tuple[list[str], list[str], str | None]:
    """Label lines, classes and fill that say where ``node`` is in the engine's walk."""
    if state.phase == "forward":
        return [], [], None
    lines, classes, fill = [], [], None
    if node == state.running:
        lines.append("running")
        classes.append("vg-running")
        fill = FILL["running"]
    elif node in state.queue:
        lines.append(f"ready queue #{state.queue.index(node) + 1}")
        classes.append("vg-queued")
        fill = FILL["queued"]
    elif node in state.finished:
        classes.append("vg-done")
        fill = FILL["done"]
    if node in state.dependencies:
        lines.append(f"dependencies: {state.dependencies[node]}")
        if node != state.running and node not in state.queue and node not in state.finished:
            classes.append("vg-waiting")
    if node in state.hooks:
        lines.append("hooks: " + ", ".join(state.hooks[node]))
    return lines, classes, fill


def backward_overlay(state: GraphState, nodes: dict, hidden=()) -> dict:
    """The engine's walk as marks over a drawing made without it (plain JSON data).

    One layout can then serve every step of a backward pass: ``nodes`` maps this
    state's node ids to the drawing's (``{12: 3}``: node 12 is drawn as ``n3``), and
    the overlay says, in the drawing's ids, which nodes are not recorded yet
    (``hide``), the classes and label lines a node has at this step (``nodes``:
    ``[id, "vg-running", ["running", "dependencies: 1"]]``: what ``graph_drawing``
    writes into a node's own label during backward) and the gradient each edge
    carried (``edges``: ``[3, 0, "grad [2, 3]"]``, node ``n3``'s edge 0, ``e_n3_0``).
    """
    marks, carried = [], []
    if state.phase != "forward":
        for node, drawn in nodes.items():
            record = state.nodes.get(node)
            if record is None:
                continue
            lines, classes, _ = _backward_status(state, node)
            leaf = record["variable"]
            if leaf and leaf in state.accumulated:
                lines = [f"grad: {state.accumulated[leaf]}", *lines]
                classes = [*classes, "vg-accumulated"]
            if lines or classes:
                marks.append([drawn, " ".join(classes), lines])
        for (node, position), summary in state.edge_grads.items():
            drawn = nodes.get(node)
            if drawn is not None:
                carried.append([drawn, position, summary])
    return {"hide": sorted(hidden), "nodes": sorted(marks), "edges": sorted(carried)}


def _node(state: GraphState, node: int, show_values: bool) -> DrawnNode:
    record = state.nodes[node]
    status_lines, status_classes, status_fill = _backward_status(state, node)
    leaf = record["variable"]
    if leaf:
        lines = _describe_tensor(state, leaf, show_values)
        classes = ["vg-node", "vg-accumulate", *status_classes]
        fill = status_fill or FILL["leaf"]
        if leaf in state.accumulated:
            lines.append(f"grad: {state.accumulated[leaf]}")
            classes.append("vg-accumulated")
            fill = FILL["accumulated"]
    else:
        lines = [f"seq {state.relative_sequence_nr(node)}"]
        for output in record["outputs"]:
            lines += ["out " + line for line in _describe_tensor(state, output, show_values)]
        if not record["outputs"]:
            lines += [f"out {shape} {dtype}" for shape, dtype in record.get("output_meta", ())]
        classes = ["vg-node", "vg-grad-fn", *status_classes]
        fill = status_fill or FILL["grad_fn"]
    if show_values and node in state.grads_in:
        lines += [f"grad in: {g}" for g in state.grads_in[node]]
    return DrawnNode(
        id=f"n{node}",
        title=GraphState.short_name(record["name"]),
        lines=tuple(lines + status_lines),
        classes=tuple(classes),
        fill=fill,
    )


def _unseen(node: int) -> DrawnNode:
    """A node an edge points at but whose creation this view did not see."""
    return DrawnNode(f"n{node}", "?", ("recorded before this view",),
                     ("vg-node", "vg-unseen"), "#ffffff", dashed=True)  # fmt: skip


def _edge(state: GraphState, node: int, position: int, next_node: int, input_nr: int):
    label = f"input_nr {input_nr}" if input_nr else ""
    summary = state.edge_grads.get((node, position))
    if summary is None or state.phase == "forward":
        return DrawnEdge(f"e_n{node}_{position}", f"n{node}", f"n{next_node}", label, ("vg-edge",))
    label = f"{label}  {summary}".strip()
    return DrawnEdge(f"e_n{node}_{position}", f"n{node}", f"n{next_node}", label,
                     ("vg-edge", "vg-carried"), CARRIED_COLOR, 2.0)  # fmt: skip


def _saved(state: GraphState, node: int, show_values: bool):
    """A dashed box per saved tensor, tied to its node by a dashed line."""
    for i, tensor in enumerate(state.nodes[node]["saved"]):
        box = DrawnNode(f"n{node}_s{i}", "saved", tuple(_describe_tensor(state, tensor, show_values)),
                        ("vg-node", "vg-saved"), FILL["saved"], dashed=True)  # fmt: skip
        line = DrawnEdge(f"e_n{node}_s{i}", f"n{node}", box.id, "", ("vg-edge", "vg-saved-edge"),
                         dashed=True, arrow=False)  # fmt: skip
        yield box, line


def graph_drawing(
    state: GraphState,
    *,
    show_saved: bool = False,
    show_values: bool = False,
    group_modules: bool = True,
    collapsed=(),
):
    """The drawing of ``state``: nodes by id, edges by (node, position), module boxes."""
    nodes, edges = [], []
    for node in sorted(state.nodes):
        nodes.append(_node(state, node, show_values))
        if show_saved:
            for box, line in _saved(state, node, show_values):
                nodes.append(box)
                edges.append(line)
    edges += [_edge(state, *edge) for edge in state.edges()]
    edges.sort(key=lambda e: _edge_order(e.id))
    missing = sorted({edge[2] for edge in state.edges()} - set(state.nodes))
    nodes += [_unseen(node) for node in missing]
    drawing = Drawing(tuple(nodes), tuple(edges))
    if not group_modules:
        return drawing
    return _group_by_module(state, drawing, set(collapsed))


def _group_by_module(state: GraphState, drawing: Drawing, collapsed: set) -> Drawing:
    """Put each node in the box of the innermost module that recorded it; replace each
    collapsed module (the outermost collapsed one, when nested) by a single node."""
    paths = {f"n{node}": record.get("module") or [] for node, record in state.nodes.items()}
    owner: dict[str, str] = {}  # saved-tensor boxes go where their node goes
    for node in drawing.nodes:
        base = node.id.split("_s")[0]
        owner[node.id] = base
    stand_in: dict[str, str] = {}  # node id -> the collapsed module node replacing it
    groups: dict[str, dict] = {}
    for node in drawing.nodes:
        path = paths.get(owner[node.id], [])
        parent = None
        for name, type_name in path:
            group_id = module_id(name)
            if name in collapsed:
                stand_in[node.id] = group_id
                groups.setdefault(group_id, {"label": _module_label(name, type_name),
                                             "parent": parent, "members": [],
                                             "collapsed": True, "titles": []})  # fmt: skip
                groups[group_id]["titles"].append(node.title)
                break
            group = groups.setdefault(group_id, {"label": _module_label(name, type_name),
                                                 "parent": parent, "members": [],
                                                 "collapsed": False})  # fmt: skip
            parent = group_id
        if node.id not in stand_in and parent is not None:
            groups[parent]["members"].append(node.id)
    nodes = [node for node in drawing.nodes if node.id not in stand_in]
    for group_id, group in groups.items():
        if group["collapsed"]:
            nodes.append(_collapsed_node(group_id, group))
            if group["parent"] is not None:
                groups[group["parent"]]["members"].append(group_id)
    edges, seen = [], set()
    for edge in drawing.edges:
        source = stand_in.get(edge.source, edge.source)
        target = stand_in.get(edge.target, edge.target)
        if source == target and edge.source != edge.target:
            continue  # inside a collapsed module
        if (source, target) in seen and (source != edge.source or target != edge.target):
            continue  # one arrow between a collapsed module and each neighbour
        seen.add((source, target))
        edges.append(dataclasses.replace(edge, source=source, target=target))
    boxes = tuple(
        DrawnGroup(group_id, group["label"], group["parent"], tuple(group["members"]))
        for group_id, group in groups.items()
        if not group["collapsed"]
    )
    return Drawing(tuple(nodes), tuple(edges), boxes)


def _collapsed_node(group_id: str, group: dict) -> DrawnNode:
    counts: dict[str, int] = {}
    for title in group["titles"]:
        counts[title] = counts.get(title, 0) + 1
    parts = [f"{title} x{n}" if n > 1 else title for title, n in counts.items()]
    lines = (f"{len(group['titles'])} nodes (click to open)", *parts)
    return DrawnNode(group_id, group["label"], lines, ("vg-node", "vg-module-collapsed"),
                     FILL["module"])  # fmt: skip


def _edge_order(edge_id: str) -> tuple:
    # "e_n12_3" -> (12, 0, 3); "e_n12_s1" -> (12, 1, 1): a node's edges, then its saved lines.
    node, rest = edge_id[3:].split("_")
    return (int(node), rest.startswith("s"), int(rest.lstrip("s")))


# --- drawing -> DOT ----------------------------------------------------------------


def _quoted(text: str) -> str:
    """A DOT double-quoted string (our own ids and classes; escaped all the same)."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _html_label(title: str, lines, *, size: int = 9) -> str:
    """A DOT HTML-like label: bold title, small lines; every text escaped as HTML."""
    parts = [f"<B>{escape_html(title)}</B>"] if title else []
    parts += [f'<FONT POINT-SIZE="{size}">{escape_html(line)}</FONT>' for line in lines]
    return "<" + "<BR/>".join(parts) + ">"


def to_dot(drawing: Drawing) -> str:
    """DOT source for graphviz: gradients flow top to bottom, root first, leaves last."""
    out = [
        "digraph vizgrad_backward {",
        '  graph [rankdir=TB, nodesep=0.3, ranksep=0.45, bgcolor="transparent"];',
        f'  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, '
        f'color="{EDGE_COLOR}"];',
        f'  edge [fontname="Helvetica", fontsize=9, color="{EDGE_COLOR}", arrowsize=0.7];',
    ]
    children: dict[str | None, list[DrawnGroup]] = {}
    for group in drawing.groups:
        children.setdefault(group.parent, []).append(group)
    boxed = {member for group in drawing.groups for member in group.members}
    for group in children.get(None, []):
        out += _cluster(group, children, drawing, depth=1)
    for node in drawing.nodes:
        if node.id not in boxed:
            out.append("  " + _dot_node(node))
    for edge in drawing.edges:
        attrs = [f"id={_quoted(edge.id)}", f"class={_quoted(' '.join(edge.classes))}"]
        if edge.color != EDGE_COLOR:
            attrs.append(f"color={_quoted(edge.color)}, fontcolor={_quoted(edge.color)}")
        if edge.width != 1.0:
            attrs.append(f"penwidth={edge.width:g}")
        if edge.dashed:
            attrs.append("style=dashed")
        if not edge.arrow:
            attrs.append("arrowhead=none")
        if edge.label:
            attrs.append(f"label={_html_label('', [edge.label])}")
        source, target = (e if e.isidentifier() else _quoted(e) for e in (edge.source, edge.target))
        out.append(f"  {source} -> {target} [{', '.join(attrs)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def _dot_node(node: DrawnNode) -> str:
    style = ', style="dashed,filled"' if node.dashed else ""
    return (f"{node.id if node.id.isidentifier() else _quoted(node.id)} [id={_quoted(node.id)}, "
            f"class={_quoted(' '.join(node.classes))}, fillcolor={_quoted(node.fill)}{style}, "
            f"label={_html_label(node.title, node.lines)}];")  # fmt: skip


def _cluster(group: DrawnGroup, children: dict, drawing: Drawing, depth: int) -> list[str]:
    """A DOT cluster per module box, nested as the modules are."""
    pad = "  " * depth
    lines = [
        f"{pad}subgraph {_quoted('cluster_' + group.id)} {{",
        f"{pad}  id={_quoted(group.id)}; class={_quoted('vg-module')}; "
        f'style="rounded,dashed"; color="#7c3aed"; fontcolor="#5b21b6"; fontname="Helvetica"; fontsize=10; '
        f"label={_html_label(group.label, [])};",
    ]
    by_id = {node.id: node for node in drawing.nodes}
    lines += [f"{pad}  {_dot_node(by_id[member])}" for member in group.members if member in by_id]
    for child in children.get(group.id, []):
        lines += _cluster(child, children, drawing, depth + 1)
    lines.append(f"{pad}}}")
    return lines


def dag_dot(state: GraphState, **options) -> str:
    """DOT source of the backward DAG in ``state`` (deterministic: golden-testable);
    ``options`` are ``graph_drawing``'s."""
    return to_dot(graph_drawing(state, **options))
