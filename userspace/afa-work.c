// SPDX-License-Identifier: GPL-2.0
/*
 * afa-work: touch a file mapping in a chosen pattern and report the
 * minor faults it took, the signal fault-around changes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum pattern { PAT_SEQ, PAT_RAND, PAT_STRIDE };

/* A phase: one access pattern, repeated over fresh mappings. */
struct phase {
	enum pattern pattern;
	unsigned int passes;	/* mmap, touch, hold, munmap; this often */
};

#define MAX_PHASES	8

struct opts {
	struct phase phase[MAX_PHASES];
	unsigned int nr_phases;
	size_t stride;		/* bytes between touches, PAT_STRIDE */
	int advice;		/* madvise() advice for the whole mapping */
	int shared;		/* MAP_SHARED instead of MAP_PRIVATE */
	unsigned int seed;	/* PAT_RAND */
	unsigned int hold_ms;	/* keep the mapping this long afterwards */
	const char *path;
};

static void __attribute__((noreturn, format(printf, 1, 2)))
fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("afa-work: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static const struct option long_opts[] = {
	{ "pattern", required_argument, NULL, 'p' },
	{ "passes", required_argument, NULL, 'n' },
	{ "stride", required_argument, NULL, 's' },
	{ "advise", required_argument, NULL, 'a' },
	{ "shared", no_argument, NULL, 'S' },
	{ "seed", required_argument, NULL, 'r' },
	{ "hold-ms", required_argument, NULL, 'H' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: afa-work [options] FILE\n"
	      "  -p, --pattern seq|rand|stride  page order of the touches (seq);\n"
	      "                       each -p starts a new phase, up to 8\n"
	      "  -n, --passes N       passes of the current phase (1)\n"
	      "  -s, --stride BYTES   distance between touches for stride (2097152)\n"
	      "  -a, --advise normal|seq|rand   madvise() the mapping (normal)\n"
	      "  -S, --shared         MAP_SHARED instead of MAP_PRIVATE\n"
	      "  -r, --seed N         seed of the random order (1)\n"
	      "  -H, --hold-ms MS     keep the mapping MS milliseconds afterwards (0)\n"
	      "Each pass maps FILE read-only (at the address of the previous pass\n"
	      "when free), reads one byte per touched page, holds the mapping and\n"
	      "unmaps it, then prints: phase=N pass=N pages=N minflt=N ns=N\n", f);
}

static unsigned long parse_ulong(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end)
		fatal("invalid %s: '%s'", what, s);
	return v;
}

static enum pattern parse_pattern(const char *s)
{
	if (!strcmp(s, "seq"))
		return PAT_SEQ;
	if (!strcmp(s, "rand"))
		return PAT_RAND;
	if (!strcmp(s, "stride"))
		return PAT_STRIDE;
	fatal("unknown pattern '%s'", s);
}

static void add_phase(struct opts *o, const char *pattern)
{
	if (o->nr_phases == MAX_PHASES)
		fatal("at most %d phases", MAX_PHASES);
	o->phase[o->nr_phases++] = (struct phase){ parse_pattern(pattern), 1 };
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){ .stride = 2 << 20, .advice = MADV_NORMAL,
			    .seed = 1 };
	while ((c = getopt_long(argc, argv, "p:n:s:a:Sr:H:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			add_phase(o, optarg);
			break;
		case 'n':
			if (!o->nr_phases)
				add_phase(o, "seq");
			o->phase[o->nr_phases - 1].passes =
				parse_ulong(optarg, "passes");
			break;
		case 's':
			o->stride = parse_ulong(optarg, "stride");
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
			o->seed = parse_ulong(optarg, "seed");
			break;
		case 'H':
			o->hold_ms = parse_ulong(optarg, "hold time");
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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

static size_t touch(const volatile char *p, size_t len, const struct opts *o,
		    enum pattern pattern, size_t page)
{
	size_t n = len / page, i, touched = 0;
	size_t *idx;
	char sum = 0;

	switch (pattern) {
	case PAT_SEQ:
		for (i = 0; i < n; i++, touched++)
			sum += p[i * page];
		break;
	case PAT_STRIDE:
		for (i = 0; i < len; i += o->stride, touched++)
			sum += p[i];
		break;
	case PAT_RAND:
		idx = random_order(n, o->seed);
		for (i = 0; i < n; i++, touched++)
			sum += p[idx[i] * page];
		free(idx);
		break;
	}
	(void)sum;
	return touched;
}

/* One pass: map, touch, report, hold, unmap. */
static void *run_pass(const struct opts *o, int fd, size_t len, void *hint,
		      unsigned int phase, unsigned int pass)
{
	size_t page = sysconf(_SC_PAGESIZE), touched;
	long flt0, flt1;
	uint64_t t0, t1;
	void *map;

	map = mmap(hint, len, PROT_READ, o->shared ? MAP_SHARED : MAP_PRIVATE,
		   fd, 0);
	if (map == MAP_FAILED)
		fatal("mmap %s: %s", o->path, strerror(errno));
	if (madvise(map, len, o->advice))
		fatal("madvise: %s", strerror(errno));

	flt0 = minflt_now();
	t0 = now_ns();
	touched = touch(map, len, o, o->phase[phase].pattern, page);
	t1 = now_ns();
	flt1 = minflt_now();

	printf("phase=%u pass=%u pages=%zu minflt=%ld ns=%llu\n", phase, pass,
	       touched, flt1 - flt0, (unsigned long long)(t1 - t0));
	fflush(stdout);
	if (o->hold_ms)
		usleep(o->hold_ms * 1000);
	munmap(map, len);
	return map;
}

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE);
	unsigned int phase, pass;
	void *hint = NULL;
	struct opts o;
	struct stat st;
	int fd;

	parse_opts(argc, argv, &o);
	if (o.stride < page)
		fatal("stride %zu is below the page size %zu", o.stride, page);
	fd = open(o.path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		fatal("%s: %s", o.path, strerror(errno));
	if (st.st_size < (off_t)page)
		fatal("%s: smaller than one page", o.path);

	for (phase = 0; phase < o.nr_phases; phase++)
		for (pass = 0; pass < o.phase[phase].passes; pass++)
			hint = run_pass(&o, fd, st.st_size, hint, phase, pass);
	close(fd);
	return 0;
}
