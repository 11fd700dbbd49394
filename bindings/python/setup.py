# SPDX-License-Identifier: Apache-2.0
"""The extension of the `tessera` wheel (pyproject.toml has the rest).

tessera._C is compiled from src/*.c against an installed Tessera, found
with pkg-config (`tessera.pc`: PKG_CONFIG_PATH=<prefix>/lib/pkgconfig). The
wheel does not bundle libtessera: the library, its plugins and its configs
are one installation that C programs, plugins built with find_package and
this package share, and the runtime finds its plugins and configs relative
to the library. So the extension is linked to that library (its RPATH is
pkg-config's libdir); importing it loads the library (tessera/_lib.py).
The DLPack header comes from Debian's libdlpack-dev.
"""
import glob
import os
import shlex
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "tessera"], check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        raise SystemExit("tessera: building the wheel needs pkg-config (Debian's pkgconf)")
    except subprocess.CalledProcessError as e:
        raise SystemExit("tessera: pkg-config cannot find an installed Tessera (tessera.pc); set PKG_CONFIG_PATH to "
                         "<prefix>/lib/pkgconfig of a `cmake --install`. It said: " + e.stderr.strip())
    return out.strip()


LIBDIR = os.path.realpath(pkg_config("--variable=libdir"))
LIBRARY = os.path.join(LIBDIR, "libtessera.so")
if not os.path.exists(LIBRARY):
    raise SystemExit("tessera: pkg-config's libdir %s has no libtessera.so" % LIBDIR)


extension = Extension(
    "tessera._C",
    sources=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "src", "*.c"))),
    depends=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "src", "*.h"))),
    extra_compile_args=shlex.split(pkg_config("--cflags")) + ["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra"],
    extra_link_args=shlex.split(pkg_config("--libs")),
    runtime_library_dirs=[LIBDIR],
)

setup(ext_modules=[extension])
