// SPDX-License-Identifier: MIT
/*
 * Register-blocked GEMM in the style of CLBlast's Xgemm: each work item
 * computes an RM x RN block of C held in registers, with the k-loop over a
 * local-memory tile fully unrolled.  Tuners build one kernel per parameter
 * set; this file carries a typical set.
 */
#define GEMM_REG(NAME, T, TM, TN, TK, RM, RN)                                     \
__attribute__((reqd_work_group_size(TM / RM, TN / RN, 1)))                       \
__kernel void NAME(const int M, const int N, const int K,                        \
		   __global const T *restrict A, __global const T *restrict B,  \
		   __global T *restrict C)                                      \
{                                                                                 \
	__local T As[TK][TM];                                                     \
	__local T Bs[TK][TN];                                                     \
	const int lx = get_local_id(0), ly = get_local_id(1);                     \
	const int threads = (TM / RM) * (TN / RN);                                \
	const int tid = ly * (TM / RM) + lx;                                      \
	const int m0 = get_group_id(0) * TM, n0 = get_group_id(1) * TN;           \
	T acc[RM][RN];                                                            \
	_Pragma("unroll")                                                         \
	for (int i = 0; i < RM; i++)                                              \
		_Pragma("unroll")                                                 \
		for (int j = 0; j < RN; j++)                                      \
			acc[i][j] = (T)0;                                         \
	for (int k0 = 0; k0 < K; k0 += TK) {                                      \
		for (int e = tid; e < TK * TM; e += threads) {                    \
			const int kk = e / TM, mm = e % TM;                       \
			As[kk][mm] = (m0 + mm < M && k0 + kk < K) ?               \
				A[(size_t)(m0 + mm) * K + k0 + kk] : (T)0;        \
		}                                                                 \
		for (int e = tid; e < TK * TN; e += threads) {                    \
			const int kk = e / TN, nn = e % TN;                       \
			Bs[kk][nn] = (n0 + nn < N && k0 + kk < K) ?               \
				B[(size_t)(k0 + kk) * N + n0 + nn] : (T)0;        \
		}                                                                 \
		barrier(CLK_LOCAL_MEM_FENCE);                                     \
		_Pragma("unroll")                                                 \
		for (int k = 0; k < TK; k++) {                                    \
			T a[RM], b[RN];                                           \
			_Pragma("unroll")                                         \
			for (int i = 0; i < RM; i++)                              \
				a[i] = As[k][lx * RM + i];                        \
			_Pragma("unroll")                                         \
			for (int j = 0; j < RN; j++)                              \
				b[j] = Bs[k][ly * RN + j];                        \
			_Pragma("unroll")                                         \
			for (int i = 0; i < RM; i++)                              \
				_Pragma("unroll")                                 \
				for (int j = 0; j < RN; j++)                      \
					acc[i][j] += a[i] * b[j];                 \
		}                                                                 \
		barrier(CLK_LOCAL_MEM_FENCE);                                     \
	}                                                                         \
	_Pragma("unroll")                                                         \
	for (int i = 0; i < RM; i++)                                              \
		_Pragma("unroll")                                                 \
		for (int j = 0; j < RN; j++) {                                    \
			const int m = m0 + lx * RM + i, n = n0 + ly * RN + j;     \
			if (m < M && n < N)                                       \
				C[(size_t)m * N + n] = acc[i][j];                 \
		}                                                                 \
}

GEMM_REG(xgemm_f32_32x32x8_r2x2, float, 32, 32, 8, 2, 2)
GEMM_REG(xgemm_f32_32x32x16_r2x4, float, 32, 32, 16, 2, 4)
GEMM_REG(xgemm_f32_64x32x8_r4x2, float, 64, 32, 8, 4, 2)
GEMM_REG(xgemm_f32_64x64x8_r4x4, float, 64, 64, 8, 4, 4)
GEMM_REG(xgemm_f32_64x64x16_r4x4, float, 64, 64, 16, 4, 4)
GEMM_REG(xgemm_f32_64x64x16_r8x4, float, 64, 64, 16, 8, 4)
GEMM_REG(xgemm_f32_64x64x8_r8x8, float, 64, 64, 8, 8, 8)
GEMM_REG(xgemm_f32_128x64x8_r8x4, float, 128, 64, 8, 8, 4)
GEMM_REG(xgemm_f32_128x128x8_r8x8, float, 128, 128, 8, 8, 8)
GEMM_REG(xgemm_f32_32x64x32_r2x4, float, 32, 64, 32, 2, 4)
GEMM_REG(xgemm_i32_32x32x8_r2x2, int, 32, 32, 8, 2, 2)
GEMM_REG(xgemm_i32_64x64x8_r4x4, int, 64, 64, 8, 4, 4)
GEMM_REG(xgemm_i32_64x64x16_r8x4, int, 64, 64, 16, 8, 4)

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
GEMM_REG(xgemm_f16_32x32x16_r2x2, half, 32, 32, 16, 2, 2)
GEMM_REG(xgemm_f16_64x64x16_r4x4, half, 64, 64, 16, 4, 4)
GEMM_REG(xgemm_f16_64x64x32_r8x4, half, 64, 64, 32, 8, 4)
GEMM_REG(xgemm_f16_128x64x16_r8x8, half, 128, 64, 16, 8, 8)
GEMM_REG(xgemm_f16_128x128x16_r8x8, half, 128, 128, 16, 8, 8)
