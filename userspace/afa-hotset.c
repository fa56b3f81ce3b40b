// SPDX-License-Identifier: GPL-2.0
/*
 * afa-hotset: keep a file's pages hot for a bounded time, and count how
 * often reclaim took them away.  FILE is mapped shared and read-only;
 * each round first asks mincore() which of its pages are no longer in
 * the page cache (evicted since the round before), then reads one byte
 * of every page, then sleeps.  A workload for the question "does a scan
 * that streams through the same memory cgroup push the hot set out more
 * when fault-around windows change?": the pages of the first round are
 * cold misses, every later miss is a refault of the hot set.
 *
 * Prints one line: rounds, the pages of FILE, evicted (pages found
 * missing at the start of rounds after the first, summed), majflt and
 * minflt after the first round (getrusage), and the time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define AFA_PROG "afa-hotset"
#include "afa-util.h"

struct opts {
	unsigned int seconds;	/* run this long */
	unsigned int pause_ms;	/* sleep between rounds */
	const char *path;
};

static struct opts o;

static const struct option long_opts[] = {
	{ "seconds", required_argument, NULL, 'd' },
	{ "pause-ms", required_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: afa-hotset [options] FILE\n"
	      "  -d, --seconds N    run N seconds (10)\n"
	      "  -p, --pause-ms N   sleep N ms between rounds (100)\n"
	      "Prints: rounds=N pages=N evicted=N majflt=N minflt=N ms=N\n"
	      "evicted, majflt and minflt count the rounds after the first.\n",
	      f);
}

static void parse_opts(int argc, char **argv)
{
	int c;

	o = (struct opts){ .seconds = 10, .pause_ms = 100 };
	while ((c = getopt_long(argc, argv, "d:p:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.seconds = parse_ulong_range(optarg, "seconds", 1, 86400);
			break;
		case 'p':
			o.pause_ms = parse_ulong_range(optarg, "pause-ms", 0, 60000);
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
	o.path = argv[optind];
}

/* Pages of the mapping mincore() says are not in the page cache. */
static unsigned long count_missing(void *p, size_t len, unsigned char *vec,
				   size_t npages)
{
	unsigned long missing = 0;
	size_t i;

	if (mincore(p, len, vec))
		fatal("mincore: %s", strerror(errno));
	for (i = 0; i < npages; i++)
		missing += !(vec[i] & 1);
	return missing;
}

static void faults(long *maj, long *min)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*maj = ru.ru_majflt;
	*min = ru.ru_minflt;
}

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE), len, npages, i;
	unsigned long rounds = 0, evicted = 0;
	long maj0 = 0, min0 = 0, maj, min;
	uint64_t t0, end;
	unsigned char *vec;
	volatile char sink;
	struct stat st;
	char *p;
	int fd;

	parse_opts(argc, argv);
	fd = open(o.path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		fatal("%s: %s", o.path, strerror(errno));
	len = st.st_size;
	npages = len / page;
	if (!npages)
		fatal("%s: smaller than a page", o.path);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		fatal("mmap: %s", strerror(errno));
	vec = malloc(npages);
	if (!vec)
		fatal("out of memory");

	t0 = now_ns();
	end = t0 + (uint64_t)o.seconds * 1000000000;
	do {
		unsigned long missing = count_missing(p, len, vec, npages);

		if (rounds)
			evicted += missing;
		for (i = 0; i < npages; i++)
			sink = p[i * page];
		if (!rounds++)
			faults(&maj0, &min0);
		if (o.pause_ms)
			usleep(o.pause_ms * 1000);
	} while (now_ns() < end);
	(void)sink;
	faults(&maj, &min);
	printf("rounds=%lu pages=%zu evicted=%lu majflt=%ld minflt=%ld ms=%llu\n",
	       rounds, npages, evicted, maj - maj0, min - min0,
	       (unsigned long long)((now_ns() - t0) / 1000000));
	return 0;
}
