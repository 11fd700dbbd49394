# SPDX-License-Identifier: Apache-2.0
"""Finding libtessera and its extension, errors, and the one runtime.

The package's one binding is its extension, tessera._C (bindings/python/
src), a client of the C API linked to libtessera. This module finds the
extension that belongs to the library asked for, maps tsr_status to Python
exceptions with the C message, and holds the runtime's lifetime: created
by the extension on first use, destroyed at exit when no tensor is left.
"""
import atexit
import importlib.machinery
import importlib.util
import os
import sys

# ---- finding the library and its extension ------------------------------------


def _candidates():
    """Where libtessera.so may be, in the order tried (Note: the build tree
    mirrors the install tree, so one upward walk covers both)."""
    here = os.path.dirname(os.path.abspath(__file__))
    d = here
    while True:
        # A source checkout: <repo>/bindings/python/tessera -> <repo>/build/lib.
        yield os.path.join(d, "build", "lib", "libtessera.so")
        # An install tree: <prefix>/lib/python3/dist-packages/tessera -> <prefix>/lib.
        yield os.path.join(d, "lib", "libtessera.so")
        # ... or with a multiarch libdir: <prefix>/lib/x86_64-linux-gnu/python3/... -> that libdir.
        yield os.path.join(d, "libtessera.so")
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent


def _import_extension(path):
    spec = importlib.util.spec_from_file_location("tessera._C", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["tessera._C"] = module
    return module


def _extension_in(d):
    """The extension file for this interpreter in directory d, or None."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(d, "_C" + suffix)
        if os.path.exists(path):
            return path
    return None


# Note [The extension beside the library]
# tessera._C is linked to libtessera (its RPATH names the library's
# directory), so importing it loads the library: the package has no other
# way in. An installed package (cmake --install, the wheel, the .deb) holds
# the extension in its own directory. A source checkout's package
# (PYTHONPATH=bindings/python) has none: the build tree puts it in
# lib/python3/dist-packages/tessera beside the libtessera it built, the
# layout of an install tree, so it is looked for there, beside the library
# found by walking up from the package (or named by $TESSERA_LIBRARY).
# Whichever is imported must be linked to the library asked for: one
# runtime, one handle space.
def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    wanted = os.environ.get("TESSERA_LIBRARY")
    if wanted and not os.path.exists(wanted):
        raise ImportError("tessera: cannot find libtessera.so; set TESSERA_LIBRARY to its path. Tried:\n  "
                          + wanted + " (not found)")
    tried = []
    path = _extension_in(here)
    if path is None:
        libraries = [wanted] if wanted else list(_candidates())
        for library in libraries:
            if not os.path.exists(library):
                tried.append(library + " (not found)")
                continue
            beside = os.path.join(os.path.dirname(os.path.realpath(library)), "python3", "dist-packages", "tessera")
            path = _extension_in(beside)
            if path is not None:
                wanted = library
                break
            tried.append("%s (no extension tessera._C in %s)" % (library, beside))
    if path is None:
        raise ImportError("tessera: cannot find libtessera.so and its extension tessera._C (build the target "
                          "tessera_python_C, or install the package); set TESSERA_LIBRARY to the library's path. "
                          "Tried:\n  " + "\n  ".join(tried))
    module = _import_extension(path)
    linked = module.library_path()
    if wanted and os.path.realpath(linked) != os.path.realpath(wanted):
        raise ImportError("tessera: %s is linked to %s, not to %s; use the extension built with that library"
                          % (path, linked, wanted))
    return module, wanted or linked


_C, library_path = _load()

MAX_DIMS = 16  # TSR_MAX_DIMS
SLICE_NONE = -(2 ** 63)  # TSR_SLICE_NONE

# MATH's functions (enum tsr_math_fn, tessera/ops.h), name to number.
MATH_FN = {name: i for i, name in enumerate(
    ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "log1p",
     "log2", "log10", "floor", "ceil", "trunc", "round", "sign", "conj", "erf"))}

# The C API's ops (tessera/ops.h's TSR_OP_LIST), name to number, as the
# library knows them.
OP = {name: i for i, name in enumerate(_C.op_names())}

# ---- errors ---------------------------------------------------------------------

OK, ERR_INVALID_ARGUMENT, ERR_INDEX, ERR_SHAPE, ERR_TYPE = 0, 1, 2, 3, 4
ERR_LINALG = 13


class LinAlgError(RuntimeError):
    """A matrix its factorisation cannot take (TSR_ERR_LINALG: singular, not
    positive-definite, no convergence), as torch.linalg.LinAlgError."""


# What PyTorch raises for each kind of failure (a function that raises
# another class for a status maps it itself: finfo, safetensors, assert_close).
_EXCEPTIONS = {ERR_INDEX: IndexError, ERR_LINALG: LinAlgError}


def error(status):
    """The Python exception for a failed call, carrying this thread's C
    message (what the extension raises for every failed status)."""
    name, message = _C.last_error(status)
    return _EXCEPTIONS.get(status, RuntimeError)(message if message else name)


# ---- the runtime ----------------------------------------------------------------
# The extension creates the process's runtime on first use (its config:
# $TESSERA_CONFIG, else the default beside the library) and destroys it here
# at exit.


def default_device():
    """The config's default device as (type code, index)."""
    return _C.default_device()[:2]


@atexit.register
def _shutdown():
    """At exit: destroy the runtime when no tensor is left. Tensors still
    referenced (module globals) keep it alive; tsr_runtime_destroy then
    refuses, and we stop releasing handles so that nothing calls into
    plugins or deleters while the interpreter tears down."""
    import gc
    gc.collect()
    # tsr_runtime_destroy refuses (safely) while tensors are alive; without
    # a runtime it does nothing.
    _C.runtime_destroy()
    # Either way later releases must not run: a destroyed runtime has no
    # plugins, a kept one may call back into a finalizing interpreter
    # through external deleters. The process is ending; the OS frees it all.
    _C.stop_releasing()
