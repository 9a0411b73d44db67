// half_fills.cu: copies 16-bit arrays as bits (tests/gpu/half_fills.yaml), so that what the
// outputs are checked against is what the fills (and a scalar) put there.
extern "C" __global__ void half_fills(unsigned short *c_out, const unsigned short *c_in, unsigned short *e_out,
				      const unsigned short *e_in, unsigned short *f_out, const unsigned short *f_in,
				      unsigned short *s_out, unsigned short s, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		c_out[i] = c_in[i];
		e_out[i] = e_in[i];
		f_out[i] = f_in[i];
		s_out[i] = s;
	}
}
