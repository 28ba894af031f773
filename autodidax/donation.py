# Generated from chapters/A19_donation_and_autodiff_rest.md by `make export`: edit the chapter, not this file.


"""Buffer donation for `jit` (chapter 8), as JAX does it: the arguments' checks, the donated
flat arguments, the aliasing of inputs to outputs, and the executable that donates; and the
inputs a program does not read, dropped unless `keep_unused`."""
from __future__ import annotations

import collections
import inspect
import math
import warnings

from autodidax import core
from autodidax.autodiff import dce_closed_jaxpr, dce_jaxpr
from autodidax.jaxpr import ClosedJaxpr
from autodidax.jit import donation_rules, prune_rules
from autodidax.runtime import Array, Executable, executable_kinds
from autodidax.tree_util import tree_flatten, tree_unflatten


def donated_params(fun, nums, names) -> tuple:
    """(donate_argnums, donate_argnames), each found from the other through `fun`'s signature
    unless both are given, and checked against it, as JAX's `resolve_argnums` does."""
    nums = None if nums is None else (nums,) if isinstance(nums, int) else tuple(nums)
    names = None if names is None else (names,) if isinstance(names, str) else tuple(names)
    try:
        params = inspect.signature(fun).parameters
    except (TypeError, ValueError):
        if names is not None:
            raise ValueError(f"Getting the signature of function {fun} failed. Pass "
                             "donate_argnums instead of donate_argnames.") from None
        return nums or (), ()
    both_ways = [(i, k) for i, (k, p) in enumerate(params.items())
                 if p.kind is p.POSITIONAL_OR_KEYWORD]
    if names is None and nums is not None:
        names = tuple(k for i, k in both_ways if i in nums)
    elif nums is None and names is not None:
        nums = tuple(i for i, k in both_ways if k in names)
    nums, names = nums or (), names or ()
    kinds = [p.kind for p in params.values()]
    positional = sum(k in (inspect.Parameter.POSITIONAL_ONLY,
                           inspect.Parameter.POSITIONAL_OR_KEYWORD) for k in kinds)
    if nums and inspect.Parameter.VAR_POSITIONAL not in kinds and (
            -min(nums) > positional or max(nums) >= positional):
        raise ValueError(f"Jitted function has donate_argnums={nums}, but only accepts "
                         f"{positional} positional arguments.")   # JAX's words
    if bad := {k for k in names if k in params and params[k].kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.VAR_POSITIONAL)}:
        raise ValueError(f"Jitted function has invalid argnames {bad} in donate_argnames. "
                         "These are positional-only")
    if inspect.Parameter.VAR_KEYWORD not in kinds and (bad := {
            k for k in names if k not in params or params[k].kind not in (
                inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)}):
        raise ValueError(f"Jitted function has invalid argnames {bad} in donate_argnames. "
                         "Function does not take these args.")
    return nums, names


def donation_vector(jitted, key) -> tuple:
    """Per flat argument of a signature, whether it is donated, as JAX's `donation_vector`
    says: the leaves of the positional arguments in `donate_argnums` and of the keyword
    arguments in `donate_argnames`. Empty when nothing is."""
    static_pos, _, in_tree, has_kwargs, avals = key[:5]
    dynamic = tree_unflatten(in_tree, [0] * len(avals))
    args, kwargs = dynamic if has_kwargs else (dynamic, {})
    static = {i for i, _ in static_pos}
    positions = [i for i in range(len(args) + len(static)) if i not in static]
    donated = []
    for i, arg in zip(positions, args):
        donated += [i in jitted.donate_argnums] * len(tree_flatten(arg)[0])
    for name in sorted(kwargs):              # in the order a dict flattens
        donated += [name in jitted.donate_argnames] * len(tree_flatten(kwargs[name])[0])
    return tuple(donated) if any(donated) else ()


def donation_aliases(closed: ClosedJaxpr, donated, placement=None) -> tuple[list, list]:
    """Per input of `closed`: the output whose buffer it becomes (or None), and whether it is a
    buffer donor, for the `donated` inputs, by JAX's rule; warns of the ones of no use."""
    ins, outs = [v.aval for v in closed.jaxpr.invars], list(closed.out_avals)
    partitioned = placement is not None and len(placement.devices) > 1
    if placement is not None:            # what matters is the part of each array on a device
        ins = list(map(_part_aval, ins, placement.in_shardings))
        outs = list(map(_part_aval, outs, placement.out_shardings))
    xla_chooses = partitioned and any(s is None for s in placement.out_shardings)
    waiting = collections.defaultdict(collections.deque)    # (shape, dtype) -> donated inputs
    for i, (aval, d) in enumerate(zip(ins, donated)):
        if d:
            waiting[aval.shape, aval.dtype].append(i)
    aliases, donors, unused = [None] * len(ins), [False] * len(ins), list(donated)
    for j, aval in enumerate(outs):
        if waiting[aval.shape, aval.dtype]:
            i = waiting[aval.shape, aval.dtype].popleft()
            unused[i] = False
            if partitioned and placement.out_shardings[j] is None:
                donors[i] = True
            else:
                aliases[i] = j
    sizes = collections.defaultdict(collections.deque)      # elements -> outputs not aliased
    for j, aval in enumerate(outs):
        if j not in aliases:
            sizes[math.prod(aval.shape)].append(j)
    for i, aval in enumerate(ins):
        free = sizes[math.prod(aval.shape)]
        if unused[i] and (free or xla_chooses):
            if free:
                free.popleft()
            unused[i], donors[i] = False, True
    if any(unused):                                         # JAX's words
        types = ", ".join(a.str_short(short_dtypes=False) for a, u in zip(ins, unused) if u)
        warnings.warn(f"Some donated buffers were not usable: {types}.\nSee an explanation at "
                      "https://docs.jax.dev/en/latest/faq.html#buffer-donation.")
    return aliases, donors


def _part_aval(aval, sharding):
    """The type of the part of an array that one device holds under `sharding` (None: all)."""
    if sharding is None or not aval.shape:
        return aval
    index = next(iter(sharding.devices_indices_map(aval.shape).values()))
    return aval.update(shape=tuple(len(range(*s.indices(n))) for s, n in zip(index, aval.shape)))


class DonatingExecutable(Executable):
    """A program that may take over the buffers of its `donated` arguments (chapter 7's kinds):
    PJRT takes a buffer only if nothing else holds it, so a call first drops the NumPy view an
    `Array` keeps of each; an array whose buffer PJRT took is deleted."""

    def __init__(self, loaded, device, out_avals=None, text=None, **options):
        self.donated = tuple(text.donated)
        super().__init__(loaded, device, out_avals, text, **options)

    @staticmethod
    def applies(text, options) -> bool:
        return bool(getattr(text, "donated", ()))

    def __call__(self, *args):
        for i in self.donated:
            if i < len(args) and type(args[i]) is Array:
                args[i]._npy = None
        outs = super().__call__(*args)
        for i in self.donated:            # a NumPy-backed array's copy was taken: it goes too
            if i < len(args) and type(args[i]) is core.Array:
                _delete(args[i])
        return outs


class DeletedArray(core.Array):
    """What a NumPy-backed array (chapter 1's) becomes when deleted: its type is kept, and any
    use of its value raises JAX's error."""
    __slots__ = ()

    def _deleted(self, *args, **kwargs):
        raise RuntimeError("Array has been deleted with shape="
                           f"{self.aval.str_short(short_dtypes=False)}.")

    _value = property(_deleted)
    __array__ = __repr__ = __str__ = __format__ = __bool__ = __iter__ = item = tolist = _deleted
    shape, dtype = property(lambda self: self.aval.shape), property(lambda self: self.aval.dtype)
    ndim, size = property(lambda self: len(self.aval.shape)), property(lambda self: self.aval.size)

    def is_deleted(self) -> bool:
        return True

    def delete(self) -> None:
        pass


def _delete(x) -> None:
    """`x.delete()` for a NumPy-backed array: it becomes a `DeletedArray`, its value dropped
    (JAX's eager arrays all live on devices, and `delete` frees the buffer)."""
    if isinstance(x, core.Tracer):
        raise core.ConcretizationTypeError(f"The delete() method was called on a tracer "
                                           f"({x.aval.str_short()})")
    x.aval                                # kept: a deleted array still has its type
    x._value = None
    x.__class__ = DeletedArray


def _is_deleted(x) -> bool:
    if isinstance(x, core.Tracer):
        raise core.ConcretizationTypeError(f"The is_deleted() method was called on a tracer "
                                           f"({x.aval.str_short()})")
    return False


core.set_array_methods({"delete": _delete, "is_deleted": _is_deleted})
executable_kinds["donating"] = DonatingExecutable
donation_rules.update(params=donated_params, vector=donation_vector, aliases=donation_aliases)


def prune(closed: ClosedJaxpr, donated=()):
    """`closed` without dead code nor the inputs it then leaves unread, as JAX's `_dce_jaxpr`;
    the donated flags of the inputs kept, and their indices (None: all)."""
    jaxpr, used = dce_jaxpr(closed.jaxpr, [True] * len(closed.jaxpr.outvars))
    kept = None if all(used) else tuple(i for i, u in enumerate(used) if u)
    donated = donated if kept is None or not donated else tuple(donated[i] for i in kept)
    return dce_closed_jaxpr(ClosedJaxpr(jaxpr, closed.consts)), donated, kept


class PrunedExecutable:
    """The executable of a pruned program, called with every input: it passes on the kept ones."""

    def __init__(self, exe, kept):
        self.exe, self.kept = exe, kept

    def __call__(self, *args):
        return self.exe(*[args[i] for i in self.kept])

    def run_arrays(self, args, avals):
        return self.exe.run_arrays([args[i] for i in self.kept], [avals[i] for i in self.kept])

    def __getattr__(self, name):          # as_text, cost_analysis, device, ...
        return getattr(self.exe, name)


prune_rules.update(prune=prune, executable=PrunedExecutable)
