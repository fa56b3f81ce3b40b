// SPDX-License-Identifier: GPL-2.0
/*
 * afa-run: run a command as fresh processes and report what its
 * children cost, the way /usr/bin/time would: minor faults and CPU time
 * from getrusage(RUSAGE_CHILDREN), which takes in every descendant that
 * was waited for, and the elapsed time.  The benchmarks' runner for
 * workloads made of short-lived processes and for real programs in a
 * chroot (vm/guest/bench-fresh.sh, vm/guest/bench-real.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

#define AFA_PROG "afa-run"
#include "afa-util.h"

#define MAX_GROUPS	8

/* A command line of its own, started together with the other groups. */
struct group {
	char **argv;
	unsigned int left;	/* starts still to come in this run */
	pid_t pid;		/* running child, or 0 */
};

struct opts {
	unsigned int runs;	/* measured runs, one line each */
	unsigned int repeat;	/* starts of each group per run, in a row */
	const char *setup;	/* sh -c SETUP before each run, not measured */
	const char *root;	/* chroot here first */
	const char *dir;	/* the children's working directory */
	const char *out;	/* the children's stdout and stderr */
	int any_status;		/* a child's exit status is no error */
	struct group group[MAX_GROUPS];
	unsigned int nr_groups;
};

static const struct option long_opts[] = {
	{ "runs", required_argument, NULL, 'n' },
	{ "repeat", required_argument, NULL, 'k' },
	{ "setup", required_argument, NULL, 's' },
	{ "root", required_argument, NULL, 'r' },
	{ "dir", required_argument, NULL, 'C' },
	{ "output", required_argument, NULL, 'o' },
	{ "any-status", no_argument, NULL, 'i' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: afa-run [options] CMD [ARG...] [:: CMD [ARG...]]...\n"
	      "  -n, --runs N         measured runs (1)\n"
	      "  -k, --repeat N       each command starts N times in a row per run (1)\n"
	      "  -s, --setup CMD      run 'sh -c CMD' before each run, unmeasured\n"
	      "  -r, --root DIR       chroot into DIR first; the children get\n"
	      "                       PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8\n"
	      "  -C, --dir DIR        the children's working directory\n"
	      "  -o, --output FILE    the children's stdout and stderr (/dev/null)\n"
	      "  -i, --any-status     a non-zero exit status is no error\n"
	      "Commands separated by '::' start at the same time; a run ends when\n"
	      "every one has exited its N times.  CMD is looked up in PATH.  Each run\n"
	      "prints: run=N starts=N minflt=N majflt=N ns=N wall_ns=N\n"
	      "minflt, majflt and ns (user + system CPU time) are the children's and\n"
	      "their waited-for descendants' (getrusage RUSAGE_CHILDREN); wall_ns\n"
	      "is from the first start to the last exit.\n", f);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c, i, start;

	*o = (struct opts){ .runs = 1, .repeat = 1, .out = "/dev/null" };
	while ((c = getopt_long(argc, argv, "+n:k:s:r:C:o:ih", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'n':
			o->runs = parse_ulong_range(optarg, "runs", 0, 1000000);
			break;
		case 'k':
			o->repeat = parse_ulong_range(optarg, "repeat", 1, 1000000);
			break;
		case 's':
			o->setup = optarg;
			break;
		case 'r':
			o->root = optarg;
			break;
		case 'C':
			o->dir = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'i':
			o->any_status = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		exit(2);
	}
	/* split the rest at '::' into groups, each NULL-terminated in place */
	for (i = start = optind; i <= argc; i++) {
		if (i < argc && strcmp(argv[i], "::"))
			continue;
		if (i == start)
			fatal("empty command before or after '::'");
		if (o->nr_groups == MAX_GROUPS)
			fatal("at most %d commands at once", MAX_GROUPS);
		o->group[o->nr_groups++].argv = argv + start;
		if (i < argc)
			argv[i] = NULL;
		start = i + 1;
	}
}

static char *clean_env[] = { "PATH=/usr/bin:/bin", "HOME=/root",
			     "LANG=C.UTF-8", NULL };
static char **child_env;
static posix_spawn_file_actions_t actions;

static pid_t start(char **argv)
{
	pid_t pid;
	int err;

	err = posix_spawnp(&pid, argv[0], &actions, NULL, argv, child_env);
	if (err)
		fatal("cannot start %s: %s", argv[0], strerror(err));
	return pid;
}

static void check_status(const struct opts *o, const char *what, int status)
{
	if (WIFEXITED(status) && (!WEXITSTATUS(status) || o->any_status))
		return;
	fatal("%s failed (%s %d)", what,
	      WIFEXITED(status) ? "exit status" : "signal",
	      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

static void setup(const struct opts *o)
{
	char *argv[] = { "sh", "-c", (char *)o->setup, NULL };
	int status;

	if (waitpid(start(argv), &status, 0) < 0)
		fatal("wait: %s", strerror(errno));
	check_status(o, "setup", status);
}

static void children_usage(struct rusage *ru)
{
	if (getrusage(RUSAGE_CHILDREN, ru))
		fatal("getrusage: %s", strerror(errno));
}

static uint64_t cpu_ns(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000ULL +
	       (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000ULL;
}

/* One run: every group its repeat starts, groups side by side. */
static void run(struct opts *o, unsigned int nr)
{
	unsigned int g, running = 0, starts = 0;
	struct rusage r0, r1;
	uint64_t t0, t1;
	int status;
	pid_t pid;

	if (o->setup)
		setup(o);
	children_usage(&r0);
	t0 = now_ns();
	for (g = 0; g < o->nr_groups; g++) {
		o->group[g].left = o->repeat - 1;
		o->group[g].pid = start(o->group[g].argv);
		running++;
		starts++;
	}
	while (running) {
		pid = wait(&status);
		if (pid < 0)
			fatal("wait: %s", strerror(errno));
		for (g = 0; g < o->nr_groups && o->group[g].pid != pid; g++)
			;
		if (g == o->nr_groups)
			continue;
		check_status(o, o->group[g].argv[0], status);
		if (o->group[g].left) {
			o->group[g].left--;
			o->group[g].pid = start(o->group[g].argv);
			starts++;
		} else {
			o->group[g].pid = 0;
			running--;
		}
	}
	t1 = now_ns();
	children_usage(&r1);
	printf("run=%u starts=%u minflt=%ld majflt=%ld ns=%llu wall_ns=%llu\n",
	       nr, starts, r1.ru_minflt - r0.ru_minflt,
	       r1.ru_majflt - r0.ru_majflt,
	       (unsigned long long)(cpu_ns(&r1) - cpu_ns(&r0)),
	       (unsigned long long)(t1 - t0));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned int i;
	struct opts o;

	parse_opts(argc, argv, &o);
	child_env = environ;
	if (o.root) {
		if (chroot(o.root) || chdir("/"))
			fatal("chroot %s: %s", o.root, strerror(errno));
		child_env = clean_env;
		/* posix_spawnp() searches the PATH of this process */
		setenv("PATH", "/usr/bin:/bin", 1);
	}
	if (o.dir && chdir(o.dir))
		fatal("cd %s: %s", o.dir, strerror(errno));
	if (posix_spawn_file_actions_init(&actions) ||
	    posix_spawn_file_actions_addopen(&actions, 1, o.out,
					     O_WRONLY | O_CREAT | O_APPEND, 0644) ||
	    posix_spawn_file_actions_adddup2(&actions, 1, 2))
		fatal("posix_spawn_file_actions failed");
	for (i = 0; i < o.runs; i++)
		run(&o, i);
	return 0;
}
