# SPDX-License-Identifier: MIT
"""OpenCV's T-API (cv2.UMat: OpenCL) as its users run it: filters, colour
conversion, resizing, a histogram, edges, morphology and a warp over a
seeded random image.  Not Canny: OpenCV's OpenCL Canny gives another
result from run to run on PoCL, without jitcache (its edge tracking
races).  Prints one sha256 of every result's bytes, and fails if OpenCV does
not run them on OpenCL (OPENCV_OPENCL_DEVICE=:CPU: picks PoCL's device).
OpenCV's own cache of program binaries is OPENCV_OPENCL_CACHE_ENABLE/_DIR.
With --small (tests/integration/cl_pocl_apps_tinygrad_opencv.sh): a smaller
image, the blur, colour conversion, resize and erosion only; `make
bench-apps` runs the whole."""
import hashlib
import sys

import cv2
import numpy as np

cv2.ocl.setUseOpenCL(True)
if not cv2.ocl.useOpenCL():
    sys.exit("opencv_apps: OpenCV has no OpenCL device (OPENCV_OPENCL_DEVICE=:CPU: for PoCL)")
rng = np.random.default_rng(46)
small = "--small" in sys.argv[1:]
img = rng.integers(0, 256, (120, 160, 3) if small else (480, 640, 3), dtype=np.uint8)
u = cv2.UMat(img)
h = hashlib.sha256()
gray = cv2.cvtColor(u, cv2.COLOR_BGR2GRAY)
outs = [cv2.GaussianBlur(u, (7, 7), 1.5), gray,
        cv2.resize(u, (80, 60) if small else (320, 240), interpolation=cv2.INTER_LINEAR)]
if not small:
    outs += [cv2.equalizeHist(gray), cv2.Sobel(u, cv2.CV_16S, 1, 0)]
outs.append(cv2.erode(u, np.ones((5, 5), np.uint8)))
if not small:
    outs += [cv2.medianBlur(u, 5),
             cv2.warpAffine(u, np.float32([[1, 0.1, 5], [0.05, 1, 3]]), (640, 480))]
for out in outs:
    h.update(out.get().tobytes())
print(h.hexdigest())
