# SPDX-License-Identifier: Apache-2.0
"""Type information (issue 35): the package is marked typed (py.typed) and
tessera/_C.pyi describes the extension. Debian's mypy checks a user's script
that uses the Tensor API as it would with the package installed (errors in
the package itself silenced): a correct script passes, a wrong one gets the
errors it should. The stub names exactly what the extension defines."""
import ast
import os
import subprocess
import sys
import textwrap

import tessera
from tessera import _C

PACKAGE = os.path.dirname(os.path.abspath(tessera.__file__))


def _mypy(tmp_path, source):
    script = tmp_path / "user.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ, MYPYPATH=os.path.dirname(PACKAGE))
    run = subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--cache-dir",
                          str(tmp_path / "mypy-cache"), "--no-error-summary", str(script)],
                         env=env, capture_output=True, text=True, timeout=300)
    return run.returncode, [line.split(": ", 1)[1] for line in run.stdout.splitlines() if ": error: " in line]


def test_the_package_is_marked_typed():
    assert os.path.isfile(os.path.join(PACKAGE, "py.typed"))
    assert os.path.isfile(os.path.join(PACKAGE, "_C.pyi"))


def test_a_correct_script_passes_mypy(tmp_path):
    code, errors = _mypy(tmp_path, """
        import tessera as ts

        x: ts.Tensor = ts.ones(3, 4)
        y: ts.Tensor = (x + 1.0) * 2 - x / 3
        z: ts.Tensor = x[1:, ::2]
        mask: ts.Tensor = y > 0.5
        shape: ts.Size = x.shape
        rows: int = x.shape[0]
        n: int = x.ndim
        d: ts.dtype = x.dtype
        dev: ts.device = x.device
        x += 1
        print(y, z, mask, shape, rows, n, d, dev, ts.__version__)
    """)
    assert (code, errors) == (0, [])


def test_a_wrong_script_gets_mypys_errors(tmp_path):
    code, errors = _mypy(tmp_path, """
        import tessera as ts

        x: ts.Tensor = ts.ones(3, 4)
        rows = x.shape()
        name: str = x.ndim
        flag: bool = x == x
        kind: ts.device = x.dtype
    """)
    assert code == 1
    assert errors == [
        'error: "Size" not callable  [operator]',
        'error: Incompatible types in assignment (expression has type "int", variable has type "str")  [assignment]',
        'error: Incompatible types in assignment (expression has type "Tensor", variable has type "bool")  '
        '[assignment]',
        'error: Incompatible types in assignment (expression has type "dtype", variable has type "device")  '
        '[assignment]',
    ]


def test_the_stub_names_what_the_extension_defines():
    tree = ast.parse(open(os.path.join(PACKAGE, "_C.pyi")).read())
    module_names, members = set(), set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            module_names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            module_names.add(node.target.id)
        elif isinstance(node, ast.ClassDef):
            module_names.add(node.name)
            assert node.name == "TensorBase"
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign):
                    members.add(item.target.id)
    assert module_names == {n for n in dir(_C) if not n.startswith("__")}
    assert members == set(vars(_C.TensorBase)) - {"__doc__", "__new__", "__hash__"}
