# SPDX-License-Identifier: MIT
# bench/pyopencl_apps.py - pyopencl's clrandom, reductions, scans and radix sort on
# seeded random inputs (bench/apps.sh): prints one hash of every result.
import hashlib, sys
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.clrandom as clr
from pyopencl.reduction import ReductionKernel
from pyopencl.scan import InclusiveScanKernel, ExclusiveScanKernel
from pyopencl.algorithm import RadixSort
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
h = hashlib.sha256()
rng = np.random.default_rng(46)
def out(a): h.update(np.ascontiguousarray(a).tobytes())
for dt in (np.float32, np.int32):
    g = clr.PhiloxGenerator(ctx, seed=46)
    out(g.uniform(q, 1000, dt, a=0, b=100).get())
for dt in (np.float32, np.int32, np.float64):
    a = cla.to_device(q, (rng.random(5000) * 100).astype(dt))
    out(cla.sum(a).get()); out(cla.max(a).get()); out(cla.min(a).get()); out(cla.dot(a, a).get())
rk = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
                     arguments="__global float *x, __global float *y")
x = cla.to_device(q, rng.random(3000).astype(np.float32))
out(rk(x, x).get())
for dt in (np.int32, np.int64):
    a = cla.to_device(q, rng.integers(0, 100, 4000).astype(dt))
    out(InclusiveScanKernel(ctx, dt, "a+b", "0")(a.copy()).get())
    out(ExclusiveScanKernel(ctx, dt, "a+b", "0")(a.copy()).get())
sort = RadixSort(ctx, "int *ary", key_expr="ary[i]", sort_arg_names=["ary"])
a = cla.to_device(q, rng.integers(0, 2**20, 3000).astype(np.int32))
(s,), ev = sort(a, key_bits=20)
out(s.get())
print(h.hexdigest())
