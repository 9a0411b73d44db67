/* show.c: `autotune show`: a results CSV as a table on the terminal, sorted by time or by any
 * column, the winner marked, the counts per status below. */
#include "show.h"
#include "sizes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view.h"
#include "banned.h"

enum { LINE_MAX_COLS = 100, PARAM_MAX_WIDTH = 14 };

/* The sort key of one row: a number when the column is numeric, else the field. */
typedef struct {
	size_t row;
	double num;
	const char *str;
	int empty;
} sort_key;

static int sort_desc;  /* qsort has no context argument; show_print is not reentrant anyway */
static int sort_numeric;

static int by_key(const void *a, const void *b)
{
	const sort_key *x = a, *y = b;
	if (x->empty != y->empty) /* empty fields last, whichever the direction */
		return x->empty - y->empty;
	int c = 0;
	if (!x->empty)
		c = sort_numeric ? (x->num < y->num ? -1 : x->num > y->num) : strcmp(x->str, y->str);
	if (sort_desc)
		c = -c;
	return c ? c : (x->row < y->row ? -1 : x->row > y->row);
}

/* Rows ordered by the column, or NULL with the reason in d when there is no such column. */
static size_t *sorted_by(const view *v, const char *spec, diags *d)
{
	const table *t = &v->t;
	sort_desc = spec[0] == '-';
	const char *name = spec + sort_desc;
	int col = table_col(t, name);
	if (col < 0) {
		char *names = xstrdup("");
		for (size_t c = 0; c < t->ncols; c++) {
			char *more = xasprintf("%s%s%s", names, c ? ", " : "", t->names[c]);
			free(names);
			names = more;
		}
		diags_add(d, "autotune show: --sort: %s has no column '%s'; its columns: %s", t->path, name, names);
		free(names);
		return NULL;
	}
	/* numeric when every non-empty field is a number: "64" sorts before "128" */
	sort_numeric = 1;
	for (size_t r = 0; r < t->nrows; r++)
		if (*table_get(t, r, col) && isnan(table_num(t, r, col)))
			sort_numeric = 0;
	sort_key *k = xcalloc(t->nrows + 1, sizeof *k);
	for (size_t r = 0; r < t->nrows; r++)
		k[r] = (sort_key){r, table_num(t, r, col), table_get(t, r, col), !*table_get(t, r, col)};
	qsort(k, t->nrows, sizeof *k, by_key);
	size_t *order = xcalloc(t->nrows + 1, sizeof *order);
	for (size_t r = 0; r < t->nrows; r++)
		order[r] = k[r].row;
	free(k);
	return order;
}

/* The first n bytes of s, a control character (an escape sequence's ESC, say) as '?': the text
 * comes from a file, and a terminal must not take it for a command, colour or not. */
static int put_text(FILE *out, const char *s, int n)
{
	for (int i = 0; i < n; i++)
		fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i], out);
	return n;
}

/* Writes s into a field of width w, cut with '~' when longer, padded left or right. */
static int put_field(FILE *out, const char *s, int w, int right)
{
	int n = (int)strlen(s);
	if (n > w)
		return put_text(out, s, w - 1) + fprintf(out, "~");
	return fprintf(out, "%*s", right ? w - n : 0, "") + put_text(out, s, n) + fprintf(out, "%*s", right ? 0 : w - n, "");
}

static void fmt(char *buf, size_t n, const char *f, double x)
{
	if (isnan(x))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, f, x);
}

/* The table's columns: the parameters', then six that say how the row went, then the message. */
typedef struct {
	size_t np;               /* parameter columns shown, the file's first ones */
	int pw[64];              /* their widths */
	const char *const *head; /* the six columns' names */
	const int *hw;           /* and widths */
	int width;               /* the line up to the message, which gets what is left */
} layout;

static void layout_for(layout *L, const view *v, const size_t *order, size_t shown)
{
	const table *t = &v->t;
	size_t np = t->nparams;
	if (np == 0) /* no parameter columns: the block shape (blockDim.x first) stands in */
		np = t->ncols < 2 ? t->ncols : 2;
	/* parameter columns as wide as what is shown in them, within reason */
	L->np = np < 64 ? np : 64;
	for (size_t c = 0; c < L->np; c++) {
		L->pw[c] = (int)strlen(t->names[c]);
		for (size_t i = 0; i < shown; i++) {
			int n = (int)strlen(table_get(t, order[i], (int)c));
			L->pw[c] = n > L->pw[c] ? n : L->pw[c];
		}
		L->pw[c] = L->pw[c] > PARAM_MAX_WIDTH ? PARAM_MAX_WIDTH : L->pw[c];
	}
	/* a dry run has no times: what the binaries say instead (smem: static and dynamic) */
	static const char *const run_head[] = {"time_ms", "noise%", "occ%", "ld_eff%", "GB/s", "status"};
	static const char *const dry_head[] = {"regs", "spills", "smem", "occ%", "blk/SM", "status"};
	static const int run_w[] = {9, 6, 5, 7, 7, 13}, dry_w[] = {5, 6, 7, 6, 6, 13};
	L->head = v->dry ? dry_head : run_head;
	L->hw = v->dry ? dry_w : run_w;
}

static void put_head(FILE *out, const table *t, layout *L)
{
	int width = fprintf(out, "  ");
	for (size_t c = 0; c < L->np; c++)
		width += put_field(out, t->names[c], L->pw[c], 1) + fprintf(out, " ");
	for (size_t c = 0; c < 6; c++)
		width += put_field(out, L->head[c], L->hw[c], c < 5) + fprintf(out, " ");
	fprintf(out, "message\n");
	L->width = width;
}

/* The five numbers of row r under the head's columns, "-" where it has none. */
static void row_numbers(const view *v, size_t r, char cell[5][32])
{
	if (v->dry) {
		fmt(cell[0], sizeof cell[0], "%.0f", view_num(v, r, "registers"));
		fmt(cell[1], sizeof cell[1], "%.0f", view_num(v, r, "spill_store_bytes") + view_num(v, r, "spill_load_bytes"));
		fmt(cell[2], sizeof cell[2], "%.0f", view_smem(v, r));
		fmt(cell[3], sizeof cell[3], "%.1f", view_dry_occupancy(v, r));
		fmt(cell[4], sizeof cell[4], "%.0f", view_num(v, r, "active_blocks_per_sm"));
	} else {
		fmt(cell[0], sizeof cell[0], "%.4g", view_time(v, r));
		fmt(cell[1], sizeof cell[1], "%.2f", view_noise(v, r));
		fmt(cell[2], sizeof cell[2], "%.1f", view_occupancy(v, r));
		fmt(cell[3], sizeof cell[3], "%.1f", view_num(v, r, "gld_efficiency_pct"));
		fmt(cell[4], sizeof cell[4], "%.1f", view_num(v, r, "gbps"));
	}
}

/* Row r: the winner marked and green, a failure red, when colour is on. */
static void put_row(FILE *out, const view *v, const layout *L, size_t r, int colour)
{
	const table *t = &v->t;
	int win = (long long)r == v->winner, bad = strcmp(view_status(v, r), "ok") != 0;
	if (colour && (win || bad))
		fputs(win ? "\033[1;32m" : "\033[31m", out);
	fputs(win ? "* " : "  ", out);
	for (size_t c = 0; c < L->np; c++) {
		put_field(out, table_get(t, r, (int)c), L->pw[c], 1);
		fputc(' ', out);
	}
	char cell[5][32];
	row_numbers(v, r, cell);
	for (int c = 0; c < 5; c++) {
		put_field(out, cell[c], L->hw[c], 1);
		fputc(' ', out);
	}
	/* the message's first line, in what is left of the line */
	const char *m = table_field(t, r, "message");
	int room = LINE_MAX_COLS - L->width - 1, n = (int)strcspn(m, "\r\n");
	if (*m && room > 3) {
		put_field(out, view_status(v, r), L->hw[5], 0);
		fputc(' ', out);
		put_text(out, m, n > room ? room - 1 : n);
		fputs(n > room ? "~" : "", out);
	} else
		put_text(out, view_status(v, r), (int)strlen(view_status(v, r)));
	if (colour && (win || bad))
		fputs("\033[0m", out);
	fputc('\n', out);
}

/* Below the table: how many rows, of which statuses, the winner, and what the columns mean. */
static void put_totals(FILE *out, const view *v, size_t shown)
{
	const table *t = &v->t;
	fprintf(out, "%zu configuration%s", t->nrows, t->nrows == 1 ? "" : "s");
	if (v->unlisted)
		fprintf(out, " listed of %zu (the other %zu not run)", t->nrows + v->unlisted, v->unlisted);
	if (shown < t->nrows)
		fprintf(out, " (%zu shown)", shown);
	const char *sep = ": ";
	for (int s = 0; s < ST_COUNT_; s++)
		if (v->counts[s]) {
			fprintf(out, "%s%zu %s", sep, v->counts[s], status_name((status)s));
			sep = ", ";
		}
	if (v->unknown_status)
		fprintf(out, "%s%zu of unknown status", sep, v->unknown_status);
	if (v->winner >= 0) {
		char *w = view_describe(v, (size_t)v->winner);
		fputs("; winner (*): ", out);
		put_text(out, w, (int)strlen(w));
		free(w);
	} else
		fputs(v->dry ? "; a dry run: compiled, nothing measured" : "; no winner: nothing passed", out);
	fputc('\n', out);
	if (v->winner >= 0) {
		char *policy = view_policy(v);
		fprintf(out, "winner (*) chosen by %s\n", policy);
		free(policy);
	}
	fputs(v->dry ? "by theoretical occupancy; spills: bytes stored + loaded; smem: static + dynamic bytes per block\n"
		     : "time: the finalists' interleaved median where re-timed; occ%: achieved, else theoretical\n",
	      out);
}

int show_print(FILE *out, const char *csv_path, int top, const char *sort, int colour, diags *d)
{
	view v;
	if (view_load(csv_path, &v, d))
		return EXIT_USAGE;
	const table *t = &v.t;
	size_t *order = sort ? sorted_by(&v, sort, d) : view_by_time(&v);
	if (!order) {
		view_free(&v);
		return EXIT_USAGE;
	}
	size_t shown = top > 0 && (size_t)top < t->nrows ? (size_t)top : t->nrows;
	layout L = {0};
	layout_for(&L, &v, order, shown);
	put_head(out, t, &L);
	for (size_t i = 0; i < shown; i++)
		put_row(out, &v, &L, order[i], colour);
	put_totals(out, &v, shown);
	sizes_show(out, &v); /* results of several instances: each one's winner */
	free(order);
	view_free(&v);
	return EXIT_WINNER;
}

int cmd_show(const options *o)
{
	diags d = {0};
	const char *nc = getenv("NO_COLOR");
	/* https://no-color.org: any non-empty NO_COLOR turns colour off */
	int colour = isatty(STDOUT_FILENO) && !(nc && *nc);
	int rc = show_print(stdout, o->inputs[0], o->top, o->sort, colour, &d);
	diags_print(&d);
	diags_free(&d);
	if (fflush(stdout) && rc == EXIT_WINNER) {
		fputs("autotune show: cannot write the table to stdout\n", stderr);
		rc = EXIT_USAGE;
	}
	return rc;
}
