// SPDX-License-Identifier: MIT
/* The OpenCL C kernel of cl_pocl.sh and remote_cl.sh: SCALE comes from the
 * build options (-DSCALE=...), so that options change the key and the result. */
kernel void compute(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n) {
		float v = in[i];
		out[i] = sin(v) * SCALE + sqrt(fabs(v) + 1.0f) - exp(v * 0.001f) / (v * v + 1.0f);
	}
}
