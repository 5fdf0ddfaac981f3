// SPDX-License-Identifier: MIT
/*
 * examples/sycl/onednn.c — oneDNN's SYCL build (PyPI `onednn`, libdnnl.so.3
 * linked against libsycl) creating, on its GPU engine, the primitives a
 * transformer and a CNN need, the way PyTorch XPU does on first use: each
 * primitive creation is where oneDNN compiles or generates its GPU kernels.
 *
 *   onednn_sycl [transformer|cnn|sdpa|all]      (default: all)
 *
 * The GPU engine is SYCL's default GPU: run it with
 * ONEAPI_DEVICE_SELECTOR=level_zero:gpu (Intel's 2026 driver in the test
 * bed, simulating an Arc GPU: tests/testbed/run, examples/sycl/run.sh).
 *
 * What it creates (f16 transformer block of BERT-base shape, 128 tokens;
 * f32 ResNet-50 convolutions, batch 1):
 *   transformer  matmul QKV projection (+bias), attention output, FFN up
 *                (+GELU post-op), FFN down; softmax over 12x128x128 scores;
 *                layer normalization with scale and shift;
 *   sdpa         scaled dot-product attention through oneDNN's graph API
 *                (MatMul, Divide, Add mask, SoftMax, MatMul: oneDNN fuses it
 *                into one SDPA partition on GPUs);
 *   cnn          5 convolutions (7x7/2 stem, 1x1, 3x3, 3x3/2, 1x1 expand)
 *                with fused ReLU, formats chosen by oneDNN (`any`).
 * Nothing is executed: creation is what costs the first run (kernels do
 * not really execute on the simulated GPU anyway).
 *
 * Prints one line per primitive ("primitive NAME impl=IMPL S s"), a last
 * line "primitives: N created in S s", and which compiler-facing libraries
 * the process loaded.  Exit status 0 when every primitive was created,
 * 1 with one line naming the failing call otherwise.
 *
 * Built only inside the test bed, against the wheel's library and the C API
 * headers of tests/testbed/sycl-env.sh (make onednn-sycl: Makefile).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_graph.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Any failing oneDNN call ends the program: it is an example, not a host. */
#define OK(call)                                                             \
	do {                                                                 \
		dnnl_status_t st_ = (call);                                  \
		if (st_ != dnnl_success) {                                   \
			fprintf(stderr, "onednn_sycl: %s failed: status %d\n", \
			        #call, (int)st_);                            \
			exit(1);                                             \
		}                                                            \
	} while (0)

static dnnl_engine_t engine;
static int n_created;
static double t_created;

static dnnl_memory_desc_t md(int ndims, const dnnl_dims_t dims, dnnl_data_type_t dt,
                             dnnl_format_tag_t tag)
{
	dnnl_memory_desc_t m;
	OK(dnnl_memory_desc_create_with_tag(&m, ndims, dims, dt, tag));
	return m;
}

/* Creates the primitive of PD (oneDNN's kernels are made here), prints its
 * implementation and the time since T0 (descriptor creation included). */
static void create(const char *name, dnnl_primitive_desc_t pd, double t0)
{
	dnnl_primitive_t p;
	const char *impl = "?";
	OK(dnnl_primitive_create(&p, pd));
	double dt = now() - t0;
	dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
	printf("primitive %-22s impl=%-28s %.4f s\n", name, impl, dt);
	fflush(stdout);
	n_created++;
	t_created += dt;
	OK(dnnl_primitive_destroy(p));
	OK(dnnl_primitive_desc_destroy(pd));
}

/* matmul [M x K] x [K x N] (+ bias [1 x N]) in f16, with an optional
 * eltwise post-op (alg 0: none). */
static void matmul(const char *name, dnnl_dim_t m, dnnl_dim_t k, dnnl_dim_t n, int bias,
                   dnnl_alg_kind_t post)
{
	double t0 = now();
	dnnl_dims_t ds = {m, k}, dw = {k, n}, dd = {m, n}, db = {1, n};
	dnnl_memory_desc_t src = md(2, ds, dnnl_f16, dnnl_ab);
	dnnl_memory_desc_t wei = md(2, dw, dnnl_f16, dnnl_format_tag_any);
	dnnl_memory_desc_t dst = md(2, dd, dnnl_f16, dnnl_ab);
	dnnl_memory_desc_t b = bias ? md(2, db, dnnl_f16, dnnl_ab) : NULL;
	dnnl_primitive_attr_t attr;
	dnnl_post_ops_t po;
	dnnl_primitive_desc_t pd;
	OK(dnnl_primitive_attr_create(&attr));
	if (post) {
		OK(dnnl_post_ops_create(&po));
		OK(dnnl_post_ops_append_eltwise(po, post, 0.f, 0.f));
		OK(dnnl_primitive_attr_set_post_ops(attr, po));
		OK(dnnl_post_ops_destroy(po));
	}
	OK(dnnl_matmul_primitive_desc_create(&pd, engine, src, wei, b, dst, attr));
	create(name, pd, t0);
	OK(dnnl_primitive_attr_destroy(attr));
	dnnl_memory_desc_destroy(src);
	dnnl_memory_desc_destroy(wei);
	dnnl_memory_desc_destroy(dst);
	if (b)
		dnnl_memory_desc_destroy(b);
}

static void transformer(void)
{
	matmul("matmul_qkv", 128, 768, 3 * 768, 1, 0);
	matmul("matmul_attn_out", 128, 768, 768, 1, 0);
	matmul("matmul_ffn_up_gelu", 128, 768, 3072, 1, dnnl_eltwise_gelu_erf);
	matmul("matmul_ffn_down", 128, 3072, 768, 1, 0);

	double t0 = now();
	dnnl_dims_t dsc = {12, 128, 128};
	dnnl_memory_desc_t sc = md(3, dsc, dnnl_f16, dnnl_abc);
	dnnl_primitive_desc_t pd;
	OK(dnnl_softmax_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
	                                              dnnl_softmax_accurate, sc, sc, 2, NULL));
	create("softmax", pd, t0);
	dnnl_memory_desc_destroy(sc);

	t0 = now();
	dnnl_dims_t dln = {128, 768};
	dnnl_memory_desc_t ln = md(2, dln, dnnl_f16, dnnl_ab);
	OK(dnnl_layer_normalization_forward_primitive_desc_create(
		&pd, engine, dnnl_forward_inference, ln, ln, NULL, 1e-5f,
		dnnl_use_scale | dnnl_use_shift, NULL));
	create("layer_norm", pd, t0);
	dnnl_memory_desc_destroy(ln);
}

/* One convolution of a ResNet-50, f32, batch 1, with a fused ReLU. */
static void conv(const char *name, dnnl_dim_t ic, dnnl_dim_t oc, dnnl_dim_t hw, dnnl_dim_t kh,
                 dnnl_dim_t stride)
{
	double t0 = now();
	dnnl_dim_t pad = kh / 2, ohw = (hw + 2 * pad - kh) / stride + 1;
	dnnl_dims_t ds = {1, ic, hw, hw}, dw = {oc, ic, kh, kh}, dd = {1, oc, ohw, ohw}, db = {oc};
	dnnl_dims_t strides = {stride, stride}, dil = {0, 0}, pads = {pad, pad};
	dnnl_memory_desc_t src = md(4, ds, dnnl_f32, dnnl_format_tag_any);
	dnnl_memory_desc_t wei = md(4, dw, dnnl_f32, dnnl_format_tag_any);
	dnnl_memory_desc_t dst = md(4, dd, dnnl_f32, dnnl_format_tag_any);
	dnnl_memory_desc_t b = md(1, db, dnnl_f32, dnnl_a);
	dnnl_primitive_attr_t attr;
	dnnl_post_ops_t po;
	dnnl_primitive_desc_t pd;
	OK(dnnl_primitive_attr_create(&attr));
	OK(dnnl_post_ops_create(&po));
	OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
	OK(dnnl_primitive_attr_set_post_ops(attr, po));
	OK(dnnl_post_ops_destroy(po));
	OK(dnnl_convolution_forward_primitive_desc_create(
		&pd, engine, dnnl_forward_inference, dnnl_convolution_direct, src, wei, b, dst,
		strides, dil, pads, pads, attr));
	create(name, pd, t0);
	OK(dnnl_primitive_attr_destroy(attr));
	dnnl_memory_desc_destroy(src);
	dnnl_memory_desc_destroy(wei);
	dnnl_memory_desc_destroy(dst);
	dnnl_memory_desc_destroy(b);
}

static void cnn(void)
{
	conv("conv_7x7s2_3_64", 3, 64, 224, 7, 2);
	conv("conv_1x1_64_256", 64, 256, 56, 1, 1);
	conv("conv_3x3_64_64", 64, 64, 56, 3, 1);
	conv("conv_3x3s2_128_128", 128, 128, 56, 3, 2);
	conv("conv_1x1_512_2048", 512, 2048, 7, 1, 1);
}

/* A logical tensor of the graph API: f16, plain strides, DIMS. */
static dnnl_graph_logical_tensor_t lt(size_t id, int ndims, const dnnl_dims_t dims)
{
	dnnl_graph_logical_tensor_t t;
	OK(dnnl_graph_logical_tensor_init_with_dims(&t, id, dnnl_f16, ndims, dims,
	                                            dnnl_graph_layout_type_strided,
	                                            dnnl_graph_tensor_property_undef));
	return t;
}

static dnnl_graph_op_t op(size_t id, dnnl_graph_op_kind_t kind, const char *name,
                          const dnnl_graph_logical_tensor_t *a,
                          const dnnl_graph_logical_tensor_t *b,
                          const dnnl_graph_logical_tensor_t *out)
{
	dnnl_graph_op_t o;
	OK(dnnl_graph_op_create(&o, id, kind, name));
	OK(dnnl_graph_op_add_input(o, a));
	if (b)
		OK(dnnl_graph_op_add_input(o, b));
	OK(dnnl_graph_op_add_output(o, out));
	return o;
}

/* Scaled dot-product attention, 12 heads of 64, 128 tokens, f16, as
 * PyTorch's scaled_dot_product_attention hands it to oneDNN's graph API. */
static void sdpa(void)
{
	double t0 = now();
	dnnl_dims_t dqkv = {1, 12, 128, 64}, dscore = {1, 12, 128, 128}, dscale = {1},
		    dmask = {1, 1, 1, 128};
	dnnl_graph_logical_tensor_t q = lt(0, 4, dqkv), k = lt(1, 4, dqkv), v = lt(2, 4, dqkv),
				    s = lt(3, 4, dscore), scale = lt(4, 1, dscale),
				    s2 = lt(5, 4, dscore), mask = lt(6, 4, dmask),
				    s3 = lt(7, 4, dscore), p = lt(8, 4, dscore), o = lt(9, 4, dqkv);
	uint8_t yes = 1;
	int64_t axis = -1;
	dnnl_graph_graph_t g;
	dnnl_graph_op_t ops[5];
	OK(dnnl_graph_graph_create(&g, dnnl_gpu));
	ops[0] = op(0, dnnl_graph_op_matmul, "qk", &q, &k, &s);
	OK(dnnl_graph_op_set_attr_bool(ops[0], dnnl_graph_op_attr_transpose_b, &yes, 1));
	ops[1] = op(1, dnnl_graph_op_divide, "scale", &s, &scale, &s2);
	ops[2] = op(2, dnnl_graph_op_add, "mask", &s2, &mask, &s3);
	ops[3] = op(3, dnnl_graph_op_softmax, "softmax", &s3, NULL, &p);
	OK(dnnl_graph_op_set_attr_s64(ops[3], dnnl_graph_op_attr_axis, &axis, 1));
	ops[4] = op(4, dnnl_graph_op_matmul, "pv", &p, &v, &o);
	for (int i = 0; i < 5; i++)
		OK(dnnl_graph_add_op(g, ops[i]));
	OK(dnnl_graph_graph_finalize(g));
	OK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
	size_t n = 0;
	OK(dnnl_graph_graph_get_partition_num(g, &n));
	dnnl_graph_partition_t *parts = calloc(n ? n : 1, sizeof *parts);
	if (!parts)
		exit(1);
	OK(dnnl_graph_graph_get_partitions(g, n, parts));
	for (size_t i = 0; i < n; i++) {
		uint8_t supported = 0;
		size_t nin = 0, nout = 0, nops = 0;
		OK(dnnl_graph_partition_is_supported(parts[i], &supported));
		OK(dnnl_graph_partition_get_op_num(parts[i], &nops));
		if (!supported) {
			printf("sdpa: partition %zu (%zu ops) not supported on this engine\n", i, nops);
			continue;
		}
		OK(dnnl_graph_partition_get_input_ports_num(parts[i], &nin));
		OK(dnnl_graph_partition_get_output_ports_num(parts[i], &nout));
		dnnl_graph_logical_tensor_t *ins = calloc(nin + nout, sizeof *ins);
		const dnnl_graph_logical_tensor_t **pins = calloc(nin + nout, sizeof *pins);
		if (!ins || !pins)
			exit(1);
		OK(dnnl_graph_partition_get_input_ports(parts[i], nin, ins));
		OK(dnnl_graph_partition_get_output_ports(parts[i], nout, ins + nin));
		for (size_t j = 0; j < nin + nout; j++)
			pins[j] = &ins[j];
		dnnl_graph_compiled_partition_t cp;
		OK(dnnl_graph_compiled_partition_create(&cp, parts[i]));
		OK(dnnl_graph_partition_compile(parts[i], cp, nin, pins, nout, pins + nin, engine));
		double dt = now() - t0;
		printf("primitive %-22s impl=%-28s %.4f s\n",
		       nops == 5 ? "sdpa" : "sdpa_part", "graph partition", dt);
		printf("sdpa: partition %zu of %zu: %zu ops fused\n", i, n, nops);
		fflush(stdout);
		n_created++;
		t_created += dt;
		t0 = now();
		OK(dnnl_graph_compiled_partition_destroy(cp));
		free(ins);
		free(pins);
	}
	for (size_t i = 0; i < n; i++)
		OK(dnnl_graph_partition_destroy(parts[i]));
	free(parts);
	for (int i = 0; i < 5; i++)
		OK(dnnl_graph_op_destroy(ops[i]));
	OK(dnnl_graph_graph_destroy(g));
}

/* Which libraries that reach a GPU compiler the process has loaded (from
 * /proc/self/maps): the doors a compile can take. */
static void loaded(void)
{
	static const char *const names[] = {"libOpenCL.so", "libze_loader.so", "libze_intel_gpu.so",
	                                    "libigdrcl.so", "libocloc", "libigc.so", "libsycl-jit",
	                                    "libjitcache.so"};
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	printf("loaded:");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const char *path = NULL;
		rewind(f);
		while (!path && fgets(line, sizeof line, f)) {
			char *p = strchr(line, '/');
			if (p && strstr(p, names[i]))
				path = p;
		}
		if (path)
			printf(" %s", names[i]);
	}
	printf("\n");
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	int all = !strcmp(what, "all");
	if (!all && strcmp(what, "transformer") && strcmp(what, "cnn") && strcmp(what, "sdpa")) {
		fprintf(stderr, "usage: onednn_sycl [transformer|cnn|sdpa|all]\n");
		return 2;
	}
	const dnnl_version_t *v = dnnl_version();
	double t0 = now();
	OK(dnnl_engine_create(&engine, dnnl_gpu, 0));
	printf("onednn: %d.%d.%d, GPU runtime %s, engine created in %.3f s\n", v->major, v->minor,
	       v->patch, v->gpu_runtime == DNNL_RUNTIME_SYCL ? "SYCL" : "not SYCL", now() - t0);
	fflush(stdout);
	if (all || !strcmp(what, "transformer"))
		transformer();
	if (all || !strcmp(what, "sdpa"))
		sdpa();
	if (all || !strcmp(what, "cnn"))
		cnn();
	printf("primitives: %d created in %.3f s\n", n_created, t_created);
	loaded();
	OK(dnnl_engine_destroy(engine));
	return 0;
}
