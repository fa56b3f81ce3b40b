// SPDX-License-Identifier: GPL-2.0
/*
 * afa-work: touch a file mapping in a chosen pattern and report the
 * minor faults it took, the signal fault-around changes.  With -t N, N
 * threads share each pass's mapping and split its touches.  It also
 * reports how often the touching thread (thread 0) moved to another CPU
 * during the pass: the module keeps a mapping's tally per CPU, so a
 * move restarts it (module/split.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define AFA_PROG "afa-work"
#include "afa-util.h"

enum pattern { PAT_SEQ, PAT_RAND, PAT_STRIDE, PAT_HOLES, PAT_ENDS };

/* A phase: one access pattern, repeated over fresh mappings (-k: one). */
struct phase {
	enum pattern pattern;
	unsigned int passes;	/* mmap, touch, hold, munmap; this often */
	size_t stride;		/* -s: bytes between touches; a block's size */
};

#define MAX_PHASES	8

struct opts {
	struct phase phase[MAX_PHASES];
	unsigned int nr_phases;
	size_t stride;		/* -s, for the phases that follow */
	size_t run;		/* pages touched at each stride, PAT_STRIDE */
	size_t length;		/* bytes of FILE to map; 0: all of it */
	int advice;		/* madvise() advice for the whole mapping */
	int shared;		/* MAP_SHARED instead of MAP_PRIVATE */
	unsigned int seed;	/* PAT_RAND */
	unsigned int hold_ms;	/* keep the mapping this long afterwards */
	unsigned int threads;	/* threads sharing each pass */
	int mapped;		/* report the pages the touches mapped */
	int keep;		/* one mapping for every phase and pass */
	int writes;		/* a phase writes (ends): map read-write */
	size_t align;		/* -A: map at an address aligned to it; 0: any */
	const char *path;
};

static const struct option long_opts[] = {
	{ "pattern", required_argument, NULL, 'p' },
	{ "passes", required_argument, NULL, 'n' },
	{ "stride", required_argument, NULL, 's' },
	{ "run", required_argument, NULL, 'R' },
	{ "length", required_argument, NULL, 'l' },
	{ "advise", required_argument, NULL, 'a' },
	{ "shared", no_argument, NULL, 'S' },
	{ "seed", required_argument, NULL, 'r' },
	{ "hold-ms", required_argument, NULL, 'H' },
	{ "threads", required_argument, NULL, 't' },
	{ "mapped", no_argument, NULL, 'm' },
	{ "keep", no_argument, NULL, 'k' },
	{ "align", required_argument, NULL, 'A' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: afa-work [options] FILE\n"
	      "  -p, --pattern seq|rand|stride|holes|ends  page order of the touches\n"
	      "                       (seq); each -p starts a new phase, up to 8;\n"
	      "                       holes: in each block of --stride bytes (aligned\n"
	      "                       in the address space) touch the first page of\n"
	      "                       its second half, MADV_DONTNEED the block's other\n"
	      "                       pages, touch its first page, then its last;\n"
	      "                       ends: write the first and last page of each\n"
	      "                       such block (private mappings: their copies)\n"
	      "  -n, --passes N       passes of the current phase (1)\n"
	      "  -s, --stride BYTES   distance between touches for stride, a block's\n"
	      "                       size for holes and ends (2097152); for the\n"
	      "                       current phase and those after it\n"
	      "  -R, --run PAGES      pages touched in a row at each stride (1)\n"
	      "  -l, --length BYTES   map only the first BYTES of FILE, whole pages (all)\n"
	      "  -a, --advise normal|seq|rand   madvise() the mapping (normal)\n"
	      "  -S, --shared         MAP_SHARED instead of MAP_PRIVATE\n"
	      "  -r, --seed N         seed of the random order (1)\n"
	      "  -H, --hold-ms MS     keep the mapping MS milliseconds afterwards (0)\n"
	      "  -t, --threads N      N threads split each pass's touches (1)\n"
	      "  -m, --mapped         also report the pages the touches mapped\n"
	      "  -k, --keep           one mapping for every phase and pass, unmapped\n"
	      "                       at the end: a pattern that changes in a mapping\n"
	      "  -A, --align BYTES    map at an address aligned to BYTES, a power of\n"
	      "                       two (any: where the kernel puts it)\n"
	      "Each pass maps FILE read-only (read-write with ends; at the address\n"
	      "of the previous pass when free), reads one byte per touched page\n"
	      "(ends: writes), holds the mapping and\n"
	      "unmaps it, then prints: phase=N pass=N pages=N minflt=N ns=N\n"
	      "migrations=N, and with -m mapped=N\n"
	      "minflt counts the whole process (getrusage RUSAGE_SELF); ns is the\n"
	      "wall time of the touches, from the first thread's start to the\n"
	      "last one's end; mapped is the mapping's resident pages after the\n"
	      "touches (Rss in /proc/self/smaps): what the faults' windows mapped.\n", f);
}

static enum pattern parse_pattern(const char *s)
{
	if (!strcmp(s, "seq"))
		return PAT_SEQ;
	if (!strcmp(s, "rand"))
		return PAT_RAND;
	if (!strcmp(s, "stride"))
		return PAT_STRIDE;
	if (!strcmp(s, "holes"))
		return PAT_HOLES;
	if (!strcmp(s, "ends"))
		return PAT_ENDS;
	fatal("unknown pattern '%s'", s);
}

static void add_phase(struct opts *o, const char *pattern)
{
	if (o->nr_phases == MAX_PHASES)
		fatal("at most %d phases", MAX_PHASES);
	o->phase[o->nr_phases++] = (struct phase){ parse_pattern(pattern), 1,
						   o->stride };
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){ .stride = 2 << 20, .run = 1, .advice = MADV_NORMAL,
			    .seed = 1, .threads = 1 };
	while ((c = getopt_long(argc, argv, "p:n:s:R:l:a:Sr:H:t:mkA:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			add_phase(o, optarg);
			break;
		case 'n':
			if (!o->nr_phases)
				add_phase(o, "seq");
			o->phase[o->nr_phases - 1].passes =
				parse_ulong_range(optarg, "passes", 0, ULONG_MAX);
			break;
		case 's':
			o->stride = parse_ulong_range(optarg, "stride", 0, ULONG_MAX);
			if (o->nr_phases)
				o->phase[o->nr_phases - 1].stride = o->stride;
			break;
		case 'R':
			o->run = parse_ulong_range(optarg, "run", 1, ULONG_MAX);
			break;
		case 'l':
			o->length = parse_ulong_range(optarg, "length", 1, ULONG_MAX);
			break;
		case 'a':
			if (!strcmp(optarg, "normal"))
				o->advice = MADV_NORMAL;
			else if (!strcmp(optarg, "seq"))
				o->advice = MADV_SEQUENTIAL;
			else if (!strcmp(optarg, "rand"))
				o->advice = MADV_RANDOM;
			else
				fatal("unknown advice '%s'", optarg);
			break;
		case 'S':
			o->shared = 1;
			break;
		case 'r':
			o->seed = parse_ulong_range(optarg, "seed", 0, ULONG_MAX);
			break;
		case 'H':
			o->hold_ms = parse_ulong_range(optarg, "hold time", 0, ULONG_MAX);
			break;
		case 't':
			o->threads = parse_ulong_range(optarg, "threads", 0, ULONG_MAX);
			if (o->threads < 1 || o->threads > 256)
				fatal("threads must be 1..256");
			break;
		case 'm':
			o->mapped = 1;
			break;
		case 'k':
			o->keep = 1;
			break;
		case 'A':
			o->align = parse_ulong_range(optarg, "alignment", 1, ULONG_MAX);
			if (o->align & (o->align - 1))
				fatal("alignment %zu is not a power of two", o->align);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		exit(2);
	}
	if (!o->nr_phases)
		add_phase(o, "seq");
	o->path = argv[optind];
}

static long minflt_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		fatal("getrusage: %s", strerror(errno));
	return ru.ru_minflt;
}

/*
 * Pages of the mapping at @map mapped now: its Rss in /proc/self/smaps,
 * which counts what the windows of its faults mapped, and nothing of the
 * program's own.
 */
static long mapped_pages(const void *map)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long start, end, kib;
	char line[4096], perms[8];
	int found = 0;

	if (!f)
		fatal("/proc/self/smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		/* a mapping's first line: start-end perms ... */
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3) {
			found = start == (uintptr_t)map;
		} else if (found && sscanf(line, "Rss: %lu kB", &kib) == 1) {
			fclose(f);
			return kib * 1024 / sysconf(_SC_PAGESIZE);
		}
	}
	fclose(f);
	fatal("/proc/self/smaps: no Rss for the mapping at %p", map);
}

/* Fisher-Yates over page indices, with a small private LCG for repeatability. */
static size_t *random_order(size_t n, unsigned int seed)
{
	size_t *idx = malloc(n * sizeof(*idx));
	uint64_t x = seed;
	size_t i, j, t;

	if (!idx)
		fatal("out of memory for %zu pages", n);
	for (i = 0; i < n; i++)
		idx[i] = i;
	for (i = n; i > 1; i--) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (x >> 33) % i;
		t = idx[i - 1];
		idx[i - 1] = idx[j];
		idx[j] = t;
	}
	return idx;
}

/*
 * A counter of this thread's CPU migrations, or -1 where the kernel has
 * no perf events (then every pass reports migrations=-1).
 */
static int migrations_open(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_MIGRATIONS,
	};

	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static long long migrations_now(int fd)
{
	uint64_t n;

	if (fd < 0)
		return -1;
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		fatal("read of the migration counter: %s", strerror(errno));
	return n;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* One pass's touches, split between its threads. */
struct job {
	const volatile char *map;
	size_t nr;		/* touches in the pass */
	size_t step;		/* bytes per unit of index: a page, or the stride */
	size_t run;		/* touches in a row at each step, a page apart */
	size_t page;
	const size_t *idx;	/* page order (PAT_RAND), or NULL: in order */
	unsigned int threads;
	int quit;		/* workers return */
};

static struct job job;
static pthread_barrier_t job_start, job_done;

/* Thread @i makes touches [nr * i / threads, nr * (i + 1) / threads). */
static size_t touch(const struct job *j, unsigned int i)
{
	size_t k = j->nr * i / j->threads;
	size_t end = j->nr * (i + 1) / j->threads;
	char sum = 0;

	for (; k < end; k++)
		sum += j->map[(j->idx ? j->idx[k] : k / j->run) * j->step +
			      k % j->run * j->page];
	(void)sum;
	return j->nr * (i + 1) / j->threads - j->nr * i / j->threads;
}

static void *worker(void *arg)
{
	unsigned int i = (uintptr_t)arg;

	for (;;) {
		pthread_barrier_wait(&job_start);
		if (job.quit)
			return NULL;
		touch(&job, i);
		pthread_barrier_wait(&job_done);
	}
}

/*
 * PAT_HOLES, one thread: in each block of @stride bytes, touch the first
 * page of its second half, drop the block's other pages from the page
 * tables (MADV_DONTNEED), touch its first page, then its last.  The
 * second touch finds the other half mapped at its near end only: a
 * window of the block's size maps the rest then, two faults a block; a
 * window of half the block, three.  Blocks are aligned in the address
 * space, as fault-around windows are (the kernel's do_fault_around()
 * aligns them by PTE index): the mapping's own start is aligned to a
 * page only, where no THP alignment applies (PREEMPT_RT kernels have no
 * THP), and a block across two windows would be a different pattern.
 * Return: the touches made.
 */
static size_t touch_holes(const volatile char *map, size_t len,
			  size_t stride, size_t page)
{
	size_t half = stride / 2, n = 0;
	size_t b = (stride - (uintptr_t)map % stride) % stride;
	char *m = (char *)map;
	char sum = 0;

	for (; b + stride <= len; b += stride, n += 3) {
		sum += map[b + half];
		if (madvise(m + b, half, MADV_DONTNEED) ||
		    madvise(m + b + half + page, half - page, MADV_DONTNEED))
			fatal("madvise MADV_DONTNEED: %s", strerror(errno));
		sum += map[b];
		sum += map[b + stride - page];
	}
	(void)sum;
	return n;
}

/*
 * PAT_ENDS, one thread: write the first and the last page of each block
 * of @stride bytes, aligned as touch_holes()'s.  In a private mapping
 * each write makes an anonymous copy (COW): present, dirty PTEs that no
 * window mapped and a larger read window would not have saved.
 * Return: the pages written.
 */
static size_t touch_ends(volatile char *map, size_t len, size_t stride,
			 size_t page)
{
	size_t b = (stride - (uintptr_t)map % stride) % stride, n = 0;

	for (; b + stride <= len; b += stride, n += 2) {
		map[b] = 1;
		map[b + stride - page] = 1;
	}
	return n;
}

/* All threads make the pass's touches; the caller is thread 0. */
static void run_job(void)
{
	if (job.threads > 1)
		pthread_barrier_wait(&job_start);
	touch(&job, 0);
	if (job.threads > 1)
		pthread_barrier_wait(&job_done);
}

/*
 * Start threads 1..threads-1 and run one empty job, so that their own
 * start-up faults (stack, TLS) land before the first pass is counted.
 */
static void start_threads(unsigned int threads)
{
	pthread_t tid;
	unsigned int i;
	int err;

	job.threads = threads;
	if (threads < 2)
		return;
	if (pthread_barrier_init(&job_start, NULL, threads) ||
	    pthread_barrier_init(&job_done, NULL, threads))
		fatal("pthread_barrier_init failed");
	for (i = 1; i < threads; i++) {
		err = pthread_create(&tid, NULL, worker, (void *)(uintptr_t)i);
		if (err)
			fatal("pthread_create: %s", strerror(err));
		pthread_detach(tid);
	}
	run_job();
}

static void stop_threads(void)
{
	job.quit = 1;
	if (job.threads > 1)
		pthread_barrier_wait(&job_start);
}

/*
 * Map @len bytes of FILE read-only (read-write where a phase writes), at
 * @hint when free, or aligned to -A's bytes, and advise it.
 */
static void *map_file(const struct opts *o, int fd, size_t len, void *hint)
{
	int prot = PROT_READ | (o->writes ? PROT_WRITE : 0);
	int flags = o->shared ? MAP_SHARED : MAP_PRIVATE;
	size_t page = sysconf(_SC_PAGESIZE);
	/* whole pages: @len is the file's size without -l */
	size_t span = (len + page - 1) / page * page;
	size_t res_len = span + (o->align > page ? o->align : page);
	char *res = NULL, *at;
	void *map;

	if (o->align) {
		/* reserve room for an aligned start, map there, trim the rest */
		res = mmap(NULL, res_len, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (res == MAP_FAILED)
			fatal("mmap %zu bytes to align to %zu: %s", res_len,
			      o->align, strerror(errno));
		at = res + (o->align - (uintptr_t)res % o->align) % o->align;
		hint = at;
		flags |= MAP_FIXED;
	}
	map = mmap(hint, len, prot, flags, fd, 0);
	if (map == MAP_FAILED)
		fatal("mmap %s: %s", o->path, strerror(errno));
	if (res) {
		at = map;
		if ((at > res && munmap(res, at - res)) ||
		    (res + res_len > at + span &&
		     munmap(at + span, res + res_len - (at + span))))
			fatal("munmap of the alignment's reservation: %s",
			      strerror(errno));
	}
	if (madvise(map, len, o->advice))
		fatal("madvise: %s", strerror(errno));
	return map;
}

/*
 * One pass: map, touch, report, hold, unmap; with @kept (-k), touch,
 * report and hold in that mapping, which stays.
 */
static void *run_pass(const struct opts *o, int fd, size_t len, void *hint,
		      void *kept, const size_t *rand_idx, int mig_fd,
		      unsigned int phase, unsigned int pass)
{
	long long mig0, mig1;
	enum pattern pattern = o->phase[phase].pattern;
	size_t stride = o->phase[phase].stride;
	size_t page = sysconf(_SC_PAGESIZE), touched;
	long flt0, flt1;
	uint64_t t0, t1;
	void *map;

	map = kept ? kept : map_file(o, fd, len, hint);
	job.map = map;
	job.idx = pattern == PAT_RAND ? rand_idx : NULL;
	job.step = pattern == PAT_STRIDE ? stride : page;
	job.run = pattern == PAT_STRIDE ? o->run : 1;
	job.page = page;
	job.nr = pattern == PAT_STRIDE ?
		 len / stride * o->run +
		 (len % stride ? min_size(o->run, len % stride / page) : 0) :
		 len / page;
	touched = job.nr;

	mig0 = migrations_now(mig_fd);
	flt0 = minflt_now();
	t0 = now_ns();
	if (pattern == PAT_HOLES)
		touched = touch_holes(map, len, stride, page);
	else if (pattern == PAT_ENDS)
		touched = touch_ends(map, len, stride, page);
	else
		run_job();
	t1 = now_ns();
	flt1 = minflt_now();
	mig1 = migrations_now(mig_fd);

	printf("phase=%u pass=%u pages=%zu minflt=%ld ns=%llu migrations=%lld",
	       phase, pass, touched, flt1 - flt0, (unsigned long long)(t1 - t0),
	       mig_fd < 0 ? -1 : mig1 - mig0);
	if (o->mapped)
		printf(" mapped=%ld", mapped_pages(map));
	putchar('\n');
	fflush(stdout);
	if (o->hold_ms)
		usleep(o->hold_ms * 1000);
	if (!kept)
		munmap(map, len);
	return map;
}

/* Refuse a phase that cannot run as asked, in one line. */
static void check_phase(struct opts *o, const struct phase *ph, size_t page)
{
	if (ph->stride < page)
		fatal("stride %zu is below the page size %zu", ph->stride, page);
	if (ph->pattern == PAT_STRIDE && o->run > ph->stride / page)
		fatal("run of %zu pages is longer than the stride %zu", o->run,
		      ph->stride);
	if (ph->pattern != PAT_HOLES && ph->pattern != PAT_ENDS)
		return;
	if (o->threads > 1)
		fatal("the holes and ends patterns run in one thread");
	/* blocks align as windows do: a power of two of pages */
	if (ph->stride < 2 * page || ph->stride & (ph->stride - 1))
		fatal("stride %zu for holes or ends is not a power of two of at least two pages (%zu)",
		      ph->stride, 2 * page);
	if (ph->pattern == PAT_ENDS && o->shared)
		fatal("the ends pattern writes: not with --shared, which would write FILE");
	if (ph->pattern == PAT_ENDS)
		o->writes = 1;
}

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE);
	unsigned int phase, pass;
	size_t *rand_idx = NULL, len;
	void *hint = NULL, *kept = NULL;
	struct opts o;
	struct stat st;
	int fd, mig_fd;

	parse_opts(argc, argv, &o);
	for (phase = 0; phase < o.nr_phases; phase++)
		check_phase(&o, &o.phase[phase], page);
	fd = open(o.path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		fatal("%s: %s", o.path, strerror(errno));
	if (st.st_size < (off_t)page)
		fatal("%s: smaller than one page", o.path);
	if (o.length > (size_t)st.st_size)
		fatal("length %zu is beyond the end of %s (%lld bytes)", o.length,
		      o.path, (long long)st.st_size);
	len = o.length ? o.length / page * page : (size_t)st.st_size;
	if (!len)
		fatal("length %zu is below the page size %zu", o.length, page);

	/* the random order is drawn once, outside the measured touches */
	for (phase = 0; phase < o.nr_phases; phase++)
		if (o.phase[phase].pattern == PAT_RAND && !rand_idx)
			rand_idx = random_order(len / page, o.seed);
	mig_fd = migrations_open();
	start_threads(o.threads);
	if (o.keep)
		kept = map_file(&o, fd, len, NULL);

	for (phase = 0; phase < o.nr_phases; phase++)
		for (pass = 0; pass < o.phase[phase].passes; pass++)
			hint = run_pass(&o, fd, len, hint, kept, rand_idx,
					mig_fd, phase, pass);
	if (kept)
		munmap(kept, len);
	stop_threads();
	if (mig_fd >= 0)
		close(mig_fd);
	free(rand_idx);
	close(fd);
	return 0;
}
