import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

# The machine is small and shared: no deadlines, a moderate number of examples.
settings.register_profile("book", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("book")

# Chapter 16 and its tests run programs over 8 simulated CPU devices, in autodidax and in the
# real JAX alike. Both settings must come before either makes its CPU client.
import autodidax  # noqa: E402
import jax  # noqa: E402

autodidax.config.update("jax_num_cpu_devices", 8)
jax.config.update("jax_num_cpu_devices", 8)


# `make test` runs `-n 2 --dist loadfile`: xdist hands out whole files (a notebook is one), by
# default those with the most tests first, so that a file of few but slow tests (test_fuzz.py,
# test_grader.py) comes last and keeps one worker busy while the other has nothing left. Here
# the files are handed out longest first: the seconds below were measured one file at a time
# on the 2-core machine (December 2026); another file counts 0.06 s a test, a notebook 0.15 s a
# cell. The order changes no test, only which worker runs it and when. test_exercises.py runs
# each chapter once, in one kernel, for its wrong solutions and its student edition alike.
SECONDS = {     # tests/test_NAME.py: seconds of work
    "exercises": 150, "student": 62, "conformance": 54, "batching": 53, "conformance_random": 42,
    "site": 40, "conformance_library": 37, "capstone": 33, "random": 32,
    "conformance_numpy_rest": 31, "conformance_special": 30, "autodiff": 28, "book": 26,
    "claims_06_08": 26, "jvp": 23, "conformance_example_libraries": 22,
    "conformance_numpy_rest2": 22, "conformance_numpy2": 21, "conformance_x64": 21,
    "runner_hostile": 21, "conformance_linalg": 18, "claims_09_10": 18, "claims_13_15": 18,
    "indexing": 18, "claims_11_12": 17, "control_flow": 17, "conformance_dtypes": 16,
    "conformance_indexing": 16, "shard_map": 16, "callbacks": 15, "claims_appendices": 15,
    "grader": 15, "conformance_checkify": 14, "conformance_linalg_rest": 14, "conformance_scan": 14,
    "conformance_random_rest": 13, "fuzz": 13, "claims_16_17": 12, "export": 12, "library": 12,
    "claims_00_01_09_17": 11, "conformance_lax_rest": 11, "conformance_named": 11, "runtime": 11,
    "lowering": 10, "numpy": 9, "lax": 9,
}


def _seconds(unit, tests):
    name = unit.removeprefix("tests/test_").removesuffix(".py")
    return SECONDS.get(name, (0.15 if unit.endswith(".ipynb") else 0.06) * tests)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LongestFirst(LoadFileScheduling):
        def _assign_work_unit(self, node):
            if not getattr(self, "_sorted", False):     # the first call: the queue is complete
                self._sorted = True
                units = sorted(self.workqueue.items(), key=lambda u: -_seconds(u[0], len(u[1])))
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)
    return LongestFirst(config, log)
