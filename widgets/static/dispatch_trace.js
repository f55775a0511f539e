// DispatchTrace's front end (widgets/dispatch_trace.py).
function render({ model, el }) {
  el.classList.add("vg-dispatch-trace");
  const bar = document.createElement("div");
  bar.className = "vg-trace-bar";
  const filter = document.createElement("input");
  filter.type = "search";
  filter.className = "vg-trace-filter";
  filter.placeholder = "filter by operator (e.g. mul)";
  filter.setAttribute("aria-label", "filter by operator");
  const toggle = document.createElement("button");
  toggle.className = "vg-trace-toggle";
  const count = document.createElement("span");
  count.className = "vg-trace-count";
  bar.append(filter, toggle, count);
  const body = document.createElement("div");
  body.className = "vg-trace-body";
  el.replaceChildren(bar, vgErrorBox(model), body);

  function draw() {
    if (document.activeElement !== filter && filter.value !== model.get("filter")) {
      filter.value = model.get("filter");
    }
    const asText = model.get("view") === "text";
    toggle.textContent = asText ? "show tree" : "show text (dispatch_trace)";
    const shown = model.get("n_shown"), total = model.get("n_calls");
    count.textContent = shown === total ? `${total} calls` : `${shown} of ${total} calls`;
    if (asText) {
      const pre = document.createElement("pre");
      pre.className = "vg-trace-text";
      pre.textContent = model.get("text");  // text, never markup
      body.replaceChildren(pre);
    } else {
      body.innerHTML = model.get("tree_html");  // rendered and escaped by Python
      const current = body.querySelector(".vg-trace-current");
      if (current) current.scrollIntoView({ block: "nearest" });
    }
  }
  filter.addEventListener("input", () => {
    model.set("filter", filter.value);
    model.save_changes();
  });
  toggle.addEventListener("click", () => {
    model.set("view", model.get("view") === "text" ? "tree" : "text");
    model.save_changes();
  });
  for (const name of ["tree_html", "text", "view", "filter", "n_shown"]) {
    model.on(`change:${name}`, draw);
  }
  draw();
}
export default { render };
