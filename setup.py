"""Build hook: compile the hot-loop modules with mypyc (C extensions), pure Python otherwise.

Everything else is declared in ``pyproject.toml``. The compiled modules are the same source,
built for speed (about twice as many games per second). No C compiler, or
``PROJECTL_SIM_PURE=1`` at install time: the package installs as pure Python and behaves the
same. ``projectl_sim/_native.py`` loads the pure source instead when a compiled module's source
has changed since the build (an editable install after an edit) or when ``PROJECTL_SIM_PURE=1``
is set at run time.
"""

from __future__ import annotations

import ast
import compileall
import hashlib
import importlib.machinery
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
# The modules of the hot loop: projectl_sim/_native.py's MODULES (read from its source, since the
# package cannot be imported before it is built).
NATIVE = sorted(
    ast.literal_eval(
        next(
            node.value
            for node in ast.parse((HERE / "projectl_sim" / "_native.py").read_text()).body
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MODULES"
        )
    ).values()
)
STAMP = HERE / "projectl_sim" / "_native_stamp.json"


def _built_in_place(digests: dict) -> bool:
    """Return whether an editable install may keep the extensions already built in place.

    An editable install compiles the modules next to their sources; installing again (the README's
    test line after its first line, or adding the test extra) would compile the same sources
    again. When every source is the one the stamp records and its extension is there, that build
    is kept. Any other build (a wheel, an edited source, a missing extension) compiles.
    """
    if "editable_wheel" not in sys.argv:
        return False
    try:
        if json.loads(STAMP.read_text()) != digests:
            return False
    except (OSError, ValueError):
        return False
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    group = HERE / "projectl_sim" / "_native_group__mypyc"
    stems = [HERE / p[: -len(".py")] for p in NATIVE] + [group]
    return all(any(Path(f"{stem}{sfx}").exists() for sfx in suffixes) for stem in stems)


# The setup.py commands that build extensions. pip also runs setup.py for metadata (egg_info,
# dist_info), which needs no compile: those runs neither type-check nor touch the stamp.
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop"}


BUILT_FROM: dict = {}  # the digests of the sources being compiled, for the stamp


class _BuildExt(build_ext):
    """build_ext that compiles on every core and writes the stamp once the extensions are built.

    mypyc writes one C file per module (``multi_file``); distutils would compile an extension's
    files one after another, so here they go to a pool of one gcc per core, the largest first
    (the compile is most of an install's time). The extensions themselves (the group and its
    small shims) are built in parallel too.
    """

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def build_extensions(self) -> None:
        one_by_one = self.compiler.compile
        jobs = os.cpu_count() or 1

        def compile_all(sources: list, *args: object, **kwargs: object) -> list:
            if len(sources) < 2 or jobs < 2:
                return one_by_one(sources, *args, **kwargs)
            largest_first = sorted(sources, key=lambda s: -os.path.getsize(s))
            with ThreadPoolExecutor(jobs) as pool:
                built = pool.map(lambda s: one_by_one([s], *args, **kwargs), largest_first)
                objects = dict(zip(largest_first, built, strict=True))
            return [obj for source in sources for obj in objects[source]]

        self.compiler.compile = compile_all
        super().build_extensions()

    def run(self) -> None:
        super().run()
        if not BUILT_FROM:
            return
        text = json.dumps(BUILT_FROM, indent=1, sort_keys=True) + "\n"
        STAMP.write_text(text)
        if not self.inplace:  # a wheel: build_py has copied the package already
            target = Path(self.build_lib) / "projectl_sim" / STAMP.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            return
        # An editable install runs the sources in place, and pip byte-compiles only what it
        # copies: compile them now, as a regular install would, so that no process has to
        # (where PYTHONDONTWRITEBYTECODE is set, every run's workers and every command would
        # compile the modules they import again, 0.1 s of CPU each). Python still checks each
        # source's time against its .pyc: an edited source is compiled afresh.
        for package in ("projectl_sim", "bots"):
            compileall.compile_dir(str(HERE / package), quiet=1, workers=os.cpu_count() or 1)


def _native_modules() -> list:
    if os.environ.get("PROJECTL_SIM_PURE", "") not in ("", "0"):
        STAMP.unlink(missing_ok=True)
        return []
    if not BUILDS.intersection(sys.argv):
        return []  # metadata only
    try:
        from mypyc.build import mypycify
    except ImportError:  # a build without the build requirements: pure Python
        STAMP.unlink(missing_ok=True)
        return []
    # what the compiled modules were built from, so that an edited source is never shadowed
    digests = {p: hashlib.sha256((HERE / p).read_bytes()).hexdigest() for p in NATIVE}
    if _built_in_place(digests):
        return []  # an editable reinstall of unchanged sources: the in-place build stands
    # The stamp names the sources of a finished build: it goes now (a build stopped half-way
    # leaves none, so the next install compiles again) and comes back when build_ext is done.
    STAMP.unlink(missing_ok=True)
    BUILT_FROM.update(digests)
    cwd = os.getcwd()
    os.chdir(HERE)  # mypyc resolves module names from the paths given
    try:
        extensions = mypycify(
            ["--ignore-missing-imports", "--follow-imports=silent", *NATIVE],
            opt_level="3",
            # One C file per module, compiled on both cores (_BuildExt): the build takes 48 s of
            # wall and 88 s of CPU, where the one 19.5 MB file took 122 s of CPU in one gcc. The
            # engine does the same work (callgrind, same games: random +1.3%, greedy -1.7%,
            # mcts 0.0% instructions against the one-file build).
            multi_file=True,
            # no debug information: nobody steps through the generated C (5% less gcc CPU)
            debug_level="0",
            group_name="projectl_sim._native_group",  # inside the package: found from any folder
        )
    except SystemExit:  # mypyc found a type error: install the source as it is
        print("projectl-sim: mypyc could not compile the hot-loop modules; pure Python install")
        STAMP.unlink(missing_ok=True)
        return []
    finally:
        os.chdir(cwd)
    for ext in extensions:
        ext.optional = True  # a failed compile leaves the pure module in place
        # With a dotted group name, mypyc writes the group's header beside the group's C file
        # (build/projectl_sim/) and the modules' C files in build/, which include it: every
        # source's folder is searched for headers.
        ext.include_dirs.extend(sorted({os.path.dirname(s) for s in ext.sources}))
    return extensions


setup(ext_modules=_native_modules(), cmdclass={"build_ext": _BuildExt})
