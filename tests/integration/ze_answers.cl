// SPDX-License-Identifier: MIT
global int counter = 5;
global float table[64];
__attribute__((reqd_work_group_size(16, 1, 1)))
kernel void fixed(global float *out, global const float *in, float scale)
{
	size_t i = get_global_id(0);
	out[i] = in[i] * scale + table[i % 64] + counter;
}
__attribute__((intel_reqd_sub_group_size(16)))
kernel void subgroups(global int *out)
{
	out[get_global_id(0)] = get_sub_group_local_id();
}
kernel void local_mem(global float *out, local float *scratch, int n, int m, long k, char c, short s)
{
	local float fixed_scratch[256];
	size_t l = get_local_id(0);
	fixed_scratch[l % 256] = out[l];
	scratch[l] = fixed_scratch[(l + 1) % 256] + n + m + k + c + s;
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = scratch[(l + 1) % get_local_size(0)];
}
kernel void private_mem(global float *out, int n)
{
	float p[64];
	for (int i = 0; i < 64; i++)
		p[i] = out[(i * n) % 64];
	out[get_global_id(0)] = p[n % 64];
}
