// StrideMap's front end (widgets/stride_map.py).
function make(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function arithmeticText(view, index) {
  // The same sum as widgets/render/stride_map.py's arithmetic(): offset + Σ index·stride.
  let position = view.offset;
  const terms = [String(view.offset)];
  index.forEach((i, d) => { terms.push(i + "·" + view.stride[d]); position += i * view.stride[d]; });
  return terms.join(" + ") + " = " + position;
}

function render({ model, el }) {
  const root = make("div", "vg-stride-map");
  el.appendChild(root);
  const error = vgErrorBox(model);  // why the last edit or click could not be done

  function light(viewNumber, index, position) {
    const data = model.get("data");
    const view = data.views[viewNumber];
    root.querySelectorAll(".vg-lit, .vg-same").forEach((n) => n.classList.remove("vg-lit", "vg-same"));
    root.querySelectorAll(`.vg-stride-cell[data-pos="${position}"]`).forEach((n) => {
      if (data.views[+n.dataset.view].storage === view.storage) n.classList.add("vg-same");
    });
    const cell = root.querySelector(`.vg-stride-cell[data-view="${viewNumber}"][data-index="${index.join(",")}"]`);
    if (cell) cell.classList.add("vg-lit");
    const strip = root.querySelector(`.vg-storage-strip[data-storage="${view.storage}"]`);
    const target = strip && strip.querySelector(`.vg-storage-cell[data-pos="${position}"]`);
    if (target) target.classList.add("vg-lit");
    let text = ` [${index.join(", ")}]: ` + arithmeticText(view, index);
    if (!target) text += "  (that storage cell is elided)";
    const box = root.querySelector(".vg-arithmetic");
    const name = make("span", "vg-arithmetic-name");
    name.innerHTML = view.name;  // already HTML-escaped by the render layer
    box.replaceChildren(name, document.createTextNode(text));
  }

  function restoreSelection() {
    const sel = model.get("data").selection;
    if (sel) light(sel.view, sel.index, sel.position);
    else {
      root.querySelectorAll(".vg-lit, .vg-same").forEach((n) => n.classList.remove("vg-lit", "vg-same"));
      root.querySelector(".vg-arithmetic").textContent = "Hover or click an element.";
    }
  }

  function drawView(view, number) {
    const box = make("div", "vg-stride-view");
    box.dataset.view = number;
    box.style.setProperty("--vg-color", view.color);
    const title = make("div", "vg-view-title");
    title.innerHTML = view.name;  // escaped by the render layer
    box.appendChild(title);
    box.appendChild(make("div", "vg-view-meta",
      `shape (${view.shape.join(", ")}) stride (${view.stride.join(", ")}) offset ${view.offset} ` +
      `${view.dtype}` + (view.version === null ? "" : ` _version ${view.version}`)));
    const notes = make("div", "vg-notes");
    view.notes.forEach((n) => notes.appendChild(make("span", "vg-note", n)));
    box.appendChild(notes);
    for (let d = 0; d < view.slice_dims; d++) {
      const chooser = make("label", "vg-slice-chooser", `dim ${d}: `);
      const input = make("input", "vg-slice");
      Object.assign(input, { type: "range", min: 0, max: Math.max(view.shape[d] - 1, 0), value: view.slice[d] });
      input.dataset.view = number;
      input.dataset.dim = d;
      const shown = make("span", "vg-slice-value", view.slice[d]);
      input.addEventListener("input", () => { shown.textContent = input.value; });
      input.addEventListener("change", () => {
        const slices = model.get("data").views.map((v) => v.slice.slice());
        slices[number][d] = +input.value;
        model.set("slices", slices);
        model.save_changes();
      });
      chooser.appendChild(input);
      chooser.appendChild(shown);
      box.appendChild(chooser);
    }
    const table = make("table", "vg-stride-grid");
    const matrix = view.shape.length >= 2;
    if (view.shape.length >= 1) {
      const head = make("tr");
      head.appendChild(make("th"));
      view.cols.forEach((c) => head.appendChild(make("th", null, c === null ? "…" : c)));
      table.appendChild(head);
    }
    view.rows.forEach((r, ri) => {
      const tr = make("tr");
      tr.appendChild(make("th", null, matrix ? (r === null ? "⋮" : r) : ""));
      view.cols.forEach((c, ci) => {
        if (r === null || c === null) { tr.appendChild(make("td", "vg-ellipsis", "…")); return; }
        const position = view.positions[ri][ci];
        const index = view.slice.concat(matrix ? [r] : [], view.shape.length ? [c] : []);
        const text = view.values ? view.values[ri][ci] : position;
        const td = make("td", "vg-stride-cell", text);
        td.dataset.view = number;
        td.dataset.index = index.join(",");
        td.dataset.pos = position;
        td.title = `storage[${position}]`;
        td.addEventListener("mouseenter", () => light(number, index, position));
        td.addEventListener("mouseleave", restoreSelection);
        td.addEventListener("click", () => { model.set("selection", { view: number, index }); model.save_changes(); });
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    box.appendChild(table);
    return box;
  }

  function drawStrip(strip, number, views) {
    const box = make("div", "vg-storage-strip");
    box.dataset.storage = number;
    const title = make("div", "vg-view-title");
    title.innerHTML = `${strip.label} (${strip.numel} × ${strip.dtype})`;  // escaped
    box.appendChild(title);
    const cells = make("div", "vg-storage-cells");
    let k = 0;
    strip.segments.forEach(([start, stop], s) => {
      if (s > 0 || start > 0) cells.appendChild(make("span", "vg-ellipsis", "…"));
      for (let p = start; p < stop; p++, k++) {
        const readers = strip.readers[k], counts = strip.counts[k];
        // Live, a cell shows its value over its position; in a replay there are no
        // values, so the position is the cell's text, at full size.
        const cell = make("span", "vg-storage-cell", strip.values ? strip.values[k] : p);
        cell.dataset.pos = p;
        cell.dataset.views = readers.join(",");
        if (strip.values) cell.appendChild(make("span", "vg-pos", p));
        else cell.classList.add("vg-position-only");
        if (!readers.length) cell.classList.add("vg-unread");
        else {
          const colors = readers.map((v) => views[v].color);
          const band = 100 / colors.length;
          cell.style.background = "linear-gradient(180deg," +
            colors.map((c, i) => `${c} ${i * band}%, ${c} ${(i + 1) * band}%`).join(",") + ")";
        }
        const most = Math.max(0, ...counts);
        if (most > 1) {
          cell.classList.add("vg-overlap");
          cell.appendChild(make("span", "vg-count", "×" + most));
        }
        cell.title = `storage[${p}] read by ` + (readers.length ? readers.map((v, i) => `view ${v} (${counts[i]}×)`).join(", ") : "no view");
        cells.appendChild(cell);
      }
    });
    box.appendChild(cells);
    return box;
  }

  function drawControls() {
    const box = make("div", "vg-controls");
    const field = (label, cls, trait) => {
      box.appendChild(make("span", null, label));
      const input = make("input", cls);
      input.type = "text";
      input.value = model.get(trait);
      box.appendChild(input);
      return input;
    };
    const size = field("size", "vg-edit-size", "edit_size");
    const stride = field("stride", "vg-edit-stride", "edit_stride");
    const offset = field("offset", "vg-edit-offset", "edit_offset");
    const apply = make("button", "vg-edit-apply", "as_strided");
    apply.addEventListener("click", () => model.send({ type: "as_strided", size: size.value, stride: stride.value, offset: offset.value }));
    const clear = make("button", "vg-edit-clear", "remove view");
    clear.addEventListener("click", () => model.send({ type: "clear_edit" }));
    box.appendChild(apply);
    box.appendChild(clear);
    return box;
  }

  function draw() {
    const data = model.get("data");
    root.innerHTML = "";
    if (!data || !data.views) return;
    const views = make("div", "vg-stride-views");
    data.views.forEach((v, n) => views.appendChild(drawView(v, n)));
    root.appendChild(views);
    data.storages.forEach((s, n) => root.appendChild(drawStrip(s, n, data.views)));
    root.appendChild(make("div", "vg-arithmetic"));
    if (model.get("mode") === "live" && data.views.length) root.appendChild(drawControls());
    root.appendChild(error);
    restoreSelection();
  }

  model.on("change:data", draw);
  model.on("change:mode", draw);
  draw();
  return () => root.remove();
}

export default { render };
