// The backward graph's front end, shared by GraphView (widgets/graph_view.py puts this
// file before its module) and the exported page (export.py puts it before export.js).
// Plain function declarations: the including file is a module or a classic script.

function vgEl(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;  // text only: names never become markup
  return e;
}

// The engine panel beside the drawing: phase, running node, ready queue, dependencies.
function vgDrawPanel(panel, p) {
  p = p || {};
  panel.replaceChildren(vgEl("div", "vg-dag-phase", p.phase || ""));
  if (p.phase && !p.phase.startsWith("forward")) {
    panel.append(vgEl("div", "vg-dag-running", "running: " + (p.running || "—")));
    panel.append(vgEl("div", "vg-dag-heading", "ready queue (next first)"));
    const queue = vgEl("ol", "vg-dag-queue");
    for (const q of p.queue || []) queue.append(vgEl("li", "", q));
    panel.append(queue);
    panel.append(vgEl("div", "vg-dag-heading", "dependencies"));
    const deps = vgEl("ul", "vg-dag-deps");
    for (const [name, count] of p.dependencies || []) deps.append(vgEl("li", "", `${name}: ${count}`));
    panel.append(deps);
  }
  panel.append(vgEl("div", "vg-dag-last", p.last_step || ""));
}

const VG_SVG = "http://www.w3.org/2000/svg";

// Widen a drawing's viewBox (and its size with it) to take in labels added past its edges.
function vgFit(svg) {
  const view = svg.viewBox.baseVal;
  if (!view || !view.width || !view.height) return;
  const box = svg.getBBox();
  const x0 = Math.min(view.x, box.x), y0 = Math.min(view.y, box.y);
  const x1 = Math.max(view.x + view.width, box.x + box.width + 2);
  const y1 = Math.max(view.y + view.height, box.y + box.height + 2);
  if (x1 - x0 === view.width && y1 - y0 === view.height) return;
  for (const [attribute, ratio] of [["width", (x1 - x0) / view.width], ["height", (y1 - y0) / view.height]]) {
    const value = svg.getAttribute(attribute);
    const number = parseFloat(value);
    if (!Number.isNaN(number)) svg.setAttribute(attribute, number * ratio + value.replace(/^[\d.]+/, ""));
  }
  svg.setAttribute("viewBox", `${x0} ${y0} ${x1 - x0} ${y1 - y0}`);
}

// The backward pass marked on a drawing made without it (dag_dot.backward_overlay):
// nodes not recorded yet are removed; nodes get their state's classes, and their words
// go in the two blank lines the drawing keeps under each label (export.STATUS_SLOT);
// edges that carried a gradient are marked, its summary in the edge's blank label.
function vgApplyOverlay(canvas, overlay) {
  const svg = canvas.querySelector("svg");
  if (!svg || !overlay) return;
  for (const node of overlay.hide) {
    const g = svg.getElementById("n" + node);
    if (g) g.remove();
    for (const edge of svg.querySelectorAll(`g.edge[id^="e_n${node}_"]`)) edge.remove();
  }
  for (const [node, classes, lines] of overlay.nodes) {
    const g = svg.getElementById("n" + node);
    if (!g) continue;
    for (const cls of classes.split(" ")) if (cls) g.classList.add(cls);
    const slots = [...g.querySelectorAll("text")].slice(-2);
    if (slots.length === 2 && lines.length) {
      slots[0].textContent = lines.length > 1 ? lines.slice(0, -1).join(" · ") : lines[0];
      slots[1].textContent = lines.length > 1 ? lines[lines.length - 1] : "";
      for (const slot of slots) slot.classList.add("vg-dag-status");
    }
  }
  for (const [node, position, summary] of overlay.edges) {
    const g = svg.getElementById(`e_n${node}_${position}`);
    if (!g) continue;
    g.classList.add("vg-carried");
    let text = g.querySelector("text");
    const path = g.querySelector("path");
    if (!text && path) {  // graphviz writes no text for a blank label: place one midway
      const middle = path.getPointAtLength(path.getTotalLength() / 2);
      text = document.createElementNS("http://www.w3.org/2000/svg", "text");
      text.setAttribute("x", String(middle.x + 4));
      text.setAttribute("y", String(middle.y + 3));
      text.setAttribute("font-size", "9");
      g.append(text);
    }
    if (text) text.textContent = (text.textContent.replace(/\u2003/g, "").trim() + "  " + summary).trim();
  }
  vgFit(svg);
}
