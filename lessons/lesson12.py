"""Lesson 12 — losses: the regression losses (MSE, L1, SmoothL1, Huber), cross entropy as
``log_softmax`` then ``nll_loss``, label smoothing, BCE and BCE with logits, KL divergence
and the margin losses; each one's formula, its gradient, and when to use it.

The inputs of the notebook are the constants below; every checker asks the engine (the
loss in ``vizgrad.nn.functional`` and autograd) for the expected answer.
"""

from __future__ import annotations

import math

import numpy as np

import vizgrad as vg
import vizgrad.nn.functional as F

from .exercise import Wrong, exercise
from .lesson07 import numbers_of

__all__ = ["REG_INPUT", "REG_TARGET", "LOGITS", "TARGETS", "SMOOTHING", "SMOOTH_TARGET",
           "N_CLASSES", "LARGE_LOGIT", "LOSS_CHOICES", "TASKS", "regression_curves",
           "regression_figure", "compare"]  # fmt: skip

# Regression: predictions and targets (the errors are 0.5, 0 and 3).
REG_INPUT = [1.5, 2.0, 4.0]
REG_TARGET = [1.0, 2.0, 1.0]

# Classification: 3 samples, 4 classes.
LOGITS = [[2.0, 1.0, 0.1, -1.0], [0.5, 2.5, 0.3, 0.0], [-0.3, 0.2, 0.1, 1.5]]
TARGETS = [2, 0, 3]

# Label smoothing: one sample whose class is SMOOTH_TARGET of N_CLASSES.
SMOOTHING = 0.1
N_CLASSES = 4
SMOOTH_TARGET = 2

# Binary cross entropy: a logit so large that sigmoid rounds to 1 in float32.
LARGE_LOGIT = 150.0


def _same(got: np.ndarray, expected: np.ndarray) -> bool:
    # Loose enough for answers typed with three or four decimals (0.333 for 1/3).
    return got.shape == expected.shape and np.allclose(got, expected, rtol=1e-3, atol=5e-4)


def compare(name: str, autograd_grad, formula_grad) -> None:
    """Print the gradient autograd computed next to the one the formula gives."""
    same = vg.allclose(autograd_grad, formula_grad, rtol=1e-5, atol=1e-6)
    shown = [np.array2string(np.asarray(g.tolist()), precision=4, suppress_small=True,
                             separator=", ").replace("\n", "\n" + " " * 12)
             for g in (autograd_grad, formula_grad)]  # fmt: skip
    print(f"{name}:\n  autograd: {shown[0]}\n  formula:  {shown[1]}\n  equal: {same}")


# --- the regression losses, as curves -----------------------------------------------------

_REGRESSION = {
    "MSE": lambda e, z: F.mse_loss(e, z, reduction="none"),
    "L1": lambda e, z: F.l1_loss(e, z, reduction="none"),
    "Huber δ=1 (= SmoothL1 β=1)": lambda e, z: F.huber_loss(e, z, reduction="none", delta=1.0),
    "SmoothL1 β=2": lambda e, z: F.smooth_l1_loss(e, z, reduction="none", beta=2.0),
    "Huber δ=2": lambda e, z: F.huber_loss(e, z, reduction="none", delta=2.0),
}


def regression_curves(errors) -> dict:
    """``{loss name: (values, gradients)}`` of each regression loss at each error
    ``input - target`` (target 0), the gradient with respect to the input, by autograd."""
    curves = {}
    for name, loss_fn in _REGRESSION.items():
        e = vg.tensor(errors, dtype=vg.float64, requires_grad=True)
        values = loss_fn(e, vg.zeros_like(e))
        # Each element's loss depends only on its own input: the gradient of the sum holds
        # the derivative of every element's loss.
        values.sum().backward()
        curves[name] = (values.detach().tolist(), e.grad.tolist())
    return curves


def regression_figure(low: float = -3.0, high: float = 3.0):
    """A plotly figure: the regression losses (left) and their gradients (right) against
    the error."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    errors = np.linspace(low, high, 241).tolist()
    figure = make_subplots(rows=1, cols=2, subplot_titles=("loss", "d loss / d input"))
    colours = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")
    for (name, (values, grads)), colour in zip(regression_curves(errors).items(), colours,
                                               strict=True):  # fmt: skip
        figure.add_trace(go.Scatter(x=errors, y=values, name=name, legendgroup=name,
                                    line={"color": colour}), row=1, col=1)  # fmt: skip
        figure.add_trace(go.Scatter(x=errors, y=grads, name=name, legendgroup=name,
                                    showlegend=False, line={"color": colour}), row=1, col=2)  # fmt: skip
    figure.update_xaxes(title_text="error = input - target")
    figure.update_yaxes(range=[0, 5], row=1, col=1)
    figure.update_layout(height=380, margin={"t": 40, "b": 40})
    return figure


def _number(answer, what: str = "one number") -> float:
    got = numbers_of(answer)
    if got is None or got.size != 1:
        raise Wrong(f"answer with {what} (a Python float or a one-element tensor).")
    return float(got.reshape(()))


def _vector(answer, n: int, what: str) -> np.ndarray:
    got = numbers_of(answer)
    if got is None:
        raise Wrong(f"answer with {what}: a tensor or a list of {n} numbers, not a "
                    f"{type(answer).__name__}.")  # fmt: skip
    got = got.reshape(-1)
    if got.size != n:
        raise Wrong(f"answer with {n} numbers ({what}); you gave {got.size}.")
    return got


# --- exercise 1: the gradient of MSE -------------------------------------------------------


def _mse_gradient():
    x = vg.tensor(REG_INPUT, requires_grad=True)
    F.mse_loss(x, vg.tensor(REG_TARGET)).backward()
    return numbers_of(x.grad)


@exercise(
    "12.mse_grad",
    f"x = {REG_INPUT}, y = {REG_TARGET}. Predict the gradient of F.mse_loss(x, y) (reduction "
    "'mean') with respect to x.",
    hints=(
        "mse_loss = (1/n) Σ (x_i - y_i)². Differentiate one term with respect to x_i.",
        "d/dx_i = 2 (x_i - y_i) / n: the 1/n of the mean stays.",
        "The errors are 0.5, 0 and 3, and n = 3.",
    ),
    solution="""
answer = [2 * 0.5 / 3, 0.0, 2 * 3.0 / 3]     # 2 (x - y) / n
check("12.mse_grad", answer)
""",
    explanation="d/dx mean((x - y)²) = 2 (x - y) / n: proportional to the error, so a large "
    "error (here 3) pulls hardest — which is also why MSE is sensitive to outliers.",
)
def _(answer):
    got = _vector(answer, len(REG_INPUT), "the gradient, one number per element of x")
    expected = _mse_gradient()
    if _same(got, expected):
        return
    n = len(REG_INPUT)
    if _same(got, expected * n):
        raise Wrong("that is the gradient of the sum: reduction='mean' divides by the number "
                    f"of elements, n = {n}, and so does the gradient.")  # fmt: skip
    if _same(got, expected / 2):
        raise Wrong("the factor 2 is missing: the derivative of (x - y)² is 2 (x - y).")
    if _same(got, -expected):
        raise Wrong("the sign is flipped: the loss grows when x moves away from y, so the "
                    "gradient with respect to x has the sign of x - y.")  # fmt: skip
    raise Wrong("not the gradient of mean((x - y)²); differentiate one term (x_i - y_i)² / n "
                "with respect to x_i.")  # fmt: skip


# --- exercise 2: cross entropy by hand -------------------------------------------------------


def _cross_entropy_variants() -> dict:
    logits, targets = vg.tensor(LOGITS), vg.tensor(TARGETS)
    rows = vg.arange(len(TARGETS))
    log_probs = F.log_softmax(logits, dim=1)
    return {
        "right": F.cross_entropy(logits, targets).item(),
        "sum": F.cross_entropy(logits, targets, reduction="sum").item(),
        "softmax": F.nll_loss(F.softmax(logits, dim=1), targets).item(),
        "dim0": F.nll_loss(F.log_softmax(logits, dim=0), targets).item(),
        "no_log_softmax": F.nll_loss(logits, targets).item(),
        "all_classes": -log_probs.mean().item(),
        "picked_sum": log_probs[rows, targets].sum().item(),
    }


@exercise(
    "12.cross_entropy",
    "Compute the cross entropy of L.LOGITS for the classes L.TARGETS from log_softmax (and "
    "nll_loss or indexing), without F.cross_entropy.",
    hints=(
        "log_probs = F.log_softmax(logits, dim=1): one row of log-probabilities per sample.",
        "nll_loss picks, in each row, the log-probability of the target class, negates it and "
        "averages over the samples.",
        "F.nll_loss(log_probs, targets), or -log_probs[vg.arange(3), targets].mean().",
    ),
    solution="""
logits, targets = vg.tensor(L.LOGITS), vg.tensor(L.TARGETS)
log_probs = F.log_softmax(logits, dim=1)
answer = -log_probs[vg.arange(3), targets].mean()    # = F.nll_loss(log_probs, targets)
check("12.cross_entropy", answer)
""",
    explanation="cross_entropy(logits, t) = nll_loss(log_softmax(logits, dim=1), t) = "
    "-mean_i log softmax(logits_i)[t_i]; F.cross_entropy computes exactly these two steps.",
)
def _(answer):
    got = _number(answer, "the loss, one number")
    v = _cross_entropy_variants()
    close = lambda a, b: math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)  # noqa: E731
    if close(got, v["right"]):
        return
    if close(got, -v["right"]):
        raise Wrong("the sign is off: nll_loss is the NEGATIVE log-likelihood; log-probabilities "
                    "are ≤ 0, so the loss is ≥ 0.")  # fmt: skip
    if close(got, v["sum"]) or close(got, -v["picked_sum"]):
        raise Wrong("that is the sum over the samples; the default reduction='mean' divides by "
                    "the number of samples.")  # fmt: skip
    if close(got, v["softmax"]):
        raise Wrong("that is nll_loss of softmax (probabilities): nll_loss expects "
                    "LOG-probabilities, so use log_softmax.")  # fmt: skip
    if close(got, v["no_log_softmax"]):
        raise Wrong("that is nll_loss of the raw logits: they must go through log_softmax first "
                    "(nll_loss itself only picks and negates).")  # fmt: skip
    if close(got, v["dim0"]):
        raise Wrong("that is log_softmax over dim=0 (across samples); each sample's classes are "
                    "along dim=1.")  # fmt: skip
    if close(got, v["all_classes"]):
        raise Wrong("that averages the log-probabilities of every class; only the target "
                    "class of each sample counts.")  # fmt: skip
    raise Wrong(f"{got:.4f} is not the cross entropy; pick, in each row of log_softmax(logits, "
                "dim=1), the target class, negate and average.")  # fmt: skip


# --- exercise 3: label smoothing ---------------------------------------------------------------


def smoothed_target(logits=None) -> np.ndarray:
    """The target distribution ``cross_entropy(..., label_smoothing=SMOOTHING)`` uses, read
    from autograd: the gradient of cross entropy with respect to the logits (one sample) is
    ``softmax(logits) - q``, so ``q = softmax(logits) - grad``."""
    logits = vg.tensor(logits or [[1.0, 2.0, 0.5, -1.0]], requires_grad=True)
    loss = F.cross_entropy(logits, vg.tensor([SMOOTH_TARGET]), label_smoothing=SMOOTHING)
    loss.backward()
    return numbers_of(logits.softmax(dim=1) - logits.grad).reshape(-1)


@exercise(
    "12.label_smoothing",
    f"With label_smoothing={SMOOTHING}, cross entropy compares the predicted distribution with "
    f"a smoothed target instead of a one-hot one. For {N_CLASSES} classes and target class "
    f"{SMOOTH_TARGET}, what is that target distribution?",
    hints=(
        "label_smoothing = ε takes ε of the probability away from the target class and spreads "
        "it uniformly over the classes.",
        "PyTorch spreads it over ALL C classes, the target class included: each class gets ε / C.",
        "q = (1 - ε) · one_hot + ε / C.",
    ),
    solution="""
eps, C = 0.1, 4
answer = [eps / C, eps / C, 1 - eps + eps / C, eps / C]
check("12.label_smoothing", answer)
""",
    explanation="q = (1 - ε) one_hot + ε / C: the target keeps 1 - ε + ε/C = 0.925 and every "
    "other class gets 0.025. The model is no longer pushed towards infinite logits.",
)
def _(answer):
    got = _vector(answer, N_CLASSES, "the target distribution, one probability per class")
    expected = smoothed_target()
    if _same(got, expected):
        return
    eps, c = SMOOTHING, N_CLASSES
    one_hot = np.eye(c)[SMOOTH_TARGET]
    if _same(got, one_hot):
        raise Wrong("that is the one-hot target, without smoothing.")
    if _same(got, (1 - eps) * one_hot + eps / (c - 1) * (1 - one_hot)):
        raise Wrong(f"that spreads ε over the other C - 1 = {c - 1} classes; PyTorch spreads it "
                    "uniformly over all C classes, the target class included.")  # fmt: skip
    if _same(got, (1 - eps) * one_hot + eps / c * (1 - one_hot)):
        raise Wrong("the other classes are right, but then the probabilities do not sum to 1: "
                    "the target class also gets its share ε / C of the uniform part.")  # fmt: skip
    if not math.isclose(got.sum(), 1.0, abs_tol=2e-3):
        raise Wrong(f"your numbers sum to {got.sum():.4f}: a target distribution sums to 1.")
    raise Wrong("not the smoothed target; it mixes the one-hot target (weight 1 - ε) with the "
                "uniform distribution (weight ε).")  # fmt: skip


# --- exercise 4: BCE with logits on a large logit -----------------------------------------------


@exercise(
    "12.bce_large_logit",
    f"The model outputs the logit x = {LARGE_LOGIT:g} for a sample whose label is y = 0. "
    "Compute the binary cross entropy of sigmoid(x) against y, with a formula that does not "
    "overflow.",
    hints=(
        "sigmoid(150) rounds to 1.0 in float32, so log(1 - sigmoid(x)) is log(0) = -inf.",
        "In terms of the logit: loss = max(x, 0) - x·y + log(1 + exp(-|x|)).",
        "F.binary_cross_entropy_with_logits computes that stable form.",
    ),
    solution="""
x, y = vg.tensor(150.0), vg.tensor(0.0)
answer = x.clamp(min=0) - x * y + (-x.abs()).exp().log1p()   # = F.binary_cross_entropy_with_logits(x, y)
check("12.bce_large_logit", answer)
""",
    explanation="With y = 0 the loss is -log(1 - sigmoid(x)) = log(1 + eˣ) ≈ x = 150: the "
    "model is very confidently wrong. Only the logit form can say so; from sigmoid(x) = 1.0 "
    "the information is gone.",
)
def _(answer):
    got = _number(answer, "the loss, one number")
    x, y = vg.tensor(LARGE_LOGIT), vg.tensor(0.0)
    expected = F.binary_cross_entropy_with_logits(x, y).item()
    if math.isclose(got, expected, rel_tol=1e-4):
        return
    if math.isinf(got) or math.isnan(got):
        raise Wrong(f"{got} is what the naive formula gives: sigmoid({LARGE_LOGIT:g}) rounds to "
                    "1.0, and log(1 - 1.0) = log(0) = -inf. Write the loss in terms of the logit "
                    "x instead.")  # fmt: skip
    clamped = F.binary_cross_entropy(x.sigmoid(), y).item()
    if math.isclose(got, clamped, rel_tol=1e-4):
        raise Wrong(f"{got:g} is F.binary_cross_entropy(sigmoid(x), y): PyTorch clamps its "
                    "logarithms at -100 to avoid the infinity, so the answer is cut off at 100. "
                    "The logit form has no such limit.")  # fmt: skip
    if math.isclose(got, -expected, rel_tol=1e-4):
        raise Wrong("the sign is off: binary cross entropy is a negative log-likelihood, ≥ 0.")
    if abs(got) < 1e-3:
        raise Wrong("≈ 0 would be the loss for the label y = 1 (a confident, right answer); "
                    "here y = 0 and the model is confidently wrong.")  # fmt: skip
    raise Wrong(f"{got:g} is not the loss; with y = 0 it is -log(1 - sigmoid(x)) = "
                "log(1 + exp(x)), computed without overflowing.")  # fmt: skip


# --- exercise 5: pick the loss ---------------------------------------------------------------

LOSS_CHOICES = ("mse", "l1", "huber", "cross_entropy", "bce", "bce_with_logits", "kl_div",
                "hinge_embedding", "margin_ranking", "triplet_margin")  # fmt: skip

TASKS = {
    "prices": "Predict house prices from features; a few prices in the data are wrong by a lot, "
    "and you want a loss that is smooth near zero error.",
    "digits": "Classify 8x8 digit images into 10 classes; the model outputs 10 raw scores.",
    "tags": "Tag photos with any number of 5 labels (beach, dog, ...); the model outputs 5 raw "
    "scores.",
    "distill": "Train a small model to match a big model's predicted class probabilities; the "
    "small model outputs log-probabilities.",
    "faces": "Learn face embeddings so that two photos of one person are closer than photos of "
    "two people; you have (anchor, same person, other person) triples.",
}

_RIGHT = {
    "prices": {"huber", "smooth_l1"},
    "digits": {"cross_entropy"},
    "tags": {"bce_with_logits"},
    "distill": {"kl_div"},
    "faces": {"triplet_margin"},
}

# Why a choice does not fit a task; the default reason is the loss's own purpose below.
_WHY_NOT = {
    ("prices", "mse"): "MSE squares the errors: the few huge ones dominate the loss and the "
    "gradient",
    ("prices", "l1"): "L1 is robust to the outliers, but its gradient jumps from -1 to +1 at "
    "zero error: it is not smooth there",
    ("digits", "bce_with_logits"): "the 10 classes exclude each other (one label per image): "
    "binary losses treat each class as an independent yes/no",
    ("digits", "bce"): "the 10 classes exclude each other, and the model outputs raw scores, "
    "not probabilities",
    ("digits", "kl_div"): "kl_div needs log-probabilities and a target distribution; with one "
    "class index per image, the loss made for that takes the raw scores directly",
    ("tags", "cross_entropy"): "cross entropy's softmax makes the 5 labels compete (their "
    "probabilities sum to 1), but a photo can have several labels at once",
    ("tags", "bce"): "binary cross entropy fits the labels, but it expects probabilities, and "
    "the model outputs raw scores: applying sigmoid first is less stable than the form that "
    "takes the scores",
    ("distill", "cross_entropy"): "the target is a distribution (soft labels) and the input is "
    "log-probabilities; cross entropy would apply log_softmax again to what are already "
    "log-probabilities. The loss that compares two distributions directly fits better",
    ("distill", "mse"): "MSE on probabilities ignores that they are distributions and gives "
    "weak gradients for small probabilities",
    ("faces", "margin_ranking"): "margin_ranking compares two scores per pair, not distances "
    "between embeddings of a triple",
    ("faces", "hinge_embedding"): "hinge_embedding works on a given distance of one pair "
    "(similar or not); with triples, one loss uses both pairs at once",
}

_PURPOSE = {
    "mse": "MSE is for regression with well-behaved errors",
    "l1": "L1 is for regression where the median matters more than the mean",
    "huber": "Huber is for regression with outliers",
    "smooth_l1": "SmoothL1 is for regression with outliers",
    "cross_entropy": "cross entropy is for one class out of several exclusive classes",
    "bce": "binary cross entropy takes probabilities, for yes/no labels",
    "bce_with_logits": "BCE with logits is for independent yes/no labels",
    "kl_div": "kl_div compares two probability distributions",
    "hinge_embedding": "hinge_embedding is for pairs labelled similar/dissimilar by a distance",
    "margin_ranking": "margin_ranking is for ordering two scores",
    "triplet_margin": "triplet_margin is for embeddings learnt from triples",
}

_SPELLINGS = {
    "mse_loss": "mse", "mseloss": "mse", "l1_loss": "l1", "l1loss": "l1",
    "huber_loss": "huber", "huberloss": "huber", "smooth_l1_loss": "smooth_l1",
    "smoothl1loss": "smooth_l1", "crossentropyloss": "cross_entropy",
    "binary_cross_entropy": "bce", "bceloss": "bce",
    "binary_cross_entropy_with_logits": "bce_with_logits", "bcewithlogitsloss": "bce_with_logits",
    "kldivloss": "kl_div", "hinge_embedding_loss": "hinge_embedding",
    "hingeembeddingloss": "hinge_embedding", "margin_ranking_loss": "margin_ranking",
    "marginrankingloss": "margin_ranking", "triplet_margin_loss": "triplet_margin",
    "tripletmarginloss": "triplet_margin",
}  # fmt: skip


def _loss_name(choice) -> str | None:
    """A choice as one of LOSS_CHOICES (or smooth_l1): a name, an F function or a loss class."""
    if callable(choice) and hasattr(choice, "__name__"):
        choice = choice.__name__
    if not isinstance(choice, str):
        return None
    name = choice.strip().lower().replace("nn.", "").replace("f.", "")
    name = _SPELLINGS.get(name, name)
    return name if name in _PURPOSE else None


@exercise(
    "12.pick_loss",
    "For each task in L.TASKS, pick the loss (one of L.LOSS_CHOICES). Answer with a dict "
    "{task: loss}.",
    hints=(
        "First ask: regression, classification, distributions or distances? Then: are the "
        "classes exclusive, and does the model output raw scores or probabilities?",
        "Exclusive classes: softmax-based; independent labels: one sigmoid per label.",
        "Soft targets given as probabilities against log-probabilities: a divergence. "
        "Triples of embeddings: a margin between two distances.",
    ),
    solution="""
answer = {"prices": "huber", "digits": "cross_entropy", "tags": "bce_with_logits",
          "distill": "kl_div", "faces": "triplet_margin"}
check("12.pick_loss", answer)
""",
    explanation="Huber: quadratic near 0, linear for outliers. Cross entropy: exclusive classes "
    "from raw scores. BCE with logits: independent labels, stable from raw scores. kl_div: "
    "log-probabilities against a target distribution. Triplet margin: d(a, p) + margin < d(a, n).",
)
def _(answer):
    if not isinstance(answer, dict):
        raise Wrong("answer with a dict {task: loss}, e.g. {'prices': 'mse', ...}.")
    for task in TASKS:
        if task not in answer:
            raise Wrong(f"your dict has no entry for {task!r}: give one loss for each of the "
                        f"tasks {', '.join(TASKS)}.")  # fmt: skip
        choice = _loss_name(answer[task])
        if choice is None:
            raise Wrong(f"{task}: {answer[task]!r} is not one of {', '.join(LOSS_CHOICES)}.")
        if choice not in _RIGHT[task]:
            reason = _WHY_NOT.get((task, choice), f"{_PURPOSE[choice]}, which is not this task")
            raise Wrong(f"{task}: not {choice}. {reason[0].upper()}{reason[1:]}.")
