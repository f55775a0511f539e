"""Lesson 11 — ``nn.Module`` inside: the three tables (``_parameters``, ``_buffers``,
``_modules``) that attribute assignment fills, the walks over them (``named_parameters``,
``named_modules``, ``state_dict``), ``train``/``eval``, forward hooks and ``to``.

The notebook builds its models from the classes below (``Block``, ``Net``, ``Mixed``,
``RenamedNet``), so every checker rebuilds exactly what the student looked at and asks the
engine for the expected answer.
"""

from __future__ import annotations

import math

import vizgrad as vg
import vizgrad.nn as nn

from .exercise import Wrong, exercise

__all__ = ["Block", "Net", "Mixed", "RenamedNet", "home_of", "table", "DROPOUT_P", "INPUT_SHAPE"]

INPUT_SHAPE = (5, 4)  # the batch the notebook feeds Net: 5 samples of 4 features
DROPOUT_P = 0.2


# --- the models of the lesson -----------------------------------------------------------


class Block(nn.Module):
    """Linear, then BatchNorm, then ReLU: a submodule with children of its own."""

    def __init__(self, n_in: int, n_out: int):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)
        self.norm = nn.BatchNorm1d(n_out)

    def forward(self, x):
        return self.norm(self.linear(x)).relu()


class Net(nn.Module):
    """A small classifier: a Block, Dropout, a Linear head, and two buffers of its own."""

    def __init__(self):
        super().__init__()
        self.block = Block(4, 3)
        self.drop = nn.Dropout(DROPOUT_P)
        self.head = nn.Linear(3, 2)
        # Saved in state_dict and converted by .to(), but not trained.
        self.register_buffer("class_weight", vg.ones(2))
        # Converted by .to() but not saved: it is recomputed on every call.
        self.register_buffer("last_mean", vg.zeros(4), persistent=False)

    def forward(self, x):
        self.last_mean = x.detach().mean(0)  # an existing buffer's name: stays a buffer
        return self.head(self.drop(self.block(x))) * self.class_weight


class Mixed(nn.Module):
    """Six attribute assignments; where does each one land?"""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(vg.zeros(3))
        self.offset = vg.zeros(3)
        self.act = nn.ReLU()
        self.register_buffer("mean", vg.zeros(3))
        self.layers = [nn.Linear(2, 2), nn.Linear(2, 2)]
        self.scale = 2.0


class RenamedNet(nn.Module):
    """Net after a refactoring: the head is now ``classifier``, Dropout and the class
    weights are gone."""

    def __init__(self):
        super().__init__()
        self.block = Block(4, 3)
        self.classifier = nn.Linear(3, 2)

    def forward(self, x):
        return self.classifier(self.block(x))


# --- helpers the notebook calls ----------------------------------------------------------

_TABLES = ("_parameters", "_buffers", "_modules")


def home_of(module, name: str) -> str:
    """Where ``module.<name>`` lives: ``"_parameters"``, ``"_buffers"``, ``"_modules"`` or
    ``"__dict__"`` (an ordinary Python attribute, invisible to the Module machinery)."""
    for table_name in _TABLES:
        if name in getattr(module, table_name):
            return table_name
    if name in module.__dict__:
        return "__dict__"
    raise AttributeError(f"{type(module).__name__} has no attribute {name!r}")


def table(module) -> str:
    """The three tables of ``module`` (not of its children), one line each."""
    lines = []
    for table_name in _TABLES:
        entries = getattr(module, table_name)
        shown = ", ".join(
            f"{key}: {type(value).__name__}"
            + (f"{tuple(value.shape)}" if isinstance(value, vg.Tensor) else "")
            for key, value in entries.items()
        )
        lines.append(f"{table_name:12} {{{shown}}}")
    return "\n".join(lines)


def _names(answer, what: str) -> list[str]:
    """An answer that should be a collection of strings, as a list."""
    if isinstance(answer, str) or not isinstance(answer, list | tuple | set | frozenset):
        raise Wrong(f"answer with a list of {what} (strings), not a {type(answer).__name__}.")
    answer = list(answer)
    for item in answer:
        if not isinstance(item, str):
            raise Wrong(f"every element should be a string such as 'head.weight'; {item!r} "
                        "is not.")  # fmt: skip
    if len(set(answer)) != len(answer):
        raise Wrong("a key appears twice in your list: each key appears once.")
    return answer


def _shape_of(value):
    """A shape given as a tuple, list, vizgrad Size or torch Size, as a tuple of ints."""
    try:
        shape = tuple(value)
    except TypeError:
        return None
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in shape):
        return None
    return shape


# --- exercise 1: which table does an assignment land in ---------------------------------

_WHY_HOME = {
    "weight": "an nn.Parameter assigned to an attribute is routed by Module.__setattr__ into "
    "_parameters: it is trained, listed by parameters() and saved in state_dict",
    "offset": "a plain tensor that is not a Parameter is not registered anywhere: __setattr__ "
    "stores it as an ordinary attribute (in __dict__), so state_dict() does not save it and "
    ".to() does not convert it. register_buffer is the way to make it part of the module",
    "act": "a Module assigned to an attribute is routed by Module.__setattr__ into _modules: it "
    "becomes a child, walked by named_modules(), train() and to()",
    "mean": "register_buffer puts the tensor into _buffers: saved and converted, not trained",
    "layers": "a Python list is not a Module, so __setattr__ stores it in __dict__ and the "
    "Linear layers inside it are invisible: parameters() does not find them and the optimizer "
    "would never train them. nn.ModuleList registers them",
    "scale": "a Python number is ordinary state: it lands in __dict__",
}

_TABLE_SPELLINGS = {"parameters": "_parameters", "buffers": "_buffers", "modules": "_modules",
                    "dict": "__dict__"}  # fmt: skip


def _table_name(value) -> str | None:
    if not isinstance(value, str):
        return None
    key = value.strip().strip("_").lower()
    return _TABLE_SPELLINGS.get(key)


@exercise(
    "11.which_table",
    "For each attribute of Mixed (weight, offset, act, mean, layers, scale), say where it lands: "
    "'_parameters', '_buffers', '_modules' or '__dict__' (an ordinary attribute).",
    hints=(
        "Module.__setattr__ looks at the type of the value: a Parameter, a Module, or a tensor "
        "assigned to a name that is already a buffer are registered; anything else is an "
        "ordinary attribute.",
        "A plain tensor is not a Parameter, and a list of modules is not a Module.",
        "Two of the six are registered by assignment, one by register_buffer, three are "
        "ordinary attributes.",
    ),
    solution="""
answer = {"weight": "_parameters", "offset": "__dict__", "act": "_modules",
          "mean": "_buffers", "layers": "__dict__", "scale": "__dict__"}
check("11.which_table", answer)
""",
    explanation="Only Parameters, Modules and registered buffers enter the tables that "
    "parameters(), state_dict(), train() and to() walk; everything else is invisible to them.",
)
def _(answer):
    if not isinstance(answer, dict):
        raise Wrong("answer with a dict {attribute name: table}, e.g. {'weight': '_parameters', "
                    "...}.")  # fmt: skip
    model = Mixed()
    for name in _WHY_HOME:
        if name not in answer:
            raise Wrong(f"your dict has no entry for {name!r}: give all six attributes.")
        got = _table_name(answer[name])
        if got is None:
            raise Wrong(f"{name}: {answer[name]!r} is not one of '_parameters', '_buffers', "
                        "'_modules' or '__dict__'.")  # fmt: skip
        expected = home_of(model, name)
        if got != expected:
            why = _WHY_HOME[name]
            raise Wrong(f"{name}: not {got}. {why[0].upper()}{why[1:]}.")


# --- exercise 2: state_dict keys ----------------------------------------------------------


def _why_key(key: str, model) -> str:
    """Why ``key`` is (or is not) a state_dict key of ``model``."""
    if key == "last_mean":
        return "last_mean was registered with persistent=False: it is a buffer (to() converts " \
               "it) but state_dict() leaves it out"  # fmt: skip
    if key == "class_weight":
        return "Net registered class_weight itself, as a persistent buffer: it is saved, under " \
               "its own name without a prefix, before the children's keys"  # fmt: skip
    if key.startswith("drop"):
        return "Dropout has no parameters and no buffers, so it adds no keys"
    if key.endswith("num_batches_tracked"):
        return "BatchNorm1d keeps three buffers, running_mean, running_var and " \
               "num_batches_tracked (the number of batches seen in training)"  # fmt: skip
    if ".norm.running" in key:
        return "BatchNorm1d's running statistics are buffers, and persistent buffers are saved"
    if "." not in key or key.split(".")[0] not in dict(model.named_children()):
        return "a child's keys start with the names of the modules on the path to it " \
               "(e.g. 'block.linear.weight'): named_modules() gives those dotted names"  # fmt: skip
    return "every parameter is saved under its dotted name"


@exercise(
    "11.state_dict_keys",
    "List the keys of Net().state_dict().",
    hints=(
        "state_dict() saves every parameter and every persistent buffer, each under its dotted "
        "name: the path of attribute names from the model down to it.",
        "BatchNorm1d has two parameters (weight, bias) and three buffers; Dropout has neither.",
        "A buffer registered with persistent=False is not saved.",
    ),
    solution="""
answer = ["class_weight",
          "block.linear.weight", "block.linear.bias",
          "block.norm.weight", "block.norm.bias",
          "block.norm.running_mean", "block.norm.running_var", "block.norm.num_batches_tracked",
          "head.weight", "head.bias"]
check("11.state_dict_keys", answer)
""",
    explanation="state_dict() walks the tree: each module first saves its own parameters and "
    "persistent buffers (so Net's class_weight comes first), then its children, with the "
    "children's names as prefixes.",
)
def _(answer):
    got = _names(answer, "state_dict keys")
    model = Net()
    expected = list(model.state_dict())
    for key in got:
        if key not in expected:
            raise Wrong(f"{key!r} is not a key: {_why_key(key, model)}.")
    for key in expected:
        if key not in got:
            raise Wrong(f"a key is missing under {key.rsplit('.', 1)[0] if '.' in key else 'Net'}"
                        f": {_why_key(key, model)}.")  # fmt: skip


# --- exercise 3: counting parameters --------------------------------------------------------


@exercise(
    "11.count_parameters",
    "How many trainable numbers does Net have (the total number of elements of its parameters)?",
    hints=(
        "sum(p.numel() for p in model.parameters()) is the usual one-liner; try predicting it "
        "first.",
        "A Linear(n_in, n_out) has n_in * n_out weights and n_out biases; a BatchNorm1d(n) has "
        "n weights and n biases.",
        "Buffers are not parameters.",
    ),
    solution="""
model = L.Net()
answer = sum(p.numel() for p in model.parameters())
check("11.count_parameters", answer)
""",
    explanation="Linear(4, 3): 12 + 3, BatchNorm1d(3): 3 + 3, Linear(3, 2): 6 + 2. Buffers "
    "(running statistics, class_weight) are state, not parameters.",
)
def _(answer):
    is_tensor = isinstance(answer, vg.Tensor) or type(answer).__module__.startswith("torch")
    if is_tensor and hasattr(answer, "numel") and answer.numel() == 1:
        answer = answer.item()  # a vizgrad or torch tensor of one element
    if isinstance(answer, float) and answer.is_integer():
        answer = int(answer)
    if not isinstance(answer, int) or isinstance(answer, bool):
        raise Wrong(f"answer with a whole number, not a {type(answer).__name__}.")
    model = Net()
    expected = sum(p.numel() for p in model.parameters())
    if answer == expected:
        return
    persistent = sum(t.numel() for t in model.state_dict().values())
    every_buffer = expected + sum(b.numel() for b in model.buffers())
    norm = model.block.norm
    without_norm = expected - sum(p.numel() for p in norm.parameters())
    weights_only = sum(p.numel() for name, p in model.named_parameters() if name.endswith("weight"))
    if answer in (persistent, every_buffer):
        raise Wrong(f"{answer} counts buffers too (BatchNorm's running statistics, class_weight"
                    f"{'' if answer == persistent else ', last_mean'}): buffers are state that "
                    "is saved, not trained, and parameters() does not list them.")  # fmt: skip
    if answer == without_norm:
        raise Wrong(f"{answer} leaves out BatchNorm1d's own parameters: with affine=True (the "
                    "default) it learns a weight and a bias per feature.")  # fmt: skip
    if answer == weights_only:
        raise Wrong(f"{answer} counts only the weights: the biases are parameters too.")
    raise Wrong(f"{answer} is not the number of elements of Net's parameters; add up "
                "p.numel() for every parameter in named_parameters().")  # fmt: skip


# --- exercise 4: load_state_dict with strict=False ---------------------------------------


@exercise(
    "11.load_mismatch",
    "RenamedNet().load_state_dict(Net().state_dict(), strict=False) returns "
    "(missing_keys, unexpected_keys). Predict both lists.",
    hints=(
        "missing_keys: keys the loading model expects (its own state_dict keys) that the "
        "dictionary does not have.",
        "unexpected_keys: keys in the dictionary that the loading model has no place for.",
        "Compare the two lists of keys: the block's keys are the same in both models.",
    ),
    solution="""
missing = ["classifier.weight", "classifier.bias"]
unexpected = ["class_weight", "head.weight", "head.bias"]
answer = (missing, unexpected)
check("11.load_mismatch", answer)
""",
    explanation="strict=False loads what matches (block.*) and reports the rest instead of "
    "raising; with strict=True the same two lists become a RuntimeError.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong("answer with a pair (missing_keys, unexpected_keys) of two lists.")
    if hasattr(answer, "missing_keys"):
        answer = (answer.missing_keys, answer.unexpected_keys)
    missing, unexpected = (_names(part, "keys") for part in answer)
    result = RenamedNet().load_state_dict(Net().state_dict(), strict=False)
    expected_missing, expected_unexpected = result.missing_keys, result.unexpected_keys
    if set(missing) == set(expected_unexpected) and set(unexpected) == set(expected_missing):
        raise Wrong("the two lists are swapped: missing_keys are what RenamedNet needs and the "
                    "dictionary lacks; unexpected_keys are what the dictionary has and "
                    "RenamedNet has no place for.")  # fmt: skip
    for label, got, expected, where in (
        ("missing_keys", missing, expected_missing, "RenamedNet needs and Net's state_dict lacks"),
        ("unexpected_keys", unexpected, expected_unexpected,
         "Net's state_dict has and RenamedNet has no place for"),
    ):  # fmt: skip
        for key in got:
            if key not in expected:
                reason = (" The block.* keys match in both models and are loaded."
                          if key.startswith("block.") else "")  # fmt: skip
                raise Wrong(f"{label}: {key!r} does not belong there; {label} lists the keys "
                            f"{where}.{reason}")  # fmt: skip
        if len(got) < len(expected):
            raise Wrong(f"{label}: a key is missing from your list; it lists every key {where} "
                        "(buffers included).")  # fmt: skip


# --- exercise 5: a forward hook that records shapes ------------------------------------


def _expected_shapes(model, x) -> list:
    """(name, output shape) of every module of ``model``, in the order the hooks fire."""
    fired, handles = [], []
    for name, module in model.named_modules():
        handles.append(module.register_forward_hook(
            lambda m, args, out, name=name: fired.append((name, tuple(out.shape)))))  # fmt: skip
    model(x)
    for handle in handles:
        handle.remove()
    return fired


def _watch_hook_results(model) -> list:
    """Make every module's ``register_forward_hook`` note the values its hooks return.

    The list it returns fills while the model runs: a hook returning something replaces
    the output, which cannot be seen once the hooks are removed."""
    returned = []
    for module in model.modules():
        register = module.register_forward_hook

        def watched_register(hook, *args, register=register, **kwargs):
            def watched(*hook_args, **hook_kwargs):
                result = hook(*hook_args, **hook_kwargs)
                if result is not None:
                    returned.append(result)
                return result

            return register(watched, *args, **kwargs)

        # object.__setattr__: an instance attribute that shadows the method, outside the tables.
        object.__setattr__(module, "register_forward_hook", watched_register)
    return returned


def _hook_counts(model) -> int:
    return sum(len(m._forward_hooks) for m in model.modules())


@exercise(
    "11.shape_hooks",
    "Write record_shapes(model, x): register a forward hook on every module of "
    "model.named_modules(), run model(x), remove the hooks, and return the list of "
    "(name, output shape) in the order the hooks fired.",
    hints=(
        "A forward hook is called as hook(module, args, output) after the module's forward "
        "returned. It must return None (a value would replace the output).",
        "The hook does not know the module's name: capture it, e.g. with a default argument "
        "(lambda m, args, out, name=name: ...) or a function that makes the hook.",
        "register_forward_hook returns a handle; call handle.remove() on each after the run.",
    ),
    solution="""
def record_shapes(model, x):
    fired, handles = [], []
    for name, module in model.named_modules():
        def hook(module, args, output, name=name):
            fired.append((name, tuple(output.shape)))
        handles.append(module.register_forward_hook(hook))
    model(x)
    for handle in handles:
        handle.remove()
    return fired

answer = record_shapes
check("11.shape_hooks", answer)
""",
    explanation="A forward hook fires when its module's forward returns, so the parents fire "
    "after their children: block after block.linear and block.norm, and the model itself "
    "('') last.",
)
def _(answer):
    if not callable(answer):
        raise Wrong(f"answer with the function itself (answer = record_shapes), not a "
                    f"{type(answer).__name__}.")  # fmt: skip
    vg.manual_seed(0)
    model = Net().eval()  # eval: Dropout and BatchNorm are deterministic
    x = vg.randn(*INPUT_SHAPE)
    returned = _watch_hook_results(model)
    try:
        got = answer(model, x)
    except Exception as error:  # noqa: BLE001 - the student's code may raise anything
        raise Wrong(f"record_shapes(model, x) raised {type(error).__name__}: {error}") from None
    if _hook_counts(model):
        raise Wrong(
            "after record_shapes returned, the model still has forward hooks: they "
            "would fire on every later call. Keep the handles and call remove()."
        )
    if returned:
        raise Wrong("your hook returned a value, and a forward hook that returns something "
                    "replaces the module's output (the model's output changed). Return None "
                    "from the hook.")  # fmt: skip
    if not isinstance(got, list | tuple):
        raise Wrong(f"record_shapes returned a {type(got).__name__}; return a list of "
                    "(name, shape) pairs.")  # fmt: skip
    expected = _expected_shapes(model, x)
    pairs = []
    for item in got:
        if not isinstance(item, list | tuple) or len(item) != 2 or not isinstance(item[0], str):
            raise Wrong(f"{item!r} is not a (name, shape) pair such as ('head', (5, 2)).")
        shape = _shape_of(item[1])
        if shape is None:
            raise Wrong(f"the shape of {item[0]!r} should be a tuple of ints, like "
                        f"tuple(output.shape); got {item[1]!r}.")  # fmt: skip
        pairs.append((item[0], shape))
    if pairs == expected:
        return
    if len(pairs) != len(expected):
        raise Wrong(f"you recorded {len(pairs)} calls, but the model has {len(expected)} "
                    "modules in named_modules() (the model itself, named '', included), and "
                    "each is called once.")  # fmt: skip
    if sorted(pairs) == sorted(expected):
        raise Wrong("the right pairs in another order: record them as the hooks fire, not in "
                    "the order of named_modules().")  # fmt: skip
    for name, _shape in pairs:
        if name not in dict(expected):
            raise Wrong(f"{name!r} is not a name from named_modules(): record the name you "
                        "registered each hook under.")  # fmt: skip
    raise Wrong("a name was recorded with the wrong shape: record tuple(output.shape) of the "
                "output the hook receives.")  # fmt: skip


# --- exercise 6: what eval() changes in Dropout ------------------------------------------


def _dropout_values(training: bool) -> set[float]:
    """The distinct values Dropout(DROPOUT_P) makes of many ones, in train or eval mode."""
    drop = nn.Dropout(DROPOUT_P).train(training)
    return {round(v, 6) for v in drop(vg.ones(10_000)).tolist()}


def _value_set(answer, what: str) -> set[float]:
    is_tensor = isinstance(answer, vg.Tensor) or type(answer).__module__.startswith("torch")
    if is_tensor and hasattr(answer, "tolist"):  # the output itself, e.g. drop(x)
        answer = answer.detach().reshape(-1).tolist()
    if isinstance(answer, str) or not isinstance(answer, list | tuple | set | frozenset):
        raise Wrong(f"{what}: give a set of numbers such as {{0.0, 3.0}}.")
    values = set()
    for value in answer:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise Wrong(f"{what}: {value!r} is not a number.")
        values.add(round(float(value), 6))
    return values


@exercise(
    "11.eval_dropout",
    f"drop = nn.Dropout(p={DROPOUT_P}) and x = vg.ones(10). Which values can the elements of "
    "drop(x) take in training mode, and which after drop.eval()? Answer with two sets.",
    hints=(
        "In training, Dropout zeroes each element with probability p and scales the others so "
        "that the expected value of each element is unchanged.",
        "An element kept with probability 1 - p must be multiplied by 1 / (1 - p).",
        "In evaluation mode nothing is zeroed and nothing is scaled.",
    ),
    solution="""
answer = ({0.0, 1.25}, {1.0})
check("11.eval_dropout", answer)
""",
    explanation="PyTorch's dropout is 'inverted' dropout: the scaling by 1/(1-p) happens in "
    "training, so in eval() Dropout is the identity. eval() only flips the training flag of "
    "every module; Dropout and BatchNorm read it.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong("answer with a pair of sets: (values in training, values after eval()).")
    training, evaluating = (_value_set(part, label) for part, label in
                            zip(answer, ("training", "eval()"), strict=True))  # fmt: skip
    expected_training, expected_eval = _dropout_values(True), _dropout_values(False)
    keep = 1 - DROPOUT_P
    if training != expected_training:
        if training == {0.0, 1.0}:
            raise Wrong("training: the kept elements are not left as they are: Dropout scales "
                        f"them by 1/(1-p) = {1 / keep:g}, so each element's expected value stays "
                        "1.")  # fmt: skip
        if training == {0.0, round(keep, 6)}:
            raise Wrong(f"training: multiplying by 1-p = {keep:g} would shrink the expected "
                        "value; the kept elements are divided by 1-p.")  # fmt: skip
        if 0.0 not in training:
            raise Wrong("training: Dropout zeroes each element with probability p, so 0 is one "
                        "of the values.")  # fmt: skip
        raise Wrong("training: not these values; think of what happens to an element that is "
                    "kept.")  # fmt: skip
    if evaluating != expected_eval:
        if 0.0 in evaluating:
            raise Wrong("eval(): in evaluation mode Dropout zeroes nothing.")
        if any(math.isclose(v, keep) for v in evaluating):
            raise Wrong(f"eval(): scaling by 1-p = {keep:g} at test time is the original paper's "
                        "convention; PyTorch scales during training instead, so in eval mode "
                        "Dropout returns its input unchanged.")  # fmt: skip
        raise Wrong("eval(): in evaluation mode Dropout returns its input unchanged.")
