/* config_data.c: what a config takes from outside the kernel: data files (fill: {file: PATH},
 * verify.expected), an .npy file or raw bytes, checked at load against the argument they are for
 * (element type, count), so a file that does not fit is said at its place in the config before
 * any worker starts and the worker only copies bytes from a known offset; and the host reference
 * (verify.host). Also the spec hash, which covers their contents: a changed input or reference
 * must be measured again, as a changed kernel is. */
/* realpath is XSI */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config_load.h"
#include "hash.h"
#include "includes.h"
#include "banned.h"

/* numpy writes its header as a Python dict of a few dozen bytes; past this it is not one */
#define MAX_NPY_HEADER (1ul << 20)

/* The dtypes read, by their .npy descr; one byte needs no byte order ('|'). */
static const struct {
	const char *descr;
	elem_type base;
} npy_types[] = {
	{"<i1", ELEM_INT8},    {"|i1", ELEM_INT8},   {"<i2", ELEM_INT16},  {"<i4", ELEM_INT32},
	{"<i8", ELEM_INT64},   {"<u1", ELEM_UINT8},  {"|u1", ELEM_UINT8},  {"<u2", ELEM_UINT16},
	{"<u4", ELEM_UINT32},  {"<u8", ELEM_UINT64}, {"<f4", ELEM_FLOAT},  {"<f8", ELEM_DOUBLE},
	{"<f2", ELEM_HALF},
	/* numpy has no bfloat16: ml_dtypes' arrays are saved as 2-byte voids (np.save) or under its
	 * name (a header written by hand); its raw bits as uint16 ('<u2') are taken too, below */
	{"<V2", ELEM_BFLOAT16}, {"|V2", ELEM_BFLOAT16}, {"bfloat16", ELEM_BFLOAT16},
};
#define NNPY_TYPES (sizeof npy_types / sizeof *npy_types)

/* A base type as numpy names it (float32, not float), as users of .npy files know them. */
static const char *numpy_name(elem_type b)
{
	return b == ELEM_FLOAT ? "float32" : b == ELEM_DOUBLE ? "float64" : b == ELEM_HALF ? "float16" : elem_name(b);
}

/* The descr of a base type (the first of its table's rows). */
static const char *npy_descr(elem_type b)
{
	if (b == ELEM_BFLOAT16)
		return "<u2 of its bits, or ml_dtypes' <V2";
	for (size_t i = 0; i < NNPY_TYPES; i++)
		if (npy_types[i].base == b)
			return npy_types[i].descr;
	return "?";
}

/* What the argument needs, in a file's terms: "'x' is 1024 float32", and for a vector type
 * "'x' is 1024 float4: 4096 float32". */
static void describe_arg(const kernel_arg *a, char *buf, size_t len)
{
	elem_type b = elem_base(a->type);
	if (elem_lanes(a->type) > 1)
		snprintf(buf, len, "'%s' is %lld %s: %lld %s (%s)", a->name, a->count, elem_name(a->type),
			 a->count * elem_lanes(a->type), numpy_name(b), npy_descr(b));
	else
		snprintf(buf, len, "'%s' is %lld %s (%s)", a->name, a->count, numpy_name(b), npy_descr(b));
}

/* An .npy header's dict, as far as it matters here. */
typedef struct {
	char descr[32];
	int has_descr, has_fortran, has_shape;
	int fortran;
	int ndim;
	unsigned long long count; /* the shape's product */
	char shape[96];           /* as Python writes it, for messages */
} npy_header;

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* A quoted Python string at p into out: past it, or NULL. */
static const char *quoted(const char *p, char *out, size_t len)
{
	char q = *p;
	if (q != '\'' && q != '"')
		return NULL;
	const char *end = strchr(p + 1, q);
	if (!end || (size_t)(end - p - 1) >= len)
		return NULL;
	memcpy(out, p + 1, (size_t)(end - p - 1));
	out[end - p - 1] = 0;
	return end + 1;
}

/* A shape tuple at p, "(1024,)" or "(32, 32)" or "()": past it, or NULL. */
static const char *shape_tuple(const char *p, npy_header *h)
{
	if (*p++ != '(')
		return NULL;
	h->count = 1;
	h->ndim = 0;
	size_t used = (size_t)snprintf(h->shape, sizeof h->shape, "(");
	for (p = skip_space(p); *p != ')'; p = skip_space(p)) {
		char *end;
		if (*p < '0' || *p > '9')
			return NULL;
		errno = 0;
		unsigned long long d = strtoull(p, &end, 10);
		/* every product stays below 2^64: each factor and the product below 2^48 */
		if (errno || d > MAX_ARRAY_BYTES || (d && h->count > MAX_ARRAY_BYTES / d))
			return NULL;
		h->count *= d;
		h->ndim++;
		if (used < sizeof h->shape)
			used += (size_t)snprintf(h->shape + used, sizeof h->shape - used, "%s%llu", h->ndim > 1 ? ", " : "", d);
		p = skip_space(end);
		if (*p == ',')
			p++;
		else if (*p != ')')
			return NULL;
	}
	if (used < sizeof h->shape)
		snprintf(h->shape + used, sizeof h->shape - used, "%s)", h->ndim == 1 ? "," : "");
	return p + 1;
}

/* One "'key': value" of the dict at p: past it, or NULL (why in *why). */
static const char *dict_item(const char *p, npy_header *h, const char **why)
{
	char key[32];
	if (!(p = quoted(p, key, sizeof key)) || *(p = skip_space(p)) != ':') {
		*why = "its header is not a Python dict";
		return NULL;
	}
	p = skip_space(p + 1);
	if (!strcmp(key, "descr")) {
		h->has_descr = 1;
		if (*p == '[')
			*why = "it holds a structured dtype (fields), not an array of one type";
		else if (!(p = quoted(p, h->descr, sizeof h->descr)))
			*why = "its descr is not a string";
	} else if (!strcmp(key, "fortran_order")) {
		h->has_fortran = 1;
		h->fortran = !strncmp(p, "True", 4);
		if (h->fortran || !strncmp(p, "False", 5))
			p += h->fortran ? 4 : 5;
		else
			*why = "its fortran_order is neither True nor False";
	} else if (!strcmp(key, "shape")) {
		h->has_shape = 1;
		if (!(p = shape_tuple(p, h)))
			*why = "its shape is not a tuple of sizes (or is over 2^48 elements)";
	} else
		*why = "its header has a key other than descr, fortran_order and shape";
	return *why ? NULL : p;
}

/* Parses an .npy header's dict (text, NUL-terminated): 0, or -1 with why. */
static int parse_npy_header(const char *text, npy_header *h, const char **why)
{
	memset(h, 0, sizeof *h);
	*why = NULL;
	const char *p = skip_space(text);
	if (*p++ != '{') {
		*why = "its header is not a Python dict";
		return -1;
	}
	for (p = skip_space(p); *p != '}'; p = skip_space(p)) {
		if (!(p = dict_item(p, h, why)))
			return -1;
		p = skip_space(p);
		if (*p == ',')
			p++;
		else if (*p != '}') {
			*why = "its header is not a Python dict";
			return -1;
		}
	}
	if (!h->has_descr || !h->has_fortran || !h->has_shape) {
		*why = "its header lacks descr, fortran_order or shape";
		return -1;
	}
	return 0;
}

/* The .npy file f (of size bytes, path as written in the config: name) against argument a: its
 * data's offset into *offset, or -1 with the problem said at m. */
static int check_npy(loader *L, mark m, FILE *f, long long size, const char *name, const kernel_arg *a,
		     unsigned long long *offset)
{
	unsigned char pre[12];
	size_t got = fread(pre, 1, sizeof pre, f);
	int major = got >= 8 ? pre[6] : 0;
	size_t start = major == 1 ? 10 : 12;
	unsigned long hlen = major == 1 ? pre[8] | (unsigned long)pre[9] << 8 :
			     pre[8] | (unsigned long)pre[9] << 8 | (unsigned long)pre[10] << 16 | (unsigned long)pre[11] << 24;
	if (got < start || major < 1 || major > 3) {
		ld_error(L, m, "%s is an .npy file of version %d.%d, which autotune does not read (it reads 1.0, 2.0 and 3.0)", name,
			 got >= 8 ? pre[6] : 0, got >= 8 ? pre[7] : 0);
		return -1;
	}
	if (hlen > MAX_NPY_HEADER || (long long)(start + hlen) > size) {
		ld_error(L, m, "%s is not a valid .npy file: its header's length (%lu bytes) is past the file's end", name, hlen);
		return -1;
	}
	char *text = xmalloc(hlen + 1);
	int read_ok = fseek(f, (long)start, SEEK_SET) == 0 && fread(text, 1, hlen, f) == hlen;
	text[read_ok ? hlen : 0] = 0;
	npy_header h;
	const char *why;
	int rc = parse_npy_header(text, &h, &why);
	free(text);
	if (rc) {
		ld_error(L, m, "%s is not a valid .npy file: %s", name, read_ok ? why : "its header cannot be read");
		return -1;
	}
	char needs[256];
	describe_arg(a, needs, sizeof needs);
	int known = -1;
	for (size_t i = 0; i < NNPY_TYPES; i++)
		if (!strcmp(h.descr, npy_types[i].descr))
			known = (int)i;
	if (known < 0 && h.descr[0] == '>') {
		ld_error(L, m, "%s holds big-endian data (%s), but %s: only little-endian .npy files are read "
			       "(numpy: a.astype(a.dtype.newbyteorder('<')))", name, h.descr, needs);
		return -1;
	}
	if (known < 0) {
		ld_error(L, m, "%s holds %s elements, which autotune does not read, but %s", name, h.descr, needs);
		return -1;
	}
	if (h.fortran && h.ndim > 1) {
		ld_error(L, m, "%s holds a %d-D array in Fortran order, shape %s, but %s in C order "
			       "(numpy: np.save(path, np.ascontiguousarray(a)))", name, h.ndim, h.shape, needs);
		return -1;
	}
	elem_type b = npy_types[known].base;
	if (b == ELEM_UINT16 && elem_base(a->type) == ELEM_BFLOAT16)
		b = ELEM_BFLOAT16; /* a.view(np.uint16): the bits as they are */
	unsigned long long want = (unsigned long long)a->count * (unsigned long long)elem_lanes(a->type);
	if (b != elem_base(a->type) || h.count != want) {
		ld_error(L, m, "%s holds %llu %s (%s), but %s", name, h.count, numpy_name(b), h.descr, needs);
		return -1;
	}
	unsigned long long data = (unsigned long long)(size - (long long)(start + hlen)), bytes = want * elem_size(b);
	if (data != bytes) {
		ld_error(L, m, "%s is not a valid .npy file: its header says %llu %s (%llu bytes), but %llu bytes follow it", name,
			 h.count, numpy_name(b), bytes, data);
		return -1;
	}
	*offset = start + hlen;
	return 0;
}

/* Opens the data file at path (name: as written) for reading and sizes it: NULL when it is not
 * a regular file that can be read, said at m. */
static FILE *open_data(loader *L, mark m, const char *path, const char *name, long long *size)
{
	struct stat st;
	if (stat(path, &st)) {
		ld_error(L, m, "cannot read data file '%s': %s", name, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		/* a pipe would wait for a writer; a directory or a device holds no array */
		ld_error(L, m, "data file '%s' is %s, not a file", name, S_ISDIR(st.st_mode) ? "a directory" : "a pipe, socket or device");
		return NULL;
	}
	FILE *f = fopen(path, "rb");
	if (!f)
		ld_error(L, m, "cannot read data file '%s': %s", name, strerror(errno));
	*size = (long long)st.st_size;
	return f;
}

/* A file the config names, relative to the config file like the kernel source. Caller frees. */
static char *beside_config(const config *cfg, const char *name)
{
	const char *slash = strrchr(cfg->path, '/');
	return name[0] == '/' || !slash ? xstrdup(name) : xasprintf("%.*s/%s", (int)(slash - cfg->path), cfg->path, name);
}

void ld_data_file(loader *L, const yaml_node_t *n, const kernel_arg *a, const char *what, data_file *out)
{
	config *cfg = L->cfg;
	char *name = n ? ld_string(L, n, what) : NULL;
	if (!name)
		return;
	mark m = ld_mark(n);
	char *path = beside_config(cfg, name);
	long long size = 0;
	FILE *f = NULL;
	if (strpbrk(name, "\n\r"))
		/* the worker gets the path as the rest of one protocol line */
		ld_error(L, m, "%s '%s': a data file's name may not hold a line break", what, name);
	else
		f = open_data(L, m, path, name, &size);
	unsigned char magic[6] = {0};
	int npy = f && fread(magic, 1, sizeof magic, f) == sizeof magic && !memcmp(magic, "\x93NUMPY", 6), fits = 0;
	/* count 0: the count was refused already, and there is nothing to check against */
	if (f && a->count > 0 && npy) {
		rewind(f);
		fits = check_npy(L, m, f, size, name, a, &out->offset) == 0;
	} else if (f && a->count > 0) {
		char needs[256];
		unsigned long long bytes = (unsigned long long)a->count * elem_size(a->type);
		describe_arg(a, needs, sizeof needs);
		fits = (unsigned long long)size == bytes;
		if (!fits)
			ld_error(L, m, "%s holds %lld bytes, but %s, %llu bytes: a raw file holds exactly the array (or it is an .npy file)",
				 name, size, needs, bytes);
	}
	if (f)
		fclose(f);
	if (fits && !(out->path = realpath(path, NULL)))
		ld_error(L, m, "cannot resolve data file '%s': %s", name, strerror(errno));
	out->at = m;
	free(path);
	free(name);
}

/* The outputs verify.host gives: those no expect, expected or sum check gives. */
static int host_gives(const config *cfg, size_t i)
{
	const kernel_arg *a = &cfg->args[i];
	return a->is_array && a->output && !a->expect.e && !a->expected.path && (int)i != cfg->sum_out;
}

/* verify.host's source: a regular file (a pipe would hang the compiler), by its absolute path. */
static void host_source(loader *L, const yaml_node_t *s)
{
	config *cfg = L->cfg;
	char *name = ld_string(L, s, "verify host source");
	if (!name)
		return;
	char *path = beside_config(cfg, name);
	struct stat st;
	if (stat(path, &st))
		ld_error(L, ld_mark(s), "cannot read host reference '%s': %s", name, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		ld_error(L, ld_mark(s), "host reference '%s' is %s, not a file", name, S_ISDIR(st.st_mode) ? "a directory" : "a pipe, socket or device");
	else if (strpbrk(path, "\n\r"))
		ld_error(L, ld_mark(s), "host reference '%s': its path may not hold a line break", name);
	else if (!(cfg->host.source = realpath(path, NULL)))
		ld_error(L, ld_mark(s), "cannot resolve host reference '%s': %s", name, strerror(errno));
	free(path);
	free(name);
}

void ld_load_verify_host(loader *L, const yaml_node_t *v, const yaml_node_t *n)
{
	static const char *const keys[] = {"source", "function", "flags", NULL};
	config *cfg = L->cfg;
	if (ld_check_keys(L, n, "verify host", keys))
		return;
	cfg->host.at = ld_mark(n);
	static const char *const others[] = {"kernel", "reference", "reference_per"};
	for (size_t k = 0; k < 3; k++)
		if (ld_get(L, v, others[k]))
			ld_error(L, ld_mark(n), "verify host gives the expected outputs: not with '%s', which names a reference run", others[k]);
	yaml_node_t *s = ld_require(L, n, "source", "verify host"), *f = ld_require(L, n, "function", "verify host");
	if (s)
		host_source(L, s);
	if (f && (cfg->host.function = ld_string(L, f, "verify host function")) && !ld_is_identifier(cfg->host.function))
		ld_error(L, ld_mark(f), "verify host function '%s' is not a C identifier", cfg->host.function);
	yaml_node_t *fl = ld_get(L, n, "flags");
	if (fl && ld_expect(L, fl, YAML_SEQUENCE_NODE, "verify host flags") == 0) {
		size_t count = (size_t)(fl->data.sequence.items.top - fl->data.sequence.items.start);
		cfg->host.flags = xcalloc(count + 1, sizeof *cfg->host.flags);
		for (yaml_node_item_t *it = fl->data.sequence.items.start; it < fl->data.sequence.items.top; it++) {
			char *flag = ld_string(L, ld_node(L, *it), "verify host flag");
			if (flag)
				cfg->host.flags[cfg->host.nflags++] = flag;
		}
	}
	/* one call for the whole run: scalars must not depend on the configuration */
	cfg->host.scalars = xcalloc(cfg->nargs + 1, sizeof *cfg->host.scalars);
	int gives = 0;
	for (size_t i = 0; i < cfg->nargs; i++) {
		if (!cfg->args[i].is_array && cfg->args[i].value.e)
			ld_eval_const(L, &cfg->args[i].value, "a scalar argument passed to verify host", &cfg->host.scalars[i]);
		gives |= host_gives(cfg, i);
	}
	if (!gives)
		ld_error(L, ld_mark(n), "verify host: no output is left for it to give (each has expect, expected or sum)");
}

void config_data_free(config *cfg)
{
	for (size_t i = 0; i < cfg->nargs; i++) {
		free(cfg->args[i].fill_file.path);
		free(cfg->args[i].expected.path);
	}
	free(cfg->host.source);
	free(cfg->host.function);
	for (size_t i = 0; i < cfg->host.nflags; i++)
		free(cfg->host.flags[i]);
	free(cfg->host.flags);
	free(cfg->host.scalars);
	free(cfg->host.so);
}

int config_host_gives(const config *cfg, size_t i) { return cfg->host.source && host_gives(cfg, i); }

void config_spec_hash(const config *cfg, char out[17])
{
	spec_files headers = {0};
	includes_of(cfg->source, cfg->path, cfg->nvcc_flags, cfg->nflags, &headers);
	const char **data = xcalloc(2 * cfg->nargs + 2 + headers.n, sizeof *data);
	size_t n = 0;
	if (cfg->host.source)
		data[n++] = cfg->host.source;
	for (size_t i = 0; i < cfg->nargs; i++) {
		if (cfg->args[i].fill_file.path)
			data[n++] = cfg->args[i].fill_file.path;
		if (cfg->args[i].expected.path)
			data[n++] = cfg->args[i].expected.path;
	}
	/* the headers last: a kernel without any of its own keeps the hash it had before they counted */
	for (size_t i = 0; i < headers.n; i++)
		data[n++] = headers.v[i].path;
	hash_spec(cfg->path, cfg->source, data, n, out);
	free(data);
	spec_files_free(&headers);
}
