// A kernel for tests/t1/everything.json: every argument kind the T1 import writes (arrays,
// __constant__ symbols filled by a generator and a constant, a read-write array, scalars). lut is
// Kernel Tuner's MemType Constant: both the __constant__ and the argument lut_arg, the same data.
__constant__ float weights[16];
__constant__ int lut[256];

extern "C" __global__ void everything(float *out, const float *in, const int *lut_arg, float *acc, int nx,
				      unsigned char flag)
{
	int x0 = (blockIdx.x * block_size_x + threadIdx.x) * tile_size_x;
	int y = blockIdx.y * block_size_y + threadIdx.y;
	if (y >= 1024)
		return;
	for (int t = 0; t < tile_size_x; t++) {
		int x = x0 + t;
		if (x >= nx)
			break;
		float v = in[y * nx + x] * weights[x % 16] + lut[x % 256] + lut_arg[x % 256] + (flag ? 1.0f : 0.0f);
		out[y * nx + x] = use_shared ? v : v; // the parameter is a define the kernel may ignore
		if (y == 0)
			acc[x] += v;
	}
}
