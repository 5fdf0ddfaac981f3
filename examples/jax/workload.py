# SPDX-License-Identifier: MIT
"""JAX on Intel's OpenXLA plugin, as its users run it: jitted steps of a
small model on the plugin's `sycl` device, unmodified, for jitcache.

Three jitted functions, each at two shapes (so six XLA compilations, whose
kernels the plugin hands to the driver as SPIR-V through zeModuleCreate):
  mlp     forward pass of a 3-layer MLP (matmul, bias, gelu);
  grad    loss and gradient of that MLP (jax.value_and_grad);
  attn    one attention block (q k^T / sqrt(d), softmax, @ v).
The first call of each compiles it (XLA, then the driver's JIT) and runs it.

Prints one line per step ("step NAME SHAPE: first call X s"), then for each
output its shape, dtype and a checksum of its values ("out NAME SHAPE ...").
On a simulated GPU (tests/testbed: NEO simulating an Arc) kernels do not
really execute, so only shapes and dtypes are meaningful there; on JAX's
CPU device (--device cpu) the values are, and a run under jitcache must
print the same checksums as one without.

  python workload.py [--device sycl|cpu] [--dump FILE.json]
Environment (the test bed): LD_LIBRARY_PATH=<venv>/lib for the oneAPI wheels.
"""
import argparse
import hashlib
import json
import sys
import time

T0 = time.perf_counter()
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

SHAPES = ((8, 64, 16), (32, 128, 64))  # (batch, width, sequence)


def init(width):
    rng = np.random.default_rng(width)
    return [(rng.standard_normal((width, width), dtype=np.float32) / np.sqrt(width),
             rng.standard_normal((width,), dtype=np.float32) * 0.1) for _ in range(3)]


def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.gelu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x, y):
    return jnp.mean((mlp(params, x) - y) ** 2)


def attention(q, k, v):
    s = q @ k.T / jnp.sqrt(jnp.float32(q.shape[-1]))
    return jax.nn.softmax(s, axis=-1) @ v


def checksum(a):
    a = np.asarray(a)
    return hashlib.sha256(a.tobytes()).hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="sycl", help="JAX platform: sycl (the plugin) or cpu")
    ap.add_argument("--dump", help="write the outputs' shapes, dtypes and checksums as JSON")
    a = ap.parse_args()
    try:
        dev = jax.devices(a.device)[0]
    except RuntimeError as e:
        sys.exit(f"error: no JAX device for platform {a.device!r}: {e}")
    print(f"device: {dev.platform} {dev.device_kind}", flush=True)
    steps = {
        "mlp": jax.jit(mlp),
        "grad": jax.jit(jax.value_and_grad(loss)),
        "attn": jax.jit(attention),
    }
    outs = {}
    t_start = time.perf_counter()
    for batch, width, seq in SHAPES:
        rng = np.random.default_rng(batch)
        params = jax.device_put(init(width), dev)
        x = jax.device_put(rng.standard_normal((batch, width), dtype=np.float32), dev)
        y = jax.device_put(rng.standard_normal((batch, width), dtype=np.float32), dev)
        q, k, v = (jax.device_put(rng.standard_normal((seq, width), dtype=np.float32), dev)
                   for _ in range(3))
        args = {"mlp": (params, x), "grad": (params, x, y), "attn": (q, k, v)}
        for name, fn in steps.items():
            t = time.perf_counter()
            r = jax.block_until_ready(fn(*args[name]))
            print(f"step {name} {batch}x{width}: first call {time.perf_counter() - t:.3f} s",
                  flush=True)
            outs[f"{name} {batch}x{width}"] = [
                {"shape": list(np.shape(leaf)), "dtype": str(leaf.dtype), "sum": checksum(leaf)}
                for leaf in jax.tree_util.tree_leaves(r)]
    t_end = time.perf_counter()
    for key, leaves in outs.items():
        for i, leaf in enumerate(leaves):
            print(f"out {key} [{i}] shape={leaf['shape']} dtype={leaf['dtype']} sum={leaf['sum']}")
    print(f"steps: {t_end - t_start:.3f} s")
    print(f"process time (incl. imports): {t_end - T0:.3f} s")
    if a.dump:
        with open(a.dump, "w") as f:
            json.dump(outs, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
