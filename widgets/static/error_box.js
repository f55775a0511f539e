// The error box every view's front end shows (widgets/browser.py): the view's ``error``
// trait as text, hidden while it is empty. Put before each view's own module.
function vgErrorBox(model) {
  const box = document.createElement("div");
  box.className = "vg-error";
  box.setAttribute("role", "alert");
  const draw = () => {
    box.textContent = model.get("error") || "";  // text, never markup
    box.style.display = model.get("error") ? "" : "none";
  };
  model.on("change:error", draw);
  draw();
  return box;
}
