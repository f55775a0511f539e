"""``torch.optim.Optimizer``: the base every optimizer builds on.

An optimizer holds **param groups** (a list of dicts: the tensors to update under
``"params"`` plus that group's hyperparameters, the constructor's ``defaults``
filling whatever a group leaves out) and **state** (a dict keyed by the parameter
tensor itself: momentum buffers, running averages, step counts). ``step()`` reads
each parameter's ``.grad`` and updates the parameter in place, under ``no_grad``,
with the engine's in-place operators, so every update is an operator call like any
other (dispatched, traced, version-counted).

``state_dict()`` is PyTorch's format exactly: parameters are replaced by their index
in the order the groups list them, so the dict holds no parameter and can be loaded
into another optimizer over other tensors of the same shapes, in vizgrad or in
PyTorch.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

from .. import dtypes, grad_mode
from ..autograd.graph import RemovableHandle
from ..ops.creation import tensor as _tensor
from ..tensor import Tensor
from ..typename import typename

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """The default of a hyperparameter every group must give (PyTorch's ``required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

# The devices PyTorch's capturable (CUDA-graph-safe) optimizers accept; vizgrad runs on
# the CPU only, so ``capturable=True`` is refused at the first step, in PyTorch's words.
CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]
CAPTURABLE_DEVICES_NO_XLA = ["cuda", "xpu", "hpu", "privateuseone"]


def get_value(x):
    """A 0-dim state tensor (``step``, ``mu_product``) as a Python number: the scalar
    arithmetic of a step then runs in double precision, as PyTorch's ``_get_value``."""
    return x.item() if isinstance(x, Tensor) else x


def to_scalar(x):
    """A 1-element hyperparameter tensor squeezed to 0-dim (PyTorch's ``_to_scalar``)."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def scalar_dtype(is_fused=None) -> dtypes.dtype:
    """The dtype of ``step``: float32, or float64 when that is the default dtype."""
    if is_fused:
        return dtypes.float32
    return dtypes.float64 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32


def zero_step(is_fused=None) -> Tensor:
    """A fresh ``state["step"]``: a 0-dim float tensor, as PyTorch keeps it on the CPU."""
    return _tensor(0.0, dtype=scalar_dtype(is_fused))


def step_from_number(value) -> Tensor:
    """An old state dict's ``step`` (a Python number) as the tensor PyTorch makes of it."""
    return _tensor(float(value), dtype=scalar_dtype())


def check_capturable(capturable: bool, devices=CAPTURABLE_DEVICES, what="params and state_steps"):
    """``capturable=True`` needs an accelerator; on the CPU PyTorch's step refuses it."""
    if capturable:
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")


def check_fused(fused, differentiable, foreach) -> None:
    """The constructor checks PyTorch makes when ``fused=True``."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def check_real(params, name: str) -> None:
    """PyTorch steps a complex parameter through ``view_as_real`` (its real and imaginary
    parts as a float tensor over the same memory); vizgrad's storages are typed, so they
    cannot be reinterpreted: say so rather than update the complex numbers wrongly."""
    for p in params:
        if p.is_complex():
            raise NotImplementedError(
                f"vizgrad's {name} does not support complex parameters: PyTorch steps them "
                "through view_as_real, which vizgrad's typed storages cannot provide"
            )


def use_grad_for_differentiable(step):
    """Run a built-in optimizer's ``step`` with grad mode set to its ``differentiable``
    flag: off (no graph is recorded for the updates) unless asked for."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with grad_mode.set_grad_enabled(self.defaults["differentiable"]):
            return step(self, *args, **kwargs)

    return wrapper


def _run_step_with_hooks(step):
    """Wrap an optimizer class's ``step``: the step pre-hooks, the step, the post-hooks.
    PyTorch patches the class at its first construction; vizgrad wraps ``step`` when the
    class is made (``Optimizer.__init_subclass__``)."""

    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]
        for pre_hook in self._optimizer_step_pre_hooks.values():
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        f"{step} must return None or a tuple of (new_args, new_kwargs), but got {result}."
                    )
        if getattr(self, "_step_calls_tracked", False):
            # An LR scheduler watches for its step() coming before the optimizer's.
            self._opt_called = True
        out = step(*args, **kwargs)
        for post_hook in self._optimizer_step_post_hooks.values():
            post_hook(self, args, kwargs)
        return out

    wrapper.runs_step_hooks = True
    return wrapper


class Optimizer:
    """``torch.optim.Optimizer``: param groups, per-parameter state, ``zero_grad``,
    ``state_dict``/``load_state_dict`` and the step hooks.

    Subclasses define ``step(closure=None)``; it runs between the registered step hooks.
    The built-in optimizers' steps run under ``no_grad`` unless ``differentiable=True``.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "runs_step_hooks", False):
            cls.step = _run_step_with_hooks(step)

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()

        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be "
                "an iterable of Tensors or dicts, but got " + typename(params)
            )

        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]

        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def _steps_as_tensors(self, group) -> None:
        """A state saved while ``step`` was a Python number gets it back as a tensor: what
        each optimizer's ``__setstate__`` does for its groups in PyTorch."""
        for p in group["params"]:
            p_state = self.state.get(p, [])
            if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                p_state["step"] = step_from_number(p_state["step"])

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    # --- param groups ---------------------------------------------------------------

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own hyperparameters) to ``param_groups``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")

        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        # ``named_parameters()`` gives (name, tensor) pairs: keep the names beside.
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are missing"
                )

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, "
                    "but one of the params is " + typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )

        param_set: set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                current_group_txt = (
                    "with names" if "param_names" in param_group else "without names"
                )
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {current_group_txt} to the optimizer"
                )

        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)

    # --- gradients and steps --------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to ``None`` (the default), or to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure=None):
        """Perform one optimization step (each optimizer defines it)."""
        raise NotImplementedError

    @staticmethod
    def _evaluate_closure(closure):
        """The closure re-evaluates the model (with grad on, inside a no-grad step)."""
        if closure is None:
            return None
        with grad_mode.enable_grad():
            return closure()

    # --- hooks ----------------------------------------------------------------------

    @staticmethod
    def _register(hooks: OrderedDict, hook, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`` before each step."""
        return self._register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after each step."""
        return self._register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict()`` builds the dict."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict) -> state_dict or None`` after ``state_dict()``."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict) -> state_dict or None`` before loading."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` after loading."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # --- saving and loading ---------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``.

        A parameter's index is its position counting through the groups in order; the
        state tensors are the optimizer's own (not copies), as in PyTorch.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)

        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {
                    id(p): i
                    for i, p in enumerate(group["params"], start_index)
                    if id(p) not in param_mappings
                }
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, Tensor) else k): v
            for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": param_groups}

        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        """A loaded state tensor takes its parameter's floating dtype, except ``step``,
        which stays as saved (float32 even beside float64 parameters) unless the group is
        fused or capturable."""
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=dtypes.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()``: the groups must match this optimizer's in number and
        sizes; the saved state goes to the parameters in the same positions."""
        state_dict = state_dict.copy()  # shallow, as Module.load_state_dict

        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result

        groups = self.param_groups
        # A deep copy: the loaded groups become this optimizer's own.
        saved_groups = deepcopy(state_dict["param_groups"])

        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens, strict=True)):
            raise ValueError(
                "loaded state dict contains a parameter group "
                "that doesn't match the size of optimizer's group"
            )

        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
                strict=True,
            )
        )

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, param_groups, key
                )
            if isinstance(value, dict):
                return {
                    k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                    for k, v in value.items()
                }
            if isinstance(value, Iterable):
                return type(value)(
                    _cast(param, v, param_id=param_id, param_groups=param_groups) for v in value
                )
            return value

        # State of a known parameter is cast to it; any other state is kept as is.
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups, strict=True)]
        self.__setstate__({"state": state, "param_groups": param_groups})

        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)
