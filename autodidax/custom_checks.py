# Generated from chapters/A13_custom_checks.md by `make export`: edit the chapter, not this file.


"""JAX's checks of what the rules of `custom_jvp` and `custom_vjp` return, with its messages,
how their equations print, and `SymbolicZero`, the zero tangent such a rule may get and
return."""
from __future__ import annotations

import functools
import inspect

import numpy as np

from autodidax.core import (ShapedArray, Tracer, UnexpectedTracerError, dtype_kind, get_aval)
from autodidax.jaxpr import pp_eqn_plain
from autodidax.jvp import float0, tangent_aval
from autodidax.tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_map,
                                 tree_unflatten)


class SymbolicZero:
    """A zero tangent, as a rule defined with `symbolic_zeros=True` sees it: a type, no array."""

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)

    def __repr__(self):
        return "SymbolicZero"

    @staticmethod
    def from_primal_value(x) -> SymbolicZero:
        return SymbolicZero(tangent_aval(get_aval(x)))


class CustomVJPPrimal:
    """What `fwd` gets for each input leaf when its rule has `symbolic_zeros=True`: the value,
    and whether it is perturbed (has a nonzero tangent)."""

    def __init__(self, value, perturbed: bool):
        self.value, self.perturbed = value, perturbed

    def __repr__(self):
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def custom_vjp_primal_tree_values(tree):
    """`tree` with each CustomVJPPrimal replaced by its value."""
    return tree_map(lambda x: x.value if isinstance(x, CustomVJPPrimal) else x, tree,
                    is_leaf=lambda x: isinstance(x, CustomVJPPrimal))


def fun_name(f) -> str:
    return getattr(f, "__name__", "<unnamed function>")


def resolve_call_kwargs(kind, fun, args, kwargs) -> tuple:
    """The arguments as a tuple of positional ones, defaults included, as JAX resolves them."""
    opaque = lambda *args, **kwargs: None          # noqa: E731  (a partial's signature)
    try:
        sig = inspect.signature(opaque if isinstance(fun, functools.partial) else fun)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        passed = [k for k in bound.kwargs if k in kwargs]
        if passed:
            raise TypeError("The following keyword arguments could not be resolved to "
                            f"positions: {', '.join(passed)}")
    except TypeError as e:
        raise TypeError(f"The input arguments to the {kind}-decorated function {fun_name(fun)} "
                        "could not be resolved to positional-only arguments. Binding failed "
                        f"with the error:\n{e}") from e
    return bound.args


def split_custom_args(args, nondiff_argnums):
    """(the nondiff arguments, the others, a function putting both back in their order)."""
    static = [args[i] for i in nondiff_argnums]
    dynamic = [a for i, a in enumerate(args) if i not in nondiff_argnums]

    def merge(dyn):
        it_s, it_d = iter(static), iter(dyn)
        return [next(it_s) if i in nondiff_argnums else next(it_d) for i in range(len(args))]
    return static, dynamic, merge


def _typematch(a: ShapedArray, b: ShapedArray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype


def _aval_str(aval) -> str:
    """`float32[3]`: the long form JAX's messages about rules use."""
    if aval.dtype == float0:
        return f"float0[{','.join(map(str, aval.shape))}]"
    return aval.str_short(short_dtypes=False).lstrip("~")


def _tangent_of(t) -> ShapedArray:
    if type(t) is SymbolicZero:
        return t.aval
    if isinstance(t, np.ndarray) and t.dtype == float0:
        return ShapedArray(t.shape, float0)
    return get_aval(t)


def check_primal_out(rule, kind, name, out_tree, primals_out, fun_out):
    """The rule's primal output must have the structure and types of the function's output."""
    if not fun_out.filled():
        return
    fun_tree, fun_avals = fun_out()
    avals = [get_aval(p) for p in primals_out]
    if out_tree != fun_tree or not all(map(_typematch, avals, fun_avals)):
        got = tree_unflatten(out_tree, [a.str_short() for a in avals])
        want = tree_unflatten(fun_tree, [a.str_short() for a in fun_avals])
        raise TypeError(
            f"Custom {kind} rule {rule} for function {name} must produce a pair (list or tuple "
            "of length two) where the first element represents the primal output (equal to "
            f"the output of the custom_{kind.split()[0].lower()}-decorated function {name}, and "
            "in particular of the same container/pytree structure and shapes/dtypes), but "
            f"instead the rule's first element had {got} while the function {name} had {want}.")


def _check_tangents_out(primals_out, tangents_out):
    primal_avals = [get_aval(p).update(weak_type=False) for p in primals_out]
    expected = [tangent_aval(a) for a in primal_avals]
    got = [_tangent_of(t) for t in tangents_out]
    if all(map(_typematch, expected, got)):
        return
    if len(expected) == 1:
        raise TypeError(
            "Custom JVP rule must produce primal and tangent outputs with corresponding shapes "
            f"and dtypes. Expected {_aval_str(expected[0])} (tangent type of "
            f"{_aval_str(primal_avals[0])}) but got {_aval_str(got[0])}.")
    lines = "\n".join(f"  primal {_aval_str(p)} with tangent {_aval_str(g)}, expecting tangent "
                      f"{_aval_str(e)}" for p, e, g in zip(primal_avals, expected, got)
                      if not _typematch(e, g))
    raise TypeError("Custom JVP rule must produce primal and tangent outputs with corresponding "
                    f"shapes and dtypes, but got:\n{lines}")


def checked_jvp_output(pair, jvp_name, primal_name, fun_out):
    """A JVP rule's output, checked: its flat primal outputs, flat tangents and their tree."""
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(f"Custom JVP rule {jvp_name} for function {primal_name} must produce "
                        "a pair (list or tuple of length two) representing primal and "
                        f"tangent outputs, but got {pair}.")
    primals_out, out_tree = tree_flatten(pair[0])
    tangents_out, out_tree2 = tree_flatten(pair[1])
    if out_tree != out_tree2:
        raise TypeError(f"Custom JVP rule {jvp_name} for function {primal_name} must produce "
                        "primal and tangent outputs with equal container (pytree) "
                        f"structures, but got {out_tree} and {out_tree2} respectively.")
    check_primal_out(jvp_name, "JVP", primal_name, out_tree, primals_out, fun_out)
    _check_tangents_out(primals_out, tangents_out)
    return primals_out, tangents_out, out_tree


def check_fwd_pair(pair, fwd_name, primal_name):
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(
            f"Custom VJP fwd rule {fwd_name} for function {primal_name} must produce a pair "
            "(list or tuple of length two) where the first element represents the primal "
            f"output (equal to those of the custom_vjp-decorated function {primal_name}) "
            "and the second element represents residuals (i.e. values stored from the "
            "forward pass for use on the backward pass), but instead of a pair the fwd "
            f"rule {fwd_name} produced {pair}.")


def _mismatch(a: ShapedArray, b: ShapedArray) -> str:
    what = [f"the {k} do not match" for k, differ in
            [("dtypes", a.dtype != b.dtype), ("shapes", a.shape != b.shape)] if differ]
    return ", so " + ", and ".join(what) if what else ""


def checked_cotangents(cts_in, in_tree, in_avals) -> list:
    """One flat cotangent per input from what `bwd` returned (None where there is none), checked
    as JAX does: `None` may stand for any subtree, integer inputs get no cotangent, and a float
    input's cotangent needs its shape, not its dtype."""
    # `None` may stand for any subtree: it matches the arguments' tree as a prefix.
    dummy = tree_unflatten(in_tree, [object()] * in_tree.num_leaves)
    paths = [keystr(p) for p, _ in tree_flatten_with_path(dummy)[0]]
    flat = []
    try:
        if not isinstance(cts_in, tuple):
            raise ValueError
        tree_map(lambda ct, d: flat.extend([ct] * len(tree_flatten(d)[0])), cts_in, dummy,
                 is_leaf=lambda x: x is None)
    except ValueError:
        raise TypeError(
            "Custom VJP bwd rule must produce an output with the same container (pytree) "
            "structure as the args tuple of the primal function, and in particular must "
            "produce a tuple of length equal to the number of arguments to the primal "
            f"function, but got bwd output structure {tree_flatten(cts_in)[1]} for primal "
            f"input structure {in_tree}.") from None
    results = []
    for path, aval, ct in zip(paths, in_avals, flat):
        if type(ct) is SymbolicZero and not _typematch(tangent_aval(aval), ct.aval):
            raise ValueError(
                "Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does "
                f"not match the corresponding input tangent shape/dtype: at output{path} "
                f"the SymbolicZero had shape/dtype {ct.aval.str_short()} while the "
                f"corresponding input had shape/dtype {aval.str_short()}. Consider just "
                "returning a None here instead of a SymbolicZero object.")
        if ct is None or type(ct) is SymbolicZero or dtype_kind(aval.dtype) != "f":
            results.append(None)
            continue
        # The shape must match; the dtype may differ, since the input is a float (JAX's
        # `_temporary_dtype_exception`, which it plans to remove): the cotangent is kept as is.
        if (ct_aval := get_aval(ct)).shape != aval.shape:
            raise ValueError(
                "Custom VJP bwd rule must produce an output with the same type as the args "
                f"tuple of the primal function, but at output{path} the bwd rule produced "
                f"an output of type {_aval_str(ct_aval)} corresponding to an input of type "
                f"{_aval_str(aval)}{_mismatch(aval, ct_aval)}")
        results.append(ct)
    return results


def check_for_tracers(x):
    for leaf in tree_flatten(x)[0]:
        if isinstance(leaf, Tracer):
            raise UnexpectedTracerError(
                "Found a JAX Tracer object passed as an argument to a custom_vjp function in a "
                "position indicated by nondiff_argnums as non-differentiable. Tracers cannot be "
                "passed as non-differentiable arguments to custom_vjp functions; instead, "
                "nondiff_argnums should only be used for arguments that can't be or contain "
                "JAX tracers, e.g. function-valued arguments. In particular, array-valued "
                "arguments should typically not be indicated as nondiff_argnums.")


def custom_lin_error(*args, **params):
    """`custom_lin`'s evaluation, JVP, batching and lowering rules: forward mode reached it."""
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _without_zero_consts(shown):
    """JAX shows a custom call's `num_consts` only when it is not zero."""
    return [(k, v) for k, v in shown if k != "num_consts" or v]


def custom_jvp_call_pp(eqn, names):
    p = eqn.params
    shown = [("name", p["name"]), ("call_jaxpr", p["call_jaxpr"]),
             ("jvp", fun_name(p["jvp_jaxpr_fun"])), ("num_consts", p["num_consts"]),
             ("symbolic_zeros", p["symbolic_zeros"])]
    return pp_eqn_plain(eqn, names, _without_zero_consts(shown))


def custom_vjp_call_pp(eqn, names):
    p = eqn.params
    shown = [("name", p["name"]), ("bwd", fun_name(p["bwd"])), ("call_jaxpr", p["call_jaxpr"]),
             ("fwd", fun_name(p["fwd_jaxpr_thunk"])), ("num_consts", p["num_consts"]),
             ("symbolic_zeros", p["symbolic_zeros"])]
    return pp_eqn_plain(eqn, names, _without_zero_consts(shown))


def custom_lin_pp(eqn, names):
    return pp_eqn_plain(eqn, names, [(k, fun_name(v) if k == "bwd" else v)
                                     for k, v in sorted(eqn.params.items()) if k != "out_avals"])
