#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Trains the lessons' MLP on scikit-learn's digits with tessera.nn and
tessera.optim, saves its weights as safetensors and loads them back.

The lessons' network is 2-16-16-1: two hidden layers of 16 ReLU units and a
sigmoid output for two classes (examples/lesson_forward.py). The digits are
8x8 images of ten classes, so here it is 64-16-16-10: the same two hidden
layers of 16 ReLU units, 64 inputs (one per pixel) and 10 outputs whose
softmax, inside F.cross_entropy, takes the place of the sigmoid.

The data is load_digits (1797 images, shipped inside scikit-learn: no
network), split 80/20 by train_test_split(random_state=0, stratified), the
pixels standardised with the training set's mean and deviation. Training is
AdamW on minibatches of 32 in an order drawn from Tessera's generator, so a
run is the same after tessera.manual_seed(--seed) on every device.
examples/train_mlp.c trains the same network the same way through the C API
on the split this script exports (--export-data).

Run from a source checkout after building:
    PYTHONPATH=bindings/python /usr/bin/python3 examples/train_mlp.py [--epochs 30] [--device cpu]
        [--seed 0] [--out mlp.safetensors] [--export-data digits.safetensors]
(set TESSERA_LIBRARY=<build>/lib/libtessera.so for a build folder other than build/).
Exits non-zero if the reloaded weights do not predict exactly as the trained ones.
"""
import argparse
import sys
import time

import numpy as np

import tessera
import tessera.nn as nn
import tessera.nn.functional as F
import tessera.optim as optim
import tessera.safetensors

SIZES = (64, 16, 16, 10)  # the lessons' 2-16-16-1, with 64 inputs and 10 classes
BATCH = 32
LR = 5e-3  # AdamW's other hyperparameters are torch's defaults (weight_decay 1e-2)


def load_digits_split():
    """(X_train, y_train, X_test, y_test): float32 standardised pixels and
    int64 labels, 1437 images to train on and 360 to test on."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
    scaler = StandardScaler().fit(X_train)  # pixels that never vary keep a scale of 1
    return (scaler.transform(X_train).astype(np.float32), y_train.astype(np.int64),
            scaler.transform(X_test).astype(np.float32), y_test.astype(np.int64))


def export_split(path, split):
    """Writes the split as one safetensors file of X_train, y_train, X_test
    and y_test: train_mlp.c's input."""
    names = ("X_train", "y_train", "X_test", "y_test")
    tessera.safetensors.save_file({n: tessera.as_tensor(a) for n, a in zip(names, split)}, path,
                                  metadata={"source": "sklearn.datasets.load_digits", "split": "train_test_split("
                                            "test_size=0.2, random_state=0, stratify=y), StandardScaler"})


def make_model(device):
    """Linear layers initialised as torch's (kaiming-uniform bounds), drawn
    from Tessera's generator in order: weight then bias, layer by layer."""
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        if i:
            layers.append(nn.ReLU())
        layers.append(nn.Linear(fan_in, fan_out, device=device))
    return nn.Sequential(*layers)


class ProgressBar:
    """One line per epoch: a bar over the minibatches and the mean loss so
    far, redrawn in place on a terminal and written once, complete, elsewhere."""

    def __init__(self, total, label, stream=None, width=30):
        self.total, self.label, self.width = total, label, width
        self.stream = sys.stdout if stream is None else stream
        self.live = self.stream.isatty()

    def _line(self, done, loss):
        filled = self.width * done // self.total
        return "%s [%s%s] %d/%d loss %.4f" % (self.label, "#" * filled, "." * (self.width - filled), done,
                                              self.total, loss)

    def update(self, done, loss):
        if self.live:
            self.stream.write("\r" + self._line(done, loss))
            self.stream.flush()

    def close(self, loss):
        self.stream.write(("\r" if self.live else "") + self._line(self.total, loss) + "\n")
        self.stream.flush()


def evaluate(model, X, y):
    """The fraction of rows of X whose largest logit is their label, and the logits."""
    model.eval()
    with tessera.no_grad():
        logits = model(X)
        correct = (logits.argmax(dim=1) == y).sum().item()
    model.train()
    return correct / y.shape[0], logits


def train(model, X_train, y_train, epochs, device):
    optimizer = optim.AdamW(model.parameters(), lr=LR)
    n = X_train.shape[0]
    batches = (n + BATCH - 1) // BATCH
    width = len(str(epochs))
    for epoch in range(1, epochs + 1):
        order = tessera.rand(n, device=device).argsort()  # a permutation from the seeded generator
        bar = ProgressBar(batches, "epoch %*d/%d" % (width, epoch, epochs))
        total = 0.0
        for b in range(batches):
            index = order[b * BATCH:(b + 1) * BATCH]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(X_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            total += loss.item() * index.shape[0]
            bar.update(b + 1, total / min((b + 1) * BATCH, n))
        bar.close(total / n)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0, help="tessera.manual_seed: initial weights and batch order")
    parser.add_argument("--device", default="cpu", help="any device of the config (cpu, cuda:0, ...)")
    parser.add_argument("--out", default="mlp.safetensors", help="where the weights go (default %(default)s)")
    parser.add_argument("--export-data", metavar="PATH", help="also write the split, for examples/train_mlp.c")
    args = parser.parse_args(argv)

    device = tessera.device(args.device)
    split = load_digits_split()
    if args.export_data:
        export_split(args.export_data, split)
    X_train, y_train, X_test, y_test = (tessera.as_tensor(a, device=device) for a in split)
    print("digits: %d images to train on, %d to test on; MLP %s on %s" %
          (X_train.shape[0], X_test.shape[0], "-".join(map(str, SIZES)), device))

    tessera.manual_seed(args.seed)
    model = make_model(device)
    start = time.perf_counter()
    train(model, X_train, y_train, args.epochs, device)
    seconds = time.perf_counter() - start
    acc, logits = evaluate(model, X_test, y_test)
    print("test accuracy: %.4f (%d/%d), %d epochs in %.1f s" %
          (acc, round(acc * y_test.shape[0]), y_test.shape[0], args.epochs, seconds))

    tessera.safetensors.save_file(model.state_dict(), args.out)
    fresh = make_model(device)  # other random weights, replaced by the file's
    fresh.load_state_dict(tessera.safetensors.load_file(args.out, device=device))
    reloaded_acc, reloaded_logits = evaluate(fresh, X_test, y_test)
    same = reloaded_acc == acc and (reloaded_logits != logits).sum().item() == 0  # bit for bit
    print("weights saved to %s; reloaded: test accuracy %.4f, %s" %
          (args.out, reloaded_acc, "identical" if same else "DIFFERENT"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
