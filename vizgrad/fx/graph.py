"""``torch.fx.Graph``: the recorded program, and the Python code made from it
(``torch/fx/graph.py``).

A ``Graph`` is a linked list of ``Node`` objects in execution order, between a sentinel
``root`` node. Three views of the same list:

* ``str(graph)`` — FX's own IR text (``%add : [num_users=1] = call_function[...]``);
* ``graph.print_tabular()`` — one row per node: opcode, name, target, args, kwargs;
* ``graph.python_code("self").src`` — a real ``def forward(self, x): ...``, the code a
  ``GraphModule`` executes. Each node becomes one assignment; ``x + y`` is printed as an
  operator, ``self.linear(x)`` as an attribute call, and after a value's last use the
  line ends with ``;  x = None`` to free it early, exactly as PyTorch prints it.

Editing happens here too: ``create_node`` (and the helpers ``placeholder``,
``get_attr``, ``call_function``, ``call_method``, ``call_module``, ``output``) insert
at the current insertion point, which ``inserting_before(node)`` /
``inserting_after(node)`` move; ``erase_node`` refuses a node that still has users;
``lint()`` checks the invariants; ``eliminate_dead_code()`` removes unused pure nodes.

Names are unique within a graph (``_Namespace``): a second ``add`` is ``add_1``, and a
name that would shadow a Python builtin gets a suffix (``input`` → ``input_1``,
``getattr`` → ``getattr_1``), which is why PyTorch's graphs show those names.
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import math
import re
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .node import (
    Argument,
    Node,
    Target,
    _get_qualified_name,
    _legal_ops,
    _type_repr,
    map_arg,
)

__all__ = ["Graph", "PythonCode", "CodeGen"]

# --- names ---------------------------------------------------------------------------------

# A generated name must not be a keyword nor shadow a builtin (``input``, ``sum``…).
_illegal_names: dict[str, object] = {k: object() for k in keyword.kwlist}
_illegal_names.update(builtins.__dict__)

# Objects every generated program can reach by these global names (``_custom_builtins``):
# PyTorch's are ``torch``, ``device``, ``inf``, ``nan``, ``NoneType``.
_custom_builtins: dict[str, object] = {}


def _register_custom_builtin(name: str, obj: object) -> None:
    _custom_builtins[name] = obj
    _illegal_names[name] = obj


_register_custom_builtin("inf", math.inf)
_register_custom_builtin("nan", math.nan)
_register_custom_builtin("NoneType", type(None))


def _register_vizgrad_builtins() -> None:
    """``vizgrad`` and ``device`` as globals of the generated code (after the package
    finished importing: this module is imported while ``vizgrad`` is being built)."""
    if "vizgrad" not in _custom_builtins:
        import vizgrad

        _register_custom_builtin("vizgrad", vizgrad)
        _register_custom_builtin("device", vizgrad.device)


def _is_magic(x: str) -> bool:
    return x.startswith("__") and x.endswith("__")


_snake_case_sub = re.compile(r"(?<=[a-z])([A-Z])").sub


def _snake_case(s: str) -> str:
    """``pascalCase`` → ``pascal_case``: how a target becomes a variable name."""
    return _snake_case_sub(r"_\1", s).lower()


_illegal_char_regex = re.compile("[^0-9a-zA-Z_]+")
_name_regex = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")


class _Namespace:
    """Unique names for objects: one name per object, one object per name, and no name
    that shadows a builtin unless the object *is* that builtin."""

    def __init__(self) -> None:
        self._obj_to_name: dict[object, str] = {}
        self._used_names: set[str] = set()
        self._base_count: dict[str, int] = {}

    def create_name(self, candidate: str, obj: object | None) -> str:
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        match = _name_regex.match(candidate)
        if match is None:
            # Drop the characters a Python identifier cannot hold (``0`` → ``_0``).
            candidate = _illegal_char_regex.sub("_", candidate)
            if not candidate:
                candidate = "_unnamed"
            if candidate[0].isdigit():
                candidate = f"_{candidate}"
            match = _name_regex.match(candidate)
        base, num = match.group(1, 2)
        if num is None or candidate in self._used_names:
            num = self._base_count.get(base, 0)
            if _illegal_names.get(candidate, obj) is not obj:
                num += 1
                candidate = f"{base}_{num}"
        else:
            num = int(num)
        while candidate in self._used_names:
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def associate_name_with_obj(self, name: str, obj: object) -> None:
        maybe_existing = self._obj_to_name.setdefault(obj, name)
        if maybe_existing is not name:
            raise AssertionError("obj is already associated")

    def _rename_object(self, obj: object, name: str) -> None:
        self._obj_to_name[obj] = name
        self._used_names.add(name)


# --- code generation -------------------------------------------------------------------------

# How each ``operator`` function is printed (``x + y``, not ``operator.add(x, y)``).
reflectable_magic_methods = {
    "add": "{} + {}",
    "sub": "{} - {}",
    "mul": "{} * {}",
    "floordiv": "{} // {}",
    "truediv": "{} / {}",
    "div": "{} / {}",
    "mod": "{} % {}",
    "pow": "{} ** {}",
    "lshift": "{} << {}",
    "rshift": "{} >> {}",
    "and_": "{} & {}",
    "or_": "{} | {}",
    "xor": "{} ^ {}",
    "getitem": "{}[{}]",
    "matmul": "{} @ {}",
}

magic_methods = {
    "eq": "{} == {}",
    "ne": "{} != {}",
    "lt": "{} < {}",
    "gt": "{} > {}",
    "le": "{} <= {}",
    "ge": "{} >= {}",
    "pos": "+{}",
    "neg": "-{}",
    "invert": "~{}",
    **reflectable_magic_methods,
}


@dataclass
class PythonCode:
    """The generated source (``src``) and the globals it runs with (``globals``)."""

    src: str
    globals: dict[str, Any]


def _format_target(base: str, target: str) -> str:
    """``self.linear``, or ``getattr(self, "0")`` for a name that is not an identifier."""
    r = base
    for e in target.split("."):
        r = f'getattr({r}, "{e}")' if not e.isidentifier() else f"{r}.{e}"
    return r


def _is_from_vizgrad(obj: object) -> bool:
    """An engine object: the generated code names it ``vizgrad.…`` (as torch's
    ``_is_from_torch`` makes it write ``torch.…``) instead of making a global for it."""
    module_name = getattr(obj, "__module__", None) or ""
    return module_name == "vizgrad" or module_name.startswith("vizgrad.")


class CodeGen:
    """Turns a list of nodes into the source of ``forward`` (``torch.fx.graph.CodeGen``)."""

    def gen_fn_def(self, free_vars: list[str], maybe_return_annotation: str) -> str:
        """``def forward(self, x, y):`` — ``self`` first when it is not a parameter yet."""
        if len(free_vars) == 0 or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def forward({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args: Argument, repr_fn) -> str:
        return f"return {repr_fn(output_args)}"

    def _gen_python_code(self, nodes, root_module: str, namespace: _Namespace, *,
                         verbose: bool = False) -> PythonCode:  # fmt: skip
        _register_vizgrad_builtins()
        free_vars: list[str] = []
        body: list[str] = []
        globals_: dict[str, Any] = {}
        wrapped_fns: dict[str, None] = {}
        maybe_return_annotation = [""]

        def add_global(name_hint: str, obj: Any) -> str:
            """The name the code uses for ``obj``: ``vizgrad.xxx`` for the engine's
            objects, else a fresh global (``getattr``, ``__main___my_fn``…)."""
            if _is_from_vizgrad(obj) and obj is not _custom_builtins.get("device"):
                return _get_qualified_name(obj)
            global_name = namespace.create_name(name_hint, obj)
            if global_name in globals_:
                if globals_[global_name] is not obj:
                    raise AssertionError(
                        f"Global name {global_name} already assigned to different object"
                    )
                return global_name
            globals_[global_name] = obj
            return global_name

        for name, obj in _custom_builtins.items():
            add_global(name, obj)

        def type_repr(o: object) -> str:
            return add_global(_type_repr(o), o)

        def _get_repr(arg: object) -> str:
            if isinstance(arg, Node):
                return repr(arg)
            elif isinstance(arg, tuple) and hasattr(arg, "_fields"):
                qualified_name = _get_qualified_name(type(arg))
                global_name = add_global(qualified_name, type(arg))
                return f"{global_name}{repr(tuple(arg))}"
            elif isinstance(arg, tuple):
                if len(arg) == 1:
                    return f"({_get_repr(arg[0])},)"
                return "(" + ", ".join(_get_repr(a) for a in arg) + ")"
            elif isinstance(arg, list):
                return "[" + ", ".join(_get_repr(a) for a in arg) + "]"
            elif isinstance(arg, slice):
                return (
                    f"slice({_get_repr(arg.start)}, {_get_repr(arg.stop)}, {_get_repr(arg.step)})"
                )
            return repr(arg)

        def _format_args(args: tuple, kwargs: dict) -> str:
            res = [_get_repr(a) for a in args]
            res.extend(f"{k} = {_get_repr(v)}" for k, v in kwargs.items())
            return ", ".join(res)

        # Walk backwards: the first time a value is seen is its *last* use, after which
        # the generated code deletes it (``x = None``) to free its memory early.
        node_to_last_use: dict[Node, Node] = {}
        user_to_last_uses: dict[Node, list[Node]] = {}
        for node in reversed(nodes):
            for input_node in node._input_nodes:
                if input_node not in node_to_last_use:
                    node_to_last_use[input_node] = node
                    user_to_last_uses.setdefault(node, []).append(input_node)

        def delete_unused_values(user: Node) -> None:
            if user.op == "placeholder":
                return
            if user.op == "output":
                body.append("\n")
                return
            nodes_to_delete = user_to_last_uses.get(user, [])
            if len(user.users) == 0:
                # Kept for a side effect but never read: free it at once.
                nodes_to_delete = [*nodes_to_delete, user]
            if nodes_to_delete:
                to_delete_str = " = ".join([repr(n) for n in nodes_to_delete] + ["None"])
                body.append(f";  {to_delete_str}\n")
            else:
                body.append("\n")

        summary_emitted = [False]

        def append_stacktrace_summary(node: Node) -> None:
            # The tracer records no source locations, so the verbose code (what
            # ``print_readable`` shows) says so once, as PyTorch does by default.
            if node.op not in {"placeholder", "output"} and not summary_emitted[0]:
                summary_emitted[0] = True
                body.append("\n# No stacktrace found for following nodes\n")

        def emit_node(node: Node) -> None:
            maybe_type_annotation = "" if node.type is None else f" : {type_repr(node.type)}"
            if node.op == "placeholder":
                maybe_default_arg = "" if not node.args else f" = {_get_repr(node.args[0])}"
                free_vars.append(f"{node.target}{maybe_type_annotation}{maybe_default_arg}")
                raw_name = node.target.replace("*", "")
                if raw_name != repr(node):
                    body.append(f"{repr(node)} = {raw_name}\n")
                return
            elif node.op == "call_method":
                body.append(
                    f"{repr(node)}{maybe_type_annotation} = "
                    f"{_format_target(_get_repr(node.args[0]), node.target)}"
                    f"({_format_args(node.args[1:], node.kwargs)})"
                )
                return
            elif node.op == "call_function":
                # Operators print as operators: ``add = x + y``.
                if (getattr(node.target, "__module__", "") == "_operator"
                        and node.target.__name__ in magic_methods):  # fmt: skip
                    body.append(
                        f"{repr(node)}{maybe_type_annotation} = "
                        f"{magic_methods[node.target.__name__].format(*(_get_repr(a) for a in node.args))}"  # noqa: E501
                    )
                    return
                qualified_name = _get_qualified_name(node.target)
                global_name = add_global(qualified_name, node.target)
                # ``getattr(x, "shape")`` prints as ``x.shape``.
                if (global_name == "getattr" and isinstance(node.args, tuple)
                        and len(node.args) == 2 and isinstance(node.args[1], str)
                        and node.args[1].isidentifier()):  # fmt: skip
                    body.append(
                        f"{repr(node)}{maybe_type_annotation} = "
                        f"{_format_target(_get_repr(node.args[0]), node.args[1])}"
                    )
                    return
                body.append(
                    f"{repr(node)}{maybe_type_annotation} = "
                    f"{global_name}({_format_args(node.args, node.kwargs)})"
                )
                if node.meta.get("is_wrapped", False):
                    wrapped_fns.setdefault(global_name)
                return
            elif node.op == "call_module":
                body.append(
                    f"{repr(node)}{maybe_type_annotation} = "
                    f"{_format_target(root_module, node.target)}"
                    f"({_format_args(node.args, node.kwargs)})"
                )
                return
            elif node.op == "get_attr":
                body.append(
                    f"{repr(node)}{maybe_type_annotation} = "
                    f"{_format_target(root_module, node.target)}"
                )
                return
            elif node.op == "output":
                if node.type is not None:
                    maybe_return_annotation[0] = f" -> {type_repr(node.type)}"
                body.append(self.generate_output(node.args[0], _get_repr))
                return
            raise NotImplementedError(f"node: {node.op} {node.target}")

        for node in nodes:
            if verbose:
                append_stacktrace_summary(node)
            emit_node(node)
            delete_unused_values(node)

        if len(body) == 0:
            # A graph of placeholders only still has to be a valid function body.
            body.append("pass\n")

        if wrapped_fns:
            # ``fx.wrap`` functions stay wrapped when this code is traced again.
            from ._symbolic_trace import wrap

            wrap_name = add_global("wrap", wrap)
            wrap_stmts = "\n".join(f'{wrap_name}("{name}")' for name in wrapped_fns)
        else:
            wrap_stmts = ""

        prologue = self.gen_fn_def(free_vars, maybe_return_annotation[0])
        code = "".join(body).lstrip("\n")
        code = "\n".join("    " + line for line in code.split("\n"))
        fn_code = f"""
{wrap_stmts}

{prologue}
{code}"""
        return PythonCode(fn_code, globals_)


# --- the graph -------------------------------------------------------------------------------


class _InsertPoint:
    """``with graph.inserting_before(n):`` — restores the previous insertion point."""

    def __init__(self, graph: Graph, new_insert: Callable[[Node], None]) -> None:
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        self.graph._insert = self.orig_insert


class _node_list:
    """``graph.nodes``: a live view of the linked list (safe to edit while iterating)."""

    def __init__(self, graph: Graph, direction: str = "_next") -> None:
        self.graph = graph
        self.direction = direction

    def __len__(self) -> int:
        return self.graph._len

    def __iter__(self):
        root = self.graph._root
        cur = getattr(root, self.direction)
        while cur is not root:
            nxt = getattr(cur, self.direction)
            if not cur._erased:
                yield cur
            cur = nxt

    def __reversed__(self):
        return iter(_node_list(self.graph, "_prev" if self.direction == "_next" else "_next"))

    def __repr__(self) -> str:
        return repr(list(self))


class Graph:
    """The nodes of a program, in order, with the tools to print, edit and check them.

    Example::

        gm = vizgrad.fx.symbolic_trace(model)
        for node in gm.graph.nodes:
            print(node.op, node.name, node.target)
    """

    def __init__(self, owning_module=None, tracer_cls=None) -> None:
        self._root = Node(self, "", "root", "", (), {})
        self._insert = self._root.prepend  # by default, append at the end
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._codegen = CodeGen()

    @property
    def owning_module(self):
        """The ``GraphModule`` this graph belongs to, if any."""
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _node_list:
        """The nodes, in order. ``reversed(graph.nodes)`` walks them backwards."""
        return _node_list(self)

    def output_node(self) -> Node:
        output_node = next(iter(reversed(self.nodes)))
        if output_node.op != "output":
            raise AssertionError(f"Expected output node, got op={output_node.op}")
        return output_node

    def find_nodes(self, *, op: str, target: Target | None = None) -> list[Node]:
        """The nodes with this opcode (and this target, if given), in order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # --- creating nodes ----------------------------------------------------------------------

    def create_node(self, op: str, target: Target, args: tuple | None = None,
                    kwargs: dict | None = None, name: str | None = None,
                    type_expr: Any | None = None) -> Node:  # fmt: skip
        """Make a node, name it uniquely and insert it at the current insertion point."""
        if op not in _legal_ops:
            raise AssertionError(f"op '{op}' is not in _legal_ops")
        args = args or ()
        if not isinstance(args, tuple):
            raise AssertionError(f"args must be a tuple, got {type(args)}")
        kwargs = kwargs or {}
        if not isinstance(kwargs, dict):
            raise AssertionError(f"kwargs must be a dict, got {type(kwargs)}")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name: str, type_expr: Any | None = None,
                    default_value: Any = inspect.Signature.empty) -> Node:  # fmt: skip
        """An input of ``forward``; ``default_value`` makes it an optional parameter."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any | None = None) -> Node:
        """Read ``self.<qualified_name>`` (a parameter, buffer or constant)."""
        if self.owning_module is not None and not _has_attr(self.owning_module, qualified_name):
            warnings.warn(
                "Attempted to insert a get_attr Node with no underlying reference in the "
                "owning GraphModule! Call GraphModule.add_submodule to add the necessary "
                "submodule, GraphModule.add_parameter to add the necessary Parameter, or "
                "nn.Module.register_buffer to add the necessary buffer",
                stacklevel=2,
            )
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args: tuple | None = None,
                    kwargs: dict | None = None, type_expr: Any | None = None) -> Node:  # fmt: skip
        """Call the submodule ``self.<module_name>``."""
        if self.owning_module is not None and not _has_attr(self.owning_module, module_name):
            warnings.warn(
                "Attempted to insert a call_module Node with no underlying reference in "
                "the owning GraphModule! Call GraphModule.add_submodule to add the "
                "necessary submodule",
                stacklevel=2,
            )
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args: tuple | None = None,
                    kwargs: dict | None = None, type_expr: Any | None = None) -> Node:  # fmt: skip
        """Call ``args[0].<method_name>(*args[1:], **kwargs)``."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable[..., Any], args: tuple | None = None,
                      kwargs: dict | None = None, type_expr: Any | None = None) -> Node:  # fmt: skip
        """Call ``the_function(*args, **kwargs)``."""
        return self.create_node("call_function", the_function, args, kwargs,
                                type_expr=type_expr)  # fmt: skip

    def output(self, result: Argument, type_expr: Any | None = None) -> Node:
        """The ``return`` of ``forward``."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(
        self, node: Node, arg_transform: Callable[[Node], Argument] = lambda x: x
    ) -> Node:
        """Copy ``node`` (from any graph) into this one, mapping its inputs with
        ``arg_transform`` (usually ``lambda n: env[n]``)."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result_node = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result_node.meta = dict(node.meta)
        return result_node

    def graph_copy(self, g: Graph, val_map: dict[Node, Node]) -> Argument:
        """Copy every node of ``g`` but its output into this graph; return the value the
        output returned, mapped into this graph."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                return map_arg(node.args[0], lambda n: val_map[n])
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def _target_to_str(self, target: Target) -> str:
        """The name a node gets from its target: ``relu`` for ``vizgrad.relu``, ``sum`` for
        ``"sum"``, ``layers_0`` for ``"layers.0"`` (after ``_Namespace`` cleans it)."""
        if callable(target):
            op = target.__name__
        else:
            op = target
            if _is_magic(op):
                op = op[2:-2]
        return _snake_case(op)

    # --- editing -----------------------------------------------------------------------------

    def erase_node(self, to_erase: Node) -> None:
        """Remove a node nobody reads any more (``RuntimeError`` if it still has users)."""
        if len(to_erase.users) > 0:
            raise RuntimeError(
                f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                f"users in the graph: {to_erase.users}!"
            )
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node", stacklevel=2)
            return
        to_erase._remove_from_list()
        to_erase._erased = True  # iterators may still hold it
        self._len -= 1
        # Drop its own inputs, so the nodes it read lose it from their ``users``.
        to_erase._update_args_kwargs(
            map_arg(to_erase._args, lambda n: None), map_arg(to_erase._kwargs, lambda n: None)
        )

    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """New nodes go just before ``n`` (the start of the graph if ``None``); as a
        context manager, the previous insertion point comes back at the end."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """New nodes go just after ``n`` (the end of the graph if ``None``). Each new
        node goes *directly* after ``n``, as in PyTorch."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    # --- printing and code -------------------------------------------------------------------

    def python_code(self, root_module: str, *, verbose: bool = False) -> PythonCode:
        """The source of ``forward`` for this graph, and the globals it needs.

        The code has its own namespace (locals *and* globals must be unique), so during
        generation each node's ``repr`` returns its name in that namespace.
        """
        namespace = _Namespace()

        def node_repr(n: Node) -> str:
            return namespace.create_name(n.name, n)

        with self._override_node_repr(node_repr):
            return self._codegen._gen_python_code(self.nodes, root_module, namespace,
                                                  verbose=verbose)  # fmt: skip

    @contextmanager
    def _override_node_repr(self, fn):
        orig = {node: node._repr_fn for node in self.nodes}
        for node in orig:
            node._repr_fn = fn
        try:
            yield
        finally:
            for node, repr_fn in orig.items():
                node._repr_fn = repr_fn

    def set_codegen(self, codegen: CodeGen) -> None:
        self._codegen = codegen

    def __str__(self) -> str:
        placeholder_names: list[str] = []
        maybe_return_typename = [""]
        node_strs = [node.format_node(placeholder_names, maybe_return_typename)
                     for node in self.nodes]  # fmt: skip
        param_str = ", ".join(placeholder_names)
        s = f"graph({param_str}){maybe_return_typename[0]}:"
        for node_str in node_strs:
            if node_str:
                s += "\n    " + node_str
        return s

    def _tabular_rows(self) -> list[list[str]]:
        return [[n.op, n.name, str(n.target), str(n.args), str(n.kwargs)] for n in self.nodes]

    def print_tabular(self) -> None:
        """Print one row per node: opcode, name, target, args, kwargs.

        PyTorch prints this table with the ``tabulate`` package; this prints the same
        columns and cells as a plain-text table, without needing the package.
        """
        headers = ["opcode", "name", "target", "args", "kwargs"]
        rows = self._tabular_rows()
        widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

        def line(cells) -> str:
            return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

        print("\n".join([line(headers), line("-" * w for w in widths)] + [line(r) for r in rows]))

    # --- checks and passes -------------------------------------------------------------------

    def lint(self) -> None:
        """Check the invariants: every node belongs here, is defined before it is used,
        has a unique name and a legal opcode; with an owning module, that every
        ``get_attr``/``call_module`` target exists."""

        def check_arg(arg: Node, n: Node | None = None) -> None:
            context_str = f" of Node '{n}' " if n else " "
            if arg.graph is not self:
                raise RuntimeError(
                    f"Argument '{arg}'{context_str}does not belong to this Graph, but was "
                    "used as an argument! If you are copying nodes from another graph, make "
                    f"sure to use ``arg_transform`` on node_copy() to remap values\n{self}"
                )
            if arg not in seen_values:
                raise RuntimeError(
                    f"Argument '{arg}'{context_str}was used before it has been defined! "
                    f"Please check that Nodes in the graph are topologically ordered\n{self}"
                )

        seen_names: set[str] = set()
        seen_values: set[Node] = set()
        for node in self.nodes:
            if node.op not in _legal_ops:
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                check_arg(arg, node)
            seen_values.add(node)
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)

        if self.owning_module:
            from ..nn import Module

            for node in self.nodes:
                if node.op == "call_function":
                    if not callable(node.target):
                        raise ValueError(
                            f"Node {node} target {node.target} has type "
                            f"{type(node.target).__name__} but a Callable is expected"
                        )
                elif not isinstance(node.target, str):
                    raise ValueError(
                        f"Node {node} target {node.target} has type "
                        f"{type(node.target).__name__} but a str is expected"
                    )
                if node.op in ["get_attr", "call_module"]:
                    target_atoms = node.target.split(".")
                    m_itr = self.owning_module
                    for i, atom in enumerate(target_atoms):
                        new_m_itr = getattr(m_itr, atom, None)
                        seen_qualname = ".".join(target_atoms[:i])
                        if new_m_itr is None:
                            raise RuntimeError(
                                f"Node {node} target {node.target} references nonexistent "
                                f"attribute {atom} of {seen_qualname}"
                            )
                        if node.op == "call_module" and not isinstance(new_m_itr, Module):
                            raise RuntimeError(
                                f"Node {node} target {node.target} {atom} of "
                                f"{seen_qualname} does not reference an nn.Module"
                            )
                        m_itr = new_m_itr

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Remove every node that has no users and no side effect; return whether the
        graph changed. Walks backwards, so a chain of dead nodes goes in one pass."""
        self.lint()

        def has_side_effect(node: Node) -> bool:
            if is_impure_node is not None:
                return is_impure_node(node)
            return node.is_impure()

        changed = False
        for node in reversed(self.nodes):
            if not has_side_effect(node) and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed


def _has_attr(model, attr_name: str) -> bool:
    t = model
    for item in attr_name.split("."):
        if not hasattr(t, item):
            return False
        t = getattr(t, item)
    return True
