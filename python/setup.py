"""Builds the Python module lopt with Debian's setuptools, offline:

    pip install --no-build-isolation --no-index ./python

(`make python` builds the same module with make alone). The extension holds
the whole library: every source of api/ and the folders below it."""
import glob
import os

from setuptools import Extension, setup

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = sorted(
    f for d in ("grammar", "ir", "interp", "printer", "passes", "api")
    for f in glob.glob(os.path.join(TOP, d, "**", "*.c"), recursive=True))


def version():
    with open(os.path.join(TOP, "api", "context.c"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#define LOPT_VERSION"):
                return line.split('"')[1]
    raise SystemExit("setup.py: no LOPT_VERSION in api/context.c")


setup(
    name="lopt",
    version=version(),
    description="Tensor data-layout planning on TVMScript-like text (the library of lopt(1))",
    ext_modules=[Extension(
        "lopt",
        sources=[os.path.join(TOP, "python", "lopt_module.c")] + SOURCES,
        extra_compile_args=["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-fvisibility=hidden", "-O2"],
        libraries=["m"],
        extra_link_args=["-pthread"],
    )],
)
