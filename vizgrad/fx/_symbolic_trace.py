"""``torch.fx.symbolic_trace`` and its ``Tracer`` (``torch/fx/_symbolic_trace.py``).

``symbolic_trace(model)`` runs ``model.forward`` once with a ``Proxy`` for each
parameter and keeps the ``Graph`` the proxies recorded, wrapped in a ``GraphModule``.

What the ``Tracer`` decides, as PyTorch's does:

* **Inputs.** One ``placeholder`` node per parameter of ``forward`` (named after it;
  ``input`` becomes ``input_1``, as it would shadow a builtin). ``concrete_args``
  fixes some parameters to values instead: the code is specialised for them.
* **Submodules.** Calling a module goes through ``Tracer.call_module``: a *leaf* module
  (``is_leaf_module``: the modules of ``vizgrad.nn``, but not ``Sequential``) becomes
  one ``call_module`` node; any other module is traced through, its operations
  recorded inline.
* **Attributes.** Reading a parameter or buffer of the root (``self.weight``) makes a
  ``get_attr`` node; a tensor that belongs to no module is stored on the root as
  ``_tensor_constant0`` and read back the same way.
* **Engine functions.** PyTorch intercepts ``torch.relu(proxy)`` with the
  ``__torch_function__`` protocol, which its C++ functions check. vizgrad's functions
  are plain Python, so while it traces, the tracer *patches* them: every public
  function of ``vizgrad`` (its operators) and of ``vizgrad.nn.functional`` is replaced,
  in those namespaces and in the traced code's globals (``from vizgrad import relu``),
  by a wrapper that records a ``call_function`` node when an argument is a proxy and
  calls the real function otherwise. The patches are PyTorch's own mechanism for
  ``fx.wrap`` and ``math`` functions (``_Patcher``), and they are undone when tracing
  ends — also when it fails. Nothing is patched at import. One consequence: a
  reference taken *before* tracing (``act = F.gelu`` stored on a module, then
  ``act(x)`` in ``forward``) is the unpatched function and fails on a proxy with the
  engine's ``TypeError``; call it through the namespace (``F.gelu(x)``) instead.

``torch.nn.functional``'s Python functions pass their arguments on to
``__torch_function__`` in a fixed form — ``F.relu(x)`` is recorded with
``kwargs={'inplace': False}`` — so the wrapper of each such function normalises the
call the same way (``_TORCH_FUNCTIONAL_FORWARDING``, read from
``torch/nn/functional.py``); ``F.tanh`` and ``F.sigmoid`` are not intercepted there
at all (they call ``input.tanh()``), so they record ``call_method`` nodes in both.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import inspect
import math
import types
from collections.abc import Callable
from typing import Any, NamedTuple

from .graph import Graph
from .graph_module import GraphModule
from .node import Argument, has_side_effect
from .proxy import Proxy, TracerBase, _find_proxy

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "PHBase"]

# ``is_fx_tracing()``: true while a ``Tracer`` runs (PyTorch's module-level flag).
_is_fx_tracing_flag = False


def is_fx_tracing() -> bool:
    return _is_fx_tracing_flag


class PHBase:
    """Object representing an input placeholder to ``concrete_args``."""

    def __repr__(self) -> str:
        return "PH"


PH = PHBase()


# --- the engine functions a trace records ---------------------------------------------------

# How ``torch.nn.functional``'s Python functions forward a call to ``__torch_function__``:
# (how many leading parameters go positionally, the parameters that follow as keywords,
# each with its value or its default). Read from the ``handle_torch_function(...)``
# calls in ``torch/nn/functional.py``; a function not listed is recorded as called.
_TORCH_FUNCTIONAL_FORWARDING: dict[str, tuple[int, tuple[str, ...]]] = {
    "adaptive_avg_pool2d": (2, ()),
    "alpha_dropout": (1, ("p", "training", "inplace")),
    "batch_norm": (3, ("weight", "bias", "training", "momentum", "eps")),
    "binary_cross_entropy": (2, ("weight", "size_average", "reduce", "reduction")),
    "binary_cross_entropy_with_logits": (
        2, ("weight", "size_average", "reduce", "reduction", "pos_weight")
    ),
    "celu": (1, ("alpha", "inplace")),
    "cosine_embedding_loss": (3, ("margin", "size_average", "reduce", "reduction")),
    "cross_entropy": (
        2, ("weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing")
    ),
    "dropout": (1, ("p", "training", "inplace")),
    "dropout1d": (1, ("p", "training", "inplace")),
    "dropout2d": (1, ("p", "training", "inplace")),
    "elu": (1, ("alpha", "inplace")),
    "embedding": (2, ("padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse")),
    "feature_alpha_dropout": (1, ("p", "training", "inplace")),
    "gaussian_nll_loss": (3, ("full", "eps", "reduction")),
    "group_norm": (2, ("weight", "bias", "eps")),
    "hardtanh": (1, ("min_val", "max_val", "inplace")),
    "hinge_embedding_loss": (2, ("margin", "size_average", "reduce", "reduction")),
    "huber_loss": (2, ("reduction", "delta", "weight")),
    "instance_norm": (
        1, ("running_mean", "running_var", "weight", "bias", "use_input_stats", "momentum", "eps")
    ),
    "interpolate": (
        1, ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias")
    ),
    "kl_div": (2, ("size_average", "reduce", "reduction", "log_target")),
    "l1_loss": (2, ("size_average", "reduce", "reduction")),
    "layer_norm": (2, ("weight", "bias", "eps")),
    "leaky_relu": (1, ("negative_slope", "inplace")),
    "log_softmax": (1, ("dim", "_stacklevel", "dtype")),
    "margin_ranking_loss": (3, ("margin", "size_average", "reduce", "reduction")),
    "max_pool1d_with_indices": (
        2, ("stride", "padding", "dilation", "ceil_mode", "return_indices")
    ),
    "max_pool2d_with_indices": (
        2, ("stride", "padding", "dilation", "ceil_mode", "return_indices")
    ),
    "mish": (1, ("inplace",)),
    "mse_loss": (2, ("size_average", "reduce", "reduction", "weight")),
    "multi_margin_loss": (2, ("p", "margin", "weight", "size_average", "reduce", "reduction")),
    "multilabel_soft_margin_loss": (2, ("weight", "size_average", "reduce", "reduction")),
    "nll_loss": (2, ("weight", "size_average", "ignore_index", "reduce", "reduction")),
    "normalize": (1, ("p", "dim", "eps", "out")),
    "poisson_nll_loss": (
        2, ("log_input", "full", "size_average", "eps", "reduce", "reduction")
    ),
    "relu": (1, ("inplace",)),
    "relu6": (1, ("inplace",)),
    "selu": (1, ("inplace",)),
    "silu": (1, ("inplace",)),
    "smooth_l1_loss": (2, ("size_average", "reduce", "reduction", "beta")),
    "soft_margin_loss": (2, ("size_average", "reduce", "reduction")),
    "softmax": (1, ("dim", "_stacklevel", "dtype")),
    "softmin": (1, ("dim", "_stacklevel", "dtype")),
    "triplet_margin_loss": (
        3, ("margin", "p", "eps", "swap", "size_average", "reduce", "reduction")
    ),
}  # fmt: skip

# ``F.tanh`` and ``F.sigmoid`` are plain Python in PyTorch (``input.tanh()``): tracing
# runs them, and their method call is what gets recorded.
_TRACED_THROUGH_FUNCTIONAL = frozenset({"tanh", "sigmoid"})


class _Traceable(NamedTuple):
    namespace: types.ModuleType
    name: str
    fn: Callable[..., Any]


@functools.cache
def _traceable_functions() -> tuple[_Traceable, ...]:
    """The engine functions a trace intercepts, found once (before any patching):
    the operators of ``vizgrad`` and the functions of ``vizgrad.nn.functional``."""
    import vizgrad
    import vizgrad.nn.functional as F

    found = []
    for name, value in vars(vizgrad).items():
        if (not name.startswith("_") and isinstance(value, types.FunctionType)
                and value.__module__.startswith("vizgrad.ops")):  # fmt: skip
            found.append(_Traceable(vizgrad, name, value))
    for name, value in vars(F).items():
        if (not name.startswith("_") and isinstance(value, types.FunctionType)
                and name not in _TRACED_THROUGH_FUNCTIONAL):  # fmt: skip
            found.append(_Traceable(F, name, value))
    return tuple(found)


@functools.cache
def _namespace_names_cache() -> dict[int, str]:
    import vizgrad
    import vizgrad.nn.functional as F

    names: dict[int, str] = {}
    for namespace, prefix in ((F, "vizgrad.nn.functional"), (vizgrad, "vizgrad")):
        for name, value in vars(namespace).items():
            if name.startswith("_") or isinstance(value, types.ModuleType):
                continue
            # An object's own name wins over an alias (``vizgrad.abs``, not ``absolute``);
            # ``vizgrad.relu`` wins over ``vizgrad.nn.functional.relu`` when both exist.
            if getattr(value, "__name__", None) == name or id(value) not in names:
                names[id(value)] = f"{prefix}.{name}"
    return names


def _vizgrad_namespace_names() -> dict[int, str]:
    """``id(obj) -> "vizgrad.name"`` for the public objects of ``vizgrad`` and
    ``vizgrad.nn.functional`` (the originals: built before anything is patched)."""
    _traceable_functions()
    return _namespace_names_cache()


def _torch_forwarded_call(fn, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments as ``torch.nn.functional`` passes them to ``__torch_function__``."""
    spec = _TORCH_FUNCTIONAL_FORWARDING.get(fn.__name__)
    if spec is None:
        return args, kwargs
    n_positional, keywords = spec
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    values = bound.arguments
    params = list(values)
    return (tuple(values[p] for p in params[:n_positional]),
            {k: values[k] for k in keywords})  # fmt: skip


def _create_wrapped_func(
    orig_fn: Callable[..., Any], *, functional: bool = False, is_wrapped: bool = False
):
    """``orig_fn`` as a tracer sees it: a proxy among the arguments → a ``call_function``
    node for ``orig_fn``; otherwise the real call (constants are computed, not traced)."""

    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return orig_fn(*args, **kwargs)
        if functional:
            args, kwargs = _torch_forwarded_call(orig_fn, args, kwargs)
        tracer = proxy.tracer
        return_proxy = tracer.create_proxy("call_function", orig_fn, args, kwargs,
                                           name=tracer.graph._target_to_str(orig_fn.__name__))  # fmt: skip
        if is_wrapped:
            # The generated code re-registers it with ``wrap``, so a retrace keeps it whole.
            return_proxy.node.meta["is_wrapped"] = True
        return return_proxy

    wrapped.__fx_orig__ = orig_fn
    return wrapped


# --- patching, undone on exit (PyTorch's ``_Patcher``) -------------------------------------


class _PatchedFn(NamedTuple):
    frame_dict: Any  # a namespace dict, or a class for ``_PatchedFnSetAttr``
    fn_name: str
    orig_fn: Any
    new_fn: Any

    def revert(self) -> None:
        raise NotImplementedError

    def patch(self) -> None:
        raise NotImplementedError


class _PatchedFnSetItem(_PatchedFn):
    def revert(self) -> None:
        self.frame_dict[self.fn_name] = self.orig_fn

    def patch(self) -> None:
        self.frame_dict[self.fn_name] = self.new_fn


class _PatchedFnDel(_PatchedFn):
    def revert(self) -> None:
        del self.frame_dict[self.fn_name]

    def patch(self) -> None:
        self.frame_dict[self.fn_name] = self.new_fn


class _PatchedFnSetAttr(_PatchedFn):
    def revert(self) -> None:
        setattr(self.frame_dict, self.fn_name, self.orig_fn)

    def patch(self) -> None:
        setattr(self.frame_dict, self.fn_name, self.new_fn)


class _Patcher:
    """Replace names in namespaces and methods on classes until the ``with`` ends."""

    def __init__(self) -> None:
        self.patches_made: list[_PatchedFn] = []
        self.visited: set[int] = set()

    def patch(self, frame_dict: dict, name: str, new_fn, deduplicate: bool = True) -> None:
        new_fn.__fx_already_patched = deduplicate
        if name not in frame_dict and hasattr(builtins, name):
            # ``len`` is found in builtins: shadow it by a global, deleted afterwards.
            self.patches_made.append(_PatchedFnDel(frame_dict, name, None, new_fn))
        elif getattr(frame_dict[name], "__fx_already_patched", False):
            return  # already patched by an enclosing trace
        else:
            self.patches_made.append(_PatchedFnSetItem(frame_dict, name, frame_dict[name], new_fn))
        self.patches_made[-1].patch()

    def patch_method(self, cls: type, name: str, new_fn, deduplicate: bool = True) -> None:
        new_fn.__fx_already_patched = deduplicate
        orig_fn = getattr(cls, name)
        if getattr(orig_fn, "__fx_already_patched", False):
            return
        self.patches_made.append(_PatchedFnSetAttr(cls, name, orig_fn, new_fn))
        self.patches_made[-1].patch()

    def visit_once(self, thing: object) -> bool:
        """True the first time ``thing`` is seen, then False."""
        idx = id(thing)
        if idx in self.visited:
            return False
        self.visited.add(idx)
        return True

    def __enter__(self) -> _Patcher:
        return self

    def __exit__(self, *exc) -> None:
        # Undo in reverse order, so a name patched twice gets its original back.
        while self.patches_made:
            self.patches_made.pop().revert()
        self.visited.clear()


# ``wrap("name")``: (id of the globals dict, name) -> that globals dict.
_wrapped_fns_to_patch: dict[tuple[int, str], dict] = {}


def _patch_wrapped_functions(patcher: _Patcher) -> None:
    """Wrap the functions registered with ``wrap`` in their modules' globals."""
    for (_, name), frame_dict in _wrapped_fns_to_patch.copy().items():
        if name not in frame_dict and hasattr(builtins, name):
            orig_fn = getattr(builtins, name)
        else:
            orig_fn = frame_dict[name]
        patcher.patch(frame_dict, name, _create_wrapped_func(orig_fn, is_wrapped=True))


def _patch_vizgrad_functions(patcher: _Patcher) -> None:
    """Wrap the engine functions in ``vizgrad`` and ``vizgrad.nn.functional``."""
    for t in _traceable_functions():
        is_functional = t.namespace.__name__ == "vizgrad.nn.functional"
        patcher.patch(vars(t.namespace), t.name,
                      _create_wrapped_func(t.fn, functional=is_functional))  # fmt: skip


def _autowrap_check(patcher: _Patcher, frame_dict: dict, function_ids: dict[int, bool]) -> None:
    """Wrap, in one module's globals, the names bound to functions a trace intercepts
    (``from vizgrad import relu``; ``from math import sqrt``)."""
    if patcher.visit_once(frame_dict):
        for name, value in list(frame_dict.items()):
            if not name.startswith("_") and callable(value) and id(value) in function_ids:
                patcher.patch(frame_dict, name,
                              _create_wrapped_func(value, functional=function_ids[id(value)]))  # fmt: skip


def wrap(fn_or_name: str | Callable[..., Any]):
    """Record calls to this module-level function as one ``call_function`` node instead
    of tracing into it. Call it at module scope: ``vizgrad.fx.wrap("len")`` or as a
    decorator ``@vizgrad.fx.wrap``."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError(
            "Unsupported type for global function! Must be either a callable or string name"
        )
    if callable(fn_or_name):
        if isinstance(fn_or_name, str):
            raise AssertionError("fn_or_name should not be a string here")
        fn_name = fn_or_name.__name__
    else:
        fn_name = fn_or_name
    currentframe = inspect.currentframe()
    f = currentframe.f_back
    if f.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(f.f_globals), fn_name)] = f.f_globals
    return fn_or_name


@has_side_effect
def _assert(condition, message: str) -> None:
    """``torch._assert``: the check ``concrete_args`` puts into the graph."""
    if not condition:
        raise AssertionError(message)


@has_side_effect
def _assert_is_none(value, msg: str) -> None:
    if value is not None:
        raise AssertionError(msg)


# --- the tracer ------------------------------------------------------------------------------


class Tracer(TracerBase):
    """Records ``forward`` (or a function) into a ``Graph``; ``symbolic_trace(m)`` is
    ``GraphModule(m, Tracer().trace(m))``. Subclass it to change what is a leaf
    (``is_leaf_module``), how modules are called (``call_module``), how attributes
    are read (``getattr``) or how values become arguments (``create_arg``)."""

    def __init__(self, autowrap_modules: tuple[types.ModuleType, ...] = (math,),
                 autowrap_functions: tuple[Callable[..., Any], ...] = (),
                 param_shapes_constant: bool = False) -> None:  # fmt: skip
        super().__init__()
        # id(function) -> whether it is a ``vizgrad.nn.functional`` function.
        self._autowrap_function_ids: dict[int, bool] = {
            id(value): False
            for m in autowrap_modules
            for name, value in m.__dict__.items()
            if not name.startswith("_") and callable(value)
        }
        self._autowrap_function_ids.update({id(f): False for f in autowrap_functions})
        for t in _traceable_functions():
            self._autowrap_function_ids[id(t.fn)] = t.namespace.__name__.endswith("functional")
        self._autowrap_search: list[types.ModuleType] = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict | None = None
        self.root_module_name = ""

    _qualname_counter: dict[str, int] = {}

    def get_fresh_qualname(self, prefix: str) -> str:
        """A new attribute name on the root: ``_tensor_constant0``, ``_tensor_constant1``…"""
        qualname = f"{prefix}0"
        if not hasattr(self.root, qualname):
            self._qualname_counter[prefix] = 0
            return qualname
        i = self._qualname_counter.get(prefix, 0)
        while True:
            qualname = f"{prefix}{i}"
            i += 1
            if not hasattr(self.root, qualname):
                break
        self._qualname_counter[prefix] = i
        return qualname

    def create_arg(self, a: Any) -> Argument:
        """Also lower the root's parameters, buffers and submodules to ``get_attr`` nodes,
        and store any other tensor on the root as a ``_tensor_constant``."""
        from ..nn import Module, Parameter
        from ..tensor import Tensor

        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        elif isinstance(a, Tensor):
            for n_, p_ in self.root.named_buffers():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
        elif isinstance(a, Module):
            for n_, p_ in self.root.named_modules():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            args = tuple(self.create_arg(elem) for elem in a)
            return self.create_node("call_function", a.__class__, args, {})
        if isinstance(a, Tensor):
            # A tensor has no repr the code could rebuild it from: read it from the root.
            qualname = self.tensor_attrs.get(id(a))
            if not qualname:
                qualname = self.get_fresh_qualname("_tensor_constant")
                self.tensor_attrs[id(a)] = qualname
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        """The modules of ``vizgrad.nn`` are leaves (one ``call_module`` node each), except
        ``Sequential``, which is traced through; user modules are traced through."""
        from ..nn import Sequential

        return m.__module__.startswith("vizgrad.nn") and not isinstance(m, Sequential)

    def path_of_module(self, mod) -> str:
        """``mod``'s dotted path in the root (``"layers.0"``)."""
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """A module call: a ``call_module`` node for a leaf, else trace its ``forward``."""
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict[str, Proxy]) -> Any:
        """``module.attr`` during tracing: a parameter or buffer of the root becomes a
        ``get_attr`` proxy (one per attribute, cached); anything else is returned as is."""
        from ..nn import Parameter
        from ..tensor import Tensor

        def maybe_get_proxy_for_attr(attr_val, collection_to_search, cache):
            for n, p in collection_to_search:
                if attr_val is p:
                    if n not in cache:
                        cache[n] = self.create_proxy("get_attr", n, (), {})
                    return cache[n]
            return None

        if isinstance(attr_val, Parameter):
            proxy = maybe_get_proxy_for_attr(attr_val, self.root.named_parameters(),
                                             parameter_proxy_cache)  # fmt: skip
            if proxy is not None:
                return proxy
        if self.proxy_buffer_attributes and isinstance(attr_val, Tensor):
            proxy = maybe_get_proxy_for_attr(attr_val, self.root.named_buffers(),
                                             parameter_proxy_cache)  # fmt: skip
            if proxy is not None:
                return proxy
        return attr_val

    def create_args_for_root(self, root_fn, is_module: bool, concrete_args=None):
        """The arguments ``forward`` is traced with: ``self``, then one placeholder proxy
        per parameter (or the concrete value given for it)."""
        fn_for_analysis = inspect.unwrap(root_fn)
        co = fn_for_analysis.__code__
        total_args = co.co_argcount + co.co_kwonlyargcount
        names_iter = iter(co.co_varnames)
        args: list[Any] = []
        skip_arg_idx = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip_arg_idx = 1
            next(names_iter)  # skip self
            args.append(self.root)
        sig = inspect.signature(fn_for_analysis)
        arg_names = [next(names_iter) for _ in range(skip_arg_idx, total_args)]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(
                    f"Tracing expected {len(arg_names)} arguments but got "
                    f"{len(concrete_args)} concrete arguments"
                )
            concrete_args = dict(zip(arg_names, concrete_args, strict=True))

        def proxy_placeholder(name: str) -> Any:
            return self._proxy_placeholder(name, concrete_args, sig, fn_for_analysis)

        args.extend(proxy_placeholder(name) for name in arg_names)
        if co.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
            raise NotImplementedError(
                "vizgrad.fx traces functions with named parameters only (no *args, **kwargs)"
            )
        return root_fn, args

    def _proxy_placeholder(self, name: str, concrete_args, sig, fn_for_analysis) -> Any:
        param = sig.parameters[name]
        default = () if param.default is inspect.Parameter.empty else (param.default,)
        if concrete_args is not None and name in concrete_args:
            x = concrete_args[name]
            # The parameter stays in the signature, and the graph checks that a call
            # passes the value the code was specialised for (PyTorch adds the same).
            out = self.create_proxy("placeholder", f"{name}_1", default, {})
            if isinstance(x, PHBase):
                return out
            if type(x) in (bool, int, float, str, complex):
                self.create_proxy("call_function", _assert, (
                    out == x, f"{name} has been specialized to have value {x} but got another value"
                ), {})  # fmt: skip
            elif x is None:
                self.create_proxy("call_function", _assert_is_none, (
                    out, f"{name} has been specialized to have value None but got another value"
                ), {})  # fmt: skip
            return x
        return self.create_proxy("placeholder", name, default, {},
                                 type_expr=fn_for_analysis.__annotations__.get(name, None))  # fmt: skip

    def trace(self, root, concrete_args: dict[str, Any] | None = None) -> Graph:
        """Trace ``root`` (a ``vizgrad.nn.Module`` or a function) into a ``Graph``.

        For a function, ``self.root`` becomes an empty ``Module`` that holds any
        constants the trace stores.
        """
        from ..nn import Module

        global _is_fx_tracing_flag
        old_is_fx_tracing_flag = _is_fx_tracing_flag
        _is_fx_tracing_flag = True
        try:
            if isinstance(root, Module):
                self.root = root
                fn = getattr(type(root), self.traced_func_name)
                self.root_module_name = root._get_name()
                self.submodule_paths = {mod: name for name, mod in root.named_modules()}
            else:
                self.root = Module()
                fn = root
            self.graph = Graph(tracer_cls=getattr(self, "__class__", None))
            # Tensors kept as plain attributes of a module: read with ``get_attr``.
            self.tensor_attrs: dict[int, str] = {}
            self._collect_tensor_attrs(self.root, [])

            if not isinstance(fn, types.FunctionType):
                raise AssertionError(f"Expected FunctionType, got {type(fn)}")
            fn_globals = fn.__globals__  # before it gets patched
            fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)

            parameter_proxy_cache: dict[str, Proxy] = {}
            orig_module_getattr = Module.__getattr__
            orig_module_call = Module.__call__

            @functools.wraps(orig_module_getattr)
            def module_getattr_wrapper(mod, attr: str) -> Any:
                attr_val = orig_module_getattr(mod, attr)
                return self.getattr(attr, attr_val, parameter_proxy_cache)

            @functools.wraps(orig_module_call)
            def module_call_wrapper(mod, *args, **kwargs) -> Any:
                def forward(*args, **kwargs) -> Any:
                    return orig_module_call(mod, *args, **kwargs)

                _autowrap_check(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}),
                                self._autowrap_function_ids)  # fmt: skip
                return self.call_module(mod, forward, args, kwargs)

            with _Patcher() as patcher:
                patcher.patch_method(Module, "__getattr__", module_getattr_wrapper,
                                     deduplicate=False)  # fmt: skip
                patcher.patch_method(Module, "__call__", module_call_wrapper, deduplicate=False)
                _patch_wrapped_functions(patcher)
                _patch_vizgrad_functions(patcher)
                _autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                for module in self._autowrap_search:
                    _autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
                self.create_node("output", "output", (self.create_arg(fn(*args)),), {},
                                 type_expr=fn.__annotations__.get("return", None))  # fmt: skip
            self.submodule_paths = None
        finally:
            _is_fx_tracing_flag = old_is_fx_tracing_flag
        return self.graph

    def _collect_tensor_attrs(self, m, prefix_atoms: list[str]) -> None:
        from ..tensor import Tensor

        for k, v in m.__dict__.items():
            if isinstance(v, Tensor):
                self.tensor_attrs[id(v)] = ".".join(prefix_atoms + [k])
        for k, v in m.named_children():
            self._collect_tensor_attrs(v, prefix_atoms + [k])


@contextlib.contextmanager
def _tracing_patches():
    """The engine functions patched, outside a ``Tracer.trace``: what ``Transformer``
    needs so that ``vizgrad.relu(proxy)`` in an overridden method records a node."""
    with _Patcher() as patcher:
        _patch_wrapped_functions(patcher)
        _patch_vizgrad_functions(patcher)
        yield patcher


def symbolic_trace(root, concrete_args: dict[str, Any] | None = None) -> GraphModule:
    """Trace ``root`` (a ``vizgrad.nn.Module`` or a function) and return a
    ``GraphModule`` that runs the recorded graph.

    ``concrete_args`` fixes some inputs to values, removing the control flow that
    depends on them::

        def f(x, flag):
            return x.relu() if flag else -x

        gm = vizgrad.fx.symbolic_trace(f, concrete_args={"flag": True})
    """
    from ..nn import Module

    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
