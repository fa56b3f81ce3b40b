#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every kernel log line the docs quote must be one the module can print.
#
# The convention: a line of a code block in README.md or docs/*.md
# (fenced, or indented by four spaces or more) that starts with
# "autofaultaround: " quotes a kernel log line.  It must match, whole,
# one of the module's messages: the format string of a pr_*() call in
# module/*.c (adjacent literals joined), behind the pr_fmt() prefix
# "autofaultaround: ", with each printf conversion (%d, %lu, %.*s, ...)
# matching any text.  A quote may stop short with "...": then its start
# must match.  Ends "doc-logs: N passed, N failed".
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || die "python3 not found; run 'make deps'"
cd "$AFA_TOP" || exit 1
exec python3 - README.md docs/*.md -- module/*.c userspace/afa-fault-around <<'PY'
import re
import sys

args = sys.argv[1:]
docs, srcs = args[:args.index('--')], args[args.index('--') + 1:]
PREFIX = 'autofaultaround: '

# the module's messages: pr_info("..." "..."), pr_warn_ratelimited(...), ...
call = re.compile(r'\bpr_(?:emerg|alert|crit|err|warn|warning|notice|info|debug)'
                  r'(?:_once|_ratelimited)?\s*\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
lit = re.compile(r'"((?:[^"\\]|\\.)*)"')
conv = re.compile(r'%%|%[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?'
                  r'(?:hh|h|ll|l|L|z|j|t)?(?:p[A-Za-z]*|[diouxXcsfeEgGn])')
formats = []
# userspace/afa-fault-around writes to the kernel log too: its say "..."
# lines, shell expansions ($x, $(...)) read as conversions
say = re.compile(r'^\s*say "(.*)"\s*$', re.M)
shvar = re.compile(r'\$\((?:[^()]|\([^()]*\))*\)|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?')
for path in srcs:
    text = open(path).read()
    if not path.endswith('.c'):
        for m in say.finditer(text):
            formats.append((path, shvar.sub('%s', m.group(1).replace('%', '%%'))))
        continue
    for m in call.finditer(text):
        fmt = ''.join(lit.findall(m.group(1)))
        fmt = fmt.encode().decode('unicode_escape').rstrip('\n')
        formats.append((path, fmt))


def pattern(fmt):
    out, pos = '', 0
    for m in conv.finditer(fmt):
        out += re.escape(fmt[pos:m.start()])
        out += '%' if m.group(0) == '%%' else '.*'
        pos = m.end()
    return out + re.escape(fmt[pos:])


pats = [(p, f, re.compile(pattern(f), re.S)) for p, f in formats]


def is_prefix(body, fmt):
    """body is the start of a message of fmt: some start of fmt, not
    cut inside a conversion, matches it whole"""
    inside = set()
    for m in conv.finditer(fmt):
        inside.update(range(m.start() + 1, m.end()))
    return any(re.fullmatch(pattern(fmt[:k]), body, re.S)
               for k in range(len(fmt), 0, -1) if k not in inside)

# the quoted lines: code blocks only
quotes = []
for path in docs:
    fenced = False
    for n, line in enumerate(open(path), 1):
        line = line.rstrip('\n')
        if line.lstrip().startswith('```'):
            fenced = not fenced
            continue
        if not fenced and not line.startswith('    '):
            continue
        s = line.strip()
        if s.startswith(PREFIX):
            quotes.append((path, n, s[len(PREFIX):]))

passed = failed = 0
for path, n, q in quotes:
    cut = q.endswith('...')
    body = q[:-3].rstrip() if cut else q
    hit = [(p, f) for p, f, rx in pats
           if (is_prefix(body, f) if cut else rx.fullmatch(body))]
    if hit:
        passed += 1
        print('PASS: %s:%d is %s: "%s"' % (path, n, hit[0][0], hit[0][1]))
    else:
        failed += 1
        print('FAIL: %s:%d quotes a log line no pr_*() in module/ prints: "%s%s"'
              % (path, n, PREFIX, q))
if not formats:
    failed += 1
    print('FAIL: no pr_*() format strings found in module/')
print('%d quoted log lines in the docs, %d messages in module/'
      % (len(quotes), len(formats)))
print('doc-logs: %d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
PY
