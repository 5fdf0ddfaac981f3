#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An unmodified SYCL workload for jitcache: Intel's SYCL runtime (libsycl +
Unified Runtime) driven through the dpctl and dpnp packages from PyPI.

Two parts, both JIT-compiled at run time by the driver:

  program  dpctl builds one program from SPIR-V (dpctl.program.
           create_program_from_spirv) holding N generated kernels, then runs
           each of them.  dpctl itself dlopen()s libOpenCL.so.1 /
           libze_loader.so.1 and calls clCreateProgramWithIL + clBuildProgram
           (OpenCL) or zeModuleCreate (Level Zero) through dlsym'ed pointers.
  dpnp     a few dpnp (NumPy-on-SYCL) operations.  Their kernels are SYCL
           device images (one small SPIR-V module per kernel) that libsycl
           hands to Unified Runtime on first use: urProgramCreateWithIL +
           urProgramBuild -> clCreateProgramWithIL + clBuildProgram, or
           zeModuleCreate.

It prints the time to the first result and to the end, and a checksum of
every output so that runs (cold/warm, with/without jitcache) can be compared.
Where kernels really execute (opencl:cpu, Intel's CPU OpenCL runtime) the
checksum must be identical; on the simulated GPU results are meaningless.

    python workload.py [--part program|dpnp|all] [--kernels N] [--spv FILE]

The device is chosen by SYCL itself (ONEAPI_DEVICE_SELECTOR=opencl:cpu, ...).
SPIR-V for the program part: --spv FILE, or generated here from OpenCL C with
`ocloc` (Debian's intel-opencl-icd) into a temporary directory.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

T0 = time.perf_counter()

import numpy as np  # noqa: E402

import dpctl  # noqa: E402
import dpctl.memory as dpmem  # noqa: E402
import dpctl.program as dpprog  # noqa: E402

N_ELEMS = 256


def kernel_source(n):
    """OpenCL C with n distinct kernels (distinct constants, so the driver
    cannot share work between them).  Each computes out[i] from in[i]."""
    parts = []
    for k in range(n):
        parts.append(f"""
__kernel void k{k}(__global float *out, __global const float *in)
{{
    size_t i = get_global_id(0);
    float x = in[i], y = {float(k) / 8.0:.4f}f;
    #pragma unroll
    for (int j = 0; j < {4 + k % 4}; j++) {{
        y = fma(y, {1.0 + (k % 7) / 64.0:.6f}f, sin(x + (float)j));
        x = x * 0.5f + cos(y) * {(k % 3) + 1}.0f;
    }}
    out[i] = x + sqrt(fabs(y));
}}
""")
    return "".join(parts)


def make_spirv(n):
    """SPIR-V for kernel_source(n), made by ocloc (no device needed)."""
    ocloc = shutil.which("ocloc")
    if not ocloc:
        return None, "ocloc not found (Debian package intel-opencl-icd)"
    d = tempfile.mkdtemp(prefix="jc-sycl-spv.")
    try:
        src = os.path.join(d, "k.cl")
        with open(src, "w") as f:
            f.write(kernel_source(n))
        r = subprocess.run([ocloc, "compile", "-q", "-file", src, "-device", "dg2",
                            "-spv_only", "-output", "k", "-output_no_suffix",
                            "-out_dir", d],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        spv = os.path.join(d, "k.spv")
        if r.returncode != 0 or not os.path.exists(spv):
            return None, "ocloc failed: " + r.stdout.strip()[-500:]
        with open(spv, "rb") as f:
            return f.read(), None
    finally:
        shutil.rmtree(d, ignore_errors=True)


class Result:
    def __init__(self):
        self.h = hashlib.sha256()
        self.first = None

    def add(self, name, arr):
        a = np.ascontiguousarray(arr)
        self.h.update(name.encode())
        self.h.update(str(a.dtype).encode())
        self.h.update(a.tobytes())
        if self.first is None:
            self.first = time.perf_counter()

    def hexdigest(self):
        return self.h.hexdigest()[:16]


def part_program(q, res, spv, n):
    t = time.perf_counter()
    prog = dpprog.create_program_from_spirv(q, spv, "")
    t_build = time.perf_counter() - t
    host_in = np.linspace(0.0, 1.0, N_ELEMS, dtype=np.float32)
    buf_in = dpmem.MemoryUSMDevice(host_in.nbytes, queue=q)
    buf_in.copy_from_host(host_in.view(np.uint8))
    buf_out = dpmem.MemoryUSMDevice(host_in.nbytes, queue=q)
    for k in range(n):
        kern = prog.get_sycl_kernel(f"k{k}")
        q.submit(kern, [buf_out, buf_in], [N_ELEMS])
        out = np.frombuffer(bytearray(buf_out.copy_to_host()), dtype=np.float32)
        res.add(f"k{k}", out)
    return t_build


def part_dpnp(q, res):
    import dpnp  # only this part needs dpnp (and oneMKL)
    x = dpnp.linspace(0.0, 1.0, N_ELEMS, dtype=dpnp.float32, sycl_queue=q)
    ops = [
        ("sin", lambda: dpnp.sin(x)),
        ("exp", lambda: dpnp.exp(x)),
        ("sqrt", lambda: dpnp.sqrt(x)),
        ("axpy", lambda: x * 2.5 + 1.0),
        ("div", lambda: x / (x + 1.0)),
        ("where", lambda: dpnp.where(x > 0.5, x, -x)),
        ("cumsum", lambda: dpnp.cumsum(x)),
        ("sum", lambda: dpnp.sum(x)),
        ("max", lambda: dpnp.max(x)),
        ("argmax", lambda: dpnp.argmax(x)),
        ("sort", lambda: dpnp.sort(-x)),
        ("reshape-T", lambda: dpnp.reshape(x, (16, 16)).T.copy()),
        ("int32", lambda: (x * 100).astype(dpnp.int32)),
    ]
    for name, op in ops:
        res.add(name, dpnp.asnumpy(op()))
    return len(ops)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=["program", "dpnp", "all"], default="all")
    ap.add_argument("--kernels", type=int, default=24,
                    help="kernels in the SPIR-V program (default 24)")
    ap.add_argument("--spv", help="SPIR-V file for the program part "
                    "(default: generate with ocloc)")
    a = ap.parse_args()

    spv = None
    if a.part in ("program", "all"):
        if a.spv:
            with open(a.spv, "rb") as f:
                spv = f.read()
        else:
            spv, why = make_spirv(a.kernels)
            if spv is None:
                print(f"error: cannot make SPIR-V: {why}", file=sys.stderr)
                return 2

    t_start = time.perf_counter()  # the clock starts after SPIR-V generation
    q = dpctl.SyclQueue()
    d = q.sycl_device
    print(f"device: {d.backend.name}:{d.device_type.name} {d.name} "
          f"(driver {d.driver_version})", flush=True)
    # The device's name is the host CPU's on a CPU runtime (an AMD one on an
    # AMD host): the platform and vendor say whose runtime it is.
    print(f"platform: {d.sycl_platform.name} (vendor {d.vendor})", flush=True)
    res = Result()
    t_build = None
    if spv is not None:
        t_build = part_program(q, res, spv, a.kernels)
        print(f"program: {a.kernels} kernels, {len(spv)} bytes SPIR-V, "
              f"create_program_from_spirv {t_build:.3f} s", flush=True)
    if a.part in ("dpnp", "all"):
        t = time.perf_counter()
        n_ops = part_dpnp(q, res)
        print(f"dpnp: {n_ops} operations {time.perf_counter() - t:.3f} s", flush=True)
    t_end = time.perf_counter()
    print(f"time to first result: {res.first - t_start:.3f} s")
    print(f"time to last result: {t_end - t_start:.3f} s")
    print(f"process time (incl. imports): {t_end - T0:.3f} s")
    print(f"checksum: {res.hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
