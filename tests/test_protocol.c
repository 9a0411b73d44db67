/* test_protocol.c: every message of the worker's protocol comes back from its line as it went in,
 * malformed lines are refused, and lines in the formats on disk (journals) still read. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "tests.h"

/* Room for any message struct. */
typedef union {
	proto_run run;
	proto_array array;
	proto_result result;
	proto_device_info device;
	proto_metrics metrics;
	char bytes[512];
	long long align;
} any_msg;

#define FIELD(type, msg, f) ((type *)((char *)(msg) + (f)->offset))

/* A value that each field's format writes exactly (a 17-digit double must keep all of them). */
static double sample_double(const proto_field *f, size_t i)
{
	if (!strcmp(f->format, "%.0f"))
		return 1000.0 + (double)i;
	if (!strcmp(f->format, "%.17g"))
		return 1.0 / 3.0 + (double)i;
	return 2.5 + (double)i;
}

/* Fills every field with a distinct value; text gets spaces of its own. */
static void fill(const proto_msg *m, any_msg *msg)
{
	static char words[32][32];
	memset(msg, 0, sizeof *msg);
	for (size_t i = 0; i < m->nfields; i++) {
		const proto_field *f = &m->fields[i];
		switch (f->type) {
		case PF_LL: *FIELD(long long, msg, f) = -1000000000000LL - (long long)i; break;
		case PF_ULL: *FIELD(unsigned long long, msg, f) = 18000000000000000000ULL + i; break;
		case PF_DBL: *FIELD(double, msg, f) = sample_double(f, i); break;
		case PF_WORD:
		case PF_OPT_WORD:
			snprintf(words[i], sizeof words[i], "w%zu/x.y", i);
			*FIELD(const char *, msg, f) = words[i];
			break;
		case PF_TEXT: *FIELD(const char *, msg, f) = "text  with spaces, a / and a tab\t"; break;
		}
	}
}

/* The fields of a and b are equal (strings by content). */
static int same(const proto_msg *m, const any_msg *a, const any_msg *b)
{
	for (size_t i = 0; i < m->nfields; i++) {
		const proto_field *f = &m->fields[i];
		const void *x = (const char *)a + f->offset, *y = (const char *)b + f->offset;
		int eq;
		switch (f->type) {
		case PF_LL: eq = *(const long long *)x == *(const long long *)y; break;
		case PF_ULL: eq = *(const unsigned long long *)x == *(const unsigned long long *)y; break;
		case PF_DBL: eq = *(const double *)x == *(const double *)y; break;
		default: {
			const char *s = *(const char *const *)x, *t = *(const char *const *)y;
			eq = (!s && !t) || (s && t && !strcmp(s, t));
		}
		}
		if (!eq) {
			fprintf(stderr, "\n%s: field %zu differs after the round trip\n", m->keyword, i);
			return 0;
		}
	}
	return 1;
}

/* encode -> decode -> equal, for msg as given. */
static int round_trip(const proto_msg *m, const any_msg *msg)
{
	char *line = proto_encode(m, msg);
	if (!line)
		return 0;
	any_msg back;
	memset(&back, 0x5A, sizeof back);
	int ok = !strchr(line, '\n') && proto_decode(m, line, &back) == 0 && same(m, msg, &back);
	if (!ok)
		fprintf(stderr, "\nround trip failed for: %s\n", line);
	free(line);
	return ok;
}

static void test_every_message_round_trips(void)
{
	CU_ASSERT(proto_nmessages >= 30);
	for (size_t k = 0; k < proto_nmessages; k++) {
		const proto_msg *m = proto_messages[k];
		any_msg msg;
		fill(m, &msg);
		CU_ASSERT(round_trip(m, &msg));
		/* the edges: an empty text, an absent optional word */
		for (size_t i = 0; i < m->nfields; i++) {
			const proto_field *f = &m->fields[i];
			if (f->type == PF_TEXT)
				*FIELD(const char *, &msg, f) = "";
			if (f->type == PF_OPT_WORD)
				*FIELD(const char *, &msg, f) = NULL;
		}
		CU_ASSERT(round_trip(m, &msg));
	}
}

static void test_counters_not_a_number_round_trip(void)
{
	proto_metrics m = {7, {12.5, NAN, 1e12, 0, INFINITY}}, back;
	char *line = proto_encode(&PROTO_METRICS_OF, &m);
	CU_ASSERT_STRING_EQUAL(line, "metrics 7 12.5 nan 1e+12 0 inf");
	CU_ASSERT(proto_decode(&PROTO_METRICS_OF, line, &back) == 0);
	CU_ASSERT(back.id == 7 && back.v[0] == 12.5 && isnan(back.v[1]) && back.v[2] == 1e12 && isinf(back.v[4]));
	free(line);
}

/* Each way a line can be damaged: cut short, too long, a number that is not one, two spaces, a
 * keyword that only starts the same. */
static void test_malformed_lines_are_refused(void)
{
	for (size_t k = 0; k < proto_nmessages; k++) {
		const proto_msg *m = proto_messages[k];
		any_msg msg, back;
		fill(m, &msg);
		char *line = proto_encode(m, &msg);
		size_t n = m->nfields;
		int ends_in_text = n && m->fields[n - 1].type == PF_TEXT;
		int ends_optional = n && m->fields[n - 1].type == PF_OPT_WORD;
		size_t len = strlen(line) + 8;
		char *longer = malloc(len);
		snprintf(longer, len, "%s extra", line);
		CU_ASSERT(proto_decode(m, longer, &back) == (ends_in_text ? 0 : -1));
		if (n && !ends_in_text && !ends_optional) {
			char *cut = strdup(line);
			*strrchr(cut, ' ') = 0;
			CU_ASSERT(proto_decode(m, cut, &back) == -1);
			free(cut);
		}
		for (size_t i = 0; i < n; i++) {
			if (m->fields[i].type > PF_DBL)
				continue;
			/* field i replaced by a word */
			char *bad = strdup(line), *p = bad + strlen(m->keyword);
			for (size_t j = 0; j < i; j++)
				p = strchr(p + 1, ' ');
			p[1] = 'x';
			CU_ASSERT(proto_decode(m, bad, &back) == -1);
			free(bad);
		}
		if (n && m->fields[0].type != PF_TEXT) {
			char *two = malloc(len);
			snprintf(two, len, "%s %s", m->keyword, line + strlen(m->keyword));
			CU_ASSERT(proto_decode(m, two, &back) == -1);
			free(two);
		}
		char *prefix = malloc(len);
		snprintf(prefix, len, "%sx%s", m->keyword, line + strlen(m->keyword));
		CU_ASSERT(proto_decode(m, prefix, &back) == -1);
		CU_ASSERT(!proto_is(m, prefix));
		free(prefix);
		free(longer);
		free(line);
	}
}

static void test_unsigned_fields_refuse_negatives(void)
{
	proto_sumcount sc;
	char line[] = "sumcount -1";
	CU_ASSERT(proto_decode(&PROTO_SUMCOUNT, line, &sc) == -1);
	char ok[] = "sumcount 12 -3.5";
	CU_ASSERT(proto_decode(&PROTO_SUMCOUNT, ok, &sc) == 0);
	CU_ASSERT(sc.count == 12 && !strcmp(sc.expected, "-3.5"));
}

/* Journals written before the protocol module (9 significant digits, a message after the last
 * field) read as they always did. */
/* A run's role is one of three words both ways; any other (a misspelling, another case, none)
 * is refused, so that the worker answers a protocol error rather than time the run. */
static void test_a_role_is_one_of_three_words(void)
{
	proto_role roles[] = {PROTO_ROLE_REF, PROTO_ROLE_CHECK, PROTO_ROLE_TIME}, back;
	for (size_t i = 0; i < 3; i++) {
		back = (proto_role)-1;
		CU_ASSERT_EQUAL(proto_role_parse(proto_role_name(roles[i]), &back), 0);
		CU_ASSERT_EQUAL(back, roles[i]);
	}
	CU_ASSERT_STRING_EQUAL(proto_role_name(PROTO_ROLE_TIME), "time");
	const char *bad[] = {"timing", "Ref", "", "refx", NULL};
	for (size_t i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(proto_role_parse(bad[i], &back), -1);
}

/* The stopping rule crosses the wire field by field and comes back whole (a swapped pair of
 * fields, min and max or race and near, would not). */
static void test_a_stopping_rule_crosses_the_wire_whole(void)
{
	stop_rule rule = {.noise_target = 0.015, .min_samples = 7, .max_samples = 900, .time_cap_s = 2.5, .race_ms = 1.25,
			  .near_ms = 1.0625};
	proto_run run = {.role = "check", .symbol = "k", .cubin = "/tmp/k.cubin"}, back;
	proto_run_set_rule(&run, &rule);
	char *line = proto_encode(&PROTO_RUN, &run);
	CU_ASSERT_EQUAL_FATAL(proto_decode(&PROTO_RUN, line, &back), 0);
	stop_rule got = proto_run_rule(&back);
	CU_ASSERT_EQUAL(memcmp(&got, &rule, sizeof rule), 0);
	free(line);
}

static void test_older_journal_records_read(void)
{
	char done[] = "done 3 0123456789abcdef ok 1234.56789 1.2345 2.5 20 8 0.00123456789 1 1980 1755 clock fell";
	proto_result r;
	CU_ASSERT(proto_decode(&PROTO_DONE, done, &r) == 0);
	CU_ASSERT(r.id == 3 && !strcmp(r.code, "0123456789abcdef") && !strcmp(r.status, "ok"));
	CU_ASSERT(r.median == 1234.56789 && r.noise == 0.00123456789 && r.samples == 20 && r.mhz_after == 1755);
	CU_ASSERT_STRING_EQUAL(r.message, "clock fell");
	char reply[] = "result 0 ok 1.000000 0.990000 1.010000 10 8 0.001000 1 1980 1980 ";
	CU_ASSERT(proto_decode(&PROTO_RESULT, reply, &r) == 0);
	CU_ASSERT(r.median == 1.0 && r.batch == 1 && !strcmp(r.message, ""));
}

int add_protocol_suite(void)
{
	CU_pSuite s = CU_add_suite("protocol", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "every message round-trips", test_every_message_round_trips);
	CU_add_test(s, "counters that are not numbers round-trip", test_counters_not_a_number_round_trip);
	CU_add_test(s, "malformed lines are refused", test_malformed_lines_are_refused);
	CU_add_test(s, "unsigned fields refuse negatives", test_unsigned_fields_refuse_negatives);
	CU_add_test(s, "older journal records read", test_older_journal_records_read);
	CU_add_test(s, "a role is one of three words", test_a_role_is_one_of_three_words);
	CU_add_test(s, "a stopping rule crosses the wire whole", test_a_stopping_rule_crosses_the_wire_whole);
	return 0;
}
