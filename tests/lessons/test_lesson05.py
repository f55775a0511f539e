"""Lesson 5's checkers: right answers in any reasonable form pass, typical mistakes are explained.

Expected values come from torch: the operators a call dispatches (recorded with a
``TorchDispatchMode``), the keys of a CPU tensor's ``DispatchKeySet``, version counters
and result dtypes.
"""

import re
from pathlib import Path

import nbformat
import pytest
import torch
from lesson_feedback import assert_one_at_a_time as _one_at_a_time
from lesson_feedback import assert_wrong as _wrong
from torch.utils._python_dispatch import TorchDispatchMode
from vizgrad.lessons import check
from vizgrad.lessons import lesson05 as lesson

import vizgrad as vg

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "05-dispatch.ipynb"


# --- 05.abs_overloads -----------------------------------------------------------------


class _Operators(TorchDispatchMode):
    """The aten operators torch dispatches to, in order."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(func.name())
        return func(*args, **(kwargs or {}))


def _torch_overloads():
    names = []
    for source in lesson.ABS_CALLS:
        namespace = {"vg": torch, "x": torch.tensor([-1.5, 2.0, -3.0]), "o": torch.empty(3)}
        with _Operators() as recorded:
            eval(source, namespace)
        names.append(recorded.names[-1])
    return tuple(names)


def test_overloads_match_torch_with_or_without_namespace():
    expected = _torch_overloads()
    assert check("05.abs_overloads", expected).correct
    assert check("05.abs_overloads", [name.removeprefix("aten::") for name in expected]).correct


def test_overloads_explain_the_out_overload_name():
    answer = list(_torch_overloads())
    answer[2] = "abs_out"
    _one_at_a_time("05.abs_overloads", answer, "vg.abs(x, out=o) → aten::abs_out",
                   "aten::abs.out", "name.overload", "C++", right=2)  # fmt: skip


def test_overloads_explain_that_in_place_is_its_own_operator():
    _one_at_a_time("05.abs_overloads", ("abs", "abs", "abs.out"), "x.abs_() → aten::abs",
                   "trailing underscore", right=1)  # fmt: skip


def test_overloads_explain_the_first_wrong_call_only():
    feedback = _one_at_a_time("05.abs_overloads", ("abs_", "abs", "abs"), "vg.abs(x) → aten::abs_",
                              "plain functional operator", more=2)  # fmt: skip
    assert "abs.out" not in repr(feedback) and "trailing" not in feedback._repr_html_()


def test_overloads_ask_for_three_names():
    _wrong("05.abs_overloads", "aten::abs", "three operator names")


# --- 05.inplace_keys ------------------------------------------------------------------


def _torch_inplace_keys():
    """The keys of a CPU tensor that vizgrad models, highest priority first."""
    keyset = str(torch._C._dispatch_keys(torch.zeros(3)))
    keys = re.findall(r"\w+", keyset.split("(", 1)[1])
    return [key for key in reversed(keys) if key in lesson.KEY_ROLES]


@pytest.mark.parametrize("form", [list, tuple])
def test_inplace_keys_right(form):
    assert check("05.inplace_keys", form(_torch_inplace_keys())).correct


def test_inplace_keys_explain_a_missing_version_bump():
    _wrong("05.inplace_keys", ["AutogradCPU", "CPU"], "missing ADInplaceOrView", "version")


def test_inplace_keys_explain_the_order():
    _wrong(
        "05.inplace_keys", list(reversed(_torch_inplace_keys())), "wrong order", "autograd first"
    )


def test_inplace_keys_name_the_per_backend_autograd_key():
    _wrong("05.inplace_keys", ["Autograd", "ADInplaceOrView", "CPU"], "AutogradCPU for a CPU")
    _wrong("05.inplace_keys", "CPU", "list of names")


# --- 05.versions ----------------------------------------------------------------------


def _torch_versions():
    namespace = {"vg": torch}
    exec(lesson.VERSIONS_CODE, namespace)
    return tuple(namespace[name]._version for name in ("x", "y", "o"))


def test_versions_right():
    assert check("05.versions", _torch_versions()).correct
    assert check("05.versions", list(_torch_versions())).correct


def test_versions_explain_each_wrong_counter():
    x, y, o = _torch_versions()
    feedback = _one_at_a_time("05.versions", (x - 1, y, o - 1), f"x._version = {x - 1}",
                              f"it is {x}", "twice", more=1)  # fmt: skip
    assert "o._version" not in repr(feedback) and "out=" not in feedback._repr_html_()
    _one_at_a_time("05.versions", (x, y, o - 1), f"o._version = {o - 1}", "out=", right=2)
    _one_at_a_time("05.versions", (x, y + 1, o), "y._version", "reading does not bump", right=1)
    _wrong("05.versions", (x, y), "three ints")


# --- 05.dtype_kernel ------------------------------------------------------------------


def _torch_kernel_dtypes():
    return tuple(eval(source, {"vg": torch}).dtype for source in lesson.KERNEL_CALLS)


def test_dtype_kernel_right():
    assert check("05.dtype_kernel", _torch_kernel_dtypes()).correct
    assert check("05.dtype_kernel", [str(d) for d in _torch_kernel_dtypes()]).correct


def test_dtype_kernel_explains_that_the_loop_is_the_common_dtype():
    feedback = _one_at_a_time("05.dtype_kernel", (vg.int8, vg.int8), "not int8",
                              "common dtype", "Python float", more=1)  # fmt: skip
    assert "int16" not in repr(feedback)


def test_dtype_kernel_applies_the_promotion_rules():
    first, _ = _torch_kernel_dtypes()
    _one_at_a_time("05.dtype_kernel", (first, vg.int32), "2. ", "promote_types(int8, int16)",
                   right=1)  # fmt: skip
    _one_at_a_time("05.dtype_kernel", (float, vg.int16), "is not a dtype")


# --- 05.dtype_error -------------------------------------------------------------------


def test_dtype_error_accepts_a_call_that_fails_in_the_dtype_switch():
    with pytest.raises(NotImplementedError) as torch_error:
        torch.abs(torch.tensor([True, False]))
    with pytest.raises(NotImplementedError) as vizgrad_error:
        vg.abs(vg.tensor([True, False]))
    assert str(torch_error.value) == str(vizgrad_error.value)
    assert check("05.dtype_error", lambda: vg.abs(vg.tensor([True, False]))).correct
    assert check("05.dtype_error", lambda: vg.tensor([True]).abs()).correct


def test_dtype_error_rejects_errors_from_elsewhere():
    _wrong("05.dtype_error", lambda: vg.abs([1.0]), "TypeError", "before any dispatch")
    _wrong("05.dtype_error", lambda: vg.abs(vg.tensor([-1])), "returned a result")
    _wrong("05.dtype_error", lambda: vg.neg(vg.tensor([True])), "did not call vg.abs")
    x = vg.zeros(3)
    _wrong(
        "05.dtype_error",
        lambda: vg.abs(x, out=vg.empty(3, dtype=vg.int64)),
        "RuntimeError",
        "not the dtype dispatch",
    )
    _wrong("05.dtype_error", "vg.abs(vg.tensor([True]))", "give a function")


# --- the notebook shows what the checkers check -------------------------------------


def test_the_notebook_shows_the_checked_code():
    text = "\n".join(cell.source for cell in nbformat.read(NOTEBOOK, as_version=4).cells)
    assert lesson.VERSIONS_CODE.strip() in text
    for source in (*lesson.KERNEL_CALLS, *lesson.ABS_CALLS):
        assert f"`{source}`" in text


# --- 05.meta_strides ---------------------------------------------------------------------


def _torch_meta_strides():
    """The strides torch gives the calls on its own meta tensors."""
    namespace = {"vg": torch}
    exec(lesson.META_SETUP, namespace)
    return tuple(tuple(eval(call, namespace).stride()) for call in lesson.META_CALLS)


def test_meta_strides_are_torchs():
    expected = _torch_meta_strides()
    assert lesson.meta_strides() == expected
    assert check("05.meta_strides", expected).correct
    assert check("05.meta_strides", [list(strides) for strides in expected]).correct


def test_meta_strides_explain_the_layout_rules():
    row_major, permuted = (6, 3, 1), (1, 12, 4)
    _one_at_a_time("05.meta_strides", (row_major, permuted, row_major), "a + 1",
                   "not row-major", "permuted")  # fmt: skip
    _one_at_a_time("05.meta_strides", (permuted, permuted, permuted), "b + a",
                   "first", "b", right=2)  # fmt: skip
    _wrong("05.meta_strides", "(1, 12, 4)", "three tuples")


def test_the_notebook_shows_the_meta_setup():
    text = "\n".join(cell.source for cell in nbformat.read(NOTEBOOK, as_version=4).cells)
    assert lesson.META_SETUP.strip() in text
    for call in lesson.META_CALLS:
        assert f"`{call}`" in text
