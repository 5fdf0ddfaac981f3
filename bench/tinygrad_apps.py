# SPDX-License-Identifier: MIT
"""tinygrad on OpenCL (DEV=CL), as its users run it: seeded random inputs,
a small network's forward and backward passes and one SGD step, a
matmul, reductions and a scan.  Prints one sha256 of every result's bytes.
tinygrad's own cache (compiled programs, CACHEDB) is on unless CACHELEVEL=0.
With --small (tests/integration/cl_pocl_apps_tinygrad_opencv.sh): random
numbers, a matmul, a scan and reductions only, about a fifth of the CPU
time; `make bench-apps` runs the whole."""
import hashlib
import os
import sys

os.environ.setdefault("DEV", "CL")
from tinygrad import Context, Tensor, nn  # noqa: E402
from tinygrad.nn.optim import SGD  # noqa: E402

Tensor.manual_seed(46)
h = hashlib.sha256()


def out(t):
    h.update(bytes(t.realize().data()))


if "--small" in sys.argv[1:]:
    a = Tensor.rand(32, 24)
    for t in (a, a @ a.T, a.cumsum(axis=1), a.exp().sum(axis=0) / a.max()):
        out(t)
else:
    x, y = Tensor.rand(16, 64), Tensor.randint(16, high=10)
    l1, l2 = nn.Linear(64, 32), nn.Linear(32, 10)
    opt = SGD([l1.weight, l1.bias, l2.weight, l2.bias], lr=0.01)
    with Context(TRAINING=1):
        opt.zero_grad()
        loss = l2(l1(x).relu()).sparse_categorical_crossentropy(y)
        loss.backward()
        opt.step()
        out(loss)
    out(l2(l1(x).relu()).softmax())
    a, b = Tensor.randn(96, 64), Tensor.randn(64, 80)
    out((a @ b).gelu())
    out(a.exp().sum(axis=0) / a.abs().max())
    out(a.cumsum(axis=1))
print(h.hexdigest())
