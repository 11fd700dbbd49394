# SPDX-License-Identifier: Apache-2.0
"""`python3 -m tessera info` against the `tessera` command's `info` (issue
35): the same text and JSON, the same exit status (0 available, 1 the
default device is not, 2 a bad config) and the same error line, for the
library the package loads."""
import json
import os
import subprocess
import sys

import pytest

TOOL = os.environ.get("TESSERA_TEST_TOOL")
HOST_PLUGIN = os.environ.get("TESSERA_TEST_HOST_PLUGIN")
pytestmark = pytest.mark.skipif(not TOOL, reason="TESSERA_TEST_TOOL (the tessera command) is set by ctest")


def _both(*args):
    env = dict(os.environ, TESSERA_LOG_LEVEL="error")
    ours = subprocess.run([sys.executable, "-m", "tessera", *args], env=env, capture_output=True, text=True, timeout=120)
    tools = subprocess.run([TOOL, *args], env=env, capture_output=True, text=True, timeout=120)
    return ours, tools


def test_info_prints_what_the_command_prints():
    ours, tools = _both("info")
    assert tools.returncode == 0 and "plugins loaded:" in tools.stdout
    assert (ours.returncode, ours.stdout) == (tools.returncode, tools.stdout)


def test_info_json_is_the_same_document():
    ours, tools = _both("info", "--json")
    assert ours.returncode == tools.returncode == 0
    mine, theirs = json.loads(ours.stdout), json.loads(tools.stdout)
    assert mine == theirs and mine["default_device_available"] is True


def test_an_unavailable_default_device_exits_1(tmp_path):
    config = tmp_path / "unavailable.json"
    config.write_text(json.dumps({"plugins": [{"name": "cpu_tbb", "library": "cpu_tbb.so"},
                                              {"name": "null", "library": HOST_PLUGIN, "options": {"devices": 0}}],
                                  "default_device": "null:0"}))
    for args in (("--config", str(config), "info"), ("info", "--config", str(config))):
        ours, tools = _both(*args)
        assert tools.returncode == 1 and "NOT available" in tools.stdout
        assert (ours.returncode, ours.stdout) == (tools.returncode, tools.stdout)


def test_a_bad_config_exits_2_with_the_commands_message(tmp_path):
    config = tmp_path / "bad.json"
    config.write_text('{"plugins": [')
    ours, tools = _both("--config", str(config), "info")
    assert tools.returncode == 2 and tools.stderr.startswith("tessera: config %s: malformed JSON" % config)
    assert (ours.returncode, ours.stdout, ours.stderr) == (tools.returncode, tools.stdout, tools.stderr)


def test_usage_errors_exit_2():
    ours = subprocess.run([sys.executable, "-m", "tessera", "frobnicate"], capture_output=True, text=True, timeout=60)
    assert ours.returncode == 2 and "invalid choice: 'frobnicate'" in ours.stderr
