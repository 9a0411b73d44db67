/* ktt_vector_add_ref.c: the independent reference for KTT's KernelTuningCudaScript
 * (vectorAddition): result[i] = a[i] + b[i] + scalar, for the spec's 1,048,576 elements. */
void ktt_vector_add_ref(const float *a, const float *b, float *result, float scalar)
{
	for (long i = 0; i < 1048576; i++)
		result[i] = a[i] + b[i] + scalar;
}
