"""The exported page (``rec.to_html``), headless: self-contained, escaped, faithful to the data.

The page is parsed with the standard library's HTML parser (the way a browser
tokenises it: a script's text is data, never tags). The browser test
(``tests/browser/test_export_browser.py``) then plays it in Chromium.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

import pytest
from vizgrad.widgets import export
from vizgrad.widgets.export import LANE_ORDER, export_data, export_html, frame_steps, read_page
from vizgrad.widgets.recording import Recording, record
from vizgrad.widgets.render import dag_layout
from vizgrad.widgets.timeline import Timeline

import vizgrad as vg
from vizgrad import events

XSS = "<img src=x onerror=alert(1)>"


class Page(HTMLParser):
    """Every tag of a page with its attributes, and the text of each script element."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self._script: dict | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "script":
            self._script = attributes
            self.scripts.append((attributes, ""))

    def handle_data(self, data):
        if self._script is not None:
            attributes, text = self.scripts[-1]
            self.scripts[-1] = (attributes, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None

    def script(self, element_id: str) -> str:
        (text,) = [t for a, t in self.scripts if a.get("id") == element_id]
        return text


def running_node(svg: str) -> str | None:
    """The id of the DAG node drawn as running (graphviz writes "-" as "&#45;")."""
    match = re.search(r'<g id="([^"]+)" class="node[^"]*vg-running', html.unescape(svg))
    return match.group(1) if match else None


def running_in(data: dict, frame: dict) -> str | None:
    """The id of the node a page's frame marks as running (its overlay on the drawing)."""
    if frame["overlay"] < 0:
        return None
    marks = data["overlays"][frame["overlay"]]["nodes"]
    return next((f"n{node}" for node, classes, _ in marks if "vg-running" in classes), None)


def drawn_nodes(data: dict, frame: dict) -> set[str]:
    """The node ids a frame shows: its round's drawing less the nodes not recorded yet."""
    if frame["dag"] < 0:
        return set()
    svg = html.unescape(data["dags"][frame["dag"]])
    hidden = {f"n{node}" for node in data["overlays"][frame["overlay"]]["hide"]}
    return set(re.findall(r'<g id="(n\d+)" class="node', svg)) - hidden


def computation():
    """Forward and backward of a small graph with views, broadcasting and an in-place op."""
    x = vg.arange(6.0).view(2, 3).requires_grad_()
    w = vg.ones(3, requires_grad=True)
    y = x * w  # broadcast [2, 3] * [3]
    z = y.t().sum()
    z.backward()
    buffer = vg.zeros(4)
    buffer[1:3].add_(1)  # a view and an in-place write (a version bump)
    return x, w


@pytest.fixture(scope="module")
def recorded():
    with record() as rec:
        x, w = computation()
    return rec, x, w


@pytest.fixture(scope="module")
def page_text(recorded, tmp_path_factory):
    rec, x, w = recorded
    path = tmp_path_factory.mktemp("export") / "run.html"
    returned = export_html(rec, path, names={XSS: x, "w": w}, title=XSS)
    assert returned == path
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page(page_text):
    return Page(page_text)


# --- self-contained -------------------------------------------------------------------


def test_page_loads_nothing_from_anywhere(page):
    for tag, attributes in page.tags:
        for name in ("src", "href", "data", "srcset"):
            value = attributes.get(name) or ""
            assert not value.lower().startswith(("http:", "https:", "//")), (tag, name, value)
        if tag in ("script", "link", "iframe", "img", "object", "embed"):
            assert "src" not in attributes and "href" not in attributes, (tag, attributes)


def test_the_page_is_small_and_carries_no_plotting_library(page_text):
    assert len(page_text) < 200_000  # plotly.js alone was 4.8 MB
    assert "plotly" not in page_text.lower()


def test_the_page_is_one_document_with_the_players_selectors(page):
    classes = {c for _, a in page.tags for c in (a.get("class") or "").split()}
    for needed in ("vg-export", "vg-scrubber", "vg-play", "vg-step-back", "vg-step-forward",
                   "vg-step-description", "vg-overview", "vg-dag-canvas", "vg-trace-body"):  # fmt: skip
        assert needed in classes
    ranges = [a for t, a in page.tags if t == "input" and a.get("type") == "range"]
    assert len(ranges) == 1


# --- escaping ---------------------------------------------------------------------------


def test_user_names_never_become_markup(page_text, page):
    assert XSS not in page_text
    assert not [a for t, a in page.tags if t == "img"]
    assert not [a for _, a in page.tags if any(k.startswith("on") for k in a)]
    # The only script elements: the two data blocks and the player.
    assert len(page.scripts) == 3


def test_user_names_are_shown_as_escaped_text(page_text):
    data, _ = read_page(page_text)
    escaped = "&lt;img src=x onerror=alert(1)&gt;"
    # The stride map's names fill its slots, the DAG is SVG: the name is in them as text.
    assert any(escaped in names for names in data["stride_names"])
    assert any(escaped in svg for svg in data["dags"])
    assert not any(XSS in names for names in data["stride_names"])
    assert not any(XSS in s["html"] for s in data["stride_maps"])
    assert not any(XSS in svg for svg in data["dags"])
    # The panel's words are set as text by the player, so they carry the name as is.
    assert any(XSS in json.dumps(p) for p in data["panels"])


def test_json_in_a_script_element_cannot_close_it(tmp_path):
    rec = Recording.from_json(json.dumps({
        "schema_version": events.SCHEMA_VERSION, "dropped": 0,
        "events": [{"kind": "op_dispatched", "seq": 1, "op": "</script><script>alert(1)//",
                    "key": "CPU", "action": "call", "depth": 0, "variant": "functional",
                    "inputs": [], "note": ""}],
    }))  # fmt: skip
    text = export_html(rec, tmp_path / "op.html").read_text(encoding="utf-8")
    assert "</script><script>alert" not in text
    parsed = Page(text)
    assert len(parsed.scripts) == 3
    _, embedded = read_page(text)
    assert embedded["events"][0]["op"] == "</script><script>alert(1)//"


# --- the data round-trips -----------------------------------------------------------------


def test_embedded_frames_are_export_data(recorded, page_text):
    rec, x, w = recorded
    expected = json.loads(json.dumps(export_data(rec, names={XSS: x, "w": w})))
    assert read_page(page_text)[0] == expected


def test_embedded_recording_reads_back_as_the_same_events(recorded, page_text):
    rec, _, _ = recorded
    _, embedded = read_page(page_text)
    back = Recording.from_json(json.dumps(embedded))
    assert back.to_dicts() == rec.to_dicts()
    assert len(back) == len(rec) > 0


def test_a_frame_per_step_and_each_view_matches_the_timeline(recorded):
    rec, _, _ = recorded
    data = export_data(rec)
    assert [f["step"] for f in data["frames"]] == list(range(len(rec) + 1))
    timeline = Timeline(rec)
    for frame in data["frames"][:: max(1, len(data["frames"]) // 12)] + data["frames"][-1:]:
        timeline.step = frame["step"]
        # Same folding, same render layers: the page shows the nodes the widget shows, and
        # marks the node the widget draws as running (one round: the same ids).
        svg = html.unescape(timeline.graph_view.svg)
        assert drawn_nodes(data, frame) == set(re.findall(r'<g id="(n\d+)" class="node', svg))
        assert running_in(data, frame) == running_node(timeline.graph_view.svg)
        calls = sum(
            data["calls"][c][0].count("vg-trace-call") for c in data["traces"][frame["trace"]][1]
        )
        assert calls <= timeline.dispatch_trace.tree_html.count("vg-trace-call")
        assert f"step {frame['step']} / " in timeline.description.value
        assert frame["description"] in html.unescape(timeline.description.value)
    assert any(running_in(data, f) for f in data["frames"])  # backward frames mark a node
    timeline.close()


def test_frames_share_identical_views(recorded):
    rec, _, _ = recorded
    data = export_data(rec)
    assert len(data["dags"]) == 1  # one graph: one drawing, marked step by step
    for table in ("overlays", "stride_maps", "panels", "calls", "traces"):
        assert len(data[table]) < len(data["frames"]), table
    assert all(0 <= f["dag"] < len(data["dags"]) or f["dag"] == -1 for f in data["frames"])


def test_every_step_moves_the_scrubber_through_forward_and_backward(recorded):
    rec, _, _ = recorded
    data = export_data(rec)
    lanes = [f["lane"] for f in data["frames"]]
    assert lanes[0] == -1  # step 0: before the first event
    assert set(range(len(LANE_ORDER))) <= set(lanes)
    running = {running_in(data, f) for f in data["frames"]} - {None}
    assert len(running) > 1  # the highlighted (running) node changes as the scrubber moves


def test_a_training_loop_draws_one_graph_per_round_and_shares_its_layout():
    w = vg.ones(3, requires_grad=True)
    x = vg.arange(6.0).view(2, 3)
    with record() as rec:
        for _ in range(4):
            loss = (x * w).sum() * (w * w).sum()  # .grad differs every round
            loss.backward()
            with vg.no_grad():
                w -= 0.1 * w.grad
                w.grad.zero_()
    data = export_data(rec, names={"w": w})
    assert len(data["dags"]) == 1  # four rounds of the same graph: one layout
    assert any("4 backward graphs" in notice for notice in data["notices"])
    rounds = [f for f in data["frames"] if f["dag"] == 0]
    sizes = {len(drawn_nodes(data, f)) for f in rounds}
    assert 6 in sizes and max(sizes) == 6  # Mul, Sum, Mul, Sum, Mul, w's AccumulateGrad: never 24


# --- long recordings, other inputs, no graphviz ----------------------------------------


@pytest.mark.parametrize(
    ("n_steps", "max_frames"), [(0, 10), (5, 10), (9, 10), (10, 10), (999, 10), (12345, 100)]
)
def test_frame_steps_keep_both_ends_and_at_most_max_frames(n_steps, max_frames):
    steps = frame_steps(n_steps, max_frames)
    assert steps[0] == 0 and steps[-1] == n_steps
    assert len(steps) == min(n_steps + 1, max_frames)
    assert steps == sorted(set(steps))


def test_frame_steps_needs_two_frames():
    with pytest.raises(ValueError, match="max_frames must be at least 2"):
        frame_steps(10, 1)


def test_a_long_recording_is_sampled_with_a_notice(recorded, tmp_path):
    rec, _, _ = recorded
    data = export_data(rec, max_frames=7)
    assert len(data["frames"]) == 7
    assert data["frames"][-1]["step"] == len(rec)
    assert any("7 of the recording's" in n for n in data["notices"])


def test_dropped_events_are_announced(tmp_path):
    with pytest.warns(UserWarning, match="dropped"), record(max_events=20) as rec:
        computation()
    data = export_data(rec)
    assert rec.notice in data["notices"]


def test_events_beyond_the_embedding_limit_are_not_embedded(recorded, tmp_path, monkeypatch):
    rec, _, _ = recorded
    monkeypatch.setattr(export, "MAX_EMBEDDED_EVENTS", 3)
    data, embedded = read_page(export_html(rec, tmp_path / "big.html").read_text())
    assert embedded is None and data["frames"]
    assert any("not the events themselves" in notice for notice in data["notices"])


def test_a_plain_recorder_and_an_event_list_export_the_same(recorded):
    rec, _, _ = recorded
    plain = events.Recorder()
    plain._events.extend(rec.events)
    from_recording = export_data(rec)
    assert export_data(plain) == from_recording
    assert export_data(rec.to_dicts()) == from_recording


def test_without_graphviz_the_page_uses_the_builtin_layout(recorded, monkeypatch):
    rec, _, _ = recorded
    monkeypatch.setattr(dag_layout.shutil, "which", lambda name: None)
    data = export_data(rec)
    assert dag_layout.DOT_MISSING_NOTICE in data["notices"]
    assert all("vg-builtin-layout" in svg for svg in data["dags"])
    assert any('class="node' in svg for svg in data["dags"])


def test_recording_to_html_writes_the_page(recorded, tmp_path):
    rec, _, _ = recorded
    path = tmp_path / "via_method.html"
    rec.to_html(path)
    assert read_page(path.read_text(encoding="utf-8"))[0]["frames"]


def test_recording_to_html_forwards_names_title_and_max_frames(recorded, tmp_path):
    rec, x, w = recorded
    path = rec.to_html(tmp_path / "named.html", names={"weights": w}, title="my <run>",
                       max_frames=3)  # fmt: skip
    assert path == tmp_path / "named.html"
    text = path.read_text(encoding="utf-8")
    data, _ = read_page(text)
    assert data == json.loads(json.dumps(export_data(rec, names={"weights": w}, max_frames=3)))
    assert len(data["frames"]) == 3
    # Every frame: the calls of forward and of backward's MulBackward0 read x or w.
    both = {"weights": w, "inputs": x}
    shown, _ = read_page(rec.to_html(tmp_path / "both.html", names=both).read_text())
    assert any("weights" in names or "inputs" in names for names in shown["stride_names"])
    assert any("weights" in svg for svg in data["dags"])
    assert "<title>my &lt;run&gt;</title>" in text
    # Without names, the same tensor is a number.
    plain, _ = read_page(rec.to_html(tmp_path / "plain.html").read_text())
    assert not any("weights" in names for names in plain["stride_names"])


def test_read_page_refuses_a_page_that_is_not_an_export():
    with pytest.raises(ValueError, match="not an exported vizgrad page"):
        read_page("<html><body>hello</body></html>")
