// SPDX-License-Identifier: GPL-2.0
/*
 * afa-stat: show autofaultaround's statistics per class and domain and
 * per file (stream), or the window orders of a trace-cmd report over time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MODULE_DIR	"/sys/module/autofaultaround"
#define STATS_PATH	"/proc/autofaultaround/stats"

/* Exit statuses; afa-stat.1 documents them. */
enum {
	EXIT_ERR = 1,		/* I/O error, malformed input, no event */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_NO_MODULE = 3,	/* autofaultaround is not loaded */
	EXIT_NO_PROC = 4,	/* /proc is not mounted */
	EXIT_PERM = 5,		/* the stats file is root-only */
};

/* A watch interval above a day is a typo, not a plan. */
#define MAX_INTERVAL_S	86400

/* A table of the stats file: its header row names the columns. */
struct table {
	char **col;		/* column names, in file order */
	unsigned int nr_cols;
	char ***row;		/* each row: nr_cols fields */
	unsigned int nr_rows;
};

/* A key=value field of a comment line. */
struct field {
	char *key;
	char *val;
};

/*
 * A comment line of key=value fields: the header ("# folds=..."), or a
 * named group of them ("# costs: fault_ns=...").
 */
struct fields {
	char *name;		/* "costs"; NULL: the header */
	struct field *f;
	unsigned int nr;
};

/* One reading of the stats file; every string points into text. */
struct stats {
	char *text;
	struct fields *line;	/* the lines of fields, in file order */
	unsigned int nr_lines;
	int streams_used;	/* "# streams: U of S slots in use"; -1: none */
	int stream_slots;
	struct table classes;	/* header row: "class", no "stream" */
	struct table streams;	/* header row: "stream" and "class" */
};

struct opts {
	double interval_s;	/* --watch; 0: read once */
	int json;
	const char *file;	/* --file; NULL: STATS_PATH */
	const char *trace;	/* --from-trace */
};

static void __attribute__((noreturn, format(printf, 2, 3)))
fatal(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("afa-stat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size)
		fatal(EXIT_ERR, "out of memory");
	p = realloc(p, n * size);
	if (!p && n)
		fatal(EXIT_ERR, "out of memory");
	return p;
}

static const struct option long_opts[] = {
	{ "watch", optional_argument, NULL, 'w' },
	{ "json", no_argument, NULL, 'j' },
	{ "file", required_argument, NULL, 'f' },
	{ "from-trace", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: afa-stat [-w [SECONDS]] [--json] [-f FILE]\n"
	      "       afa-stat --from-trace FILE\n"
	      "  -w, --watch [SECONDS]  read again every SECONDS (1) until interrupted\n"
	      "      --json             one JSON object per reading, one line each\n"
	      "  -f, --file FILE        a saved copy of the stats file ('-': stdin)\n"
	      "      --from-trace FILE  from 'trace-cmd report' text ('-': stdin), print\n"
	      "                         one line per afa_order_change or afa_stream event:\n"
	      "                         time class slot node core dev ino order event\n"
	      "  -h, --help             this text\n"
	      "Without -f, reads /proc/autofaultaround/stats (root only) and\n"
	      "shows its header and cost fields, the class table, ordered by class then\n"
	      "domain, and the stream table of files.\n"
	      "Exit status: 0 ok, 1 error, 2 usage, 3 module not loaded,\n"
	      "4 /proc not mounted, 5 permission denied.\n", f);
}

/* A decimal number, as the stats file and JSON write it: -?D+(.D+)? */
static int is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return 0;
	s += strspn(s, "0123456789");
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return 0;
		s += strspn(s, "0123456789");
	}
	return !*s;
}

static double parse_interval(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > MAX_INTERVAL_S)
		fatal(EXIT_USAGE, "invalid watch interval '%s': seconds, above 0 and at most %d",
		      s, MAX_INTERVAL_S);
	return v;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){};
	/* '+': no permutation, so that "-w 5" can take the 5 below */
	while ((c = getopt_long(argc, argv, "+w::f:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (!optarg && optind < argc && is_number(argv[optind]))
				optarg = argv[optind++];
			o->interval_s = optarg ? parse_interval(optarg) : 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'f':
			o->file = optarg;
			break;
		case 't':
			o->trace = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(EXIT_USAGE);
		}
	}
	if (optind != argc)
		fatal(EXIT_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
	if (o->trace && (o->interval_s || o->json || o->file))
		fatal(EXIT_USAGE, "--from-trace goes alone, without --watch, --json or --file");
	if (o->interval_s && o->file && !strcmp(o->file, "-"))
		fatal(EXIT_USAGE, "--watch cannot read standard input again");
}

/*
 * The stats file went away under a read (EIO) or an open (ENOENT): the
 * module unloading, or loading.  Say so and exit 3 if it is not live.
 * Its sysfs directory may go between the open and the read of initstate:
 * unloaded too.
 */
static void fatal_if_not_live(void)
{
	FILE *f = fopen(MODULE_DIR "/initstate", "r");
	char state[16] = "";
	char *got;

	got = f ? fgets(state, sizeof(state), f) : NULL;
	if (f)
		fclose(f);
	if (!got)
		fatal(EXIT_NO_MODULE, "autofaultaround was unloaded while afa-stat read its statistics");
	state[strcspn(state, "\n")] = '\0';
	if (strcmp(state, "live"))
		fatal(EXIT_NO_MODULE, "autofaultaround is %s, not live: its statistics come and go with it",
		      state[0] ? state : "in an unknown state");
}

/*
 * Open the module's stats file, or say in one line what is missing and
 * how to get it.
 */
static int open_proc_stats(void)
{
	int fd;

	if (access(MODULE_DIR, F_OK))
		fatal(EXIT_NO_MODULE, "autofaultaround is not loaded (no %s): load it with 'modprobe autofaultaround'",
		      MODULE_DIR);
	if (access("/proc/self", F_OK))
		fatal(EXIT_NO_PROC, "/proc is not mounted: mount it with 'mount -t proc proc /proc'");
	fd = open(STATS_PATH, O_RDONLY);
	if (fd >= 0)
		return fd;
	if (errno == EACCES || errno == EPERM)
		fatal(EXIT_PERM, "%s: %s: the statistics are root-only, run afa-stat as root",
		      STATS_PATH, strerror(errno));
	if (errno == ENOENT) {
		fatal_if_not_live();
		fatal(EXIT_ERR, "%s: no such file: the module is loaded but shows no statistics, see 'dmesg | grep autofaultaround'",
		      STATS_PATH);
	}
	fatal(EXIT_ERR, "%s: %s", STATS_PATH, strerror(errno));
}

/* The whole of fd, NUL-terminated; the stats file's size is not known. */
static char *read_all(int fd, const char *name)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	ssize_t n;

	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 16384;
			buf = xrealloc(buf, cap, 1);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EIO && !strcmp(name, STATS_PATH))
			fatal_if_not_live();
		if (n < 0 && errno != EINTR)
			fatal(EXIT_ERR, "%s: %s", name, strerror(errno));
		if (n > 0)
			len += n;
	} while (n);
	buf[len] = '\0';
	return buf;
}

/* Split s in place on blanks; *fields is realloc()ed to fit. */
static unsigned int split(char *s, char ***fields)
{
	unsigned int n = 0;
	char *tok, *save;

	for (tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		*fields = xrealloc(*fields, n + 1, sizeof(**fields));
		(*fields)[n++] = tok;
	}
	return n;
}

static int col_index(const struct table *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr_cols; i++)
		if (!strcmp(t->col[i], name))
			return i;
	return -1;
}

/*
 * Whether a row holds the word name.  A row naming columns has "class",
 * which no row of figures holds; the stream table's also has "stream".
 */
static int has_field(char **f, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i], name))
			return 1;
	return 0;
}

/* "# streams: U of S slots in use", and nothing else on the line. */
static void parse_streams_line(const char *s, const char *name,
			       unsigned int lineno, struct stats *st)
{
	unsigned int used, slots;
	int end = -1;

	if (st->streams_used >= 0)
		fatal(EXIT_ERR, "%s:%u: a second '# streams:' line", name, lineno);
	if (sscanf(s, "streams: %u of %u slots in use%n", &used, &slots, &end) != 2 ||
	    end < 0 || s[end + strspn(s + end, " \t\r")] || used > slots ||
	    slots > INT_MAX)
		fatal(EXIT_ERR, "%s:%u: not '# streams: USED of SLOTS slots in use' with USED <= SLOTS",
		      name, lineno);
	st->streams_used = used;
	st->stream_slots = slots;
}

/*
 * A line of key=value fields, named by a first word "NAME:" or, for the
 * header, not at all; every word must be a field.
 */
static void parse_fields(char **tok, unsigned int n, char *group,
			 const char *name, unsigned int lineno,
			 struct stats *st)
{
	struct fields *fl;
	unsigned int i, j;
	char *eq;

	for (i = 0; i < st->nr_lines; i++) {
		if (!group != !st->line[i].name ||
		    (group && strcmp(group, st->line[i].name)))
			continue;
		if (group)
			fatal(EXIT_ERR, "%s:%u: a second '# %s:' line", name, lineno, group);
		fatal(EXIT_ERR, "%s:%u: a second header line of key=value fields",
		      name, lineno);
	}
	st->line = xrealloc(st->line, st->nr_lines + 1, sizeof(*st->line));
	fl = &st->line[st->nr_lines++];
	*fl = (struct fields){ .name = group };
	for (i = 0; i < n; i++) {
		eq = strchr(tok[i], '=');
		if (!eq || eq == tok[i] || !eq[1])
			fatal(EXIT_ERR, "%s:%u: '%s' in a line of fields is not key=value",
			      name, lineno, tok[i]);
		*eq = '\0';
		for (j = 0; j < fl->nr; j++)
			if (!strcmp(fl->f[j].key, tok[i]))
				fatal(EXIT_ERR, "%s:%u: field %s twice", name, lineno, tok[i]);
		fl->f = xrealloc(fl->f, fl->nr + 1, sizeof(*fl->f));
		fl->f[fl->nr++] = (struct field){ tok[i], eq + 1 };
	}
}

/*
 * A comment line: the stream count, the header's key=value fields, a
 * named group of fields ("# costs: ..."), or a remark without any '=',
 * which is skipped.
 */
static void parse_comment(char *s, const char *name, unsigned int lineno,
			  struct stats *st)
{
	char **tok = NULL;
	unsigned int n, i;
	size_t len;

	s += strspn(s, "# \t");
	if (!strncmp(s, "streams:", 8)) {
		parse_streams_line(s, name, lineno, st);
		return;
	}
	n = split(s, &tok);
	for (i = 0; i < n && !strchr(tok[i], '='); i++)
		;
	if (!i) {
		parse_fields(tok, n, NULL, name, lineno, st);
	} else if (i < n) {
		len = strlen(tok[0]);
		if (len < 2 || tok[0][len - 1] != ':')
			fatal(EXIT_ERR, "%s:%u: fields after '%s', not after a name and ':'",
			      name, lineno, tok[0]);
		tok[0][len - 1] = '\0';
		parse_fields(tok + 1, n - 1, tok[0], name, lineno, st);
	}
	free(tok);
}

/*
 * Parse the stats file by the names its header rows give the columns, so
 * that a column added by a later module shows up rather than breaks.
 */
static void parse_stats(char *text, const char *name, struct stats *st)
{
	struct table *cur = NULL;
	unsigned int lineno = 0, n;
	char *line, *next;
	char **f = NULL;

	*st = (struct stats){ .text = text, .streams_used = -1,
			      .stream_slots = -1 };
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (line[0] == '#') {
			parse_comment(line, name, lineno, st);
			/* the stream table's own header row comes next */
			if (st->streams_used >= 0 && !st->streams.nr_cols)
				cur = NULL;
			continue;
		}
		f = NULL;
		n = split(line, &f);
		if (!n) {
			free(f);
			continue;
		}
		if (has_field(f, n, "class")) {
			cur = has_field(f, n, "stream") ? &st->streams : &st->classes;
			if (cur->nr_cols)
				fatal(EXIT_ERR, "%s:%u: a second header row of the %s table",
				      name, lineno, cur == &st->classes ? "class" : "stream");
			cur->col = f;
			cur->nr_cols = n;
			continue;
		}
		if (!cur)
			fatal(EXIT_ERR, "%s:%u: a row before any header row: not an autofaultaround stats file?",
			      name, lineno);
		if (n != cur->nr_cols)
			fatal(EXIT_ERR, "%s:%u: %u fields, but the header row names %u columns",
			      name, lineno, n, cur->nr_cols);
		cur->row = xrealloc(cur->row, cur->nr_rows + 1, sizeof(*cur->row));
		cur->row[cur->nr_rows++] = f;
	}
	if (!st->classes.nr_cols)
		fatal(EXIT_ERR, "%s: not an autofaultaround stats file: no row of column names with 'class'",
		      name);
}

static void free_table(struct table *t)
{
	unsigned int i;

	for (i = 0; i < t->nr_rows; i++)
		free(t->row[i]);
	free(t->row);
	free(t->col);
}

static void free_stats(struct stats *st)
{
	unsigned int i;

	free_table(&st->classes);
	free_table(&st->streams);
	for (i = 0; i < st->nr_lines; i++)
		free(st->line[i].f);
	free(st->line);
	free(st->text);
}

/* A class row and its sort key: rank of its class, then file position. */
struct class_row {
	unsigned int class_rank;
	unsigned int pos;
	char **row;
};

static int class_row_cmp(const void *a, const void *b)
{
	const struct class_row *x = a, *y = b;

	if (x->class_rank != y->class_rank)
		return x->class_rank < y->class_rank ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * The stats file lists the classes of one domain after the other; show
 * the domains of one class after the other, in the file's order of
 * domains.
 */
static void sort_classes(struct table *t)
{
	int class_col = col_index(t, "class");
	struct class_row *r;
	unsigned int i, j;

	r = xrealloc(NULL, t->nr_rows, sizeof(*r));
	for (i = 0; i < t->nr_rows; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(t->row[j][class_col], t->row[i][class_col]))
				break;
		r[i] = (struct class_row){
			.class_rank = j < i ? r[j].class_rank : i,
			.pos = i,
			.row = t->row[i],
		};
	}
	qsort(r, t->nr_rows, sizeof(*r), class_row_cmp);
	for (i = 0; i < t->nr_rows; i++)
		t->row[i] = r[i].row;
	free(r);
}

/* Numbers right-aligned, words (class, dev) left-aligned. */
static void print_table(const struct table *t)
{
	unsigned int *width, c, r, len;
	int *right;

	width = xrealloc(NULL, t->nr_cols, sizeof(*width));
	right = xrealloc(NULL, t->nr_cols, sizeof(*right));
	for (c = 0; c < t->nr_cols; c++) {
		width[c] = strlen(t->col[c]);
		right[c] = 1;
		for (r = 0; r < t->nr_rows; r++) {
			len = strlen(t->row[r][c]);
			if (len > width[c])
				width[c] = len;
			if (!is_number(t->row[r][c]) && strcmp(t->row[r][c], "-"))
				right[c] = 0;
		}
	}
	for (r = 0; r <= t->nr_rows; r++) {
		for (c = 0; c < t->nr_cols; c++) {
			const char *s = r ? t->row[r - 1][c] : t->col[c];
			int last = c == t->nr_cols - 1;

			if (right[c])
				printf("%*s%s", (int)width[c], s, last ? "" : " ");
			else if (last)
				fputs(s, stdout);
			else
				printf("%-*s ", (int)width[c], s);
		}
		putchar('\n');
	}
	free(width);
	free(right);
}

/*
 * Text output: the module's own layout, aligned, so that afa-stat's
 * output is again a stats file that -f reads.
 */
static void print_text(const struct stats *st)
{
	const struct fields *fl;
	unsigned int i, j;

	for (i = 0; i < st->nr_lines; i++) {
		fl = &st->line[i];
		fputs("#", stdout);
		if (fl->name)
			printf(" %s:", fl->name);
		for (j = 0; j < fl->nr; j++)
			printf(" %s=%s", fl->f[j].key, fl->f[j].val);
		putchar('\n');
	}
	print_table(&st->classes);
	if (st->streams_used >= 0)
		printf("# streams: %d of %d slots in use\n", st->streams_used,
		       st->stream_slots);
	if (st->streams.nr_cols)
		print_table(&st->streams);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* A field: a number as a number, "-" (no value) as null, else a string. */
static void json_value(const char *s)
{
	if (is_number(s))
		fputs(s, stdout);
	else if (!strcmp(s, "-"))
		fputs("null", stdout);
	else
		json_string(s);
}

/* A key of an object, after a comma unless it is the object's first. */
static void json_key(const char *key, int *first)
{
	if (!*first)
		putchar(',');
	*first = 0;
	json_string(key);
	putchar(':');
}

static void json_table(const char *name, const struct table *t, int *first)
{
	unsigned int r, c;
	int first_col;

	json_key(name, first);
	putchar('[');
	for (r = 0; r < t->nr_rows; r++) {
		printf("%s{", r ? "," : "");
		first_col = 1;
		for (c = 0; c < t->nr_cols; c++) {
			json_key(t->col[c], &first_col);
			json_value(t->row[r][c]);
		}
		putchar('}');
	}
	putchar(']');
}

/* A line of fields: the header's as members, a group's as an object. */
static void json_fields(const struct fields *fl, int *first)
{
	unsigned int i;
	int first_in = 1, *f = first;

	if (fl->name) {
		json_key(fl->name, first);
		putchar('{');
		f = &first_in;
	}
	for (i = 0; i < fl->nr; i++) {
		json_key(fl->f[i].key, f);
		json_value(fl->f[i].val);
	}
	if (fl->name)
		putchar('}');
}

/*
 * One line: header fields, groups of fields, stream counts, "classes"
 * and "streams".
 */
static void print_json(const struct stats *st)
{
	unsigned int i;
	int first = 1;

	putchar('{');
	for (i = 0; i < st->nr_lines; i++)
		json_fields(&st->line[i], &first);
	if (st->streams_used >= 0) {
		json_key("streams_used", &first);
		printf("%d", st->streams_used);
		json_key("stream_slots", &first);
		printf("%d", st->stream_slots);
	}
	json_table("classes", &st->classes, &first);
	json_table("streams", &st->streams, &first);
	puts("}");
}

static void show_stats(const struct opts *o)
{
	const char *name = o->file;
	struct stats st;
	int fd;

	if (!o->file) {
		fd = open_proc_stats();
		name = STATS_PATH;
	} else if (!strcmp(o->file, "-")) {
		fd = STDIN_FILENO;
		name = "<stdin>";
	} else {
		fd = open(o->file, O_RDONLY);
		if (fd < 0)
			fatal(EXIT_ERR, "%s: %s", o->file, strerror(errno));
	}
	parse_stats(read_all(fd, name), name, &st);
	if (fd != STDIN_FILENO)
		close(fd);
	sort_classes(&st.classes);
	if (o->json)
		print_json(&st);
	else
		print_text(&st);
	free_stats(&st);
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Refresh until interrupted; clear the screen only for a person. */
static void watch(const struct opts *o)
{
	int clear = !o->json && isatty(STDOUT_FILENO);
	unsigned long n;

	for (n = 0; ; n++) {
		if (clear)
			fputs("\033[H\033[2J", stdout);
		else if (n && !o->json)
			putchar('\n');
		show_stats(o);
		if (fflush(stdout))
			fatal(EXIT_ERR, "write error: %s", strerror(errno));
		sleep_s(o->interval_s);
	}
}

/* The value of key= among an event's fields; NULL if absent. */
static const char *event_field(char **f, unsigned int n, const char *key)
{
	size_t len = strlen(key);
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strncmp(f[i], key, len) && f[i][len] == '=')
			return f[i] + len + 1;
	return NULL;
}

/* A whole number as the trace prints one: D+, no sign, no point. */
static int is_whole(const char *s)
{
	return is_number(s) && !strpbrk(s, "-.");
}

/* The columns of --from-trace; afa-stat.1 documents them. */
#define TRACE_COLUMNS	"# time class slot node core dev ino order event"

/*
 * Print the afa_order_change or afa_stream event of a report line as
 * TRACE_COLUMNS, after the column names if it is the first.  The
 * timestamp is the "SECONDS:" field just before the event name.  A class
 * state (slot=-1) is named by its domain, node and core; a stream by its
 * file, dev and ino: the other two columns are "-".  The order is
 * new_order= of a change, order= of a stream event; the event column is
 * a change's reason= or a stream event's event=.
 */
static void trace_line(char *line, const char *name, unsigned int lineno,
		       unsigned int *events)
{
	enum { CLASS, SLOT, NODE, CORE, DEV, INO, ORDER, EVENT, NR_KEYS };
	static const char *const change_keys[NR_KEYS] = {
		"class", "slot", "node", "core", "dev", "ino", "new_order", "reason",
	};
	static const char *const stream_keys[NR_KEYS] = {
		"class", "slot", "node", "core", "dev", "ino", "order", "event",
	};
	const char *const *keys;
	const char *val[NR_KEYS], *ev;
	unsigned int n, i, e;
	char **f = NULL, *ts;
	size_t len;

	n = split(line, &f);
	for (e = 0; e < n; e++)
		if (!strcmp(f[e], "afa_order_change:") || !strcmp(f[e], "afa_stream:"))
			break;
	if (e == n) {
		free(f);
		return;
	}
	ev = f[e];
	keys = strcmp(ev, "afa_stream:") ? change_keys : stream_keys;
	if (!e)
		fatal(EXIT_ERR, "%s:%u: no timestamp before %s", name, lineno, ev);
	ts = f[e - 1];
	len = strlen(ts);
	if (len < 2 || ts[len - 1] != ':')
		fatal(EXIT_ERR, "%s:%u: no timestamp before %s", name, lineno, ev);
	ts[len - 1] = '\0';
	if (!is_number(ts))
		fatal(EXIT_ERR, "%s:%u: '%s' before %s is not a timestamp", name, lineno, ts, ev);
	for (i = 0; i < NR_KEYS; i++) {
		val[i] = event_field(f + e + 1, n - e - 1, keys[i]);
		if (val[i] && !*val[i])
			fatal(EXIT_ERR, "%s:%u: %s with an empty %s=", name, lineno, ev, keys[i]);
		if (val[i])
			continue;
		if (i == SLOT && event_field(f + e + 1, n - e - 1, "pid"))
			fatal(EXIT_ERR, "%s:%u: %s with pid= and no slot=: a trace of an older module, whose streams were processes",
			      name, lineno, ev);
		fatal(EXIT_ERR, "%s:%u: %s without %s=", name, lineno, ev, keys[i]);
	}
	if (strcmp(val[SLOT], "-1") && !is_whole(val[SLOT]))
		fatal(EXIT_ERR, "%s:%u: %s with slot=%s: not -1 or a slot number",
		      name, lineno, ev, val[SLOT]);
	if (!is_whole(val[ORDER]))
		fatal(EXIT_ERR, "%s:%u: %s with %s=%s: not an order",
		      name, lineno, ev, keys[ORDER], val[ORDER]);
	if (!strcmp(val[SLOT], "-1")) {
		val[SLOT] = "-";
		val[DEV] = "-";
		val[INO] = "-";
	} else {
		val[NODE] = "-";
		val[CORE] = "-";
	}
	if (!(*events)++)
		puts(TRACE_COLUMNS);
	printf("%s", ts);
	for (i = 0; i < NR_KEYS; i++)
		printf(" %s", val[i]);
	putchar('\n');
	free(f);
}

/* Whether a first line is the start of trace-cmd's binary trace.dat. */
static int is_trace_dat(const char *line, size_t len)
{
	static const char magic[] = "\027\010\104tracing";

	return len >= sizeof(magic) - 1 && !memcmp(line, magic, sizeof(magic) - 1);
}

static void from_trace(const char *path)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	unsigned int lineno = 0, events = 0;
	size_t cap = 0;
	char *line = NULL;
	ssize_t len;

	if (!f)
		fatal(EXIT_ERR, "%s: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) != -1) {
		if (!lineno++ && is_trace_dat(line, len))
			fatal(EXIT_ERR, "%s is a trace-cmd data file: convert it with 'trace-cmd report -i %s > %s.txt'",
			      name, name, name);
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (strstr(line, "afa_order_change:") || strstr(line, "afa_stream:"))
			trace_line(line, name, lineno, &events);
	}
	if (ferror(f))
		fatal(EXIT_ERR, "%s: %s", name, strerror(errno));
	free(line);
	if (f != stdin)
		fclose(f);
	if (!events)
		fatal(EXIT_ERR, "%s: no afa_order_change or afa_stream event: record them with 'trace-cmd record -e autofaultaround'",
		      name);
}

int main(int argc, char **argv)
{
	struct opts o;

	parse_opts(argc, argv, &o);
	if (o.trace)
		from_trace(o.trace);
	else if (o.interval_s)
		watch(&o);
	else
		show_stats(&o);
	if (fflush(stdout) || ferror(stdout))
		fatal(EXIT_ERR, "write error: %s", strerror(errno));
	return 0;
}
