"""Checks of appendix A5's exercises (chapters/A5_plugins.md): each takes the notebook's
namespace."""

tried = []            # the backends whose factories were called, in order


def factory(name, client=None, error=None):
    """A backend factory that records that it was tried, then returns `client` or raises."""
    def make():
        tried.append(name)
        if error is not None:
            raise error if isinstance(error, Exception) else RuntimeError(error)
        return client
    return make


class Loader:
    """The dynamic loader, as the chapter describes it: a library loads if each library it needs
    is loaded already, or is one the system finds."""

    def __init__(self, needs):
        self.needs, self.loaded = needs, []

    def load(self, lib):
        missing = [n for n in self.needs[lib] if n in self.needs and n not in self.loaded]
        if missing:
            raise OSError(f"{missing[0]}: cannot open shared object file (loading {lib})")
        self.loaded.append(lib)


SYSTEM = ["libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0"]
CUDA12 = {                      # needs like those of CUDA 12's wheels, in no useful order
    "libcusolver.so.11": ["libcublas.so.12", "libcublasLt.so.12", "libcusparse.so.12",
                          "libnvJitLink.so.12", *SYSTEM[:3]],
    "libcufft.so.11": SYSTEM[:4],
    "libcublas.so.12": ["libcublasLt.so.12", *SYSTEM[:1]],
    "libcusparse.so.12": ["libnvJitLink.so.12", *SYSTEM],
    "libcublasLt.so.12": SYSTEM,
    "libcudart.so.12": SYSTEM[:3],
    "libnvJitLink.so.12": SYSTEM[:2],
}


def check_start_backends(nb):
    """1. Starting the backends: which are tried, started, recorded, raised, and the default."""
    start_backends = nb["start_backends"]

    def loud(registrations, platforms=""):
        """The message of the RuntimeError that start_backends raises, or None."""
        try:
            start_backends(registrations, platforms)
        except RuntimeError as e:
            return str(e)

    machine = {"cpu": (factory("cpu", "CPU client"), 0, False),
               "tpu": (factory("tpu", error=OSError("no TPU here")), 300, True),
               "rocm": (factory("rocm"), 400, True),
               "cuda": (factory("cuda", "GPU client"), 500, True)}
    tried.clear()
    try:
        started, default, errors = start_backends(machine)
    except OSError as e:
        raise AssertionError(f"TPU's factory, which fails quietly, raised OSError({str(e)!r}), "
                             "and start_backends let it through: a factory that raises any "
                             "exception gives no backend") from None
    assert tried == list(machine), \
        f"without JAX_PLATFORMS every backend is tried once, in the order registered, " \
        f"{list(machine)}: you tried {tried}"
    assert started == {"cpu": "CPU client", "cuda": "GPU client"}, \
        f"the CPU and CUDA start, TPU raises and ROCm gives None: you started {started}"
    assert errors == {"tpu": "no TPU here", "rocm": "Could not initialize backend 'rocm'"}, \
        f"the quiet failures should be recorded with their messages, got {errors}: TPU's " \
        "factory raises an OSError, ROCm's returns None"
    assert default == "cuda", f"CUDA has the highest priority of those started, not {default!r}"
    no_gpu = dict(machine, cuda=(factory("cuda", error="no GPU here"), 500, True))
    default = start_backends(no_gpu)[1]
    assert default == "cpu", \
        f"where CUDA fails, the default is the started backend of highest priority, the CPU, " \
        f"not {default!r}"
    said = loud(dict(machine, mydev=(factory("mydev", error="no such device"), 10, False)))
    assert said is not None and said.startswith("Unable to initialize backend 'mydev': no such "
                                                "device"), \
        f"a backend that does not fail quietly should raise RuntimeError('Unable to initialize " \
        f"backend ...'), got {said!r}"
    said = loud(dict(machine, mydev=(factory("mydev"), 10, False)))
    assert said is not None and said.startswith("Unable to initialize backend 'mydev': Could "
                                                "not initialize backend 'mydev'"), \
        f"a backend that does not fail quietly and whose factory returns None should raise " \
        f"RuntimeError('Unable to initialize backend ...'), got {said!r}"
    tried.clear()
    started, default, errors = start_backends(machine, "cpu,cuda")
    assert tried == ["cpu", "cuda"], \
        f"with JAX_PLATFORMS='cpu,cuda', only those are tried, in that order: you tried {tried}"
    assert set(started) == {"cpu", "cuda"} and default == "cpu", \
        f"with JAX_PLATFORMS='cpu,cuda' the first named is the default: got {default!r}"
    for platforms, name in [("cuda,tpu", "tpu"), ("metal", "metal")]:
        said = loud(machine, platforms)
        assert said is not None and said.startswith(f"Unable to initialize backend '{name}'"), \
            f"with JAX_PLATFORMS={platforms!r}, {name} should fail loudly, with a " \
            f"RuntimeError; got {said!r}"
    twins = {"a": (factory("a", "A"), 5, True), "b": (factory("b", "B"), 5, True)}
    default = start_backends(twins)[1]
    assert default == "a", \
        f"between equal priorities, the default is the backend tried first, 'a', not {default!r}"


def check_load_order(nb):
    """2. The order to load them in: each library once, loadable in order, cycles named."""
    load_order = nb["load_order"]
    for needs in (CUDA12, dict(reversed(CUDA12.items())), {}):
        order = load_order(needs)
        twice = sorted({lib for lib in order if order.count(lib) > 1})
        assert not twice, f"{twice} come more than once in your order: load each library once"
        assert sorted(order) == sorted(needs), \
            f"the order should hold each of the {len(needs)} libraries, got {order}"
        loader = Loader(needs)
        try:
            for lib in order:
                loader.load(lib)
        except OSError as e:
            raise AssertionError(f"loading in your order failed: {e}") from None
    cycle = {"libz.so": ["liba.so"], "liba.so": ["libb.so", "libc.so.6"],
             "libb.so": ["libc_.so"], "libc_.so": ["liba.so"]}
    try:
        order = load_order(cycle)
    except ValueError as e:
        named = [lib for lib in ("liba.so", "libb.so", "libc_.so") if lib not in str(e)]
        assert not named, f"the ValueError should name each library of the cycle, not {e}"
        assert "libz.so" not in str(e), f"libz.so needs liba.so but is not in the cycle: " \
            f"the ValueError should name the cycle's libraries only, not {e}"
    else:
        raise AssertionError(f"liba.so, libb.so and libc_.so need each other: no order loads "
                             f"them, but you gave {order}; raise ValueError")
