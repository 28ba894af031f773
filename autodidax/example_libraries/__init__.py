"""autodidax.example_libraries: its modules are written by chapters/A28_example_libraries.md."""
