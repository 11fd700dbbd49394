# SPDX-License-Identifier: Apache-2.0
"""What the device tests share: the arena plugin's config (a device with
primitives only, whose memory the host cannot address), and the marks that
skip a test outside ctest, which names the plugin and the emulator."""
import json
import os

import pytest

needs_arena = pytest.mark.skipif("TESSERA_TEST_ARENA_PLUGIN" not in os.environ,
                                 reason="run by ctest, which names the arena plugin")
needs_emulator = pytest.mark.skipif("TESSERA_TEST_CUDA_EMU_CONFIG" not in os.environ,
                                    reason="run by ctest, which names the emulator's config")


def arena_config(tmp_path, nbytes=16777216):
    """A config file under tmp_path: cpu_tbb, and the arena device of
    `nbytes` with the CPU fallback."""
    config = {"plugins": [{"name": "cpu_tbb", "library": "cpu_tbb.so"},
                          {"name": "arena", "library": os.environ["TESSERA_TEST_ARENA_PLUGIN"], "fallback": True,
                           "options": {"bytes": nbytes}}]}
    path = tmp_path / "arena.json"
    path.write_text(json.dumps(config))
    return path
