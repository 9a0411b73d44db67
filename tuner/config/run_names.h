/* run_names.h: the one place that names a run's files. Every file of a run lives beside its
 * results CSV (output.csv, NAME.csv by default) and is named from it: its extension replaced by
 * the file's suffix (NAME.journal), or, for the spec's list, added to it (NAME.csv.spec). Depends
 * on nothing but lib/, so the loader (a shard's CSV) and the results' writers use it alike. */
#ifndef AUTOTUNE_RUN_NAMES_H
#define AUTOTUNE_RUN_NAMES_H

typedef enum {
	RUN_FILE_JOURNAL,    /* NAME.journal: each measurement as it is made, and the run's lock (NAME.journal.lock) */
	RUN_FILE_WORKER_LOG, /* NAME.worker.log: what the GPU workers said */
	RUN_FILE_REPLAY_CSV, /* NAME.replay.csv: a --replay's sequence */
	RUN_FILE_T4,         /* NAME.t4.json: the results as a T4 file (--t4, output.t4) */
	RUN_FILE_DRY_CSV,    /* NAME.dry-run.csv: a dry run's results, never over measured ones */
	RUN_FILE_REPORT,     /* NAME.html: the report (only a ".csv" extension is replaced) */
	RUN_FILE_SPEC_LIST,  /* NAME.csv.spec: the files the spec hash covers, for staleness */
} run_file;

/* The file `which` of the results at csv. Caller frees. */
char *run_name(const char *csv, run_file which);
/* A shard's CSV of the results at csv: NAME.shard-I-of-N.csv. Caller frees. */
char *run_shard_name(const char *csv, int shard, int nshards);
/* I and N from a name run_shard_name gave a shard's CSV: 1, else 0 (not such a name). */
int run_shard_of_name(const char *csv, int *shard, int *nshards);
/* An instance's part of the results at csv: NAME<suffix>.csv (config_instance_suffix). Caller frees. */
char *run_part_name(const char *csv, const char *suffix);

#endif
