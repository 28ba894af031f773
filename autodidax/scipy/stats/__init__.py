"""autodidax.scipy.stats: its modules are written by chapters/A1_library.md."""
