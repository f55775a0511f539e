// The Timeline's Scrubber (widgets/timeline.py).
function render({ model, el }) {
  el.classList.add("vg-scrubber");
  const button = (cls, text, title) => {
    const b = document.createElement("button");
    b.className = cls;
    b.textContent = text;
    b.title = title;
    return b;
  };
  const play = button("vg-play", "", "play / pause");
  const back = button("vg-step-back", "◀", "step back");
  const forward = button("vg-step-forward", "▶", "step forward");
  const range = document.createElement("input");
  range.type = "range";
  range.min = "0";
  range.step = "1";
  range.className = "vg-scrubber-range";
  range.setAttribute("aria-label", "step");
  const label = document.createElement("span");
  label.className = "vg-scrubber-label";
  // The error box (why the last step could not be shown) takes a line of its own.
  const error = vgErrorBox(model);
  error.style.flexBasis = "100%";
  el.replaceChildren(play, back, forward, range, label, error);

  let timer = null;
  const last = () => model.get("max");
  function moveTo(step) {
    model.set("value", Math.max(0, Math.min(last(), step)));
    model.save_changes();
  }
  function setPlaying(on) {
    model.set("playing", on);
    model.save_changes();
  }
  function tick() {
    if (model.get("value") >= last()) setPlaying(false);
    else moveTo(model.get("value") + 1);
  }
  function draw() {
    range.max = String(last());
    range.value = String(model.get("value"));
    label.textContent = `step ${model.get("value")} / ${last()}`;
    const playing = model.get("playing");
    play.textContent = playing ? "❚❚ pause" : "▶ play";
    if (playing && timer === null) timer = setInterval(tick, model.get("interval"));
    if (!playing && timer !== null) { clearInterval(timer); timer = null; }
  }
  range.addEventListener("input", () => moveTo(Number(range.value)));
  back.addEventListener("click", () => moveTo(model.get("value") - 1));
  forward.addEventListener("click", () => moveTo(model.get("value") + 1));
  play.addEventListener("click", () => {
    if (!model.get("playing") && model.get("value") >= last()) moveTo(0);  // replay from the start
    setPlaying(!model.get("playing"));
  });
  for (const name of ["value", "max", "playing"]) model.on(`change:${name}`, draw);
  draw();
  return () => { if (timer !== null) clearInterval(timer); };
}
export default { render };
