"""dispatch_trace: the keys each call walks, in PyTorch's wording."""

import vizgrad as vg


def test_functional_op_skips_the_fallthrough_inplace_or_view_key():
    x = vg.ones(2, 3)
    with vg.dispatch_trace() as trace:
        x + 1
    assert trace.lines() == [
        " [call] op=[aten::add.Tensor], key=[AutogradCPU]",
        "  [redispatch] op=[aten::add.Tensor], key=[CPU]",
    ]


def test_inplace_op_goes_through_inplace_or_view_and_bumps_version():
    x = vg.ones(2, 3)
    with vg.dispatch_trace() as trace:
        x.add_(1)
    assert [(s.key, s.action) for s in trace.steps] == [
        ("AutogradCPU", "call"),
        ("ADInplaceOrView", "redispatch"),
        ("CPU", "redispatch"),
    ]
    assert trace.ops == ["aten::add_.Tensor"]
    assert "version -> 1" in trace.explain()


def test_out_variant_is_its_own_overload():
    x = vg.ones(3)
    out = vg.empty(3)
    with vg.dispatch_trace() as trace:
        vg.add(x, x, out=out)
    assert trace.ops == ["aten::add.out"]
    assert out._version == 1


def test_view_op_is_traced_with_its_view_bookkeeping():
    x = vg.ones(4)
    with vg.dispatch_trace() as trace:
        x.as_strided((2,), (2,), 1)
    assert trace.ops == ["aten::as_strided"]
    assert "view of tensor" in trace.explain()


def test_explain_names_promoted_dtype_and_why():
    x = vg.ones(2, dtype=vg.int64)
    with vg.dispatch_trace() as trace:
        x * 2.5
    text = trace.explain()
    assert "dtype kernel: float32" in text
    assert "int64 tensor and Python float promote to float32" in text


def test_trace_stops_listening_after_the_block():
    with vg.dispatch_trace() as trace:
        vg.ones(1) + 1
    n = len(trace.steps)
    vg.ones(1) + 1
    assert len(trace.steps) == n
