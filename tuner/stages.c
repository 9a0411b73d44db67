/* stages.c: where a run's wall time went (stages.h). */
#include "stages.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "banned.h"

/* The CPU time of this process and its children (nvcc, the workers) over `wall` seconds of every
 * core: how much of the machine the run kept busy, compiling above all. */
static double cores_busy(double wall)
{
	struct rusage self, children;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (wall <= 0 || cores < 1 || getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &children))
		return 0;
	double cpu = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + children.ru_utime.tv_sec +
			      children.ru_stime.tv_sec) +
		     1e-6 * (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + children.ru_utime.tv_usec +
				     children.ru_stime.tv_usec);
	return cpu / (wall * (double)cores);
}

void stages_say(const char *name, size_t ngpus, double all, const double part[STAGE_COUNT])
{
	static const char *const what[STAGE_COUNT] = {"starting the GPU", "waiting for nvcc", "setting up inputs",
						      "measuring", "finalists", "counters", "writing"};
	double other = all;
	fprintf(stderr, "%s: %.1f s:", name, all);
	for (int i = 0; i < STAGE_COUNT; i++) {
		fprintf(stderr, "%s %.1f s %s%s", i ? "," : "", part[i], what[i], i == STAGE_START && ngpus > 1 ? "s" : "");
		other -= part[i];
	}
	if (other >= 0.05)
		fprintf(stderr, ", %.1f s other", other);
	fprintf(stderr, "; cores %.0f%% busy\n", 100 * cores_busy(all));
}
