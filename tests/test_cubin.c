/* test_cubin.c: what is known of a binary: the entry point's resources in ptxas's report (real
 * nvcc 13 output), found by its plain or mangled name, and for a linked one (build.rdc) in
 * nvlink's; and the hash of what the GPU executes. */
#include <CUnit/CUnit.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "proc.h"
#include "tests.h"

/* Captured from `nvcc -cubin -arch=sm_90 -Xptxas -v -maxrregcount=24` on a file with an
 * extern "C" kernel and a template instance that spills. */
static const char *log_two_kernels =
	"ptxas info    : Overriding maximum register limit 256 for '_Z2tkILi128EEvPf' with  24 of maxrregcount option\n"
	"ptxas info    : Overriding maximum register limit 256 for 'sumMatrixOnGPU2D' with  24 of maxrregcount option\n"
	"ptxas info    : 0 bytes gmem\n"
	"ptxas info    : Compiling entry function '_Z2tkILi128EEvPf' for 'sm_90'\n"
	"ptxas info    : Function properties for _Z2tkILi128EEvPf\n"
	"    640 bytes stack frame, 520 bytes spill stores, 520 bytes spill loads\n"
	"ptxas info    : Used 24 registers, used 1 barriers, 640 bytes cumulative stack size, 512 bytes smem\n"
	"ptxas info    : Compile time = 43.767 ms\n"
	"ptxas info    : Compiling entry function 'sumMatrixOnGPU2D' for 'sm_90'\n"
	"ptxas info    : Function properties for sumMatrixOnGPU2D\n"
	"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
	"ptxas info    : Used 12 registers, used 0 barriers\n"
	"ptxas info    : Compile time = 2.547 ms\n";

static void test_ptxas_plain_entry(void)
{
	kernel_resources r;
	char *cands;
	CU_ASSERT_EQUAL(ptxas_parse(log_two_kernels, "sumMatrixOnGPU2D", &r, &cands), 0);
	CU_ASSERT_STRING_EQUAL(r.symbol, "sumMatrixOnGPU2D");
	CU_ASSERT_EQUAL(r.registers, 12);
	CU_ASSERT_EQUAL(r.barriers, 0);
	CU_ASSERT_EQUAL(r.spill_stores, 0);
	CU_ASSERT_EQUAL(r.static_smem, 0);
	free(r.symbol);
	free(cands);
}

static void test_ptxas_mangled_entry_with_spills_and_smem(void)
{
	kernel_resources r;
	char *cands;
	CU_ASSERT_EQUAL(ptxas_parse(log_two_kernels, "tk", &r, &cands), 0);
	CU_ASSERT_STRING_EQUAL(r.symbol, "_Z2tkILi128EEvPf");
	CU_ASSERT_EQUAL(r.registers, 24);
	CU_ASSERT_EQUAL(r.barriers, 1);
	CU_ASSERT_EQUAL(r.stack, 640);
	CU_ASSERT_EQUAL(r.spill_stores, 520);
	CU_ASSERT_EQUAL(r.spill_loads, 520);
	CU_ASSERT_EQUAL(r.static_smem, 512);
	free(r.symbol);
	free(cands);
}

static void test_ptxas_missing_entry_lists_the_functions(void)
{
	kernel_resources r;
	char *cands;
	CU_ASSERT_EQUAL(ptxas_parse(log_two_kernels, "sumMatrix", &r, &cands), -1);
	CU_ASSERT_PTR_NULL(r.symbol);
	CU_ASSERT_STRING_EQUAL(cands, "_Z2tkILi128EEvPf, sumMatrixOnGPU2D");
	free(cands);
}

static void test_ptxas_ambiguous_overloads(void)
{
	const char *log = "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'\n"
			  "ptxas info    : Used 8 registers, used 0 barriers\n"
			  "ptxas info    : Compiling entry function '_Z1kPd' for 'sm_90'\n"
			  "ptxas info    : Used 10 registers, used 0 barriers\n";
	kernel_resources r;
	char *cands;
	CU_ASSERT_EQUAL(ptxas_parse(log, "k", &r, &cands), -2);
	CU_ASSERT_STRING_EQUAL(cands, "_Z1kPf, _Z1kPd");
	free(cands);
}

/* build.rdc: `nvcc -cubin -rdc=true -arch=sm_90 -Xptxas -v -maxrregcount=24` on a template kernel
 * that launches itself, then `nvcc -dlink -cubin -arch=sm_90 -Xnvlink -v` of that with the device
 * runtime (one of the runtime's own kernels kept, which the pool drops from its logs). ptxas,
 * compiling a relocatable kernel, reports neither the shared memory nor the stack of the calls
 * into the runtime; nvlink reports what the loaded image has. */
static const char *log_linked =
	"ptxas info    : Overriding maximum register limit 256 for '_Z2tkILi128EEvPf' with  24 of maxrregcount option\n"
	"ptxas info    : 0 bytes gmem\n"
	"ptxas info    : Compiling entry function '_Z2tkILi128EEvPf' for 'sm_90'\n"
	"ptxas info    : Function properties for _Z2tkILi128EEvPf\n"
	"    256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
	"ptxas info    : Used 24 registers, used 1 barriers\n"
	"ptxas info    : Compile time = 20.087 ms\n"
	"nvlink info    : 13181 bytes gmem\n"
	"nvlink info    : Function properties for '__nv_static_52__f4510a67_22_cuda_device_runtime_cu_3ecce0c0_2317245__Z16memset_3d_deviceIjLi0ELi0ELi0EEv12MemsetParamsIT_E':\n"
	"nvlink info    : used 12 registers, used 0 barriers, 0 stack, 0 bytes smem, 608 bytes cmem[0], 0 bytes lmem\n"
	"nvlink info    : Function properties for '_Z2tkILi128EEvPf':\n"
	"nvlink info    : used 24 registers, used 1 barriers, 272 stack, 1536 bytes smem, 536 bytes cmem[0], 0 bytes lmem\n";

/* The linked kernel's registers, barriers, stack and shared memory are nvlink's, the spills
 * ptxas's; without nvlink's report of the entry, ptxas's numbers stand. */
static void test_linked_resources_are_nvlinks(void)
{
	kernel_resources r;
	char *cands;
	CU_ASSERT_EQUAL_FATAL(ptxas_parse(log_linked, "tk", &r, &cands), 0);
	CU_ASSERT_STRING_EQUAL(r.symbol, "_Z2tkILi128EEvPf");
	CU_ASSERT_EQUAL(r.registers, 24);
	CU_ASSERT_EQUAL(r.barriers, 1);
	CU_ASSERT_EQUAL(r.stack, 272);
	CU_ASSERT_EQUAL(r.static_smem, 1536);
	CU_ASSERT_EQUAL(r.spill_stores, 0);
	free(r.symbol);
	free(cands);
	/* the report cut before the entry's lines: only the runtime's kernel, which is not the entry */
	char *cut = strdup(log_linked);
	*strstr(cut, "nvlink info    : Function properties for '_Z2tk") = 0;
	CU_ASSERT_EQUAL_FATAL(ptxas_parse(cut, "tk", &r, &cands), 0);
	CU_ASSERT_EQUAL(r.registers, 24);
	CU_ASSERT_EQUAL(r.stack, 256);
	CU_ASSERT_EQUAL(r.static_smem, 0);
	free(r.symbol);
	free(cands);
	free(cut);
}

/* The kernel of k.cu compiled for sm_90 with these flags into dir/name.cubin; its path. */
static const char *compiled(const char *name, const char *flag)
{
	static char path[4][256];
	static int slot;
	char *p = path[slot++ % 4], *out;
	snprintf(p, 256, "%s/%s.cubin", test_dir, name);
	char src[256];
	snprintf(src, sizeof src, "%s/k.cu", test_dir);
	char *argv[] = {"sh", "-c", "exec \"${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}\" -cubin -arch=sm_90 \"$@\"",
			"sh", (char *)flag, src, "-o", p, NULL};
	int st = proc_capture(argv, 120, &out);
	CU_ASSERT(st == 0);
	free(out);
	return p;
}

/* A register cap above what the kernel uses leaves the code, and so the hash, as it was; other
 * code hashes otherwise; a file that is not a cubin is hashed whole. */
static void test_the_code_hash_ignores_an_unused_register_cap(void)
{
	char src[256];
	snprintf(src, sizeof src, "%s/k.cu", test_dir);
	put_file(src, "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] *= 2.0f; }\n");
	char capped64[17], capped128[17], other[17];
	cubin_code_hash(compiled("k64", "-maxrregcount=64"), capped64);
	cubin_code_hash(compiled("k128", "-maxrregcount=128"), capped128);
	CU_ASSERT_STRING_EQUAL(capped64, capped128);
	put_file(src, "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] *= 3.0f; }\n");
	cubin_code_hash(compiled("k3", "-maxrregcount=64"), other);
	CU_ASSERT_STRING_NOT_EQUAL(capped64, other);
	char plain1[17], plain2[17];
	put_file(src, "not a cubin");
	cubin_code_hash(src, plain1);
	put_file(src, "not a cubin either");
	cubin_code_hash(src, plain2);
	CU_ASSERT_STRING_NOT_EQUAL(plain1, plain2);
	CU_ASSERT_EQUAL(strlen(plain1), 16);
}

/* A kernel's own hash is the same with line info, beside another kernel, renamed (a per-size
 * variant), and with a register cap it does not feel; other with -use_fast_math, or with a
 * __constant__ it reads changed; a kernel the cubin lacks has none. */
static void test_a_kernel_s_own_code_hash(void)
{
	char src[256];
	snprintf(src, sizeof src, "%s/k.cu", test_dir);
	put_file(src, "#ifndef C1\n#define C1 1.0f\n#endif\n__constant__ float c[2] = {C1, 2.0f};\n"
		      "__device__ __noinline__ float g(float x) { return sinf(x) / (x + c[0]); }\n"
		      "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = g(a[threadIdx.x]); }\n"
		      "#ifdef OTHER\nextern \"C\" __global__ void o(float *a) { a[threadIdx.x] = g(2.0f * a[0]); }\n#endif\n");
	char base[17], h[17];
	cubin_kernel_hash(compiled("kb", "-DXX"), "k", base);
	CU_ASSERT_EQUAL_FATAL(strlen(base), 16);
	static const char *const same[][2] = {{"kl", "-lineinfo"}, {"ko", "-DOTHER"}, {"kc", "-maxrregcount=128"}};
	for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
		cubin_kernel_hash(compiled(same[i][0], same[i][1]), "k", h);
		CU_ASSERT_STRING_EQUAL(h, base);
	}
	cubin_kernel_hash(compiled("kv", "-Dk=k_v1"), "k_v1", h);
	CU_ASSERT_STRING_EQUAL(h, base);
	cubin_kernel_hash(compiled("kf", "-use_fast_math"), "k", h);
	CU_ASSERT_STRING_NOT_EQUAL(h, base);
	cubin_kernel_hash(compiled("kk", "-DC1=3.0f"), "k", h);
	CU_ASSERT_STRING_NOT_EQUAL(h, base);
	cubin_kernel_hash(compiled("kn", "-DXX"), "nosuch", h);
	CU_ASSERT_STRING_EQUAL(h, "");
	/* the whole-file hash differs for line info and another kernel: why check uses this one */
	char whole1[17], whole2[17];
	cubin_code_hash(compiled("kb2", "-DXX"), whole1);
	cubin_code_hash(compiled("ko2", "-DOTHER"), whole2);
	CU_ASSERT_STRING_NOT_EQUAL(whole1, whole2);
}

/* The parameters the cubin records: each one's size in order, a pointer's 8, a struct's and a
 * vector's their own; none for a kernel without; a kernel the cubin lacks, or a file that is not
 * one, does not say. */
static void test_the_parameters_a_cubin_records(void)
{
	char src[256];
	snprintf(src, sizeof src, "%s/k.cu", test_dir);
	put_file(src, "extern \"C\" __global__ void k3(float *a, float b, int n) { if (threadIdx.x < n) a[threadIdx.x] = b; }\n"
		      "extern \"C\" __global__ void k0() {}\n"
		      "struct S { int a[5]; };\n"
		      "__global__ void ks(S s, char c, short h, float2 v, double4 w, double *p) { p[0] = s.a[3] + c + h + v.x + w.w; }\n");
	const char *cubin = compiled("params", "-O3");
	const struct {
		const char *symbol;
		size_t n, sizes[6];
	} want[] = {{"k3", 3, {8, 4, 4}}, {"k0", 0, {0}}, {"_Z2ks1Scs6float27double4Pd", 6, {20, 1, 2, 8, 32, 8}}};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		size_t *sizes, n;
		CU_ASSERT_EQUAL_FATAL(cubin_params(cubin, want[i].symbol, &sizes, &n), 0);
		CU_ASSERT_EQUAL(n, want[i].n);
		for (size_t k = 0; k < n && k < want[i].n; k++)
			CU_ASSERT_EQUAL(sizes[k], want[i].sizes[k]);
		free(sizes);
	}
	size_t *sizes, n;
	CU_ASSERT_EQUAL(cubin_params(cubin, "k", &sizes, &n), -1);
	CU_ASSERT_PTR_NULL(sizes);
	CU_ASSERT_EQUAL(cubin_params(src, "k3", &sizes, &n), -1);
	CU_ASSERT_EQUAL(cubin_params("/nonexistent/x.cubin", "k3", &sizes, &n), -1);
}

/* Kernels whose .nv.info holds records of every format besides the parameters: barriers (a
 * byte value), dynamic shared memory and named barriers, a template, a cooperative grid sync,
 * blockIdx.z (no value on some targets); each target nvcc 13 builds for. The shipped reduce and
 * transpose kernels, which have barriers, are read too. */
static void test_every_kind_of_kernel_has_its_parameters_read(void)
{
	char src[256];
	snprintf(src, sizeof src, "%s/k.cu", test_dir);
	put_file(src, "#include <cooperative_groups.h>\n"
		      "extern \"C\" __global__ void bar(float *o, const float *i, float norm, int n)\n"
		      "{ __shared__ float s[256]; s[threadIdx.x] = i[threadIdx.x]; __syncthreads(); o[threadIdx.x] = s[255 - threadIdx.x] * norm + n; }\n"
		      "extern \"C\" __global__ void dyn(float *o, char c)\n"
		      "{ extern __shared__ float s[]; s[threadIdx.x] = c; __syncthreads(); asm volatile(\"bar.sync 3;\"); o[threadIdx.x] = s[threadIdx.x ^ 1]; }\n"
		      "extern \"C\" __global__ void coop(float *o, double x)\n"
		      "{ cooperative_groups::this_grid().sync(); o[blockIdx.z * gridDim.x + threadIdx.x] = x; }\n"
		      "template <int N> __global__ void tk(float *o, char c, short h)\n"
		      "{ __shared__ float s[N]; s[threadIdx.x] = c + h; __syncthreads(); o[threadIdx.x] = s[N - 1 - threadIdx.x]; }\n"
		      "template __global__ void tk<64>(float *, char, short);\n");
	const struct {
		const char *symbol;
		size_t n, sizes[4];
	} want[] = {{"bar", 4, {8, 8, 4, 4}}, {"dyn", 2, {8, 1}}, {"coop", 2, {8, 8}}, {"_Z2tkILi64EEvPfcs", 3, {8, 1, 2}}};
	const char *const archs[] = {"-arch=sm_80", "-arch=sm_90", "-arch=sm_120"};
	for (size_t a = 0; a < sizeof archs / sizeof *archs; a++) {
		const char *cubin = compiled("kinds", archs[a]);
		for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
			size_t *sizes, n;
			int rc = cubin_params(cubin, want[i].symbol, &sizes, &n);
			if (rc || n != want[i].n)
				fprintf(stderr, "\n  %s %s: rc %d, %zu parameters\n", archs[a], want[i].symbol, rc, n);
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT_EQUAL(n, want[i].n);
			for (size_t k = 0; k < n && k < want[i].n; k++)
				CU_ASSERT_EQUAL(sizes[k], want[i].sizes[k]);
			free(sizes);
		}
	}
	const struct {
		const char *file, *symbol;
		size_t n;
	} shipped[] = {{"kernels/reduce.cu", "reduce3", 3}, {"kernels/reduce.cu", "reduce7", 3}, {"kernels/transpose.cu", "transpose", 4}};
	for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
		char *text = read_text(shipped[i].file);
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		put_file(src, text);
		free(text);
		size_t *sizes, n;
		CU_ASSERT_EQUAL(cubin_params(compiled("shipped", "-DBLOCK=256"), shipped[i].symbol, &sizes, &n), 0);
		CU_ASSERT_EQUAL(n, shipped[i].n);
		free(sizes);
	}
}

/* A cubin cut short anywhere, or with any byte of its headers and k3's records changed, is read
 * within its bounds: the parameters as they were, or none said; the hash never reads outside. */
/* cubin_kernels of the first n bytes of data, in a buffer of exactly that size (a read past it
 * is the sanitizer's and valgrind's): each entry found has a name and a hash. */
static void kernels_within(const unsigned char *data, size_t n)
{
	unsigned char *copy = malloc(n ? n : 1);
	memcpy(copy, data, n);
	cubin_kernel *k;
	size_t nk;
	if (cubin_kernels(copy, n, &k, &nk) == 0) {
		for (size_t i = 0; i < nk; i++)
			CU_ASSERT(k[i].symbol[0] && strlen(k[i].hash) == 16);
		cubin_kernels_free(k, nk);
	}
	free(copy);
}

static void test_a_damaged_cubin_is_read_within_its_bounds(void)
{
	char path[256];
	size_t len = 0;
	snprintf(path, sizeof path, "%s/params.cubin", test_dir);
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	unsigned char data[1 << 16];
	len = fread(data, 1, sizeof data, f);
	fclose(f);
	CU_ASSERT_FATAL(len > 1024 && len < sizeof data);
	char cut[256];
	snprintf(cut, sizeof cut, "%s/cut.cubin", test_dir);
	size_t said = 0, wrong = 0;
	for (size_t n = 0; n < len; n += n < 128 ? 1 : 7) {
		FILE *o = fopen(cut, "wb");
		fwrite(data, 1, n, o);
		fclose(o);
		size_t *sizes, count;
		if (cubin_params(cut, "k3", &sizes, &count) == 0) {
			said++;
			wrong += count != 3 || sizes[0] != 8 || sizes[1] != 4 || sizes[2] != 4;
		}
		free(sizes);
		char h[17];
		cubin_code_hash(cut, h);
		kernels_within(data, n);
	}
	for (size_t at = 0; at < len; at++) {
		unsigned char was = data[at];
		data[at] = (unsigned char)(was ^ 0xA5);
		FILE *o = fopen(cut, "wb");
		fwrite(data, 1, len, o);
		fclose(o);
		kernels_within(data, len);
		data[at] = was;
		size_t *sizes, count;
		if (cubin_params(cut, "k3", &sizes, &count) == 0)
			said++;
		free(sizes);
		if (at % 16 == 0) {
			char h[17];
			cubin_code_hash(cut, h);
		}
	}
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT(said > 0);
}

/* A minimal ELF file: the null section, .shstrtab and .nv.info.k holding info (len bytes). */
static void put_elf(const char *path, const unsigned char *info, size_t len)
{
	static const char names[] = "\0.shstrtab\0.nv.info.k";
	unsigned char buf[4096] = {0};
	Elf64_Ehdr eh = {0};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	eh.e_shstrndx = 1;
	size_t at = sizeof eh;
	memcpy(buf + at, names, sizeof names);
	size_t names_at = at, info_at = at + sizeof names;
	memcpy(buf + info_at, info, len);
	eh.e_shoff = (info_at + len + 7) / 8 * 8;
	Elf64_Shdr sh[3] = {{0}};
	sh[1] = (Elf64_Shdr){.sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = names_at, .sh_size = sizeof names};
	sh[2] = (Elf64_Shdr){.sh_name = 11, .sh_type = SHT_LOPROC, .sh_offset = info_at, .sh_size = len};
	memcpy(buf, &eh, sizeof eh);
	memcpy(buf + eh.e_shoff, sh, sizeof sh);
	FILE *f = fopen(path, "wb");
	fwrite(buf, 1, eh.e_shoff + sizeof sh, f);
	fclose(f);
}

/* EIATTR_KPARAM_INFO of ordinal o at offset off, size bytes; EIATTR_CBANK_PARAM_SIZE of total. */
#define KPARAM(o, off, size) 0x04, 0x17, 0x0c, 0x00, 0, 0, 0, 0, (o), 0, (off), 0, 0x00, 0xf0, \
	(unsigned char)(0x01 | ((size) << 2)), (unsigned char)((size) >> 6)
#define TOTAL(n) 0x03, 0x19, (n), 0x00

/* Records that do not make one list of parameters are not taken: a repeated or missing ordinal,
 * a parameter past the total, a total without parameters, a record cut short. */
static void test_records_that_do_not_make_a_list_say_nothing(void)
{
	char path[256];
	snprintf(path, sizeof path, "%s/made.cubin", test_dir);
	const struct {
		unsigned char info[96];
		size_t len;
		int rc;
		size_t n;
	} cases[] = {
		{{KPARAM(1, 8, 4), KPARAM(0, 0, 8), TOTAL(12)}, 36, 0, 2},
		/* records of each format before and between the parameters: none (1), a byte (2), 16 bits
		 * (3), sized (4); each 4 bytes but the sized */
		{{0x01, 0x35, 0, 0, KPARAM(1, 8, 4), 0x02, 0x4c, 0x01, 0x00, KPARAM(0, 0, 8), 0x04, 0x1c, 0x04, 0x00,
		  0xf0, 0, 0, 0, TOTAL(12)}, 48, 0, 2},
		{{0x02, 0x4c, 0x01, 0x00, 0x03, 0x5f, 0x01, 0x01, KPARAM(0, 0, 8), KPARAM(1, 8, 4), TOTAL(12)}, 44, 0, 2},
		{{TOTAL(0)}, 4, 0, 0},
		{{0}, 0, 0, 0},
		{{KPARAM(0, 0, 8), KPARAM(0, 8, 4), TOTAL(12)}, 36, -1, 0},
		{{KPARAM(0, 0, 8), KPARAM(2, 8, 4), TOTAL(12)}, 36, -1, 0},
		{{KPARAM(0, 0, 8), KPARAM(1, 8, 4), TOTAL(8)}, 36, -1, 0},
		{{TOTAL(16)}, 4, -1, 0},
		{{KPARAM(0, 0, 8)}, 12, -1, 0},
		{{0x04, 0x17, 0xff, 0xff}, 4, -1, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		put_elf(path, cases[i].info, cases[i].len);
		size_t *sizes, n;
		CU_ASSERT_EQUAL(cubin_params(path, "k", &sizes, &n), cases[i].rc);
		CU_ASSERT_EQUAL(n, cases[i].n);
		if (cases[i].n == 2 && sizes && n == 2)
			CU_ASSERT(sizes[0] == 8 && sizes[1] == 4);
		free(sizes);
	}
}

int add_cubin_suite(void)
{
	CU_pSuite s = CU_add_suite("cubin", NULL, NULL), n = add_integration_suite("cubin/nvcc", NULL, NULL);
	if (!s || !n)
		return -1;
	CU_add_test(s, "ptxas: plain entry", test_ptxas_plain_entry);
	CU_add_test(s, "ptxas: mangled entry with spills and smem", test_ptxas_mangled_entry_with_spills_and_smem);
	CU_add_test(s, "ptxas: missing entry lists functions", test_ptxas_missing_entry_lists_the_functions);
	CU_add_test(s, "ptxas: ambiguous overloads", test_ptxas_ambiguous_overloads);
	CU_add_test(s, "nvlink: a linked kernel's resources", test_linked_resources_are_nvlinks);
	CU_add_test(n, "the code hash ignores an unused register cap", test_the_code_hash_ignores_an_unused_register_cap);
	CU_add_test(n, "a kernel's own code hash", test_a_kernel_s_own_code_hash);
	CU_add_test(n, "the parameters a cubin records", test_the_parameters_a_cubin_records);
	CU_add_test(n, "every kind of kernel has its parameters read", test_every_kind_of_kernel_has_its_parameters_read);
	CU_add_test(n, "a damaged cubin is read within its bounds", test_a_damaged_cubin_is_read_within_its_bounds);
	CU_add_test(s, "records that do not make a list say nothing", test_records_that_do_not_make_a_list_say_nothing);
	return 0;
}
