"""Lesson 12's checkers: right answers pass (among them torch.nn.functional's answers on the
same inputs), typical mistakes are explained, bad types get a clear message; the notebook's
helpers agree with torch."""

import math

import pytest
import torch
import torch.nn.functional as TF
from lesson_feedback import assert_wrong as _wrong
from vizgrad.lessons import check
from vizgrad.lessons import lesson12 as L

import vizgrad as vg

# --- 12.mse_grad -------------------------------------------------------------------------


def _torch_mse_grad():
    x = torch.tensor(L.REG_INPUT, requires_grad=True)
    TF.mse_loss(x, torch.tensor(L.REG_TARGET)).backward()
    return x.grad


def test_mse_grad_right_as_torch_says():
    grad = _torch_mse_grad()
    assert check("12.mse_grad", grad).correct
    assert check("12.mse_grad", grad.tolist()).correct
    assert check("12.mse_grad", tuple(grad.tolist())).correct
    assert check("12.mse_grad", vg.tensor(grad.tolist())).correct
    assert check("12.mse_grad", [0.333, 0, 2]).correct  # typed with three decimals


@pytest.mark.parametrize("factor, says", [
    (3.0, ["gradient of the sum", "n = 3"]),
    (0.5, ["factor 2 is missing"]),
    (-1.0, ["sign is flipped"]),
    (0.9, ["not the gradient"]),
])  # fmt: skip
def test_mse_grad_mistakes(factor, says):
    _wrong("12.mse_grad", (_torch_mse_grad() * factor).tolist(), *says)


def test_mse_grad_bad_types():
    _wrong("12.mse_grad", "2(x-y)/n", "list of 3 numbers", "not a str")
    _wrong("12.mse_grad", [1.0, 2.0], "3 numbers", "you gave 2")


# --- 12.cross_entropy --------------------------------------------------------------------


def _torch_logits():
    return torch.tensor(L.LOGITS), torch.tensor(L.TARGETS)


def test_cross_entropy_right_as_torch_says():
    logits, targets = _torch_logits()
    log_probs = TF.log_softmax(logits, dim=1)
    assert check("12.cross_entropy", TF.nll_loss(log_probs, targets)).correct
    assert check("12.cross_entropy", -log_probs[torch.arange(3), targets].mean()).correct
    assert check("12.cross_entropy", TF.cross_entropy(logits, targets).item()).correct


def test_cross_entropy_mistakes():
    logits, targets = _torch_logits()
    log_probs = TF.log_softmax(logits, dim=1)
    right = TF.cross_entropy(logits, targets).item()
    _wrong("12.cross_entropy", -right, "sign is off")
    _wrong("12.cross_entropy", TF.cross_entropy(logits, targets, reduction="sum"), "sum over the")
    _wrong("12.cross_entropy", TF.nll_loss(TF.softmax(logits, dim=1), targets),
           "nll_loss of softmax", "log_softmax")  # fmt: skip
    _wrong("12.cross_entropy", TF.nll_loss(logits, targets), "raw logits")
    _wrong("12.cross_entropy", TF.nll_loss(TF.log_softmax(logits, dim=0), targets), "dim=0")
    _wrong("12.cross_entropy", -log_probs.mean(), "every class")
    _wrong("12.cross_entropy", 1.0, "1.0000 is not the cross entropy")
    _wrong("12.cross_entropy", "1.7", "one number")
    _wrong("12.cross_entropy", log_probs, "one number")


# --- 12.label_smoothing -------------------------------------------------------------------


def _torch_smoothed_target():
    """q from torch: the gradient of the smoothed loss is softmax(z) - q."""
    z = torch.tensor([[0.3, -1.0, 2.0, 0.7]], requires_grad=True)
    target = torch.tensor([L.SMOOTH_TARGET])
    TF.cross_entropy(z, target, label_smoothing=L.SMOOTHING).backward()
    return (z.softmax(dim=1) - z.grad).detach().reshape(-1)


def test_label_smoothing_right_as_torch_says():
    q = _torch_smoothed_target()
    assert check("12.label_smoothing", q).correct
    assert check("12.label_smoothing", [[v] for v in q.tolist()]).correct
    # The smoothed loss is the cross entropy with q as a probability target.
    z = torch.tensor([[1.0, 2.0, 0.5, -1.0]])
    smoothed = TF.cross_entropy(z, torch.tensor([L.SMOOTH_TARGET]), label_smoothing=L.SMOOTHING)
    assert math.isclose(smoothed.item(), TF.cross_entropy(z, q[None]).item(), rel_tol=1e-5)


def test_label_smoothing_mistakes():
    eps, c, t = L.SMOOTHING, L.N_CLASSES, L.SMOOTH_TARGET
    one_hot = [1.0 if i == t else 0.0 for i in range(c)]
    _wrong("12.label_smoothing", one_hot, "without smoothing")
    _wrong("12.label_smoothing", [1 - eps if i == t else eps / (c - 1) for i in range(c)],
           "C - 1 = 3", "target class included")  # fmt: skip
    _wrong("12.label_smoothing", [1 - eps if i == t else eps / c for i in range(c)],
           "do not sum to 1", "its share")  # fmt: skip
    _wrong("12.label_smoothing", [0.0333, 0.0333, 0.9, 0.0333], "C - 1 = 3")  # rounded
    _wrong("12.label_smoothing", [0.5, 0.5, 0.5, 0.5], "sum to 2.0000")
    _wrong("12.label_smoothing", [0.1, 0.1, 0.7, 0.1], "mixes the one-hot")
    _wrong("12.label_smoothing", [0.925], "4 numbers")
    _wrong("12.label_smoothing", None, "NoneType")


# --- 12.bce_large_logit -------------------------------------------------------------------


def _torch_bce(x):
    return TF.binary_cross_entropy_with_logits(torch.tensor(x), torch.tensor(0.0))


def test_bce_large_logit_right_as_torch_says():
    loss = _torch_bce(L.LARGE_LOGIT)
    assert check("12.bce_large_logit", loss).correct
    assert check("12.bce_large_logit", loss.item()).correct
    assert check("12.bce_large_logit", L.LARGE_LOGIT + math.log1p(math.exp(-L.LARGE_LOGIT))).correct


def test_bce_large_logit_mistakes_are_what_torch_computes():
    x, y = torch.tensor(L.LARGE_LOGIT), torch.tensor(0.0)
    p = x.sigmoid()
    naive = -(y * p.log() + (1 - y) * (1 - p).log())
    assert math.isinf(naive.item())  # the overflow the lesson shows, in torch too
    _wrong("12.bce_large_logit", naive, "naive formula", "log(0)")
    _wrong("12.bce_large_logit", float("nan"), "naive formula")
    _wrong("12.bce_large_logit", TF.binary_cross_entropy(p, y), "clamps", "-100")
    _wrong("12.bce_large_logit", -_torch_bce(L.LARGE_LOGIT), "sign is off")
    _wrong("12.bce_large_logit",
           TF.binary_cross_entropy_with_logits(x, torch.tensor(1.0)), "label y = 1")  # fmt: skip
    _wrong("12.bce_large_logit", 42.0, "42 is not the loss")
    _wrong("12.bce_large_logit", "150", "one number")


# --- 12.pick_loss ---------------------------------------------------------------------------

_RIGHT = {"prices": "huber", "digits": "cross_entropy", "tags": "bce_with_logits",
          "distill": "kl_div", "faces": "triplet_margin"}  # fmt: skip


def test_pick_loss_right_in_any_spelling():
    assert check("12.pick_loss", _RIGHT).correct
    as_functions = {"prices": TF.smooth_l1_loss, "digits": TF.cross_entropy,
                    "tags": TF.binary_cross_entropy_with_logits, "distill": TF.kl_div,
                    "faces": TF.triplet_margin_loss}  # fmt: skip
    assert check("12.pick_loss", as_functions).correct
    as_classes = {"prices": "nn.HuberLoss", "digits": "CrossEntropyLoss",
                  "tags": "BCEWithLogitsLoss", "distill": "KLDivLoss",
                  "faces": "TripletMarginLoss"}  # fmt: skip
    assert check("12.pick_loss", as_classes).correct


@pytest.mark.parametrize("task, choice, says", [
    ("prices", "mse", ["prices:", "dominate"]),
    ("prices", "l1", ["prices:", "not smooth"]),
    ("digits", "bce_with_logits", ["digits:", "exclude each other"]),
    ("tags", "cross_entropy", ["tags:", "several labels"]),
    ("tags", "bce", ["tags:", "raw scores"]),
    ("distill", "cross_entropy", ["distill:", "log_softmax again"]),
    ("faces", "margin_ranking", ["faces:", "triple"]),
    ("faces", "mse", ["faces:", "not mse. MSE is for regression"]),
])  # fmt: skip
def test_pick_loss_explains_each_wrong_choice(task, choice, says):
    message = _wrong("12.pick_loss", dict(_RIGHT, **{task: choice}), *says)
    # The message names the wrong choice, but no other task's right answer.
    for other, right in _RIGHT.items():
        if other != task and right != choice:
            assert right not in message


def test_pick_loss_bad_forms():
    _wrong("12.pick_loss", ["huber"], "dict")
    answer = dict(_RIGHT)
    del answer["faces"]
    _wrong("12.pick_loss", answer, "'faces'")
    _wrong("12.pick_loss", dict(_RIGHT, tags="softmax"), "tags:", "not one of")
    _wrong("12.pick_loss", dict(_RIGHT, tags=3), "tags:", "not one of")


# --- the notebook's helpers agree with torch ------------------------------------------------


def test_regression_curves_match_torch():
    errors = [-3.0, -1.5, -0.2, 0.0, 0.7, 2.5]
    curves = L.regression_curves(errors)
    torch_losses = {
        "MSE": lambda e: TF.mse_loss(e, torch.zeros_like(e), reduction="none"),
        "L1": lambda e: TF.l1_loss(e, torch.zeros_like(e), reduction="none"),
        "Huber δ=1 (= SmoothL1 β=1)": lambda e: TF.huber_loss(e, torch.zeros_like(e),
                                                              reduction="none", delta=1.0),
        "SmoothL1 β=2": lambda e: TF.smooth_l1_loss(e, torch.zeros_like(e), reduction="none",
                                                    beta=2.0),
        "Huber δ=2": lambda e: TF.huber_loss(e, torch.zeros_like(e), reduction="none", delta=2.0),
    }  # fmt: skip
    assert set(curves) == set(torch_losses)
    for name, loss_fn in torch_losses.items():
        e = torch.tensor(errors, dtype=torch.float64, requires_grad=True)
        values = loss_fn(e)
        values.sum().backward()
        assert curves[name][0] == pytest.approx(values.tolist()), name
        assert curves[name][1] == pytest.approx(e.grad.tolist()), name


def test_regression_figure_has_a_loss_and_a_gradient_trace_per_loss():
    figure = L.regression_figure()
    assert len(figure.data) == 2 * len(L.regression_curves([0.0]))


def test_compare_prints_equal(capsys):
    L.compare("g", vg.tensor([1.0, 2.0]), vg.tensor([1.0, 2.0 + 1e-8]))
    assert "equal: True" in capsys.readouterr().out
    L.compare("g", vg.tensor([1.0, 2.0]), vg.tensor([1.0, 2.5]))
    assert "equal: False" in capsys.readouterr().out


def test_gradient_formulas_of_the_notebook_hold_in_torch():
    # The formulas the notebook compares with autograd, checked against torch's autograd.
    x = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
    y = torch.tensor([1.0, 0.0, 1.0])
    TF.binary_cross_entropy_with_logits(x, y).backward()
    assert torch.allclose(x.grad, (x.detach().sigmoid() - y) / 3)
    log_q = torch.log_softmax(torch.randn(2, 3), dim=1).requires_grad_()
    p = torch.softmax(torch.randn(2, 3), dim=1)
    TF.kl_div(log_q, p, reduction="batchmean").backward()
    assert torch.allclose(log_q.grad, -p / 2)
