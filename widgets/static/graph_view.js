// GraphView's front end (widgets/graph_view.py). dag.js comes before this file.
function toggle(cls, label, model, name) {
  const box = vgEl("label", cls);
  const input = vgEl("input");
  input.type = "checkbox";
  input.checked = model.get(name);
  input.addEventListener("change", () => { model.set(name, input.checked); model.save_changes(); });
  model.on("change:" + name, () => { input.checked = model.get(name); });
  box.append(input, document.createTextNode(" " + label));
  return box;
}
function render({ model, el: root }) {
  root.classList.add("vg-dag");
  const controls = vgEl("div", "vg-dag-controls");
  const modules = toggle("vg-dag-modules", "modules", model, "group_modules");
  controls.append(toggle("vg-dag-saved", "saved tensors", model, "show_saved"),
                  toggle("vg-dag-values", "values", model, "show_values"), modules);
  const showModules = () => { modules.style.display = model.get("has_modules") ? "" : "none"; };
  model.on("change:has_modules", showModules);
  showModules();
  const steps = vgEl("div", "vg-dag-steps");
  const prev = vgEl("button", "vg-dag-prev", "◀");
  const play = vgEl("button", "vg-dag-play", "▶ play");
  const next = vgEl("button", "vg-dag-next", "▶");
  const slider = vgEl("input");
  slider.type = "range";
  slider.min = 0;
  const label = vgEl("span", "vg-dag-step-label");
  steps.append(prev, play, next, slider, label);
  controls.append(steps);
  const notice = vgEl("div", "vg-dag-notice");
  const body = vgEl("div", "vg-dag-body");
  const canvas = vgEl("div", "vg-dag-canvas");
  const panel = vgEl("div", "vg-dag-panel");
  body.append(canvas, panel);
  root.append(controls, vgErrorBox(model), notice, body);

  const setFrame = (k) => {
    const n = model.get("n_frames");
    if (n === 0) return;
    model.set("frame", Math.max(0, Math.min(n - 1, k)));
    model.save_changes();
  };
  prev.addEventListener("click", () => setFrame(model.get("frame") - 1));
  next.addEventListener("click", () => setFrame(model.get("frame") + 1));
  slider.addEventListener("input", () => setFrame(Number(slider.value)));
  let timer = null;
  play.addEventListener("click", () => {
    if (timer) { clearInterval(timer); timer = null; play.textContent = "▶ play"; return; }
    if (model.get("frame") >= model.get("n_frames") - 1) setFrame(0);
    play.textContent = "❚❚ pause";
    timer = setInterval(() => {
      if (model.get("frame") >= model.get("n_frames") - 1) { play.click(); return; }
      setFrame(model.get("frame") + 1);
    }, 700);
  });

  const drawSteps = () => {
    const n = model.get("n_frames");
    steps.style.display = n > 0 ? "" : "none";
    slider.max = Math.max(0, n - 1);
    slider.value = model.get("frame");
    label.textContent = n > 0 ? `backward step ${model.get("frame") + 1} / ${n}` : "";
  };
  const drawPanel = () => vgDrawPanel(panel, model.get("panel"));
  // A module's box collapses into one node when clicked; the node opens it again.
  // Ids are "m-" + the module's qualified name (see render/dag_dot.py).
  canvas.addEventListener("click", (event) => {
    const group = event.target.closest("g.vg-module, g.vg-module-collapsed");
    if (!group || !group.id.startsWith("m-")) return;
    const name = group.id.slice(2);
    const now = model.get("collapsed").filter((n) => n !== name);
    if (group.classList.contains("vg-module")) now.push(name);
    model.set("collapsed", now);
    model.save_changes();
  });
  const draw = () => {
    canvas.innerHTML = model.get("svg");  // SVG from graphviz or vizgrad: labels escaped
    notice.textContent = model.get("notice");
    notice.style.display = model.get("notice") ? "" : "none";
    drawSteps();
    drawPanel();
  };
  // A redraw sends several traits at once (svg, notice, panel, frame...): the page
  // redraws at most once per animation frame, however many changes arrive.
  const pending = new Set();
  const later = (what) => () => {
    if (pending.size === 0) {
      requestAnimationFrame(() => {
        const jobs = pending.has(draw) ? [draw] : [...pending];  // draw does them all
        pending.clear();
        for (const job of jobs) job();
      });
    }
    pending.add(what);
  };
  model.on("change:svg", later(draw));
  model.on("change:notice", later(draw));
  model.on("change:panel", later(drawPanel));
  model.on("change:frame", later(drawSteps));
  model.on("change:n_frames", later(drawSteps));
  draw();
  return () => { if (timer) clearInterval(timer); };
}
export default { render };
