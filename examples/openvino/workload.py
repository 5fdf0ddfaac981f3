# SPDX-License-Identifier: MIT
"""OpenVINO's GPU plugin, as its users run it: a small CNN and a
transformer-like block built in code with OpenVINO's Python API, each
compiled with core.compile_model(model, "GPU").
  python workload.py [--cache-dir DIR] [--export DIR]
Prints the device, the compile time of each model and (--export) writes
each compiled model's export_model() blob to DIR/NAME.blob."""
import argparse
import os
import time

import numpy as np
import openvino as ov
import openvino.opset13 as ops


def cnn():
    x = ops.parameter([1, 3, 64, 64], np.float32, name="image")
    rng = np.random.default_rng(1)
    h = x
    for i, (cin, cout) in enumerate([(3, 16), (16, 32), (32, 32)]):
        w = ops.constant(rng.standard_normal((cout, cin, 3, 3)).astype(np.float32) * 0.1)
        h = ops.convolution(h, w, [1, 1], [1, 1], [1, 1], [1, 1])
        h = ops.relu(h)
        if i < 2:
            h = ops.max_pool(h, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2]).output(0)
    h = ops.reduce_mean(h, ops.constant(np.array([2, 3], np.int64)), keep_dims=False)
    w = ops.constant(rng.standard_normal((32, 10)).astype(np.float32) * 0.1)
    h = ops.softmax(ops.matmul(h, w, False, False), 1)
    return ov.Model([h], [x], "cnn")


def block():
    seq, dim, heads = 64, 128, 4
    rng = np.random.default_rng(2)
    x = ops.parameter([1, seq, dim], np.float32, name="tokens")

    def dense(h, n_in, n_out):
        w = ops.constant(rng.standard_normal((n_in, n_out)).astype(np.float32) * 0.05)
        b = ops.constant(np.zeros(n_out, np.float32))
        return ops.add(ops.matmul(h, w, False, False), b)

    def norm(h):
        return ops.mvn(h, ops.constant(np.array([2], np.int64)), True, 1e-5, "inside_sqrt")

    def split_heads(h):
        h = ops.reshape(h, ops.constant(np.array([1, seq, heads, dim // heads], np.int64)), False)
        return ops.transpose(h, ops.constant(np.array([0, 2, 1, 3], np.int64)))

    n = norm(x)
    q, k, v = (split_heads(dense(n, dim, dim)) for _ in range(3))
    s = ops.multiply(ops.matmul(q, k, False, True), ops.constant(np.float32(1 / np.sqrt(dim // heads))))
    a = ops.matmul(ops.softmax(s, 3), v, False, False)
    a = ops.reshape(ops.transpose(a, ops.constant(np.array([0, 2, 1, 3], np.int64))),
                    ops.constant(np.array([1, seq, dim], np.int64)), False)
    h = ops.add(x, dense(a, dim, dim))
    f = dense(ops.gelu(dense(norm(h), dim, 4 * dim), "erf"), 4 * dim, dim)
    return ov.Model([ops.add(h, f)], [x], "block")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache-dir", help="OpenVINO's own model cache (CACHE_DIR)")
    ap.add_argument("--export", help="write each compiled model's export_model() here")
    args = ap.parse_args()
    core = ov.Core()
    if args.cache_dir:
        core.set_property({"CACHE_DIR": args.cache_dir})
    print("device:", core.get_property("GPU", "FULL_DEVICE_NAME"))
    total = 0.0
    for model in (cnn(), block()):
        t0 = time.perf_counter()
        compiled = core.compile_model(model, "GPU")
        dt = time.perf_counter() - t0
        total += dt
        print("compile_model %s %.3f s" % (model.get_friendly_name(), dt))
        if args.export:
            os.makedirs(args.export, exist_ok=True)
            with open(os.path.join(args.export, model.get_friendly_name() + ".blob"), "wb") as f:
                f.write(compiled.export_model().getvalue())
    print("compile_model total %.3f s" % total)


if __name__ == "__main__":
    main()
