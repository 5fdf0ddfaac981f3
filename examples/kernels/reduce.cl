// SPDX-License-Identifier: MIT
/*
 * Work-group tree reductions (sum, max, min, sum of squares) and inclusive /
 * exclusive prefix scans over local memory, one kernel per operation, type
 * and work-group size.
 */
#define REDUCE(NAME, T, WG, IDENTITY, OP)                                         \
__attribute__((reqd_work_group_size(WG, 1, 1)))                                  \
__kernel void NAME(const int n, __global const T *in, __global T *partial)      \
{                                                                                 \
	__local T scratch[WG];                                                    \
	const int lid = get_local_id(0);                                          \
	T acc = IDENTITY;                                                         \
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) {         \
		const T b = in[i];                                                \
		const T a = acc;                                                  \
		acc = OP;                                                         \
	}                                                                         \
	scratch[lid] = acc;                                                       \
	barrier(CLK_LOCAL_MEM_FENCE);                                             \
	for (int s = WG / 2; s > 0; s >>= 1) {                                    \
		if (lid < s) {                                                    \
			const T a = scratch[lid];                                 \
			const T b = scratch[lid + s];                             \
			scratch[lid] = OP;                                        \
		}                                                                 \
		barrier(CLK_LOCAL_MEM_FENCE);                                     \
	}                                                                         \
	if (lid == 0)                                                             \
		partial[get_group_id(0)] = scratch[0];                            \
}

REDUCE(reduce_sum_f32_64, float, 64, 0.0f, a + b)
REDUCE(reduce_sum_f32_128, float, 128, 0.0f, a + b)
REDUCE(reduce_sum_f32_256, float, 256, 0.0f, a + b)
REDUCE(reduce_max_f32_128, float, 128, -INFINITY, fmax(a, b))
REDUCE(reduce_max_f32_256, float, 256, -INFINITY, fmax(a, b))
REDUCE(reduce_min_f32_128, float, 128, INFINITY, fmin(a, b))
REDUCE(reduce_min_f32_256, float, 256, INFINITY, fmin(a, b))
REDUCE(reduce_sum_i32_128, int, 128, 0, a + b)
REDUCE(reduce_sum_i32_256, int, 256, 0, a + b)
REDUCE(reduce_max_i32_256, int, 256, INT_MIN, max(a, b))
REDUCE(reduce_sum_u32_256, uint, 256, 0u, a + b)

#define SCAN(NAME, T, WG, INCLUSIVE)                                              \
__attribute__((reqd_work_group_size(WG, 1, 1)))                                  \
__kernel void NAME(const int n, __global const T *in, __global T *out,          \
		   __global T *block_sums)                                       \
{                                                                                 \
	__local T buf[2][WG];                                                     \
	const int lid = get_local_id(0);                                          \
	const int gid = get_global_id(0);                                         \
	int src = 0;                                                              \
	buf[0][lid] = gid < n ? in[gid] : (T)0;                                  \
	barrier(CLK_LOCAL_MEM_FENCE);                                             \
	for (int off = 1; off < WG; off <<= 1) {                                  \
		const int dst = 1 - src;                                          \
		buf[dst][lid] = buf[src][lid] +                                   \
				(lid >= off ? buf[src][lid - off] : (T)0);        \
		barrier(CLK_LOCAL_MEM_FENCE);                                     \
		src = dst;                                                        \
	}                                                                         \
	if (gid < n)                                                              \
		out[gid] = INCLUSIVE ? buf[src][lid] :                            \
			   (lid ? buf[src][lid - 1] : (T)0);                      \
	if (lid == WG - 1)                                                        \
		block_sums[get_group_id(0)] = buf[src][lid];                      \
}

SCAN(scan_incl_f32_128, float, 128, 1)
SCAN(scan_incl_f32_256, float, 256, 1)
SCAN(scan_excl_f32_256, float, 256, 0)
SCAN(scan_incl_i32_128, int, 128, 1)
SCAN(scan_incl_i32_256, int, 256, 1)
SCAN(scan_excl_i32_256, int, 256, 0)
SCAN(scan_excl_u32_256, uint, 256, 0)

/* Adds each block's total to the next blocks (second pass of a scan). */
__kernel void scan_add_block_sums_f32(const int n, __global const float *sums,
				      __global float *out)
{
	const int gid = get_global_id(0);
	const int g = get_group_id(0);
	if (gid < n && g > 0)
		out[gid] += sums[g - 1];
}
