"""autodidax.interpreters: its modules are written by chapters/A31_extend.md."""
