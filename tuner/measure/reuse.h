/* reuse.h: measurements of earlier runs found again by what decided them (plan_identity), so
 * that after an edit of the kernel or the config only what changed is measured: the store the
 * journal fills from its records, the setting every identity of a run shares, and what a run
 * says of what it took. */
#ifndef AUTOTUNE_REUSE_H
#define AUTOTUNE_REUSE_H

#include <stddef.h>

#include "result.h"
#include "runner.h"

typedef struct config config;

/* What every measurement of a run shares beyond its configuration's binary and launch, as 16 hex
 * digits (part of plan_identity): the config's sections that decide how a configuration is
 * measured and checked (arguments, launch, plan, verify, measure but its finalists and metrics,
 * constants; read as YAML, so comments and layout do not count, nor name, kernel, space,
 * constraints, build, search, select, bytes, flops, output, instances: the code hash, the launch
 * and the constants below cover what they do to a measurement), the constants' values (an
 * instance's), the contents of the data files and of the host reference, the first GPU (name,
 * UUID), its driver, the number of GPUs and the connections a plan gets by default. Caller frees. */
char *reuse_setting(const config *cfg, const device_info *gpu0, size_t ngpus);

/* An earlier measurement: its identity, where it was read (the later of two of one identity
 * wins), what the journal's replay made of its records (2: finished), and the result. */
typedef struct {
	char ident[17];
	size_t order;
	char state;
	result r; /* its message owned */
} reuse_entry;

typedef struct reuse_store reuse_store;

reuse_store *reuse_new(void);
/* A new entry of ident read at order, its result empty (a plan's connections unknown: -1). */
reuse_entry *reuse_add(reuse_store *s, const char *ident, size_t order);
/* The entry of ident added last, or NULL (before reuse_settle). */
reuse_entry *reuse_last(reuse_store *s, const char *ident);
/* Once every entry is in: only finished measurements with an identity stay, one per identity (the
 * latest), at most REUSE_MAX (the latest). */
#define REUSE_MAX 100000
void reuse_settle(reuse_store *s);
size_t reuse_count(const reuse_store *s);
const reuse_entry *reuse_at(const reuse_store *s, size_t k);
/* journal_reuse on a settled store. */
int reuse_take(const reuse_store *s, const char *ident, result *r);
void reuse_free(reuse_store *s);

/* What journal_start found, for reuse_say to tell. */
typedef struct {
	size_t finished;    /* configurations whose result was taken from the journal */
	size_t in_flight;   /* started but never finished: marked crashed */
	int key_changed;    /* a journal existed for other inputs: started anew, its measurements kept */
	char changed[200];  /* then which, in words ("the kernel source, the GPU or its driver"); "" when
			     * unknown (a journal of an older autotune) */
	size_t kept;        /* earlier measurements found by identity (journal_reuse), whatever the key */
} journal_resume;

/* What the journal's start found, on stderr: a resume, a start afresh (and why), or earlier
 * measurements kept for an edited kernel or config. */
void reuse_say(const char *jpath, const journal_resume *resume, int fresh, int retry_failed);

#endif
