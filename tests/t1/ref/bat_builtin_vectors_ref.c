/* Independent reference for BAT's builtin_vectors (tests/t1/published/bat/builtin_vectors.cu):
 * out[i] = lhs[i] + rhs[0], component by component, over N double3 (three doubles each). */
void bat_builtin_vectors_ref(void *lhs, void *rhs, void *out, int N)
{
	const double *l = lhs, *r = rhs;
	double *o = out;
	for (int i = 0; i < N; i++)
		for (int c = 0; c < 3; c++)
			o[3 * i + c] = l[3 * i + c] + r[c];
}
