"""A pickle reader that builds data and never runs code (``torch/_weights_only_unpickler.py``).

Python's own ``pickle.load`` runs whatever a file asks: a pickle is a small program
whose ``GLOBAL`` instruction imports any name (``os.system``, ``builtins.eval``) and
whose ``REDUCE`` instruction calls it. Loading a stranger's checkpoint with it is running
a stranger's program. PyTorch's ``weights_only`` load reads the same instructions with
its own interpreter instead, which knows a short list of names (the tensor rebuilders,
storage types, dtypes, ``OrderedDict``…) and refuses every other one *before* anything
is called. This is that interpreter.

It reads protocol 2 (what ``torch.save`` writes) and only the instructions a state dict
needs; a name is looked up in the ``allowed`` table the caller passes, and only the
callables in it can be called. ``BUILD`` (setting an object's state) is allowed only for
an ``OrderedDict``'s ``_metadata``, as ``nn.Module.state_dict`` makes it. Nesting deeper
than ``MAX_DEPTH`` is refused: a few bytes of pickle can build a structure that Python
cannot print or copy without overflowing its stack.

Every refusal is a ``pickle.UnpicklingError`` whose message starts, as PyTorch's does,
with "Weights only load failed", and says what was refused and what to do instead.
"""

from __future__ import annotations

import _compat_pickle
import pickle
import pickletools
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from struct import unpack

__all__ = ["Unpickler", "MAX_DEPTH", "refusal"]

# Deeper than any state dict or optimizer state (they nest 5 or 6 levels), and far below
# Python's recursion limit, so that what loads can also be printed, compared and copied.
MAX_DEPTH = 256

# Modules whose names are refused with a warning of their own: naming one is the
# classic attack (``os.system`` in a ``__reduce__``), never an honest checkpoint.
BLOCKED_MODULES = frozenset({"os", "posix", "nt", "sys", "subprocess", "builtins", "shutil",
                             "socket", "importlib", "runpy", "code", "pty"})  # fmt: skip

# The containers the interpreter may fill (SETITEM) and build (BUILD on ``_metadata``).
_DICTS = (dict, OrderedDict, Counter)

_ADVICE = (
    "vizgrad.load reads weights only: tensors, parameters, dtypes, devices, sizes and plain "
    "containers (dict, OrderedDict, list, tuple, set, str, bytes, numbers, None), so that "
    "loading a file can never run code. If you wrote this file, save only state_dicts "
    "(model.state_dict(), optimizer.state_dict()) and plain values."
)


def refusal(what: str) -> pickle.UnpicklingError:
    """The error for a refused checkpoint: PyTorch's class and opening words, then why."""
    return pickle.UnpicklingError(f"Weights only load failed: {what}\n{_ADVICE}")


def _opcode_name(code: int) -> str:
    for op in pickletools.opcodes:
        if op.code == chr(code):
            return op.name
    return f"byte {code:#04x}"


def _depth(root) -> int:
    """How deeply containers nest in ``root`` (a list of lists is 2), without recursing.

    An object reached twice counts once (a pickle's memo can make a chain of shared
    tuples whose unfolded size doubles at every level), and a cycle (a list holding
    itself, which pickle can express) adds nothing.
    """
    depth_of: dict[int, int] = {}
    on_path: set[int] = set()
    stack = [(root, False)]
    while stack:
        obj, children_done = stack.pop()
        key = id(obj)
        if children_done:
            on_path.discard(key)
            depth_of[key] = 1 + max((depth_of.get(id(c), 0) for c in _children(obj)), default=0)
            if depth_of[key] > MAX_DEPTH:
                return depth_of[key]
            continue
        if key in depth_of or key in on_path or not _is_container(obj):
            continue
        on_path.add(key)
        stack.append((obj, True))
        stack.extend((c, False) for c in _children(obj) if _is_container(c))
        if len(on_path) > MAX_DEPTH:
            return len(on_path)
    return depth_of.get(id(root), 0)


def _is_container(obj) -> bool:
    return isinstance(obj, list | tuple | dict | set)


def _children(obj):
    if isinstance(obj, dict):
        # An OrderedDict's attributes (``_metadata``) nest inside it too.
        attributes = list(vars(obj).values()) if type(obj) is not dict else []
        return [*obj.keys(), *obj.values(), *attributes]
    return obj


class Unpickler:
    """Reads one pickle from ``file`` with a fixed table of names.

    ``allowed`` maps a dotted name (``"torch._utils._rebuild_tensor_v2"``) to the object
    ``GLOBAL`` pushes; ``callables`` is the subset ``REDUCE`` may call; ``known`` maps
    other dotted names to an explanation of why vizgrad refuses them although PyTorch
    knows them (``torch.bfloat16``: a dtype vizgrad lacks). ``persistent_load`` turns a
    ``('storage', ...)`` record into a storage.
    """

    def __init__(
        self,
        file,
        *,
        allowed: Mapping[str, object],
        callables: frozenset,
        known: Mapping[str, str],
        persistent_load: Callable,
    ):
        self.read = file.read
        self.readline = file.readline
        self.allowed = allowed
        self.callables = callables
        self.known = known
        self.persistent_load = persistent_load
        self.memo: dict[int, object] = {}

    # -- reading -------------------------------------------------------------------

    def _read(self, n: int) -> bytes:
        data = self.read(n)
        if len(data) != n:
            raise refusal("the pickle ends in the middle of an instruction (truncated file)")
        return data

    def _global(self) -> object:
        module = self.readline()[:-1].decode("utf-8")
        name = self.readline()[:-1].decode("utf-8")
        # Python 2 names (``__builtin__.set``), as protocol 2 writes them, mapped as pickle does.
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full = f"{module}.{name}"
        if full in self.allowed:
            return self.allowed[full]
        if full in self.known:
            raise refusal(f"the checkpoint needs {full}: {self.known[full]}")
        if module.split(".")[0] in BLOCKED_MODULES:
            raise refusal(
                f"the checkpoint asks for {full}, a function that could run commands or code "
                "on your computer. It was refused before anything ran: this file is not a "
                "plain checkpoint, and may be an attack."
            )
        raise refusal(
            f"the checkpoint names the global {full}, which is not allowed (only tensors and "
            f"plain data are). Nothing was imported or called."
        )

    def _pop_mark(self) -> list:
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def load(self):
        """Run the pickle's instructions and return the object it builds."""
        self.metastack: list[list] = []
        self.stack: list = []
        try:
            result = self._run()
        except pickle.UnpicklingError:
            raise
        except (IndexError, KeyError) as e:
            # An instruction found too little on the stack, or a memo slot never written:
            # a damaged pickle, or one written to confuse a reader.
            raise refusal(
                f"the pickle is malformed ({type(e).__name__}: {e}): it reads values it never wrote"
            ) from None
        if _depth(result) > MAX_DEPTH:
            raise refusal(
                f"the checkpoint's containers nest more than {MAX_DEPTH} levels deep (a "
                "'pickle bomb': Python could not print or copy the result)"
            )
        return result

    def _run(self):  # noqa: C901 - one branch per instruction, as pickle's own loop
        read, stack = self._read, None
        while True:
            stack = self.stack
            key = self.read(1)
            if not key:
                raise refusal("the pickle ends before its STOP instruction (truncated file)")
            op = key[0]
            if op == pickle.GLOBAL[0]:
                stack.append(self._global())
            elif op == pickle.REDUCE[0]:
                args = stack.pop()
                func = stack[-1]
                if not _hashable_in(func, self.callables):
                    raise refusal(f"the checkpoint asks to call {func!r}, which is not a function")
                if type(args) is not tuple:
                    raise refusal("the pickle calls a function without an argument tuple")
                try:
                    stack[-1] = func(*args)
                except TypeError as e:  # a wrong number of arguments, from the file
                    raise refusal(f"the checkpoint calls {func.__name__} wrongly ({e})") from None
            elif op == pickle.BUILD[0]:
                state = stack.pop()
                self._build(stack[-1], state)
            elif op == pickle.NEWOBJ[0]:
                raise refusal(
                    f"the checkpoint creates an object of class {stack[-2]!r} directly (NEWOBJ); "
                    "only containers and tensors can be rebuilt"
                )
            elif op == pickle.APPEND[0]:
                item = stack.pop()
                _check_list(stack[-1]).append(item)
            elif op == pickle.APPENDS[0]:
                items = self._pop_mark()
                _check_list(self.stack[-1]).extend(items)
            elif op == pickle.SETITEM[0]:
                value, k = stack.pop(), stack.pop()
                _set_item(stack[-1], k, value)
            elif op == pickle.SETITEMS[0]:
                items = self._pop_mark()
                if len(items) % 2:
                    raise refusal("the pickle's SETITEMS has a key without a value")
                target = self.stack[-1]
                for i in range(0, len(items), 2):
                    _set_item(target, items[i], items[i + 1])
            elif op == pickle.MARK[0]:
                if len(self.metastack) >= MAX_DEPTH:
                    raise refusal(
                        f"the checkpoint's containers nest more than {MAX_DEPTH} levels deep "
                        "(a 'pickle bomb')"
                    )
                self.metastack.append(stack)
                self.stack = []
            elif op == pickle.TUPLE[0]:
                items = self._pop_mark()
                self.stack.append(tuple(items))
            elif op == pickle.TUPLE1[0]:
                stack[-1] = (stack[-1],)
            elif op == pickle.TUPLE2[0]:
                stack[-2:] = [(stack[-2], stack[-1])]
            elif op == pickle.TUPLE3[0]:
                stack[-3:] = [(stack[-3], stack[-2], stack[-1])]
            elif op == pickle.NONE[0]:
                stack.append(None)
            elif op == pickle.NEWFALSE[0]:
                stack.append(False)
            elif op == pickle.NEWTRUE[0]:
                stack.append(True)
            elif op == pickle.EMPTY_TUPLE[0]:
                stack.append(())
            elif op == pickle.EMPTY_LIST[0]:
                stack.append([])
            elif op == pickle.EMPTY_DICT[0]:
                stack.append({})
            elif op == pickle.EMPTY_SET[0]:
                stack.append(set())
            elif op == pickle.BININT[0]:
                stack.append(unpack("<i", read(4))[0])
            elif op == pickle.BININT1[0]:
                stack.append(read(1)[0])
            elif op == pickle.BININT2[0]:
                stack.append(unpack("<H", read(2))[0])
            elif op == pickle.LONG1[0]:
                stack.append(pickle.decode_long(read(read(1)[0])))
            elif op == pickle.BINFLOAT[0]:
                stack.append(unpack(">d", read(8))[0])
            elif op == pickle.BINUNICODE[0]:
                stack.append(str(read(unpack("<I", read(4))[0]), "utf-8", "surrogatepass"))
            elif op == pickle.SHORT_BINSTRING[0]:
                stack.append(read(read(1)[0]).decode("utf-8"))  # Python 2 str, as torch decodes
            elif op == pickle.BINPERSID[0]:
                pid = stack.pop()
                if type(pid) is not tuple or not pid or pid[0] != "storage":
                    raise refusal(
                        f"the pickle refers to an external object {pid!r} that is not a storage"
                    )
                stack.append(self.persistent_load(pid))
            elif op == pickle.BINGET[0]:
                stack.append(self.memo[read(1)[0]])
            elif op == pickle.LONG_BINGET[0]:
                stack.append(self.memo[unpack("<I", read(4))[0]])
            elif op == pickle.BINPUT[0]:
                self.memo[read(1)[0]] = stack[-1]
            elif op == pickle.LONG_BINPUT[0]:
                self.memo[unpack("<I", read(4))[0]] = stack[-1]
            elif op == pickle.PROTO[0]:
                proto = read(1)[0]
                if proto > 2:
                    raise refusal(
                        f"the pickle uses protocol {proto}; checkpoints are written with protocol 2"
                    )
            elif op == pickle.STOP[0]:
                if self.metastack or len(stack) != 1:
                    raise refusal("the pickle stops with unfinished values on its stack")
                return stack.pop()
            else:
                raise refusal(
                    f"the pickle uses the instruction {_opcode_name(op)}, which a weights-only "
                    "load does not read"
                )

    def _build(self, inst, state) -> None:
        """``BUILD``: only an OrderedDict's ``_metadata`` (what ``state_dict()`` attaches)."""
        if type(inst) is not OrderedDict or type(state) is not dict:
            raise refusal(
                f"the pickle sets the state of a {type(inst).__name__}; only an OrderedDict's "
                "_metadata can be set"
            )
        for name in state:
            # An attribute named like a method (``keys``) would replace it on this dict.
            if type(name) is not str or hasattr(OrderedDict, name):
                raise refusal(f"the pickle sets the attribute {name!r} on an OrderedDict")
        inst.__dict__.update(state)


def _hashable_in(obj, table: frozenset) -> bool:
    try:
        return obj in table
    except TypeError:  # an unhashable value on the stack (a list) is never a function
        return False


def _check_list(obj) -> list:
    if type(obj) is not list:
        raise refusal(
            f"the pickle appends to a {type(obj).__name__}; only lists can be appended to"
        )
    return obj


def _set_item(target, key, value) -> None:
    if type(target) not in _DICTS:
        raise refusal(
            f"the pickle sets an item of a {type(target).__name__}; only dicts hold items"
        )
    try:
        target[key] = value
    except TypeError:
        raise refusal(f"the pickle uses an unhashable {type(key).__name__} as a dict key") from None
