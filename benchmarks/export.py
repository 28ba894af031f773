"""Chapter 17 against JAX: from a fresh process to the result of an exported program.

The program is chapter 18's trained classifier (`examples/classifier.py`), exported once to a
file. Each measurement starts a new Python process and waits for it to finish:

- ours: `python -m autodidax.runner classifier.jaxexport --input points.npy`, with a warm
  persistent cache (the runner has run the artifact once before), so the program is loaded from
  the disk, not compiled;
- JAX: `python -c "import jax; jax.export.deserialize(blob).call(points)"`, JAX's way to run an
  artifact (JAX's persistent cache is off by default, so JAX compiles);
- the floor: `python -c "import numpy, jaxlib.xla_client"`, the imports both need, which no
  runner can avoid.

Each figure is the median of several runs, the commands taking turns.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import classifier  # noqa: E402

JAX_CALL = """
import sys, numpy as np, jax
blob = open(sys.argv[1], "rb").read()
out = jax.export.deserialize(bytearray(blob)).call(np.load(sys.argv[2]))
np.asarray(out)
"""


def seconds(argv, env) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def main(repeats=7):
    folder = Path(tempfile.mkdtemp(prefix="autodidax-bench-export-"))
    classifier.main(folder)
    artifact, points = folder / "classifier.jaxexport", folder / "points.npy"
    env = dict(os.environ, AUTODIDAX_CACHE_DIR=str(folder / "cache"))   # never the user's cache
    commands = {
        "autodidax runner (warm cache)": [sys.executable, "-m", "autodidax.runner", artifact,
                                          "--input", points],
        "jax.export.deserialize(...).call": [sys.executable, "-c", JAX_CALL, artifact, points],
        "floor: import numpy, jaxlib": [sys.executable, "-c",
                                        "import numpy, jaxlib.xla_client"],
    }
    for argv in commands.values():
        seconds(argv, env)                            # warm the persistent cache and the disk
    times = {name: [] for name in commands}
    for _ in range(repeats):
        for name, argv in commands.items():
            times[name].append(seconds(argv, env))
    median = {name: statistics.median(t) for name, t in times.items()}
    jax_time = median["jax.export.deserialize(...).call"]
    print("start to result, in a fresh process (median of", repeats, "runs)")
    for name, t in median.items():
        print(f"  {name:36s} {t * 1e3:7.1f} ms   {t / jax_time:5.2f}x JAX")
    ratio = median["autodidax runner (warm cache)"] / jax_time
    print(f"runner / JAX: {ratio:.2f}x (target: at most 1.5x)")


if __name__ == "__main__":
    main()
