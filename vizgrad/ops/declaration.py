"""One declaration per operator: every overload, its kernels, its derivative, its variants.

This is vizgrad's ``native_functions.yaml`` entry. ``native_function`` takes the whole
schema of each overload, exactly as PyTorch writes it, and generates everything a
caller meets::

    add = native_function(
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
        kernel=elementwise(_add_kernel),
        derivative=Derivative("AddBackward0", ...),
        numbers_as_tensors=True,
    )

From the schemas come:

* the ``Operator`` of each overload (``aten::add.Tensor``…), registered for the
  dispatcher, with its *kind* (explicit derivative, CompositeImplicitAutograd, or
  non-differentiable) as a dispatch fact;
* the Python function ``vizgrad.add`` and the methods ``Tensor.add``/``Tensor.add_``,
  whose argument checking and overload choice are the Python argument parser's
  (``vizgrad.arg_parser``), generated from the same schemas;
* the kernels of the in-place and ``out=`` overloads, by wrappers: a structured
  kernel (``elementwise``, built on TensorIterator) makes all three variants from one
  loop, as PyTorch's structured kernels do; a plain kernel that returns a fresh
  tensor gets its ``out=`` twin from ``out_wrapper`` (the ``out=`` contract of
  ``torch/_prims_common/wrappers.py``).
"""

from __future__ import annotations

from functools import partial

from ..arg_parser import PythonArgParser, PythonParameter, PythonSignature
from ..derivatives import COMPOSITE, NON_DIFFERENTIABLE
from ..dispatcher import (
    COMPOSITE_IMPLICIT,
    EXPLICIT,
    FUNCTIONAL,
    INPLACE,
    NONDIFFERENTIABLE,
    OUT,
    VIEW,
    Operator,
    dispatch,
)
from ..schema import Argument, FunctionSchema
from ..tensor import Tensor
from .registry import OPERATORS, bind_method, write_to_out

__all__ = ["native_function", "out_wrapper", "StructuredKernel"]


class StructuredKernel:
    """A kernel that makes its own functional, in-place and ``out=`` variants.

    PyTorch's ``structured: True`` kernels compute into an output that a shared
    set-up prepared (allocated, or checked and resized); subclasses say how.
    """

    def for_overload(self, schema: FunctionSchema, variant: str):
        raise NotImplementedError


def out_wrapper(kernel, *, check_cast: bool = True):
    """The ``out=`` overload of a kernel that returns a fresh result.

    Compute as the functional overload does, then check the cast, resize ``out`` and
    copy into it (``_prims_common.wrappers.out_wrapper``).
    """

    def out_kernel(*args, out, **kwargs):
        return write_to_out(kernel(*args, **kwargs), out, check_cast=check_cast)

    out_kernel.__name__ = f"{getattr(kernel, '__name__', 'kernel')}_out"
    return out_kernel


def _variant_of(schema: FunctionSchema) -> str:
    if schema.is_out:
        return OUT
    if schema.is_inplace:
        return INPLACE
    if schema.is_view:
        return VIEW
    return FUNCTIONAL


def _kind_of(derivative) -> str:
    if derivative is COMPOSITE:
        return COMPOSITE_IMPLICIT
    if derivative is NON_DIFFERENTIABLE:
        return NONDIFFERENTIABLE
    return EXPLICIT


# TensorOptions: the keyword arguments a factory takes to say what to make.
_TENSOR_OPTIONS = {"dtype": "ScalarType?", "layout": "Layout?", "device": "Device?",
                   "pin_memory": "bool?"}  # fmt: skip


def _is_tensor_option(argument) -> bool:
    return _TENSOR_OPTIONS.get(argument.name) == argument.type


def _has_tensor_options(schema: FunctionSchema) -> bool:
    """A factory overload (``zeros``, ``rand``…): it takes dtype, layout and device."""
    return {"dtype", "layout", "device"} <= {a.name for a in schema.arguments
                                              if _is_tensor_option(a)}  # fmt: skip


def _same_arguments(schema: FunctionSchema, other: FunctionSchema) -> bool:
    """An out= overload's functional twin: the same arguments but for ``out`` and the
    TensorOptions (``zeros.out`` takes its dtype from ``out``), as torchgen pairs them."""

    def key(s):
        return [(a.name, a.type, a.default_text, a.kwarg_only) for a in s.without_out()
                if not _is_tensor_option(a)]  # fmt: skip

    return key(schema) == key(other)


class _Overloads:
    """The overloads of one declaration, sorted into what Python calls can reach."""

    def __init__(self, schemas, kernel, kernels, derivative, derivatives, variant_of):
        self.functional: list[tuple[Operator, Operator | None]] = []
        self.inplace: list[Operator] = []
        parsed = [FunctionSchema.parse(s) for s in schemas]
        plain = [s for s in parsed if not s.is_out and not s.is_inplace]
        ops = {}
        for schema in parsed:
            name = schema.qualified_name
            variant = variant_of.get(name) or _variant_of(schema)
            op_kernel = _kernel_for(schema, variant, kernel, kernels, plain)
            op_derivative = derivatives.get(name, derivative)
            if variant is INPLACE and name not in derivatives:
                # An in-place overload shares its functional twin's formula and node name.
                twin = _twin(schema, plain)
                if twin is not None:
                    op_derivative = derivatives.get(twin.qualified_name, derivative)
            if variant is OUT and not (name in derivatives and op_derivative is COMPOSITE):
                # An out= call records no node: autograd refuses it when an input requires
                # grad. Unless it is declared composite itself: its kernel calls other out=
                # operators, which refuse (``hstack.out`` calls ``cat.out``).
                op_derivative = None
            kind = _kind_of(op_derivative)
            if kind is not EXPLICIT:
                op_derivative = None
            op = Operator(schema.text, variant, op_kernel, op_derivative, kind=kind)
            if op.qualname in OPERATORS:
                raise RuntimeError(f"operator {op.qualname} declared twice")
            OPERATORS[op.qualname] = op
            ops[name] = (schema, op)
        for schema, op in ops.values():
            if schema.is_inplace:
                self.inplace.append(op)
            elif not schema.is_out:
                out = next((o for s, o in ops.values() if s.is_out and _same_arguments(s, schema)),
                           None)  # fmt: skip
                self.functional.append((op, out))
        for schema, op in ops.values():  # out= overloads without a functional twin
            if schema.is_out and not any(o is op for _, o in self.functional):
                self.functional.append((None, op))
        self.operators = {name: op for name, (_, op) in ops.items()}


def _twin(schema: FunctionSchema, plain: list[FunctionSchema]) -> FunctionSchema | None:
    """The functional overload an in-place or out= overload was made from."""
    for candidate in plain:
        if schema.is_inplace and candidate.overload_name == schema.overload_name:
            if candidate.name == schema.base_name:
                return candidate
        elif schema.is_out and _same_arguments(schema, candidate):
            return candidate
    return None


def _kernel_for(schema, variant, kernel, kernels, plain):
    name = schema.qualified_name
    if name in kernels:
        own = kernels[name]
        return own.for_overload(schema, variant) if isinstance(own, StructuredKernel) else own
    if isinstance(kernel, StructuredKernel):
        return kernel.for_overload(schema, variant)
    if variant is OUT or variant is INPLACE:
        # A structured kernel named for the functional twin makes this overload's too
        # (``squeeze.dim``'s makes ``squeeze_.dim``'s); a plain one gets out= wrapped.
        twin = _twin(schema, plain)
        if twin is not None:
            functional = kernels.get(twin.qualified_name, kernel)
            if isinstance(functional, StructuredKernel):
                return functional.for_overload(schema, variant)
            if functional is not None and variant is OUT:
                return out_wrapper(functional)
    if kernel is None:
        raise RuntimeError(f"no kernel declared for {name}")
    return kernel


def _is_type_smaller(first: str, second: str) -> bool:
    """torchgen's order between two argument types: the smaller is tried later.

    A ``Scalar`` overload comes after its ``Tensor`` twin, an ``int`` after a ``Tensor``
    (a 0-dim tensor would fit both), an ``int[]`` after an ``int``, a ``Tensor[]`` after
    other lists.
    """
    return (
        (first, second) in (("Scalar", "Tensor"), ("Scalar?", "Tensor?"), ("int[]", "int"),
                            ("int[]", "int?"), ("SymInt[]", "int[]"), ("int", "Tensor"),
                            ("SymInt", "Tensor"))
        or (first == "Tensor[]" and "[]" in second)
    )  # fmt: skip


def _is_signature_smaller(first: PythonSignature, second: PythonSignature) -> bool:
    types_1 = [p.schema_type for p in first.params if p.name != "out"]
    types_2 = [p.schema_type for p in second.params if p.name != "out"]
    if len(types_1) != len(types_2) or types_1 == types_2:
        return False
    return all(a == b or _is_type_smaller(a, b) for a, b in zip(types_1, types_2, strict=True))


def sort_overloads(signatures: list[PythonSignature]) -> list[PythonSignature]:
    """The order the parser tries signatures in (torchgen's ``sort_overloads``).

    Declaration order, except that a signature goes after every signature it is
    "smaller" than (``eq.Scalar`` after ``eq.Tensor``), so a call that fits both takes
    the more general one, as PyTorch's bindings do.
    """
    remaining = list(signatures)
    ordered = []
    while remaining:
        for candidate in remaining:
            if not any(_is_signature_smaller(candidate, other) for other in remaining
                       if other is not candidate):  # fmt: skip
                ordered.append(candidate)
                remaining.remove(candidate)
                break
        else:  # a cycle cannot happen in a partial order; keep declaration order
            ordered.extend(remaining)
            break
    return ordered


def _signature(name, op, out_op, *, method, numbers_as_tensors):
    """The Python signature of an overload (plus ``out=`` from its twin)."""
    schema = FunctionSchema.parse((op or out_op).schema)
    arguments = schema.without_out() if op is not None else schema.arguments
    params = []
    for argument in arguments:
        if argument.name == "self" and method:
            continue
        python_name = "input" if argument.name == "self" else argument.name
        params.append(PythonParameter(argument, python_name,
                                      numbers_as_tensors=numbers_as_tensors))  # fmt: skip
    if out_op is not None and op is not None:
        outs = FunctionSchema.parse(out_op.schema).out_arguments
        type_ = "Tensor[]" if len(outs) > 1 else "Tensor"
        params.append(
            PythonParameter(Argument("out", f"{type_}?", None, True, None, "None"), "out")
        )
    factory = _has_tensor_options(schema)
    if factory:
        # The Python bindings of a factory add ``requires_grad`` (python_torch_functions).
        params.append(PythonParameter(_REQUIRES_GRAD, "requires_grad"))
    return PythonSignature(name, params, _invoker(op, out_op, factory))


_REQUIRES_GRAD = Argument("requires_grad", "bool", False, True, None, "False")


def _invoker(op, out_op, factory: bool):
    """What a signature stands for: ``invoke(args, kwargs)`` dispatches its overload.

    Most calls are a plain dispatch. With an ``out=`` twin, ``out`` picks the overload
    (``_dispatch_call``); a factory applies ``requires_grad`` to what it made
    (``_factory_call``).
    """
    if factory:
        return partial(_factory_call, op, out_op)
    if out_op is None or op is None:
        return partial(dispatch, op or out_op)
    return partial(_dispatch_call, op, out_op)


def _factory_call(op, out_op, args: tuple, kwargs: dict):
    """A factory's ``requires_grad=True`` is applied to what it made (or wrote), as
    PyTorch's Python bindings do after the call."""
    kwargs = dict(kwargs)  # the parser may have handed over its shared defaults
    requires_grad = kwargs.pop("requires_grad")
    result = _dispatch_call(op, out_op, args, kwargs)
    if requires_grad:
        if not (result.is_floating_point() or result.is_complex()):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        result.requires_grad_(True)
    return result


def _dispatch_call(op, out_op, args: tuple, kwargs: dict):
    if "out" not in kwargs or op is None:
        return dispatch(op or out_op, args, kwargs)
    out = kwargs.pop("out")
    if out is None:
        return dispatch(op, args, kwargs)
    for name in _TENSOR_OPTIONS:  # what out= itself says for a factory
        value = kwargs.pop(name, None) if name not in out_op.params_names else None
        if name == "dtype" and value is not None and value is not out.dtype:
            raise RuntimeError(
                f"dtype {value.scalar_name} does not match dtype of out parameter "
                f"({out.dtype.scalar_name})"
            )
    names = out_op.out_names
    if len(names) == 1:
        kwargs[names[0]] = out
    else:
        kwargs.update(zip(names, out, strict=True))
    return dispatch(out_op, args, kwargs)


def _variants_of(ops, variants) -> str:
    """The ``variants`` of one overload (a pair from ``_Overloads.functional``)."""
    if isinstance(variants, str):
        return variants
    op = ops[0] or ops[1]
    return variants.get(op.qualname.removeprefix("aten::"), "function, method")


def _binding(parser: PythonArgParser, check, *, method: bool):
    """``vizgrad.<name>`` or ``Tensor.<name>``: parse the call, check it, dispatch it.

    A method takes the tensor itself as ``self`` (its first argument), which the
    method's signatures leave out. The common call is kept short: when it gives,
    without keywords, only arguments of exactly the plain types of a signature the
    parser would reach with them (``x.transpose(0, 1)``: a tensor, then two ints;
    ``cat([a, b])``: a list of tensors), or only ints for the first signature's lone
    int list (``x.view(2, 8)``), the parser would pass them on as they are: the call
    goes straight to that overload. Its loops are written out, without helpers: this
    runs on every call.
    """
    parse = parser.parse
    if not parser.signatures:  # an operator with in-place overloads only: no function
        return lambda *args, **kwargs: parse(args, kwargs)
    skip = 1 if method else 0  # ``self`` comes before the signature's arguments
    shortcuts = tuple(_shortcut(signature, skip) for signature in parser.plain_signatures)
    first = parser.signatures[0]
    # ``x.view(2, 8)``: separate ints for the list (not for ``int[2]``, where one int
    # stands for the list repeated).
    ints_for_list = (first.varargs_int_list and first.params[0].list_size is None
                     and first.positional_range[1] > 0)  # fmt: skip
    first_invoke, keyword_defaults = _without_out(first.overload), first.keyword_defaults

    def binding(*args, **kwargs):
        if not kwargs:
            given = len(args)
            if ints_for_list:
                for value in args[skip:]:
                    if type(value) is not int:
                        break
                else:
                    if given > skip and (not skip or type(args[0]) is Tensor):
                        args = (*args[:skip], args[skip:])
                        if check is not None:
                            check(*args, **keyword_defaults)
                        return first_invoke(args, keyword_defaults)
            for plain_types, fewest, most, tensor_lists, defaults, keywords, invoke in shortcuts:
                if fewest <= given <= most:
                    i = 0
                    for value in args:
                        if type(value) is not plain_types[i]:
                            break
                        i += 1  # noqa: SIM113 - cheaper than enumerate() on this path
                    else:
                        if not tensor_lists or _all_tensors(args, tensor_lists):
                            if given < most:
                                args += defaults[given:]
                            if check is not None:
                                check(*args, **keywords)
                            return invoke(args, keywords)
        signature, rest, kwargs = parse(args[skip:], kwargs)
        args = (*args[:skip], *rest)
        if check is not None:
            check(*args, **kwargs)
        return signature.overload(args, kwargs)

    return binding


def _shortcut(signature: PythonSignature, skip: int) -> tuple:
    """What ``_binding``'s short path needs of a signature, ``self`` (``skip``) included:
    the plain types, how many positional arguments, which are tensor lists, the
    defaults, and how to dispatch."""
    fewest, most = (bound + skip if bound >= 0 else bound for bound in signature.positional_range)
    return (
        (Tensor,) * skip + signature.plain_types,
        fewest,
        most,
        tuple(i + skip for i in signature.tensor_lists),
        (None,) * skip + signature.positional_defaults,
        signature.keyword_defaults,
        _without_out(signature.overload),
    )


def _all_tensors(args: tuple, positions: tuple) -> bool:
    """The lists at ``positions`` (those given) hold tensors only."""
    for i in positions:
        if i < len(args):
            for item in args[i]:
                if type(item) is not Tensor:
                    return False
    return True


def _without_out(invoke):
    """The invoker of a call known to give no ``out=``: its functional overload, directly."""
    if isinstance(invoke, partial) and invoke.func is _dispatch_call:
        return partial(dispatch, invoke.args[0])
    return invoke


def native_function(
    *schemas: str,
    kernel=None,
    kernels: dict | None = None,
    derivative=None,
    derivatives: dict | None = None,
    variants: str | dict = "function, method",
    numbers_as_tensors: bool = False,
    check=None,
    variant_of: dict | None = None,
    python_name: str | None = None,
    doc: str = "",
):
    """Declare one operator from its overloads' schemas; return its Python function.

    ``kernel`` serves every overload (a ``StructuredKernel`` makes each variant);
    ``kernels`` names a kernel per overload (``{"sum.dim_IntList": ...}``). Likewise
    ``derivative``/``derivatives``: a ``Derivative``, ``COMPOSITE`` or
    ``NON_DIFFERENTIABLE``. ``variants`` is ``native_functions.yaml``'s field:
    ``function`` makes ``vizgrad.<name>``, ``method`` makes ``Tensor.<name>``; an
    in-place overload is always the method ``Tensor.<name>_``. As the YAML has it per
    entry, it may be given per overload (``{"repeat_interleave.Tensor": "function"}``),
    the others being ``"function, method"``. ``check`` runs on the
    parsed arguments (as the kernel gets them, plus ``out=``) before dispatch: the
    checks PyTorch's meta functions make before any work.
    """
    overloads = _Overloads(schemas, kernel, kernels or {}, derivative, derivatives or {},
                           variant_of or {})  # fmt: skip
    first = FunctionSchema.parse(schemas[0])
    name = python_name or first.base_name

    def parser(python_name: str, method: bool, ops) -> PythonArgParser:
        signatures = [
            _signature(python_name, op, out_op, method=method,
                       numbers_as_tensors=numbers_as_tensors)
            for op, out_op in ops
        ]  # fmt: skip
        return PythonArgParser(python_name, sort_overloads(signatures))

    function_parser = parser(name, False, overloads.functional)
    function = _binding(function_parser, check, method=False)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc or f"``torch.{name}``: ``{first.text}``"
    function.overloads = overloads.operators
    function.parser = function_parser

    method_ops = [ops for ops in overloads.functional if "method" in _variants_of(ops, variants)]
    if method_ops:
        method = _binding(parser(name, True, method_ops), check, method=True)
        method.__doc__ = function.__doc__
        bind_method(name, method)
    if overloads.inplace:  # in-place overloads are always methods (``Tensor.add_``)
        inplace_ops = [(op, None) for op in overloads.inplace]
        method = _binding(parser(name + "_", True, inplace_ops), check, method=True)
        method.__doc__ = f"In-place ``{name}``: ``{overloads.inplace[0].schema}``"
        bind_method(name + "_", method)
        function.inplace = method
    return function
