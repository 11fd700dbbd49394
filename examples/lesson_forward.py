#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The lesson's forward pass (a 2-16-16-1 MLP: ReLU hidden layers, sigmoid
output) on Tessera from Python, in float64 and float32, checked against the
same pass in NumPy with tessera.testing.assert_close.

Run from a source checkout after building:
    PYTHONPATH=bindings/python /usr/bin/python3 examples/lesson_forward.py
(set TESSERA_LIBRARY=<build>/lib/libtessera.so for a build folder other than build/).
Exits non-zero if a check fails.
"""
import sys

import numpy as np

import tessera


def two_moons(n_samples=200, noise=0.2, seed=0):
    """Two interleaving half circles with Gaussian noise. The same numbers as
    scikit-learn's make_moons(n_samples, noise=noise, random_state=seed):
    the points, one shuffle and then the noise, all from one RandomState."""
    rng = np.random.RandomState(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    t_out = np.linspace(0, np.pi, n_out)
    t_in = np.linspace(0, np.pi, n_in)
    xs = np.append(np.cos(t_out), 1 - np.cos(t_in))
    ys = np.append(np.sin(t_out), 1 - np.sin(t_in) - 0.5)
    points = np.vstack([xs, ys]).T
    labels = np.hstack([np.zeros(n_out, dtype=np.intp), np.ones(n_in, dtype=np.intp)])
    order = np.arange(n_samples)
    rng.shuffle(order)
    points, labels = points[order], labels[order]
    points += rng.normal(scale=noise, size=points.shape)
    return points, labels


def init_layers(sizes, seed=0):
    """Weights (out, in) drawn from N(0, 1/fan_in) by numpy's default_rng, zero biases."""
    rng = np.random.default_rng(seed)
    return [(rng.normal(0, 1 / np.sqrt(fan_in), (fan_out, fan_in)), np.zeros(fan_out))
            for fan_in, fan_out in zip(sizes[:-1], sizes[1:])]


def forward_numpy(a, layers):
    for depth, (w, b) in enumerate(layers, start=1):
        z = a @ w.T + b
        a = np.maximum(z, 0.0) if depth < len(layers) else 1 / (1 + np.exp(-z))
    return a


def forward_tessera(a, layers):
    for depth, (w, b) in enumerate(layers, start=1):
        z = a @ w.T + b
        a = tessera.relu(z) if depth < len(layers) else tessera.sigmoid(z)
    return a


def main():
    device = tessera.device("cpu")
    points, _ = two_moons()
    layers_np = init_layers([2, 16, 16, 1])
    reference = forward_numpy(points, layers_np)
    expected = tessera.from_numpy(reference)

    def on_tessera(arr, dtype):
        return tessera.as_tensor(arr, dtype=dtype, device=device)

    out64 = forward_tessera(on_tessera(points, tessera.float64),
                            [(on_tessera(w, tessera.float64), on_tessera(b, tessera.float64)) for w, b in layers_np])
    tessera.testing.assert_close(out64, expected)  # float64 against NumPy's float64: rounding only

    out32 = forward_tessera(on_tessera(points, tessera.float32),
                            [(on_tessera(w, tessera.float32), on_tessera(b, tessera.float32)) for w, b in layers_np])
    gap = (out32.double() - expected).abs().max().item()
    print(tuple(out64.shape), out64.dtype, out32.dtype, f"largest float32 gap {gap:.1e}")
    try:
        tessera.testing.assert_close(out32, expected)
        print("assert_close accepted a float32 result against a float64 one", file=sys.stderr)
        return 1
    except AssertionError as e:
        print("assert_close:", str(e).splitlines()[0][:45])

    # float32 keeps about 7 significant digits: the gap must stay below 1e-6
    # on outputs between 0 and 1, and the converted result must pass
    # assert_close at float32's default tolerances.
    if not 0 < gap < 1e-6:
        print("unexpected float32 gap %g" % gap, file=sys.stderr)
        return 1
    tessera.testing.assert_close(out32, expected.float())
    print("forward pass: float64 and float32 agree with NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
