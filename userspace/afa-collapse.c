// SPDX-License-Identifier: GPL-2.0
/*
 * afa-collapse: read-fault a 2 MiB-aligned shmem file (a memfd) while
 * other threads collapse it into huge pages and split it again, for a
 * bounded time.  A stress workload for fault-around on shmem THP: a
 * read fault maps pages of the file around the fault while
 * MADV_COLLAPSE replaces those pages with one huge folio, frees the
 * page tables that mapped them (retract_page_tables(), in every process
 * that maps the file) and maps the folio by PMD, and MADV_DONTNEED and
 * hole punching split the mapping and the folio again.
 *
 * The memfd holds SLOTS huge-page-sized ranges; every 4 KiB page starts
 * with a tag naming its offset, so a reader that is shown the wrong
 * page (a stale or misplaced PTE) sees it.  Reader threads read runs of
 * pages of random slots; collapser threads (in this process, and in a
 * child process that maps the same memfd, so that collapses there
 * retract this process's page tables) loop over MADV_COLLAPSE, then
 * MADV_DONTNEED of part or all of a slot, or a hole punched in it and
 * refilled (which splits the huge folio, so that the next collapse has
 * work to do).  A page read as zero is a hole about to be refilled.
 *
 * Needs CONFIG_TRANSPARENT_HUGEPAGE and shmem_enabled at advise (or
 * within_size, always); prints one line of counts; exits 0 unless a
 * reader saw a wrong tag or a system call failed in a way the races
 * cannot explain.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define AFA_PROG "afa-collapse"
#include "afa-util.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

#define HPAGE_BYTES	(2UL << 20)
#define PAGE_BYTES	4096UL
#define PAGES_PER_SLOT	(HPAGE_BYTES / PAGE_BYTES)
#define MAX_SLOTS	64
#define MAX_THREADS	32
#define TAG_MAGIC	0xafa0000000000000ULL

struct opts {
	unsigned int seconds;	/* run this long */
	unsigned int slots;	/* huge-page-sized ranges of the memfd */
	unsigned int readers;	/* threads that read-fault the mapping */
	unsigned int collapsers; /* threads that collapse and split it */
	unsigned int child;	/* 1: a child process collapses too */
	unsigned int seed;
};

/* What a thread did; summed at the end. */
struct counts {
	unsigned long reads, zero_reads, bad_tags;
	unsigned long collapsed, collapse_again, collapse_failed, collapse_einval;
	unsigned long dontneed_part, dontneed_all, punches;
};

static struct opts o;
static int fd;
static char *map;		/* this process's mapping, 2 MiB aligned */
static volatile int stop;
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct counts total;

static const struct option long_opts[] = {
	{ "seconds", required_argument, NULL, 'd' },
	{ "slots", required_argument, NULL, 's' },
	{ "readers", required_argument, NULL, 'f' },
	{ "collapsers", required_argument, NULL, 'c' },
	{ "no-child", no_argument, NULL, 'C' },
	{ "seed", required_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: afa-collapse [options]\n"
	      "  -d, --seconds N     run N seconds (10)\n"
	      "  -s, --slots N       2 MiB ranges of the memfd, 1..64 (4)\n"
	      "  -f, --readers N     threads that read-fault random pages (3)\n"
	      "  -c, --collapsers N  threads that MADV_COLLAPSE and split (1)\n"
	      "  -C, --no-child      no child process collapsing the same memfd\n"
	      "  -r, --seed N        seed of every thread's random choices (1)\n"
	      "Prints one line of counts: reads zero_reads bad_tags collapsed\n"
	      "collapse_again collapse_failed collapse_einval dontneed_part\n"
	      "dontneed_all punches\n",
	      f);
}

static void parse_opts(int argc, char **argv)
{
	int c;

	o = (struct opts){ .seconds = 10, .slots = 4, .readers = 3,
			   .collapsers = 1, .child = 1, .seed = 1 };
	while ((c = getopt_long(argc, argv, "d:s:f:c:Cr:h", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			o.seconds = parse_ulong_range(optarg, "seconds", 0, 86400);
			break;
		case 's':
			o.slots = parse_ulong_range(optarg, "slots", 1, MAX_SLOTS);
			break;
		case 'f':
			o.readers = parse_ulong_range(optarg, "readers", 0, MAX_THREADS);
			break;
		case 'c':
			o.collapsers = parse_ulong_range(optarg, "collapsers", 0, MAX_THREADS);
			break;
		case 'C':
			o.child = 0;
			break;
		case 'r':
			o.seed = parse_ulong_range(optarg, "seed", 0, UINT32_MAX);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc) {
		usage(stderr);
		exit(2);
	}
}

/* xorshift64*: a private generator per thread, repeatable from the seed */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

static uint64_t rnd_seed(unsigned int role, unsigned int i)
{
	uint64_t x = ((uint64_t)o.seed << 32) ^ (role * 1000003ULL + i + 1);

	rnd(&x);
	return x ? x : 1;
}

static uint64_t tag_of(unsigned long pgoff)
{
	return TAG_MAGIC | pgoff;
}

static size_t file_bytes(void)
{
	return (size_t)o.slots * HPAGE_BYTES;
}

/* Write page @pgoff's tag into the memfd. */
static void write_tag(unsigned long pgoff)
{
	uint64_t tag = tag_of(pgoff);

	if (pwrite(fd, &tag, sizeof(tag), pgoff * PAGE_BYTES) != sizeof(tag))
		fatal("pwrite: %s", strerror(errno));
}

/*
 * Map the memfd at a 2 MiB-aligned address, shared and read-only (read
 * faults only: fault-around), advised for huge pages.
 */
static char *map_aligned(void)
{
	size_t len = file_bytes();
	char *p, *a;

	p = mmap(NULL, len + HPAGE_BYTES, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		fatal("mmap reserve: %s", strerror(errno));
	a = (char *)(((uintptr_t)p + HPAGE_BYTES - 1) & ~(HPAGE_BYTES - 1));
	if (mmap(a, len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
		fatal("mmap memfd: %s", strerror(errno));
	if (madvise(a, len, MADV_HUGEPAGE))
		fatal("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	return a;
}

static void add_counts(const struct counts *c)
{
	unsigned long *t = (unsigned long *)&total;
	const unsigned long *v = (const unsigned long *)c;
	size_t i;

	pthread_mutex_lock(&counts_lock);
	for (i = 0; i < sizeof(*c) / sizeof(*v); i++)
		t[i] += v[i];
	pthread_mutex_unlock(&counts_lock);
}

/* Read runs of pages of random slots and check their tags. */
static void *reader(void *arg)
{
	uint64_t x = rnd_seed(1, (uintptr_t)arg);
	unsigned long npages = o.slots * PAGES_PER_SLOT;
	struct counts c = { 0 };

	while (!stop) {
		unsigned long first = rnd(&x) % npages;
		unsigned long run = 1 + rnd(&x) % 64;
		unsigned long i;

		for (i = first; i < first + run && i < npages; i++) {
			uint64_t v = *(volatile uint64_t *)(map + i * PAGE_BYTES);

			c.reads++;
			if (!v) {
				c.zero_reads++;
			} else if (v != tag_of(i)) {
				if (c.bad_tags++ < 5)
					fprintf(stderr, AFA_PROG ": page %lu reads %#llx, want %#llx\n",
						i, (unsigned long long)v,
						(unsigned long long)tag_of(i));
			}
		}
	}
	add_counts(&c);
	return NULL;
}

/*
 * MADV_COLLAPSE one slot of @base.  EAGAIN (a page locked, off the LRU,
 * its count raised), ENOMEM (no huge page) and EINVAL are the races':
 * madvise_collapse_errno() turns every other failed scan into EINVAL,
 * among them a hole punched while the collapse copies (SCAN_TRUNCATED).
 * An EINVAL that no collapse ever followed means no THP for shmem, which
 * main() reports.
 */
static void collapse(char *base, unsigned int slot, struct counts *c)
{
	if (!madvise(base + slot * HPAGE_BYTES, HPAGE_BYTES, MADV_COLLAPSE)) {
		c->collapsed++;
		return;
	}
	switch (errno) {
	case EAGAIN:
	case ENOMEM:
	case EBUSY:
		c->collapse_failed++;
		break;
	case EINVAL:
		c->collapse_einval++;
		break;
	default:
		fatal("MADV_COLLAPSE: %s", strerror(errno));
	}
}

/*
 * Split slot @slot again: MADV_DONTNEED of part of it (the PMD mapping
 * becomes a PTE table) or all of it, or punch a page out of the file
 * and write it back (the huge folio splits).
 */
static void split(char *base, unsigned int slot, uint64_t *x, struct counts *c)
{
	char *s = base + slot * HPAGE_BYTES;
	unsigned long pg = rnd(x) % PAGES_PER_SLOT;
	unsigned long pgoff = slot * PAGES_PER_SLOT + pg;

	switch (rnd(x) % 3) {
	case 0:
		if (madvise(s + pg * PAGE_BYTES, PAGE_BYTES * (1 + rnd(x) % 16),
			    MADV_DONTNEED) && errno != EINVAL)
			fatal("MADV_DONTNEED: %s", strerror(errno));
		c->dontneed_part++;
		break;
	case 1:
		if (madvise(s, HPAGE_BYTES, MADV_DONTNEED))
			fatal("MADV_DONTNEED: %s", strerror(errno));
		c->dontneed_all++;
		break;
	default:
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      pgoff * PAGE_BYTES, PAGE_BYTES))
			fatal("fallocate(PUNCH_HOLE): %s", strerror(errno));
		write_tag(pgoff);
		c->punches++;
		break;
	}
}

struct collapser_arg {
	char *base;
	unsigned int id;
};

static void collapse_loop(char *base, unsigned int id, struct counts *c)
{
	uint64_t x = rnd_seed(2, id);

	while (!stop) {
		unsigned int slot = rnd(&x) % o.slots;

		collapse(base, slot, c);
		/* a second collapse of a collapsed slot maps it by PMD */
		if (rnd(&x) & 1) {
			collapse(base, slot, c);
			c->collapse_again++;
		}
		split(base, slot, &x, c);
	}
}

static void *collapser(void *arg)
{
	struct collapser_arg *a = arg;
	struct counts c = { 0 };

	collapse_loop(a->base, a->id, &c);
	add_counts(&c);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * A child with its own mapping of the memfd that collapses and splits
 * it: collapse_file() retracts the page tables of every mapping of the
 * range, so the parent's readers lose theirs under them.  It stops on
 * SIGTERM; its counts are not reported.
 */
static pid_t start_child(void)
{
	struct counts c = { 0 };
	pid_t pid = fork();

	if (pid < 0)
		fatal("fork: %s", strerror(errno));
	if (pid)
		return pid;
	signal(SIGTERM, on_alarm);
	collapse_loop(map_aligned(), 1000, &c);
	_exit(0);
}

static void run_threads(void)
{
	pthread_t t[2 * MAX_THREADS];
	struct collapser_arg ca[MAX_THREADS];
	unsigned int i, n = 0;

	for (i = 0; i < o.readers; i++)
		if (pthread_create(&t[n++], NULL, reader, (void *)(uintptr_t)i))
			fatal("pthread_create failed");
	for (i = 0; i < o.collapsers; i++) {
		ca[i] = (struct collapser_arg){ .base = map, .id = i };
		if (pthread_create(&t[n++], NULL, collapser, &ca[i]))
			fatal("pthread_create failed");
	}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	unsigned long pg;
	pid_t child = 0;
	int status;

	parse_opts(argc, argv);
	fd = memfd_create("afa-collapse", 0);
	if (fd < 0)
		fatal("memfd_create: %s", strerror(errno));
	if (ftruncate(fd, file_bytes()))
		fatal("ftruncate: %s", strerror(errno));
	for (pg = 0; pg < o.slots * PAGES_PER_SLOT; pg++)
		write_tag(pg);
	map = map_aligned();

	signal(SIGALRM, on_alarm);
	if (o.child)
		child = start_child();
	alarm(o.seconds);
	run_threads();
	if (child) {
		kill(child, SIGTERM);
		if (waitpid(child, &status, 0) != child)
			fatal("waitpid: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fatal("the collapsing child failed (status %#x)", status);
	}

	printf("reads=%lu zero_reads=%lu bad_tags=%lu collapsed=%lu collapse_again=%lu collapse_failed=%lu collapse_einval=%lu dontneed_part=%lu dontneed_all=%lu punches=%lu\n",
	       total.reads, total.zero_reads, total.bad_tags, total.collapsed,
	       total.collapse_again, total.collapse_failed,
	       total.collapse_einval, total.dontneed_part, total.dontneed_all,
	       total.punches);
	if (o.collapsers && !total.collapsed)
		fatal("MADV_COLLAPSE never succeeded (no THP for shmem? see shmem_enabled)");
	return total.bad_tags ? 1 : 0;
}
