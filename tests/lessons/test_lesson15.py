"""Lesson 15: the training helper reaches 95% held-out accuracy with the notebook's settings,
its checkpoints open in PyTorch, the as_strided convolution equals torch's conv2d, and the
checkers accept right answers (computed with torch or from first principles) and explain
typical mistakes."""

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch
from lesson_feedback import assert_wrong
from vizgrad.lessons import check
from vizgrad.lessons import lesson15 as L

import vizgrad as vg
from vizgrad import optim

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "15-training-end-to-end.ipynb"


def _torch_mlp():
    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 256), torch.nn.ReLU(),
                               torch.nn.Linear(256, 10))  # fmt: skip


def _torch_cnn():
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )  # fmt: skip


def _torch_test_images():
    return torch.tensor(np.array(L.test_set().data.tolist(), dtype=np.float32))


def _torch_test_labels():
    return torch.tensor(L.test_set().targets.tolist())


def _train(make, lr, epochs, batch_size):
    model = make()
    optimizer = optim.Adam(model.parameters(), lr=lr)
    history = L.train(model, optimizer, epochs, batch_size=batch_size, live=False)
    return model, optimizer, history


@pytest.fixture(scope="module")
def trained_mlp():
    return _train(L.make_mlp, L.MLP_LR, L.MLP_EPOCHS, L.MLP_BATCH_SIZE)


@pytest.fixture(scope="module")
def trained_cnn():
    return _train(L.make_cnn, L.CNN_LR, L.CNN_EPOCHS, L.CNN_BATCH_SIZE)


def _checkpoint(model, optimizer, epoch, path):
    vg.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
            path)  # fmt: skip
    return path


# --- the notebook's settings reach 95% --------------------------------------------------


def _torch_accuracy(torch_model, state_dict):
    """Held-out accuracy of the trained weights, computed by PyTorch."""
    torch_model.load_state_dict(state_dict)
    torch_model.eval()
    with torch.no_grad():
        predictions = torch_model(_torch_test_images()).argmax(dim=1)
    return (predictions == _torch_test_labels()).float().mean().item(), predictions


def test_the_mlp_reaches_95_percent_held_out(trained_mlp, tmp_path):
    model, optimizer, history = trained_mlp
    score = L.accuracy(model)
    assert score >= 0.95, f"MLP held-out accuracy {score:.1%}"
    # The accuracy is what PyTorch computes for the same weights.
    path = _checkpoint(model, optimizer, L.MLP_EPOCHS, tmp_path / "mlp.pt")
    state = torch.load(path, weights_only=True)
    torch_score, _ = _torch_accuracy(_torch_mlp(), state["model"])
    assert torch_score == pytest.approx(score)
    assert history["epoch"] == list(range(1, L.MLP_EPOCHS + 1))
    assert history["accuracy"][-1] == pytest.approx(score)


def test_the_cnn_reaches_95_percent_held_out(trained_cnn, tmp_path):
    model, optimizer, _ = trained_cnn
    score = L.accuracy(model)
    assert score >= 0.95, f"CNN held-out accuracy {score:.1%}"
    path = _checkpoint(model, optimizer, L.CNN_EPOCHS, tmp_path / "cnn.pt")
    torch_score, torch_predictions = _torch_accuracy(_torch_cnn(), torch.load(
        path, weights_only=True)["model"])  # fmt: skip
    assert torch_score == pytest.approx(score)
    assert torch_predictions.tolist() == L.predict(model, L.test_set()).tolist()


def _code(notebook=NOTEBOOK) -> str:
    cells = nbformat.read(notebook, as_version=4).cells
    return "\n".join(c.source for c in cells if c.cell_type == "code")


def test_the_notebook_trains_with_the_settings_tested_here():
    code = re.sub(r"\s+", " ", _code())
    assert "mlp = L.make_mlp()" in code and "cnn = L.make_cnn()" in code
    assert "optim.Adam(mlp.parameters(), lr=L.MLP_LR)" in code
    assert ("L.train(mlp, optimizer, epochs=L.MLP_EPOCHS, batch_size=L.MLP_BATCH_SIZE, "
            in code)  # fmt: skip
    assert "optim.Adam(cnn.parameters(), lr=L.CNN_LR)" in code
    assert ("L.train(cnn, cnn_optimizer, epochs=L.CNN_EPOCHS, batch_size=L.CNN_BATCH_SIZE, "
            in code)  # fmt: skip
    assert "held-out accuracy {L.accuracy(mlp, test):.1%}" in code
    assert "held-out accuracy {L.accuracy(cnn, test):.1%}" in code


def test_train_is_deterministic_and_independent_of_the_global_generator():
    first = L.make_mlp()
    L.train(first, optim.SGD(first.parameters(), lr=0.1), 1, live=False)
    second = L.make_mlp()
    vg.randn(100)  # draws from the global generator between seeding and training
    L.train(second, optim.SGD(second.parameters(), lr=0.1), 1, live=False)
    for a, b in zip(first.parameters(), second.parameters(), strict=True):
        assert vg.equal(a, b)


def test_the_live_chart_and_progress_bar_show_the_history(monkeypatch):
    import IPython.display
    import ipywidgets

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *objects: shown.extend(objects))
    model = L.make_mlp()
    history = L.train(model, optim.Adam(model.parameters(), lr=L.MLP_LR), 2, live=True,
                      title="test")  # fmt: skip
    (box,) = shown
    (bar_row, figure) = box.children
    bar, label = bar_row.children
    assert isinstance(bar, ipywidgets.IntProgress) and isinstance(label, ipywidgets.Label)
    batches = -(-len(L.train_set()) // L.MLP_BATCH_SIZE)  # ceil: the last batch is smaller
    assert bar.value == bar.max == 2 * batches
    assert "epoch 2" in label.value
    loss, accuracy = figure.data
    assert list(loss.x) == history["step"] and list(loss.y) == history["batch_loss"]
    assert list(accuracy.x) == [1, 2] and list(accuracy.y) == history["accuracy"]
    assert len(history["step"]) == 2 * L.UPDATES_PER_EPOCH
    assert history["step"][-1] == 2.0


# --- checkpoints --------------------------------------------------------------------------


def test_a_checkpoint_opens_in_pytorch_and_predicts_the_same_classes(trained_mlp, tmp_path):
    model, optimizer, _ = trained_mlp
    path = _checkpoint(model, optimizer, L.MLP_EPOCHS, tmp_path / "mlp.pt")
    state = torch.load(path, weights_only=True)
    assert set(state) == {"epoch", "model", "optimizer"} and state["epoch"] == L.MLP_EPOCHS
    torch_model = _torch_mlp()
    torch_model.load_state_dict(state["model"])  # strict: every key and shape matches
    torch_optimizer = torch.optim.Adam(torch_model.parameters())
    torch_optimizer.load_state_dict(state["optimizer"])
    assert torch_optimizer.param_groups[0]["lr"] == L.MLP_LR
    steps = L.MLP_EPOCHS * -(-len(L.train_set()) // L.MLP_BATCH_SIZE)
    assert torch_optimizer.state[torch_model[1].weight]["step"].item() == steps
    with torch.no_grad():
        torch_predictions = torch_model(_torch_test_images()).argmax(dim=1)
    assert torch_predictions.tolist() == L.predict(model, L.test_set()).tolist()


def test_resuming_from_a_checkpoint_continues_the_same_run(tmp_path):
    model = L.make_mlp()
    optimizer = optim.Adam(model.parameters(), lr=L.MLP_LR)
    L.train(model, optimizer, 2, live=False)
    path = _checkpoint(model, optimizer, 2, tmp_path / "two.pt")
    checkpoint = vg.load(path)
    saved_predictions = L.predict(model, L.test_set())

    def resumed(with_optimizer):
        fresh = L.make_mlp()
        fresh_optimizer = optim.Adam(fresh.parameters(), lr=L.MLP_LR)
        fresh.load_state_dict(checkpoint["model"])
        if with_optimizer:
            fresh_optimizer.load_state_dict(checkpoint["optimizer"])
        assert vg.equal(L.predict(fresh, L.test_set()), saved_predictions)
        L.train(fresh, fresh_optimizer, 1, start_epoch=checkpoint["epoch"], live=False)
        return fresh

    L.train(model, optimizer, 1, start_epoch=2, live=False)  # the uninterrupted run
    restored = resumed(with_optimizer=True)
    for a, b in zip(model.parameters(), restored.parameters(), strict=True):
        assert vg.equal(a, b)
    # Without the optimizer's state (Adam's moments and step count) the run diverges.
    forgetful = resumed(with_optimizer=False)
    assert not all(vg.equal(a, b) for a, b in zip(model.parameters(), forgetful.parameters(),
                                                  strict=True))  # fmt: skip


# --- the confusion matrix ----------------------------------------------------------------


def test_the_confusion_matrix_counts_like_torch_bincount(trained_mlp):
    model, _, _ = trained_mlp
    cm = L.confusion_matrix(model)
    assert cm.dtype == vg.int64 and tuple(cm.shape) == (10, 10)
    labels = _torch_test_labels()
    predictions = torch.tensor(L.predict(model, L.test_set()).tolist())
    expected = torch.bincount(labels * 10 + predictions, minlength=100).reshape(10, 10)
    assert cm.tolist() == expected.tolist()
    assert cm.sum().item() == len(L.test_set())
    assert cm.diagonal().sum().item() == (labels == predictions).sum().item()


def test_most_confused_reads_the_largest_off_diagonal_cell():
    cm = vg.tensor([[5, 0, 2], [4, 6, 0], [0, 4, 9]])
    padded = vg.zeros(10, 10, dtype=vg.int64)
    padded[:3, :3] = cm
    assert L.most_confused(padded) == [(1, 0), (2, 1)]


# --- convolution as a window view and a matmul -----------------------------------------


@pytest.mark.parametrize("rows, columns, cut", [(8, 8, None), (6, 8, (1, 6)), (5, 7, None)])
def test_the_window_view_is_torchs_unfold(rows, columns, cut):
    storage = vg.arange(float(rows * columns)).reshape(rows, columns)
    torch_storage = torch.arange(float(rows * columns)).reshape(rows, columns)
    image = storage[:, cut[0] : cut[1]] if cut else storage
    torch_image = torch_storage[:, cut[0] : cut[1]] if cut else torch_storage
    windows = L.windows(image, 3)
    expected = torch_image.unfold(0, 3, 1).unfold(1, 3, 1)
    assert tuple(windows.shape) == tuple(expected.shape)
    assert windows.stride() == expected.stride()
    assert windows.storage_offset() == expected.storage_offset()
    assert windows.untyped_storage().data_ptr() == image.untyped_storage().data_ptr()
    assert windows.tolist() == expected.tolist()


@pytest.mark.parametrize("channels_out, k", [(4, 3), (2, 2), (3, 5)])
def test_windows_times_kernels_is_torchs_conv2d(channels_out, k):
    image = L.test_set().data[7, 0].clone()
    generator = vg.Generator().manual_seed(channels_out)
    kernels = vg.randn(channels_out, 1, k, k, generator=generator)
    windows = L.windows(image, k)
    out_h, out_w = windows.shape[:2]
    out = windows.reshape(out_h * out_w, k * k) @ kernels.reshape(channels_out, k * k).T
    out = out.T.reshape(channels_out, out_h, out_w)
    expected = torch.nn.functional.conv2d(torch.tensor(image.tolist()).reshape(1, 1, 8, 8),
                                          torch.tensor(kernels.tolist()))[0]  # fmt: skip
    np.testing.assert_allclose(out.tolist(), expected.tolist(), rtol=1e-5, atol=1e-5)
    reference = vg.nn.functional.conv2d(image.reshape(1, 1, 8, 8), kernels)[0]
    assert vg.allclose(out, reference, atol=1e-5)


# --- 15.train_step -------------------------------------------------------------------------


def _step(order):
    def train_step(model, images, labels, loss_fn, optimizer):
        loss = loss_fn(model(images), labels)
        for action in order:
            {"z": optimizer.zero_grad, "b": loss.backward, "s": optimizer.step}[action]()
        return loss.item()

    return train_step


@pytest.mark.parametrize("order", ["zbs", "bsz"])
def test_train_step_right(order):
    assert check("15.train_step", _step(order)).correct


def test_train_step_with_module_zero_grad_is_right():
    def train_step(model, images, labels, loss_fn, optimizer):
        model.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()

    assert check("15.train_step", train_step).correct


@pytest.mark.parametrize("order, says", [
    ("bs", ["accumulate", "Which call clears them?"]),
    ("bzs", ["no gradient is left", "between backward() and step()"]),
    ("sb", ["step() runs before backward()"]),
    ("zsb", ["step() never used them", "after loss.backward()"]),
    ("zb", ["step() never used them", "is it called at all?"]),
    ("zbss", ["differ from those of zero_grad → backward → step"]),
])  # fmt: skip
def test_train_step_wrong(order, says):
    message = assert_wrong("15.train_step", _step(order), *says)
    assert "zero_grad() —" not in message  # never the hint's answer


def test_train_step_bad_answers():
    assert_wrong("15.train_step", "zero_grad", "the function itself")
    assert_wrong("15.train_step", lambda model: None, "raised TypeError")


# --- 15.accuracy ------------------------------------------------------------------------


def test_accuracy_example_is_13_of_16():
    logits, labels = L.accuracy_example()
    t_logits, t_labels = torch.tensor(logits.tolist()), torch.tensor(labels.tolist())
    assert (t_logits.argmax(dim=1) == t_labels).sum().item() == 16 - 3


@pytest.mark.parametrize("accuracy", [
    lambda lo, la: (lo.argmax(dim=1) == la).float().mean(),
    lambda lo, la: (lo.argmax(1) == la).sum().item() / len(la),
    lambda lo, la: (lo.argmax(-1) == la).float().mean().item(),
    lambda lo, la: (lo.softmax(dim=1).argmax(dim=1) == la).double().mean(),
    lambda lo, la: torch.tensor((lo.argmax(1) == la).float().mean().item()),
])  # fmt: skip
def test_accuracy_right(accuracy):
    assert check("15.accuracy", accuracy).correct


@pytest.mark.parametrize("accuracy, says", [
    (lambda lo, la: (lo.argmax(1) == la).sum(), ["13", "how many are right"]),
    (lambda lo, la: 100 * (lo.argmax(1) == la).float().mean(), ["percentage"]),
    (lambda lo, la: (lo.argmax(1) != la).float().mean(), ["error rate"]),
    (lambda lo, la: (lo.argmax(0) == la).float().mean(), ["raised RuntimeError", "dim=1"]),
    (lambda lo, la: (lo.argmax(1) == la).sum().item() / 16, ["batch of 5", "len(labels)"]),
    (lambda lo, la: lo.argmax(1) == la, ["16 numbers", "mean"]),
    (lambda lo, la: "81%", ["returned a str"]),
    (lambda lo, la: (lo.max(1).values == la).float().mean(), ["compare each image's"]),
])  # fmt: skip
def test_accuracy_wrong(accuracy, says):
    assert_wrong("15.accuracy", accuracy, *says)


def test_accuracy_bad_answer():
    assert_wrong("15.accuracy", 0.8125, "the function itself")


# --- 15.most_confused ------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch_confusion(trained_mlp):
    """The MLP's confusion matrix, counted by torch.bincount on PyTorch's own predictions."""
    model, optimizer, _ = trained_mlp
    torch_model = _torch_mlp()
    torch_model.load_state_dict({k: torch.tensor(v.tolist()) for k, v in
                                 model.state_dict().items()})  # fmt: skip
    with torch.no_grad():
        predictions = torch_model(_torch_test_images()).argmax(dim=1)
    return torch.bincount(_torch_test_labels() * 10 + predictions, minlength=100).reshape(10, 10)


def test_most_confused_right_as_torch_counts(torch_confusion):
    off = torch_confusion * (1 - torch.eye(10, dtype=torch.int64))
    largest = off.max().item()
    pairs = [(t, p) for t in range(10) for p in range(10) if off[t, p].item() == largest]
    for true, predicted in pairs:
        assert check("15.most_confused", (true, predicted)).correct
        assert check("15.most_confused", [np.int64(true), predicted]).correct


def test_most_confused_wrong(torch_confusion):
    off = torch_confusion * (1 - torch.eye(10, dtype=torch.int64))
    true, predicted = divmod(off.argmax().item(), 10)
    if off[predicted, true] != off[true, predicted]:
        assert_wrong("15.most_confused", (predicted, true), "transposed")
    assert_wrong("15.most_confused", (4, 4), "on the diagonal")
    largest = off.max().item()
    smallest = next((t, p) for t in range(10) for p in range(10)
                    if t != p and off[t, p] < largest and off[p, t] < largest)  # fmt: skip
    assert_wrong("15.most_confused", smallest, "another cell off the diagonal holds more")
    assert_wrong("15.most_confused", "3 and 5", "two digits")
    assert_wrong("15.most_confused", (3, 12), "from 0 to 9")
    assert_wrong("15.most_confused", (3.0, 5), "whole number")


# --- 15.checkpoint_keys -----------------------------------------------------------------


@pytest.mark.parametrize("form", [set, list, tuple, frozenset])
def test_checkpoint_keys_right(form):
    assert check("15.checkpoint_keys", form(["epoch", "model", "optimizer"])).correct


@pytest.mark.parametrize("answer, says, not_said", [
    ({"model", "epoch"}, ["'optimizer' is missing", "running averages"], "'lr'"),
    ({"model", "optimizer"}, ["'epoch' is missing"], "'grads'"),
    ({"optimizer", "epoch", "lr"}, ["'model' is missing"], "param_groups"),
    ({"model", "optimizer", "epoch", "lr"}, ["'lr' is not needed", "param_groups"], None),
    ({"model", "optimizer", "epoch", "grads"}, ["'grads' is not needed", "zero_grad"], None),
    ({"model", "optimizer", "epoch", "architecture"}, ["weights_only"], None),
    ({"model", "optimizer", "epoch", "accuracy"}, ["never reads it"], None),
    ({"model", "weights"}, ["'weights' is not one of the candidates"], "missing"),
    ("model", ["a set of names"], None),
    ({"model", 3}, ["not a name"], None),
])  # fmt: skip
def test_checkpoint_keys_wrong(answer, says, not_said):
    message = assert_wrong("15.checkpoint_keys", answer, *says)
    if not_said:
        assert not_said not in message


def test_the_needed_keys_are_what_resuming_loads():
    source = _code()
    for key in ("model", "optimizer", "epoch"):
        assert f'checkpoint["{key}"]' in source


# --- 15.window_view ---------------------------------------------------------------------


def _torch_window_view():
    image = torch.arange(48.0).reshape(6, 8)[:, 1:6]
    windows = image.as_strided((4, 3, 3, 3), (image.stride(0), 1, image.stride(0), 1), 1)
    assert torch.equal(windows, image.unfold(0, 3, 1).unfold(1, 3, 1))
    return tuple(windows.shape), windows.stride()


def test_window_view_right():
    size, stride = _torch_window_view()
    assert check("15.window_view", (size, stride)).correct
    assert check("15.window_view", [list(size), list(stride)]).correct
    assert check("15.window_view", (vg.Size(size), stride)).correct
    assert check("15.window_view", L.windows(L.window_exercise_image(), 3)).correct


@pytest.mark.parametrize("answer, says, not_said", [
    (((6, 5, 3, 3), (8, 1, 8, 1)), ["size element 0 (6)"], "stride element"),
    (((4, 5, 3, 3), (8, 1, 8, 1)), ["size element 1 (5)"], None),
    (((4, 3, 1, 1), (8, 1, 8, 1)), ["size element 2", "3 x 3 window"], None),
    (((4, 3, 3, 3), (5, 1, 5, 1)), ["stride element 0 (5)", "image's width", "8"], None),
    (((4, 3, 3, 3), (8, 1, 1, 8)), ["stride element 2 (1)", "image.stride(0)"], "element 3"),
    (((4, 3, 3, 3), (8, 8, 8, 1)), ["stride element 1 (8)", "image.stride(1)"], None),
    (((4, 3, 3, 3), (24, 3, 8, 1)), ["stride element 0 (24)"], "element 1"),
    (((4, 3, 3), (8, 1, 8)), ["4 dimensions"], None),
    ((4, 3, 3, 3), ["two tuples"], None),
    (((4, 3, 3, 3), "8, 1, 8, 1"), ["tuple of whole numbers"], None),
])  # fmt: skip
def test_window_view_wrong(answer, says, not_said):
    message = assert_wrong("15.window_view", answer, *says)
    if not_said:
        assert not_said not in message
