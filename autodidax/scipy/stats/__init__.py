# Generated from chapters/A2_library.md by `make export`: edit the chapter, not this file.


"""`jax.scipy.stats`: one submodule per distribution (`norm` in appendix A2, more in appendix
A26), and the package's own functions, registered by appendix A26 into `more_functions`."""
from autodidax.numpy import late_attributes

more_functions, __getattr__, __dir__ = late_attributes(globals())
