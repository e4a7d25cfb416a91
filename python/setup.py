"""Builds the Python module lopt with Debian's setuptools, offline:

    pip install --no-build-isolation --no-index ./python

(`make python` builds the same module with make alone). The extension holds
the whole library: every source of api/ and the folders below it; its type
stubs, lopt.pyi, are installed beside it."""
import glob
import os
import shutil

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

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


class build_ext_with_stubs(build_ext):
    """Builds the extension and puts lopt.pyi beside it, where install takes both from."""

    def run(self):
        super().run()
        out = os.path.dirname(os.path.abspath(self.get_ext_fullpath("lopt")))
        shutil.copyfile(os.path.join(TOP, "python", "lopt.pyi"), os.path.join(out, "lopt.pyi"))


setup(
    name="lopt",
    version=version(),
    description="Tensor data-layout planning on TVMScript-like text (the library of lopt(1))",
    cmdclass={"build_ext": build_ext_with_stubs},
    ext_modules=[Extension(
        "lopt",
        sources=[os.path.join(TOP, "python", "lopt_module.c")] + SOURCES,
        extra_compile_args=["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-fvisibility=hidden", "-O2"],
        libraries=["m"],
        extra_link_args=["-pthread"],
    )],
)
