"""The project is configured in pyproject.toml; this file only declares the C extension.

`optional=True`: without a C compiler the install still succeeds and the writers use the
pure-Python path of app/generation/writers/interleave.py, which produces the same bytes.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("app.generation.writers._interleave",
                             sources=["app/generation/writers/_interleave.c"], optional=True)])
