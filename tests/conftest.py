import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

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
