"""Which ``nn.Module``'s forward is running: the scope operators and nodes record.

PyTorch keeps this for its tools rather than its engine (``torch.fx`` and the profiler
record an ``nn_module_stack`` for each operation). vizgrad records it so the views can
draw a model's graph the way its author thinks of it:

* every autograd node made while a module runs gets ``node.metadata["module"]``, the
  *module path* from the outermost module called to the innermost one running, as
  ``((qualified_name, type_name), ...)``: ``(("", "Sequential"), ("0", "Linear"))``;
* an ``AccumulateGrad`` made for a parameter of the module tree gets
  ``node.metadata["parameter"]``, the parameter's qualified name (``"0.weight"``), as
  ``named_parameters()`` of the outermost module gives it;
* the events say the same (``OpDispatched.module``, ``NodeCreated.module`` and
  ``NodeCreated.parameter``).

``Module.__call__`` enters the scope (``running(module)``); outside any module the stack
is empty and nothing is recorded. The names are looked up in the outermost module's
``named_modules()``/``named_parameters()``, computed at most once per outermost call
and only when needed.
"""

from __future__ import annotations

__all__ = ["running", "current_path", "parameter_name"]


class _Outermost:
    """The outermost module of a call, and the qualified names of what it holds."""

    __slots__ = ("module", "_module_names", "_parameter_names")

    def __init__(self, module):
        self.module = module
        self._module_names = None
        self._parameter_names = None

    def module_name(self, module) -> str | None:
        if self._module_names is None:
            self._module_names = {id(m): name for name, m in self.module.named_modules()}
        return self._module_names.get(id(module))

    def parameter_name(self, tensor) -> str | None:
        if self._parameter_names is None:
            self._parameter_names = {id(p): name for name, p in self.module.named_parameters()}
        return self._parameter_names.get(id(tensor))


class _Frame:
    __slots__ = ("path", "outermost")

    def __init__(self, path: tuple, outermost: _Outermost):
        self.path = path
        self.outermost = outermost


# The modules running now, outermost first. Pushed and popped by ``running`` only, so
# it is empty whenever no module's forward is on the Python stack.
_stack: list[_Frame] = []


def _child_name(caller: _Frame, module) -> str:
    name = caller.outermost.module_name(module)
    if name is not None:
        return name
    # A module called by another without being registered in the tree (made on the fly
    # in a forward): named after its type, under its caller.
    prefix = caller.path[-1][0]
    own = type(module).__name__
    return f"{prefix}.{own}" if prefix else own


class running:
    """The scope of ``module``'s forward (hooks included): entered by ``Module.__call__``.

    A class rather than a generator context manager: it runs on every module call.
    """

    __slots__ = ("module",)

    def __init__(self, module):
        self.module = module

    def __enter__(self) -> None:
        module = self.module
        if _stack:
            caller = _stack[-1]
            path = (*caller.path, (_child_name(caller, module), type(module).__name__))
            _stack.append(_Frame(path, caller.outermost))
        else:
            _stack.append(_Frame((("", type(module).__name__),), _Outermost(module)))

    def __exit__(self, *exc) -> None:
        _stack.pop()


def current_path() -> tuple:
    """The module path of the innermost running module, ``()`` outside any module."""
    return _stack[-1].path if _stack else ()


def parameter_name(tensor) -> str | None:
    """``tensor``'s qualified name among the running modules' parameters, if it is one."""
    return _stack[-1].outermost.parameter_name(tensor) if _stack else None
