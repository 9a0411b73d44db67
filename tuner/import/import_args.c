/* import_args.c: a T1 spec's Arguments and ReferenceArguments as the config's arguments and its
 * verify section: each array's type, count, fill and role (an output, restored before every
 * launch when it holds data of its own, as KTT and Kernel Tuner reset it), each scalar's value,
 * and what a correct output is (the spec's Default, reference data, KTT's tolerance). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elem.h"
#include "import_reader.h"
#include "banned.h"

/* FillType and its companions: what fills an array. */
static void put_fill(reader *R, FILE *f, const yaml_node_t *a, const char *path, int out)
{
	const char *fill = ir_str(R, a, "FillType", NULL), *value = ir_str(R, a, "FillValue", NULL);
	const char *seed = ir_str(R, a, "RandomSeed", NULL), *source = ir_str(R, a, "DataSource", NULL);
	char where[160];
	snprintf(where, sizeof where, "%s.DataSource", path);
	if (!fill) {
		if (!out)
			fputs(", fill: random", f);
	} else if (!strcmp(fill, "Constant"))
		fprintf(f, ", fill: constant, value: %s", value ? value : "0");
	else if (!strcmp(fill, "Random")) /* Kernel Tuner and BAT draw numpy.random.randn: normals */
		fprintf(f, ", fill: normal%s%s", seed ? ", seed: " : "", seed ? seed : "");
	else if (!strcmp(fill, "Generator") && source) {
		/* a generator is an expression of the element's index i */
		fputs(", fill: {expr: ", f);
		ir_expression(R, f, ir_get(R, a, "DataSource"), where, source);
		fputs("}", f);
	} else if (!strcmp(fill, "Generator"))
		ir_err_at(R, a, "%s.FillType Generator needs a DataSource: an expression of the element index i", path);
	else if (!strcmp(fill, "BinaryRaw") && source) {
		/* raw or .npy: the loader checks the file against the argument's type and count */
		fputs(", fill: {file: ", f);
		ir_put_spec_file(R, f, ir_get(R, a, "DataSource"), where, source);
		fputs("}", f);
	} else if (!strcmp(fill, "BinaryRaw"))
		ir_err_at(R, a, "%s.FillType BinaryRaw needs a DataSource: the data file", path);
	else {
		char *msg = xasprintf("%s.FillType: '%s' is not imported (Constant, Random, Generator and BinaryRaw are; "
				      "HDF5 or Script data must be converted to a raw or .npy file by hand)", path, fill);
		ir_err_at(R, a, "%s", msg);
		free(msg);
	}
}

/* Whether a JSON value is true as Python reads it: 1, true, a non-empty string other than "0". */
static int truthy(const yaml_node_t *v)
{
	const char *s = v && v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
	return s && *s && strcmp(s, "0") && strcmp(s, "false") && strcmp(s, "null") && strcmp(s, "0.0");
}

/* Whether any argument says `Output`: then those with a true one, alone, are compared. */
static int names_outputs(reader *R, const yaml_node_t *args)
{
	for (yaml_node_item_t *it = args->data.sequence.items.start; it < args->data.sequence.items.top; it++)
		if (ir_get(R, ir_node(R, *it), "Output"))
			return 1;
	return 0;
}

/* An array's count, outputs and fill, after its name and type. */
static void put_array(reader *R, FILE *f, const yaml_node_t *a, const char *path, int out, int written)
{
	const char *size = ir_str(R, a, "Size", NULL);
	char where[128];
	fputs(", count: ", f);
	snprintf(where, sizeof where, "%s.Size", path);
	if (size)
		ir_expression(R, f, ir_get(R, a, "Size"), where, size);
	else {
		ir_err_at(R, a, "%s needs a Size", path);
		fputs("1", f);
	}
	if (out)
		fputs(", output: true", f);
	/* Read and written, or written over data of its own (a FillType): each launch starts from
	 * the spec's data, as KTT uploads every written argument before each run and Kernel Tuner
	 * copies the outputs back before verifying (a kernel that adds to its output, as KTT's
	 * CoulombSum3d does, would otherwise add to every earlier launch's result). */
	if (written == 2 || (written && ir_str(R, a, "FillType", NULL)))
		fputs(", restore: true", f);
	put_fill(R, f, a, path, out);
}

void ir_put_arguments(reader *R, FILE *f, const yaml_node_t *args)
{
	fputs("arguments:\n", f);
	int index = 0, by_output = names_outputs(R, args);
	for (yaml_node_item_t *it = args->data.sequence.items.start; it < args->data.sequence.items.top; it++) {
		yaml_node_t *a = ir_node(R, *it);
		char path[96];
		snprintf(path, sizeof path, "KernelSpecification.Arguments[%d]", index);
		index++;
		const char *name = ir_str(R, a, "Name", NULL), *type = ir_str(R, a, "Type", "an argument needs a Type");
		const char *mem = ir_str(R, a, "MemoryType", "an argument needs a MemoryType");
		const char *value = ir_str(R, a, "FillValue", NULL);
		const char *access = ir_str(R, a, "AccessType", NULL), *memtype = ir_str(R, a, "MemType", NULL);
		if (!type || !mem)
			continue;
		const char *ours = import_type(type);
		if (!ours) {
			char *msg = xasprintf("%s.Type: '%s' is not supported (int8..uint64, float, double, half (float16), "
					      "bfloat16, bool, and CUDA's vector types int2..4, uint2..4, float2..4, double2..4, "
					      "half2, bfloat162)", path, type);
			ir_err_at(R, a, "%s", msg);
			free(msg);
			continue;
		}
		char generated[32];
		snprintf(generated, sizeof generated, "arg%d", index);
		if (!name)
			name = generated;
		int cmem = strcmp(mem, "Symbol") && strcmp(mem, "Constant") && memtype && !strcmp(memtype, "Constant");
		fprintf(f, "  - {name: %s%s, type: %s", name, cmem ? "_arg" : "", ours);
		if (!strcmp(mem, "Scalar")) {
			elem_type t;
			if (elem_parse(ours, &t) == 0 && elem_lanes(t) > 1) {
				/* the worker passes a scalar as one value: a vector by value has no config form */
				char *msg = xasprintf("%s.Type: a Scalar of vector type '%s' is not imported: a scalar is one value of "
						      "int8..uint64, float or double, so a kernel parameter of type %s cannot be "
						      "given (take its components as separate parameters)", path, type, type);
				ir_err_at(R, ir_get(R, a, "Type"), "%s", msg);
				free(msg);
			}
			fprintf(f, ", value: %s}\n", value ? value : "0");
			continue;
		}
		/* KTT's Symbol: the module's __constant__ of that name, not passed */
		int symbol = !strcmp(mem, "Symbol") || !strcmp(mem, "Constant");
		if (strcmp(mem, "Vector") && !symbol) {
			char *msg = xasprintf("%s.MemoryType: '%s' is not supported (Scalar, Vector, Symbol)", path, mem);
			ir_err_at(R, a, "%s", msg);
			free(msg);
			fputs("}\n", f);
			continue;
		}
		int written = !access ? 0 : !strcmp(access, "WriteOnly") ? 1 : !strcmp(access, "ReadWrite") ? 2 : 0;
		int out = by_output ? truthy(ir_get(R, a, "Output")) : written != 0;
		put_array(R, f, a, path, out, written);
		if (symbol)
			fputs(", constant: true", f);
		fputs("}\n", f);
		/* Kernel Tuner's and BAT's MemType Constant: the array goes both to the kernel, as every
		 * Vector does (NAME_arg), and to the module's __constant__ NAME, a copy of it */
		if (cmem) {
			fprintf(f, "  - {name: %s, type: %s, count: ", name, ours);
			const char *size = ir_str(R, a, "Size", NULL);
			if (size)
				ir_expression(R, f, ir_get(R, a, "Size"), path, size);
			else
				fputs("1", f);
			fprintf(f, ", fill: {copy: %s_arg}, constant: true}\n", name);
		}
	}
}

/* ReferenceArguments: an output's expected contents. From a data file (BinaryRaw) they are
 * verify.expected; a constant (Constant) or an expression of the index (Generator) is verify.expect; outputs without one are checked
 * against the first configuration's. Pass 0 checks them, 1 and 2 write each kind. */
/* A reference file the spec names but does not ship (KTT's CoulombSum3d.bin is not in its
 * repository) leaves its output checked as outputs are without one, against the first
 * configuration, rather than refusing a spec that runs: said in a note. An input file that is not
 * there is still refused, where it is read. */
static int reference_missing(reader *R, const char *target, const char *file)
{
	char *dir = dir_of(R->file), *path = *file == '/' ? xstrdup(file) : xasprintf("%s/%s", dir, file);
	int missing = access(path, R_OK) != 0;
	if (missing) {
		char *msg = xasprintf("'%s', the reference for %s, is not there (%s): %s is checked against the "
				      "first configuration instead; to check against the file, put it there and add "
				      "`expected: {%s: %s}` to verify",
				      file, target, strerror(errno), target, target, file);
		ir_note(R, "%s%s", msg, "");
		free(msg);
	}
	free(path);
	free(dir);
	return missing;
}

/* KTT's tolerance, when every reference that gives one gives the same: ValidationThreshold t
 * with SideBySideComparison (KTT's default method) fails an element when |got - expected| > t,
 * with SideBySideRelativeComparison when that over |expected| is: atol t, or rtol t. Its text in
 * *t, and 1 for absolute, 2 for relative; 0 when the spec gives none, -1 when they differ or
 * the method is another. */
int ir_ktt_tolerance(reader *R, const yaml_node_t *refs, const char **t)
{
	int kind = 0;
	*t = NULL;
	for (yaml_node_item_t *it = refs && refs->type == YAML_SEQUENCE_NODE ? refs->data.sequence.items.start : NULL;
	     it && it < refs->data.sequence.items.top; it++) {
		yaml_node_t *r = ir_node(R, *it);
		const char *value = ir_str(R, r, "ValidationThreshold", NULL);
		const char *method = ir_str(R, r, "ValidationMethod", NULL);
		if (!value && !method)
			continue;
		int k = !method || !strcmp(method, "SideBySideComparison") ? 1
			: !strcmp(method, "SideBySideRelativeComparison") ? 2 : -1;
		char *end = NULL;
		if (!value || strtod(value, &end) < 0 || !end || *end || end == value || k < 0 ||
		    (kind && (k != kind || strcmp(value, *t))))
			return -1;
		kind = k;
		*t = value;
	}
	return kind;
}

void ir_put_references(reader *R, FILE *f, const yaml_node_t *refs)
{
	const char *t;
	int ktt = ir_ktt_tolerance(R, refs, &t);
	if (ktt == 1)
		fprintf(f, "verify:\n  rtol: 0\n  atol: %s   # KTT's SideBySideComparison: |got - expected| <= %s\n", t, t);
	else if (ktt == 2)
		fprintf(f, "verify:\n  rtol: %s\n  atol: 0   # KTT's SideBySideRelativeComparison\n", t);
	else /* numpy.allclose's rtol and Kernel Tuner's atol, with which Kernel Tuner and BAT compare */
		fputs("verify:\n  rtol: 1e-5\n  atol: 1e-6   # Kernel Tuner's and BAT's tolerance\n", f);
	if (R->reference)
		fprintf(f, "  reference: %s   # the spec's Default\n", R->reference);
	if (!refs)
		return;
	if (refs->type != YAML_SEQUENCE_NODE) {
		ir_err_at(R, refs, "%s", "KernelSpecification.ReferenceArguments must be a list");
		return;
	}
	for (int pass = 0; pass < 3; pass++) {
		int index = 0, written = 0;
		for (yaml_node_item_t *it = refs->data.sequence.items.start; it < refs->data.sequence.items.top; it++, index++) {
			yaml_node_t *r = ir_node(R, *it);
			const char *what = pass ? NULL : "a reference argument needs a TargetName and a FillType";
			const char *target = ir_str(R, r, "TargetName", what), *fill = target ? ir_str(R, r, "FillType", what) : NULL;
			const char *source = ir_str(R, r, "DataSource", NULL), *value = ir_str(R, r, "FillValue", NULL);
			if (!target || !fill)
				continue;
			int gen = !strcmp(fill, "Generator") && source; /* an expression of the index i */
			int kind = !strcmp(fill, "BinaryRaw") && source ? 1 : (!strcmp(fill, "Constant") && value) || gen ? 2 : 0;
			if (pass == 0 && kind == 0) {
				char *msg = xasprintf("KernelSpecification.ReferenceArguments[%d].FillType: '%s'%s is not "
						      "imported (BinaryRaw and Generator with a DataSource, Constant with a FillValue are)",
						      index, fill, source || value ? "" : " without data");
				ir_err_at(R, r, "%s", msg);
				free(msg);
			}
			if (pass == 0 || kind != pass || (pass == 1 && reference_missing(R, target, source)))
				continue;
			if (!written++)
				fprintf(f, "  %s:\n", pass == 1 ? "expected" : "expect");
			fprintf(f, "    %s: ", target);
			char where[96];
			snprintf(where, sizeof where, "KernelSpecification.ReferenceArguments[%d].DataSource", index);
			if (pass == 1)
				ir_put_spec_file(R, f, ir_get(R, r, "DataSource"), where, source);
			else if (gen)
				ir_expression(R, f, ir_get(R, r, "DataSource"), where, source);
			else
				ir_quoted(f, value);
			fputc('\n', f);
		}
	}
}
