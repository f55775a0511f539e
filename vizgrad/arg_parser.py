"""The Python argument parser: from a call's arguments to one overload (``python_arg_parser.cpp``).

``torch.sum(x)``, ``torch.sum(x, 0)`` and ``torch.sum(x, dim=None, keepdim=True)`` all
enter one Python function, which must decide which overload of ``sum`` the call means
and whether its arguments are of the right types. PyTorch's ``PythonArgParser`` does
this from the overloads' schemas, and so does this module:

* each overload becomes a ``PythonSignature``: its schema's arguments with Python's
  view of them (``self`` is called ``input`` in ``torch.sum``; an ``out=`` overload
  adds ``Tensor out=None`` to its functional twin; a method leaves ``self`` out);
* ``PythonArgParser.parse`` tries the signatures in order and returns the first that
  accepts the call, with every argument bound by name (defaults filled in);
* when none accepts it, the error is PyTorch's: the one mistake, if only one
  signature could have been meant ("argument 'dim' (position 2) must be tuple of
  ints, not str"), otherwise every signature ("received an invalid combination of
  arguments - got (Tensor, str), but expected one of: ...").

The parser only checks *types*. What the values mean (is ``dim`` in range? can this
dtype be summed?) is each kernel's business, as in PyTorch.
"""

from __future__ import annotations

import numbers
import operator

from .device import device as Device
from .device import layout as Layout
from .device import memory_format as MemoryFormat
from .dtypes import INTEGRAL
from .dtypes import dtype as DType
from .generator import Generator
from .schema import NO_DEFAULT, Argument, split_top_level
from .tensor import Tensor

__all__ = ["PythonArgParser", "PythonParameter", "PythonSignature"]


# --- what each schema type accepts (``FunctionParameter::check``) -------------------------


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor)


def _is_int(value) -> bool:
    """An ``int`` argument: a Python int (not a bool) or a 0-dim integer tensor."""
    if type(value) is int:  # the common case, without the abstract-class check
        return True
    if isinstance(value, numbers.Integral):
        return not isinstance(value, bool)
    return (
        isinstance(value, Tensor)
        and not value._size
        and value._dtype.category == INTEGRAL
        and not value.requires_grad
    )


def _is_float(value) -> bool:
    """A ``float`` argument: any real number, or a 0-dim tensor that needs no gradient."""
    if type(value) is float or isinstance(value, numbers.Real):
        return True
    return isinstance(value, Tensor) and not value._size and not value.requires_grad


def _is_scalar(value) -> bool:
    """A ``Scalar`` (PyTorch's ``Number``): a Python number or a 0-dim tensor."""
    if type(value) is int:
        _check_scalar_int_fits(value)
        return True
    if type(value) is float:
        return True
    return isinstance(value, numbers.Number) or _is_float(value)


def _check_scalar_int_fits(value: int) -> None:
    """A ``Scalar`` holds a Python int as a 64-bit integer (signed, or unsigned above
    int64's range): beyond both, PyTorch refuses it while parsing, before any kernel."""
    if value < -(2**63):
        raise OverflowError("can't convert negative int to unsigned")
    if value >= 2**64:
        raise OverflowError("int too big to convert")


def _is_bool(value) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"  # numpy.bool_ too


def _is_str(value) -> bool:
    return isinstance(value, str)


def _is_dtype(value) -> bool:
    return isinstance(value, DType)


def _is_device(value) -> bool:
    """A ``Device``: a ``device``, a string naming one (``"cpu"``) or a device index."""
    return isinstance(value, (Device, str)) or (isinstance(value, int) and not _is_bool(value))


def _is_layout(value) -> bool:
    return isinstance(value, Layout)


def _is_memory_format(value) -> bool:
    """A ``vizgrad.memory_format``, or its name: schemas spell defaults by name
    (``MemoryFormat memory_format=contiguous_format``), and vizgrad accepts the names too."""
    return isinstance(value, MemoryFormat) or (isinstance(value, str) and value in _FORMAT_NAMES)


_FORMAT_NAMES = ("contiguous_format", "preserve_format", "channels_last")


def _is_sequence(value) -> bool:
    return isinstance(value, (tuple, list))


def _is_generator(value) -> bool:
    return isinstance(value, Generator)


def _anything(value) -> bool:
    return True


# The base type of a schema argument -> (the name PyTorch's messages use, the check).
_SIMPLE_TYPES = {
    "Tensor": ("Tensor", _is_tensor),
    "Scalar": ("Number", _is_scalar),
    "int": ("int", _is_int),
    "SymInt": ("int", _is_int),  # PyTorch's messages call a SymInt an int
    "float": ("float", _is_float),
    "bool": ("bool", _is_bool),
    "str": ("str", _is_str),
    "ScalarType": ("vizgrad.dtype", _is_dtype),
    "Layout": ("vizgrad.layout", _is_layout),
    "Device": ("vizgrad.device", _is_device),
    "Generator": ("vizgrad.Generator", _is_generator),
    "MemoryFormat": ("vizgrad.memory_format", _is_memory_format),
    "PyObject*": ("object", _anything),  # a hand-written binding's "any Python object"
}
# Types whose every value a check accepts: tested first, by exact type, which costs less
# than calling the check (``bool`` is an ``int`` subclass, and an ``int`` only to some;
# an ``int`` is a ``Scalar`` only within 64 bits, which the check says).
_EXACT_TYPES = {
    "Tensor": frozenset({Tensor}),
    "Scalar": frozenset({float, bool, complex}),
    "int": frozenset({int}),
    "SymInt": frozenset({int}),
    "float": frozenset({float, int, bool}),
    "bool": frozenset({bool}),
    "str": frozenset({str}),
    "ScalarType": frozenset({DType}),
}
_TENSOR_OR_NUMBER_TYPES = frozenset({Tensor, float, bool, complex})
# NumPy's names for some parameters, accepted as keywords too (``torch.sum(x, axis=0)``,
# ``torch.concatenate(ts, axis=1)``): ``numpy_compatibility_arg_names``.
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
                "other": ("x2",)}  # fmt: skip
_LIST_TYPE_NAMES = {
    "Tensor": "tuple of Tensors",
    "int": "tuple of ints",
    "SymInt": "tuple of ints",
    "float": "tuple of floats",
    "bool": "tuple of bools",
    "Scalar": "tuple of Scalars",
}


class PythonParameter:
    """One parameter as Python sees it (``FunctionParameter``)."""

    __slots__ = ("name", "schema_name", "schema_type", "type_name", "check", "is_int_list",
                 "is_int", "list_size", "is_tensor_list", "optional", "allow_none",
                 "none_value", "kwarg_only", "default", "default_text", "numpy_names",
                 "exact_types")  # fmt: skip

    def __init__(self, argument: Argument, name: str, *, numbers_as_tensors: bool = False):
        self.name = name
        self.schema_name = argument.name
        self.schema_type = argument.type  # "int[1]?": what torchgen orders overloads by
        base = argument.base_type
        self.list_size = argument.list_size
        self.is_int_list = argument.is_list and base in ("int", "SymInt")
        # An ``int`` that may arrive as a 0-dim integer tensor, which the kernel gets as
        # a Python int (``THPUtils_unpackLong`` calls ``__index__``).
        self.is_int = not argument.is_list and base in ("int", "SymInt")
        self.is_tensor_list = argument.is_list and base == "Tensor"
        self.exact_types = frozenset()
        if argument.is_list:
            self.type_name = _LIST_TYPE_NAMES.get(base, f"tuple of {base}s")
            self.check = self._check_list
        else:
            self.type_name, self.check = _SIMPLE_TYPES.get(base, (base, _anything))
            self.exact_types = _EXACT_TYPES.get(base, self.exact_types)
            if base == "Tensor" and numbers_as_tensors:
                # ``torch.add(x, 2)``: the functions of Python's arithmetic take numbers
                # where the schema says Tensor (``should_allow_numbers_as_tensors``).
                self.check = _is_tensor_or_number
                self.exact_types = _TENSOR_OR_NUMBER_TYPES
        # An out= argument that the functional overload lacks is optional in Python.
        self.default = argument.default if argument.has_default else NO_DEFAULT
        self.default_text = argument.default_text
        if base == "str" and self.default_text.startswith("'"):
            # torchgen writes a string default in double quotes: ``str mode = "reduced"``.
            self.default_text = f'"{self.default_text[1:-1]}"'
        if base == "ScalarType" and argument.has_default:
            # ``ScalarType? dtype=long`` (randint): Python sees None, the kernel picks long.
            self.default, self.default_text = None, "None"
        if argument.is_write and argument.kwarg_only and not argument.has_default:
            self.default, self.default_text = None, "None"
        self.optional = self.default is not NO_DEFAULT
        self.allow_none = argument.optional or self.default is None
        self.none_value = None  # what a None given for this parameter means
        if argument.is_list and argument.default_text == "[]":
            # torchgen writes an empty-list default as None in the Python signature
            # (``int[1] dim=[]`` is ``dim=None`` to Python): None means that default.
            self.allow_none, self.none_value, self.default_text = True, self.default, "None"
        self.kwarg_only = argument.kwarg_only
        self.numpy_names = _NUMPY_NAMES.get(name, ())

    def _check_list(self, value) -> bool:
        if _is_sequence(value):
            if self.is_tensor_list:
                return True  # the elements are checked when unpacked, as PyTorch does
            # Like PyTorch, only the first element decides; a bad later element fails
            # when the list is unpacked (``_unpack_int_list``).
            return not value or not self.is_int_list or _is_int(value[0])
        # ``int[2] stride=1`` accepts a single int, repeated (``dim=0`` for ``int[1]``).
        return self.list_size is not None and self.is_int_list and _is_int(value)

    def __str__(self) -> str:
        default = f" = {self.default_text}" if self.optional else ""
        return f"{self.type_name} {self.name}{default}"


_TENSOR_OR_NUMBER = Tensor | numbers.Number  # made once: a union is an object


def _is_tensor_or_number(value) -> bool:
    if type(value) is int:
        _check_scalar_int_fits(value)  # the number becomes a Scalar, then a tensor
    return isinstance(value, _TENSOR_OR_NUMBER)


def _same_value(a, b) -> bool:
    """The same default: equal and of one type (``1`` is not ``True``, nor ``1.0``)."""
    return type(a) is type(b) and a == b


class PythonSignature:
    """One way to call a function: an overload's arguments as Python sees them."""

    __slots__ = ("function_name", "params", "by_name", "max_pos_args", "min_args",
                 "max_args", "varargs_int_list", "overload", "_positional_range",
                 "_positional_defaults", "_lists", "_ints", "_int_varargs",
                 "_keyword_defaults", "_defaults_to_pass", "_keyword_names",
                 "_keywords_in_order")  # fmt: skip

    def __init__(self, function_name: str, params: list[PythonParameter], overload=None):
        self.function_name = function_name
        self.params = params
        self.by_name = {p.name: p for p in params}
        self.max_pos_args = sum(not p.kwarg_only for p in params)
        self.min_args = sum(not p.optional for p in params)
        self.max_args = len(params)
        # ``x.view(2, 3)`` means ``x.view((2, 3))``: a lone positional int list may be
        # given as separate ints.
        self.varargs_int_list = self.max_pos_args == 1 and params[0].is_int_list
        self.overload = overload  # what the caller maps this signature to
        # A call without keywords takes the short path of ``bind_call``: it fits when it
        # gives every required positional argument, no more than there are, and no
        # keyword-only one is required.
        positional = params[: self.max_pos_args]
        fewest = max((i + 1 for i, p in enumerate(positional) if not p.optional), default=0)
        needs_keyword = any(p.kwarg_only and not p.optional for p in params)
        self._positional_range = (fewest, -1 if needs_keyword else self.max_pos_args)
        self._positional_defaults = tuple(p.default for p in positional)
        # The lists among them, which ``bind`` unpacks (int lists) or checks (tensor lists).
        self._lists = tuple(
            i for i, p in enumerate(positional) if p.is_int_list or p.is_tensor_list
        )
        self._ints = tuple(i for i, p in enumerate(positional) if p.is_int)
        # ``zeros(2, 3)`` with plain ints and no keywords: the short path for varargs.
        self._int_varargs = (
            self.varargs_int_list and params[0].list_size is None and not needs_keyword
        )
        # The keyword-only defaults the common call passes on; ``out`` and a factory's
        # ``requires_grad`` (False) are the caller's to apply.
        self._keyword_defaults = {p.schema_name: p.default for p in params
                                  if p.kwarg_only and p.name not in ("out", "requires_grad")}  # fmt: skip
        self._defaults_to_pass = self._keyword_defaults  # until ``leave_defaults_to``
        # A call with keywords binds through ``_bind_keywords`` when the keyword-only
        # parameters all come after the positional ones (as every schema orders them).
        self._keyword_names = tuple(p.schema_name for p in params[self.max_pos_args :])
        self._keywords_in_order = all(p.kwarg_only for p in params[self.max_pos_args :])

    def __str__(self) -> str:
        parts, keyword_marked = [], False
        for p in self.params:
            if p.kwarg_only and not keyword_marked:
                parts.append("*")
                keyword_marked = True
            parts.append(str(p))
        return f"({', '.join(parts)})"

    def bind(self, args: tuple, kwargs: dict, raise_errors: bool) -> dict | None:
        """The call's arguments by name, or None if this signature does not accept it.

        With ``raise_errors``, the reason is raised as PyTorch words it instead.
        """
        nargs = len(args)
        # Separate ints may stand for a lone int list (``x.view(2, 3)``), but nothing may
        # follow a list given whole (``x.view((2, 3), 1)`` is refused).
        if nargs > self.max_pos_args and not (self.varargs_int_list and not _is_sequence(args[0])):
            return _fail(raise_errors, _too_many_positional, self, nargs)
        bound = {}
        position = 0
        used_kwargs = 0
        for index, param in enumerate(self.params):
            is_keyword = position >= nargs
            if not is_keyword:
                if param.kwarg_only:
                    return _fail(raise_errors, _too_many_positional, self, nargs)
                value = args[position]
            else:
                value = kwargs.get(param.name, NO_DEFAULT)
                if value is NO_DEFAULT and param.numpy_names:
                    value = _numpy_keyword(param, kwargs)
                if value is NO_DEFAULT:
                    if not param.optional:
                        return _fail(raise_errors, _missing_arguments, self, index)
                    bound[param.name] = param.default
                    continue
                used_kwargs += 1
            if value is None and param.allow_none:
                bound[param.name] = param.none_value
            elif (
                self.varargs_int_list
                and position == 0
                and not is_keyword
                and not param.check(value)
            ):
                # ``x.view(2, 3)`` / ``x.view(6)``: the ints themselves are the list (not for
                # ``int[1] dim``, where one int is already a list: ``x.var(0, 1)`` is no dims).
                if not _is_int(value):
                    if nargs > 1:
                        return _fail(raise_errors, _too_many_positional, self, nargs)
                    return _fail(raise_errors, _wrong_type, self, param, value, 1)
                bound[param.name] = _unpack_int_list(self, param, args)
                position = nargs
                continue
            elif param.check(value):
                if param.is_int_list:
                    value = _unpack_int_list(self, param, value)
                elif param.is_int and type(value) is not int:
                    value = operator.index(value)
                elif param.is_tensor_list:
                    _check_tensor_list(value, index)
                bound[param.name] = value
            else:
                where = None if is_keyword else position + 1
                return _fail(raise_errors, _wrong_type, self, param, value, where)
            if not is_keyword:
                position += 1
        if used_kwargs < len(kwargs):
            return _fail(raise_errors, _unexpected_keyword, self, args, kwargs)
        return bound

    def leave_defaults_to(self, schema_defaults: dict) -> None:
        """Leave out of a call without keywords (``bind_call(keyword_defaults=False)``) the
        keyword-only defaults that the operator's schema declares alike.

        The binding that dispatches the call as parsed passes on only what the kernel
        does not know: a default of the Python signature alone (``round``'s
        ``decimals=0``; its schema has none). The kernels declare the schema's defaults
        as their own, and autograd's formulas and the tracer read them from the schema.
        Passing ``alpha=1`` on through every layer of ``add`` would cost a seventh of a
        small add's time.
        """
        self._defaults_to_pass = {
            name: value
            for name, value in self._keyword_defaults.items()
            if not _same_value(schema_defaults.get(name, NO_DEFAULT), value)
        }

    def bind_call(self, args: tuple, kwargs: dict, raise_errors: bool, keyword_defaults=True):
        """The call as the overload takes it: ``(arguments, keywords)`` by schema name.

        Positional parameters become arguments, keyword-only ones keywords (``out``
        stays under its Python name, for the caller to route). None if the signature
        does not accept the call (or its error, with ``raise_errors``). Without
        ``keyword_defaults``, a call without keywords gets only the defaults of
        ``leave_defaults_to``.
        """
        if not kwargs:
            # The common call: positional arguments only, the rest left to their defaults.
            keywords = self._keyword_defaults if keyword_defaults else self._defaults_to_pass
            nargs = len(args)
            fewest, most = self._positional_range
            if self._int_varargs and nargs and all(type(a) is int for a in args):
                # ``x.view(2, 8)``: the ints themselves are the size.
                return (args,), keywords
            if fewest <= nargs <= most:
                params = self.params
                for i, value in enumerate(args):
                    param = params[i]
                    if type(value) in param.exact_types:
                        continue
                    if not (param.check(value) or (value is None and param.allow_none)):
                        break
                else:
                    if self._lists:
                        args = self._unpack_lists(args)
                    for i in self._ints:
                        if i < nargs and type(args[i]) is not int and args[i] is not None:
                            args = self._unpack_ints(args)
                            break
                    if nargs < self.max_pos_args:
                        args += self._positional_defaults[nargs:]
                    return args, keywords
            if not raise_errors and not self.varargs_int_list:
                return None  # ``bind`` would refuse the call for the same reason
        elif self._keywords_in_order:
            call = self._bind_keywords(args, kwargs)
            if call is not None:
                return call
        bound = self.bind(args, kwargs, raise_errors)
        if bound is None:
            return None
        values = list(bound.values())
        positional = self.max_pos_args
        keywords = {p.schema_name: v for p, v in zip(self.params[positional:], values[positional:],
                                                     strict=True)}  # fmt: skip
        return tuple(values[:positional]), keywords

    def _bind_keywords(self, args: tuple, kwargs: dict):
        """``bind_call`` of a call with keywords that ``bind`` would accept as it is: each
        argument given once, by position or by its own name, of a type its check accepts.
        None for anything else (a NumPy name, a missing or repeated argument, a value to
        refuse, ``x.view(2, 3)``'s separate ints), which ``bind`` then decides, with its
        errors. Same result as ``bind``'s, without its general bookkeeping."""
        nargs = len(args)
        if nargs > self.max_pos_args:
            return None
        values = []
        given = 0
        for index, param in enumerate(self.params):
            if index < nargs:
                value = args[index]
            else:
                value = kwargs.get(param.name, NO_DEFAULT)
                if value is NO_DEFAULT:
                    if not param.optional:
                        return None
                    values.append(param.default)
                    continue
                given += 1
            if value is None and param.allow_none:
                value = param.none_value
            elif type(value) in param.exact_types:
                pass
            elif not param.check(value):
                return None
            elif param.is_int_list:
                value = _unpack_int_list(self, param, value)
            elif param.is_int and type(value) is not int:
                value = operator.index(value)
            elif param.is_tensor_list:
                _check_tensor_list(value, index)
            values.append(value)
        if given != len(kwargs):
            return None
        positional = self.max_pos_args
        return tuple(values[:positional]), dict(zip(self._keyword_names, values[positional:],
                                                    strict=True))  # fmt: skip

    def _unpack_ints(self, args: tuple) -> tuple:
        """``bind``'s treatment of the ints among positional ``args``: a 0-dim integer
        tensor given for an ``int`` becomes its value."""
        args = list(args)
        for i in self._ints:
            if i < len(args) and args[i] is not None:
                args[i] = operator.index(args[i])
        return tuple(args)

    def _unpack_lists(self, args: tuple) -> tuple:
        """``bind``'s treatment of the lists among positional ``args``: int lists become
        tuples of ints, tensor lists have their elements checked."""
        args = list(args)
        for i in self._lists:
            if i < len(args):
                param, value = self.params[i], args[i]
                if value is None:
                    args[i] = param.none_value
                elif param.is_int_list:
                    args[i] = _unpack_int_list(self, param, value)
                else:
                    _check_tensor_list(value, i)
        return tuple(args)


def _numpy_keyword(param: PythonParameter, kwargs: dict):
    """The value given under one of the parameter's NumPy names (``axis=`` for ``dim``)."""
    for name in param.numpy_names:
        if name in kwargs:
            return kwargs[name]
    return NO_DEFAULT


def _fail(raise_errors: bool, error, *details):
    """A signature that does not fit: raise its error, or just say no (None)."""
    if raise_errors:
        raise error(*details)
    return None


def _check_tensor_list(value, index: int) -> None:
    """Every element of a ``Tensor[]`` is a tensor.

    A ``Tensor?[]`` too: PyTorch's parser (``is_tensor_list_and_append_overloaded``)
    refuses None from Python even where the schema allows it. The None entries of
    ``index``'s ``indices`` come only from C++ callers (the glue of ``x[...]``).
    """
    for position, item in enumerate(value):
        if not isinstance(item, Tensor):
            raise TypeError(
                f"expected Tensor as element {position} in argument {index}, but got "
                f"{type(item).__name__}"
            )


def _unpack_int_list(signature: PythonSignature, param: PythonParameter, value) -> tuple:
    """An int list as a tuple of Python ints, as PyTorch's ``IntArrayRef``.

    A single int given for ``int[2]`` is repeated (``stride=1`` means ``(1, 1)``); a
    0-dim integer tensor counts as its value, and so does a bool (an index, to
    ``THPUtils_unpackIndex``: only the first element's check refuses bools); any other
    element is PyTorch's "failed to unpack" error.
    """
    if not _is_sequence(value):
        return (operator.index(value),) * param.list_size
    for item in value:  # the common list: Python ints, nothing to convert
        if type(item) is not int:
            break
    else:
        return tuple(value)
    for position, item in enumerate(value):
        if not (_is_int(item) or isinstance(item, bool)):
            raise TypeError(
                f"{signature.function_name}(): argument '{param.name}' failed to unpack the "
                f'object at pos {position + 1} with error "type must be tuple of ints,but got '
                f'{type(item).__name__}"'
            )
    return tuple(operator.index(item) for item in value)


class PythonArgParser:
    """Chooses among a function's signatures, as ``PythonArgParser::parse``."""

    __slots__ = ("function_name", "signatures")

    def __init__(self, function_name: str, signatures: list[PythonSignature]):
        self.function_name = function_name
        self.signatures = signatures

    @classmethod
    def from_signatures(cls, *signatures: str, numbers_as_tensors: bool = False) -> PythonArgParser:
        """The parser of a Python binding that PyTorch writes by hand.

        Most of ``torch``'s Python functions and methods are generated from the schemas. A
        few are written by hand (``Tensor.to``, ``Tensor.copy_``, ``Tensor.float`` in
        ``python_variable_methods.cpp``; ``torch.nonzero`` and its ``as_tuple`` in
        ``python_torch_functions_manual.cpp``; ``torch.tensor`` in ``tensor_new.cpp``),
        each with a ``PythonArgParser`` over Python signature strings of its own::

            PythonArgParser.from_signatures("nonzero(Tensor input, *, bool as_tuple=False, "
                                            "Tensor out=None)")

        This builds that parser, with the same checks and errors as a generated one. The
        signatures are tried in the order given; each one's ``overload`` is its position,
        which the binding reads to know which form was called (PyTorch's ``r.idx``).
        """
        parsed = []
        for index, text in enumerate(signatures):
            name, _, rest = text.partition("(")
            params, kwarg_only = [], False
            for part in split_top_level(rest[: rest.rindex(")")]):
                if part == "*":
                    kwarg_only = True
                    continue
                argument = Argument.parse(part, kwarg_only)
                params.append(PythonParameter(argument, argument.name,
                                              numbers_as_tensors=numbers_as_tensors))  # fmt: skip
            parsed.append(PythonSignature(name, params, index))
        return cls(parsed[0].function_name, parsed)

    def parse(self, args: tuple, kwargs: dict, keyword_defaults=True):
        """``(signature, arguments, keywords)`` of the first signature that fits the call
        (``keyword_defaults``: see ``PythonSignature.bind_call``)."""
        signatures = self.signatures
        if len(signatures) == 1:
            return (signatures[0], *signatures[0].bind_call(args, kwargs, True, keyword_defaults))
        for signature in signatures:
            call = signature.bind_call(args, kwargs, False, keyword_defaults)
            if call is not None:
                return (signature, *call)
        raise self._no_match(args, kwargs)

    def _no_match(self, args: tuple, kwargs: dict) -> TypeError:
        """``print_error``: the one plausible signature's own error, else the whole list."""
        count = len(args) + len(kwargs)
        plausible = [s for s in self.signatures if s.min_args <= count <= s.max_args]
        if len(plausible) == 1:
            plausible[0].bind(args, kwargs, True)  # raises its specific error
        return TypeError(format_invalid_arguments(self.function_name, args, kwargs,
                                                  self.signatures))  # fmt: skip


# --- PyTorch's error messages (``python_arg_parser.cpp``, ``invalid_arguments.cpp``) ------


def _python_type_name(value) -> str:
    """The type as PyTorch's messages name it (``tp_name``: ``torch.dtype``, ``int``)."""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, _VIZGRAD_TYPES):
        return f"vizgrad.{type(value).__name__}"
    return type(value).__name__


_VIZGRAD_TYPES = (DType, Device, Layout, MemoryFormat, Generator)


def _too_many_positional(signature: PythonSignature, nargs: int) -> TypeError:
    name, most, least = signature.function_name, signature.max_pos_args, signature.min_args
    if least != most:
        return TypeError(
            f"{name}() takes from {least} to {most} positional arguments but {nargs} were given"
        )
    plural = "" if most == 1 else "s"
    verb = "was" if nargs == 1 else "were"
    return TypeError(f"{name}() takes {most} positional argument{plural} but {nargs} {verb} given")


def _missing_arguments(signature: PythonSignature, index: int) -> TypeError:
    missing = [f'"{p.name}"' for p in signature.params[index:] if not p.optional]
    # PyTorch's message says "arguments" for one and "argument" for several.
    plural = "s" if len(missing) == 1 else ""
    return TypeError(
        f"{signature.function_name}() missing {len(missing)} required positional "
        f"argument{plural}: {', '.join(missing)}"
    )


def _wrong_type(signature, param, value, position) -> TypeError:
    where = f" (position {position})" if position is not None else ""
    prefix = (
        f"{signature.function_name}(): argument '{param.name}'{where} must be {param.type_name}"
    )
    if param.is_int_list and _is_sequence(value) and value:
        # The list was refused for its first element (``failed_idx``), which is named.
        return TypeError(
            f"{prefix}, but found element of type {_python_type_name(value[0])} at pos 0"
        )
    return TypeError(f"{prefix}, not {_python_type_name(value)}")


def _unexpected_keyword(signature: PythonSignature, args: tuple, kwargs: dict) -> TypeError:
    positional = {p.name for p in signature.params[: len(args)]}
    for key in kwargs:
        if key in positional:
            return TypeError(
                f"{signature.function_name}() got multiple values for argument '{key}'"
            )
        if key not in signature.by_name:
            return TypeError(
                f"{signature.function_name}() got an unexpected keyword argument '{key}'"
            )
    return TypeError(f"{signature.function_name}() got an unexpected keyword argument")


def _describe_arguments(args: tuple, kwargs: dict) -> str:
    """``_argDesc``: ``(Tensor, str, keepdim=bool)``."""
    described = [_python_type_name(a) for a in args]
    described += [f"{k}={_python_type_name(v)}" for k, v in kwargs.items()]
    text = ", ".join(described)
    if not args and kwargs:
        text += ", "  # PyTorch's quirk: "(unbiased=str, )"
    return f"({text})"


def format_invalid_arguments(name: str, args: tuple, kwargs: dict, signatures) -> str:
    """``format_invalid_args``: the call's argument types against every signature."""
    options = [str(s) for s in signatures]
    if len(options) == 1:
        return (
            f"{name}() received an invalid combination of arguments - got "
            f"{_describe_arguments(args, kwargs)}, but expected {options[0]}"
        )
    lines = [
        f"{name}() received an invalid combination of arguments - got "
        f"{_describe_arguments(args, kwargs)}, but expected one of:"
    ]
    for signature, option in zip(signatures, options, strict=True):
        lines.append(f" * {option}")
        reason = _why_not(signature, option, args, kwargs)
        if reason:
            lines.append(f"      didn't match because {reason}")
    return "\n".join(lines) + "\n"


def _why_not(signature: PythonSignature, option: str, args: tuple, kwargs: dict) -> str:
    """The per-signature explanation PyTorch adds when the argument count fits.

    PyTorch reads the option back from its printed form, so ``*`` counts as an
    argument and a defaulted argument's "name" is its default (so ``Tensor out = None``
    is not recognised as ``out``, and counts whether given or not); this keeps that.
    """
    pieces = option[1:-1].split(", ") if option != "()" else []
    expected = len(pieces)
    if len(args) + len(kwargs) != expected:
        return ""
    names = [p.rsplit(" ", 1)[-1] for p in pieces]
    start = max(expected - len(kwargs), 0)
    unmatched = [k for k in kwargs if k not in names[start:]]
    if kwargs and unmatched:
        return f"some of the keywords were incorrect: {', '.join(unmatched)}"
    # Positional arguments are read against the printed pieces, where ``*`` is a piece
    # no value fits.
    by_piece, keyword_marked = [], False
    for param in signature.params:
        if param.kwarg_only and not keyword_marked:
            by_piece.append(None)
            keyword_marked = True
        by_piece.append(param)
    marked = []
    for i, value in enumerate(args):
        ok = i < len(by_piece) and by_piece[i] is not None and by_piece[i].check(value)
        text = _python_type_name(value)
        marked.append(text if ok else f"!{text}!")
    for key, value in kwargs.items():
        param = signature.by_name.get(key)
        text = f"{key}={_python_type_name(value)}"
        marked.append(text if param is not None and param.check(value) else f"!{text}!")
    return f"some of the arguments have invalid types: ({', '.join(marked)})"
