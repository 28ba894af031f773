"""Checks of chapter 19's exercises (chapters/19_all_the_way_down.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax
import autodidax.numpy as jnp
from autodidax.machine import below
from autodidax.xla_files import Allocation, Step, Value, allocations, steps


def _step(name, *operands):
    return Step(name, "fusion", "kLoop", ("add",), operands, None)


def _values(*spec):
    return Allocation(0, 1 << 20, "preallocated-temp", [Value(*v) for v in spec])


def check_conflicts(nb):
    """1. `conflicts`: pairs of values that share bytes while both are live, and no others."""
    conflicts = nb["conflicts"]
    # a -> b -> c, each read once by the next: a chain, each step written over its input
    chain = [_step("a", "p"), _step("b", "a"), _step("c", "b")]
    got = conflicts(chain, _values(("a", 0, 64), ("b", 0, 64), ("c", 0, 64)))
    assert got == set(), ("a step may write over the value it is the last to read, in place: "
                          f"a, b, c in turn at one offset share no live bytes, but you found {got}")
    # a is read by c, so a is still live while b is written: b may not take a's bytes
    fork = [_step("a", "p"), _step("b", "a"), _step("c", "a", "b")]
    got = conflicts(fork, _values(("a", 0, 64), ("b", 32, 64), ("c", 200, 8)))
    assert got == {frozenset({"a", "b"})}, (
        "a is read again by the third step, so it is live while b is: a value is live until "
        f"the LAST step that reads it; expected {{a, b}}, got {got}")
    got = conflicts(fork, _values(("a", 0, 64), ("b", 64, 64), ("c", 0, 8)))
    assert got == set(), ("values that are live together but at different offsets share no "
                          f"bytes (a: 0-64, b: 64-128), and c takes a's bytes after its last "
                          f"read: expected no conflict, got {got}")
    # XLA's own assignment of a real program has none; one value moved onto another that is
    # live at the same time makes one (or more: the reference counts them)
    down = below(jax.jit(_loss).lower(jnp.ones((64, 16)), jnp.ones((16, 16)), jnp.ones(16)))
    order = steps(down.hlo)
    [temp] = [a for a in allocations(down.buffer_assignment) if a.kind == "preallocated-temp"]
    got = conflicts(order, temp)
    assert got == set(), f"XLA's own buffer assignment has no conflict, but you found {got}"
    moved = _moved(order, temp)
    want = _reference(order, moved)
    assert want, "the check's program changed: no value to move"
    got = conflicts(order, moved)
    assert got == want, (f"with {moved.values[-1].name} moved to byte {moved.values[-1].offset}, "
                         f"expected {want}, got {got}")


def _loss(x, w, b):
    h = jnp.tanh(x @ w + b)
    return jnp.sum(jnp.exp(h) * h) / jnp.sum(jnp.exp(h))


def _live(order):
    """Each value's (first step, last step) of being live: written, and last read."""
    position = {s.name: i for i, s in enumerate(order)}
    last = dict(position)
    for i, s in enumerate(order):
        for name in s.operands:
            last[name] = i
    return {name: (position[name], last[name]) for name in position}


def _reference(order, allocation):
    live, found = _live(order), set()
    for a in allocation.values:
        for b in allocation.values:
            share = a.offset < b.offset + b.size and b.offset < a.offset + a.size
            (a0, a1), (b0, b1) = live[a.name], live[b.name]
            if a.name < b.name and share and max(a0, b0) < min(a1, b1):
                found.add(frozenset({a.name, b.name}))
    return found


def _moved(order, temp):
    """`temp` with the first value that is live at once with another, at other bytes, moved
    onto that other's bytes (and listed last)."""
    live = _live(order)
    for a in temp.values:
        for b in temp.values:
            (a0, a1), (b0, b1) = live[a.name], live[b.name]
            if a is not b and a.offset != b.offset and max(a0, b0) < min(a1, b1):
                rest = [v for v in temp.values if v is not b]
                return Allocation(temp.index, temp.size, temp.kind,
                                  rest + [Value(b.name, a.offset, b.size)])
    return temp


def check_traffic(nb):
    """2. `traffic`: the bytes a program's steps read and write."""
    traffic = nb["traffic"]
    sizes = [Allocation(0, 10, "parameter", [Value("p", 0, 10)]),
             Allocation(1, 100, "preallocated-temp", [Value("a", 0, 20), Value("b", 20, 30)]),
             Allocation(2, 5, "output", [Value("c", 0, 5)])]
    chain = [_step("a", "p"), _step("b", "a"), _step("c", "b")]
    got = traffic(chain, sizes)
    assert got == 10 + 20 + 20 + 30 + 30 + 5, (
        "a chain p -> a -> b -> c reads p (10 bytes), a (20) and b (30) once each and writes a, b "
        f"and c (20, 30, 5): 135 bytes, but you counted {got}")
    twice = [_step("a", "p"), _step("b", "a", "a"), _step("c", "b", "p")]
    got = traffic(twice, sizes)
    assert got == 10 + 20 + 40 + 30 + 30 + 10 + 5, (
        "an operand counts each time a step reads it: b reads a twice, c reads p again; "
        f"expected 145 bytes, got {got}")
    tuple_out = [Allocation(0, 24, "output", [Value("t", 0, 8), Value("t", 8, 16)]),
                 Allocation(1, 4, "parameter", [Value("q", 0, 4)])]
    got = traffic([_step("t", "q", "k")], tuple_out)
    assert got == 4 + 24, ("a tuple's values add up (8 + 16 bytes written), and a name with no "
                           f"value (the constant k) counts 0: expected 28, got {got}")
    # a real program, against a count made here; and jit moves fewer bytes than eager
    down = below(jax.jit(_loss).lower(jnp.ones((64, 16)), jnp.ones((16, 16)), jnp.ones(16)))
    order, allocs = steps(down.hlo), allocations(down.buffer_assignment)
    size = {}
    for a in allocs:
        for v in a.values:
            size[v.name] = size.get(v.name, 0) + v.size
    want = sum(size.get(n, 0) for s in order for n in (s.name, *s.operands))
    got = traffic(order, allocs)
    assert got == want, f"the steps of a small loss move {want} bytes, but you counted {got}"
    f, x = nb["f"], jnp.arange(8.0)
    fused = traffic(*_parsed(below(jax.jit(f).lower(x))))
    eager = sum(traffic(*_parsed(below(jax.jit(fn).lower(*args)))) for _, fn, args in nb["eager"])
    assert fused < eager, (f"jit(f) moves {fused} bytes and f's eager programs {eager}: fusion "
                           "should move fewer")


def _parsed(program):
    return steps(program.hlo), allocations(program.buffer_assignment)
