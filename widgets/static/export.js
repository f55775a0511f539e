// The exported page's player (widgets/export.py). It inserts as HTML only what Python
// rendered and escaped (the tables); every word it writes itself goes in as text.
(async function () {
  "use strict";
  const root = document.querySelector(".vg-export");
  const $ = (selector) => root.querySelector(selector);

  // The data: JSON, zlib-compressed, base64 (export.py's _packed).
  async function unpack(id) {
    const text = document.getElementById(id).textContent.trim();
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return JSON.parse(await new Response(stream).text());
  }
  const data = await unpack("vg-export-data");

  const slider = $(".vg-scrubber input[type=range]");
  const play = $(".vg-play");
  const label = $(".vg-step-label");
  const description = $(".vg-step-description");
  const strideHost = $(".vg-stride-host");
  const arithmetic = $(".vg-arithmetic");
  const canvas = $(".vg-dag-canvas");
  const panel = $(".vg-dag-panel");
  const traceBody = $(".vg-trace-body");
  const traceToggle = $(".vg-trace-toggle");
  const overview = $(".vg-overview");
  const marker = $(".vg-overview-marker");
  const frames = data.frames;
  const last = frames.length - 1;
  let frameIndex = -1;
  const shown = { stride: "", dag: "", panel: -1, trace: "" };
  let traceAsText = false;
  let timer = null;
  const LABELS = 0.12;  // the overview's lane names

  const notice = $(".vg-export-notice");
  for (const text of data.notices) notice.append(vgEl("p", "", text));
  slider.max = String(last);

  function drawTrace(frame) {
    const [noticeHtml, calls] = data.traces[frame.trace];
    if (traceAsText) {
      const text = calls.map((c) => data.calls[c][1]).filter((t) => t).join("\n");
      traceBody.replaceChildren(vgEl("pre", "vg-trace-text", text));
    } else {
      // Rendered and escaped by Python (dispatch_tree.render_call_html).
      traceBody.innerHTML = '<div class="vg-trace">' + noticeHtml + '<ul class="vg-trace-tree">' +
        calls.map((c) => data.calls[c][0]).join("") + "</ul></div>";
      const current = traceBody.querySelector(`li.vg-trace-call[data-call="${frame.current}"]`);
      if (current) {
        current.classList.add("vg-trace-current");
        current.scrollIntoView({ block: "nearest" });
      }
    }
    traceToggle.textContent = traceAsText ? "show tree" : "show text (dispatch_trace)";
  }

  function drawStride(frame) {
    const names = data.stride_names[frame.names];  // escaped by Python
    strideHost.innerHTML = data.stride_maps[frame.stride].html.replace(
      /@@(\d+)@@/g, (_, k) => names[Number(k)]);
    arithmetic.textContent = "";
  }

  function show(index) {
    index = Math.max(0, Math.min(last, index));
    if (index === frameIndex) return;
    frameIndex = index;
    const frame = frames[index];
    slider.value = String(index);
    label.textContent = "step " + frame.step + " / " + data.n_steps;
    description.dataset.step = String(frame.step);
    description.textContent = "step " + frame.step + ": " + frame.description;
    const stride = frame.stride + ":" + frame.names;
    if (shown.stride !== stride) { drawStride(frame); shown.stride = stride; }
    const dag = frame.dag + ":" + frame.overlay;
    if (shown.dag !== dag) {
      canvas.innerHTML = frame.dag >= 0 ? data.dags[frame.dag] : "";  // SVG: labels escaped
      if (frame.overlay >= 0) vgApplyOverlay(canvas, data.overlays[frame.overlay]);
      shown.dag = dag;
    }
    if (shown.panel !== frame.panel) { vgDrawPanel(panel, data.panels[frame.panel]); shown.panel = frame.panel; }
    const trace = frame.trace + ":" + frame.current;
    if (shown.trace !== trace) { drawTrace(frame); shown.trace = trace; }
    marker.style.left = (100 * (LABELS + (1 - LABELS) * index / Math.max(1, last))) + "%";
  }

  // The overview: one lane per part of the engine, a tick per step in its lane, after
  // the lanes' names (the strip's first LABELS of its width).
  function drawOverview() {
    const plot = overview.querySelector("canvas");
    const width = plot.width, height = plot.height;
    const context = plot.getContext("2d");
    const colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00"];
    const lane = height / data.lanes.length;
    context.clearRect(0, 0, width, height);
    context.font = "11px system-ui, sans-serif";
    frames.forEach((frame, i) => {
      if (frame.lane < 0) return;
      context.fillStyle = colors[frame.lane % colors.length];
      const x = width * LABELS + i * (width * (1 - LABELS) - 1) / Math.max(1, last);
      context.fillRect(Math.floor(x), frame.lane * lane + 2, 1, lane - 4);
    });
    context.fillStyle = "#555";
    data.lanes.forEach((name, k) => context.fillText(name, 2, k * lane + lane / 2 + 3));
  }
  overview.addEventListener("click", (event) => {
    const box = overview.getBoundingClientRect();
    stop();
    const at = ((event.clientX - box.left) / box.width - LABELS) / (1 - LABELS);
    show(Math.round(Math.max(0, at) * last));
  });

  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
    play.textContent = "▶ play";
  }

  play.addEventListener("click", () => {
    if (timer) { stop(); return; }
    if (frameIndex >= last) show(0);
    play.textContent = "❚❚ pause";
    timer = setInterval(() => {
      if (frameIndex >= last) { stop(); return; }
      show(frameIndex + 1);
    }, 400);
  });
  $(".vg-step-back").addEventListener("click", () => { stop(); show(frameIndex - 1); });
  $(".vg-step-forward").addEventListener("click", () => { stop(); show(frameIndex + 1); });
  slider.addEventListener("input", () => show(Number(slider.value)));
  slider.addEventListener("change", () => show(Number(slider.value)));
  traceToggle.addEventListener("click", () => {
    traceAsText = !traceAsText;
    drawTrace(frames[frameIndex]);
  });

  // Hovering an element lights the storage cell it reads, with the arithmetic.
  strideHost.addEventListener("mouseover", (event) => {
    const cell = event.target.closest(".vg-stride-cell");
    for (const lit of strideHost.querySelectorAll(".vg-lit")) lit.classList.remove("vg-lit");
    if (!cell) return;
    const view = data.stride_maps[frames[frameIndex].stride].views[Number(cell.dataset.view)];
    const index = cell.dataset.index ? cell.dataset.index.split(",").map(Number) : [];
    const position = cell.dataset.pos;
    cell.classList.add("vg-lit");
    const strip = strideHost.querySelectorAll(".vg-storage-strip")[view.storage];
    if (strip) {
      for (const s of strip.querySelectorAll(".vg-storage-cell")) {
        if (s.dataset.pos === position) s.classList.add("vg-lit");
      }
    }
    const terms = index.map((i, d) => i + "·" + view.stride[d]);
    arithmetic.textContent = [String(view.offset), ...terms].join(" + ") + " = " + position;
  });

  show(last);
  drawOverview();
  root.dataset.ready = "1";
})().catch((error) => {
  const notice = document.querySelector(".vg-export-notice");
  notice.textContent = "This page could not be shown: " + error;
  throw error;
});
