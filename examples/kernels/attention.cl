// SPDX-License-Identifier: MIT
/*
 * Scaled dot-product attention for transformer inference, one kernel per head
 * dimension: a fused "flash" variant (online softmax, K/V tiles in local
 * memory, causal or full mask) and the separate QK^T / PV steps.
 * Layout: (batch * heads, seq, D), one query row per work item.
 */
#define ATTN_TILE 32

#define FLASH_ATTN(NAME, D, CAUSAL)                                               \
__attribute__((reqd_work_group_size(ATTN_TILE, 1, 1)))                           \
__kernel void NAME(const int seq, const float scale, __global const float *Q,   \
		   __global const float *K, __global const float *V,            \
		   __global float *O)                                           \
{                                                                                 \
	__local float Ks[ATTN_TILE][D];                                           \
	__local float Vs[ATTN_TILE][D];                                           \
	const int qi = get_global_id(0);                                          \
	const size_t bh = get_global_id(1);                                       \
	const int lid = get_local_id(0);                                          \
	__global const float *q = Q + (bh * seq + min(qi, seq - 1)) * D;         \
	float qr[D], o[D];                                                        \
	_Pragma("unroll")                                                         \
	for (int d = 0; d < D; d++) {                                             \
		qr[d] = q[d] * scale;                                             \
		o[d] = 0.0f;                                                      \
	}                                                                         \
	float m = -INFINITY, l = 0.0f;                                            \
	const int last = CAUSAL ? min(seq, (int)(get_group_id(0) + 1) * ATTN_TILE) : seq; \
	for (int t0 = 0; t0 < last; t0 += ATTN_TILE) {                            \
		const int t = t0 + lid;                                           \
		_Pragma("unroll")                                                 \
		for (int d = 0; d < D; d++) {                                     \
			Ks[lid][d] = t < seq ? K[(bh * seq + t) * D + d] : 0.0f;  \
			Vs[lid][d] = t < seq ? V[(bh * seq + t) * D + d] : 0.0f;  \
		}                                                                 \
		barrier(CLK_LOCAL_MEM_FENCE);                                     \
		for (int j = 0; j < ATTN_TILE && t0 + j < seq; j++) {             \
			if (CAUSAL && t0 + j > qi)                                \
				break;                                            \
			float s = 0.0f;                                           \
			_Pragma("unroll")                                         \
			for (int d = 0; d < D; d++)                               \
				s += qr[d] * Ks[j][d];                            \
			const float mn = fmax(m, s);                              \
			const float corr = exp(m - mn), p = exp(s - mn);          \
			l = l * corr + p;                                         \
			_Pragma("unroll")                                         \
			for (int d = 0; d < D; d++)                               \
				o[d] = o[d] * corr + p * Vs[j][d];                \
			m = mn;                                                   \
		}                                                                 \
		barrier(CLK_LOCAL_MEM_FENCE);                                     \
	}                                                                         \
	if (qi < seq) {                                                           \
		_Pragma("unroll")                                                 \
		for (int d = 0; d < D; d++)                                       \
			O[(bh * seq + qi) * D + d] = o[d] / l;                    \
	}                                                                         \
}

FLASH_ATTN(flash_attn_d32, 32, 0)
FLASH_ATTN(flash_attn_d32_causal, 32, 1)
FLASH_ATTN(flash_attn_d64, 64, 0)
FLASH_ATTN(flash_attn_d64_causal, 64, 1)
FLASH_ATTN(flash_attn_d80, 80, 0)
FLASH_ATTN(flash_attn_d96_causal, 96, 1)
FLASH_ATTN(flash_attn_d128, 128, 0)
FLASH_ATTN(flash_attn_d128_causal, 128, 1)

#define QK(NAME, D)                                                               \
__kernel void NAME(const int seq, const float scale, __global const float *Q,   \
		   __global const float *K, __global float *S)                  \
{                                                                                 \
	const int i = get_global_id(0), j = get_global_id(1);                     \
	const size_t bh = get_global_id(2);                                       \
	if (i >= seq || j >= seq)                                                 \
		return;                                                           \
	__global const float *q = Q + (bh * seq + i) * D;                        \
	__global const float *k = K + (bh * seq + j) * D;                        \
	float s = 0.0f;                                                           \
	_Pragma("unroll")                                                         \
	for (int d = 0; d < D; d++)                                               \
		s += q[d] * k[d];                                                 \
	S[(bh * seq + i) * seq + j] = s * scale;                                  \
}

#define PV(NAME, D)                                                               \
__kernel void NAME(const int seq, __global const float *P,                      \
		   __global const float *V, __global float *O)                  \
{                                                                                 \
	const int i = get_global_id(0), d = get_global_id(1);                     \
	const size_t bh = get_global_id(2);                                       \
	if (i >= seq || d >= D)                                                   \
		return;                                                           \
	float acc = 0.0f;                                                         \
	for (int j = 0; j < seq; j++)                                             \
		acc += P[(bh * seq + i) * seq + j] * V[(bh * seq + j) * D + d];   \
	O[(bh * seq + i) * D + d] = acc;                                          \
}

QK(attn_qk_d64, 64)
QK(attn_qk_d128, 128)
PV(attn_pv_d64, 64)
PV(attn_pv_d128, 128)
