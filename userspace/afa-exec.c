// SPDX-License-Identifier: GPL-2.0
/*
 * afa-exec: an exec-heavy, build-like workload.  Runs many short
 * processes of a large static binary, each of which touches part of its
 * program text and read-only data the way a compiler touches its own
 * code, and reports the minor faults and CPU time the children took.
 *
 * The binary is its own child: afa-exec carries PAD_BYTES of padding in
 * its text segment and as much in .rodata, so a copy of it on the disk
 * under test is a large binary whose pages fault in at exec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AFA_PROG "afa-exec"
#include "afa-util.h"

#define PAD_BYTES	(8 << 20)

/*
 * Program text and read-only data to fault in.  The last byte is set so
 * that both arrays are stored in the file, not left as zero-fill; the
 * section name puts pad_text into the executable segment (the default
 * linker script collects .text.* there).
 */
__attribute__((section(".text.afa_pad"), aligned(4096), used))
const unsigned char pad_text[PAD_BYTES] = { [PAD_BYTES - 1] = 1 };
__attribute__((aligned(4096), used))
const unsigned char pad_rodata[PAD_BYTES] = { [PAD_BYTES - 1] = 1 };

struct opts {
	unsigned int passes;	/* batches of execs */
	unsigned int count;	/* execs per batch */
	unsigned int jobs;	/* children at once */
	unsigned int fraction;	/* percent of each pad a child touches */
	unsigned int run_pages;	/* consecutive pages per run of touches */
	unsigned int hold_ms;	/* a child lives this long after its touches */
	unsigned int seed;
	int child;
	const char *prog;
};

static const struct option long_opts[] = {
	{ "passes", required_argument, NULL, 'n' },
	{ "count", required_argument, NULL, 'c' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "fraction", required_argument, NULL, 'f' },
	{ "run-pages", required_argument, NULL, 'R' },
	{ "hold-ms", required_argument, NULL, 'H' },
	{ "seed", required_argument, NULL, 'r' },
	{ "child", no_argument, NULL, 'C' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: afa-exec [options] PROGRAM\n"
	      "  -n, --passes N       batches of execs (1)\n"
	      "  -c, --count N        execs per batch (16)\n"
	      "  -j, --jobs N         children running at once (1)\n"
	      "  -f, --fraction PCT   percent of its padded text and rodata a\n"
	      "                       child touches (25)\n"
	      "  -R, --run-pages N    consecutive pages per run of touches (8)\n"
	      "  -H, --hold-ms MS     a child lives MS milliseconds after its\n"
	      "                       touches (0)\n"
	      "  -r, --seed N         seed of the runs' positions (1)\n"
	      "PROGRAM is a copy of afa-exec (for example on the disk under test);\n"
	      "it is run as 'PROGRAM --child' with the options above.  Each batch\n"
	      "prints: phase=0 pass=N execs=N minflt=N ns=N wall_ns=N\n"
	      "minflt and ns are the children's minor faults and CPU time\n"
	      "(getrusage RUSAGE_CHILDREN, user + system); wall_ns includes holds.\n",
	      f);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){ .passes = 1, .count = 16, .jobs = 1,
			    .fraction = 25, .run_pages = 8, .seed = 1 };
	while ((c = getopt_long(argc, argv, "n:c:j:f:R:H:r:h", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'n':
			o->passes = parse_ulong_range(optarg, "passes", 0, 1000000);
			break;
		case 'c':
			o->count = parse_ulong_range(optarg, "count", 0, 1000000);
			break;
		case 'j':
			o->jobs = parse_ulong_range(optarg, "jobs", 0, 1000000);
			break;
		case 'f':
			o->fraction = parse_ulong_range(optarg, "fraction", 0, 1000000);
			break;
		case 'R':
			o->run_pages = parse_ulong_range(optarg, "run pages", 0, 1000000);
			break;
		case 'H':
			o->hold_ms = parse_ulong_range(optarg, "hold time", 0, 1000000);
			break;
		case 'r':
			o->seed = parse_ulong_range(optarg, "seed", 0, 1000000);
			break;
		case 'C':
			o->child = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (!o->jobs || !o->run_pages || o->fraction > 100)
		fatal("jobs and run pages must be >= 1, fraction <= 100");
	if (!o->child && optind != argc - 1) {
		usage(stderr);
		exit(2);
	}
	o->prog = argv[optind];
}

/*
 * Child: touch runs of run_pages pages at pseudo-random places until
 * fraction percent of each pad's pages have been touched (runs may
 * overlap), then hold.
 */
static int child(const struct opts *o)
{
	size_t page = sysconf(_SC_PAGESIZE), nr = PAD_BYTES / page;
	size_t runs = nr * o->fraction / 100 / o->run_pages, i, k, at;
	const volatile unsigned char *text = pad_text, *ro = pad_rodata;
	uint64_t x = o->seed;
	unsigned char sum = 0;

	if (o->run_pages > nr)
		fatal("run of %u pages is larger than the pad", o->run_pages);
	for (i = 0; i < runs; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		at = (x >> 33) % (nr - o->run_pages + 1);
		for (k = at; k < at + o->run_pages; k++)
			sum += text[k * page] + ro[k * page];
	}
	if (o->hold_ms)
		usleep(o->hold_ms * 1000);
	return sum == 0xff;	/* never: the pads hold zeros here */
}

static void children_usage(long *minflt, uint64_t *cpu_ns)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru))
		fatal("getrusage: %s", strerror(errno));
	*minflt = ru.ru_minflt;
	*cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
		  (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

static void spawn(const struct opts *o)
{
	char f[16], r[16], h[16], s[16];
	char *argv[] = { (char *)o->prog, "--child", "-f", f, "-R", r,
			 "-H", h, "-r", s, NULL };
	pid_t pid;
	int err;

	snprintf(f, sizeof(f), "%u", o->fraction);
	snprintf(r, sizeof(r), "%u", o->run_pages);
	snprintf(h, sizeof(h), "%u", o->hold_ms);
	snprintf(s, sizeof(s), "%u", o->seed);
	err = posix_spawn(&pid, o->prog, NULL, NULL, argv, environ);
	if (err)
		fatal("posix_spawn %s: %s", o->prog, strerror(err));
}

static void reap(void)
{
	int status;

	if (wait(&status) < 0)
		fatal("wait: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fatal("a child failed (status 0x%x)", status);
}

/* One batch: count execs, jobs at a time; then report. */
static void run_pass(const struct opts *o, unsigned int pass)
{
	unsigned int started = 0, running = 0;
	uint64_t cpu0, cpu1, t0, t1;
	long flt0, flt1;

	children_usage(&flt0, &cpu0);
	t0 = now_ns();
	while (started < o->count || running) {
		if (started < o->count && running < o->jobs) {
			spawn(o);
			started++;
			running++;
			continue;
		}
		reap();
		running--;
	}
	t1 = now_ns();
	children_usage(&flt1, &cpu1);
	printf("phase=0 pass=%u execs=%u minflt=%ld ns=%llu wall_ns=%llu\n",
	       pass, o->count, flt1 - flt0, (unsigned long long)(cpu1 - cpu0),
	       (unsigned long long)(t1 - t0));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned int pass;
	struct opts o;

	parse_opts(argc, argv, &o);
	if (o.child)
		return child(&o);
	for (pass = 0; pass < o.passes; pass++)
		run_pass(&o, pass);
	return 0;
}
