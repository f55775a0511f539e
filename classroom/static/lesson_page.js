// The kernel's side of the widgets, for an exported lesson page (classroom/export.py).
//
// Each view's front end (an anywidget ES module, or one of ipywidgets' boxes and
// displays) is handed a model that answers from the widget's saved state. Nothing is
// sent anywhere: a control that would ask the kernel simply does nothing.
const saved = JSON.parse(document.getElementById("vg-widget-state").textContent);

class SavedModel {
  constructor(id) {
    this.id = id;
    this.state = { ...saved[id].state };
    this.listeners = {};
  }
  get(name) { return this.state[name]; }
  set(name, value) {
    this.state[name] = value;
    for (const callback of this.listeners[`change:${name}`] || []) callback();
  }
  on(event, callback) { (this.listeners[event] ||= []).push(callback); }
  off(event, callback) {
    if (!event) { this.listeners = {}; return; }
    this.listeners[event] = (this.listeners[event] || []).filter((c) => c !== callback && callback);
  }
  save_changes() {}
  send() {}
}

const childId = (reference) => String(reference).replace(/^IPY_MODEL_/, "");

async function drawAnyWidget(model, el) {
  if (model.get("_css")) {
    const style = document.createElement("style");
    style.textContent = model.get("_css");
    document.head.append(style);
  }
  const url = URL.createObjectURL(new Blob([model.get("_esm")], { type: "text/javascript" }));
  const module = await import(url);
  let widget = module.default ?? module;
  if (typeof widget === "function") widget = await widget();
  if (widget.initialize) await widget.initialize({ model });
  const render = widget.render ?? module.render;
  if (render) await render({ model, el });
}

function drawControl(name, state, el) {
  const label = state.description ? `${state.description} ` : "";
  if (name === "HTMLModel" || name === "HTMLMathModel") {
    el.innerHTML = state.value ?? "";
  } else if (name === "LabelModel") {
    el.textContent = state.value ?? "";
  } else if (name === "IntProgressModel" || name === "FloatProgressModel") {
    el.textContent = label;
    const bar = document.createElement("progress");
    bar.max = state.max - state.min;
    bar.value = state.value - state.min;
    el.append(bar);
  } else if (name === "ButtonModel" || name === "ToggleButtonModel") {
    const button = document.createElement("button");
    button.textContent = state.description ?? "";
    button.disabled = true;
    el.append(button);
  } else if (/Slider|Text|Dropdown|Checkbox/.test(name)) {
    el.textContent = `${label}${JSON.stringify(state.value ?? state.index)}`;
  } else {
    el.textContent = `(${name.replace(/Model$/, "")})`;
  }
}

async function draw(id, el) {
  const entry = saved[id];
  if (!entry) {
    el.textContent = "(this view was not saved with the page)";
    return;
  }
  const model = new SavedModel(id);
  for (const name of model.get("_dom_classes") || []) el.classList.add(name);
  const kind = entry.model_name;
  try {
    if (kind === "PlotlyFigure") {
      // A live chart (plotly's FigureWidget), as the lesson left it: drawn by plotly.js.
      const figure = model.get("figure");
      await window.Plotly.newPlot(el, figure.data, figure.layout, { responsive: true });
    } else if (kind === "AnyModel" || model.get("_esm")) {
      await drawAnyWidget(model, el);
    } else if (/Box/.test(kind)) {
      el.style.display = "flex";
      el.style.flexDirection = kind === "HBoxModel" ? "row" : "column";
      el.style.gap = "4px";
      for (const child of model.get("children") || []) {
        const holder = document.createElement("div");
        el.append(holder);
        await draw(childId(child), holder);
      }
    } else {
      drawControl(kind, model.state, el);
    }
  } catch (error) {
    el.textContent = `(this view could not be drawn here: ${error})`;
  }
}

for (const el of document.querySelectorAll(".vg-offline-widget")) {
  draw(el.dataset.modelId, el);
}
