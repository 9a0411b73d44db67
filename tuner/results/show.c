/* show.c: `autotune show`: a results CSV as a table on the terminal, sorted by time or by any
 * column, the winner marked, the counts per status below. */
#include "show.h"
#include "selector.h"
#include "sizes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view.h"
#include "banned.h"

enum { LINE_MAX_COLS = 100, PARAM_MAX_WIDTH = 14, INSTANCE_MAX_WIDTH = 24, SORTED_MAX_WIDTH = 20 };

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

/* Rows ordered by the column (its index in *col), or NULL with the reason in d when there is no
 * such column. */
static size_t *sorted_by(const view *v, const char *spec, int *col_out, diags *d)
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
	*col_out = col;
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

/* What the table shows besides the view's figures: the instances (results of several problem
 * sizes), the column sorted by when the table does not show it already, the baseline's rows. */
typedef struct {
	const view *v;
	instance_view iv;  /* col -1: results of one problem */
	char **labels;     /* iv.ninst "n=1024" */
	int sort_col;      /* shown because the rows are sorted by it; -1: none */
	const char *base_spec;
	long long *base;   /* per instance (one when none) the baseline's row, -1: none there; NULL: no --baseline */
} extras;

static int multi(const extras *x) { return x->iv.col >= 0; }

/* The instance of row r (0 for results of one problem), -1 for a row of none. */
static long inst_of(const extras *x, size_t r) { return multi(x) ? instance_of_row(&x->iv, &x->v->t, r) : 0; }

static int is_winner(const extras *x, size_t r)
{
	long i = inst_of(x, r);
	if (!multi(x))
		return (long long)r == x->v->winner;
	return i >= 0 && (size_t)i < x->iv.ninst && x->iv.winner[i] == (long long)r;
}

/* The baseline's time over row r's in r's instance: how much faster r is; NAN when either did not
 * pass or the instance has no baseline. */
static double speedup(const extras *x, size_t r)
{
	long i = inst_of(x, r);
	if (!x->base || i < 0 || x->base[i] < 0)
		return NAN;
	return view_time(x->v, (size_t)x->base[i]) / view_time(x->v, r);
}

/* Whether field is value: as text, or as numbers ("128" and "128.0"). */
static int same_value(const char *field, const char *value)
{
	char *e1, *e2;
	double a = strtod(field, &e1), b = strtod(value, &e2);
	return !strcmp(field, value) || (*field && *value && !*e1 && !*e2 && a == b);
}

/* What a parameter takes, for a value none of the rows has. */
static void no_such_value(const extras *x, const char *spec, const char *name, const char *value, diags *d)
{
	char *vals = view_distinct(x->v, name);
	diags_add(d, "autotune show: --baseline '%s': %s has no configuration with %s=%s; %s takes %s", spec,
		  x->v->t.path, name, value, name, vals ? vals : "no value");
	free(vals);
}

/* The parameters, "bx, by", for a message. Caller frees. */
static char *param_names(const table *t)
{
	char *names = xstrdup("");
	for (size_t c = 0; c < t->nparams; c++) {
		char *more = xasprintf("%s%s%s", names, c ? ", " : "", t->names[c]);
		free(names);
		names = more;
	}
	return names;
}

enum { BASE_MAX_PARAMS = 64 };

/* spec's NAME=VALUE pairs (spaces or commas between) into cols and vals (into copy); how many, or
 * -1 with the reason in d. */
static int baseline_pairs(const table *t, const char *spec, char *copy, int *cols, const char **vals, diags *d)
{
	int n = 0;
	for (char *save = NULL, *tok = strtok_r(copy, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq || eq == tok || !eq[1] || n == BASE_MAX_PARAMS) {
			diags_add(d, "autotune show: --baseline '%s' for %s: '%s' is not PARAMETER=VALUE (e.g. --baseline "
				     "\"bx=128 by=8\")", spec, t->path, tok);
			return -1;
		}
		*eq = 0;
		int col = table_col(t, tok);
		if (col < 0 || (size_t)col >= t->nparams) {
			char *names = param_names(t);
			diags_add(d, "autotune show: --baseline '%s': %s has no parameter '%s'; its parameters: %s", spec, t->path,
				  tok, *names ? names : "none");
			free(names);
			return -1;
		}
		cols[n] = col;
		vals[n++] = eq + 1;
	}
	if (!n)
		diags_add(d, "autotune show: --baseline '%s' for %s names no configuration (e.g. --baseline \"bx=128 by=8\")",
			  spec, t->path);
	return n ? n : -1;
}

/* Whether rows r and q have the same parameter values. */
static int same_config(const table *t, size_t r, size_t q)
{
	for (size_t c = 0; c < t->nparams; c++)
		if (strcmp(table_get(t, r, (int)c), table_get(t, q, (int)c)))
			return 0;
	return 1;
}

/* The rows of --baseline spec ("bx=128 by=8"): per instance (one when the results are of one
 * problem) the row whose parameters have those values, -1 where an instance has none. NULL with
 * the reason in d when spec is not of the file's parameters, no row has its values, or it fits
 * several configurations of an instance. */
static long long *baseline_rows(const extras *x, const char *spec, diags *d)
{
	const table *t = &x->v->t;
	int cols[BASE_MAX_PARAMS];
	const char *vals[BASE_MAX_PARAMS];
	char *copy = xstrdup(spec);
	int n = baseline_pairs(t, spec, copy, cols, vals, d);
	size_t ninst = multi(x) ? x->iv.ninst : 1, found = 0;
	long long *base = n < 0 ? NULL : xcalloc(ninst + 1, sizeof *base);
	for (size_t i = 0; base && i < ninst; i++)
		base[i] = -1;
	for (size_t r = 0; base && r < t->nrows; r++) {
		int k = 0;
		while (k < n && same_value(table_get(t, r, cols[k]), vals[k]))
			k++;
		long i = inst_of(x, r);
		if (k < n || i < 0 || (size_t)i >= ninst)
			continue;
		found++;
		if (base[i] >= 0 && !same_config(t, (size_t)base[i], r)) {
			char *a = view_describe(x->v, (size_t)base[i]), *b = view_describe(x->v, r);
			diags_add(d, "autotune show: --baseline '%s' fits several configurations of %s (%s; %s): name one", spec,
				  t->path, a, b);
			free(a);
			free(b);
			free(base);
			base = NULL;
		} else if (base[i] < 0)
			base[i] = (long long)r;
	}
	for (int k = 0; base && !found && k < n; k++) {
		int seen = 0;
		for (size_t r = 0; r < t->nrows && !seen; r++)
			seen = same_value(table_get(t, r, cols[k]), vals[k]);
		if (!seen) {
			no_such_value(x, spec, t->names[cols[k]], vals[k], d);
			free(base);
			base = NULL;
		}
	}
	if (base && !found) {
		diags_add(d, "autotune show: --baseline '%s': %s has no configuration with all of these values", spec, t->path);
		free(base);
		base = NULL;
	}
	free(copy);
	return base;
}

/* One instance's winner against the baseline: the speedup and the time saved per launch. */
static void put_against(FILE *out, const extras *x, long long winner, long long base)
{
	const view *v = x->v;
	if (winner < 0) {
		fputs("no winner\n", out);
		return;
	}
	if (base < 0) {
		fputs("the baseline was not run here\n", out);
		return;
	}
	if (!view_passed(v, (size_t)base)) {
		fputs("the baseline: ", out);
		put_text(out, view_status(v, (size_t)base), (int)strlen(view_status(v, (size_t)base)));
		fputc('\n', out);
		return;
	}
	double w = view_time(v, (size_t)winner), b = view_time(v, (size_t)base);
	fprintf(out, "%.4f ms against the baseline's %.4f ms: %.2fx as fast", w, b, b / w);
	if (winner == base || same_config(&v->t, (size_t)winner, (size_t)base))
		fputs(" (the baseline won)\n", out);
	else
		fprintf(out, ", %.4f ms saved per launch\n", b - w);
}

/* Below the totals: what the speedup column means, and each winner against the baseline. */
static void put_baseline(FILE *out, const extras *x)
{
	fputs("speedup: the baseline's (", out);
	put_text(out, x->base_spec, (int)strlen(x->base_spec));
	fputs(multi(x) ? ") time over the row's, at the row's instance; the winners:\n" : ") time over the row's\n", out);
	if (!multi(x)) {
		fputs("the winner: ", out);
		put_against(out, x, x->v->winner, x->base[0]);
		return;
	}
	for (size_t i = 0; i < x->iv.ninst; i++) {
		fprintf(out, "  %s: ", x->labels[i]);
		put_against(out, x, x->iv.winner[i], x->base[i]);
	}
}

/* The table's columns: the parameters', the instance's, then five figures, the speedup against
 * the baseline, the sorted column, the status, then the message. */
typedef struct {
	size_t np;               /* parameter columns shown, the file's first ones */
	int pw[64];              /* their widths */
	int iw;                  /* the instance column's width, 0: none */
	int sw;                  /* the sorted column's width, 0: none */
	const char *const *head; /* the six columns' names */
	const int *hw;           /* and widths */
	int width;               /* the line up to the message, which gets what is left */
} layout;

static int widest(const table *t, int col, const char *head, const size_t *order, size_t shown, int cap)
{
	int w = (int)strlen(head);
	for (size_t i = 0; i < shown; i++) {
		int n = (int)strlen(table_get(t, order[i], col));
		w = n > w ? n : w;
	}
	return w > cap ? cap : w;
}

static void layout_for(layout *L, const extras *x, const size_t *order, size_t shown)
{
	const view *v = x->v;
	const table *t = &v->t;
	size_t np = t->nparams;
	if (np == 0) /* no parameter columns: the block shape (blockDim.x first) stands in */
		np = t->ncols < 2 ? t->ncols : 2;
	/* parameter columns as wide as what is shown in them, within reason */
	L->np = np < 64 ? np : 64;
	for (size_t c = 0; c < L->np; c++)
		L->pw[c] = widest(t, (int)c, t->names[c], order, shown, PARAM_MAX_WIDTH);
	for (size_t i = 0; multi(x) && i < x->iv.ninst; i++) {
		int n = (int)strlen(x->labels[i]);
		L->iw = n > L->iw ? n : L->iw;
	}
	if (multi(x))
		L->iw = L->iw < 8 ? 8 : L->iw > INSTANCE_MAX_WIDTH ? INSTANCE_MAX_WIDTH : L->iw;
	if (x->sort_col >= 0)
		L->sw = widest(t, x->sort_col, t->names[x->sort_col], order, shown, SORTED_MAX_WIDTH);
	/* a dry run has no times: what the binaries say instead (smem: static and dynamic) */
	static const char *const run_head[] = {"time_ms", "noise%", "occ%", "ld_eff%", "GB/s", "status"};
	static const char *const dry_head[] = {"regs", "spills", "smem", "occ%", "blk/SM", "status"};
	static const int run_w[] = {9, 6, 5, 7, 7, 13}, dry_w[] = {5, 6, 7, 6, 6, 13};
	L->head = v->dry ? dry_head : run_head;
	L->hw = v->dry ? dry_w : run_w;
}

static void put_head(FILE *out, const extras *x, layout *L)
{
	const table *t = &x->v->t;
	int width = fprintf(out, "  ");
	for (size_t c = 0; c < L->np; c++)
		width += put_field(out, t->names[c], L->pw[c], 1) + fprintf(out, " ");
	if (L->iw)
		width += put_field(out, "instance", L->iw, 0) + fprintf(out, " ");
	for (size_t c = 0; c < 5; c++)
		width += put_field(out, L->head[c], L->hw[c], 1) + fprintf(out, " ");
	if (x->base)
		width += put_field(out, "speedup", 7, 1) + fprintf(out, " ");
	if (L->sw)
		width += put_field(out, t->names[x->sort_col], L->sw, 1) + fprintf(out, " ");
	/* the rows' status and message in what is left of the line, as put_row lays them out */
	L->width = width + L->hw[5] + 1;
	if (LINE_MAX_COLS - L->width - 1 > 3) {
		put_field(out, L->head[5], L->hw[5], 0);
		fputs(" message\n", out);
	} else
		fprintf(out, "%s\n", L->head[5]);
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

/* Row r: a winner marked and green, a failure red, when colour is on. */
static void put_row(FILE *out, const extras *x, const layout *L, size_t r, int colour)
{
	const view *v = x->v;
	const table *t = &v->t;
	int win = is_winner(x, r), bad = strcmp(view_status(v, r), "ok") != 0;
	if (colour && (win || bad))
		fputs(win ? "\033[1;32m" : "\033[31m", out);
	fputs(win ? "* " : "  ", out);
	for (size_t c = 0; c < L->np; c++) {
		put_field(out, table_get(t, r, (int)c), L->pw[c], 1);
		fputc(' ', out);
	}
	if (L->iw) {
		long i = inst_of(x, r);
		put_field(out, i >= 0 && (size_t)i < x->iv.ninst ? x->labels[i] : "-", L->iw, 0);
		fputc(' ', out);
	}
	char cell[5][32];
	row_numbers(v, r, cell);
	for (int c = 0; c < 5; c++) {
		put_field(out, cell[c], L->hw[c], 1);
		fputc(' ', out);
	}
	if (x->base) {
		fmt(cell[0], sizeof cell[0], "%.2fx", speedup(x, r));
		put_field(out, cell[0], 7, 1);
		fputc(' ', out);
	}
	if (L->sw) {
		const char *f = table_get(t, r, x->sort_col);
		put_field(out, *f ? f : "-", L->sw, 1);
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

/* Below the table: how many rows, of which statuses, the winner(s), and what the columns mean. */
static void put_totals(FILE *out, const extras *x, size_t shown, int top)
{
	const view *v = x->v;
	const table *t = &v->t;
	fprintf(out, "%zu configuration%s", t->nrows, t->nrows == 1 ? "" : "s");
	if (v->unlisted)
		fprintf(out, " listed of %zu (the other %zu not run)", t->nrows + v->unlisted, v->unlisted);
	if (shown < t->nrows)
		fprintf(out, multi(x) && top ? " (%zu shown, %d per instance)" : " (%zu shown)", shown, top);
	const char *sep = ": ";
	for (int s = 0; s < ST_COUNT_; s++)
		if (v->counts[s]) {
			fprintf(out, "%s%zu %s", sep, v->counts[s], status_name((status)s));
			sep = ", ";
		}
	if (v->unknown_status)
		fprintf(out, "%s%zu of unknown status", sep, v->unknown_status);
	size_t winners = 0;
	for (size_t i = 0; multi(x) && i < x->iv.ninst; i++)
		winners += x->iv.winner[i] >= 0;
	if (multi(x) && winners == x->iv.ninst)
		fprintf(out, "; winners (*) of %zu instances: below", winners);
	else if (multi(x) && winners)
		fprintf(out, "; winners (*) of %zu of %zu instances: below", winners, x->iv.ninst);
	else if (multi(x)) {
		/* instances' winners are the rows the run flagged: a file put together by hand has none */
		const char *why = v->counts[ST_OK] ? "no winner flagged in the file" : "no winner: nothing passed";
		fprintf(out, "; %zu instances, %s", x->iv.ninst, v->dry ? "a dry run: compiled, nothing measured" : why);
	}
	else if (v->winner >= 0) {
		char *w = view_describe(v, (size_t)v->winner);
		fputs("; winner (*): ", out);
		put_text(out, w, (int)strlen(w));
		free(w);
	} else
		fputs(v->dry ? "; a dry run: compiled, nothing measured" : "; no winner: nothing passed", out);
	fputc('\n', out);
	if (multi(x) ? winners > 0 : v->winner >= 0) {
		char *policy = view_policy(v);
		fprintf(out, "%s chosen by %s\n", multi(x) ? "winners (*)" : "winner (*)", policy);
		free(policy);
	}
	fputs(v->dry ? "by theoretical occupancy; spills: bytes stored + loaded; smem: static + dynamic bytes per block\n"
		     : "time: the finalists' interleaved median where re-timed; occ%: achieved, else theoretical\n",
	      out);
}

/* The rows instance by instance (times of different sizes do not compare), in order's order within
 * each, at most top (0: all) of each, rows of no instance last, into order. The instances come in
 * their own order, or as groups (rows sorted by the instance or a constant) puts them. Returns how
 * many of order are shown. */
static size_t group_by_instance(const extras *x, size_t *order, const size_t *by_instance, int top)
{
	const table *t = &x->v->t;
	size_t n = t->nrows, k = 0, ninst = x->iv.ninst;
	size_t *groups = xcalloc(ninst + 2, sizeof *groups), ng = 0, *out = xcalloc(n + 1, sizeof *out);
	if (by_instance) {
		for (size_t j = 0; j < n; j++) {
			long i = inst_of(x, by_instance[j]);
			size_t g = i >= 0 && (size_t)i < ninst ? (size_t)i : ninst, seen = 0;
			for (size_t q = 0; q < ng && !seen; q++)
				seen = groups[q] == g;
			if (!seen)
				groups[ng++] = g;
		}
	} else
		for (ng = 0; ng <= ninst; ng++)
			groups[ng] = ng;
	for (size_t q = 0; q < ng; q++) {
		size_t taken = 0;
		for (size_t j = 0; j < n; j++) {
			long i = inst_of(x, order[j]);
			size_t g = i >= 0 && (size_t)i < ninst ? (size_t)i : ninst;
			if (g == groups[q] && (!top || taken < (size_t)top)) {
				out[k++] = order[j];
				taken++;
			}
		}
	}
	memcpy(order, out, k * sizeof *order);
	free(out);
	free(groups);
	return k;
}

static void extras_free(extras *x)
{
	for (size_t i = 0; x->labels && i < x->iv.ninst; i++)
		free(x->labels[i]);
	free(x->labels);
	free(x->base);
	instance_view_free(&x->iv);
}

/* The instances of the view, when its results are of several (an unreadable instance column: as
 * one problem, as sizes_show takes it). */
static void extras_of(extras *x, const view *v)
{
	memset(x, 0, sizeof *x);
	x->v = v;
	x->sort_col = -1;
	diags quiet = {0};
	if (instance_view_of(&v->t, &x->iv, &quiet))
		x->iv.col = -1;
	diags_free(&quiet);
	x->labels = xcalloc(x->iv.ninst + 1, sizeof *x->labels);
	for (size_t i = 0; multi(x) && i < x->iv.ninst; i++)
		x->labels[i] = instance_view_label(&x->iv, i);
}

int show_print(FILE *out, const char *csv_path, int top, const char *sort, const char *baseline, int colour, diags *d)
{
	view v;
	if (view_load(csv_path, &v, d))
		return EXIT_USAGE;
	const table *t = &v.t;
	extras x;
	extras_of(&x, &v);
	x.base_spec = baseline;
	int col = -1;
	size_t *order = NULL;
	if (!baseline || (x.base = baseline_rows(&x, baseline, d)))
		order = sort ? sorted_by(&v, sort, &col, d) : view_by_time(&v);
	if (!order) {
		extras_free(&x);
		view_free(&v);
		return EXIT_USAGE;
	}
	int of_instance = multi(&x) && col >= x.iv.col;
	/* a column the table does not show otherwise: the parameters', the instance's and the status are */
	if (col >= 0 && (size_t)col >= t->nparams && !of_instance && strcmp(t->names[col], "status"))
		x.sort_col = col;
	/* ranked by select.objective: its column is shown beside the time */
	if (!sort && *v.policy.objective)
		x.sort_col = table_fixed_col(t, "objective");
	size_t shown = top > 0 && (size_t)top < t->nrows ? (size_t)top : t->nrows;
	if (multi(&x)) {
		/* sorted by the instance: by time within each */
		size_t *groups = of_instance ? order : NULL;
		if (groups)
			order = view_by_time(&v);
		shown = group_by_instance(&x, order, groups, top);
		free(groups);
	}
	layout L = {0};
	layout_for(&L, &x, order, shown);
	put_head(out, &x, &L);
	for (size_t i = 0; i < shown; i++)
		put_row(out, &x, &L, order[i], colour);
	put_totals(out, &x, shown, top);
	if (x.base)
		put_baseline(out, &x);
	sizes_show(out, &v); /* results of several instances: each one's winner */
	free(order);
	extras_free(&x);
	view_free(&v);
	return EXIT_WINNER;
}

int cmd_show(const options *o)
{
	diags d = {0};
	const char *nc = getenv("NO_COLOR");
	/* https://no-color.org: any non-empty NO_COLOR turns colour off */
	int colour = isatty(STDOUT_FILENO) && !(nc && *nc);
	int rc = show_print(stdout, o->inputs[0], o->top, o->sort, o->baseline, colour, &d);
	diags_print(&d);
	diags_free(&d);
	if (fflush(stdout) && rc == EXIT_WINNER) {
		fputs("autotune show: cannot write the table to stdout\n", stderr);
		rc = EXIT_USAGE;
	}
	return rc;
}
