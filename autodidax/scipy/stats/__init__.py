"""autodidax.scipy.stats: its modules are written by chapters/A2_library.md."""
