"""Operator schemas: PyTorch's signature language, parsed (``torchgen/model.py``).

Every operator overload is declared by the whole schema string PyTorch writes in
``native_functions.yaml``::

    sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor

``FunctionSchema.parse`` reads it into a name, an overload name, typed arguments and
returns. Everything else about calling an operator is generated from this: which
variant it is (functional, in-place ``add_``, ``out=``), how autograd names each
argument, and how the Python argument parser (``vizgrad.arg_parser``) checks a call.

The grammar, as PyTorch's:

* ``name[.overload](arguments) -> returns``;
* an argument is ``Type[(alias)] name[=default]``; a bare ``*`` makes the arguments
  after it keyword-only;
* a type is a base type (``Tensor``, ``Scalar``, ``int``, ``SymInt``, ``float``,
  ``bool``, ``str``, ``ScalarType``, ``Layout``, ``Device``, ``Generator``,
  ``MemoryFormat``…), optionally a list (``int[]``, ``int[2]``: a list of fixed size,
  which also accepts a single int), optionally ``?`` (may be ``None``);
* ``Tensor(a!)`` is an alias annotation: the argument is written (in-place and
  ``out=`` overloads); ``Tensor(a)`` without ``!`` is aliased by the result (views).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

__all__ = [
    "NO_DEFAULT",
    "TENSOR_OPTIONS",
    "Argument",
    "FunctionSchema",
    "Return",
    "split_top_level",
]


class _NoDefault:
    """Marks an argument without a default: the caller must give it."""

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault()

# Defaults that are names in the schema language, not Python literals.
_NAMED_DEFAULTS = {
    "None": None,
    "True": True,
    "False": False,
    "inf": math.inf,
    "-inf": -math.inf,
    "contiguous_format": "contiguous_format",
    # ``int reduction=Mean`` (at::Reduction::Mean is 1) as Python sees it: PyTorch's
    # argument parser reads an int default with ``atol``, which makes any name 0
    # (Reduction::None), so ``torch.kl_div(x, y)`` is unreduced.
    "Mean": 0,
    "Sum": 0,
    "long": "long",
}


def split_top_level(text: str, separator: str = ",") -> list[str]:
    """Split ``text`` at ``separator`` where it is not inside brackets or parentheses."""
    parts, depth, current = [], 0, []
    for char in text:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == separator and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    tail = "".join(current).strip()
    if tail:
        parts.append(tail)
    return parts


def _parse_default(text: str):
    if text in _NAMED_DEFAULTS:
        return _NAMED_DEFAULTS[text]
    if text.startswith("[") and text.endswith("]"):
        return tuple(_parse_default(item) for item in split_top_level(text[1:-1]))
    return ast.literal_eval(text)


# TensorOptions: the keyword arguments a factory takes to say what to make.
TENSOR_OPTIONS = {"dtype": "ScalarType?", "layout": "Layout?", "device": "Device?",
                  "pin_memory": "bool?"}  # fmt: skip


@dataclass(frozen=True)
class Argument:
    """One argument of a schema: ``int[1]? dim``, ``Tensor(a!) out``, ``Scalar alpha=1``."""

    name: str
    type: str  # the type without its alias annotation: "Tensor", "int[1]?", "Tensor?[]"
    default: object
    kwarg_only: bool
    alias: str | None  # "a!" for a written argument, "a" for an aliased one, else None
    default_text: str  # the default as the schema spells it ("None", "False", "1")

    @property
    def base_type(self) -> str:
        """The element type: ``int`` for ``int[1]?``, ``Tensor`` for ``Tensor?[]``."""
        return self.type.split("[", 1)[0].rstrip("?")

    @property
    def is_list(self) -> bool:
        return "[" in self.type

    @property
    def list_size(self) -> int | None:
        """The fixed size of ``int[2]`` (2), or None for ``int[]`` and non-lists."""
        if not self.is_list:
            return None
        inside = self.type.split("[", 1)[1].split("]", 1)[0]
        return int(inside) if inside else None

    @property
    def optional(self) -> bool:
        """``Type?``: the argument may be ``None``."""
        return self.type.endswith("?")

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def is_write(self) -> bool:
        """``Tensor(a!)``: the operator writes this argument."""
        return self.alias is not None and self.alias.endswith("!")

    @property
    def is_tensor(self) -> bool:
        return self.base_type == "Tensor"

    @property
    def is_tensor_option(self) -> bool:
        """One of the TensorOptions a factory takes to say what to make (``dtype``,
        ``layout``, ``device``, ``pin_memory``)."""
        return TENSOR_OPTIONS.get(self.name) == self.type

    @classmethod
    def parse(cls, text: str, kwarg_only: bool) -> Argument:
        declaration, has_default, default_text = text.partition("=")
        type_text, _, name = declaration.strip().rpartition(" ")
        alias = None
        if "(" in type_text:  # Tensor(a!) or Tensor(a)[]
            head, _, rest = type_text.partition("(")
            alias, _, suffix = rest.partition(")")
            type_text = head + suffix
        default_text = default_text.strip()
        default = _parse_default(default_text) if has_default else NO_DEFAULT
        return cls(name, type_text, default, kwarg_only, alias, default_text)

    def __str__(self) -> str:
        type_text = self.type
        if self.alias is not None:
            base, bracket, rest = type_text.partition("[")
            type_text = f"{base}({self.alias}){bracket}{rest}"
        default = f"={self.default_text}" if self.has_default else ""
        return f"{type_text} {self.name}{default}"


@dataclass(frozen=True)
class Return:
    """One result of a schema: ``Tensor``, ``Tensor(a)``, ``Tensor values``."""

    name: str | None
    type: str
    alias: str | None


@dataclass(frozen=True)
class FunctionSchema:
    """A whole schema: ``name.overload(arguments) -> returns``."""

    name: str  # "add" or "add_" (an in-place overload's name ends with "_")
    overload_name: str  # "Tensor", "out", "dim_IntList", or ""
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]
    text: str  # the schema exactly as declared

    @classmethod
    def parse(cls, text: str) -> FunctionSchema:
        head, _, rest = text.partition("(")
        name, _, overload_name = head.strip().partition(".")
        arguments_text, returns_text = _split_at_closing_parenthesis(rest)
        if not returns_text.startswith("->"):
            raise ValueError(f"schema without '->': {text}")
        arguments, kwarg_only = [], False
        for part in split_top_level(arguments_text):
            if part == "*":
                kwarg_only = True
                continue
            arguments.append(Argument.parse(part, kwarg_only))
        return cls(name, overload_name, tuple(arguments), _parse_returns(returns_text[2:]), text)

    @property
    def qualified_name(self) -> str:
        """``add.Tensor``: what ``aten::`` names in a dispatch trace."""
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    @property
    def base_name(self) -> str:
        """The operator's name without the in-place underscore: ``add`` for ``add_``."""
        return self.name[:-1] if self.is_inplace else self.name

    @property
    def is_inplace(self) -> bool:
        """``add_``: writes its ``self`` argument (``Tensor(a!) self``)."""
        return (
            self.name.endswith("_")
            and not self.name.endswith("__")
            and bool(self.arguments)
            and self.arguments[0].is_write
        )

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        """The keyword-only arguments the op writes: ``out`` (or ``values, indices``)."""
        return tuple(a for a in self.arguments if a.kwarg_only and a.is_write)

    @property
    def is_out(self) -> bool:
        return bool(self.out_arguments)

    @property
    def is_view(self) -> bool:
        """Returns an alias of ``self`` without writing it (``view``, ``t``, ``select``)."""
        return any(r.alias is not None and not r.alias.endswith("!") for r in self.returns)

    @property
    def has_tensor_options(self) -> bool:
        """A factory overload (``zeros``, ``rand``…): it takes dtype, layout and device."""
        options = {a.name for a in self.arguments if a.is_tensor_option}
        return {"dtype", "layout", "device"} <= options

    def without_out(self) -> tuple[Argument, ...]:
        """The arguments other than ``out=``: what the functional twin takes."""
        return tuple(a for a in self.arguments if not (a.kwarg_only and a.is_write))

    def __str__(self) -> str:
        return self.text


def _split_at_closing_parenthesis(text: str) -> tuple[str, str]:
    """``"Tensor self, int[1]? dim) -> Tensor"`` -> the arguments and ``"-> Tensor"``."""
    depth = 1
    for position, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            return text[:position], text[position + 1 :].strip()
    raise ValueError(f"unbalanced parentheses in schema: {text}")


def _parse_returns(text: str) -> tuple[Return, ...]:
    text = text.strip()
    is_tuple = text.startswith("(") and text.endswith(")")
    parts = split_top_level(text[1:-1]) if is_tuple else [text]
    returns = []
    for part in parts:
        type_text, _, name = part.rpartition(" ") if " " in part else (part, "", "")
        alias = None
        if "(" in type_text:
            head, _, rest = type_text.partition("(")
            alias, _, suffix = rest.partition(")")
            type_text = head + suffix
        returns.append(Return(name or None, type_text, alias))
    return tuple(returns)
