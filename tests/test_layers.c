/* test_layers.c: the layers of docs/reference.md's "How it works", held three ways: the Makefile
 * gives each folder only the include paths it may use (lib/ none, worker/ lib/ alone, each stage of
 * the tuner its own folder and the earlier stages'); no module includes its way back to itself, and
 * no folder to a later stage or back to itself; and no object file calls its way back to itself
 * (nm over the build), nor any folder. */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "tests.h"

#define MAX_NODES 256
#define MAX_PATHS 16

/* lib/ and worker/ first (the call graph tells the two programs apart by them), then the tuner's
 * stages in pipeline order (the Makefile's STAGES), the driver that calls them all, and runtime/. */
static const char *const folders[] = {"lib", "worker", "tuner/config", "tuner/space", "tuner/build", "tuner/search",
				      "tuner/measure", "tuner/import", "tuner/results", "tuner", "runtime"};
enum { NFOLDERS = sizeof folders / sizeof *folders, FIRST_STAGE = 2, DRIVER = 9 };

/* A graph of named nodes: files or modules, with "a uses b" edges. */
typedef struct {
	char names[MAX_NODES][256];
	char folder[MAX_NODES]; /* index into folders */
	char edge[MAX_NODES][MAX_NODES];
	char why[MAX_NODES][MAX_NODES][48]; /* where the edge comes from, for the message */
	int n;
} graph;

static int node(graph *g, const char *name, int folder)
{
	for (int i = 0; i < g->n; i++)
		if (!strcmp(g->names[i], name))
			return i;
	CU_ASSERT_FATAL(g->n < MAX_NODES);
	snprintf(g->names[g->n], sizeof g->names[0], "%s", name);
	g->folder[g->n] = (char)folder;
	return g->n++;
}

static void add_edge(graph *g, int a, int b, const char *why)
{
	if (a == b || g->edge[a][b])
		return;
	g->edge[a][b] = 1;
	snprintf(g->why[a][b], sizeof g->why[0][0], "%s", why);
}

/* The edges that close a circle (both ends reach each other), each printed; how many. */
static int circles(const graph *g, const char *kind)
{
	static char reach[MAX_NODES][MAX_NODES];
	for (int i = 0; i < g->n; i++)
		for (int j = 0; j < g->n; j++)
			reach[i][j] = g->edge[i][j];
	for (int k = 0; k < g->n; k++)
		for (int i = 0; i < g->n; i++)
			if (reach[i][k])
				for (int j = 0; j < g->n; j++)
					reach[i][j] |= reach[k][j];
	int found = 0;
	for (int i = 0; i < g->n; i++)
		for (int j = 0; j < g->n; j++)
			if (g->edge[i][j] && reach[j][i]) {
				fprintf(stderr, "\n  %s circle: %s -> %s (%s), and %s reaches back", kind, g->names[i], g->names[j],
					g->why[i][j], g->names[j]);
				found++;
			}
	return found;
}

/* g's edges between folders as a graph of its own (fg: one node per folder, index = folder), each
 * edge that reaches a later stage printed: how many such. A stage's files may use lib/, runtime/
 * and the stages before it; the driver (tuner/) every stage. */
static int folder_edges(const graph *g, graph *fg, const char *kind)
{
	memset(fg, 0, sizeof *fg);
	for (int f = 0; f < NFOLDERS; f++)
		node(fg, folders[f], f);
	int later = 0;
	for (int i = 0; i < g->n; i++)
		for (int j = 0; j < g->n; j++) {
			int a = g->folder[i], b = g->folder[j];
			if (!g->edge[i][j] || a == b)
				continue;
			char why[48];
			snprintf(why, sizeof why, "%s", g->why[i][j]);
			add_edge(fg, a, b, why);
			if (a >= FIRST_STAGE && a <= DRIVER && b >= FIRST_STAGE && b <= DRIVER && b > a) {
				fprintf(stderr, "\n  %s of a later stage: %s -> %s (%s)", kind, g->names[i], g->names[j],
					g->why[i][j]);
				later++;
			}
		}
	return later;
}

/* The Makefile's INC_<folder> line: the folders after -I, in order; -1 when there is none. */
static int include_paths(const char *makefile, const char *folder, char paths[MAX_PATHS][64])
{
	char head[80];
	snprintf(head, sizeof head, "\nINC_%s =", folder);
	const char *at = strstr(makefile, head);
	if (!at)
		return -1;
	at += strlen(head);
	int n = 0;
	size_t len = strcspn(at, "\n");
	for (const char *p = at; p < at + len && n < MAX_PATHS; p++)
		if (!strncmp(p, "-I", 2)) {
			size_t w = strcspn(p + 2, " \t\n");
			snprintf(paths[n++], 64, "%.*s", (int)w, p + 2);
		}
	return n;
}

static int exists(const char *dir, const char *name, const char *ext)
{
	char path[300];
	snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
	return access(path, F_OK) == 0;
}

/* "dir/name" into out; truncated names are not ours (asserted). */
static void join(char *out, size_t len, const char *dir, const char *name)
{
	CU_ASSERT(snprintf(out, len, "%s/%s", dir, name) < (int)len);
}

/* A file's module: X.c with X.h; a file of X_Y without a pair of its own (config_yaml.c,
 * measure_pass.h) is X's, the longest such X; else the file alone. */
static void module_of(const char *dir, const char *stem, char *out, size_t len)
{
	char prefix[256];
	join(out, len, dir, stem);
	if (exists(dir, stem, ".c") && exists(dir, stem, ".h"))
		return;
	snprintf(prefix, sizeof prefix, "%s", stem);
	for (char *cut; (cut = strrchr(prefix, '_'));) {
		*cut = 0;
		if (exists(dir, prefix, ".c") || exists(dir, prefix, ".h")) {
			join(out, len, dir, prefix);
			return;
		}
	}
}

/* The sources of a folder, .c and .h, each given to fn. */
static void each_source(int f, void (*fn)(void *ctx, int folder, const char *name), void *ctx)
{
	DIR *d = opendir(folders[f]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len > 2 && (!strcmp(e->d_name + len - 2, ".c") || !strcmp(e->d_name + len - 2, ".h")))
			fn(ctx, f, e->d_name);
	}
	closedir(d);
}

typedef struct {
	graph *g;
	char paths[NFOLDERS][MAX_PATHS][64];
	int npaths[NFOLDERS];
	int unreached, includes;
} include_walk;

/* One file's "#include"s: each found through its folder, then its include paths, as the
 * compiler looks; an edge from its module to the header's. */
static void file_includes(void *ctx, int f, const char *name)
{
	include_walk *w = ctx;
	char path[300], line[512], from[256], to[256], stem[128];
	snprintf(path, sizeof path, "%s/%s", folders[f], name);
	snprintf(stem, sizeof stem, "%.*s", (int)(strlen(name) - 2), name);
	module_of(folders[f], stem, from, sizeof from);
	FILE *fp = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	for (int n = 1; fgets(line, sizeof line, fp); n++) {
		char header[256];
		if (sscanf(line, " # include \"%255[^\"]\"", header) != 1)
			continue;
		w->includes++;
		const char *dir = folders[f];
		for (int k = -1; k < w->npaths[f] && !exists(dir, header, ""); k++)
			dir = k + 1 < w->npaths[f] ? w->paths[f][k + 1] : NULL;
		if (!dir) {
			fprintf(stderr, "\n  %s:%d: includes %s, which %s/'s include paths (Makefile) do not reach", path, n,
				header, folders[f]);
			w->unreached++;
			continue;
		}
		int hf = 0;
		while (hf < NFOLDERS && strcmp(folders[hf], dir))
			hf++;
		snprintf(stem, sizeof stem, "%.*s", (int)(strlen(header) - 2), header);
		module_of(dir, stem, to, sizeof to);
		char why[48];
		snprintf(why, sizeof why, "%s:%d", name, n);
		add_edge(w->g, node(w->g, from, f), node(w->g, to, hf < NFOLDERS ? hf : f), why);
	}
	fclose(fp);
}

static void test_each_folder_sees_only_what_it_may_use(void)
{
	char *makefile = read_text("Makefile");
	CU_ASSERT_PTR_NOT_NULL_FATAL(makefile);
	char paths[MAX_PATHS][64];
	/* lib/ nothing above it, nor the run-time library, installed alone; the worker lib/ alone */
	CU_ASSERT_EQUAL(include_paths(makefile, "lib", paths), 0);
	CU_ASSERT_EQUAL(include_paths(makefile, "runtime", paths), 0);
	CU_ASSERT_EQUAL(include_paths(makefile, "worker", paths), 1);
	CU_ASSERT_STRING_EQUAL(paths[0], "lib");
	/* every folder has its line, and none reaches the worker or the tests */
	for (int f = 0; f < NFOLDERS; f++) {
		int n = include_paths(makefile, folders[f], paths);
		CU_ASSERT(n >= 0);
		for (int i = 0; i < n; i++)
			CU_ASSERT(strcmp(paths[i], "worker") && strncmp(paths[i], "tests", 5));
	}
	/* and each folder's objects are compiled with its own line */
	for (int f = 0; f < NFOLDERS; f++) {
		char rule[160];
		snprintf(rule, sizeof rule, "$(B)/%s/%%.o: private INCLUDES = $(INC_%s)\n", folders[f], folders[f]);
		CU_ASSERT_PTR_NOT_NULL(strstr(makefile, rule));
	}
	free(makefile);
}

static void test_no_module_includes_its_way_back(void)
{
	static graph g;
	static include_walk w;
	memset(&g, 0, sizeof g);
	memset(&w, 0, sizeof w);
	w.g = &g;
	char *makefile = read_text("Makefile");
	CU_ASSERT_PTR_NOT_NULL_FATAL(makefile);
	for (int f = 0; f < NFOLDERS; f++)
		w.npaths[f] = include_paths(makefile, folders[f], w.paths[f]);
	free(makefile);
	for (int f = 0; f < NFOLDERS; f++)
		each_source(f, file_includes, &w);
	CU_ASSERT(w.includes > 300);
	CU_ASSERT(g.n > 40);
	CU_ASSERT_EQUAL(w.unreached, 0);
	CU_ASSERT_EQUAL(circles(&g, "include"), 0);
	/* and between folders: no stage includes a later one's header, no folder its way back */
	static graph fg;
	CU_ASSERT_EQUAL(folder_edges(&g, &fg, "include"), 0);
	CU_ASSERT_EQUAL(circles(&fg, "folder include"), 0);
	int edges = 0;
	for (int i = 0; i < fg.n; i++)
		for (int j = 0; j < fg.n; j++)
			edges += fg.edge[i][j];
	CU_ASSERT(edges > 20); /* the stages do use each other */
	/* the rule itself: a circle of three is found, each of its edges */
	static graph t;
	memset(&t, 0, sizeof t);
	int a = node(&t, "a", 0), b = node(&t, "b", 0), c = node(&t, "c", 0), d = node(&t, "d", 0);
	add_edge(&t, a, b, "");
	add_edge(&t, b, c, "");
	add_edge(&t, c, d, "");
	CU_ASSERT_EQUAL(circles(&t, "(test)"), 0);
	add_edge(&t, c, a, "");
	fprintf(stderr, "\n  (a circle made on purpose follows)");
	CU_ASSERT_EQUAL(circles(&t, "(test)"), 3);
}

/* The tuner's stages stacked in pipeline order: the Makefile's STAGES are this file's, in its
 * order, and each stage compiles with its own folder first and the folders of every earlier stage,
 * none of a later one, so that an include of a later stage's header fails the build; the driver
 * sees every stage. */
static void test_the_stages_stack_in_pipeline_order(void)
{
	char *makefile = read_text("Makefile");
	CU_ASSERT_PTR_NOT_NULL_FATAL(makefile);
	const char *at = strstr(makefile, "\nSTAGES =");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	char want[256] = "", got[256];
	for (int k = FIRST_STAGE; k < DRIVER; k++)
		snprintf(want + strlen(want), sizeof want - strlen(want), " %s", folders[k] + strlen("tuner/"));
	snprintf(got, sizeof got, "%.*s", (int)strcspn(at + 9, "\n"), at + 9);
	CU_ASSERT_STRING_EQUAL(got, want);
	for (int k = FIRST_STAGE; k <= DRIVER; k++) {
		char paths[MAX_PATHS][64];
		int n = include_paths(makefile, folders[k], paths), tuner = 0;
		CU_ASSERT_FATAL(n > 0);
		CU_ASSERT_STRING_EQUAL(paths[0], folders[k]);
		for (int i = 0; i < n; i++) {
			if (strncmp(paths[i], "tuner", 5))
				continue;
			int f = FIRST_STAGE;
			while (f <= DRIVER && strcmp(folders[f], paths[i]))
				f++;
			if (f > k)
				fprintf(stderr, "\n  INC_%s has -I%s, a later stage or none", folders[k], paths[i]);
			CU_ASSERT(f <= k);
			tuner++;
		}
		CU_ASSERT_EQUAL(tuner, k - FIRST_STAGE + 1); /* each earlier stage once */
	}
	free(makefile);
	/* the rule itself: an include of the search's header in the config stage is found, and one of
	 * the config's in the search is not */
	static graph g, fg;
	memset(&g, 0, sizeof g);
	int config = node(&g, "tuner/config/config", FIRST_STAGE), search = node(&g, "tuner/search/search", FIRST_STAGE + 3);
	add_edge(&g, search, config, "search.h:1");
	CU_ASSERT_EQUAL(folder_edges(&g, &fg, "(test)"), 0);
	add_edge(&g, config, search, "config.c:1");
	fprintf(stderr, "\n  (an include of a later stage made on purpose follows)");
	CU_ASSERT_EQUAL(folder_edges(&g, &fg, "(test)"), 1);
	CU_ASSERT_EQUAL(circles(&fg, "(test)"), 2);
}

/* The driver's modules, those that call every stage: any other file of tuner/ itself belongs in the
 * stage whose headers it needs (a file merged in from elsewhere lands here otherwise). */
static const char *const driver[] = {"main", "tune", "tune_opts", "instances", "run_files", "summary", "stages",
				     "signals", "check"};
enum { NDRIVER = sizeof driver / sizeof *driver };

static void driver_file(void *ctx, int f, const char *name)
{
	int *strays = ctx, known = 0;
	if (f != DRIVER)
		return;
	for (int i = 0; i < NDRIVER && !known; i++)
		known = strlen(name) == strlen(driver[i]) + 2 && !strncmp(name, driver[i], strlen(driver[i]));
	if (!known) {
		fprintf(stderr, "\n  tuner/%s: not the driver's; move it into the stage whose headers it needs", name);
		(*strays)++;
	}
}

static void test_the_driver_holds_only_the_driver(void)
{
	int strays = 0;
	each_source(DRIVER, driver_file, &strays);
	CU_ASSERT_EQUAL(strays, 0);
	for (int i = 0; i < NDRIVER; i++) {
		char path[64];
		snprintf(path, sizeof path, "tuner/%s.c", driver[i]);
		CU_ASSERT_EQUAL(access(path, F_OK), 0); /* the list names no module that is gone */
	}
	/* the rule itself: a schedule.c in tuner/ is a stray, a tune.h is not */
	strays = 0;
	driver_file(&strays, DRIVER, "tune.h");
	CU_ASSERT_EQUAL(strays, 0);
	fprintf(stderr, "\n  (a stray made on purpose follows)");
	driver_file(&strays, DRIVER, "schedule.c");
	CU_ASSERT_EQUAL(strays, 1);
}

/* nm's external symbols of one object: what it defines and what it needs. */
typedef struct {
	char name[96];
	int obj;
} symbol;

typedef struct {
	symbol *defs, *uses;
	size_t ndefs, nuses, cap_defs, cap_uses;
	graph *g;
	int objects;
} call_walk;

static void push(symbol **v, size_t *n, size_t *cap, const char *name, int obj)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		*v = realloc(*v, *cap * sizeof **v);
		CU_ASSERT_PTR_NOT_NULL_FATAL(*v);
	}
	snprintf((*v)[*n].name, sizeof (*v)[*n].name, "%s", name);
	(*v)[(*n)++].obj = obj;
}

/* A .c file's object, wherever the build puts it: build/DIR/X.o or build/X.o. */
static void object_symbols(void *ctx, int f, const char *name)
{
	call_walk *w = ctx;
	size_t len = strlen(name);
	if (strcmp(name + len - 2, ".c"))
		return;
	char obj[300], label[128];
	snprintf(obj, sizeof obj, "build/%s/%.*s.o", folders[f], (int)(len - 2), name);
	if (access(obj, F_OK))
		snprintf(obj, sizeof obj, "build/%.*s.o", (int)(len - 2), name);
	if (access(obj, F_OK))
		return;
	snprintf(label, sizeof label, "%s/%s", folders[f], name);
	int me = node(w->g, label, f);
	char *out = NULL;
	CU_ASSERT_EQUAL(proc_capture((char *[]){"nm", "-g", obj, NULL}, 30, &out), 0);
	w->objects++;
	for (char *line = out; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char a[96], b[96], c[96];
		int k = sscanf(line, "%95s %95s %95s", a, b, c);
		if (k == 2 && !strcmp(a, "U"))
			push(&w->uses, &w->nuses, &w->cap_uses, b, me);
		else if (k == 3 && strchr("TDBRCGSV", b[0]))
			push(&w->defs, &w->ndefs, &w->cap_defs, c, me);
		line = next;
	}
	free(out);
}

static int by_name(const void *x, const void *y) { return strcmp(((const symbol *)x)->name, ((const symbol *)y)->name); }

static void test_no_file_calls_its_way_back(void)
{
	static graph g;
	memset(&g, 0, sizeof g);
	call_walk w = {.g = &g};
	for (int f = 0; f < NFOLDERS; f++)
		each_source(f, object_symbols, &w);
	if (w.objects < 40) {
		fprintf(stderr, "\n  (%d objects under build/: calls not checked; run after make)", w.objects);
		CU_FAIL("no objects to read");
	}
	qsort(w.defs, w.ndefs, sizeof *w.defs, by_name);
	for (size_t i = 0; i < w.nuses; i++) {
		symbol *s = bsearch(&w.uses[i], w.defs, w.ndefs, sizeof *w.defs, by_name);
		if (!s)
			continue; /* libc, libyaml, the driver */
		while (s > w.defs && !strcmp(s[-1].name, s->name))
			s--;
		/* two programs: the worker's objects and the tuner's, lib/ in both */
		int user = w.uses[i].obj, in_worker = g.folder[user] == 1;
		for (; s < w.defs + w.ndefs && !strcmp(s->name, w.uses[i].name); s++)
			if (g.folder[s->obj] == 0 || (g.folder[s->obj] == 1) == in_worker)
				add_edge(&g, user, s->obj, s->name);
	}
	CU_ASSERT(w.ndefs > 300);
	int calls = 0;
	for (int i = 0; i < g.n; i++)
		for (int j = 0; j < g.n; j++)
			calls += g.edge[i][j];
	CU_ASSERT(calls > 150);
	CU_ASSERT_EQUAL(circles(&g, "call"), 0);
	static graph fg;
	CU_ASSERT_EQUAL(folder_edges(&g, &fg, "call"), 0);
	CU_ASSERT_EQUAL(circles(&fg, "folder call"), 0);
	free(w.defs);
	free(w.uses);
}

/* The functions autotune_select.h declares (autotune_NAME followed by "(" outside its comments),
 * space-separated into out; how many. */
static int declared_functions(char *out, size_t len)
{
	char *h = read_text("runtime/autotune_select.h");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	int n = 0;
	out[0] = 0;
	for (char *line = h; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		for (char *p = line; *line != '/' && *line != ' ' && (p = strstr(p, "autotune_")); p++) {
			size_t w = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
			if (p[w] == '(' && (p == line || p[-1] == ' ' || p[-1] == '*')) {
				snprintf(out + strlen(out), len - strlen(out), " %.*s", (int)w, p);
				n++;
			}
		}
		line = next;
	}
	free(h);
	return n;
}

/* The global symbols nm finds defined in path (args: nm's options): how many, each that the header
 * does not declare printed and counted into *strangers, each declared one struck from missing. */
static int exported(const char *path, const char *opt, const char *declared, int *strangers, char *missing)
{
	char *out = NULL;
	CU_ASSERT_EQUAL_FATAL(proc_capture((char *[]){"nm", (char *)opt, "--defined-only", (char *)path, NULL}, 30, &out), 0);
	int n = 0;
	for (char *line = out; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char addr[64], type[8], name[128], word[132];
		if (sscanf(line, "%63s %7s %127s", addr, type, name) == 3) {
			n++;
			snprintf(word, sizeof word, " %s", name);
			size_t wl = strlen(word);
			char *at = strstr(declared, word);
			while (at && at[wl] && at[wl] != ' ')
				at = strstr(at + 1, word);
			if (!at || strncmp(name, "autotune_", 9)) {
				fprintf(stderr, "\n  %s exports %s, which autotune_select.h does not declare", path, name);
				(*strangers)++;
			} else {
				char *m = strstr(missing, word);
				while (m && m[wl] && m[wl] != ' ')
					m = strstr(m + 1, word);
				if (m)
					memset(m + 1, '-', wl - 1);
			}
		}
		line = next;
	}
	free(out);
	return n;
}

/* The installed run-time library's interface is autotune_select.h: the shared library exports
 * its functions and nothing else, and the static one defines no other global symbol, so that
 * the library's helpers never clash with a program's own names. */
static void test_the_library_exports_only_its_interface(void)
{
	static const char *const libs[][2] = {{"build/libautotune_select.so", "-D"}, {"build/libautotune_select.a", "-g"}};
	char declared[2048];
	int ndeclared = declared_functions(declared, sizeof declared);
	CU_ASSERT(ndeclared >= 12);
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
		if (access(libs[i][0], F_OK)) {
			fprintf(stderr, "\n  no %s: run after make", libs[i][0]);
			CU_FAIL("library not built");
			continue;
		}
		char missing[2048];
		snprintf(missing, sizeof missing, "%s", declared);
		int strangers = 0;
		CU_ASSERT_EQUAL(exported(libs[i][0], libs[i][1], declared, &strangers, missing), ndeclared);
		CU_ASSERT_EQUAL(strangers, 0);
		if (strchr(missing, 'a'))
			fprintf(stderr, "\n  %s does not export all of:%s", libs[i][0], missing);
		CU_ASSERT_PTR_NULL(strchr(missing, 'a'));
	}
}

int add_layers_suite(void)
{
	CU_pSuite s = CU_add_suite("layers", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "each folder sees only what it may use", test_each_folder_sees_only_what_it_may_use);
	CU_add_test(s, "no module includes its way back", test_no_module_includes_its_way_back);
	CU_add_test(s, "the stages stack in pipeline order", test_the_stages_stack_in_pipeline_order);
	CU_add_test(s, "the driver holds only the driver", test_the_driver_holds_only_the_driver);
	CU_add_test(s, "no file calls its way back", test_no_file_calls_its_way_back);
	CU_add_test(s, "the library exports only its interface", test_the_library_exports_only_its_interface);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
