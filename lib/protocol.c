/* protocol.c: the tables of the protocol's messages and the one encoder and decoder they share. */
#include "protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define LL PROTO_LL
#define ULL PROTO_ULL
#define DBL PROTO_DBL
#define WORD PROTO_WORD
#define OPT_WORD PROTO_OPT_WORD
#define TEXT PROTO_TEXT
#define MSG PROTO_MSG
#define BARE(name, kw) const proto_msg name = {kw, NULL, 0}

/* Doubles that must come back as they were are written with 17 digits. */
#define EXACT "%.17g"

static const proto_field device_f[] = {LL(proto_device, ordinal)};
MSG(PROTO_DEVICE, "device", device_f);

static const proto_field array_f[] = {LL(proto_array, idx),        WORD(proto_array, type),  ULL(proto_array, count),
				      WORD(proto_array, fill),     DBL(proto_array, value, EXACT), ULL(proto_array, seed),
				      LL(proto_array, output),     LL(proto_array, restore), OPT_WORD(proto_array, name)};
MSG(PROTO_ARRAY, "array", array_f);

static const proto_field scalar_f[] = {LL(proto_scalar, idx), WORD(proto_scalar, type), WORD(proto_scalar, text)};
MSG(PROTO_SCALAR, "scalar", scalar_f);

static const proto_field sumcount_f[] = {ULL(proto_sumcount, count), OPT_WORD(proto_sumcount, expected)};
MSG(PROTO_SUMCOUNT, "sumcount", sumcount_f);

static const proto_field sumcheck_f[] = {LL(proto_sumcheck, out), LL(proto_sumcheck, in), OPT_WORD(proto_sumcheck, op)};
MSG(PROTO_SUMCHECK, "sumcheck", sumcheck_f);

static const proto_field measure_f[] = {WORD(proto_measure, cache), LL(proto_measure, every), ULL(proto_measure, sample),
					LL(proto_measure, mismatches), LL(proto_measure, pending)};
MSG(PROTO_MEASURE, "measure", measure_f);

static const proto_field constant_f[] = {LL(proto_constant, idx), TEXT(proto_constant, name)};
MSG(PROTO_CONSTANT, "constant", constant_f);

static const proto_field copy_f[] = {LL(proto_copy, to), LL(proto_copy, from)};
MSG(PROTO_COPY, "copy", copy_f);

static const proto_field let_f[] = {WORD(proto_let, name), WORD(proto_let, kind), WORD(proto_let, value)};
MSG(PROTO_LET, "let", let_f);

static const proto_field fillexpr_f[] = {LL(proto_fillexpr, idx), WORD(proto_fillexpr, role), TEXT(proto_fillexpr, expr)};
MSG(PROTO_FILLEXPR, "fillexpr", fillexpr_f);

static const proto_field fillfile_f[] = {LL(proto_fillfile, idx), WORD(proto_fillfile, role), ULL(proto_fillfile, offset),
					 TEXT(proto_fillfile, path)};
MSG(PROTO_FILLFILE, "fillfile", fillfile_f);

static const proto_field hostref_f[] = {TEXT(proto_hostref, path)};
MSG(PROTO_HOSTREF, "hostref", hostref_f);

#define LAUNCH(s, l)                                                                                           \
	LL(s, l.grid[0]), LL(s, l.grid[1]), LL(s, l.grid[2]), LL(s, l.block[0]), LL(s, l.block[1]), LL(s, l.block[2]), \
		LL(s, l.smem)

static const char *const role_names[] = {[PROTO_ROLE_REF] = "ref", [PROTO_ROLE_CHECK] = "check", [PROTO_ROLE_TIME] = "time"};

const char *proto_role_name(proto_role role)
{
	return role_names[role];
}

stop_rule proto_run_rule(const proto_run *run)
{
	return (stop_rule){.noise_target = run->noise, .min_samples = (size_t)run->min_samples,
			   .max_samples = (size_t)run->max_samples, .time_cap_s = run->time_cap, .race_ms = run->race,
			   .near_ms = run->near};
}

void proto_run_set_rule(proto_run *run, const stop_rule *rule)
{
	run->noise = rule->noise_target;
	run->min_samples = (long long)rule->min_samples;
	run->max_samples = (long long)rule->max_samples;
	run->time_cap = rule->time_cap_s;
	run->race = rule->race_ms;
	run->near = rule->near_ms;
}

int proto_role_parse(const char *word, proto_role *role)
{
	for (size_t i = 0; i < sizeof role_names / sizeof role_names[0]; i++)
		if (word && !strcmp(word, role_names[i])) {
			*role = (proto_role)i;
			return 0;
		}
	return -1;
}

static const proto_field run_f[] = {LL(proto_run, id),
				    WORD(proto_run, role),
				    LL(proto_run, warmup),
				    LL(proto_run, min_samples),
				    LL(proto_run, max_samples),
				    DBL(proto_run, time_cap, EXACT),
				    DBL(proto_run, noise, EXACT),
				    DBL(proto_run, race, EXACT),
				    DBL(proto_run, near, EXACT),
				    LAUNCH(proto_run, launch),
				    DBL(proto_run, rtol, EXACT),
				    DBL(proto_run, atol, EXACT),
				    WORD(proto_run, symbol),
				    TEXT(proto_run, cubin)};
MSG(PROTO_RUN, "run", run_f);

static const proto_field profile_f[] = {LAUNCH(proto_profile, launch), WORD(proto_profile, symbol),
					TEXT(proto_profile, cubin)};
MSG(PROTO_PROFILE, "profile", profile_f);

static const proto_field plan_f[] = {LL(proto_plan, streams), WORD(proto_plan, order), LL(proto_plan, launches)};
MSG(PROTO_PLAN, "plan", plan_f);

static const proto_field step_f[] = {LAUNCH(proto_step, launch), WORD(proto_step, args), WORD(proto_step, symbol)};
MSG(PROTO_STEP, "step", step_f);

static const proto_field counters_f[] = {WORD(proto_counters, set)};
MSG(PROTO_COUNTERS, "counters", counters_f);

BARE(PROTO_COUNT_ASK, "count");
BARE(PROTO_WARMUP, "warmup");
BARE(PROTO_COPYBW_ASK, "copybw");
BARE(PROTO_PROFILES, "profiles");
BARE(PROTO_QUIT, "quit");
BARE(PROTO_OK, "ok");
BARE(PROTO_HOSTWAIT, "hostwait");

static const proto_field error_f[] = {WORD(proto_error, code), TEXT(proto_error, message)};
MSG(PROTO_ERROR, "error", error_f);

static const proto_field device_info_f[] = {
	LL(proto_device_info, cc),	      LL(proto_device_info, sms),	     LL(proto_device_info, l2_bytes),
	ULL(proto_device_info, mem_bytes),    LL(proto_device_info, clock_khz), LL(proto_device_info, driver_version),
	WORD(proto_device_info, uuid),	      TEXT(proto_device_info, name)};
MSG(PROTO_DEVICE_INFO, "device", device_info_f);

static const proto_field count_f[] = {LL(proto_count, n)};
MSG(PROTO_COUNT, "count", count_f);

static const proto_field warm_f[] = {DBL(proto_warm, mhz, "%.0f"), DBL(proto_warm, max_mhz, "%.0f")};
MSG(PROTO_WARM, "ok", warm_f);

static const proto_field copybw_f[] = {DBL(proto_copybw, gbps, "%.1f")};
MSG(PROTO_COPYBW, "copybw", copybw_f);

/* Times in ms to the nanosecond; the journal stores what the worker said, digit for digit. */
#define MEASUREMENT                                                                                              \
	WORD(proto_result, status), DBL(proto_result, median, "%.6f"), DBL(proto_result, min, "%.6f"),           \
		DBL(proto_result, max, "%.6f"), LL(proto_result, samples), LL(proto_result, driver_blocks),      \
		DBL(proto_result, noise, "%.6f"), LL(proto_result, batch), DBL(proto_result, mhz_before, "%.0f"), \
		DBL(proto_result, mhz_after, "%.0f"), TEXT(proto_result, message)
static const proto_field result_f[] = {LL(proto_result, id), MEASUREMENT};
MSG(PROTO_RESULT, "result", result_f);
static const proto_field done_f[] = {LL(proto_result, id), WORD(proto_result, code), MEASUREMENT};
MSG(PROTO_DONE, "done", done_f);

#define COUNTERS(s)                                                                                       \
	DBL(s, v[0], "%.6g"), DBL(s, v[1], "%.6g"), DBL(s, v[2], "%.6g"), DBL(s, v[3], "%.6g"), \
		DBL(s, v[4], "%.6g")
static const proto_field metrics_f[] = {COUNTERS(proto_metrics)};
MSG(PROTO_METRICS, "metrics", metrics_f);
static const proto_field metrics_of_f[] = {LL(proto_metrics, id), COUNTERS(proto_metrics)};
MSG(PROTO_METRICS_OF, "metrics", metrics_of_f);

static const proto_field serial_f[] = {DBL(proto_serial, ms, "%.6f")};
MSG(PROTO_SERIAL, "serial", serial_f);

static const proto_field energy_f[] = {DBL(proto_energy, seconds, "%.3f")};
MSG(PROTO_ENERGY, "energy", energy_f);
static const proto_field joules_f[] = {DBL(proto_joules, joules, "%.9g"), DBL(proto_joules, watts, "%.6g"),
				       TEXT(proto_joules, note)};
MSG(PROTO_JOULES, "joules", joules_f);

static const proto_field unavailable_f[] = {TEXT(proto_unavailable, why)};
MSG(PROTO_UNAVAILABLE, "unavailable", unavailable_f);

const proto_msg *const proto_messages[] = {
	&PROTO_DEVICE,	    &PROTO_ARRAY,	&PROTO_SCALAR,	    &PROTO_SUMCOUNT,	&PROTO_SUMCHECK,    &PROTO_MEASURE,
	&PROTO_CONSTANT,    &PROTO_COPY,	&PROTO_LET,	    &PROTO_FILLEXPR,	&PROTO_FILLFILE,    &PROTO_HOSTREF, &PROTO_RUN,
	&PROTO_PROFILE,	    &PROTO_COUNT_ASK,	&PROTO_COUNTERS,    &PROTO_WARMUP,	&PROTO_COPYBW_ASK,  &PROTO_PROFILES,
	&PROTO_QUIT,	    &PROTO_OK,		&PROTO_ERROR,	    &PROTO_DEVICE_INFO, &PROTO_COUNT,	    &PROTO_WARM,
	&PROTO_COPYBW,	    &PROTO_RESULT,	&PROTO_METRICS,	    &PROTO_UNAVAILABLE, &PROTO_DONE,	    &PROTO_METRICS_OF,
	&PROTO_PLAN,	    &PROTO_STEP,	&PROTO_SERIAL,	    &PROTO_ENERGY,	&PROTO_JOULES,	    &PROTO_HOSTWAIT,
};
const size_t proto_nmessages = sizeof proto_messages / sizeof *proto_messages;

#define AT(type, msg, f) ((type *)((char *)(msg) + (f)->offset))
#define CAT(type, msg, f) ((const type *)((const char *)(msg) + (f)->offset))

char *proto_encode(const proto_msg *m, const void *msg)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	fputs(m->keyword, f);
	for (size_t i = 0; i < m->nfields; i++) {
		const proto_field *fd = &m->fields[i];
		if (fd->type == PF_OPT_WORD && !*CAT(const char *, msg, fd))
			break;
		fputc(' ', f);
		switch (fd->type) {
		case PF_LL: fprintf(f, "%lld", *CAT(long long, msg, fd)); break;
		case PF_ULL: fprintf(f, "%llu", *CAT(unsigned long long, msg, fd)); break;
		case PF_DBL: fprintf(f, fd->format, *CAT(double, msg, fd)); break;
		default: fputs(*CAT(const char *, msg, fd), f); break;
		}
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

int proto_is(const proto_msg *m, const char *line)
{
	size_t n = strlen(m->keyword);
	return !strncmp(line, m->keyword, n) && (!line[n] || line[n] == ' ');
}

/* One numeric field, the whole of token. */
static int number(const proto_field *fd, const char *token, void *msg)
{
	char *end;
	errno = 0;
	switch (fd->type) {
	case PF_LL: *AT(long long, msg, fd) = strtoll(token, &end, 10); break;
	case PF_ULL:
		if (*token == '-')
			return -1;
		*AT(unsigned long long, msg, fd) = strtoull(token, &end, 10);
		break;
	default: *AT(double, msg, fd) = strtod(token, &end); break;
	}
	return *token && !*end && errno != ERANGE ? 0 : -1;
}

int proto_decode(const proto_msg *m, char *line, void *msg)
{
	if (!proto_is(m, line))
		return -1;
	/* rest: the fields not read yet, or NULL when the line has ended */
	char *rest = line + strlen(m->keyword);
	rest = *rest ? rest + 1 : NULL;
	for (size_t i = 0; i < m->nfields; i++) {
		const proto_field *fd = &m->fields[i];
		if (fd->type == PF_TEXT) {
			*AT(const char *, msg, fd) = rest ? rest : "";
			return 0;
		}
		if (!rest) {
			if (fd->type != PF_OPT_WORD)
				return -1;
			*AT(const char *, msg, fd) = NULL;
			continue;
		}
		char *token = rest;
		size_t n = strcspn(token, " ");
		if (!n)
			return -1;
		if (token[n]) {
			token[n] = 0;
			rest = token + n + 1;
		} else
			rest = NULL;
		if (fd->type == PF_WORD || fd->type == PF_OPT_WORD)
			*AT(const char *, msg, fd) = token;
		else if (number(fd, token, msg))
			return -1;
	}
	return rest ? -1 : 0;
}
