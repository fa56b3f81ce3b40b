// SPDX-License-Identifier: GPL-2.0
/*
 * afa-race: fault file mappings while other threads take them away, for a
 * bounded time.  A stress workload for the module's sampled windows: a
 * window sampled on a fault is checked a period later, by which time its
 * VMA may have been unmapped, moved, replaced or split, or its process
 * may have exited.
 *
 * FILE is mapped into slots of 2 MiB (one page table each), shared or
 * private at random.  Faulter threads read pages of random slots, in runs
 * so that fault-around maps whole windows; mutator threads munmap and
 * re-mmap, mremap away and back, shrink and regrow, replace with MAP_FIXED,
 * mprotect, madvise and zap the same slots; forker threads fork children
 * that map FILE, fault a few windows and exit at once.  A faulter that
 * meets a hole takes SIGSEGV (or SIGBUS past the end of FILE) and goes
 * on.  Prints what it did; exits 0 unless a system call fails in a way
 * the races cannot explain.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AFA_PROG "afa-race"
#include "afa-util.h"

#define SLOT_BYTES	(2UL << 20)
#define MAX_SLOTS	256
#define MAX_THREADS	64

struct opts {
	unsigned int seconds;	/* run this long */
	unsigned int slots;	/* 2 MiB slots of FILE mapped at once */
	unsigned int faulters;	/* threads that read the slots */
	unsigned int mutators;	/* threads that unmap and remap them */
	unsigned int forkers;	/* threads that fork short-lived children */
	unsigned int seed;
	const char *path;
};

/* One slot: a 2 MiB range of address space the mutators own. */
struct slot {
	pthread_mutex_t lock;	/* mutators only; faulters never lock */
	char *addr;		/* 2 MiB aligned */
	volatile int dead;	/* someone else's mapping took the range */
};

/* What the run did; summed from every thread at the end. */
struct counts {
	unsigned long touches, faults_caught;
	unsigned long munmaps, remaps, mremaps, shrinks, replaces;
	unsigned long mprotects, madvises, forks, children_failed;
	unsigned long vanished;
};

static struct opts o;
static struct slot slots[MAX_SLOTS];
static int fd;
static size_t file_bytes;
static size_t page;
static volatile int stop;
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct counts total;

static __thread sigjmp_buf fault_jmp;
static __thread volatile int fault_armed;
static __thread const char *role = "main";	/* for an unexpected fault */

static const struct option long_opts[] = {
	{ "seconds", required_argument, NULL, 'd' },
	{ "slots", required_argument, NULL, 's' },
	{ "faulters", required_argument, NULL, 'f' },
	{ "mutators", required_argument, NULL, 'm' },
	{ "forkers", required_argument, NULL, 'k' },
	{ "seed", required_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: afa-race [options] FILE\n"
	      "  -d, --seconds N    run N seconds (10)\n"
	      "  -s, --slots N      2 MiB slots of FILE mapped at once, 1..256 (8)\n"
	      "  -f, --faulters N   threads that read random pages of the slots (2)\n"
	      "  -m, --mutators N   threads that munmap, mremap, re-mmap the slots (2)\n"
	      "  -k, --forkers N    threads that fork children which fault and exit (1)\n"
	      "  -r, --seed N       seed of every thread's random choices (1)\n"
	      "FILE must be at least 2 MiB.  Prints one line of counts:\n"
	      "touches faults_caught munmaps remaps mremaps shrinks replaces\n"
	      "mprotects madvises forks children_failed vanished dead_slots\n"
	      "vanished: a mapping a mutator had just moved was gone when it\n"
	      "read it or moved it back (seen on 6.12 without the module).\n", f);
}

static void parse_opts(int argc, char **argv)
{
	int c;

	o = (struct opts){ .seconds = 10, .slots = 8, .faulters = 2,
			   .mutators = 2, .forkers = 1, .seed = 1 };
	while ((c = getopt_long(argc, argv, "d:s:f:m:k:r:h", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			o.seconds = parse_ulong_range(optarg, "seconds", 0, 86400);
			break;
		case 's':
			o.slots = parse_ulong_range(optarg, "slots", 1, MAX_SLOTS);
			break;
		case 'f':
			o.faulters = parse_ulong_range(optarg, "faulters", 0, MAX_THREADS);
			break;
		case 'm':
			o.mutators = parse_ulong_range(optarg, "mutators", 0, MAX_THREADS);
			break;
		case 'k':
			o.forkers = parse_ulong_range(optarg, "forkers", 0, MAX_THREADS);
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
	if (optind != argc - 1) {
		usage(stderr);
		exit(2);
	}
	o.path = argv[optind];
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

/* A 2 MiB aligned offset of FILE to map a slot from. */
static off_t file_offset(uint64_t *x)
{
	return (rnd(x) % (file_bytes / SLOT_BYTES)) * SLOT_BYTES;
}

/*
 * Map FILE at @addr, a range that is ours (@fixed: replace what is
 * there) or a hole (fail with EEXIST when someone else took it).
 */
static void *map_slot(char *addr, uint64_t *x, int fixed)
{
	int flags = (rnd(x) & 1) ? MAP_SHARED : MAP_PRIVATE;
	int prot = PROT_READ | ((rnd(x) & 3) == 0 ? PROT_WRITE : 0);

	if (prot & PROT_WRITE)
		flags = MAP_PRIVATE;	/* FILE is never written */
	flags |= fixed ? MAP_FIXED : MAP_FIXED_NOREPLACE;
	return mmap(addr, SLOT_BYTES, prot, flags, fd, file_offset(x));
}

/* Append @v in hex to @b at @n; async-signal-safe. */
static size_t put_hex(char *b, size_t n, unsigned long v)
{
	int shift;

	b[n++] = '0';
	b[n++] = 'x';
	for (shift = 60; shift > 0 && !(v >> shift); shift -= 4)
		;
	for (; shift >= 0; shift -= 4)
		b[n++] = "0123456789abcdef"[(v >> shift) & 15];
	return n;
}

/*
 * A fault outside touch_run() is no race this program makes: say where,
 * in which kind of thread and with which si_code, and die of it.
 */
static void fault_handler(int sig, siginfo_t *si, void *uc)
{
	char b[128];
	size_t n = 0, len;

	(void)uc;
	if (fault_armed)
		siglongjmp(fault_jmp, 1);
	len = strlen(AFA_PROG ": unexpected ");
	memcpy(b, AFA_PROG ": unexpected ", len);
	n += len;
	memcpy(b + n, sig == SIGBUS ? "SIGBUS" : "SIGSEGV", sig == SIGBUS ? 6 : 7);
	n += sig == SIGBUS ? 6 : 7;
	memcpy(b + n, " at ", 4);
	n = put_hex(b, n + 4, (unsigned long)si->si_addr);
	memcpy(b + n, " code ", 6);
	n = put_hex(b, n + 6, (unsigned long)si->si_code);
	b[n++] = ' ';
	len = strlen(role);
	memcpy(b + n, role, len);
	n += len;
	b[n++] = '\n';
	if (write(STDERR_FILENO, b, n) < 0)
		n = 0;
	signal(sig, SIG_DFL);
	raise(sig);
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

/* A run of touches: @len pages of a slot, @stride pages apart. */
struct run {
	const volatile char *addr;
	size_t first, len, stride;
};

/*
 * Read the pages of @r.  Return: 0, or 1 when a hole raised SIGSEGV (or
 * SIGBUS), caught.
 */
static int __attribute__((noinline))
touch_run(const struct run *r, unsigned long *touches)
{
	volatile char sum = 0;
	size_t i;

	if (sigsetjmp(fault_jmp, 1)) {
		fault_armed = 0;
		return 1;
	}
	fault_armed = 1;
	for (i = 0; i < r->len; i++) {
		size_t pg = (r->first + i * r->stride) % (SLOT_BYTES / page);

		sum += r->addr[pg * page];
		(*touches)++;
	}
	fault_armed = 0;
	(void)sum;
	return 0;
}

/* Read runs of pages of random slots; holes raise SIGSEGV, caught. */
static void *faulter(void *arg)
{
	uint64_t x = rnd_seed(1, (uintptr_t)arg);
	struct counts c = { 0 };
	struct run r;

	role = "faulter";
	while (!stop) {
		struct slot *s = &slots[rnd(&x) % o.slots];

		r.addr = s->addr;
		r.first = rnd(&x) % (SLOT_BYTES / page);
		r.len = 1 + rnd(&x) % 64;
		r.stride = (rnd(&x) & 1) ? 1 : 1 + rnd(&x) % 32;
		if (!s->dead)
			c.faults_caught += touch_run(&r, &c.touches);
	}
	add_counts(&c);
	return NULL;
}

/*
 * The slot is a hole: map it again, or give it up to whoever took it.
 * Return: 1 when it is mapped again.
 */
static int refill(struct slot *s, uint64_t *x)
{
	if (map_slot(s->addr, x, 0) != MAP_FAILED)
		return 1;
	if (errno != EEXIST && errno != ENOMEM)
		fatal("mmap of a slot: %s", strerror(errno));
	s->dead = 1;
	return 0;
}

/* One change to a slot's mapping; the slot's range is ours throughout. */
static void mutate(struct slot *s, uint64_t *x, struct counts *c)
{
	size_t half = SLOT_BYTES / 2, len;
	char *tmp, *p;
	struct run r;
	int vanished;

	switch (rnd(x) % 8) {
	case 0:		/* munmap, then map again */
		if (munmap(s->addr, SLOT_BYTES))
			fatal("munmap: %s", strerror(errno));
		c->munmaps++;
		if (rnd(x) & 1)
			sched_yield();
		c->remaps += refill(s, x);
		break;
	case 1:		/* mremap away, hold the range, mremap back */
		tmp = mmap(NULL, SLOT_BYTES, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (tmp == MAP_FAILED)
			fatal("mmap: %s", strerror(errno));
		p = mremap(s->addr, SLOT_BYTES, SLOT_BYTES,
			   MREMAP_MAYMOVE | MREMAP_FIXED, tmp);
		if (p == MAP_FAILED) {
			/* a split VMA (mprotect) cannot move whole: zap it */
			munmap(tmp, SLOT_BYTES);
			if (munmap(s->addr, SLOT_BYTES))
				fatal("munmap: %s", strerror(errno));
			c->munmaps++;
			refill(s, x);
			break;
		}
		c->mremaps++;
		/* keep the old range ours while the mapping is away */
		if (mmap(s->addr, SLOT_BYTES, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0) == MAP_FAILED) {
			munmap(tmp, SLOT_BYTES);
			s->dead = 1;
			break;
		}
		/* fault the moved mapping, so that it has fresh windows */
		r = (struct run){ .addr = tmp, .len = 1, .stride = 1,
				  .first = rnd(x) % (SLOT_BYTES / page) };
		vanished = touch_run(&r, &c->touches);
		if (mremap(tmp, SLOT_BYTES, SLOT_BYTES,
			   MREMAP_MAYMOVE | MREMAP_FIXED, s->addr) != MAP_FAILED &&
		    !vanished)
			break;
		if (!vanished && errno != EFAULT)
			fatal("mremap back: %s", strerror(errno));
		/*
		 * Gone under us (docs/testing.md): start again from a hole.
		 * What is left at tmp stays: it may no longer be ours.
		 */
		c->vanished++;
		munmap(s->addr, SLOT_BYTES);
		refill(s, x);
		break;
	case 2:		/* shrink in place, grow back */
		if (mremap(s->addr, SLOT_BYTES, half, 0) == MAP_FAILED) {
			/* split by mprotect: start again from a hole */
			munmap(s->addr, SLOT_BYTES);
			c->munmaps++;
			refill(s, x);
			break;
		}
		c->shrinks++;
		if (rnd(x) & 1)
			sched_yield();
		if (mremap(s->addr, half, SLOT_BYTES, 0) == MAP_FAILED) {
			munmap(s->addr, half);
			c->munmaps++;
			refill(s, x);
		}
		break;
	case 3:		/* replace with MAP_FIXED: a new VMA, same place */
	case 4:
		if (map_slot(s->addr, x, 1) == MAP_FAILED)
			fatal("mmap MAP_FIXED: %s", strerror(errno));
		c->replaces++;
		break;
	case 5:		/* mprotect part of it away and back: splits */
		p = s->addr + (rnd(x) % (SLOT_BYTES / page)) * page;
		len = page * (1 + rnd(x) % 16);
		if (len > (size_t)(s->addr + SLOT_BYTES - p))
			len = s->addr + SLOT_BYTES - p;
		if (!mprotect(p, len, PROT_NONE)) {
			c->mprotects++;
			if (rnd(x) & 1)
				sched_yield();
			mprotect(p, len, PROT_READ);
		}
		break;
	case 6:		/* zap the page tables, or change the class */
		switch (rnd(x) % 3) {
		case 0:
			madvise(s->addr, SLOT_BYTES, MADV_DONTNEED);
			break;
		case 1:
			madvise(s->addr, SLOT_BYTES, MADV_RANDOM);
			break;
		default:
			madvise(s->addr, SLOT_BYTES, MADV_SEQUENTIAL);
			break;
		}
		c->madvises++;
		break;
	default:	/* leave it alone a while */
		usleep(rnd(x) % 2000);
		break;
	}
}

static void *mutator(void *arg)
{
	uint64_t x = rnd_seed(2, (uintptr_t)arg);
	struct counts c = { 0 };

	role = "mutator";
	while (!stop) {
		struct slot *s = &slots[rnd(&x) % o.slots];

		if (pthread_mutex_trylock(&s->lock))
			continue;
		if (!s->dead)
			mutate(s, &x, &c);
		pthread_mutex_unlock(&s->lock);
	}
	add_counts(&c);
	return NULL;
}

/*
 * The child: map FILE, fault a few runs so that windows are sampled, and
 * exit at once, unmapping nothing.  Only async-signal-safe calls.
 */
static void child(uint64_t x)
{
	char *p = mmap(NULL, SLOT_BYTES, PROT_READ,
		       (x & 1) ? MAP_SHARED : MAP_PRIVATE, fd, file_offset(&x));
	volatile char sum = 0;
	int i;

	if (p == MAP_FAILED)
		_exit(3);
	for (i = 0; i < 8; i++)
		sum += p[(rnd(&x) % (SLOT_BYTES / page)) * page];
	(void)sum;
	_exit(0);
}

static void *forker(void *arg)
{
	uint64_t x = rnd_seed(3, (uintptr_t)arg);
	struct counts c = { 0 };
	int status;
	pid_t pid;

	role = "forker";
	while (!stop) {
		uint64_t cx = rnd(&x);

		pid = fork();
		if (pid < 0) {
			if (errno == EAGAIN || errno == ENOMEM) {
				usleep(1000);
				continue;
			}
			fatal("fork: %s", strerror(errno));
		}
		if (!pid)
			child(cx);
		c.forks++;
		if (waitpid(pid, &status, 0) != pid)
			fatal("waitpid: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			c.children_failed++;
	}
	add_counts(&c);
	return NULL;
}

static void start(pthread_t *tid, unsigned int *n, unsigned int count,
		  void *(*fn)(void *))
{
	unsigned int i;
	int err;

	for (i = 0; i < count; i++) {
		err = pthread_create(&tid[(*n)++], NULL, fn, (void *)(uintptr_t)i);
		if (err)
			fatal("pthread_create: %s", strerror(err));
	}
}

int main(int argc, char **argv)
{
	pthread_t tid[3 * MAX_THREADS];
	struct sigaction sa = { .sa_sigaction = fault_handler };
	unsigned int i, n = 0, dead = 0;
	uint64_t x;
	struct stat st;
	char *base;

	parse_opts(argc, argv);
	page = sysconf(_SC_PAGESIZE);
	fd = open(o.path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		fatal("%s: %s", o.path, strerror(errno));
	if (st.st_size < (off_t)SLOT_BYTES)
		fatal("%s: smaller than 2 MiB", o.path);
	file_bytes = st.st_size;
	/* stdout's buffer now, not in a hole a mutator opened */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("afa-race: %us, %u slots, %u faulters, %u mutators, %u forkers, seed %u\n",
	       o.seconds, o.slots, o.faulters, o.mutators, o.forkers, o.seed);

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER | SA_SIGINFO;
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
		fatal("sigaction: %s", strerror(errno));

	/* 2 MiB aligned slots, one page table each, from one reservation */
	base = mmap(NULL, (o.slots + 1) * SLOT_BYTES, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		fatal("mmap: %s", strerror(errno));
	base = (char *)(((uintptr_t)base + SLOT_BYTES - 1) & ~(SLOT_BYTES - 1));
	x = rnd_seed(0, 0);
	for (i = 0; i < o.slots; i++) {
		pthread_mutex_init(&slots[i].lock, NULL);
		slots[i].addr = base + i * SLOT_BYTES;
		if (map_slot(slots[i].addr, &x, 1) == MAP_FAILED)
			fatal("mmap %s: %s", o.path, strerror(errno));
	}

	start(tid, &n, o.faulters, faulter);
	start(tid, &n, o.mutators, mutator);
	start(tid, &n, o.forkers, forker);
	sleep(o.seconds);
	stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < o.slots; i++)
		dead += slots[i].dead;

	printf("touches=%lu faults_caught=%lu munmaps=%lu remaps=%lu mremaps=%lu shrinks=%lu replaces=%lu mprotects=%lu madvises=%lu forks=%lu children_failed=%lu vanished=%lu dead_slots=%u\n",
	       total.touches, total.faults_caught, total.munmaps, total.remaps,
	       total.mremaps, total.shrinks, total.replaces, total.mprotects,
	       total.madvises, total.forks, total.children_failed, total.vanished, dead);
	return 0;
}
