/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the workload programs share: the error exit, whole numbers from
 * the command line, the clock.  Define AFA_PROG, the program's name,
 * before including this.
 */
#ifndef _AFA_UTIL_H
#define _AFA_UTIL_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline void __attribute__((noreturn, format(printf, 1, 2)))
fatal(const char *fmt, ...)
{
	va_list ap;

	fputs(AFA_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A whole number in [min, max] from the command line, or fatal(). */
static inline unsigned long parse_ulong_range(const char *s, const char *what,
					      unsigned long min,
					      unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		if (min == 0 && max == ULONG_MAX)
			fatal("invalid %s: '%s'", what, s);
		fatal("invalid %s: '%s' (%lu..%lu)", what, s, min, max);
	}
	return v;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif /* _AFA_UTIL_H */
