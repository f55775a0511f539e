"""``vizgrad export LESSON OUT.html``: a lesson, run, with its views and recordings, as one page.

For a course site, slides, or a class without a Jupyter server. The lesson runs in a
fresh kernel with its reference answers filled in (so every exercise shows its
"correct" box and every view has something to draw). Then:

* text, code and ordinary outputs become HTML through nbconvert (JupyterLab's look);
* every **view** (StrideMap, DispatchTrace, GraphView, ipywidgets' boxes, plotly's
  FigureWidget) is drawn in the page by its own front end: the page carries each
  widget's saved state (nbclient keeps it, as JupyterLab's "save widget state" does)
  and a small stand-in for the kernel's side (``static/lesson_page.js``) that hands
  each front end its state. Controls that would ask the kernel do nothing;
* every **recording** shown with ``rec.show()`` becomes the replay player of
  ``rec.to_html()`` (its own scrubber, no kernel needed), framed where the Timeline
  was;
* plotly figures are drawn by plotly.js, embedded once: the static ones from their
  output, a FigureWidget (a live chart) from its figure as the lesson left it
  (``offline_views``: its saved state holds only its first traces).

The page needs no network and no server.
"""

from __future__ import annotations

import html
import json
import tempfile
from pathlib import Path

import nbformat
import plotly.io
import plotly.offline
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from vizgrad.lessons import EXERCISES
from vizgrad.lessons.exercise import _load_lessons

from .catalogue import find_lesson, notebooks_dir
from .cells import exercise_key

__all__ = ["export_lesson"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
PLOTLY = "application/vnd.plotly.v1+json"
_HARNESS = Path(__file__).with_name("static") / "lesson_page.js"
_COLLECT = ("from vizgrad.classroom.offline_views import write_offline_views\n"
            "write_offline_views({directory!r})")  # fmt: skip
# How the page's harness (static/lesson_page.js) knows a FigureWidget: drawn with plotly.js.
PLOTLY_FIGURE = "PlotlyFigure"


def _answered(nb) -> None:
    """Fill every exercise cell with its reference answer."""
    _load_lessons()
    for cell in nb.cells:
        key = exercise_key(cell)
        if key:
            cell.source = EXERCISES[key].solution


def _plotly_html(figure: dict, first: bool) -> str:
    """A figure as plotly.js HTML; plotly.js itself is embedded with the first one."""
    return plotly.io.to_html(figure, full_html=False, include_plotlyjs=first,
                             config={"responsive": True})  # fmt: skip


def _offline_outputs(nb, recordings: dict) -> tuple[set, bool]:
    """Rewrite outputs a static page cannot show as they are: widget views become a
    placeholder the page's harness draws into (or the recording's replay page), plotly
    figures plotly.js HTML. Returns the widget ids the page must carry, and whether
    plotly.js is embedded with a figure."""
    wanted, first_plot = set(), True
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                model_id = data[WIDGET_VIEW]["model_id"]
                if model_id in recordings:
                    page = Path(recordings[model_id]).read_text(encoding="utf-8")
                    markup = (f'<iframe class="vg-lesson-recording" title="recording" '
                              f'style="width:100%;height:900px;border:1px solid #ddd" '
                              f'srcdoc="{html.escape(page, quote=True)}"></iframe>')  # fmt: skip
                else:
                    wanted.add(model_id)
                    markup = f'<div class="vg-offline-widget" data-model-id="{model_id}"></div>'
                output["data"] = {"text/html": markup}
            elif PLOTLY in data:
                output["data"] = {"text/html": _plotly_html(data[PLOTLY], first_plot)}
                first_plot = False
    return wanted, not first_plot


def _with_children(state: dict, wanted: set, figures: dict) -> dict:
    """The saved states of ``wanted`` widgets and of every widget they contain; a
    FigureWidget's is its figure as the lesson left it."""
    kept, todo = {}, list(wanted)
    while todo:
        model_id = todo.pop()
        if model_id in kept or model_id not in state:
            continue
        if model_id in figures:
            kept[model_id] = {"model_name": PLOTLY_FIGURE, "state": {"figure": figures[model_id]}}
            continue
        kept[model_id] = state[model_id]
        text = json.dumps(state[model_id]["state"])
        todo += [part.split('"')[0] for part in text.split("IPY_MODEL_")[1:]]
    return kept


def export_lesson(lesson, out_path, *, timeout: int = 600) -> Path:
    """Run ``lesson`` (a number, a notebook name, or a ``Lesson``) with its reference
    answers and write it, views and recordings included, as one HTML page."""
    if not hasattr(lesson, "notebook"):
        lesson = find_lesson(lesson)
    source = notebooks_dir() / lesson.notebook
    nb = nbformat.read(source, as_version=4)
    _answered(nb)
    with tempfile.TemporaryDirectory(prefix="vizgrad-export-") as scratch:
        nb.cells.append(nbformat.v4.new_code_cell(_COLLECT.format(directory=scratch)))
        NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                       resources={"metadata": {"path": str(source.parent)}}).execute()  # fmt: skip
        nb.cells.pop()
        views = json.loads((Path(scratch) / "views.json").read_text(encoding="utf-8"))
        wanted, plotly_embedded = _offline_outputs(nb, views["recordings"])
    saved = nb.metadata.pop("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    carried = _with_children(saved, wanted, views["figures"])
    exporter = HTMLExporter(template_name="lab", mathjax_url="", require_js_url="")
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": lesson.notebook}})
    state_json = json.dumps(carried).replace("</", "<\\/")
    harness = _HARNESS.read_text(encoding="utf-8").replace("</script", "<\\/script")
    tail = f'<script type="application/json" id="vg-widget-state">{state_json}</script>\n'
    if not plotly_embedded and any(v["model_name"] == PLOTLY_FIGURE for v in carried.values()):
        tail += f"<script>{plotly.offline.get_plotlyjs()}</script>\n"
    tail += f'<script type="module">\n{harness}\n</script>\n</body>'
    out_path = Path(out_path)
    out_path.write_text(body.replace("</body>", tail, 1), encoding="utf-8")
    return out_path
