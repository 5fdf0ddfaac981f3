// SPDX-License-Identifier: MIT
/*
 * Tiled matrix multiply C = alpha * A * B + beta * C (row-major), one kernel
 * per tile shape and element type, as BLAS libraries ship them.  Each work
 * group stages TS x TS tiles of A and B in local memory; each work item
 * accumulates WPT outputs of one column strip.
 */
#define GEMM(NAME, T, TS, WPT)                                                      \
__attribute__((reqd_work_group_size(TS, TS / WPT, 1)))                             \
__kernel void NAME(const int M, const int N, const int K, const T alpha,         \
		   const T beta, __global const T *A, __global const T *B,       \
		   __global T *C)                                               \
{                                                                                 \
	const int RTS = TS / WPT;                                                 \
	const int row = get_local_id(0);                                          \
	const int col = get_local_id(1);                                          \
	const int grow = TS * get_group_id(0) + row;                              \
	const int gcol = TS * get_group_id(1) + col;                              \
	__local T As[TS][TS];                                                     \
	__local T Bs[TS][TS];                                                     \
	T acc[WPT];                                                               \
	for (int w = 0; w < WPT; w++)                                             \
		acc[w] = (T)0;                                                    \
	const int tiles = (K + TS - 1) / TS;                                      \
	for (int t = 0; t < tiles; t++) {                                         \
		for (int w = 0; w < WPT; w++) {                                   \
			const int tr = TS * t + row;                              \
			const int tc = TS * t + col + w * RTS;                    \
			As[col + w * RTS][row] = (grow < M && tc < K) ?           \
				A[grow * K + tc] : (T)0;                          \
			Bs[col + w * RTS][row] = (tr < K && gcol + w * RTS < N) ? \
				B[tr * N + gcol + w * RTS] : (T)0;                \
		}                                                                 \
		barrier(CLK_LOCAL_MEM_FENCE);                                     \
		for (int k = 0; k < TS; k++)                                      \
			for (int w = 0; w < WPT; w++)                             \
				acc[w] += As[k][row] * Bs[col + w * RTS][k];      \
		barrier(CLK_LOCAL_MEM_FENCE);                                     \
	}                                                                         \
	for (int w = 0; w < WPT; w++) {                                           \
		const int c = gcol + w * RTS;                                     \
		if (grow < M && c < N)                                            \
			C[grow * N + c] = alpha * acc[w] + beta * C[grow * N + c];\
	}                                                                         \
}

GEMM(sgemm_8x1, float, 8, 1)
GEMM(sgemm_8x2, float, 8, 2)
GEMM(sgemm_8x4, float, 8, 4)
GEMM(sgemm_16x1, float, 16, 1)
GEMM(sgemm_16x2, float, 16, 2)
GEMM(sgemm_16x4, float, 16, 4)
GEMM(sgemm_16x8, float, 16, 8)
GEMM(sgemm_32x4, float, 32, 4)
GEMM(sgemm_32x8, float, 32, 8)
GEMM(igemm_8x2, int, 8, 2)
GEMM(igemm_16x4, int, 16, 4)
GEMM(igemm_16x8, int, 16, 8)

/* Batched GEMV: y[b] = A[b] * x[b], one row per work item. */
#define GEMV(NAME, T, UNROLL)                                                     \
__kernel void NAME(const int rows, const int cols, __global const T *A,         \
		   __global const T *x, __global T *y)                          \
{                                                                                 \
	const int r = get_global_id(0);                                           \
	const int b = get_global_id(1);                                           \
	if (r >= rows)                                                            \
		return;                                                           \
	__global const T *a = A + (size_t)b * rows * cols + (size_t)r * cols;    \
	__global const T *v = x + (size_t)b * cols;                              \
	T sum = (T)0;                                                             \
	int c = 0;                                                                \
	for (; c + UNROLL <= cols; c += UNROLL) {                                 \
		_Pragma("unroll")                                                 \
		for (int u = 0; u < UNROLL; u++)                                  \
			sum += a[c + u] * v[c + u];                               \
	}                                                                         \
	for (; c < cols; c++)                                                     \
		sum += a[c] * v[c];                                               \
	y[(size_t)b * rows + r] = sum;                                            \
}

GEMV(sgemv_u4, float, 4)
GEMV(sgemv_u8, float, 8)
GEMV(sgemv_u16, float, 16)
GEMV(igemv_u8, int, 8)
