"""Lesson 11's checkers: right answers pass (among them the answers torch.nn gives for the same
models), typical mistakes are explained, bad types get a clear message.

Every model of the lesson is rebuilt here in torch.nn (``_TorchBlock``, ``_TorchNet``, ...), so
the expected answers come from torch, not from vizgrad.
"""

import pytest
import torch
from lesson_feedback import assert_wrong as _wrong
from vizgrad.lessons import check
from vizgrad.lessons import lesson11 as L

import vizgrad as vg


class _TorchBlock(torch.nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.linear = torch.nn.Linear(n_in, n_out)
        self.norm = torch.nn.BatchNorm1d(n_out)

    def forward(self, x):
        return self.norm(self.linear(x)).relu()


class _TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = _TorchBlock(4, 3)
        self.drop = torch.nn.Dropout(L.DROPOUT_P)
        self.head = torch.nn.Linear(3, 2)
        self.register_buffer("class_weight", torch.ones(2))
        self.register_buffer("last_mean", torch.zeros(4), persistent=False)

    def forward(self, x):
        self.last_mean = x.detach().mean(0)
        return self.head(self.drop(self.block(x))) * self.class_weight


class _TorchMixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(3))
        self.offset = torch.zeros(3)
        self.act = torch.nn.ReLU()
        self.register_buffer("mean", torch.zeros(3))
        self.layers = [torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)]
        self.scale = 2.0


class _TorchRenamedNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = _TorchBlock(4, 3)
        self.classifier = torch.nn.Linear(3, 2)


# --- 11.which_table ----------------------------------------------------------------------

_NAMES = ("weight", "offset", "act", "mean", "layers", "scale")


def _torch_homes():
    model = _TorchMixed()
    homes = {}
    for name in _NAMES:
        for table in ("_parameters", "_buffers", "_modules"):
            if name in getattr(model, table):
                homes[name] = table
                break
        else:
            assert name in model.__dict__
            homes[name] = "__dict__"
    return homes


def test_which_table_right_as_torch_says():
    homes = _torch_homes()
    assert check("11.which_table", homes).correct
    # Spelled without underscores, or capitalised.
    assert check("11.which_table", {k: v.strip("_").upper() for k, v in homes.items()}).correct
    assert L.home_of(L.Mixed(), "layers") == homes["layers"]


@pytest.mark.parametrize("name, wrong_table, says", [
    ("offset", "_buffers", ["offset:", "register_buffer"]),
    ("layers", "_modules", ["layers:", "ModuleList"]),
    ("act", "__dict__", ["act:", "child"]),
    ("weight", "_buffers", ["weight:", "Parameter"]),
])  # fmt: skip
def test_which_table_explains_the_first_wrong_entry(name, wrong_table, says):
    answer = dict(_torch_homes(), **{name: wrong_table})
    message = _wrong("11.which_table", answer, *says)
    others = [other for other in _NAMES if other != name]
    assert not any(message.startswith(f"{other}:") for other in others)


def test_which_table_bad_forms():
    _wrong("11.which_table", ["_parameters"] * 6, "dict")
    answer = _torch_homes()
    del answer["scale"]
    _wrong("11.which_table", answer, "'scale'", "all six")
    _wrong("11.which_table", dict(_torch_homes(), mean="tables"), "mean:", "not one of")
    _wrong("11.which_table", dict(_torch_homes(), mean=3), "mean:", "not one of")


# --- 11.state_dict_keys ------------------------------------------------------------------


def test_state_dict_keys_right_as_torch_says():
    keys = list(_TorchNet().state_dict())
    assert check("11.state_dict_keys", keys).correct
    assert check("11.state_dict_keys", tuple(reversed(keys))).correct
    assert check("11.state_dict_keys", set(keys)).correct


def test_state_dict_keys_mistakes():
    keys = list(_TorchNet().state_dict())
    _wrong("11.state_dict_keys", keys + ["last_mean"], "persistent=False")
    _wrong("11.state_dict_keys", [k for k in keys if "num_batches" not in k],
           "missing", "num_batches_tracked")  # fmt: skip
    _wrong("11.state_dict_keys", [k for k in keys if "running" not in k], "missing", "buffers")
    _wrong("11.state_dict_keys", keys + ["drop.p"], "Dropout has no parameters")
    _wrong("11.state_dict_keys", [k.replace("block.", "") for k in keys], "dotted names")
    _wrong("11.state_dict_keys", keys + keys[:1], "twice")
    _wrong("11.state_dict_keys", keys[1:], "missing under Net", "persistent buffer")


def test_state_dict_keys_bad_types():
    _wrong("11.state_dict_keys", "head.weight", "list of state_dict keys")
    _wrong("11.state_dict_keys", [1, 2], "string")


# --- 11.count_parameters -----------------------------------------------------------------


def test_count_parameters_right_as_torch_says():
    count = sum(p.numel() for p in _TorchNet().parameters())
    assert check("11.count_parameters", count).correct
    assert check("11.count_parameters", float(count)).correct
    assert check("11.count_parameters", torch.tensor(count)).correct


def test_count_parameters_mistakes():
    model = _TorchNet()
    count = sum(p.numel() for p in model.parameters())
    saved = sum(t.numel() for t in model.state_dict().values())
    every = count + sum(b.numel() for b in model.buffers())
    norm = sum(p.numel() for p in model.block.norm.parameters())
    weights = sum(p.numel() for n, p in model.named_parameters() if n.endswith("weight"))
    _wrong("11.count_parameters", saved, "counts buffers")
    _wrong("11.count_parameters", every, "counts buffers", "last_mean")
    _wrong("11.count_parameters", count - norm, "BatchNorm1d")
    _wrong("11.count_parameters", weights, "only the weights")
    _wrong("11.count_parameters", count + 1, "numel()")
    _wrong("11.count_parameters", "29", "whole number")
    _wrong("11.count_parameters", 2.5, "whole number")


# --- 11.load_mismatch --------------------------------------------------------------------


def _torch_mismatch():
    return _TorchRenamedNet().load_state_dict(_TorchNet().state_dict(), strict=False)


def test_load_mismatch_right_as_torch_says():
    result = _torch_mismatch()
    assert check("11.load_mismatch", result).correct
    assert check("11.load_mismatch", (result.missing_keys, result.unexpected_keys)).correct
    assert check("11.load_mismatch", [set(result.missing_keys),
                                      tuple(reversed(result.unexpected_keys))]).correct  # fmt: skip


def test_load_mismatch_mistakes():
    missing, unexpected = _torch_mismatch()
    _wrong("11.load_mismatch", (unexpected, missing), "swapped")
    _wrong("11.load_mismatch", (missing + ["block.linear.weight"], unexpected),
           "missing_keys", "'block.linear.weight'", "match in both models")  # fmt: skip
    message = _wrong("11.load_mismatch", (missing, [k for k in unexpected if k != "class_weight"]),
                     "unexpected_keys", "buffers included")  # fmt: skip
    assert "class_weight" not in message
    _wrong("11.load_mismatch", (missing[:1], unexpected), "missing_keys", "a key is missing")


def test_load_mismatch_bad_types():
    _wrong("11.load_mismatch", ["classifier.weight"], "pair")
    _wrong("11.load_mismatch", ("classifier.weight", []), "list of keys")


# --- 11.shape_hooks ----------------------------------------------------------------------


def record_shapes(model, x):
    fired, handles = [], []
    for name, module in model.named_modules():

        def hook(module, args, output, name=name):
            fired.append((name, output.shape))

        handles.append(module.register_forward_hook(hook))
    model(x)
    for handle in handles:
        handle.remove()
    return fired


def test_shape_hooks_right_and_same_as_in_torch():
    assert check("11.shape_hooks", record_shapes).correct
    # The same function on the torch twin gives the pairs the checker expects.
    torch_pairs = [(n, tuple(s)) for n, s in record_shapes(_TorchNet().eval(), torch.randn(5, 4))]
    vg_pairs = [(n, tuple(s)) for n, s in record_shapes(L.Net().eval(), vg.randn(*L.INPUT_SHAPE))]
    assert vg_pairs == torch_pairs
    assert torch_pairs[-1] == ("", (5, 2)) and torch_pairs[2][0] == "block"


def _keeps_hooks(model, x):
    fired = []
    for name, module in model.named_modules():
        module.register_forward_hook(lambda m, a, out, name=name: fired.append((name, out.shape)))
    model(x)
    return fired


def _returns_output(model, x):
    fired, handles = [], []
    for name, module in model.named_modules():

        def hook(module, args, output, name=name):
            fired.append((name, tuple(output.shape)))
            return output * 0

        handles.append(module.register_forward_hook(hook))
    model(x)
    for handle in handles:
        handle.remove()
    return fired


def _pre_order(model, x):
    pairs = dict(record_shapes(model, x))
    return [(name, pairs[name]) for name, _ in model.named_modules()]


def _children_only(model, x):
    fired, handles = [], []
    for name, module in model.named_children():
        handles.append(module.register_forward_hook(
            lambda m, a, out, name=name: fired.append((name, tuple(out.shape)))))  # fmt: skip
    model(x)
    for handle in handles:
        handle.remove()
    return fired


def _input_shapes(model, x):
    return [(name, tuple(args[0].shape)) for name, args in _record_args(model, x)]


def _record_args(model, x):
    fired, handles = [], []
    for name, module in model.named_modules():
        handles.append(module.register_forward_hook(
            lambda m, args, out, name=name: fired.append((name, args))))  # fmt: skip
    model(x)
    for handle in handles:
        handle.remove()
    return fired


def _raises(model, x):
    raise ValueError("oops")


@pytest.mark.parametrize("function, says", [
    (_keeps_hooks, ["still has forward hooks", "remove()"]),
    (_returns_output, ["output changed", "Return None"]),
    (_pre_order, ["another order", "as the hooks fire"]),
    (_children_only, ["recorded 3 calls", "model itself"]),
    (_input_shapes, ["wrong shape", "output"]),
    (_raises, ["raised ValueError: oops"]),
    (lambda model, x: "shapes", ["returned a str"]),
    (lambda model, x: [("head", "5x2")], ["tuple of ints"]),
    (lambda model, x: [(1, 2, 3)], ["not a (name, shape) pair"]),
    ("record_shapes", ["function itself"]),
])  # fmt: skip
def test_shape_hooks_mistakes(function, says):
    _wrong("11.shape_hooks", function, *says)


def test_shape_hooks_mistakes_happen_in_torch_too():
    # The mistakes the checker explains behave the same in torch: a forward hook that
    # returns a value replaces the output, and an unremoved hook stays registered.
    model, x = _TorchNet().eval(), torch.randn(5, 4)
    reference = model(x)
    _returns_output(model, x)
    assert torch.equal(model(x), reference)  # removed hooks no longer change anything
    handle = model.head.register_forward_hook(lambda m, a, out: out * 0)
    assert not torch.equal(model(x), reference)
    handle.remove()
    _keeps_hooks(model, x)
    assert sum(len(m._forward_hooks) for m in model.modules()) == 6


# --- 11.eval_dropout ---------------------------------------------------------------------


def _torch_dropout_values(training):
    drop = torch.nn.Dropout(L.DROPOUT_P).train(training)
    return {round(v, 6) for v in drop(torch.ones(10_000)).tolist()}


def test_eval_dropout_right_as_torch_says():
    answer = (_torch_dropout_values(True), _torch_dropout_values(False))
    assert check("11.eval_dropout", answer).correct
    assert check("11.eval_dropout", [sorted(answer[0]), [1]]).correct
    drop = torch.nn.Dropout(L.DROPOUT_P)
    assert check("11.eval_dropout", (answer[0], drop.eval()(torch.ones(10)))).correct


@pytest.mark.parametrize("answer, says", [
    (({0.0, 1.0}, {1.0}), ["training:", "1/(1-p) = 1.25"]),
    (({0.0, 0.8}, {1.0}), ["training:", "divided by 1-p"]),
    (({1.25}, {1.0}), ["training:", "0 is one"]),
    (({0.0, 1.25}, {0.0, 1.0}), ["eval():", "zeroes nothing"]),
    (({0.0, 1.25}, {0.8}), ["eval():", "original paper"]),
    (({0.0, 1.25}, {2.0}), ["eval():", "unchanged"]),
    (({0.0, 1.25},), ["pair of sets"]),
    (("0, 1.25", {1.0}), ["training:", "set of numbers"]),
    (({0.0, "x"}, {1.0}), ["training:", "'x' is not a number"]),
])  # fmt: skip
def test_eval_dropout_mistakes(answer, says):
    message = _wrong("11.eval_dropout", answer, *says)
    if says[0] == "training:":
        assert "eval():" not in message


def test_notebook_helpers():
    text = L.table(L.Mixed())
    assert "_parameters  {weight: Parameter(3,)}" in text and "act: ReLU" in text
    with pytest.raises(AttributeError):
        L.home_of(L.Mixed(), "nothing")
