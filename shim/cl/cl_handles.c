// SPDX-License-Identifier: MIT
/*
 * The entry points that take a program or hand one out.  A program built
 * from the cache is two programs in the driver: the application's handle
 * (created, never built) and its shadow (built from the stored binaries).
 * These make the application's handle behave as the one that was built:
 * kernels come from the shadow, what the build produced is asked of the
 * shadow, what the application gave (source, IL, devices, context) of its
 * own handle, and the build log and reference count come from the map.
 */
#include "shim/cl/cl_api.h"
#include "shim/cl/cl_build.h"
#include "shim/cl/cl_pocl.h"
#include "shim/cl/cl_program_map.h"
#include "shim/shim.h"

#include <stdlib.h>
#include <string.h>

JC_EXPORT cl_kernel clCreateKernel(cl_program program, const char *kernel_name,
				   cl_int *errcode_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_OPERATION;
		return NULL;
	}
	if (!jc_enter())
		return cl->real_clCreateKernel(program, kernel_name, errcode_ret);
	if (jc_clmap_deferred(program))
		jc_cl_carry_out(program);
	cl_kernel kernel = cl->real_clCreateKernel(jc_clmap_target(program), kernel_name, errcode_ret);
	jc_clmap_kernels_made(program, &kernel, kernel ? 1 : 0);
	jc_leave();
	return kernel;
}

JC_EXPORT cl_int clCreateKernelsInProgram(cl_program program, cl_uint num_kernels,
					  cl_kernel *kernels, cl_uint *num_kernels_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (!jc_enter())
		return cl->real_clCreateKernelsInProgram(program, num_kernels, kernels, num_kernels_ret);
	cl_uint made = 0;
	if (jc_clmap_deferred(program))
		jc_cl_carry_out(program);
	cl_int err = cl->real_clCreateKernelsInProgram(jc_clmap_target(program), num_kernels, kernels,
						  &made);
	if (err == CL_SUCCESS && kernels)
		jc_clmap_kernels_made(program, kernels, made < num_kernels ? made : num_kernels);
	if (num_kernels_ret)
		*num_kernels_ret = made;
	jc_leave();
	return err;
}

static cl_int program_info(cl_program program, cl_program_info param, size_t size,
			   void *value, size_t *size_ret)
{
	const struct jc_cl_real *cl = jc_cl_real();
	cl_uint refs;
	cl_int answer;
	if (jc_clmap_pending_binaries(program, param, size, value, size_ret, &answer)) {
		if (param == CL_PROGRAM_BINARIES && value && answer == CL_SUCCESS)
			jc_pocl_binary_given(program);
		return answer; /* a pending build's binary, its program not made */
	}
	if (param != CL_PROGRAM_REFERENCE_COUNT && param != CL_PROGRAM_CONTEXT &&
	    param != CL_PROGRAM_NUM_DEVICES && param != CL_PROGRAM_DEVICES &&
	    param != CL_PROGRAM_SOURCE && param != CL_PROGRAM_IL && jc_clmap_deferred(program))
		jc_cl_carry_out(program); /* what the build produced: kernels, binaries, globals */
	cl_program target = jc_clmap_target(program);
	switch (param) {
	case CL_PROGRAM_REFERENCE_COUNT:
		if (jc_clmap_ref_count(program, &refs))
			return jc_cl_answer(&refs, sizeof refs, size, value, size_ret);
		break;
	case CL_PROGRAM_CONTEXT:
	case CL_PROGRAM_NUM_DEVICES:
	case CL_PROGRAM_DEVICES:
	case CL_PROGRAM_SOURCE:
	case CL_PROGRAM_IL:
		target = program;
		break;
	default: /* what the build produced: its program's (made above) */
		break;
	}
	/* PoCL compiles the generic work-group functions of a program whose
	 * binary is asked for: timed, for its entry (cl_pocl.h) */
	int taking = (param == CL_PROGRAM_BINARY_SIZES || param == CL_PROGRAM_BINARIES) &&
		     value && target == program && !jc_pocl_cache_on() &&
		     jc_pocl_packed(program, NULL);
	if (taking)
		jc_pocl_taking(program, 1);
	cl_int err = cl->real_clGetProgramInfo(target, param, size, value, size_ret);
	if (taking)
		jc_pocl_taking(program, 0);
	if (taking && param == CL_PROGRAM_BINARIES && err == CL_SUCCESS)
		jc_cl_binaries_taken(program);
	return err;
}

JC_EXPORT cl_int clGetProgramInfo(cl_program program, cl_program_info param_name,
				  size_t param_value_size, void *param_value,
				  size_t *param_value_size_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (!jc_enter())
		return cl->real_clGetProgramInfo(program, param_name, param_value_size, param_value,
					    param_value_size_ret);
	cl_int err = program_info(program, param_name, param_value_size, param_value,
				  param_value_size_ret);
	jc_leave();
	return err;
}

JC_EXPORT cl_int clGetProgramBuildInfo(cl_program program, cl_device_id device,
				       cl_program_build_info param_name,
				       size_t param_value_size, void *param_value,
				       size_t *param_value_size_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (!jc_enter())
		return cl->real_clGetProgramBuildInfo(program, device, param_name, param_value_size,
						 param_value, param_value_size_ret);
	cl_int err;
	int answered = param_name == CL_PROGRAM_BUILD_LOG
			       ? jc_clmap_build_log(program, device, param_value_size,
						    param_value, param_value_size_ret, &err)
			       : jc_clmap_failed_build_info(program, device, param_name,
							    param_value_size, param_value,
							    param_value_size_ret, &err);
	if (!answered && jc_clmap_deferred(program))
		jc_cl_carry_out(program);
	if (!answered)
		err = cl->real_clGetProgramBuildInfo(jc_clmap_target(program), device, param_name,
						param_value_size, param_value,
						param_value_size_ret);
	jc_leave();
	return err;
}

JC_EXPORT cl_int clRetainProgram(cl_program program)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (!jc_enter())
		return cl->real_clRetainProgram(program);
	cl_int err = jc_clmap_retain(program);
	jc_leave();
	return err;
}

JC_EXPORT cl_int clReleaseProgram(cl_program program)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (!jc_enter())
		return cl->real_clReleaseProgram(program);
	cl_int err = jc_clmap_release(program);
	jc_leave();
	return err;
}

/* A kernel of a program answered from the cache: its attributes as the
 * driver answered them on the miss (PoCL answers none for a program it
 * loaded from binaries). */
static int kernel_attributes(cl_kernel kernel, size_t size, void *value, size_t *size_ret,
			     cl_int *err)
{
	const struct jc_cl_real *cl = jc_cl_real();
	size_t n = 0;
	char *name = NULL;
	int answered = cl->real_clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, NULL, &n) ==
			       CL_SUCCESS && (name = calloc(1, n + 1)) &&
		       cl->real_clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, n, name, NULL) ==
			       CL_SUCCESS &&
		       jc_clmap_kernel_attributes(kernel, name, size, value, size_ret, err);
	free(name);
	return answered;
}

JC_EXPORT cl_int clGetKernelInfo(cl_kernel kernel, cl_kernel_info param_name,
				 size_t param_value_size, void *param_value,
				 size_t *param_value_size_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (param_name == CL_KERNEL_ATTRIBUTES && !jc_clmap_empty() && jc_enter()) {
		cl_int err;
		int answered = kernel_attributes(kernel, param_value_size, param_value,
						 param_value_size_ret, &err);
		jc_leave();
		if (answered)
			return err;
	}
	cl_int err = cl->real_clGetKernelInfo(kernel, param_name, param_value_size, param_value,
					 param_value_size_ret);
	if (err != CL_SUCCESS || param_name != CL_KERNEL_PROGRAM || !param_value ||
	    !jc_enter())
		return err;
	cl_program program;
	memcpy(&program, param_value, sizeof program);
	program = jc_clmap_app_of(program);
	memcpy(param_value, &program, sizeof program);
	jc_leave();
	return err;
}

/* The map counts the application's references to the kernels made
 * through its program handles (cl_program_map.h): a released program's
 * shadow lives while the application holds one of its kernels. */
JC_EXPORT cl_int clRetainKernel(cl_kernel kernel)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (!jc_enter())
		return cl->real_clRetainKernel(kernel);
	cl_int err = jc_clmap_kernel_retain(kernel);
	jc_leave();
	return err;
}

JC_EXPORT cl_int clReleaseKernel(cl_kernel kernel)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (!jc_enter())
		return cl->real_clReleaseKernel(kernel);
	cl_int err = jc_clmap_kernel_release(kernel);
	jc_leave();
	return err;
}

JC_EXPORT cl_kernel clCloneKernel(cl_kernel source_kernel, cl_int *errcode_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl || !cl->real_clCloneKernel) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_OPERATION;
		return NULL;
	}
	if (!jc_enter())
		return cl->real_clCloneKernel(source_kernel, errcode_ret);
	cl_kernel clone = cl->real_clCloneKernel(source_kernel, errcode_ret);
	jc_clmap_kernel_cloned(source_kernel, clone);
	jc_leave();
	return clone;
}

JC_EXPORT cl_int clSetProgramSpecializationConstant(cl_program program, cl_uint spec_id,
						    size_t spec_size, const void *spec_value)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl || !cl->real_clSetProgramSpecializationConstant)
		return CL_INVALID_OPERATION;
	cl_int err = cl->real_clSetProgramSpecializationConstant(program, spec_id, spec_size,
							    spec_value);
	if (err == CL_SUCCESS && jc_enter()) {
		struct jc_cl_program *rec = jc_clmap_find(program);
		if (rec)
			jc_cl_input_spec(&rec->input, spec_id, spec_size, spec_value);
		jc_leave();
	}
	return err;
}

/* PoCL's cache off: a binary naming a directory jitcache gave a program it
 * served is created with a directory of its own (cl_pocl.h); any other
 * binary reaches the driver as given. */
JC_EXPORT cl_program clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
					       const cl_device_id *device_list,
					       const size_t *lengths,
					       const unsigned char **binaries,
					       cl_int *binary_status, cl_int *errcode_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_OPERATION;
		return NULL;
	}
	if (!binaries || !lengths || num_devices == 0 || !jc_enter())
		return cl->real_clCreateProgramWithBinary(context, num_devices, device_list,
							  lengths, binaries, binary_status,
							  errcode_ret);
	unsigned char **copies = calloc(num_devices, sizeof *copies);
	const unsigned char **given = calloc(num_devices, sizeof *given);
	for (cl_uint i = 0; copies && given && i < num_devices; i++) {
		copies[i] = jc_pocl_app_binary(binaries[i], lengths[i]);
		given[i] = copies[i] ? copies[i] : binaries[i];
	}
	cl_program program = cl->real_clCreateProgramWithBinary(
		context, num_devices, device_list, lengths,
		copies && given ? given : binaries, binary_status, errcode_ret);
	for (cl_uint i = 0; program && copies && i < num_devices; i++)
		if (copies[i])
			jc_pocl_dir_copied(binaries[i], copies[i], lengths[i]);
	for (cl_uint i = 0; copies && i < num_devices; i++)
		free(copies[i]);
	free(copies);
	free(given);
	jc_leave();
	return program;
}
