"""Timing in turns, for the benchmarks here: on a noisy machine, measurements that take turns,
round after round, see the same disturbances, where one library measured after the other may
not (runs one-sided like that moved by 30% on the 2-core machines the book is tested on)."""
import time

import jax


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
            for leaf in jax.tree.leaves(out):     # arrays of either library are leaves to it
                leaf.block_until_ready()
            times[name].append((time.perf_counter() - start) / calls)
    return times
