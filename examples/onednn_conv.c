// SPDX-License-Identifier: MIT
/*
 * onednn_conv — creates the convolution primitives of ResNet-50 (batch 1,
 * f32, inference) on oneDNN's GPU engine and prints how long that took.
 * oneDNN generates OpenCL C for each shape and builds it with
 * clCreateProgramWithSource + clBuildProgram: that JIT is what jitcache
 * saves on the second run.
 *
 *   onednn_conv [COUNT]        COUNT primitives (default all 20)
 *   jitcache run -- onednn_conv
 *
 * On a machine without an Intel GPU, Intel's driver can simulate one
 * (README, "Testing without an Intel GPU"): NEOReadDebugKeys=1 SetCommandStreamReceiver=1
 * ProductFamilyOverride=dg2 OverrideMaxWorkgroupSize=256, in a scratch
 * directory (the driver writes .aub files there).
 *
 * Build: cc onednn_conv.c -o onednn_conv -ldnnl   (oneDNN 2.x C API: Debian's libdnnl-dev)
 */
#include <oneapi/dnnl/dnnl.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct conv {
	int ic, oc, hw, k, stride;
};

/* ResNet-50's distinct convolution shapes: input channels, output
 * channels, input height = width, kernel size, stride. */
static const struct conv resnet50[] = {
	{ 3, 64, 224, 7, 2 },
	{ 64, 64, 56, 1, 1 },     { 64, 64, 56, 3, 1 },     { 64, 256, 56, 1, 1 },
	{ 256, 64, 56, 1, 1 },    { 256, 128, 56, 1, 1 },   { 128, 128, 56, 3, 2 },
	{ 128, 512, 28, 1, 1 },   { 256, 512, 56, 1, 2 },   { 512, 128, 28, 1, 1 },
	{ 512, 256, 28, 1, 1 },   { 256, 256, 28, 3, 2 },   { 256, 1024, 14, 1, 1 },
	{ 512, 1024, 28, 1, 2 },  { 1024, 256, 14, 1, 1 },  { 1024, 512, 14, 1, 1 },
	{ 512, 512, 14, 3, 2 },   { 512, 2048, 7, 1, 1 },   { 1024, 2048, 14, 1, 2 },
	{ 2048, 512, 7, 1, 1 },
};

#define CHECK(call)                                                              \
	do {                                                                     \
		dnnl_status_t s_ = (call);                                       \
		if (s_ != dnnl_success) {                                        \
			fprintf(stderr, "onednn_conv: %s failed (%d)\n", #call,  \
				(int)s_);                                        \
			exit(1);                                                 \
		}                                                                \
	} while (0)

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static dnnl_primitive_t create_conv(dnnl_engine_t engine, const struct conv *c)
{
	int pad = c->k / 2;
	int ohw = (c->hw + 2 * pad - c->k) / c->stride + 1;
	dnnl_dims_t src_dims = { 1, c->ic, c->hw, c->hw };
	dnnl_dims_t wei_dims = { c->oc, c->ic, c->k, c->k };
	dnnl_dims_t bia_dims = { c->oc };
	dnnl_dims_t dst_dims = { 1, c->oc, ohw, ohw };
	dnnl_dims_t strides = { c->stride, c->stride };
	dnnl_dims_t padding = { pad, pad };
	dnnl_memory_desc_t src, wei, bia, dst;
	CHECK(dnnl_memory_desc_init_by_tag(&src, 4, src_dims, dnnl_f32, dnnl_format_tag_any));
	CHECK(dnnl_memory_desc_init_by_tag(&wei, 4, wei_dims, dnnl_f32, dnnl_format_tag_any));
	CHECK(dnnl_memory_desc_init_by_tag(&bia, 1, bia_dims, dnnl_f32, dnnl_x));
	CHECK(dnnl_memory_desc_init_by_tag(&dst, 4, dst_dims, dnnl_f32, dnnl_format_tag_any));
	dnnl_convolution_desc_t desc;
	CHECK(dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference,
						 dnnl_convolution_direct, &src, &wei, &bia,
						 &dst, strides, padding, padding));
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t prim;
	CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, engine, NULL));
	CHECK(dnnl_primitive_create(&prim, pd));
	CHECK(dnnl_primitive_desc_destroy(pd));
	return prim;
}

int main(int argc, char **argv)
{
	size_t total = sizeof resnet50 / sizeof *resnet50;
	size_t count = argc > 1 ? (size_t)atoi(argv[1]) : total;
	if (count == 0 || count > total) {
		fprintf(stderr, "usage: onednn_conv [COUNT]   (1..%zu)\n", total);
		return 2;
	}
	if (dnnl_engine_get_count(dnnl_gpu) == 0) {
		fprintf(stderr, "onednn_conv: oneDNN sees no GPU\n");
		return 1;
	}
	dnnl_engine_t engine;
	CHECK(dnnl_engine_create(&engine, dnnl_gpu, 0));
	/* The engine itself builds a few service kernels: time only the convolutions. */
	dnnl_primitive_t prims[sizeof resnet50 / sizeof *resnet50];
	double start = now();
	for (size_t i = 0; i < count; i++)
		prims[i] = create_conv(engine, &resnet50[i]);
	double seconds = now() - start;
	printf("created %zu convolution primitives in %.3f s\n", count, seconds);
	for (size_t i = 0; i < count; i++)
		dnnl_primitive_destroy(prims[i]);
	dnnl_engine_destroy(engine);
	return 0;
}
