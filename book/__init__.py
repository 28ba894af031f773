"""Tooling for the book: the chapter manifest, the exporter and the exercise checks.

This is not part of `autodidax`: it is what turns chapters into a package and a book.
"""
