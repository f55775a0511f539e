"""``torch.fx.GraphModule``: a module whose ``forward`` is generated from a ``Graph``
(``torch/fx/graph_module.py``).

``GraphModule(root, graph)`` copies from ``root`` exactly what the graph uses — the
submodules of its ``call_module`` nodes and the parameters, buffers and constants of
its ``get_attr`` nodes, at the same dotted paths — then *compiles* the graph:
``graph.python_code("self")`` gives the source of ``forward``, which is executed
(``exec``) with the globals it needs, and installed as this instance's ``forward``.
The code executed is the one the graph itself generated: ``gm.code`` shows it.

After editing the graph (``node.target = ...``, inserting or erasing nodes) call
``recompile()``; assigning a new graph (``gm.graph = g``) recompiles by itself.

As in PyTorch, each ``GraphModule`` instance gets its own class (``GraphModuleImpl``),
so that two graph modules can carry different ``forward`` methods; the class is named
after the traced module, which is what ``print(gm)`` and ``print_readable`` show.
"""

from __future__ import annotations

from typing import Any

from ..nn import Module
from ..nn.modules.module import _addindent
from ..nn.parameter import Parameter
from ..tensor import Tensor
from .graph import Graph, PythonCode

__all__ = ["GraphModule"]


def _forward_from_src(src: str, globals_: dict[str, Any]):
    """Execute the generated source and return the ``forward`` function it defines."""
    globals_copy = dict(globals_)  # never modify the graph's own table
    exec(compile(src, "<eval_with_key>", "exec", dont_inherit=True), globals_copy)
    return globals_copy["forward"]


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    """Copy ``from_module.<target>`` to the same dotted path of ``to_module``, creating
    empty ``Module`` parents on the way (a tensor that is no parameter becomes a buffer)."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            # A parent was already copied whole: its children came with it.
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if isinstance(orig, Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj: object, to_module: Module, target: str) -> None:
    """Install ``from_obj`` at ``to_module.<target>`` (for a ``dict`` root)."""
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    if isinstance(from_obj, Tensor) and not isinstance(from_obj, Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


class GraphModule(Module):
    """A ``vizgrad.nn.Module`` generated from a ``Graph``: ``graph``, ``code`` and
    ``forward`` always describe the same program (after ``recompile()``)."""

    def __new__(cls, *args, **kwargs):
        # Each instance needs its own ``forward``: give it its own subclass.
        for t in cls.__mro__:
            if t.__qualname__.split(".")[-1] != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):
            pass

        return super().__new__(GraphModuleImpl)

    def __init__(self, root: Module | dict[str, Any], graph: Graph,
                 class_name: str = "GraphModule") -> None:  # fmt: skip
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ["get_attr", "call_module"]:
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets_to_copy = []
            for node in graph.nodes:
                if node.op in ["get_attr", "call_module"]:
                    if node.target not in root:
                        raise RuntimeError(
                            "Node "
                            + str(node)
                            + " referenced target "
                            + node.target
                            + " but that target was not provided in ``root``!"
                        )
                    targets_to_copy.append(node.target)
            # Parents before children: ``foo.bar`` is installed before ``foo.bar.baz``.
            targets_to_copy.sort(key=lambda t: t.count("."))
            for target_to_copy in targets_to_copy:
                _assign_attr(root[target_to_copy], self, target_to_copy)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph
        self._tracer_cls = graph._tracer_cls
        self.meta: dict[str, Any] = {}

    @property
    def graph(self) -> Graph:
        """The ``Graph`` this module runs."""
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of ``forward``, generated from the graph."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated!")
        return self._code

    def recompile(self) -> PythonCode:
        """Regenerate ``code`` and ``forward`` from ``graph`` (call after editing it)."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        type(self).forward = _forward_from_src(self._code, python_code.globals)
        return python_code

    def add_submodule(self, target: str, m: Module) -> bool:
        """Install ``m`` at the dotted path ``target``, creating empty parents; False if
        something on the path is not a module."""
        *prefix, field = target.split(".")
        mod: Module = self
        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = Module()
                setattr(mod, item, submod)
            if not isinstance(submod, Module):
                return False
            mod = submod
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        """Delete the submodule at ``target``; False if there is none."""
        atoms = target.split(".")
        path, target_submod = atoms[:-1], atoms[-1]
        mod: Module = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, target_submod) or not isinstance(getattr(mod, target_submod), Module):
            return False
        delattr(mod, target_submod)
        return True

    def print_readable(self, print_output: bool = True) -> str:
        """The code as a class, with a note where each group of nodes came from."""
        verbose_python_code = self._graph.python_code(root_module="self", verbose=True)
        module_code = verbose_python_code.src.lstrip("\n")
        module_code = f"class {self._get_name()}(vizgrad.nn.Module):\n" + module_code
        module_code = _addindent(module_code, 4)
        submodule_code_list = [""]
        for _, submodule in self.named_children():
            if isinstance(submodule, GraphModule):
                submodule_code_list.append(submodule.print_readable(print_output=False))
        output = module_code + _addindent("\n".join(submodule_code_list), 4)
        if print_output:
            print(output)
        return output

    def __str__(self) -> str:
        orig_str = super().__str__()
        print_readable_reminder = (
            "# To see more debug info, please use `graph_module.print_readable()`"
        )
        return "\n".join([orig_str, self._code, print_readable_reminder])
