// Warp divergence (the execution-model notes): the same arithmetic with branches that split every
// warp (mathKernel1, 3), that follow warp boundaries (mathKernel2, warmingup) or that a precedence
// slip makes uniform (mathKernel4: `itid & 0x01 == 0` is `itid & 0`). Compiled with -G, as the seed
// does, so that the compiler keeps the branches instead of predicating them away.
extern "C" __global__ void mathKernel1(float *c)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	float a = 0.0f, b = 0.0f;
	if (tid % 2 == 0)
		a = 100.0f;
	else
		b = 200.0f;
	c[tid] = a + b;
}

extern "C" __global__ void mathKernel2(float *c)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	float a = 0.0f, b = 0.0f;
	if ((tid / warpSize) % 2 == 0)
		a = 100.0f;
	else
		b = 200.0f;
	c[tid] = a + b;
}

extern "C" __global__ void mathKernel3(float *c)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	float ia = 0.0f, ib = 0.0f;
	bool ipred = (tid % 2 == 0);
	if (ipred)
		ia = 100.0f;
	if (!ipred)
		ib = 200.0f;
	c[tid] = ia + ib;
}

extern "C" __global__ void mathKernel4(float *c)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	float ia = 0.0f, ib = 0.0f;
	int itid = tid >> 5;
	if (itid & 0x01 == 0) // sic: the seed's kernel, as written
		ia = 100.0f;
	else
		ib = 200.0f;
	c[tid] = ia + ib;
}

extern "C" __global__ void warmingup(float *c)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	float ia = 0.0f, ib = 0.0f;
	if ((tid / warpSize) % 2 == 0)
		ia = 100.0f;
	else
		ib = 200.0f;
	c[tid] = ia + ib;
}
