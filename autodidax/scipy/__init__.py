"""autodidax.scipy: its modules are written by chapters/A1_library.md."""
