#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cuda_emu.demo: `tessera demo` on the emulated cuda:0 prints what it prints on
# the cpu (the lesson walk-through and the MLP forward), device names aside.
# Usage: check_demo.sh TESSERA CONFIG
set -euo pipefail
tessera=$1
config=$2
cpu=$("$tessera" --config "$config" demo --device cpu)
gpu=$("$tessera" --config "$config" demo --device cuda:0)
grep -q "device='cuda:0'" <<<"$gpu" || { echo "cuda_emu.demo: no tensor printed on cuda:0"; exit 1; }
normalize() { sed -e "s/, device='cuda:0'//g" -e 's/\bcuda:0\b/DEVICE/g; s/\bcpu\b/DEVICE/g'; }
if ! diff <(normalize <<<"$cpu") <(normalize <<<"$gpu"); then
  echo "cuda_emu.demo: the demo on cuda:0 differs from the cpu's (above)"
  exit 1
fi
echo "cuda_emu.demo: $(wc -l <<<"$gpu") lines, the same on cuda:0 as on the cpu"
