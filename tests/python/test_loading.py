# SPDX-License-Identifier: Apache-2.0
"""The package finds libtessera.so by itself in a build tree and in an
install tree, and TESSERA_LIBRARY overrides both."""
import os
import shutil
import subprocess
import sys

import pytest

import tessera

PACKAGE = os.path.dirname(os.path.abspath(tessera.__file__))
LIBRARY = os.path.realpath(tessera._lib.library_path)
PROBE = "import tessera, os; print(os.path.realpath(tessera._lib.library_path)); print(tessera.abi_version())"


def _run(pythonpath, env_library=None):
    env = {k: v for k, v in os.environ.items() if k != "TESSERA_LIBRARY"}
    env["PYTHONPATH"] = pythonpath
    if env_library:
        env["TESSERA_LIBRARY"] = env_library
    return subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)


def _copy_package(dest):
    shutil.copytree(PACKAGE, os.path.join(dest, "tessera"), ignore=shutil.ignore_patterns("__pycache__"))


def test_build_tree_layout(tmp_path):
    """<repo>/bindings/python/tessera finds <repo>/build/lib/libtessera.so."""
    python_dir = tmp_path / "bindings" / "python"
    python_dir.mkdir(parents=True)
    _copy_package(str(python_dir))
    (tmp_path / "build" / "lib").mkdir(parents=True)
    os.symlink(LIBRARY, tmp_path / "build" / "lib" / "libtessera.so")
    proc = _run(str(python_dir))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [LIBRARY, str(tessera.abi_version())]


def test_install_tree_layout(tmp_path):
    """<prefix>/lib/python3/dist-packages/tessera finds <prefix>/lib/libtessera.so."""
    site = tmp_path / "lib" / "python3" / "dist-packages"
    site.mkdir(parents=True)
    _copy_package(str(site))
    os.symlink(LIBRARY, tmp_path / "lib" / "libtessera.so")
    proc = _run(str(site))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == LIBRARY


def test_multiarch_install_tree_layout(tmp_path):
    """<prefix>/lib/x86_64-linux-gnu/python3/dist-packages/tessera finds the libdir's libtessera.so."""
    libdir = tmp_path / "lib" / "x86_64-linux-gnu"
    site = libdir / "python3" / "dist-packages"
    site.mkdir(parents=True)
    _copy_package(str(site))
    os.symlink(LIBRARY, libdir / "libtessera.so")
    proc = _run(str(site))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == LIBRARY


def test_environment_overrides_and_failures_name_the_paths(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    _copy_package(str(site))
    missing = str(tmp_path / "nowhere" / "libtessera.so")
    proc = _run(str(site), env_library=missing)
    assert proc.returncode != 0
    assert "cannot find libtessera.so" in proc.stderr and missing in proc.stderr
    proc = _run(str(site), env_library=LIBRARY)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == LIBRARY


@pytest.mark.parametrize("code", [
    # Tensors alive at exit (module globals, a NumPy array over one, an
    # exported capsule): the runtime is kept and the process ends cleanly.
    "import tessera, numpy as np; x = tessera.ones(3); a = x.numpy(); t = tessera.from_numpy(np.ones(2)); c = x.__dlpack__()",
    # Nothing alive: the runtime is destroyed at exit.
    "import tessera; print(tessera.ones(2).sum().item())",
])
def test_clean_exit(code):
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
