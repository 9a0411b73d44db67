/* specs_csv.c: reads the CSVs of tests/gpu/specs_bat.sh's runs (make test-gpu).
 *   specs_csv counts FILE.csv             the measured statuses: "ok=208 wrong-result=3" (not-run left out)
 *   specs_csv winner FILE.csv             the winner's median (ms) and parameters, or "none"
 *   specs_csv values FILE.csv STATUS P..  the values of parameters P.. of the first row with STATUS
 *   specs_csv compare A.csv B.csv         every configuration A calls ok or wrong-result has the same
 *                                         status in B (the same configurations run under another
 *                                         reference); exit 1 naming those that do not (one that B did
 *                                         not run, A's own reference configuration, is said apart)
 *   specs_csv group FILE.csv P=V ..       of the rows with these values that were verified, how many
 *                                         are ok: "3 of 3 ok"; exit 1 unless all, and at least one
 * The parameters are the columns before blockDim.x. RFC 4180: a quoted message may hold commas,
 * quotes and line breaks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 160
#define MAX_ROWS 100000

typedef struct {
	int nf;
	char *f[MAX_FIELDS];
} row;

typedef struct {
	row head;
	row *rows;
	int n, nparams, status, median, flags;
} table;

/* One record into r (fields malloc'd); 0 at end of file, -1 when malformed. */
static int read_record(FILE *in, row *r)
{
	int c = fgetc(in);
	if (c == EOF)
		return 0;
	r->nf = 0;
	for (;;) {
		size_t len = 0, cap = 64;
		char *out = malloc(cap);
		if (!out)
			return -1;
		int quoted = c == '"';
		if (quoted)
			c = fgetc(in);
		for (;;) {
			if (c == EOF && quoted) {
				free(out);
				return -1;
			}
			if (quoted && c == '"') {
				c = fgetc(in);
				if (c != '"') {
					quoted = 0;
					continue;
				}
			} else if (!quoted && (c == ',' || c == '\n' || c == '\r' || c == EOF))
				break;
			if (len + 2 > cap && !(out = realloc(out, cap *= 2)))
				return -1;
			out[len++] = (char)c;
			c = fgetc(in);
		}
		out[len] = 0;
		if (r->nf == MAX_FIELDS)
			return -1;
		r->f[r->nf++] = out;
		if (c == ',') {
			c = fgetc(in);
			continue;
		}
		if (c == '\r')
			c = fgetc(in);
		return 1;
	}
}

static int column(const row *h, const char *name)
{
	for (int i = 0; i < h->nf; i++)
		if (!strcmp(h->f[i], name))
			return i;
	return -1;
}

static void load(const char *path, table *t)
{
	FILE *in = fopen(path, "r");
	if (!in) {
		perror(path);
		exit(2);
	}
	memset(t, 0, sizeof *t);
	t->rows = calloc(MAX_ROWS, sizeof *t->rows);
	if (!t->rows || read_record(in, &t->head) != 1) {
		fprintf(stderr, "%s: no header\n", path);
		exit(2);
	}
	t->nparams = column(&t->head, "blockDim.x");
	t->status = column(&t->head, "status");
	t->median = column(&t->head, "time_ms_median");
	t->flags = column(&t->head, "flags");
	if (t->nparams < 1 || t->status < 0 || t->median < 0 || t->flags < 0) {
		fprintf(stderr, "%s: not an autotune CSV\n", path);
		exit(2);
	}
	/* a row per valid configuration of the space: those not run are read past, not kept */
	int rc, line = 1;
	while ((rc = read_record(in, &t->rows[t->n])) == 1) {
		row *r = &t->rows[t->n];
		line++;
		if (r->nf != t->head.nf) {
			fprintf(stderr, "%s: row %d has %d fields, the header %d\n", path, line, r->nf, t->head.nf);
			exit(2);
		}
		if (strcmp(r->f[t->status], "not-run")) {
			if (++t->n == MAX_ROWS) {
				fprintf(stderr, "%s: more than %d configurations run\n", path, MAX_ROWS);
				exit(2);
			}
			continue;
		}
		for (int i = 0; i < r->nf; i++)
			free(r->f[i]);
	}
	if (rc < 0) {
		fprintf(stderr, "%s: malformed record after row %d\n", path, line);
		exit(2);
	}
	fclose(in);
}

static const char *status_of(const table *t, int i) { return t->rows[i].f[t->status]; }

static int verdict(const char *s) { return !strcmp(s, "ok") || !strcmp(s, "wrong-result"); }

static void describe(const table *t, int i)
{
	for (int p = 0; p < t->nparams; p++)
		printf("%s%s=%s", p ? " " : "", t->head.f[p], t->rows[i].f[p]);
}

static int same_params(const table *a, int i, const table *b, int j)
{
	if (a->nparams != b->nparams)
		return 0;
	for (int p = 0; p < a->nparams; p++)
		if (strcmp(a->rows[i].f[p], b->rows[j].f[p]))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: specs_csv counts|winner|values|compare FILE.csv ...\n");
		return 2;
	}
	table a;
	load(argv[2], &a);
	if (!strcmp(argv[1], "counts")) {
		const char *names[] = {"ok", "wrong-result", "compile-error", "launch-error", "crashed", "timeout"};
		int any = 0;
		for (size_t s = 0; s < sizeof names / sizeof *names; s++) {
			int k = 0;
			for (int i = 0; i < a.n; i++)
				k += !strcmp(status_of(&a, i), names[s]);
			if (k)
				printf("%s%s=%d", any++ ? " " : "", names[s], k);
		}
		printf("\n");
		return 0;
	}
	if (!strcmp(argv[1], "winner")) {
		for (int i = 0; i < a.n; i++)
			if (strstr(a.rows[i].f[a.flags], "winner")) {
				printf("%s ms, ", a.rows[i].f[a.median]);
				describe(&a, i);
				printf("\n");
				return 0;
			}
		printf("none\n");
		return 1;
	}
	if (!strcmp(argv[1], "values") && argc >= 4) {
		for (int i = 0; i < a.n; i++) {
			if (strcmp(status_of(&a, i), argv[3]))
				continue;
			for (int k = 4; k < argc; k++) {
				int c = column(&a.head, argv[k]);
				if (c < 0 || c >= a.nparams) {
					fprintf(stderr, "%s: no parameter %s\n", argv[2], argv[k]);
					return 2;
				}
				printf("%s%s", k > 4 ? " " : "", a.rows[i].f[c]);
			}
			printf("\n");
			return 0;
		}
		return 1;
	}
	if (!strcmp(argv[1], "group") && argc >= 4) {
		int k = 0, ok = 0;
		for (int i = 0; i < a.n; i++) {
			int match = 1;
			for (int q = 3; q < argc && match; q++) {
				const char *eq = strchr(argv[q], '=');
				int c = eq ? column(&a.head, "") : -1;
				for (int p = 0; eq && p < a.nparams; p++)
					if (strlen(a.head.f[p]) == (size_t)(eq - argv[q]) && !strncmp(a.head.f[p], argv[q], (size_t)(eq - argv[q])))
						c = p;
				match = c >= 0 && !strcmp(a.rows[i].f[c], eq + 1);
			}
			if (match && verdict(status_of(&a, i))) {
				k++;
				ok += !strcmp(status_of(&a, i), "ok");
			}
		}
		printf("%d of %d ok\n", ok, k);
		return !k || ok < k;
	}
	if (!strcmp(argv[1], "compare") && argc == 4) {
		table b;
		load(argv[3], &b);
		int agree = 0, bad = 0, only = 0;
		for (int i = 0; i < a.n; i++) {
			if (!verdict(status_of(&a, i)))
				continue;
			int j = 0;
			while (j < b.n && !same_params(&a, i, &b, j))
				j++;
			if (j == b.n) { /* the first run's own reference configuration, which the second has no need of */
				only++;
				continue;
			}
			if (!strcmp(status_of(&a, i), status_of(&b, j))) {
				agree++;
				continue;
			}
			bad++;
			printf("  differs: ");
			describe(&a, i);
			printf(": %s, by the other reference %s\n", status_of(&a, i), j < b.n ? status_of(&b, j) : "not run");
		}
		printf("%d of %d verdicts agree", agree, agree + bad);
		if (only)
			printf(" (%d run by the first only: its reference)", only);
		printf("\n");
		return bad || !agree || only > 1;
	}
	fprintf(stderr, "specs_csv: unknown command or arguments\n");
	return 2;
}
