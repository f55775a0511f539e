"""Laying out the backward DAG: graphviz's ``dot`` when it is installed, our own otherwise.

``render_svg(drawing)`` returns a ``Layout``: the SVG text, which engine drew it, and a
notice for the reader when it was not graphviz. Without the ``dot`` program (or when
it fails) the DAG is still drawn, by a small layered layout in the spirit of the
Sugiyama method graphviz itself uses:

1. **Layers by longest path**: a node sits one layer below the lowest node pointing
   at it, so every edge points down (the root on top, the leaves at the bottom).
2. **Order within layers by barycenter**: sweeping down and up a few times, each node
   moves to the mean position of its neighbours in the layer it is tied to, which
   untangles most crossings.
3. **Coordinates**: layers are packed left to right and centred.

Both engines give the same SVG structure the widget and the browser tests select:
``<g id="n3" class="node vg-node …">`` per node, ``<g id="e_n3_0" class="edge vg-edge …">``
per edge. The built-in layout draws from the ``Drawing`` that the DOT was made from
(so it needs no DOT parser); the text it writes is HTML-escaped.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from .dag_dot import Drawing, to_dot
from .escape import escape_html

__all__ = ["Layout", "render_svg", "builtin_svg", "DOT_MISSING_NOTICE"]

DOT_MISSING_NOTICE = (
    "graphviz 'dot' not found: using vizgrad's built-in layout; install graphviz for the full "
    "drawing"
)
DOT_TIMEOUT_SECONDS = 20
# dot's crossing minimisation works on one "virtual node" per layer an edge crosses; a
# graph with many long edges (a loop reusing one weight: every step points at the same
# leaf) makes tens of thousands of them and takes minutes. Beyond this budget of nodes
# plus virtual nodes, the built-in layout draws it (measured: 4760 took dot ~4 s).
DOT_BUDGET = 3000
_CACHE_SIZE = 64
_cache: dict[str, Layout] = {}  # DOT source -> layout: scrubbing back and forth is free


@dataclass(frozen=True)
class Layout:
    svg: str
    engine: str  # "dot" or "builtin"
    notice: str = ""


def render_svg(drawing: Drawing) -> Layout:
    """SVG for ``drawing``: graphviz when found, else the built-in layout with a notice."""
    dot_source = to_dot(drawing)
    dot_program = shutil.which("dot")
    if dot_program is None:
        return Layout(builtin_svg(drawing), "builtin", DOT_MISSING_NOTICE)
    work = dot_work(drawing)
    if work > DOT_BUDGET:
        notice = (f"a large graph ({len(drawing.nodes)} nodes, {work} layout cells with its "
                  "long edges): drawn with vizgrad's built-in layout, graphviz would take too long")  # fmt: skip
        return Layout(builtin_svg(drawing), "builtin", notice)
    cached = _cache.get(dot_source)
    if cached is not None:
        return cached
    try:
        done = subprocess.run([dot_program, "-Tsvg"], input=dot_source.encode("utf-8"),
                              capture_output=True, timeout=DOT_TIMEOUT_SECONDS, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        return Layout(builtin_svg(drawing), "builtin", _failed_notice(str(error)))
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return Layout(
            builtin_svg(drawing), "builtin", _failed_notice(message[-1] if message else "")
        )
    layout = Layout(_strip_prolog(done.stdout.decode("utf-8", "replace")), "dot")
    if len(_cache) >= _CACHE_SIZE:
        _cache.pop(next(iter(_cache)))  # the oldest entry
    _cache[dot_source] = layout
    return layout


def dot_work(drawing: Drawing) -> int:
    """Nodes plus the virtual nodes dot would add for edges that skip layers."""
    ids = [node.id for node in drawing.nodes]
    known = set(ids)
    links = [(e.source, e.target) for e in drawing.edges if e.source in known and e.target in known]
    layer = longest_path_layers(ids, links)
    return len(ids) + sum(max(0, layer[t] - layer[s] - 1) for s, t in links)


def _failed_notice(reason: str) -> str:
    return f"graphviz 'dot' failed ({reason}): using vizgrad's built-in layout"


def _strip_prolog(svg: str) -> str:
    """Drop the XML declaration and DOCTYPE so the SVG can sit inside an HTML page."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


# --- the built-in layered layout ------------------------------------------------------

CHAR_WIDTH = 6.6  # px per character at the 11 px font (a generous average)
LINE_HEIGHT = 14
PADDING = 8
NODE_GAP = 24
LAYER_GAP = 56
SWEEPS = 4


def _node_size(node) -> tuple[float, float]:
    longest = max([len(node.title) * 1.1] + [len(line) * 0.9 for line in node.lines])
    return longest * CHAR_WIDTH + 2 * PADDING, (1 + len(node.lines)) * LINE_HEIGHT + PADDING


def longest_path_layers(ids: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Layer of each node: 0 for nodes nothing points at, else 1 + the deepest parent.

    Kahn's topological order; a node left over by a cycle (never made by autograd)
    goes one layer below the deepest placed node instead of looping forever.
    """
    children: dict[str, list[str]] = {i: [] for i in ids}
    indegree = dict.fromkeys(ids, 0)
    for source, target in edges:
        children[source].append(target)
        indegree[target] += 1
    layer = dict.fromkeys(ids, 0)
    ready = [i for i in ids if indegree[i] == 0]
    placed = 0
    while ready:
        node = ready.pop()
        placed += 1
        for child in children[node]:
            layer[child] = max(layer[child], layer[node] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    if placed < len(ids):
        deepest = max(layer.values(), default=0) + 1
        for i in ids:
            if indegree[i] > 0:
                layer[i] = deepest
    return layer


def barycenter_order(layers: list[list[str]], edges: list[tuple[str, str]]) -> list[list[str]]:
    """Reorder each layer by the mean position of its neighbours (down, then up sweeps)."""
    parents: dict[str, list[str]] = {}
    children: dict[str, list[str]] = {}
    for source, target in edges:
        children.setdefault(source, []).append(target)
        parents.setdefault(target, []).append(source)
    position: dict[str, float] = {}
    for row in layers:
        for i, node in enumerate(row):
            position[node] = (i + 0.5) / len(row)  # 0..1 across the layer, centred

    def reorder(row: list[str], neighbours: dict[str, list[str]]) -> list[str]:
        def key(item):
            index, node = item
            near = neighbours.get(node)
            mean = sum(position[n] for n in near) / len(near) if near else position[node]
            return (mean, index)  # ties keep the current order: deterministic

        ordered = [node for _, node in sorted(enumerate(row), key=key)]
        for i, node in enumerate(ordered):
            position[node] = (i + 0.5) / len(ordered)
        return ordered

    layers = [list(row) for row in layers]
    for _ in range(SWEEPS):
        for k in range(1, len(layers)):
            layers[k] = reorder(layers[k], parents)
        for k in range(len(layers) - 2, -1, -1):
            layers[k] = reorder(layers[k], children)
    return layers


def _arrowhead(x0, y0, x1, y1, size: float = 7.0) -> str:
    """Points of a triangle at (x1, y1) pointing away from (x0, y0)."""
    dx, dy = x1 - x0, y1 - y0
    length = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    ux, uy = dx / length, dy / length
    bx, by = x1 - ux * size, y1 - uy * size
    return (f"{x1:.1f},{y1:.1f} {bx - uy * size / 2:.1f},{by + ux * size / 2:.1f} "
            f"{bx + uy * size / 2:.1f},{by - ux * size / 2:.1f}")  # fmt: skip


def builtin_svg(drawing: Drawing) -> str:
    """The built-in layered layout of ``drawing`` as SVG (deterministic)."""
    ids = [node.id for node in drawing.nodes]
    known = set(ids)
    edges = [e for e in drawing.edges if e.source in known and e.target in known]
    layer_of = longest_path_layers(ids, [(e.source, e.target) for e in edges])
    layers: list[list[str]] = [[] for _ in range(max(layer_of.values(), default=-1) + 1)]
    for node_id in ids:  # drawing order (by id) is the starting order
        layers[layer_of[node_id]].append(node_id)
    routes, links = _route_long_edges(edges, layer_of, layers)
    layers = barycenter_order(layers, links) if layers else layers

    size = {node.id: _node_size(node) for node in drawing.nodes}
    centre = _coordinates(layers, size)
    width = max((x + size.get(n, (DUMMY_WIDTH, 0))[0] / 2 for n, (x, _) in centre.items()),
                default=0) + NODE_GAP  # fmt: skip
    height = max((y + size.get(n, (0, 0))[1] / 2 for n, (_, y) in centre.items()), default=0)
    height += NODE_GAP

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="vg-builtin-layout" '
           f'width="{width:.0f}pt" height="{height:.0f}pt" viewBox="0 0 {width:.1f} {height:.1f}">',
           '<g id="graph0" class="graph" font-family="Helvetica,Arial,sans-serif">']  # fmt: skip
    out += _group_boxes(drawing, centre, size)
    ports = _ports(edges, routes, centre, size)
    for edge in edges:
        waypoints = [centre[d] for d in routes.get(edge.id, ())]
        out.append(_edge_svg(edge, [ports[edge.id][0], *waypoints, ports[edge.id][1]]))
    for node in drawing.nodes:
        out.append(_node_svg(node, centre[node.id], size[node.id]))
    out.append("</g></svg>")
    return "\n".join(out)


GROUP_PADDING = 6


def _group_boxes(drawing: Drawing, centre, size) -> list[str]:
    """A dashed box per module group, around all the nodes inside it (nested groups
    included). The layered layout does not pull a module's nodes together as graphviz's
    clusters do, so a box may also cover a node of another module it sits between."""
    nested: dict[str | None, list] = {}
    for group in drawing.groups:
        nested.setdefault(group.parent, []).append(group)

    def inside(group) -> list[str]:
        found = [m for m in group.members if m in centre]
        for child in nested.get(group.id, []):
            found += inside(child)
        return found

    out = []
    for group in drawing.groups:
        members = inside(group)
        if not members:
            continue
        left = min(centre[m][0] - size[m][0] / 2 for m in members) - GROUP_PADDING
        right = max(centre[m][0] + size[m][0] / 2 for m in members) + GROUP_PADDING
        top = min(centre[m][1] - size[m][1] / 2 for m in members) - GROUP_PADDING - LINE_HEIGHT
        bottom = max(centre[m][1] + size[m][1] / 2 for m in members) + GROUP_PADDING
        out.append(
            f'<g id="{escape_html(group.id)}" class="cluster vg-module">'
            f'<rect x="{left:.1f}" y="{top:.1f}" width="{right - left:.1f}" '
            f'height="{bottom - top:.1f}" rx="6" fill="none" stroke="#7c3aed" '
            f'stroke-dasharray="4,3"/>'
            f'<text x="{left + 4:.1f}" y="{top + LINE_HEIGHT - 3:.1f}" font-size="10" '
            f'fill="#5b21b6">{escape_html(group.label)}</text></g>'
        )
    return out


DUMMY_WIDTH = 8
MAX_DUMMIES = 5000  # beyond this, long edges are drawn straight (the layout stays fast)


def _route_long_edges(edges, layer_of, layers):
    """Give an edge that skips layers one invisible point per layer it crosses.

    The points take part in the ordering like nodes, so a long edge is routed around
    the nodes between its ends instead of through them (Sugiyama's "dummy vertices").
    Returns the points of each edge and the links the ordering sees.
    """
    spans = sum(max(0, layer_of[e.target] - layer_of[e.source] - 1) for e in edges)
    routes: dict[str, list[str]] = {}
    links: list[tuple[str, str]] = []
    for edge in edges:
        first, last = layer_of[edge.source], layer_of[edge.target]
        if spans > MAX_DUMMIES or last - first <= 1:
            links.append((edge.source, edge.target))
            continue
        chain = [f"{edge.id}~{k}" for k in range(first + 1, last)]
        for k, dummy in zip(range(first + 1, last), chain, strict=True):
            layers[k].append(dummy)
        routes[edge.id] = chain
        path = [edge.source, *chain, edge.target]
        links += list(zip(path, path[1:], strict=False))
    return routes, links


def _coordinates(layers, size) -> dict[str, tuple[float, float]]:
    """Centres: each layer packed left to right and centred on the widest layer."""

    def width_of(n):
        return size[n][0] if n in size else DUMMY_WIDTH

    row_widths = [sum(width_of(n) for n in row) + NODE_GAP * (len(row) - 1) for row in layers]
    width = max(row_widths, default=0) + 2 * NODE_GAP
    centre: dict[str, tuple[float, float]] = {}
    y = NODE_GAP
    for row, row_width in zip(layers, row_widths, strict=True):
        row_height = max([size[n][1] for n in row if n in size] + [LINE_HEIGHT])
        x = (width - row_width) / 2
        for node_id in row:
            w = width_of(node_id)
            centre[node_id] = (x + w / 2, y + row_height / 2)
            x += w + NODE_GAP
        y += row_height + LAYER_GAP
    return centre


def _ports(edges, routes, centre, size) -> dict[str, tuple]:
    """Where each edge leaves its source and enters its target, as two points.

    A node's edges are spread along its bottom (outgoing) and top (incoming) side, in
    the left-to-right order of where they go, so edges fan out instead of overlapping.
    """
    outgoing: dict[str, list] = {}
    incoming: dict[str, list] = {}
    for edge in edges:
        outgoing.setdefault(edge.source, []).append(edge)
        incoming.setdefault(edge.target, []).append(edge)

    def toward(edge, from_source: bool) -> float:
        chain = routes.get(edge.id)
        if chain:
            return centre[chain[0] if from_source else chain[-1]][0]
        return centre[edge.target if from_source else edge.source][0]

    def spread(node_id, group, from_source: bool) -> dict[str, float]:
        group = sorted(group, key=lambda e: toward(e, from_source))
        step = min(16.0, size[node_id][0] / (len(group) + 1))
        middle = (len(group) - 1) / 2
        return {e.id: centre[node_id][0] + (i - middle) * step for i, e in enumerate(group)}

    start_x: dict[str, float] = {}
    end_x: dict[str, float] = {}
    for node_id, group in outgoing.items():
        start_x.update(spread(node_id, group, True))
    for node_id, group in incoming.items():
        end_x.update(spread(node_id, group, False))
    ports = {}
    for edge in edges:
        y0 = centre[edge.source][1] + size[edge.source][1] / 2
        y1 = centre[edge.target][1] - size[edge.target][1] / 2
        ports[edge.id] = ((start_x[edge.id], y0), (end_x[edge.id], y1))
    return ports


def _classes(base: str, classes) -> str:
    return escape_html(" ".join((base, *classes)))


def _node_svg(node, centre, box) -> str:
    (cx, cy), (w, h) = centre, box
    dash = ' stroke-dasharray="4,3"' if node.dashed else ""
    parts = [f'<g id="{escape_html(node.id)}" class="{_classes("node", node.classes)}">',
             f"<title>{escape_html(node.id)}</title>",
             f'<rect x="{cx - w / 2:.1f}" y="{cy - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" '
             f'rx="4" fill="{escape_html(node.fill)}" stroke="#6b7280"{dash}/>']  # fmt: skip
    top = cy - h / 2 + PADDING / 2 + LINE_HEIGHT - 3
    parts.append(f'<text text-anchor="middle" x="{cx:.1f}" y="{top:.1f}" font-size="11" '
                 f'font-weight="bold">{escape_html(node.title)}</text>')  # fmt: skip
    for i, line in enumerate(node.lines, start=1):
        parts.append(f'<text text-anchor="middle" x="{cx:.1f}" y="{top + i * LINE_HEIGHT:.1f}" '
                     f'font-size="9">{escape_html(line)}</text>')  # fmt: skip
    parts.append("</g>")
    return "".join(parts)


def _edge_svg(edge, points) -> str:
    """A smooth path through ``points`` (vertical tangents), an arrowhead, a label."""
    dash = ' stroke-dasharray="4,3"' if edge.dashed else ""
    color = escape_html(edge.color)
    (x0, y0) = points[0]
    d = [f"M{x0:.1f},{y0:.1f}"]
    for (xa, ya), (xb, yb) in zip(points, points[1:], strict=False):
        bend = max((yb - ya) / 2, LAYER_GAP / 4)  # a cycle's leftover may point up: still curve
        d.append(f"C{xa:.1f},{ya + bend:.1f} {xb:.1f},{yb - bend:.1f} {xb:.1f},{yb:.1f}")
    parts = [f'<g id="{escape_html(edge.id)}" class="{_classes("edge", edge.classes)}">',
             f"<title>{escape_html(edge.source)}-&gt;{escape_html(edge.target)}</title>",
             f'<path fill="none" stroke="{color}" stroke-width="{edge.width:g}"{dash} '
             f'd="{" ".join(d)}"/>']  # fmt: skip
    (xa, ya), (xb, yb) = points[-2], points[-1]
    if edge.arrow:
        bend = max((yb - ya) / 2, LAYER_GAP / 4)
        parts.append(f'<polygon fill="{color}" stroke="{color}" '
                     f'points="{_arrowhead(xb, yb - bend, xb, yb)}"/>')  # fmt: skip
    if edge.label:
        parts.append(f'<text text-anchor="start" x="{(xa + xb) / 2 + 4:.1f}" '
                     f'y="{(ya + yb) / 2:.1f}" font-size="9" fill="{color}">'
                     f"{escape_html(edge.label)}</text>")  # fmt: skip
    parts.append("</g>")
    return "".join(parts)
