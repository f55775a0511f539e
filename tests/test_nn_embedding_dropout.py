"""Embedding, one_hot and the dropout family against PyTorch.

Embedding and one_hot are deterministic and compared value for value. Dropout draws
from vizgrad's own generator (PCG64, not PyTorch's Mersenne Twister), so its masks
can't equal torch's: its tests check what every mask must satisfy (each element 0 or
scaled by 1/(1-p), whole channels for feature dropout, the gradient the same mask)
and compare with torch wherever no randomness is involved (eval, p=0, p=1, errors).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from oracle import assert_same, assert_same_error, assert_same_outcome, make_pair

import vizgrad as vg
import vizgrad.nn.functional as F

WEIGHT = np.random.default_rng(0).standard_normal((7, 3))
INDICES = np.array([[1, 2, 1, 6], [0, 3, 3, 3]])


def _embed(lib, functional, indices, index_dtype="int64", weight=WEIGHT, **options):
    w = lib.tensor(weight, requires_grad=True)
    out = functional.embedding(lib.tensor(indices, dtype=getattr(lib, index_dtype)), w, **options)
    return w, out


@pytest.mark.parametrize("indices", [np.array(4), np.array([5, 0, 5]), INDICES,
                                     np.zeros((0,), dtype=np.int64), np.zeros((2, 0))])  # fmt: skip
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_embedding_forward_matches_torch(indices, index_dtype):
    (_, v), (_, t) = _embed(vg, F, indices, index_dtype), _embed(torch, TF, indices, index_dtype)
    assert_same(v.detach(), t.detach())
    assert v.grad_fn.name() == type(t.grad_fn).__name__ == "EmbeddingBackward0"


def test_embedding_reads_strided_weights_and_indices():
    (w, tw), (i, ti) = make_pair((6, 4), "float32", "transposed"), make_pair((3, 2), "int64", "stepped", low=0, high=6)  # fmt: skip
    assert_same(F.embedding(i, w), TF.embedding(ti, tw))
    assert_same(F.embedding(i, w.to(vg.int64)), TF.embedding(ti, tw.to(torch.int64)))


@pytest.mark.parametrize(
    "options",
    [{}, {"padding_idx": 3}, {"padding_idx": -4}, {"padding_idx": 0}, {"scale_grad_by_freq": True},
     {"padding_idx": 1, "scale_grad_by_freq": True}],
)  # fmt: skip
def test_embedding_gradient_matches_torch(options):
    (vw, v), (tw, t) = _embed(vg, F, INDICES, **options), _embed(torch, TF, INDICES, **options)
    upstream = np.random.default_rng(3).standard_normal(tuple(t.shape))
    v.backward(vg.tensor(upstream))
    t.backward(torch.tensor(upstream))
    assert_same(vw.grad, tw.grad)


def test_embedding_gradient_passes_finite_differences():
    # Without padding_idx and scale_grad_by_freq, which by design are not the derivative.
    indices = vg.tensor(INDICES)
    weight = vg.tensor(WEIGHT, requires_grad=True)
    assert vg.autograd.gradcheck(lambda w: F.embedding(indices, w), (weight,))
    # ...and a second derivative, through the gradient's index_add.
    assert vg.autograd.gradgradcheck(lambda w: F.embedding(indices, w).pow(2), (weight,))


@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.5, math.inf])
def test_max_norm_renormalises_the_rows_read_in_place(norm_type):
    weights = [lib.tensor(WEIGHT * 2) for lib in (vg, torch)]
    outs = [functional.embedding(lib.tensor(INDICES), w, max_norm=1.5, norm_type=norm_type)
            for lib, functional, w in zip((vg, torch), (F, TF), weights, strict=True)]  # fmt: skip
    assert_same(weights[0], weights[1])
    assert_same(outs[0], outs[1])
    assert weights[0]._version == weights[1]._version == 1
    untouched = [4, 5]  # rows not read keep their norms
    np.testing.assert_array_equal(weights[0].numpy()[untouched], WEIGHT[untouched] * 2)


def test_max_norm_on_a_parameter_still_gives_its_gradient():
    results = []
    for lib, functional in ((vg, F), (torch, TF)):
        w = lib.tensor(WEIGHT * 3, requires_grad=True)
        out = functional.embedding(lib.tensor(INDICES), w, max_norm=1.0)
        out.sum().backward()
        results.append((w.detach(), out.detach(), w.grad))
    for v, t in zip(*results, strict=True):
        assert_same(v, t)


@pytest.mark.parametrize(
    "call",
    ["F.embedding(lib.tensor([1., 2.]), w)", "F.embedding(lib.tensor([1], dtype=lib.int16), w)",
     "F.embedding(lib.tensor([1, 7]), w)", "F.embedding(lib.tensor([-1]), w)",
     "F.embedding(lib.tensor([1]), lib.ones(7))", "F.embedding(lib.tensor([1]), w, padding_idx=7)",
     "F.embedding(lib.tensor([1]), w, padding_idx=-8)",
     "lib.embedding_renorm_(w.clone(), lib.tensor([1.]), 1.0, 2.0)",
     "lib.embedding_renorm_(lib.ones(3), lib.tensor([1]), 1.0, 2.0)",
     "lib.embedding_renorm_(w.clone(), lib.tensor([9]), 1.0, 2.0)",
     "lib.embedding(w, lib.tensor([1]), 'a')"],
)  # fmt: skip
def test_embedding_errors_are_torchs(call):
    def run(lib, functional):
        return eval(call, {"F": functional, "lib": lib, "w": lib.ones(7, 3)})

    assert_same_error(lambda: run(vg, F), lambda: run(torch, TF))


def test_embedding_renorm_has_no_derivative_like_torch():
    def run(lib):
        w = lib.ones(4, 2, requires_grad=True) * 2
        lib.embedding_renorm_(w, lib.tensor([1]), 1.0, 2.0).sum().backward()

    assert_same_error(lambda: run(vg), lambda: run(torch))


def test_sparse_gradients_are_sparse_coo_tables_of_the_looked_up_rows():
    def run(lib, **options):
        w = lib.ones(4, 2, requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor([1, 1]), w, sparse=True, **options)
        assert out.grad_fn.name() == "EmbeddingBackward0"
        out.sum().backward()
        return w.grad

    v, t = run(vg), run(torch)
    assert v.layout is vg.sparse_coo and t.layout == torch.sparse_coo
    assert repr(v) == repr(t).replace("torch.", "vizgrad.")
    assert_same_error(lambda: run(vg, scale_grad_by_freq=True),
                      lambda: run(torch, scale_grad_by_freq=True))  # fmt: skip


# --- the Embedding module ------------------------------------------------------------------

REPRS = ["Embedding(10, 3)", "Embedding(10, 3, padding_idx=2)", "Embedding(10, 3, padding_idx=-1)",
         "Embedding(10, 3, max_norm=1.5, norm_type=1.0)", "Embedding(10, 3, scale_grad_by_freq=True)",
         "Embedding(10, 3, sparse=True)", "Embedding(10, 3, max_norm=2, norm_type=2.0)"]  # fmt: skip


@pytest.mark.parametrize("expr", REPRS)
def test_embedding_module_prints_as_torch(expr):
    assert repr(eval("vg.nn." + expr)) == repr(eval("torch.nn." + expr))


def test_embedding_module_initialises_standard_normal_with_a_zero_padding_row():
    vg.manual_seed(0)
    module = vg.nn.Embedding(2000, 8, padding_idx=-3)
    weight = module.weight.detach().numpy()
    assert module.padding_idx == 1997
    assert weight.dtype == np.float32 and weight.shape == (2000, 8)
    np.testing.assert_array_equal(weight[1997], 0)
    others = np.delete(weight, 1997, axis=0)
    assert abs(others.mean()) < 0.05 and abs(others.std() - 1) < 0.05
    assert [n for n, _ in module.named_parameters()] == ["weight"]


def test_embedding_module_computes_and_differentiates_as_torch():
    v_module = vg.nn.Embedding(7, 3, padding_idx=2, scale_grad_by_freq=True)
    t_module = torch.nn.Embedding(7, 3, padding_idx=2, scale_grad_by_freq=True)
    with torch.no_grad():
        t_module.weight.copy_(torch.from_numpy(v_module.weight.detach().numpy()))
    v_out, t_out = v_module(vg.tensor(INDICES)), t_module(torch.tensor(INDICES))
    assert_same(v_out.detach(), t_out.detach())
    (v_out * 2).sum().backward()
    (t_out * 2).sum().backward()
    assert_same(v_module.weight.grad, t_module.weight.grad)


def test_from_pretrained_shares_and_freezes_like_torch():
    v_module = vg.nn.Embedding.from_pretrained(vg.tensor(WEIGHT))
    t_module = torch.nn.Embedding.from_pretrained(torch.tensor(WEIGHT))
    assert repr(v_module) == repr(t_module)
    assert v_module.weight.requires_grad is False
    assert vg.nn.Embedding.from_pretrained(vg.tensor(WEIGHT), freeze=False).weight.requires_grad
    assert_same(v_module(vg.tensor([1, 6])), t_module(torch.tensor([1, 6])))
    assert_same_error(lambda: vg.nn.Embedding.from_pretrained(vg.ones(3)),
                      lambda: torch.nn.Embedding.from_pretrained(torch.ones(3)))  # fmt: skip
    assert_same_error(lambda: vg.nn.Embedding(3, 2, _weight=vg.ones(2, 2)),
                      lambda: torch.nn.Embedding(3, 2, _weight=torch.ones(2, 2)))  # fmt: skip


# --- one_hot -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    ["F.one_hot(lib.tensor([0, 3, 1]))", "F.one_hot(lib.tensor([[1], [2]]), 4)",
     "F.one_hot(lib.tensor(2))", "F.one_hot(lib.tensor(2), 5)",
     "F.one_hot(lib.zeros(0, dtype=lib.int64), 3)", "F.one_hot(lib.zeros(2, 0, dtype=lib.int64), 2)",
     "F.one_hot(lib.tensor([1., 2.]))", "F.one_hot(lib.tensor([1, 2], dtype=lib.int32))",
     "F.one_hot(lib.tensor([-1, 2]))", "F.one_hot(lib.tensor([1, 2]), 2)",
     "F.one_hot(lib.zeros(0, dtype=lib.int64))", "F.one_hot(lib.tensor([1, 2]), -2)",
     "F.one_hot(lib.tensor([1, 2]), 0)", "F.one_hot(lib.tensor([1, 2]), 'a')"],
)  # fmt: skip
def test_one_hot_matches_torch(call):
    assert_same_outcome(lambda: eval(call, {"F": F, "lib": vg}),
                        lambda: eval(call, {"F": TF, "lib": torch}))  # fmt: skip


# --- dropout -------------------------------------------------------------------------------


def _mask(result, data, p):
    """Which elements survived, after checking every element is 0 or ``x / (1 - p)``."""
    result = result.detach().numpy()
    kept = result != 0
    np.testing.assert_allclose(result[kept], data[kept] / (1 - p), rtol=1e-6)
    return kept


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_zeroes_a_fraction_p_and_scales_the_rest(p):
    data = np.random.default_rng(1).uniform(0.5, 2, (200, 100)).astype(np.float32)
    x = vg.tensor(data, requires_grad=True)
    out = F.dropout(x, p)
    assert out.dtype == vg.float32 and out.shape == x.shape and out.is_contiguous()
    assert (
        out.grad_fn.name() == type(TF.dropout(torch.ones(2, requires_grad=True)).grad_fn).__name__
    )
    kept = _mask(out, data, p)
    assert abs((~kept).mean() - p) < 0.02
    out.backward(vg.ones_like(out))
    np.testing.assert_allclose(x.grad.numpy(), kept / (1 - p), rtol=1e-6)


def test_dropout_is_reproducible_from_the_seed_and_differs_between_calls():
    x = vg.ones(1000)
    vg.manual_seed(7)
    first, second = F.dropout(x), F.dropout(x)
    vg.manual_seed(7)
    assert vg.equal(F.dropout(x), first)
    assert not vg.equal(first, second)


@pytest.mark.parametrize(
    "call",
    ["F.dropout(x, training=False)", "F.dropout(x, p=0.0)", "F.dropout(e)",
     "F.dropout(x, p=0.0, inplace=True)", "F.dropout2d(x4, training=False)",
     "F.alpha_dropout(x)", "F.alpha_dropout(x, 0.0, True)",
     "F.feature_alpha_dropout(x4, 0.3)"],
)  # fmt: skip
def test_dropout_returns_its_very_input_when_nothing_is_dropped(call):
    for lib, functional in ((vg, F), (torch, TF)):
        env = {"F": functional, "x": lib.ones(3, 4, requires_grad=True), "e": lib.ones(0, 3),
               "x4": lib.ones(2, 3, 4, 4)}  # fmt: skip
        result = eval(call, env)
        assert any(result is value for value in env.values())


def test_dropout_with_p_one_is_a_product_with_zero():
    for lib, functional in ((vg, F), (torch, TF)):
        x = lib.ones(3, 4, requires_grad=True)
        out = functional.dropout(x, p=1.0)
        out.sum().backward()
        assert (out.grad_fn.name() if lib is vg else type(out.grad_fn).__name__) == "MulBackward0"
        assert float(out.abs().sum()) == 0 and float(x.grad.abs().sum()) == 0


def test_inplace_dropout_writes_its_input():
    data = np.arange(1.0, 1001.0)
    x = vg.tensor(data)
    assert F.dropout(x, 0.3, inplace=True) is x
    assert x._version == 1
    _mask(x, data, 0.3)
    y = vg.ones(4, requires_grad=True) * 1
    assert F.dropout(y, 0.5, inplace=True).grad_fn.name() == "MulBackward0"


@pytest.mark.parametrize(
    "function, shape, channel_dims",
    [("dropout1d", (8, 50, 6), 2), ("dropout1d", (50, 6), 1), ("dropout2d", (8, 50, 3, 3), 2),
     ("feature_alpha_dropout", (8, 50, 3), 2)],
)  # fmt: skip
def test_feature_dropout_drops_whole_channels(function, shape, channel_dims):
    data = np.random.default_rng(2).uniform(1, 2, shape)
    out = getattr(F, function)(vg.tensor(data), 0.4, training=True).numpy()
    channels = out.reshape(*shape[:channel_dims], -1)
    first = channels[..., :1]
    if function == "feature_alpha_dropout":  # a dropped channel is a constant, not 0
        ratio = channels - channels[..., :1]
        scaled = data.reshape(channels.shape) - data.reshape(channels.shape)[..., :1]
        dropped = np.all(np.isclose(ratio, 0), axis=-1)
        assert np.all(dropped | np.all(~np.isclose(ratio, 0) | np.isclose(scaled, 0), axis=-1))
        return
    dropped = np.all(channels == 0, axis=-1)
    np.testing.assert_allclose(channels[~dropped], data.reshape(channels.shape)[~dropped] / 0.6)
    assert 0.2 < dropped.mean() < 0.6
    assert first.shape[:channel_dims] == shape[:channel_dims]


def test_feature_dropout_grad_fn_names_match_torch():
    for function, shape in (("dropout1d", (3, 4)), ("dropout1d", (2, 3, 4)),
                            ("dropout2d", (2, 3, 4, 4)), ("alpha_dropout", (3, 4))):  # fmt: skip
        names = []
        for lib, functional in ((vg, F), (torch, TF)):
            out = getattr(functional, function)(lib.ones(*shape, requires_grad=True), 0.5, True)
            names.append(out.grad_fn.name() if lib is vg else type(out.grad_fn).__name__)
        assert names[0] == names[1]


def test_alpha_dropout_values_keep_selu_statistics():
    p = 0.3
    alpha = 1.7580993408473766
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    data = np.random.default_rng(5).standard_normal(200_000)
    out = F.alpha_dropout(vg.tensor(data), p, training=True).numpy()
    kept = np.isclose(out, data * a + alpha * a * p)
    dropped = np.isclose(out, -alpha * a + alpha * a * p)
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - p) < 0.01
    assert abs(out.mean()) < 0.01 and abs(out.std() - 1) < 0.01


@pytest.mark.parametrize(
    "call",
    ["F.dropout(x, 1.5)", "F.dropout(x, -0.1)", "F.dropout1d(x4)", "F.dropout1d(lib.ones(3))",
     "F.dropout2d(x, 2.0)", "F.alpha_dropout(x, 1.1)", "lib.dropout(x, 1.5, True)",
     "lib.feature_dropout(lib.ones(3), 0.5, True)", "lib.dropout(x, 'a', True)",
     "F.dropout(lib.ones(3, requires_grad=True), 0.5, True, True)"],
)  # fmt: skip
def test_dropout_errors_are_torchs(call):
    def run(lib, functional):
        env = {"F": functional, "lib": lib, "x": lib.ones(3, 4), "x4": lib.ones(2, 3, 4, 4)}
        return eval(call, env)

    assert_same_error(lambda: run(vg, F), lambda: run(torch, TF))


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (2, 3, 4, 5, 6)])
def test_dropout2d_warns_as_torch(shape):
    outcomes = []
    for lib, functional in ((vg, F), (torch, TF)):
        with pytest.warns(UserWarning) as record:
            functional.dropout2d(lib.ones(*shape), 0.5, training=False)
        outcomes.append([str(w.message) for w in record])
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "AlphaDropout"])
def test_dropout_modules_print_check_and_follow_train_eval(name):
    for args in ((), (0.25,), (0.1, True)):
        assert repr(getattr(vg.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))
    assert_same_error(lambda: getattr(vg.nn, name)(1.5), lambda: getattr(torch.nn, name)(1.5))
    module = getattr(vg.nn, name)(0.5)
    x = vg.ones(4, 3, 5)
    assert module.training and not vg.equal(module(x), x)
    module.eval()
    assert module(x) is x
