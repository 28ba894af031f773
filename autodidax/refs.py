# Generated from chapters/A30_array_refs.md by `make export`: edit the chapter, not this file.


"""Array refs: mutable arrays in a functional system. A `Ref` type, the primitives that create,
read and write refs, their rules, and discharge: a program with refs made into a pure one."""
from __future__ import annotations

import weakref

import numpy as np

from autodidax import core, numpy as jnp
from autodidax.ad_checkpoint import remat_p
from autodidax.autodiff import effectful_primitives
from autodidax.batching import batching_rules, fancy_batching_rules, not_mapped, vmap
from autodidax.control_flow import (cond_p, ref_rules as control_flow_ref_rules, scan_p,
                                    while_p)
from autodidax.core import (EvalTrace, LiteralArray, Primitive, ShapedArray,
                            abstract_eval_rules, get_aval, set_current_trace, trace_ctx)
from autodidax.indexing import dynamic_slice, dynamic_update_slice
from autodidax.jaxpr import (ClosedJaxpr, Jaxpr, Literal, Var, pp_eqn_rules, trace_to_jaxpr,
                             weakref_lru_cache)
from autodidax.jit import (executable_for, flat_arg_names, jit_p, ref_rules,
                           trace_watchers)
from autodidax.jvp import JVPTrace, JVPTracer, Zero, instantiate_zeros, jvp_rules
from autodidax.lax_core import convert_element_type
from autodidax.numpy import item_rules
from autodidax.pretty_printer import Text, join, pp_vars
from autodidax.runtime import arg_type_rules, one_equation_jaxpr
from autodidax.tree_util import tree_unflatten


class AbstractRef:
    """The type of a ref: the type of the array it holds, printed `Ref{f32[3]}`."""
    __slots__ = ("inner",)

    def __init__(self, inner: ShapedArray):
        self.inner = inner

    shape = property(lambda self: self.inner.shape)
    dtype = property(lambda self: self.inner.dtype)
    weak_type = property(lambda self: self.inner.weak_type)
    ndim = property(lambda self: self.inner.ndim)
    size = property(lambda self: self.inner.size)

    def str_short(self, short_dtypes: bool = True) -> str:
        return f"Ref{{{self.inner.update(weak_type=False).str_short(short_dtypes)}}}"

    def update(self, **changes):
        return AbstractRef(self.inner.update(**changes))

    def __eq__(self, other):
        return type(other) is AbstractRef and self.inner == other.inner

    def __hash__(self):
        return hash(("Ref", self.inner))

    __repr__ = __str__ = lambda self: self.str_short(short_dtypes=False)   # noqa: E731


class Ref:
    """A mutable array: a box whose value reads and writes replace. `x_ref[idx]` reads,
    `x_ref[idx] = v` writes; nothing else (no arithmetic) is defined on it."""
    __slots__ = ("_value", "__weakref__")

    def __init__(self, value):
        self._value = value

    aval = property(lambda self: AbstractRef(get_aval(self._value)))
    shape = property(lambda self: self._value.shape)
    dtype = property(lambda self: self._value.dtype)
    ndim = property(lambda self: self._value.ndim)
    size = property(lambda self: self._value.size)

    def __len__(self):
        return len(self._value)

    def __getitem__(self, idx):
        return ref_get(self, idx)

    def __setitem__(self, idx, value):
        ref_set(self, idx, value)

    def unsafe_buffer_pointer(self):
        return self._value._buf.unsafe_buffer_pointer()

    def __repr__(self):
        return "Ref(" + repr(self._value)[len("Array("):]


core.aval_rules[Ref] = lambda ref: ref.aval       # chapter 1: a Ref's type is an AbstractRef


class RefPrimitive(Primitive):
    """A primitive on refs. Evaluated, it runs its rule in `eager_rules` on the box itself: a
    box is no array, so chapter 7's evaluation cannot take it."""

    def bind(self, *args, **params):
        if isinstance(trace_ctx.trace, EvalTrace):
            abstract_eval_rules[self](*map(get_aval, args), **params)     # the checks
            return eager_rules[self](*args, **params)
        return super().bind(*args, **params)


eager_rules: dict = {}        # primitive -> rule(*args, **params), on boxes and arrays
discharge_rules: dict = {}    # primitive -> rule(values of refs, args, params), see below

new_ref_p, freeze_p = RefPrimitive("new_ref"), RefPrimitive("freeze")
empty_ref_p, free_ref_p = RefPrimitive("empty_ref"), RefPrimitive("free_ref")
get_p, swap_p, addupdate_p = RefPrimitive("get"), RefPrimitive("swap"), RefPrimitive("addupdate")
free_ref_p.multiple_results = addupdate_p.multiple_results = True
effectful_primitives.update({swap_p, addupdate_p, free_ref_p})   # chapter 9: DCE keeps them


class Slice:
    """`ds(start, size)`: `size` elements from `start`, which may be traced (JAX's `Slice`)."""
    __slots__ = ("start", "size", "stride")

    def __init__(self, start, size, stride=1):
        self.start, self.size, self.stride = start, size, stride

    def __repr__(self):
        return f"Slice(start={self.start}, size={self.size}, stride={self.stride})"


def ds(start, size, stride=1) -> Slice:
    """A dynamic slice of a ref: `x_ref[ds(i, 2)]` reads `x_ref[i:i+2]`."""
    return Slice(start, size, stride)


def _indexer(shape, idx):
    """(indexer, operands): one entry per dimension of a ref of `shape`: `("slice", start,
    size, stride)` static, `("dslice", k, size)` from operand k, `("index", k)` operand k (an
    int or an int array). `()`: the whole ref, `x_ref[...]` (or `None`, as `jax.ref.get` takes
    it)."""
    if idx is None or idx is Ellipsis or (type(idx) is tuple and not idx):
        return (), []
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(i is Ellipsis for i in idx):
        at = idx.index(Ellipsis)
        idx = idx[:at] + (slice(None),) * (len(shape) - len(idx) + 1) + idx[at + 1:]
    if len(idx) > len(shape):
        raise IndexError(f"too many indices for a ref of shape {shape}: {len(idx)}")
    idx = idx + (slice(None),) * (len(shape) - len(idx))
    entries, operands = [], []
    for i, dim in zip(idx, shape):
        if isinstance(i, slice):
            start, stop, step = i.indices(dim)
            if step < 1:
                raise ValueError(f"slice must have a step >= 1 (found: {step})")   # as JAX
            entries.append(("slice", start, len(range(start, stop, step)), step))
        elif isinstance(i, Slice):
            if isinstance(i.start, (int, np.integer)):
                entries.append(("slice", int(i.start), i.size, i.stride))
            elif i.stride != 1:
                raise NotImplementedError("a ref's slice with a traced start has stride 1")
            else:
                entries.append(("dslice", len(operands), i.size))
                operands.append(i.start)
        else:
            entries.append(("index", len(operands)))
            operands.append(i)
    return tuple(entries), operands


def _plain(x, indexer, operands):
    """`x` cut to the window of its dynamic slices, the starts of that window, and the NumPy
    index that finishes the job within it."""
    starts = [operands[e[1]] if e[0] == "dslice" else 0 for e in indexer]
    if any(e[0] == "dslice" for e in indexer):
        sizes = [e[2] if e[0] == "dslice" else d for e, d in zip(indexer, x.shape)]
        x = dynamic_slice(x, starts, sizes)
    index = tuple(slice(None) if e[0] == "dslice" else slice(e[1], e[1] + (e[2] - 1) * e[3] + 1,
                                                             e[3])
                  if e[0] == "slice" else operands[e[1]] for e in indexer)
    return x, starts, index


def read(x, indexer, operands):
    """The pure meaning of `get`: `x[idx]`."""
    window, _, index = _plain(x, indexer, operands)
    return window[index] if index else window


def write(x, value, indexer, operands, add=False):
    """The pure meaning of `swap` (and, with `add`, of `addupdate`): `x` with `x[idx]` set to
    (or increased by) `value`."""
    if not indexer:                           # the whole ref: the value itself
        return x + value if add else value
    window, starts, index = _plain(x, indexer, operands)
    new = window.at[index].add(value) if add else window.at[index].set(value)
    if any(e[0] == "dslice" for e in indexer):
        return dynamic_update_slice(x, new, starts)
    return new


def _indexed_aval(ref, indexer, operand_avals):
    """The type of `ref[idx]`: NumPy's indexing, applied to an array of zero strides."""
    if not indexer:
        return ref.inner
    fake = np.broadcast_to(np.zeros((), bool), ref.shape)
    ops = [np.zeros(a.shape, np.int32) for a in operand_avals]
    _, _, index = _plain(fake, tuple(("slice", 0, e[2], 1) if e[0] == "dslice" else e
                                      for e in indexer), ops)
    return ShapedArray(fake[index].shape, ref.dtype, ref.weak_type)


def _check_ref(aval, what):
    if type(aval) is not AbstractRef:
        raise ValueError(f"`{what}` must be called on `Ref` types: {aval}.")


def _get_abstract(ref, *operand_avals, indexer):
    _check_ref(ref, "get")
    return _indexed_aval(ref, indexer, operand_avals)


def _swap_abstract(ref, value, *operand_avals, indexer, what="swap"):
    """JAX's checks, with its texts: the value has the type of the indexed ref, exactly."""
    _check_ref(ref, what)
    if type(value) is AbstractRef:
        raise ValueError("Cannot store a Ref into another Ref. "
                         "Did you forget to load from it using `[...]`?")
    out = _indexed_aval(ref, indexer, operand_avals)
    if value.shape != out.shape:
        raise ValueError(f"Invalid shape for `{what}`. Ref shape: {ref.shape}. Expected shape: "
                         f"{out.shape}. Value shape: {value.shape}. Transforms: {indexer}. ")
    if value.dtype != out.dtype:
        raise ValueError(f"Invalid dtype for `{what}`. Ref dtype: {out.dtype}. Value "
                         f"{'dtype' if what == 'swap' else 'shape'}: {value.dtype}. ")
    return out


abstract_eval_rules.update({
    new_ref_p: lambda x, *, kind, memory_space: AbstractRef(x),
    empty_ref_p: lambda *, ty, memory_space: AbstractRef(ty),
    freeze_p: lambda ref: ref.inner, free_ref_p: lambda ref: [],
    get_p: _get_abstract, swap_p: _swap_abstract,
    addupdate_p: lambda *avals, indexer: (_swap_abstract(*avals, indexer=indexer,
                                                         what="addupdate"), [])[1]})


def _own(x):
    """A buffer no one else holds, for a box: a `jit` given the ref takes it over."""
    return jnp.copy(x) if isinstance(x, core.Array) else jnp.asarray(x)


def _get_eager(ref, *operands, indexer):
    out = read(ref._value, indexer, operands)
    return jnp.copy(out) if out is ref._value else out


_compiled_binds: dict = {}    # (primitive, params, avals) -> its one equation, traced
_traced_by = weakref.WeakKeyDictionary()   # jaxpr -> (function, where, argument names)


def bind_compiled(primitive, args, params):
    """`primitive.bind(*args, **params)` while nothing is traced, some of `args` boxes: its one
    equation, traced with the boxes' types, runs as a program with refs (the `jit` section),
    which updates the boxes' arrays in place. (Not through `jit`, which `jax.disable_jit()`
    would turn back into this very call.)"""
    avals = tuple(map(get_aval, args))
    try:
        key = (primitive, tuple(params.items()), avals)
        closed = _compiled_binds.get(key)
    except TypeError:                        # parameters that cannot be hashed: traced each time
        key, closed = None, None
    if closed is None:
        closed = one_equation_jaxpr(primitive, params, avals)       # (chapter 7's)
        names = [f"args[{i}]" for i in range(len(args))]
        _traced_by[closed] = (primitive.name, "<eager>", names)
        _check_refs_unpacked(closed)                          # (the checks of `jit`, below)
        _check_returned(closed, primitive.name, "<eager>", names)
        if key is not None:
            _compiled_binds[key] = closed
    outs = executable_for(closed, primitive.name)(*args)
    return outs if primitive.multiple_results else outs[0]


def _write_eager(primitive):
    """An eager write runs compiled, which updates the ref's array in place, as JAX's do."""
    return lambda ref, *args, indexer: bind_compiled(primitive, (ref, *args), {"indexer": indexer})


def _no_eager_empty_ref(*, ty, memory_space):
    raise NotImplementedError("Evaluation rule for 'empty_ref' not implemented")  # as in JAX


eager_rules.update({
    new_ref_p: lambda x, *, kind, memory_space: Ref(_own(x)),
    empty_ref_p: _no_eager_empty_ref,
    freeze_p: lambda ref: jnp.copy(ref._value), free_ref_p: lambda ref: [],
    get_p: _get_eager, swap_p: _write_eager(swap_p), addupdate_p: _write_eager(addupdate_p)})


def new_ref(init_val, *, kind=None, memory_space=None):
    """A new ref holding `init_val` (JAX's `jax.new_ref`)."""
    trace = trace_ctx.trace
    if isinstance(trace, JVPTrace) and core.dtype_kind(get_aval(init_val).dtype) in "fc":
        primal, tangent = trace.to_primal_tangent_pair(init_val)
        if type(tangent) is Zero:     # under jvp every ref gets a tangent ref, zero or not
            with set_current_trace(trace.parent_trace):
                init_val = JVPTracer(trace, primal, instantiate_zeros(tangent))
    return new_ref_p.bind(init_val, kind=kind, memory_space=memory_space)


def empty_ref(ty, *, memory_space=None):
    """A new ref of type `ty` (a `ShapeDtypeStruct` or an aval), its value unspecified."""
    return empty_ref_p.bind(ty=ShapedArray(ty.shape, ty.dtype), memory_space=memory_space)


def freeze(ref):
    """The final value of `ref`, which is not to be used again."""
    return freeze_p.bind(ref)


def free_ref(ref) -> None:
    """Give `ref`'s memory back; it is not to be used again."""
    free_ref_p.bind(ref)


def _cast(value, dtype):
    """`value` as a value of `dtype` where JAX's `swap` casts implicitly: a weakly typed float
    into a float ref, any integer into an integer ref. Nothing else, and no broadcasting."""
    aval = get_aval(value)
    if type(aval) is not ShapedArray:
        return value
    kinds = core.dtype_kind(aval.dtype) + core.dtype_kind(dtype)
    if (aval.weak_type and kinds == "ff") or kinds in ("ii", "uu", "iu", "ui"):
        return convert_element_type(value, dtype)
    return value


def ref_get(ref, idx=None):
    """`ref[idx]`, a new array."""
    indexer, operands = _indexer(get_aval(ref).shape, idx)
    return get_p.bind(ref, *operands, indexer=indexer)


def ref_swap(ref, idx, value):
    """`ref[idx]`, after which `ref[idx]` is `value`."""
    aval = get_aval(ref)
    indexer, operands = _indexer(aval.shape, idx)
    return swap_p.bind(ref, _cast(value, aval.dtype), *operands, indexer=indexer)


def ref_set(ref, idx, value) -> None:
    """`ref[idx] = value`."""
    ref_swap(ref, idx, value)


def ref_addupdate(ref, idx, value) -> None:
    """`ref[idx] += value`, in one primitive (no implicit cast: JAX's has none)."""
    indexer, operands = _indexer(get_aval(ref).shape, idx)
    addupdate_p.bind(ref, value, *operands, indexer=indexer)


item_rules[AbstractRef] = (ref_get, ref_set)       # appendix A1's indexing, for refs


def _pp_ref(ref, indexer, operands, names):
    """`a[...]`, `a[1]`, `a[:,1]`, `a[b:b+2]`: as JAX prints a ref and its index."""
    def atom(v):
        return str(v.python if v.python is not None else v.val) if isinstance(v, Literal) \
            else names[v]
    parts = []
    for e, dim in zip(indexer, ref.aval.shape):
        if e[0] == "index":
            parts.append(atom(operands[e[1]]))
        elif e[0] == "dslice":
            start = atom(operands[e[1]])
            parts.append(f"{start}:{start}+{e[2]}")
        else:
            end = e[1] + e[2]
            parts.append(f"{e[1] or ''}:{'' if end == dim else end}")
    return Text(f"{names[ref]}[{','.join(parts) if parts else '...'}]")


def _pp_get(eqn, names):
    ref, *ops = eqn.invars
    return pp_vars(eqn.outvars, names, print_shapes=True) + Text(" <- ") + _pp_ref(
        ref, eqn.params["indexer"], ops, names)


def _pp_swap(eqn, names):
    ref, value, *ops = eqn.invars
    where = _pp_ref(ref, eqn.params["indexer"], ops, names)
    if not eqn.outvars:                                        # addupdate
        return where + Text(" += ") + pp_vars([value], names)
    if names[eqn.outvars[0]] == "_":                           # a swap whose result is unused
        return where + Text(" <- ") + pp_vars([value], names)
    return join(Text(""), [pp_vars(eqn.outvars, names, print_shapes=True), Text(", "), where,
                           Text(" <- "), where, Text(", "), pp_vars([value], names)])


pp_eqn_rules.update({get_p: _pp_get, swap_p: _pp_swap, addupdate_p: _pp_swap})


class Location:
    """Where a ref made inside a program lives while discharge runs it."""
    __slots__ = ()


def _is_place(x) -> bool:
    return type(x) in (Ref, Location)


def _discharge_new_ref(store, args, params):
    place = Location()
    store[place] = args[0]
    return place


def _discharge_empty_ref(store, args, params):
    place = Location()
    store[place] = jnp.zeros(params["ty"].shape, params["ty"].dtype)
    return place


def _discharge_swap(store, args, params, add=False):
    ref, value, *operands = args
    old = [] if add else read(store[ref], params["indexer"], operands)
    store[ref] = write(store[ref], value, params["indexer"], operands, add=add)
    return old


discharge_rules.update({
    new_ref_p: _discharge_new_ref, empty_ref_p: _discharge_empty_ref,
    get_p: lambda store, args, params: read(store[args[0]], params["indexer"], args[1:]),
    swap_p: _discharge_swap,
    addupdate_p: lambda store, args, params: _discharge_swap(store, args, params, add=True),
    freeze_p: lambda store, args, params: store[args[0]],
    free_ref_p: lambda store, args, params: [],
    jit_p: lambda store, args, params: run_discharged(params["jaxpr"], args, store),
    remat_p: lambda store, args, params: run_discharged(ClosedJaxpr(params["jaxpr"], []), args,
                                                        store)})


def run_discharged(closed: ClosedJaxpr, args, store):
    """Run `closed` on `args`, its refs as places in `store` (place -> current value): each
    equation on refs by its discharge rule, every other one bound as it is."""
    env = dict(zip(closed.jaxpr.constvars, closed.consts))
    env.update(zip(closed.jaxpr.invars, args))

    def atom(v):               # a weakly typed literal stays weak, as in chapter 5's eval_jaxpr
        if isinstance(v, Var):
            return env[v]
        return LiteralArray(v.val, weak_type=True) if v.aval.weak_type else v.val

    for eqn in closed.jaxpr.eqns:
        ins = [atom(v) for v in eqn.invars]
        rule = discharge_rules.get(eqn.primitive)
        if rule is not None:
            outs = rule(store, ins, eqn.params)
        elif any(map(_is_place, ins)):
            raise NotImplementedError(f"discharge: {eqn.primitive} of a ref is not supported")
        else:
            outs = eqn.primitive.bind(*ins, **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [atom(v) for v in closed.jaxpr.outvars]


def inner_closed_jaxprs(params):
    """The jaxprs in an equation's parameters (a `jit`'s, a `cond`'s branches...), closed."""
    for value in params.values():
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(v, (ClosedJaxpr, Jaxpr)):
                yield v if isinstance(v, ClosedJaxpr) else ClosedJaxpr(v, [])


def closed_over_refs(closed: ClosedJaxpr, found=None) -> list:
    """The refs (boxes) that `closed` and the jaxprs in its equations close over."""
    found = [] if found is None else found
    found += [c for c in closed.consts if type(c) is Ref and all(c is not f for f in found)]
    for eqn in closed.jaxpr.eqns:
        for inner in inner_closed_jaxprs(eqn.params):
            closed_over_refs(inner, found)
    return found


def discharge(closed: ClosedJaxpr):
    """(pure, refs): `pure` takes the values of `closed`'s ref arguments in their places, then
    the values of `refs`, the refs it closes over; it returns `closed`'s outputs, then the
    final values of its ref arguments, then those of `refs`."""
    refs = closed_over_refs(closed)
    is_ref = [type(a) is AbstractRef for a in closed.in_avals]
    avals = [a.inner if r else a for a, r in zip(closed.in_avals, is_ref)]
    avals += [ref.aval.inner for ref in refs]

    def pure(*values):
        store, args = {}, []
        for value, r in zip(values, is_ref):
            args.append(Location() if r else value)
            if r:
                store[args[-1]] = value
        store.update(zip(refs, values[len(is_ref):]))
        outs = run_discharged(closed, args, store)
        return outs + [store[a] for a, r in zip(args, is_ref) if r] + [store[r] for r in refs]
    return trace_to_jaxpr(pure, avals), refs


def has_refs(closed: ClosedJaxpr) -> bool:
    """Whether `closed` takes, closes over or makes refs."""
    return (any(type(a) is AbstractRef for a in closed.in_avals)
            or any(type(c) is Ref for c in closed.consts)
            or any(isinstance(e.primitive, RefPrimitive) or any(map(has_refs,
                                                                    inner_closed_jaxprs(e.params)))
                   for e in closed.jaxpr.eqns))


class StatefulProgram:
    """The program of a jaxpr with refs: its discharged, pure program, run on the values of the
    refs, whose final values are then written back into them."""

    def __init__(self, closed: ClosedJaxpr, name: str):
        self.closed, self.is_ref = closed, [type(a) is AbstractRef for a in closed.in_avals]
        pure, self.refs = discharge(closed)
        n, j = len(closed.out_avals), pure.jaxpr
        self.n_refs = len(j.outvars) - n
        # The refs' final values first, in the order of their inputs, which are donated: chapter
        # 8's donation pairs each with the first output of its type, its own final value. So
        # the program writes each ref's new value over the old one, in its buffer.
        finals_first = ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.eqns,
                                         j.outvars[n:] + j.outvars[:n]), pure.consts)
        donated = tuple(self.is_ref) + (True,) * len(self.refs)
        self.executable = executable_for(finals_first, name, donated=donated)

    def __call__(self, *args):
        refs = [a for a, r in zip(args, self.is_ref) if r]
        self.check_aliases(args)
        values = [a._value if r else a for a, r in zip(args, self.is_ref)]
        outs = self.executable(*values, *[ref._value for ref in self.refs])
        for ref, value in zip(refs + self.refs, outs):
            ref._value = value
        return outs[self.n_refs:]

    def check_aliases(self, args):
        """JAX's errors for one ref passed twice, or passed and closed over."""
        fun, where, names = _traced_by.get(self.closed, ("fun", "?", None))
        names = names or [f"args[{i}]" for i in range(len(args))]
        seen = {}
        for i, a in enumerate(args):
            if not self.is_ref[i]:
                continue
            if any(a is ref for ref in self.refs):
                raise ValueError(f"when tracing {fun} at {where} for jit, a mutable array "
                                 f"reference of type {a.aval} was both closed over and passed "
                                 f"as the argument {names[i]}")
            if id(a) in seen:
                raise ValueError("only one reference to a mutable array may be passed as an "
                                 f"argument to a function, but when tracing {fun} at {where} "
                                 f"for jit the mutable array reference of type {a.aval} "
                                 f"appeared at both {names[seen[id(a)]]} and {names[i]}.")
            seen[id(a)] = i


def _program(closed, name, previous=ref_rules.get("program")):
    """Chapter 8's rule: a jaxpr with refs runs as a StatefulProgram (else as the rule
    registered before this one says: a notebook that runs this cell keeps the package's)."""
    if has_refs(closed):
        return StatefulProgram(closed, name)
    return previous(closed, name) if previous is not None else None


@weakref_lru_cache
def discharged_inside(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Chapter 8's rule for a `jit` equation being lowered: `closed` with the refs it makes
    inside discharged, which keeps its signature; as it is if refs come in or none are made."""
    if (not has_refs(closed) or any(type(a) is AbstractRef for a in closed.in_avals)
            or closed_over_refs(closed)):
        return closed
    return discharge(closed)[0]


def _pure(closed, previous=ref_rules.get("pure")):
    out = discharged_inside(closed)              # (then the package's rule, in a notebook)
    return out if previous is None else previous(out)


ref_rules["program"], ref_rules["pure"] = _program, _pure
ref_rules["types"] = ref_rules.get("types", ()) + (Ref,)


def _check_returned(closed, fun, where, names):
    """JAX's error for a jitted function that returns a ref."""
    made = {eqn.outvars[0]: eqn.source_info for eqn in closed.jaxpr.eqns
            if eqn.primitive in (new_ref_p, empty_ref_p)}
    for v in closed.jaxpr.outvars:
        if type(v.aval) is not AbstractRef:
            continue
        if v in closed.jaxpr.invars:
            origin = f"was passed in as the argument {names[closed.jaxpr.invars.index(v)]}"
        elif v in made:
            origin = f"was created on line {made[v]}"
        else:
            origin = "was closed over"
        raise ValueError(f"function {fun} at {where} traced for jit returned a mutable array "
                         f"reference of type {v.aval}, but mutable array references cannot be "
                         f"returned.\n\nThe returned mutable array {origin}.")


def _eval_given_refs(primitive, args, params):
    """Chapter 7's rule for an equation given a box: one that runs a jaxpr (a `jit`'s, a
    `checkpoint`'s) runs by its impl rule, the box as it is; any other refuses it, as JAX's do."""
    if any(True for _ in inner_closed_jaxprs(params)):
        return core.impl_rules[primitive](*args, **params)
    ref = next(x for x in args if type(x) is Ref)
    raise ValueError(f"Attempting to pass a Ref {ref.aval} to a primitive: {primitive} -- did "
                     "you forget to unpack ([...]) the ref?")


arg_type_rules[Ref] = _eval_given_refs


def _check_refs_unpacked(closed):
    """JAX's error for a ref given to a primitive that takes arrays (`jnp.sin(x_ref)` under
    `jit`): only ref primitives and those that run jaxprs (loops, `jit`...) may take one."""
    for eqn in closed.jaxpr.eqns:
        inner = list(inner_closed_jaxprs(eqn.params))
        if not isinstance(eqn.primitive, RefPrimitive) and not inner:
            for v in eqn.invars:
                if type(v.aval) is AbstractRef:
                    raise ValueError(f"Attempting to pass a Ref {v.aval} to a primitive: "
                                     f"{eqn.primitive} -- did you forget to unpack ([...]) the "
                                     "ref?")
        for jaxpr in inner:
            _check_refs_unpacked(jaxpr)


def _watch_trace(jitted, key):
    """After `jit` traces a function with refs: remember its names, refuse returned refs and
    refs given to primitives on arrays."""
    def done(trace, entry):
        if not has_refs(entry.jaxpr):
            return
        _check_refs_unpacked(entry.jaxpr)
        static_pos, static_named, in_tree, has_kwargs, avals = key[:5]
        dynamic = tree_unflatten(in_tree, avals)
        args, kwargs = dynamic if has_kwargs else (dynamic, {})
        args = list(args)
        for i, value in static_pos:
            args.insert(i, value)
        names = flat_arg_names(jitted, args, {**kwargs, **dict(static_named)})
        _traced_by[entry.jaxpr] = (trace.fun_name, trace.where, names)
        _check_returned(entry.jaxpr, trace.fun_name, trace.where, names)
    return done


trace_watchers.append(_watch_trace)


def _discharge_scan(store, args, params):
    """A `scan` given refs: the values of those among its constants become carries, and so do
    those it scans over, whose rows the body reads and writes at a counter's index."""
    n_consts, n_carry, length = params["num_consts"], params["num_carry"], params["length"]
    consts, carry, xs = (args[:n_consts], args[n_consts:n_consts + n_carry],
                         args[n_consts + n_carry:])
    if any(map(_is_place, carry)):
        raise NotImplementedError("discharge: a ref as a carry of scan")
    at = [i for i, c in enumerate(consts) if _is_place(c)]
    xat = [i for i, x in enumerate(xs) if _is_place(x)]
    if not at and not xat:                    # refs made inside only: discharged there
        return scan_p.bind(*args, **{**params, "jaxpr": discharged_inside(params["jaxpr"])})
    body, places = params["jaxpr"], [consts[i] for i in at] + [xs[i] for i in xat]
    kept = [c for i, c in enumerate(consts) if i not in at]
    kept_xs = [x for i, x in enumerate(xs) if i not in xat]
    ins = body.in_avals
    steps = [np.zeros((), np.int32)] if xat else []       # the row that the body sees
    avals = ([a for i, a in enumerate(ins[:n_consts]) if i not in at]
             + [get_aval(store[p]) for p in places] + [get_aval(c) for c in steps]
             + ins[n_consts:n_consts + n_carry]
             + [a for i, a in enumerate(ins[n_consts + n_carry:]) if i not in xat])

    def discharged_body(*values):
        kept_values, values = iter(values[:len(kept)]), values[len(kept):]
        wholes, step, values = (values[:len(places)], values[len(places):][:len(steps)],
                                values[len(places) + len(steps):])
        carry_values, x_values = list(values[:n_carry]), iter(values[n_carry:])
        row = (length - 1 - step[0] if params["reverse"] else step[0]) if xat else None
        locations = [Location() for _ in places]
        inner = dict(zip(locations, [*wholes[:len(at)], *[w[row] for w in wholes[len(at):]]]))
        const_locs, row_locs = iter(locations[:len(at)]), iter(locations[len(at):])
        body_consts = [next(const_locs) if i in at else next(kept_values) for i in range(n_consts)]
        body_xs = [next(row_locs) if i in xat else next(x_values) for i in range(len(xs))]
        outs = run_discharged(body, body_consts + carry_values + body_xs, inner)
        finals = [inner[loc] for loc in locations[:len(at)]] + [
            w.at[row].set(inner[loc]) for w, loc in zip(wholes[len(at):], locations[len(at):])]
        return finals + [s + 1 for s in step] + outs

    outs = scan_p.bind(*kept, *[store[p] for p in places], *steps, *carry, *kept_xs,
                       **{**params, "jaxpr": trace_to_jaxpr(discharged_body, avals),
                          "num_consts": len(kept),
                          "num_carry": len(places) + len(steps) + n_carry})
    store.update(zip(places, outs[:len(places)]))
    return outs[len(places) + len(steps):]


discharge_rules[scan_p] = _discharge_scan


def _discharge_cond(store, args, params):
    """A `cond` given refs: each branch, discharged, also returns the refs' final values."""
    index, *ops = args
    places = [x for x in ops if _is_place(x)]
    if not places:
        return cond_p.bind(*args, branches=tuple(map(discharged_inside, params["branches"])))
    branches = tuple(discharge(branch)[0] for branch in params["branches"])
    outs = cond_p.bind(index, *[store[x] if _is_place(x) else x for x in ops],
                       branches=branches)
    n = len(outs) - len(places)
    store.update(zip(places, outs[n:]))
    return outs[:n]


def _discharge_while(store, args, params):
    """A `while_loop` whose condition or body reads or writes refs (among their constants):
    the refs' values become the first carries."""
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    cond_consts, body_consts, carry = args[:nc], args[nc:nc + nb], args[nc + nb:]
    if any(map(_is_place, carry)):
        raise NotImplementedError("discharge: a ref as a carry of while_loop")
    places = []
    for x in cond_consts + body_consts:
        if _is_place(x) and all(x is not p for p in places):
            places.append(x)
    if not places:
        return while_p.bind(*args, **{**params, "cond_jaxpr": discharged_inside(
            params["cond_jaxpr"]), "body_jaxpr": discharged_inside(params["body_jaxpr"])})

    def discharged(closed, consts, with_refs_out):
        kept = [c for c in consts if not _is_place(c)]

        def fun(*values):
            kept_values = iter(values[:len(kept)])
            locations = [Location() for _ in places]
            inner = dict(zip(locations, values[len(kept):len(kept) + len(places)]))
            where = {id(p): loc for p, loc in zip(places, locations)}
            ins = [where[id(c)] if _is_place(c) else next(kept_values) for c in consts]
            outs = run_discharged(closed, ins + list(values[len(kept) + len(places):]), inner)
            return [inner[loc] for loc in locations] + outs if with_refs_out else outs
        avals = [get_aval(x) for x in kept] + [get_aval(store[p]) for p in places]
        return trace_to_jaxpr(fun, avals + [get_aval(x) for x in carry]), kept

    cond, kept_cond = discharged(params["cond_jaxpr"], cond_consts, False)
    body, kept_body = discharged(params["body_jaxpr"], body_consts, True)
    outs = while_p.bind(*kept_cond, *kept_body, *[store[p] for p in places], *carry,
                        cond_jaxpr=cond, cond_nconsts=len(kept_cond), body_jaxpr=body,
                        body_nconsts=len(kept_body))
    store.update(zip(places, outs[:len(places)]))
    return outs[len(places):]


discharge_rules.update({cond_p: _discharge_cond, while_p: _discharge_while})


_has_refs_cached = weakref_lru_cache(lambda closed: has_refs(closed))


def _bind_with_refs(primitive, args, params, previous=control_flow_ref_rules.get("bind")):
    """Chapter 10's rule: a loop or branch given refs, or whose bodies make refs, runs compiled
    while nothing is traced (None: not this case; in a notebook, the package's rule next)."""
    if isinstance(trace_ctx.trace, EvalTrace) and (any(type(a) is Ref for a in args) or any(
            map(_has_refs_cached, inner_closed_jaxprs(params)))):
        return bind_compiled(primitive, args, params)
    return None if previous is None else previous(primitive, args, params)


control_flow_ref_rules["bind"] = _bind_with_refs


class TangentRef:
    """The tangent of a ref under `jvp`: the current tangent value of what the ref holds. Its
    reads and writes happen as the primal's do, on values: discharged as they are traced."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _tangent_aval(x):
    aval = get_aval(x)
    return aval if core.dtype_kind(aval.dtype) in "fc" else ShapedArray(aval.shape, np.dtype(
        [("float0", np.void, 0)]))


def _new_ref_jvp(primals, tangents, **params):
    return new_ref_p.bind(*primals, **params), TangentRef(instantiate_zeros(tangents[0]))


def _get_jvp(primals, tangents, *, indexer):
    ref, *operands = primals
    out = get_p.bind(ref, *operands, indexer=indexer)
    if type(tangents[0]) is Zero:
        return out, Zero(_tangent_aval(out))
    return out, read(tangents[0].value, indexer, operands)


def _swap_jvp(primals, tangents, *, indexer, add=False):
    ref, value, *operands = primals
    t_ref, t_value = tangents[:2]
    out = (addupdate_p if add else swap_p).bind(ref, value, *operands, indexer=indexer)
    if type(t_ref) is Zero:
        if type(t_value) is not Zero:
            raise Exception("performing a set/swap operation with a differentiated value on a "
                            "non-differentiated array reference of type "
                            f"{get_aval(ref)}. Move the array reference to be an argument of "
                            "the differentiated function?")
        return out, [] if add else Zero(_tangent_aval(out))
    old = [] if add else read(t_ref.value, indexer, operands)
    t_ref.value = write(t_ref.value, instantiate_zeros(t_value), indexer, operands, add=add)
    return out, old


jvp_rules.update({
    new_ref_p: _new_ref_jvp, get_p: _get_jvp, swap_p: _swap_jvp,
    addupdate_p: lambda p, t, *, indexer: _swap_jvp(p, t, indexer=indexer, add=True),
    freeze_p: lambda p, t: (freeze_p.bind(*p), t[0].value),
    free_ref_p: lambda p, t: (free_ref_p.bind(*p), [])})


def _unbatched_ref_error(ref):
    return Exception("performing a set/swap operation with vmapped value on an unbatched array "
                     f"reference of type {get_aval(ref)}. Move the array reference to be an "
                     "argument to the vmapped function?")


def _get_batched(vals, dims, *, indexer):
    ref, *operands = vals
    whole = get_p.bind(ref, indexer=())
    return vmap(lambda x, *ops: read(x, indexer, ops), in_axes=tuple(dims))(whole, *operands), 0


def _swap_batched(vals, dims, *, indexer, add=False):
    ref, value, *operands = vals
    if dims[0] is not_mapped:
        raise _unbatched_ref_error(ref)
    whole = get_p.bind(ref, indexer=())
    in_axes = (dims[0], *dims[2:])
    old = None if add else vmap(lambda x, *ops: read(x, indexer, ops), in_axes=in_axes)(
        whole, *operands)
    new = vmap(lambda x, v, *ops: write(x, v, indexer, ops, add=add), in_axes=tuple(dims),
               out_axes=dims[0])(whole, value, *operands)
    swap_p.bind(ref, new, indexer=())
    return ([], []) if add else (old, 0)


def _new_ref_batched(axis_data, vals, dims, **params):
    """A ref made under `vmap` is batched even from an unbatched value: a batched value may be
    written into it later (JAX's rule does the same)."""
    (x,), (dim,) = vals, dims
    if dim is not_mapped:
        x, dim = jnp.broadcast_to(x, (axis_data.size, *get_aval(x).shape)), 0
    return new_ref_p.bind(x, **params), dim


fancy_batching_rules[new_ref_p] = _new_ref_batched
batching_rules.update({
    freeze_p: lambda vals, dims: (freeze_p.bind(*vals), dims[0]),
    get_p: _get_batched, swap_p: _swap_batched,
    addupdate_p: lambda vals, dims, *, indexer: _swap_batched(vals, dims, indexer=indexer,
                                                               add=True)})
