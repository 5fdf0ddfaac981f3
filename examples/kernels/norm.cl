// SPDX-License-Identifier: MIT
/*
 * Row-wise softmax, log-softmax, layer normalization and RMS normalization,
 * the normalization kernels of transformer inference.  One work group per
 * row; work-group reductions over local memory.
 */
#define NORM_WG 128

static float wg_sum(float v, __local float *scratch)
{
	const int lid = get_local_id(0);
	scratch[lid] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int s = NORM_WG / 2; s > 0; s >>= 1) {
		if (lid < s)
			scratch[lid] += scratch[lid + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	const float r = scratch[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return r;
}

static float wg_max(float v, __local float *scratch)
{
	const int lid = get_local_id(0);
	scratch[lid] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int s = NORM_WG / 2; s > 0; s >>= 1) {
		if (lid < s)
			scratch[lid] = fmax(scratch[lid], scratch[lid + s]);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	const float r = scratch[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return r;
}

#define SOFTMAX(NAME, LOG, SCALE)                                                 \
__attribute__((reqd_work_group_size(NORM_WG, 1, 1)))                             \
__kernel void NAME(const int cols, __global const float *in, __global float *out)\
{                                                                                 \
	__local float scratch[NORM_WG];                                           \
	const size_t row = get_group_id(0);                                       \
	__global const float *x = in + row * cols;                               \
	__global float *y = out + row * cols;                                    \
	float m = -INFINITY;                                                      \
	for (int c = get_local_id(0); c < cols; c += NORM_WG)                     \
		m = fmax(m, x[c] * SCALE);                                        \
	m = wg_max(m, scratch);                                                   \
	float s = 0.0f;                                                           \
	for (int c = get_local_id(0); c < cols; c += NORM_WG)                     \
		s += exp(x[c] * SCALE - m);                                       \
	s = wg_sum(s, scratch);                                                   \
	for (int c = get_local_id(0); c < cols; c += NORM_WG)                     \
		y[c] = LOG ? (x[c] * SCALE - m - log(s))                          \
			   : exp(x[c] * SCALE - m) / s;                           \
}

SOFTMAX(softmax, 0, 1.0f)
SOFTMAX(log_softmax, 1, 1.0f)
SOFTMAX(softmax_scaled_d64, 0, 0.125f)
SOFTMAX(softmax_scaled_d128, 0, 0.08838834764f)

#define LAYERNORM(NAME, RMS, AFFINE, RESIDUAL)                                    \
__attribute__((reqd_work_group_size(NORM_WG, 1, 1)))                             \
__kernel void NAME(const int cols, const float eps, __global const float *in,   \
		   __global const float *res, __global const float *gamma,      \
		   __global const float *beta, __global float *out)             \
{                                                                                 \
	__local float scratch[NORM_WG];                                           \
	const size_t row = get_group_id(0);                                       \
	__global const float *x = in + row * cols;                               \
	__global const float *r = res + row * cols;                              \
	__global float *y = out + row * cols;                                    \
	float mean = 0.0f;                                                        \
	if (!RMS) {                                                               \
		float s = 0.0f;                                                   \
		for (int c = get_local_id(0); c < cols; c += NORM_WG)             \
			s += x[c] + (RESIDUAL ? r[c] : 0.0f);                     \
		mean = wg_sum(s, scratch) / cols;                                 \
	}                                                                         \
	float v = 0.0f;                                                           \
	for (int c = get_local_id(0); c < cols; c += NORM_WG) {                   \
		const float d = x[c] + (RESIDUAL ? r[c] : 0.0f) - mean;           \
		v += d * d;                                                       \
	}                                                                         \
	const float inv = rsqrt(wg_sum(v, scratch) / cols + eps);                 \
	for (int c = get_local_id(0); c < cols; c += NORM_WG) {                   \
		float t = (x[c] + (RESIDUAL ? r[c] : 0.0f) - mean) * inv;        \
		if (AFFINE)                                                       \
			t = t * gamma[c] + (RMS ? 0.0f : beta[c]);                \
		y[c] = t;                                                         \
	}                                                                         \
}

LAYERNORM(layernorm, 0, 0, 0)
LAYERNORM(layernorm_affine, 0, 1, 0)
LAYERNORM(layernorm_affine_residual, 0, 1, 1)
LAYERNORM(rmsnorm, 1, 0, 0)
LAYERNORM(rmsnorm_affine, 1, 1, 0)
LAYERNORM(rmsnorm_affine_residual, 1, 1, 1)

/* Rotary position embedding on (seq, heads, dim) rows. */
__kernel void rope(const int dim, const float base, __global const int *pos,
		   __global float *q)
{
	const int i = get_global_id(0);
	const size_t row = get_global_id(1);
	if (2 * i >= dim)
		return;
	const float theta = pos[get_global_id(2)] * pow(base, -2.0f * i / dim);
	float c, s = sincos(theta, &c);
	__global float *x = q + (get_global_id(2) * get_global_size(1) + row) * dim;
	const float a = x[2 * i], b = x[2 * i + 1];
	x[2 * i] = a * c - b * s;
	x[2 * i + 1] = a * s + b * c;
}
