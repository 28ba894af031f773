# Generated from chapters/A2_library.md by `make export`: edit the chapter, not this file.


"""`jax.scipy.stats`: one submodule per distribution (`norm` in appendix A2, more in appendix
A26), and the package's own functions, registered by appendix A26 into `more_functions`."""
more_functions: dict = {}


def __getattr__(name):
    try:
        return more_functions[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__():
    return sorted({*globals(), *more_functions})
