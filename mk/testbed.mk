# SPDX-License-Identifier: MIT
# mk/testbed.mk — what the full tier and the benchmarks run on besides
# Debian 12's packages: the Debian sid test bed with Intel's 2026 stack
# (tests/testbed/, docs/testing.md), the frameworks installed into it, and
# the Python environments of the host (.venv-*).

# oneDNN's SYCL build and Intel's SYCL runtime, inside the test bed
# (tests/testbed/sycl-env.sh, make testbed-sycl).
ONEDNN_SYCL ?= /opt/jitcache-sycl

# What the modern-driver tests and benchmarks need, built inside the test bed
# (tests/testbed/run make BUILD=build-sid modern-build).
modern-build: lib $(ADMIN_BIN) $(REPLAY_BIN) $(BUILD)/lib/libze_loader.so.1 $(BUILD)/examples/ze_module \
	$(HELP_BIN) $(BUILD)/bench/ze_bench $(BUILD)/examples/libtrace.so \
	$(if $(wildcard $(ONEDNN_SYCL)/include/oneapi/dnnl/dnnl.h),$(BUILD)/examples/onednn_sycl)

testbed: deps-all ## create or update the Debian sid chroot with Intel's 2026 driver (tests/testbed/run CMD runs in it)
	@./tests/testbed/setup.sh

pyopencl-env: ## install pyopencl's PyPI wheel (its own renamed OpenCL loader) and its test files into .venv-pyopencl/
	@./examples/pyopencl/setup.sh

tinygrad-env: ## install tinygrad's PyPI wheel (pinned) into .venv-tinygrad/ (make bench-apps, cl_pocl_apps.sh)
	@./examples/tinygrad/setup.sh

jupyter-env: ## install ipykernel, jupyter_client and pyopencl (pinned wheels) into .venv-jupyter/ (`jitcache enable jupyter`'s test)
	@./examples/jupyter/setup.sh

sycl-env: ## install Intel's SYCL runtime + dpctl/dpnp (pinned wheels) into .venv-sycl/
	@./examples/sycl/setup.sh

openvino-env: ## install OpenVINO's PyPI wheel (GPU plugin, pinned) into .venv-openvino/
	@./examples/openvino/setup.sh

testbed-openvino: testbed ## install OpenVINO's PyPI wheel into the test bed (/opt/jitcache-openvino)
	@./tests/testbed/openvino-env.sh

testbed-jax: testbed ## install JAX 0.5.0 + Intel's OpenXLA plugin (oneAPI 2025.2 wheels, python3.13) into the test bed (/opt/jitcache-jax)
	@./tests/testbed/jax-env.sh

testbed-llama: testbed ## install ipex-llm's llama.cpp and ollama (bigdl-core-cpp, oneAPI 2025.3 wheels) + gguf into the test bed (/opt/jitcache-llama)
	@./tests/testbed/llama-env.sh

testbed-s3: testbed ## install Ceph's radosgw (the S3 server of tests/integration/s3_tier.sh) into the test bed
	@./tests/testbed/s3-env.sh

testbed-sycl: testbed ## install SYCL 2026.2, dpctl/dpnp and oneDNN's SYCL build into the test bed (/opt/jitcache-sycl)
	./tests/testbed/sycl-env.sh
