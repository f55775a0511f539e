"""``torch.fx.Node``: one operation of a ``Graph`` (``torch/fx/node.py``).

A node is one line of the program FX recorded. It has six opcodes, as in PyTorch:

============== ====================================== ========================================
``op``         ``target``                             meaning
============== ====================================== ========================================
placeholder    the parameter's name (``"x"``)         an input of ``forward``
get_attr       a dotted attribute path (``"weight"``) ``self.weight``
call_function  a Python callable (``vizgrad.relu``)   ``target(*args, **kwargs)``
call_method    a method name (``"view"``)             ``args[0].view(*args[1:], **kwargs)``
call_module    a submodule path (``"layers.0"``)      ``self.layers[0](*args, **kwargs)``
output         ``"output"``                           ``return args[0]``
============== ====================================== ========================================

``args`` and ``kwargs`` hold constants and other nodes. A node knows the nodes it reads
(``all_input_nodes``) and the nodes that read it (``users``): both are kept up to date
whenever ``args`` or ``kwargs`` are assigned, which is what makes graph surgery
(``replace_all_uses_with``, ``Graph.erase_node``) safe. Nodes form a doubly linked
list (``prev``/``next``) around a sentinel ``root`` node owned by the graph, so
inserting and erasing while iterating is cheap and well defined.
"""

from __future__ import annotations

import builtins
import operator
import types
from collections.abc import Callable
from typing import Any

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect"]

Target = Callable[..., Any] | str
Argument = Any  # a constant, a Node, or a tuple/list/dict/slice of Arguments

_legal_ops = dict.fromkeys(
    ["call_function", "call_method", "get_attr", "call_module", "placeholder", "output"]
)

# Functions ``eliminate_dead_code`` must keep even when nobody reads their result:
# asserts and in-place item assignment (torch's ``_side_effectful_functions``).
_side_effectful_functions: set[Callable[..., Any]] = {operator.setitem}


def has_side_effect(fn):
    """Register ``fn`` so that ``Graph.eliminate_dead_code`` never removes its calls."""
    _side_effectful_functions.add(fn)
    return fn


def _vizgrad_public_name(func) -> str | None:
    """``vizgrad.relu`` or ``vizgrad.nn.functional.relu``: where users find ``func``.

    The engine defines its operators in ``vizgrad.ops.*`` modules (their ``__module__``),
    but a program calls them through the ``vizgrad`` and ``vizgrad.nn.functional``
    namespaces, as PyTorch code calls ``torch.relu`` (defined in ``torch._C``). The
    generated code must use those public names.
    """
    from ._symbolic_trace import _vizgrad_namespace_names

    return _vizgrad_namespace_names().get(id(func))


def _get_qualified_name(func: Callable[..., Any]) -> str:
    """The dotted name the generated code uses for ``func`` (``_get_qualified_name``)."""
    # Things like ``getattr`` are just builtins.
    if getattr(builtins, func.__name__, None) is func:
        return func.__name__
    public = _vizgrad_public_name(func)
    if public is not None:
        return public
    name = func.__name__
    if name == "<lambda>":
        raise RuntimeError("Unable to represent lambda")
    return f"{func.__module__}.{name}"


def _format_arg(arg: object, max_list_len: float = float("inf")) -> str:
    """How ``str(graph)`` prints an argument: nodes as ``%name``, dict keys unquoted."""
    if isinstance(arg, list):
        items = ", ".join(_format_arg(a) for idx, a in enumerate(arg) if idx < max_list_len)
        maybe_len = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"[{items}{maybe_len}]"
    elif isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for idx, a in enumerate(arg) if idx < max_list_len)
        maybe_len = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        maybe_comma = "," if len(arg) == 1 else ""
        return f"({items}{maybe_comma}{maybe_len})"
    elif isinstance(arg, dict):
        items_str = ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items())
        return f"{{{items_str}}}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


def _type_repr(obj: object) -> str:
    """A type annotation's short name (``typing``'s ``_type_repr``)."""
    if isinstance(obj, type):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        return f"{obj.__module__}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if isinstance(obj, types.FunctionType):
        return obj.__name__
    return repr(obj)


class Node:
    """One operation of a ``Graph``: ``op``, ``target``, ``args``, ``kwargs``, ``name``.

    Create nodes with the ``Graph`` methods (``graph.call_function(...)``…), which
    give each a unique name and insert it at the graph's insertion point.
    """

    def __init__(self, graph, name: str, op: str, target: Target, args: tuple,
                 kwargs: dict, return_type: Any | None = None) -> None:  # fmt: skip
        if op == "call_function":
            if not callable(target):
                raise ValueError(
                    f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                    f"{type(target).__name__} but a Callable is expected"
                )
        else:
            if op not in _legal_ops and op != "root":
                raise AssertionError(f"op '{op}' is not in _legal_ops")
            if not isinstance(target, str):
                raise ValueError(
                    f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                    f"{type(target).__name__} but a str is expected"
                )
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = return_type
        # The nodes this node reads, in order (a dict used as an ordered set) …
        self._input_nodes: dict[Node, None] = {}
        # … and the nodes that read this one: the two sides of every edge.
        self.users: dict[Node, None] = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self._prev = self
        self._next = self
        self._erased = False
        self._repr_fn: Callable[[Node], str] | None = None
        self.meta: dict[str, Any] = {}
        self._update_args_kwargs(args, kwargs)

    # --- the linked list -------------------------------------------------------------------

    @property
    def next(self) -> Node:
        """The next node of the graph (the sentinel ``root`` after the last one)."""
        return self._next

    @property
    def prev(self) -> Node:
        """The previous node of the graph (the sentinel ``root`` before the first one)."""
        return self._prev

    def prepend(self, x: Node) -> None:
        """Move or insert ``x`` just before this node."""
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if self is x:
            raise AssertionError("Cannot prepend a node to itself")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: Node) -> None:
        """Move or insert ``x`` just after this node (``self.next.prepend(x)``)."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # --- arguments and the use lists ---------------------------------------------------------

    @property
    def args(self) -> tuple:
        """The positional arguments. Assigning them updates every ``users`` table."""
        return self._args

    @args.setter
    def args(self, a: tuple) -> None:
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict:
        """The keyword arguments. Assigning them updates every ``users`` table."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k: dict) -> None:
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list[Node]:
        """The nodes in ``args`` and ``kwargs``, in order of first appearance."""
        return list(self._input_nodes)

    def update_arg(self, idx: int, arg: Argument) -> None:
        """Set ``self.args[idx] = arg``."""
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg: Argument) -> None:
        """Insert ``arg`` as the positional argument number ``idx``."""
        if not 0 <= idx <= len(self.args):
            raise AssertionError("insert_args index must be between 0 and len(self.args)")
        self.args = self.args[:idx] + (arg,) + self.args[idx:]

    def update_kwarg(self, key: str, arg: Argument) -> None:
        """Set ``self.kwargs[key] = arg``."""
        self.kwargs = {**self.kwargs, key: arg}

    def _update_args_kwargs(self, new_args: tuple, new_kwargs: dict) -> None:
        """The one place edges change: unhook from the old inputs, hook into the new."""
        for old_use in self._input_nodes:
            old_use.users.pop(self)
        self._input_nodes = {}
        self._args = map_aggregate(new_args, lambda a: a)
        self._kwargs = dict(map_aggregate(dict(new_kwargs), lambda a: a))
        map_arg(self._args, self._input_nodes.setdefault)
        map_arg(self._kwargs, self._input_nodes.setdefault)
        for new_use in self._input_nodes:
            new_use.users.setdefault(self)

    def replace_all_uses_with(self, replace_with: Node, delete_user_cb=None, *,
                              propagate_meta: bool = False) -> list[Node]:  # fmt: skip
        """Make every user of this node read ``replace_with`` instead; return those users.

        ``delete_user_cb(user)`` may return False to keep a user on this node.
        """
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError(
                    "Called node.replace_all_uses_with(replace_with, propagate_meta=True), "
                    "but replace_with already has .meta keys"
                )
            replace_with.meta.update(self.meta)
        result = []
        for use_node in list(self.users):
            if delete_user_cb is not None and not delete_user_cb(use_node):
                continue
            result.append(use_node)
            use_node._replace_input_with(self, replace_with)
        return result

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Read ``new_input`` wherever this node read ``old_input``."""
        self._replace_input_with(old_input, new_input)

    def _replace_input_with(self, old_input: Node, new_input: Node) -> None:
        def swap(n: Node) -> Node:
            return new_input if n is old_input else n

        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def is_impure(self) -> bool:
        """Whether dead-code elimination must keep this node even without users."""
        if self.op in {"placeholder", "output"}:
            return True
        if self.op == "call_module":
            if self.graph.owning_module is None:
                raise AssertionError("self.graph.owning_module not set for purity check")
            target_mod = self.graph.owning_module.get_submodule(self.target)
            return getattr(target_mod, "_is_impure", False)
        if self.op == "call_function":
            return self.target in _side_effectful_functions
        return False

    # --- printing --------------------------------------------------------------------------

    def __repr__(self) -> str:
        # Code generation swaps in a function that returns the name in its own namespace.
        if self._repr_fn:
            return self._repr_fn(self)
        return self.name

    @staticmethod
    def _pretty_print_target(target: object) -> str:
        """``builtins.getattr``, ``operator.add``, ``vizgrad.relu`` or the string itself."""
        if isinstance(target, str):
            return target
        if hasattr(target, "__module__"):
            name = getattr(target, "__name__", None)
            if name is None:
                return _get_qualified_name(target)
            if target.__module__ == "builtins":
                return f"builtins.{name}"
            elif target.__module__ == "_operator":
                return f"operator.{name}"
        return _get_qualified_name(target)

    def format_node(self, placeholder_names: list[str] | None = None,
                    maybe_return_typename: list[str] | None = None) -> str | None:  # fmt: skip
        """One line of ``str(graph)``: ``%add : [num_users=1] = call_function[...](...)``."""
        if self.op == "placeholder":
            arg_str = self.target
            arg_str += arg_str + f": {_type_repr(self.type)}" if self.type else ""
            if placeholder_names:
                placeholder_names.append(arg_str)
                return None
            maybe_typename = f"{_type_repr(self.type)} " if self.type else ""
            default_val = "(default=" + str(self.args[0]) + ")" if self.args else ""
            return (
                f"%{self.name} : {maybe_typename}[num_users={len(self.users)}] = "
                f"{self.op}[target={self.target}]{default_val}"
            )
        elif self.op == "get_attr":
            maybe_typename = f"{_type_repr(self.type)} " if self.type is not None else ""
            return (
                f"%{self.name} : {maybe_typename}[num_users={len(self.users)}] = "
                f"{self.op}[target={self._pretty_print_target(self.target)}]"
            )
        elif self.op == "output":
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        maybe_typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        return (
            f"%{self.name} : {maybe_typename}[num_users={len(self.users)}] = "
            f"{self.op}[target={self._pretty_print_target(self.target)}]("
            f"args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"
        )

    def _rename(self, candidate: str) -> None:
        if candidate == self.name:
            return
        name = self.graph._graph_namespace.create_name(candidate, None)
        self.name = name
        self.graph._graph_namespace._rename_object(self, name)


def map_arg(a: Argument, fn: Callable[[Node], Argument]) -> Argument:
    """Apply ``fn`` to every ``Node`` inside ``a`` (tuples, lists, dicts, slices kept)."""
    if not callable(fn):
        raise AssertionError("vizgrad.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def map_aggregate(a: Argument, fn: Callable[[Argument], Argument]) -> Argument:
    """Apply ``fn`` to every leaf of ``a``, rebuilding tuples, lists, dicts and slices."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(elem, fn) for elem in a)
        # A NamedTuple is rebuilt by its fields, a plain tuple as it is.
        return t if not hasattr(a, "_fields") else type(a)(*t)
    elif isinstance(a, list):
        return [map_aggregate(elem, fn) for elem in a]
    elif isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    elif isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))  # fmt: skip
    return fn(a)
