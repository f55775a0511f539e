"""Lesson 15 — training end to end: an MLP and a small CNN on the 8x8 digits.

The notebook writes the training loop out once (``zero_grad``, ``backward``, ``step``)
and then calls ``train`` here: the same loop, plus a progress bar (``ipywidgets``) and a
live loss/accuracy chart (a plotly ``FigureWidget`` updated in place). It evaluates under
``model.eval()`` and ``vg.no_grad()``, counts a confusion matrix with ``scatter_add_``,
saves and resumes a checkpoint with ``vg.save``/``vg.load`` (which PyTorch opens with
``torch.load``), and shows a convolution as an ``as_strided`` window view and a matmul.

``make_mlp``, ``make_cnn`` and the ``MLP_*``/``CNN_*`` settings are what the notebook
trains with, so the tests (and the confusion-matrix checker) rebuild exactly what the
notebook built. Every expected answer is computed by the engine.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

import numpy as np

import vizgrad as vg
from vizgrad import nn, optim
from vizgrad.datasets import Digits
from vizgrad.utils.data import DataLoader

from .exercise import Wrong, exercise
from .lesson02 import describe_type
from .lesson07 import numbers_of

__all__ = ["SEED", "MLP_EPOCHS", "MLP_BATCH_SIZE", "MLP_LR", "CNN_EPOCHS", "CNN_BATCH_SIZE",
           "CNN_LR", "CHECKPOINT_CANDIDATES", "train_set", "test_set", "make_mlp", "make_cnn",
           "train", "predict", "accuracy", "confusion_matrix", "confusion_figure",
           "digits_figure", "windows", "accuracy_example", "window_exercise_image",
           "most_confused"]  # fmt: skip

SEED = 0
# The notebook's settings. The tests train with exactly these and require >= 95%
# held-out accuracy from both models.
MLP_EPOCHS, MLP_BATCH_SIZE, MLP_LR = 10, 32, 3e-3
CNN_EPOCHS, CNN_BATCH_SIZE, CNN_LR = 8, 32, 3e-3
UPDATES_PER_EPOCH = 3  # how often per epoch the chart's loss curve is redrawn


# --- data and models ---------------------------------------------------------------------


@cache
def train_set() -> Digits:
    """The 1,438 training digits (read once: every helper shares this ``Dataset``)."""
    return Digits(train=True)


@cache
def test_set() -> Digits:
    """The 359 held-out digits: never trained on, only evaluated."""
    return Digits(train=False)


def make_mlp() -> nn.Module:
    """The notebook's multilayer perceptron, its weights drawn after ``vg.manual_seed(SEED)``:
    the 64 pixels of an image, one hidden layer of 256 ReLUs, 10 class scores."""
    vg.manual_seed(SEED)
    return nn.Sequential(
        nn.Flatten(),  # (N, 1, 8, 8) -> (N, 64)
        nn.Linear(64, 256),
        nn.ReLU(),
        nn.Linear(256, 10),
    )


def make_cnn() -> nn.Module:
    """The notebook's small CNN (LeNet's shape scaled to 8x8 images), seeded like
    ``make_mlp``: two 3x3 convolutions with ReLU and 2x2 max pooling, then a linear layer."""
    vg.manual_seed(SEED)
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1),  # 16 x 8 x 8
        nn.ReLU(),
        nn.MaxPool2d(2),  # 16 x 4 x 4
        nn.Conv2d(16, 32, kernel_size=3, padding=1),  # 32 x 4 x 4
        nn.ReLU(),
        nn.MaxPool2d(2),  # 32 x 2 x 2
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10),
    )


# --- evaluation ----------------------------------------------------------------------------


def predict(model: nn.Module, dataset) -> vg.Tensor:
    """The predicted class of every image of ``dataset``: the argmax of the logits, computed
    in evaluation mode (``model.eval()``) and without recording a graph (``vg.no_grad()``)."""
    was_training = model.training
    model.eval()  # dropout off, batch norm on its running statistics (none here, but always)
    with vg.no_grad():  # no graph: nothing will call backward on these logits
        predictions = model(dataset.data).argmax(dim=1)
    model.train(was_training)
    return predictions


def accuracy(model: nn.Module, dataset=None) -> float:
    """The fraction of ``dataset`` (the held-out digits by default) ``model`` gets right."""
    dataset = test_set() if dataset is None else dataset
    return (predict(model, dataset) == dataset.targets).float().mean().item()


def confusion_matrix(model: nn.Module, dataset=None) -> vg.Tensor:
    """``cm[true, predicted]``: how many images of digit ``true`` the model called
    ``predicted``, counted in one ``scatter_add_`` (what ``torch.bincount`` does)."""
    dataset = test_set() if dataset is None else dataset
    labels = dataset.targets
    codes = labels * 10 + predict(model, dataset)  # one code per image: row * 10 + column
    counts = vg.zeros(100, dtype=vg.int64).scatter_add_(0, codes, vg.ones_like(codes))
    return counts.reshape(10, 10)


# --- the training loop with a progress bar and a live chart ------------------------------


class _LiveView:
    """A progress bar with a label, above a plotly ``FigureWidget``: the training loss (left
    axis) and the held-out accuracy (right axis), redrawn in place as training runs."""

    def __init__(self, title: str, total_batches: int, history: dict) -> None:
        import ipywidgets as widgets
        import plotly.graph_objects as go
        from IPython.display import display

        self.bar = widgets.IntProgress(value=0, min=0, max=total_batches, description=title)
        self.label = widgets.Label(value="starting…")
        self.figure = go.FigureWidget(
            data=[
                go.Scatter(
                    x=list(history["step"]),
                    y=list(history["batch_loss"]),
                    name="training loss",
                    mode="lines",
                ),
                go.Scatter(
                    x=list(history["epoch"]),
                    y=list(history["accuracy"]),
                    name="held-out accuracy",
                    mode="lines+markers",
                    yaxis="y2",
                ),
            ],
            layout=go.Layout(
                title=f"{title}: loss and accuracy",
                height=320,
                margin=dict(l=50, r=50, t=40, b=40),
                xaxis=dict(title="epoch"),
                yaxis=dict(title="cross-entropy loss", rangemode="tozero"),
                yaxis2=dict(
                    title="held-out accuracy",
                    overlaying="y",
                    side="right",
                    range=[0, 1.02],
                    dtick=0.25,
                    tickformat=".0%",
                ),
                legend=dict(x=0.5, y=0.5, xanchor="center"),
            ),
        )
        display(widgets.VBox([widgets.HBox([self.bar, self.label]), self.figure]))

    def update(self, history: dict, done: int, text: str) -> None:
        self.bar.value = done
        self.label.value = text
        with self.figure.batch_update():  # one message to the browser, not one per trace
            self.figure.data[0].x = list(history["step"])
            self.figure.data[0].y = list(history["batch_loss"])
            self.figure.data[1].x = list(history["epoch"])
            self.figure.data[1].y = list(history["accuracy"])


def new_history() -> dict:
    """An empty training history: per batch group (``step`` in epochs, ``batch_loss``) and
    per epoch (``epoch``, mean training ``loss``, held-out ``accuracy``)."""
    return {"step": [], "batch_loss": [], "epoch": [], "loss": [], "accuracy": []}


def train(model: nn.Module, optimizer: optim.Optimizer, epochs: int, *,
          batch_size: int = MLP_BATCH_SIZE, start_epoch: int = 0, history: dict | None = None,
          live: bool = True, title: str = "training", seed: int = SEED) -> dict:  # fmt: skip
    """Train ``model`` on the training digits for ``epochs`` more epochs; return the history.

    The loop of the notebook's section 2: for each mini-batch, forward, cross-entropy loss,
    ``zero_grad``, ``backward``, ``step``. After each epoch the held-out accuracy is measured
    (``accuracy``: ``eval()`` and ``no_grad()``). With ``live=True`` a progress bar and a
    chart are shown and updated in place. ``start_epoch`` and ``history`` continue a run
    resumed from a checkpoint. The batches are shuffled by a generator of their own, seeded
    with ``seed + start_epoch``, so a run does not depend on what else drew random numbers.
    """
    history = new_history() if history is None else history
    generator = vg.Generator().manual_seed(seed + start_epoch)
    loader = DataLoader(train_set(), batch_size=batch_size, shuffle=True, generator=generator)
    loss_fn = nn.CrossEntropyLoss()
    group = max(1, math.ceil(len(loader) / UPDATES_PER_EPOCH))  # batches per chart update
    view = _LiveView(title, epochs * len(loader), history) if live else None
    done = 0
    for epoch in range(start_epoch + 1, start_epoch + epochs + 1):
        model.train()
        epoch_total, group_total, group_size = 0.0, 0.0, 0
        for batch, (images, labels) in enumerate(loader, start=1):
            loss = loss_fn(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_total += loss.item()
            group_total, group_size, done = group_total + loss.item(), group_size + 1, done + 1
            if group_size == group or batch == len(loader):
                history["step"].append(epoch - 1 + batch / len(loader))
                history["batch_loss"].append(group_total / group_size)
                group_total, group_size = 0.0, 0
                if view is not None:
                    view.update(history, done, f"epoch {epoch}, batch {batch}/{len(loader)}, "
                                               f"loss {history['batch_loss'][-1]:.3f}")  # fmt: skip
        history["epoch"].append(epoch)
        history["loss"].append(epoch_total / len(loader))
        history["accuracy"].append(accuracy(model))
        if view is not None:
            view.update(history, done, f"epoch {epoch}: loss {history['loss'][-1]:.3f}, "
                                       f"held-out accuracy {history['accuracy'][-1]:.1%}")  # fmt: skip
    return history


# --- pictures ---------------------------------------------------------------------------


def digits_figure(dataset, count: int = 8):
    """The first ``count`` images of ``dataset`` side by side, with their labels."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    labels = dataset.targets[:count].tolist()
    figure = make_subplots(rows=1, cols=count, subplot_titles=[f"label {d}" for d in labels],
                           horizontal_spacing=0.01)  # fmt: skip
    for column in range(count):
        figure.add_trace(go.Heatmap(z=dataset.data[column, 0].tolist(), colorscale="Greys",
                                    showscale=False), row=1, col=column + 1)  # fmt: skip
    for column in range(1, count + 1):  # square pixels: each y axis scales with its own x axis
        figure.update_yaxes(scaleanchor=f"x{column if column > 1 else ''}", row=1, col=column)
    figure.update_yaxes(autorange="reversed", showticklabels=False)
    figure.update_xaxes(showticklabels=False)
    figure.update_layout(height=170, margin=dict(l=10, r=10, t=30, b=10))
    return figure


def confusion_figure(cm: vg.Tensor, title: str = "confusion matrix"):
    """A heatmap of ``cm[true, predicted]`` with the counts written in the cells (a static
    ``go.Figure``: only the training chart changes, so only it is a ``FigureWidget``)."""
    import plotly.graph_objects as go

    digits = [str(d) for d in range(10)]
    return go.Figure(
        go.Heatmap(z=cm.tolist(), x=digits, y=digits, colorscale="Blues", texttemplate="%{z}",
                   hovertemplate="true %{y}, predicted %{x}: %{z}<extra></extra>"),
        layout=go.Layout(title=title, height=420, width=460, xaxis=dict(title="predicted"),
                         yaxis=dict(title="true", autorange="reversed")),
    )  # fmt: skip


# --- convolution as windows and a matmul ----------------------------------------------


def windows(image: vg.Tensor, k: int) -> vg.Tensor:
    """Every ``k x k`` window of a 2-D ``image``, as a view: ``windows[i, j]`` is the patch
    whose top-left corner is ``image[i, j]``. Moving to the next window and moving inside one
    take the same steps, the image's own strides: that is why the windows overlap."""
    height, width = image.shape
    row, column = image.stride()
    return image.as_strided((height - k + 1, width - k + 1, k, k), (row, column, row, column),
                            image.storage_offset())  # fmt: skip


# --- exercise 1: the training step ---------------------------------------------------------

_STEP_SAMPLES, _STEP_LR, _STEP_CALLS = 64, 0.5, 4


def _step_setup():
    """A tiny model, a fixed batch of digits and plain SGD: what the step checker trains."""
    vg.manual_seed(SEED)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 10))
    images, labels = train_set().data[:_STEP_SAMPLES], train_set().targets[:_STEP_SAMPLES]
    return model, images, labels, nn.CrossEntropyLoss(), optim.SGD(model.parameters(), _STEP_LR)


def _weights(model) -> list[np.ndarray]:
    return [np.array(p.detach().tolist()) for p in model.parameters()]


def _same_weights(a, b) -> bool:
    return all(np.allclose(x, y, rtol=1e-5, atol=1e-6) for x, y in zip(a, b, strict=True))


def _reference_run(order: str, calls: int) -> list[np.ndarray]:
    """The weights after ``calls`` steps made of ``order``: ``z`` zero_grad, ``b`` backward,
    ``s`` step (``"zbs"`` is the right step; ``"bs"`` forgets zero_grad)."""
    model, images, labels, loss_fn, optimizer = _step_setup()
    for _ in range(calls):
        loss = loss_fn(model(images), labels)
        for action in order:
            {"z": optimizer.zero_grad, "b": loss.backward, "s": optimizer.step}[action]()
    return _weights(model)


@exercise(
    "15.train_step",
    "One line is missing from train_step(model, images, labels, loss_fn, optimizer). Add it "
    "where it belongs; the checker runs your function a few times on a small model and "
    "checks the loss falls and the gradients do not pile up.",
    hints=(
        "backward() does not overwrite p.grad: it adds the new gradient to what is there.",
        "So before the next backward(), the old gradients must go. Which call clears them?",
        "optimizer.zero_grad() — before loss.backward() (or after optimizer.step()).",
    ),
    solution="""
def train_step(model, images, labels, loss_fn, optimizer):
    loss = loss_fn(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()

answer = train_step
check("15.train_step", answer)
""",
    explanation="zero_grad → backward → step: clear last batch's gradients, compute this "
    "batch's, then update the weights with them. Without zero_grad, backward adds each "
    "batch's gradient to the previous ones and every step uses their sum.",
)
def _(answer):
    if not callable(answer):
        raise Wrong(f"answer with the function itself (answer = train_step, without "
                    f"parentheses), not {describe_type(answer)}.")  # fmt: skip
    model, images, labels, loss_fn, optimizer = _step_setup()
    start = _weights(model)
    with vg.no_grad():
        first_loss = loss_fn(model(images), labels).item()
    after = []
    for call in range(_STEP_CALLS):
        try:
            answer(model, images, labels, loss_fn, optimizer)
        except Exception as error:  # noqa: BLE001 - the student's code may raise anything
            raise Wrong(f"calling train_step (call {call + 1}) raised "
                        f"{type(error).__name__}: {error}") from None  # fmt: skip
        after.append(_weights(model))
    if _same_weights(after[-1], start):
        grads = [p.grad for p in model.parameters()]
        if all(g is None or not g.any().item() for g in grads):
            raise Wrong("the weights never changed and no gradient is left: step() found no "
                        "gradients. Is zero_grad() between backward() and step()? It erases "
                        "the gradients before step() can use them.")  # fmt: skip
        raise Wrong("the weights never changed, although backward() left gradients in "
                    "p.grad: optimizer.step() never used them. It has to run after "
                    "loss.backward() (is it called at all?).")  # fmt: skip
    if _same_weights(after[0], start):
        raise Wrong("the first call left the weights unchanged, later calls changed them: "
                    "step() runs before backward(), so each update uses the gradients of the "
                    "previous call (and the first one has none).")  # fmt: skip
    if not _same_weights(after[-1], _reference_run("zbs", _STEP_CALLS)):
        if _same_weights(after[-1], _reference_run("bs", _STEP_CALLS)):
            raise Wrong("the gradients accumulate: backward() adds into p.grad, and nothing "
                        "clears it between calls, so each step uses the sum of all the "
                        "gradients so far. Which call clears them?")  # fmt: skip
        raise Wrong(f"after {_STEP_CALLS} calls your weights differ from those of "
                    "zero_grad → backward → step. Keep the three lines that are there, in "
                    "their order, and add only the missing one.")  # fmt: skip
    with vg.no_grad():
        last_loss = loss_fn(model(images), labels).item()
    if not last_loss < first_loss:
        raise Wrong(f"the loss did not fall ({first_loss:.3f} → {last_loss:.3f}).")


# --- exercise 2: accuracy from logits and labels ------------------------------------------


def accuracy_example(batch: int = 16, wrong: tuple = (2, 7, 11)) -> tuple[vg.Tensor, vg.Tensor]:
    """``(logits, labels)`` for a batch of ``batch`` images: random class scores, with the
    labels of the images numbered in ``wrong`` changed so that those are mistakes."""
    generator = vg.Generator().manual_seed(15 + batch)
    logits = vg.randn(batch, 10, generator=generator)
    labels = logits.argmax(dim=1)
    for i in wrong:
        labels[i] = (labels[i] + 1) % 10
    return logits, labels


def _one_number(result, call: str) -> float:
    got = numbers_of(result)
    if got is None:
        raise Wrong(f"{call} returned {describe_type(result)}; return one number (a float or "
                    "a one-element tensor).")  # fmt: skip
    if got.size != 1:
        raise Wrong(f"{call} returned {got.size} numbers (shape {got.shape}): one per image. "
                    "Accuracy is one number for the batch: the mean of those right/wrong "
                    "values.")  # fmt: skip
    return float(got.reshape(()))


@exercise(
    "15.accuracy",
    "Write accuracy(logits, labels): the fraction of images whose highest-scoring class is "
    "the label. logits has shape (N, 10), labels shape (N,).",
    hints=(
        "The predicted class of each image is the index of its largest logit: argmax over the "
        "class dimension.",
        "predictions == labels gives N booleans; their mean is the accuracy (booleans need "
        ".float() first).",
        "return (logits.argmax(dim=1) == labels).float().mean()",
    ),
    solution="""
def accuracy(logits, labels):
    return (logits.argmax(dim=1) == labels).float().mean()

answer = accuracy
check("15.accuracy", answer)
""",
    explanation="argmax(dim=1) picks each row's class; comparing with the labels gives one "
    "boolean per image and the mean of those is the fraction right. No softmax needed: it "
    "does not change which logit is largest.",
)
def _(answer):
    if not callable(answer):
        raise Wrong(f"answer with the function itself (answer = accuracy, without "
                    f"parentheses), not {describe_type(answer)}.")  # fmt: skip
    for batch, wrong in ((16, (2, 7, 11)), (5, (0,))):
        logits, labels = accuracy_example(batch, wrong)
        expected = (logits.argmax(dim=1) == labels).float().mean().item()
        call = f"accuracy(logits, labels) for a batch of {batch}"
        try:
            result = answer(logits, labels)
        except Exception as error:  # noqa: BLE001 - the student's code may raise anything
            advice = (" One prediction per image means the argmax over the 10 class scores of "
                      "each row: dim=1." if "must match the size" in str(error) else "")  # fmt: skip
            raise Wrong(f"{call} (logits of shape {tuple(logits.shape)}) raised "
                        f"{type(error).__name__}: {error}.{advice}") from None  # fmt: skip
        got = _one_number(result, call)
        if math.isclose(got, expected, abs_tol=1e-6):
            continue
        correct = round(expected * batch)
        if math.isclose(got, correct) and correct != 1:
            raise Wrong(f"{call} gives {got:g}: that is how many are right. Divide by the "
                        "number of images to get a fraction.")  # fmt: skip
        if math.isclose(got, 100 * expected, abs_tol=1e-4):
            raise Wrong(f"{call} gives {got:g}, a percentage; return a fraction between 0 "
                        "and 1.")  # fmt: skip
        if math.isclose(got, 1 - expected, abs_tol=1e-6):
            raise Wrong(f"{call} gives {got:g}: that is the fraction the model gets wrong "
                        "(the error rate), not the fraction it gets right.")  # fmt: skip
        if batch != 16:
            raise Wrong(f"your function is right for the batch of 16 but gives {got:g} for a "
                        "batch of 5: divide by the size of the batch (len(labels)), not a "
                        "fixed number.")  # fmt: skip
        raise Wrong(f"{call} gives {got:g}; compare each image's predicted class (the argmax "
                    "of its logits) with its label, and take the fraction that match.")  # fmt: skip


# --- exercise 3: which digit is most confused with which -------------------------------------


@lru_cache(maxsize=1)
def _lesson_confusion_matrix() -> vg.Tensor:
    """The held-out confusion matrix of the MLP trained exactly as the notebook trains it."""
    model = make_mlp()
    train(model, optim.Adam(model.parameters(), lr=MLP_LR), MLP_EPOCHS,
          batch_size=MLP_BATCH_SIZE, live=False)  # fmt: skip
    return confusion_matrix(model)


def most_confused(cm: vg.Tensor) -> list[tuple[int, int]]:
    """The ``(true, predicted)`` cells off the diagonal holding the largest count."""
    off_diagonal = cm * (1 - vg.eye(10, dtype=cm.dtype))
    largest = off_diagonal.max().item()
    return [(t, p) for t in range(10) for p in range(10) if t != p and cm[t, p].item() == largest]


def _digit_pair(answer) -> tuple[int, int]:
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong(f"answer with two digits, (true, predicted), not {describe_type(answer)}.")
    pair = []
    for position, value in zip(("true", "predicted"), answer, strict=True):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or not (
                0 <= value <= 9):  # fmt: skip
            raise Wrong(f"the {position} digit is {value!r}; use a whole number from 0 to 9.")
        pair.append(int(value))
    return pair[0], pair[1]


@exercise(
    "15.most_confused",
    "In the MLP's held-out confusion matrix, which mistake is the most frequent? Answer "
    "(true digit, predicted digit).",
    hints=(
        "The diagonal holds the images the model got right; look only off the diagonal.",
        "Row = the true digit, column = what the model said.",
        "Find the largest number off the diagonal and read its row, then its column.",
    ),
    solution="""
off_diagonal = cm * (1 - vg.eye(10, dtype=cm.dtype))     # the mistakes only
true, predicted = divmod(off_diagonal.argmax().item(), 10)
answer = (true, predicted)
check("15.most_confused", answer)
""",
    explanation="cm[true, predicted] counts the images of digit `true` called `predicted`; "
    "the largest count off the diagonal is the model's most frequent mistake.",
)
def _(answer):
    true, predicted = _digit_pair(answer)
    cm = _lesson_confusion_matrix()
    best = most_confused(cm)
    if (true, predicted) in best:
        return
    if true == predicted:
        raise Wrong(f"({true}, {predicted}) is on the diagonal: those {cm[true, true].item()} "
                    f"images of {true} were classified correctly. Mistakes are off the "
                    "diagonal.")  # fmt: skip
    if (predicted, true) in best:
        raise Wrong(f"you read the matrix transposed: rows are the true digits and columns "
                    f"the predictions, so this cell is (true {predicted}, predicted {true}).")  # fmt: skip
    count = cm[true, predicted].item()
    raise Wrong(f"cm[{true}, {predicted}] = {count}: {count} images of {true} were called "
                f"{predicted}, but another cell off the diagonal holds more.")  # fmt: skip


# --- exercise 4: what a checkpoint needs ----------------------------------------------------

CHECKPOINT_CANDIDATES = {
    "model": "model.state_dict(): every weight and bias",
    "optimizer": "optimizer.state_dict(): Adam's running averages, its step count, its "
    "hyper-parameters",
    "epoch": "how many epochs are done",
    "lr": "the learning rate",
    "grads": "every parameter's .grad",
    "architecture": "print(model), the text describing the layers",
    "accuracy": "the last held-out accuracy",
}
_NEEDED = ("model", "optimizer", "epoch")
_WHY_NEEDED = {
    "model": "without the weights there is nothing to resume: training would start from "
    "random ones",
    "optimizer": "Adam keeps two running averages and a step count per parameter; without "
    "them the resumed run restarts them from zero and takes different (bigger) steps than "
    "the uninterrupted run",
    "epoch": "without it you do not know where to continue: how many epochs are left, and "
    "where the chart (and any learning-rate schedule) stands",
}
_WHY_NOT_NEEDED = {
    "lr": "the learning rate is already inside optimizer.state_dict()['param_groups']",
    "grads": "each step begins with zero_grad(), so the last batch's gradients are never used "
    "again",
    "architecture": "a state_dict is loaded into a model built by your code; the layers are in "
    "the code, not the file (which is why weights_only=True can load it safely)",
    "accuracy": "worth logging, but training never reads it",
}


@exercise(
    "15.checkpoint_keys",
    "Which of the candidate entries must a checkpoint hold to resume training exactly where "
    "it stopped? Answer a set of their names (nothing more than needed).",
    hints=(
        "Resuming means: the same weights, the optimizer in the same state, and knowing where "
        "you are.",
        "Adam is not stateless: it keeps running averages per parameter.",
        "An entry that can be rebuilt from the others (or that training never reads) is not "
        "needed.",
    ),
    solution="""
answer = {"model", "optimizer", "epoch"}
check("15.checkpoint_keys", answer)
""",
    explanation="The weights (model.state_dict()), the optimizer's state (its moments, step "
    "count and hyper-parameters, learning rate included) and the epoch. The architecture is "
    "your code; gradients are cleared every step.",
)
def _(answer):
    if isinstance(answer, str) or not isinstance(answer, set | frozenset | list | tuple | dict):
        raise Wrong(f"answer with a set of names such as {{'model', ...}}, not "
                    f"{describe_type(answer)}.")  # fmt: skip
    names = list(answer)
    for name in names:
        if not isinstance(name, str):
            raise Wrong(f"{name!r} is not a name: use the candidates' names as strings.")
        if name not in CHECKPOINT_CANDIDATES:
            raise Wrong(f"{name!r} is not one of the candidates "
                        f"({', '.join(CHECKPOINT_CANDIDATES)}).")  # fmt: skip
    for name in _NEEDED:
        if name not in names:
            raise Wrong(f"{name!r} is missing: {_WHY_NEEDED[name]}.")
    for name in CHECKPOINT_CANDIDATES:
        if name in names and name not in _NEEDED:
            raise Wrong(f"{name!r} is not needed: {_WHY_NOT_NEEDED[name]}.")


# --- exercise 5: the window view's size and strides -------------------------------------


def window_exercise_image() -> vg.Tensor:
    """A 6 x 5 image that is a column slice of a 6 x 8 storage: rows 8 elements apart."""
    return vg.arange(48.0).reshape(6, 8)[:, 1:6]


def _size_and_stride(answer) -> tuple[tuple, tuple]:
    if isinstance(answer, vg.Tensor):
        return tuple(answer.shape), tuple(answer.stride())
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong(f"answer with two tuples, (size, stride), not {describe_type(answer)}.")
    result = []
    for what, value in zip(("size", "stride"), answer, strict=True):
        if not isinstance(value, list | tuple) or not all(
                isinstance(v, int | np.integer) and not isinstance(v, bool) for v in value):  # fmt: skip
            raise Wrong(f"the {what} should be a tuple of whole numbers, not {value!r}.")
        if len(value) != 4:
            raise Wrong(f"the {what} has {len(value)} entries; the window view has 4 "
                        "dimensions: window row, window column, row inside the window, column "
                        "inside the window.")  # fmt: skip
        result.append(tuple(int(v) for v in value))
    return result[0], result[1]


@exercise(
    "15.window_view",
    "image = L.window_exercise_image() is 6 x 5, a column slice of a 6 x 8 storage. Predict "
    "the size and the stride of the view holding every 3 x 3 window of it, windows[i, j] "
    "being the window whose top-left corner is image[i, j]. Answer (size, stride).",
    hints=(
        "A 3-row window can start at rows 0, 1, … as long as 3 rows fit below.",
        "Print image.stride(): the rows of this image are not 5 elements apart.",
        "Going to the next window and going one step inside a window take the same steps "
        "through storage.",
    ),
    solution="""
image = L.window_exercise_image()
answer = ((4, 3, 3, 3), (8, 1, 8, 1))
check("15.window_view", answer)
""",
    explanation="4 x 3 windows of 3 x 3. Both pairs of strides are the image's own, (8, 1): "
    "the next window starts one row (8 elements) or one column (1) later, exactly like the "
    "next pixel inside a window. That is why neighbouring windows share pixels.",
)
def _(answer):
    size, stride = _size_and_stride(answer)
    image = window_exercise_image()
    expected = windows(image, 3)
    height, width = image.shape
    row, column = image.stride()
    why_size = (
        f"a window of 3 rows can start at rows 0 to {height - 3} of the {height}: "
        "height - 3 + 1 of them",
        f"a window of 3 columns can start at columns 0 to {width - 3} of the {width}",
        "dims 2 and 3 are the rows and columns inside one 3 x 3 window",
        "dims 2 and 3 are the rows and columns inside one 3 x 3 window",
    )
    for d, (got, want) in enumerate(zip(size, expected.shape, strict=True)):
        if got != want:
            raise Wrong(f"size element {d} ({got}) is wrong: {why_size[d]}.")
    for d, (got, want) in enumerate(zip(stride, expected.stride(), strict=True)):
        if got == want:
            continue
        place = ("the next window down", "the next window to the right",
                 "one row down inside a window", "one column right inside a window")[d]  # fmt: skip
        step = "one row" if d % 2 == 0 else "one column"
        if d % 2 == 0 and got == width:
            raise Wrong(f"stride element {d} ({got}) is the image's width; but the image is a "
                        f"slice of a wider storage, so one row down is image.stride(0) = "
                        f"{row} elements of storage, not {width}.")  # fmt: skip
        raise Wrong(f"stride element {d} ({got}) is wrong: {place} is {step} of the image "
                    f"further, so it steps image.stride({d % 2}) elements of storage.")  # fmt: skip
