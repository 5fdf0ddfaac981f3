#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""pyopencl_demo — a small pyopencl program: builds an OpenCL program from
source, runs its kernel and checks the result against numpy.

    PYOPENCL_NO_CACHE=1 jitcache run -- python3 examples/pyopencl_demo.py [PLATFORM]

PLATFORM picks the first platform whose name contains it (default
"Portable", i.e. PoCL, where kernels really execute).  pyopencl keeps its
own cache of built programs; PYOPENCL_NO_CACHE=1 turns it off so that every
build reaches the driver, and jitcache.  Prints the build time and
"result ok", or exits with status 1.
"""
import sys
import time

import numpy as np
import pyopencl as cl

SOURCE = """
kernel void saxpy_poly(global float *out, global const float *x,
                       global const float *y, const float a)
{
    size_t i = get_global_id(0);
    float v = x[i];
    out[i] = a * v + y[i] + POLY(v);
}
"""
OPTIONS = ["-DPOLY(v)=((v)*(v)*0.25f-(v))"]


def main():
    want = sys.argv[1] if len(sys.argv) > 1 else "Portable"
    platforms = [p for p in cl.get_platforms() if want in p.name]
    if not platforms:
        print(f"pyopencl_demo: no platform matching '{want}'", file=sys.stderr)
        return 2
    ctx = cl.Context(devices=platforms[0].get_devices()[:1])
    queue = cl.CommandQueue(ctx)

    start = time.monotonic()
    program = cl.Program(ctx, SOURCE).build(options=OPTIONS)
    print(f"build: {time.monotonic() - start:.3f} s")

    n = 100_000
    rng = np.random.default_rng(42)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    a = np.float32(1.5)
    mf = cl.mem_flags
    x_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    y_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=y)
    out_buf = cl.Buffer(ctx, mf.WRITE_ONLY, x.nbytes)
    program.saxpy_poly(queue, (n,), None, out_buf, x_buf, y_buf, a)
    out = np.empty_like(x)
    cl.enqueue_copy(queue, out, out_buf)

    expected = a * x + y + (x * x * np.float32(0.25) - x)
    if not np.allclose(out, expected, rtol=1e-5, atol=1e-5):
        print("result WRONG", file=sys.stderr)
        return 1
    print(f"result ok (checksum {float(np.sum(out, dtype=np.float64)):.6f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
