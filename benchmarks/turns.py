"""The benchmarks' timers, in one place.

Timing in turns: on a noisy machine, measurements that take turns, round after round, see the same
disturbances, where one library measured after the other may not (runs one-sided like that moved
by 30% on the 2-core machines the book is tested on). `per_call` and `seconds` time one thing.
"""
import statistics
import time

import jax


def wait(out):
    """Block until every array in the pytree `out` (of either library) is computed."""
    for leaf in jax.tree.leaves(out):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()


def seconds(fn) -> float:
    """Seconds that one call of `fn()` takes, waiting for its result."""
    start = time.perf_counter()
    wait(fn())
    return time.perf_counter() - start


def per_call(fn, calls: int, repeats: int = 1, warm: bool = True, stat=min) -> float:
    """Seconds per call of `fn()`: `repeats` times, the mean over `calls` calls (waiting for the
    last result), summarised by `stat` (min or statistics.median). `warm` calls it once first."""
    if warm:
        wait(fn())
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            out = fn()
        wait(out)
        times.append((time.perf_counter() - start) / calls)
    return stat(times)


median = statistics.median


def in_turns(runs: dict, rounds: int, calls: int) -> dict:
    """Seconds per call of each of `runs` (name -> function of no arguments), once per round:
    name -> list of the rounds' times. A round calls each function once, then `calls` times,
    timed, and waits for the last result."""
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            run()
            start = time.perf_counter()
            for _ in range(calls):
                out = run()
            wait(out)
            times[name].append((time.perf_counter() - start) / calls)
    return times
