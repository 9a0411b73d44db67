/* hostref.c: verify.host's reference, made while the kernels are timed. The hostref command
 * loads the user's function, copies from the GPU the arrays the host cannot make, starts a
 * thread that makes the others (fills.h, on every core) and calls the function, and answers at
 * once: on a 1.6 GB softmax the host's part took 0.9 s that measuring waited for. CUDA stays on
 * the main thread, so the outputs go to the GPU when the first run that verifies joins the
 * thread (hostref_join). Host copies are anonymous mappings at a 2 MB boundary with
 * MADV_HUGEPAGE: on an H200 host, touching 1.65 GB on 16 cores took 58 ms so, 94 ms in 4 KiB
 * pages (1050 ms on one core). */
#define _GNU_SOURCE /* MADV_HUGEPAGE; dlsym into a function pointer, as POSIX allows */
#include "hostref.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "device.h"
#include "fills.h"
#include "protocol.h"
#include "transfer.h"
#include "banned.h"

#define HUGE_PAGE ((size_t)2 << 20)

/* The host's part, from the hostref command to its join; the thread reads only what is here. */
static struct {
	int pending;  /* made, or being made, and not yet on the GPU */
	int threaded; /* H.th runs it (else it ran on the main thread, no thread to be had) */
	pthread_t th;
	void *so;
	void (*fn)(void **);
	void *host[MAX_ARGS];
	size_t mapped[MAX_ARGS]; /* bytes mapped at host[i] */
	host_view v[MAX_ARGS];
	char fill[MAX_ARGS][16]; /* the fill the thread makes into host[i], or "" */
	int n, made;
	double copies_s, fills_s, function_s;
} H;

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* bytes of zeroed memory; from 2 MB up at a 2 MB boundary, in huge pages where the kernel has
 * them (THP "madvise" mode gives them only when asked). NULL when none can be had. */
static void *map_copy(size_t bytes, size_t *mapped)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (bytes + page - 1) / page * page;
	len = len ? len : page;
	if (len < HUGE_PAGE) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		*mapped = len;
		return p == MAP_FAILED ? NULL : p;
	}
	len = (len + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	char *p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	char *at = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (at > p)
		munmap(p, (size_t)(at - p));
	if (at + len < p + len + HUGE_PAGE)
		munmap(at + len, (size_t)(p + len + HUGE_PAGE - (at + len)));
	madvise(at, len, MADV_HUGEPAGE); /* advice: without huge pages the copy works the same */
	*mapped = len;
	return at;
}

static void free_copies(void)
{
	for (int i = 0; i < MAX_ARGS; i++) {
		if (H.host[i])
			munmap(H.host[i], H.mapped[i]);
		H.host[i] = NULL;
	}
}

/* Host copies of every array as filled (inputs as restored), on the main thread: the memory,
 * and what only the GPU has copied from it; the fills the host makes are left to the thread.
 * 0, or -1 answered. */
static int host_copies(void)
{
	H.n = args_count();
	H.made = 0;
	for (int i = 0; i < H.n; i++) {
		host_view *v = &H.v[i];
		*v = args_host_view(i);
		H.fill[i][0] = 0;
		if (!v->is_array)
			continue;
		if (!(H.host[i] = map_copy(v->bytes, &H.mapped[i]))) {
			reply_error("host", "out of host memory for a copy of argument %d (%zu bytes)", i + 1, v->bytes);
			return -1;
		}
		/* no elements: whether the host can make this fill (a constant outside an integer's
		 * range is the GPU's), without making any */
		if (v->host_fill[0] && fills_make(H.host[i], elem_base(v->type), v->host_fill, 0, v->seed, v->value, 1) == 0) {
			snprintf(H.fill[i], sizeof H.fill[i], "%s", v->host_fill);
			H.made++;
			continue;
		}
		CUresult r = download(H.host[i], v->src, v->bytes);
		if (r) {
			reply_error(err_name(r), "copying argument %d to the host", i + 1);
			return -1;
		}
	}
	return 0;
}

/* The thread: the fills, on every core, then the user's function. */
static void *host_part(void *unused)
{
	(void)unused;
	double t0 = seconds();
	for (int i = 0; i < H.n; i++)
		if (H.fill[i][0])
			fills_make(H.host[i], elem_base(H.v[i].type), H.fill[i], H.v[i].count * (uint64_t)elem_lanes(H.v[i].type),
				   H.v[i].seed, H.v[i].value, 0);
	double t1 = seconds();
	H.fn(H.host);
	H.fills_s = t1 - t0;
	H.function_s = seconds() - t1;
	return NULL;
}

/* hostref: verify.host's function, called once on host copies of the arrays; the outputs it
 * writes (those no expectation or sum check covers) are what every run must equal, once
 * hostref_join has them on the GPU. */
void cmd_hostref(char *line)
{
	proto_hostref ask;
	if (proto_decode(&PROTO_HOSTREF, line, &ask) || ask.path[0] != '/' || H.pending) {
		reply_error("protocol", "bad hostref command");
		return;
	}
	/* NODELETE: the reference's libraries stay loaded after dlclose, for threads they leave
	 * behind (OpenMP's idle team would otherwise wake into unmapped code and kill the worker) */
	void *so = dlopen(ask.path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	void (*fn)(void **) = NULL;
	if (so)
		*(void **)&fn = dlsym(so, PROTO_HOSTREF_SYMBOL);
	if (!fn) {
		reply_error("host", "cannot load %s: %s", ask.path, dlerror());
		if (so)
			dlclose(so);
		return;
	}
	double t0 = seconds();
	if (host_copies()) {
		free_copies();
		dlclose(so);
		return;
	}
	H.copies_s = seconds() - t0;
	H.so = so;
	H.fn = fn;
	H.pending = 1;
	H.threaded = pthread_create(&H.th, NULL, host_part, NULL) == 0;
	if (!H.threaded)
		host_part(NULL);
	reply_ok();
}

int hostref_pending(void) { return H.pending; }

/* AUTOTUNE_TRACE: the host reference's parts, to the worker log (bench/time_to_answer.sh and
 * tests/gpu/fills.sh read it): which inputs the host made and which it copied from the GPU, how
 * long the thread took and how long a run waited for it. */
static void trace_hostref(double waited_s, double back_s)
{
	const char *tr = getenv("AUTOTUNE_TRACE");
	if (!tr || !*tr || !strcmp(tr, "0"))
		return;
	int copied = -H.made;
	for (int i = 0; i < H.n; i++)
		copied += H.v[i].is_array;
	fprintf(stderr, "trace %d: hostref: %d arrays made on the host, %d copied from the GPU in %.1f ms (copies %.1f ms "
			"before the answer, fills %.1f ms on its thread); verify.host %.1f ms; a run waited %.1f ms for them; "
			"outputs to the GPU %.1f ms\n",
		(int)getpid(), H.made, copied, 1e3 * (H.copies_s + H.fills_s), 1e3 * H.copies_s, 1e3 * H.fills_s,
		1e3 * H.function_s, 1e3 * waited_s, 1e3 * back_s);
}

CUresult hostref_join(int *arg)
{
	*arg = -1;
	if (!H.pending)
		return CUDA_SUCCESS;
	double t0 = seconds();
	if (H.threaded)
		pthread_join(H.th, NULL);
	H.threaded = 0;
	double t1 = seconds();
	CUresult r = CUDA_SUCCESS;
	for (int i = 0; i < H.n && !r; i++) {
		if (!H.v[i].is_array || !H.v[i].from_host)
			continue;
		r = upload(H.v[i].ref, H.host[i], H.v[i].bytes);
		args_host_given(i, !r);
		if (r)
			*arg = i;
	}
	/* an output that could not be copied stays pending: each run that verifies tries again and
	 * fails, rather than passing without it */
	if (r)
		return r;
	trace_hostref(t1 - t0, seconds() - t1);
	free_copies();
	dlclose(H.so);
	H.so = NULL;
	H.pending = 0;
	return r;
}
