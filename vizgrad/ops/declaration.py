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
  ``torch/_prims_common/wrappers.py``);
* for an overload whose results have names (``max.dim``'s ``(Tensor values, Tensor
  indices)``), the named tuple PyTorch returns (``torch.return_types.max``, and
  ``max_out`` from the ``out=`` overload).
"""

from __future__ import annotations

from .. import return_types
from ..arg_parser import PythonArgParser, PythonParameter, PythonSignature
from ..dispatcher import (
    EXPLICIT,
    FUNCTIONAL,
    INPLACE,
    NONDIFFERENTIABLE,
    OUT,
    VIEW,
    Operator,
    dispatch,
)
from ..schema import TENSOR_OPTIONS, Argument, FunctionSchema
from ..tensor import define_method
from .overload_kernels import OverloadKernel, StructuredKernel, out_wrapper
from .registry import OPERATORS

__all__ = ["native_function", "alias_kernels", "make_leaf_require_grad"]


def _variant_of(schema: FunctionSchema) -> str:
    if schema.is_out:
        return OUT
    if schema.is_inplace:
        return INPLACE
    if schema.is_view:
        return VIEW
    return FUNCTIONAL


def _same_arguments(schema: FunctionSchema, other: FunctionSchema) -> bool:
    """An out= overload's functional twin: the same arguments but for ``out`` and the
    TensorOptions (``zeros.out`` takes its dtype from ``out``), as torchgen pairs them."""

    def key(s):
        return [(a.name, a.type, a.default_text, a.kwarg_only) for a in s.without_out()
                if not a.is_tensor_option]  # fmt: skip

    return key(schema) == key(other)


class _Overloads:
    """The overloads of one declaration, sorted into what Python calls can reach."""

    def __init__(self, schemas, kernel, kernels, derivative, derivatives, kind, kinds,
                 variant_of):  # fmt: skip
        self.functional: list[tuple[Operator, Operator | None]] = []
        self.inplace: list[Operator] = []
        parsed = [FunctionSchema.parse(s) for s in schemas]
        plain = [s for s in parsed if not s.is_out and not s.is_inplace]
        ops = {}
        for schema in parsed:
            name = schema.qualified_name
            variant = variant_of.get(name) or _variant_of(schema)
            op_kernel = _kernel_for(schema, variant, kernel, kernels, plain)
            result_type = _named_results(schema)
            if result_type is not None:
                op_kernel = _returning(result_type, op_kernel)
            declared = name in kinds or name in derivatives
            source = name
            if variant in (INPLACE, OUT) and not declared:
                # An in-place overload shares its functional twin's kind, formula and node
                # name; an out= overload its kind.
                twin = _twin(schema, plain)
                if twin is not None:
                    source = twin.qualified_name
            op_derivative = derivatives.get(source, derivative)
            # An overload given its own formula is explicit, whatever the default kind.
            op_kind = kinds.get(source, EXPLICIT if source in derivatives else kind)
            if variant is OUT and not declared and op_kind is not NONDIFFERENTIABLE:
                # An out= call records no node, so autograd refuses it when an input
                # requires grad, unless the operator has no gradient at all (``nonzero``)
                # or the overload is declared made of other operators (``nanmean.out``).
                op_kind, op_derivative = EXPLICIT, None
            if op_kind is not EXPLICIT:
                op_derivative = None  # a composite's inner calls record; nothing else does
            op = Operator(schema.text, variant, op_kernel, op_derivative, op_kind)
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


def _named_results(schema: FunctionSchema) -> type | None:
    """The named tuple PyTorch returns for results that have names in the schema.

    ``max.dim(...) -> (Tensor values, Tensor indices)`` returns a
    ``torch.return_types.max``, its ``out=`` overload a ``max_out``; results without
    names (``var_mean``'s ``(Tensor, Tensor)``) stay a plain tuple, and so do those of an
    operator without a ``torch.return_types`` type (``log_sigmoid_forward``: PyTorch binds
    it in no Python namespace, and ``torch.ops.aten`` returns plain tuples).
    """
    if len(schema.returns) < 2 or not all(r.name for r in schema.returns):
        return None
    return getattr(return_types, schema.name + ("_out" if schema.is_out else ""), None)


def _returning(result_type: type, kernel):
    """``kernel``, with its tuple of results made a ``result_type``."""

    def named_kernel(*args, **kwargs):
        return result_type(kernel(*args, **kwargs))

    named_kernel.__name__ = getattr(kernel, "__name__", "kernel")
    # Its Meta kernel (``vizgrad.ops.meta_kernels``) returns the same type.
    named_kernel.result_type = result_type
    meta_out = getattr(kernel, "meta_kernel", None)
    if meta_out is not None:
        named_kernel.meta_kernel = _returning(result_type, meta_out)
    if hasattr(kernel, "meta_function"):
        named_kernel.meta_function = kernel.meta_function
    return named_kernel


def _twin(schema: FunctionSchema, plain: list[FunctionSchema]) -> FunctionSchema | None:
    """The functional overload an in-place or out= overload was made from.

    As torchgen groups them: the same arguments (but for ``out`` and the alias
    annotations), whatever the overload names say (``pow_.Scalar`` is the in-place
    ``pow.Tensor_Scalar``, not ``pow.Scalar``).
    """
    for candidate in plain:
        named_alike = schema.is_out or candidate.name == schema.base_name
        if named_alike and _same_arguments(schema, candidate):
            return candidate
    return None


def _kernel_for(schema, variant, kernel, kernels, plain):
    """An overload's kernel: its own, else made from its functional twin's (or the default).

    A ``StructuredKernel`` makes the kernel of whichever variant asks; a plain kernel
    that returns a fresh tensor gets its ``out=`` twin from ``out_wrapper``.
    """
    name = schema.qualified_name
    source = kernels.get(name)
    if source is None:
        source = kernel
        twin = _twin(schema, plain) if variant is INPLACE or variant is OUT else None
        functional = kernels.get(twin.qualified_name, kernel) if twin is not None else None
        if isinstance(functional, StructuredKernel):
            source = functional
        elif variant is OUT and functional is not None:
            return out_wrapper(functional).for_overload(schema, variant)
    if isinstance(source, OverloadKernel):
        return source.for_overload(schema, variant)
    if source is None:
        raise RuntimeError(f"no kernel declared for {name}")
    if isinstance(source, Operator):
        return _with_own_defaults(schema, source)
    return source


def _with_own_defaults(schema, target: Operator):
    """The kernel of an overload that calls another operator (an alias: ``special_round``
    calls ``round.decimals``): it passes on the keyword options that its own schema
    gives a default and the target's does not (``decimals=0``), which a call leaves out
    when it does not give them (the parser passes on only the keywords given)."""
    missing = {argument.name: argument.default for argument in schema.arguments
               if argument.kwarg_only and argument.has_default
               and argument.name not in target.keyword_defaults}  # fmt: skip
    if not missing:
        return target

    def calling_with_defaults(*args, **kwargs):
        return target(*args, **{**missing, **kwargs})

    return calling_with_defaults


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

    First by the text of the C++-typed signature (``_signature_key``), then a signature
    goes after every signature it is "smaller" than (``eq.Scalar`` after ``eq.Tensor``),
    so a call that fits both takes the more general one, as PyTorch's bindings do. The
    same order lists the signatures in the "expected one of" error.
    """
    ordered = sorted(signatures, key=_signature_key)
    larger_than = {i: {j for j, other in enumerate(ordered) if _is_signature_smaller(s, other)}
                   for i, s in enumerate(ordered)}  # fmt: skip
    larger_than = {i: larger for i, larger in larger_than.items() if larger}
    # torchgen's topological pass: the signatures smaller than none first, in order;
    # then each one as soon as everything it is smaller than has been placed.
    placed = [i for i in range(len(ordered)) if i not in larger_than]
    for i in placed:  # (grows while it is walked)
        for j in sorted(larger_than):
            larger_than[j].discard(i)
            if not larger_than[j]:
                del larger_than[j]
                placed.append(j)
    return [ordered[i] for i in placed]


def _signature_key(signature: PythonSignature) -> str:
    """``PythonSignature.signature_str`` of torchgen: the arguments with their C++ types
    (``int64_t dim``, ``IntArrayRef[1]? dim=None``), which is what it sorts overloads by."""
    formals, keyword_marked = [], False
    for p in signature.params:
        if p.kwarg_only and not keyword_marked:
            formals.append("*")
            keyword_marked = True
        type_text = "Tensor" if p.name == "out" else _cpp_type_text(p.schema_type)
        default = f"={p.default_text}" if p.optional else ""
        formals.append(f"{type_text} {p.name}{default}")
    return f"{signature.function_name}({', '.join(formals)})"


_CPP_BASE_TYPES = {"int": "int64_t", "float": "double", "str": "c10::string_view"}
_CPP_LIST_TYPES = {"int": "IntArrayRef", "SymInt": "SymIntArrayRef", "Tensor": "TensorList",
                   "Scalar": "ScalarList"}  # fmt: skip


def _cpp_type_text(schema_type: str) -> str:
    """torchgen's ``argument_type_str``: the C++ type a schema type is bound as."""
    if schema_type.endswith("?"):
        return _cpp_type_text(schema_type[:-1]) + "?"
    if schema_type.endswith("]"):
        element, size = schema_type[:-1].split("[")
        if element == "Tensor?":
            return "c10::List<::std::optional<Tensor>>"
        if element == "bool":
            return f"::std::array<bool,{size}>"
        name = _CPP_LIST_TYPES.get(element, f"ArrayRef<{_cpp_type_text(element)}>")
        return f"{name}[{size}]" if size else name
    return _CPP_BASE_TYPES.get(schema_type, schema_type)


def _signature(name, op, out_op, *, method, numbers_as_tensors):
    """The Python signature of an overload (plus ``out=`` from its twin).

    As torchgen orders a Python signature: the schema's arguments, then ``out``, then a
    factory's TensorOptions (``dtype``, ``layout``, ``device``, ``pin_memory=False``) and
    the ``requires_grad`` its Python binding adds (``python_torch_functions.cpp``).
    """
    schema = (op or out_op).function_schema
    arguments = schema.without_out() if op is not None else schema.arguments
    is_factory = schema.has_tensor_options
    params, options = [], []
    for argument in arguments:
        if argument.name == "self" and method:
            continue
        if is_factory and argument.is_tensor_option:
            options.append(_PIN_MEMORY if argument.name == "pin_memory" else argument)
            continue
        # A tensor ``self`` is ``input`` to Python; a number keeps its name (``pow(self=2, …)``).
        python_name = "input" if argument.name == "self" and argument.is_tensor else argument.name
        params.append(PythonParameter(argument, python_name,
                                      numbers_as_tensors=numbers_as_tensors))  # fmt: skip
    if out_op is not None and op is not None:
        outs = FunctionSchema.parse(out_op.schema).out_arguments
        type_ = "Tensor[]" if len(outs) > 1 else "Tensor"
        params.append(
            PythonParameter(Argument("out", f"{type_}?", None, True, None, "None"), "out")
        )
    if is_factory:
        params += [PythonParameter(a, a.name) for a in (*options, _REQUIRES_GRAD)]
    return PythonSignature(name, params, (op, out_op))


_PIN_MEMORY = Argument("pin_memory", "bool", False, True, None, "False")
_REQUIRES_GRAD = Argument("requires_grad", "bool", False, True, None, "False")


def _call_overload(signature: PythonSignature, args: tuple, kwargs: dict):
    """Dispatch the overload a signature stands for: the ``out=`` one if ``out`` was given.

    A factory's ``requires_grad=True`` is applied to what it made (or wrote), as
    PyTorch's Python bindings do after the call.
    """
    op, out_op = signature.overload
    if "requires_grad" not in signature.by_name:
        if "out" not in kwargs and op is not None:  # the common call
            return dispatch(op, args, kwargs)
        return _dispatch_call(op, out_op, args, kwargs)
    # Absent from the parser's shared defaults (a call without keywords), so popping
    # never changes them.
    requires_grad = kwargs.pop("requires_grad", False)
    result = _dispatch_call(op, out_op, args, kwargs)
    if requires_grad:
        make_leaf_require_grad(result)
    return result


def make_leaf_require_grad(result) -> None:
    """A factory's ``requires_grad=True``: its new tensor becomes a leaf that requires grad,
    complex ones too (``set_requires_grad``, not ``requires_grad_``)."""
    if not (result.is_floating_point() or result.is_complex()):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    result._requires_grad = True


def _dispatch_call(op, out_op, args: tuple, kwargs: dict):
    if "out" not in kwargs or op is None:
        return dispatch(op or out_op, args, kwargs)
    out = kwargs.pop("out")
    if out is None:
        return dispatch(op, args, kwargs)
    for name in TENSOR_OPTIONS:  # what out= itself says for a factory
        value = kwargs.pop(name, None) if name not in out_op.params_names else None
        if name == "dtype" and value is not None and value is not out.dtype:
            raise RuntimeError(
                f"dtype {value.scalar_name} does not match dtype of out parameter "
                f"({out.dtype.scalar_name})"
            )
    names = out_op.out_names
    if len(names) == 1:
        kwargs[names[0]] = out
    else:  # ``out=(values, indices)``: one tensor per result, by the schema's names
        if len(out) != len(names):
            raise TypeError(f"expected tuple of {len(names)} elements but got {len(out)}")
        kwargs.update(zip(names, out, strict=True))
    return dispatch(out_op, args, kwargs)


def _is_method(op: Operator) -> bool:
    """A method needs a tensor ``self`` to be called on (``pow.Scalar`` takes a number)."""
    return any(type_ == "Tensor" and name == "self" for type_, name in op.params)


def _self_position(signature: PythonSignature) -> int:
    """Where a method's tensor goes among the arguments: first, but for ``where``'s
    ``(condition, self, other)``."""
    op, _ = signature.overload
    return next(i for i, (_, name) in enumerate(op.params) if name == "self")


def _plain_overloads(parser: PythonArgParser) -> dict:
    """``signature -> operator`` for the signatures whose calls dispatch their operator as
    parsed (no factory ``requires_grad`` to apply): unless ``out=`` was given, the binding
    dispatches it without ``_call_overload``. Each Python call saved counts: every
    operator call goes through here."""
    plain = {s: s.overload[0] for s in parser.signatures
             if s.overload[0] is not None and "requires_grad" not in s.by_name}  # fmt: skip
    for signature, op in plain.items():
        signature.leave_defaults_to(op.keyword_defaults)
    return plain


def _tensor_method(method_parser: PythonArgParser, check):
    """``Tensor.<name>``: the parsed call with the tensor itself as ``self``."""
    signatures = method_parser.signatures
    if len(signatures) == 1 and not signatures[0].params:
        return _method_without_arguments(method_parser.function_name, signatures[0], check)
    inner_self = {s: p for s in method_parser.signatures if (p := _self_position(s))}
    plain = _plain_overloads(method_parser)
    # One signature: bound directly (what ``parse`` does for one).
    only = signatures[0] if len(signatures) == 1 else None

    def tensor_method(self, *args, **kwargs):
        if only is not None:
            signature = only
            args, kwargs = only.bind_call(args, kwargs, True, keyword_defaults=False)
        else:
            signature, args, kwargs = method_parser.parse(args, kwargs, keyword_defaults=False)
        if inner_self and signature in inner_self:
            position = inner_self[signature]
            args = (*args[:position], self, *args[position:])
        else:
            args = (self, *args)
        if check is not None:
            check(*args, **kwargs)
        op = plain.get(signature)
        if op is not None and "out" not in kwargs:
            return dispatch(op, args, kwargs)
        return _call_overload(signature, args, kwargs)

    return tensor_method


def alias_kernels(operator, alias: str) -> dict:
    """The kernels of an alias PyTorch declares as an operator of its own (``less`` for
    ``lt``, ``arcsin`` for ``asin``): each of its overloads is the main operator's
    overload of the same name, called from CompositeImplicitAutograd (so the main
    operator records the node)."""
    base = operator.__name__
    return {alias + name[len(base) :]: op for name, op in operator.overloads.items()}


def _method_without_arguments(name: str, signature: PythonSignature, check):
    """``Tensor.exp()``: nothing to parse. PyTorch makes such a method ``METH_NOARGS``,
    so a stray argument gets Python's own error for it."""
    op = signature.overload[0]

    def tensor_method(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"Tensor.{name}() takes no keyword arguments")
        if args:
            raise TypeError(f"Tensor.{name}() takes no arguments ({len(args)} given)")
        if check is not None:
            check(self)
        if op is not None:  # (what ``_call_overload`` does with no out= to route)
            return dispatch(op, (self,), {})
        return _call_overload(signature, (self,), {})

    return tensor_method


def _python_function(name: str, function_parser: PythonArgParser, check):
    """``vizgrad.<name>``: parse the call, check its values, dispatch the chosen overload."""
    plain = _plain_overloads(function_parser)
    # One signature: bound directly (what ``parse`` does for one).
    only = function_parser.signatures[0] if len(function_parser.signatures) == 1 else None

    def function(*args, **kwargs):
        if only is not None:
            signature = only
            args, kwargs = only.bind_call(args, kwargs, True, keyword_defaults=False)
        else:
            signature, args, kwargs = function_parser.parse(args, kwargs, keyword_defaults=False)
        if check is not None:
            check(*args, **kwargs)
        op = plain.get(signature)
        if op is not None and "out" not in kwargs:
            return dispatch(op, args, kwargs)
        return _call_overload(signature, args, kwargs)

    function.__name__ = function.__qualname__ = name
    function.parser = function_parser
    return function


def native_function(
    *schemas: str,
    kernel=None,
    kernels: dict | None = None,
    derivative=None,
    derivatives: dict | None = None,
    kind: str = EXPLICIT,
    kinds: dict | None = None,
    variants: str = "function, method",
    inplace_variants: str = "method",
    numbers_as_tensors: bool = False,
    check=None,
    variant_of: dict | None = None,
    python_bindings: bool = True,
    doc: str = "",
):
    """Declare one operator from its overloads' schemas; return its Python function.

    ``kernel`` serves every overload (a ``StructuredKernel`` makes each variant);
    ``kernels`` names a kernel per overload (``{"sum.dim_IntList": ...}``). Likewise
    ``derivative``/``derivatives``: the ``Derivative`` (``derivatives.yaml``'s entry).
    ``kind``/``kinds`` is what the autograd key does with the operator, a dispatch
    fact: ``EXPLICIT`` (record the node of its derivative; the default),
    ``COMPOSITE_IMPLICIT`` (its kernel runs at the autograd key and its inner calls
    record: ``native_functions.yaml``'s ``CompositeImplicitAutograd``) or
    ``NONDIFFERENTIABLE`` (its outputs never require grad); an overload named in
    ``derivatives`` is explicit unless ``kinds`` names it. An in-place overload takes
    its functional twin's kind unless it is named; so does an out= overload of a
    non-differentiable operator, while any other out= overload not named records
    nothing (it is EXPLICIT without a formula), so autograd refuses it, as PyTorch's
    ``*_out`` functions do. ``variants`` is ``native_functions.yaml``'s field: the Python
    function is always returned (its module exports it, in ``__all__``, when the YAML
    says ``function``), and ``method`` also makes ``Tensor.<name>`` from the overloads
    with a tensor ``self``. ``inplace_variants`` is the same field of the
    in-place overloads: always the method ``Tensor.<name>_``, and with ``function``
    also the function ``vizgrad.<name>_``, returned as ``.inplace``; a declaration of
    in-place overloads only is called by its in-place name (``torch.zero_``). ``check``
    runs on the parsed arguments (as the kernel gets them, plus ``out=``) before
    dispatch: the checks PyTorch's meta functions make before any work.
    ``python_bindings=False`` binds no method: PyTorch writes this operator's Python
    binding by hand (torchgen's ``SKIP_PYTHON_BINDINGS``: ``to``, ``copy_``…), and so
    does its vizgrad module, with ``arg_parser.PythonArgParser.from_signatures``.
    """
    overloads = _Overloads(schemas, kernel, kernels or {}, derivative, derivatives or {},
                           kind, kinds or {}, variant_of or {})  # fmt: skip
    first = FunctionSchema.parse(schemas[0])
    # An operator of in-place overloads only (``zero_``) is called by its in-place name.
    python_ops = overloads.functional or [(op, None) for op in overloads.inplace]
    name = first.base_name if overloads.functional else first.name

    def parser(python_name: str, method: bool, ops) -> PythonArgParser:
        signatures = [
            _signature(python_name, op, out_op, method=method,
                       numbers_as_tensors=numbers_as_tensors)
            for op, out_op in ops
        ]  # fmt: skip
        return PythonArgParser(python_name, sort_overloads(signatures))

    function = _python_function(name, parser(name, False, python_ops), check)
    function.__doc__ = doc or f"``torch.{name}``: ``{first.text}``"
    function.overloads = overloads.operators

    if not python_bindings:
        return function
    # A method has no ``out=``: PyTorch's method bindings (``python_variable_methods.cpp``)
    # have none, so ``x.add(y, out=z)`` is an error; out= overloads are functions only.
    method_ops = [(op, None) for op, _ in overloads.functional if op and _is_method(op)]
    if "method" in variants and method_ops:
        method = _tensor_method(parser(name, True, method_ops), check)
        method.__doc__ = function.__doc__
        define_method(name, method)
    if overloads.inplace:  # in-place overloads are always methods (``Tensor.add_``)
        inplace_name = name + "_" if overloads.functional else name
        inplace_ops = [(op, None) for op in overloads.inplace]
        inplace_doc = f"In-place ``{first.base_name}``: ``{overloads.inplace[0].schema}``"
        method = _tensor_method(parser(inplace_name, True, inplace_ops), check)
        method.__doc__ = inplace_doc
        define_method(inplace_name, method)
        if "function" in inplace_variants and overloads.functional:  # ``torch.exp_(x)``
            function.inplace = _python_function(
                inplace_name, parser(inplace_name, False, inplace_ops), check
            )
            function.inplace.__doc__ = inplace_doc
    return function
