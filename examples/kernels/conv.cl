// SPDX-License-Identifier: MIT
/*
 * Direct 2D convolution, NCHW layout, one output pixel per work item, one
 * kernel per filter size and stride (the shapes of ResNet-like networks),
 * plus depthwise and 1x1 variants with a fused bias + activation epilogue.
 */
#define CONV_ACT_NONE(x) (x)
#define CONV_ACT_RELU(x) fmax((x), 0.0f)
#define CONV_ACT_GELU(x) (0.5f * (x) * (1.0f + tanh(0.7978845608f * ((x) + 0.044715f * (x) * (x) * (x)))))

#define CONV2D(NAME, KH, KW, STRIDE, ACT)                                         \
__kernel void NAME(const int C, const int H, const int W, const int K,          \
		   const int OH, const int OW, const int pad,                    \
		   __global const float *in, __global const float *filt,         \
		   __global const float *bias, __global float *out)              \
{                                                                                 \
	const int ox = get_global_id(0);                                          \
	const int oy = get_global_id(1);                                          \
	const int nk = get_global_id(2);                                          \
	const int k = nk % K;                                                     \
	const int n = nk / K;                                                     \
	if (ox >= OW || oy >= OH)                                                 \
		return;                                                           \
	float acc = bias ? bias[k] : 0.0f;                                        \
	for (int c = 0; c < C; c++) {                                             \
		__global const float *src = in + ((size_t)n * C + c) * H * W;    \
		__global const float *f = filt + ((size_t)k * C + c) * KH * KW;  \
		_Pragma("unroll")                                                 \
		for (int ky = 0; ky < KH; ky++) {                                 \
			const int iy = oy * STRIDE - pad + ky;                    \
			if (iy < 0 || iy >= H)                                    \
				continue;                                         \
			_Pragma("unroll")                                         \
			for (int kx = 0; kx < KW; kx++) {                         \
				const int ix = ox * STRIDE - pad + kx;            \
				if (ix >= 0 && ix < W)                            \
					acc += src[iy * W + ix] * f[ky * KW + kx];\
			}                                                         \
		}                                                                 \
	}                                                                         \
	out[(((size_t)n * K + k) * OH + oy) * OW + ox] = ACT(acc);               \
}

CONV2D(conv3x3_s1, 3, 3, 1, CONV_ACT_NONE)
CONV2D(conv3x3_s1_relu, 3, 3, 1, CONV_ACT_RELU)
CONV2D(conv3x3_s2_relu, 3, 3, 2, CONV_ACT_RELU)
CONV2D(conv5x5_s1_relu, 5, 5, 1, CONV_ACT_RELU)
CONV2D(conv5x5_s2, 5, 5, 2, CONV_ACT_NONE)
CONV2D(conv7x7_s2_relu, 7, 7, 2, CONV_ACT_RELU)
CONV2D(conv1x1_s1, 1, 1, 1, CONV_ACT_NONE)
CONV2D(conv1x1_s1_relu, 1, 1, 1, CONV_ACT_RELU)
CONV2D(conv1x1_s1_gelu, 1, 1, 1, CONV_ACT_GELU)
CONV2D(conv1x1_s2, 1, 1, 2, CONV_ACT_NONE)
CONV2D(conv3x3_s1_gelu, 3, 3, 1, CONV_ACT_GELU)
CONV2D(conv1x7_s1_relu, 1, 7, 1, CONV_ACT_RELU)
CONV2D(conv7x1_s1_relu, 7, 1, 1, CONV_ACT_RELU)

/* Depthwise convolution: one filter per channel. */
#define DWCONV(NAME, KS, STRIDE, ACT)                                            \
__kernel void NAME(const int C, const int H, const int W, const int OH,         \
		   const int OW, const int pad, __global const float *in,       \
		   __global const float *filt, __global const float *bias,      \
		   __global float *out)                                         \
{                                                                                 \
	const int ox = get_global_id(0), oy = get_global_id(1);                   \
	const int c = get_global_id(2) % C, n = get_global_id(2) / C;            \
	if (ox >= OW || oy >= OH)                                                 \
		return;                                                           \
	__global const float *src = in + ((size_t)n * C + c) * H * W;            \
	float acc = bias[c];                                                      \
	_Pragma("unroll")                                                         \
	for (int ky = 0; ky < KS; ky++)                                           \
		_Pragma("unroll")                                                 \
		for (int kx = 0; kx < KS; kx++) {                                 \
			const int iy = oy * STRIDE - pad + ky;                    \
			const int ix = ox * STRIDE - pad + kx;                    \
			if (iy >= 0 && iy < H && ix >= 0 && ix < W)               \
				acc += src[iy * W + ix] * filt[(c * KS + ky) * KS + kx]; \
		}                                                                 \
	out[(((size_t)n * C + c) * OH + oy) * OW + ox] = ACT(acc);               \
}

DWCONV(dwconv3x3_s1_relu, 3, 1, CONV_ACT_RELU)
DWCONV(dwconv3x3_s2_relu, 3, 2, CONV_ACT_RELU)
DWCONV(dwconv5x5_s1_relu, 5, 1, CONV_ACT_RELU)
DWCONV(dwconv5x5_s2, 5, 2, CONV_ACT_NONE)
DWCONV(dwconv7x7_s1_gelu, 7, 1, CONV_ACT_GELU)

/* Max and average pooling. */
#define POOL(NAME, KS, STRIDE, INIT, STEP, FINAL)                                 \
__kernel void NAME(const int H, const int W, const int OH, const int OW,        \
		   __global const float *in, __global float *out)                \
{                                                                                 \
	const int ox = get_global_id(0), oy = get_global_id(1);                   \
	const size_t plane = get_global_id(2);                                    \
	if (ox >= OW || oy >= OH)                                                 \
		return;                                                           \
	__global const float *src = in + plane * H * W;                          \
	float acc = INIT;                                                         \
	int n = 0;                                                                \
	for (int ky = 0; ky < KS; ky++)                                           \
		for (int kx = 0; kx < KS; kx++) {                                 \
			const int iy = oy * STRIDE + ky, ix = ox * STRIDE + kx;   \
			if (iy < H && ix < W) {                                   \
				const float v = src[iy * W + ix];                 \
				acc = STEP;                                       \
				n++;                                              \
			}                                                         \
		}                                                                 \
	out[(plane * OH + oy) * OW + ox] = FINAL;                                \
}

POOL(maxpool2x2, 2, 2, -INFINITY, fmax(acc, v), acc)
POOL(maxpool3x3_s2, 3, 2, -INFINITY, fmax(acc, v), acc)
POOL(avgpool2x2, 2, 2, 0.0f, acc + v, acc / (float)max(n, 1))
POOL(avgpool3x3_s2, 3, 2, 0.0f, acc + v, acc / (float)max(n, 1))
