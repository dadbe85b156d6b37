/*
 * Where the graph is ambiguous, the user decides: on the terminal (the
 * stream is on stdin, so questions go to /dev/tty), from a file of answers
 * (scripted sessions, cron, tests), or by a fixed rule (the most recent
 * link) for comparison with the interactive slice.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "slice.h"

static enum ask_mode	 mode;
static FILE		*in, *tty;
static const char	*answers_name;
static unsigned long	 answers_line;
static int		 queries;

void
ask_init(enum ask_mode m, const char *answers)
{
	mode = m;
	if (m == ASK_FILE) {
		answers_name = answers;
		if ((in = fopen(answers, "r")) == NULL)
			die(EX_NOINPUT, "%s", answers);
	}
}

/*
 * The terminal only once there is a question: none may be asked.  A
 * script or a cron job has none: nobody could answer, so the rule does,
 * as with --auto, and it is said once.  0 when there is none.
 */
static int
open_tty(void)
{
	if (tty != NULL)
		return 1;
	if ((tty = fopen("/dev/tty", "r+")) == NULL) {
		warnx_("no terminal to ask on (%s): answering by rule, as "
		    "--auto does (--answers FILE to answer otherwise)",
		    strerror(errno));
		mode = ASK_AUTO;
		return 0;
	}
	in = tty;
	return 1;
}

int
ask_queries(void)
{
	return queries;
}

/*
 * The next answer: a line without its newline and spaces, NULL at end.
 * Whole lines, however long: a long comment is one line, not several.
 */
static char *
answer(void)
{
	static char *buf;
	static size_t cap;
	char *p;

	for (;;) {
		if (tty != NULL)
			fflush(tty);
		if (getline(&buf, &cap, in) == -1)
			return NULL;
		answers_line++;
		for (p = buf + strlen(buf); p > buf && isspace((unsigned char)p[-1]); )
			*--p = '\0';
		for (p = buf; isspace((unsigned char)*p); p++)
			;
		/* Comments and blank lines in an answers file are notes. */
		if (mode == ASK_FILE && (*p == '#' || *p == '\0'))
			continue;
		return p;
	}
}

/*
 * The rule: the most recent cause; program order only if nothing else.
 * A weak link from another process is a guess about a thread the hang may
 * never have touched (a kernel worker, the shell that started the
 * program): the rule does not follow one, it stops there (-1) and a
 * person may.
 */
int
most_recent_link(struct graph *g, uint64_t at, struct link **cand, int n)
{
	struct vertex *v = vertex_get(g, at), *u;
	int i, best = -1, weak_order;

	for (weak_order = 0; weak_order < 2 && best < 0; weak_order++)
		for (i = 0; i < n; i++) {
			if (!weak_order && (link_props(cand[i]) & LR_ORDER))
				continue;
			if (link_weak(cand[i]) && v != NULL &&
			    ((u = vertex_get(g, link_from(cand[i]))) == NULL ||
			    u->pid != v->pid))
				continue;
			if (best < 0 ||
			    link_time(cand[i]) > link_time(cand[best]))
				best = i;
		}
	return best;
}

/* The rule's choice, and how to say it in a step record. */
static int
by_rule(struct graph *g, uint64_t at, struct link **cand, int n,
    const char **how)
{
	int pick = most_recent_link(g, at, cand, n);

	*how = pick < 0 ? "untouched" : "auto";
	return pick;
}

/*
 * "pid=N", "tid=N", "comm=NAME" or "rule=NAME": the first candidate whose
 * cause matches, so that a scripted answer says what it means and does
 * not depend on the order of the candidates.  None: the rule decides.
 */
static int
select_by(struct graph *g, uint64_t at, const char *a, struct link **cand,
    int n)
{
	const char *val = strchr(a, '=') + 1;
	struct vertex *v;
	size_t klen = val - 1 - a;
	int i, hit;

	for (i = 0; i < n; i++) {
		if ((v = vertex_get(g, link_from(cand[i]))) == NULL)
			continue;
		if (klen == 3 && strncmp(a, "pid", 3) == 0)
			hit = v->pid == strtoul(val, NULL, 10);
		else if (klen == 3 && strncmp(a, "tid", 3) == 0)
			hit = v->tid == strtoul(val, NULL, 10);
		else if (klen == 4 && strncmp(a, "comm", 4) == 0)
			hit = strcmp(str_of(vertex_comm(v)), val) == 0;
		else if (klen == 4 && strncmp(a, "rule", 4) == 0)
			hit = strcmp(str_of(link_rule(cand[i])), val) == 0;
		else if (mode == ASK_FILE)
			diex(EX_DATAERR, "%s:%lu: '%s': a selector is pid=, "
			    "tid=, comm= or rule=", answers_name, answers_line, a);
		else
			hit = 0;
		if (hit)
			return i;
	}
	warnx_("no candidate matches '%s': taking the most recent", a);
	return most_recent_link(g, at, cand, n);
}

/*
 * Answers already given, by vertex: the diagnosis walks a path again from
 * each culprit, and the question at a vertex is the same question each
 * time (its candidates come in the order of its links).
 */
struct answered {
	uint64_t	 at;
	int		 pick;
	const char	*how;
};
static struct answered	*memo;
static size_t		 nmemo;

static int
recall(uint64_t at, const char **how)
{
	size_t i;

	for (i = 0; i < nmemo; i++)
		if (memo[i].at == at) {
			*how = memo[i].how;
			return memo[i].pick;
		}
	return -2;
}

static int
remember(uint64_t at, int pick, const char *how)
{
	memo = xrealloc(memo, (nmemo + 1) * sizeof(*memo));
	memo[nmemo].at = at;
	memo[nmemo].pick = pick;
	memo[nmemo++].how = how;
	return pick;
}

static int ask_link1(struct graph *, uint64_t, struct link **, int,
    const char **);

int
ask_link(struct graph *g, uint64_t at, struct link **cand, int n,
    const char **how)
{
	int pick;

	if ((pick = recall(at, how)) != -2)
		return pick;
	pick = ask_link1(g, at, cand, n, how);
	return remember(at, pick, *how);
}

static int
ask_link1(struct graph *g, uint64_t at, struct link **cand, int n,
    const char **how)
{
	char desc[256], *a, *end;
	long k;
	int i;

	/*
	 * One candidate is no choice to put to a person: the rule takes it
	 * or stops there.  A file of answers still answers it, as written.
	 */
	if (mode == ASK_TTY && n == 1)
		return by_rule(g, at, cand, n, how);
	queries++;
	if (mode == ASK_TTY && !open_tty())
		return by_rule(g, at, cand, n, how);
	if (mode == ASK_AUTO)
		return by_rule(g, at, cand, n, how);
	if (tty != NULL) {
		describe_vertex(g, at, desc, sizeof(desc));
		fprintf(tty, "\nWhich of these caused %s?\n", desc);
		for (i = 0; i < n; i++) {
			describe_vertex(g, link_from(cand[i]), desc,
			    sizeof(desc));
			fprintf(tty, "  [%d] %s %s%s%s: %s\n", i + 1,
			    link_weak(cand[i]) ? "weak" : "strong",
			    show(str_of(link_rule(cand[i]))),
			    *str_of(link_label(cand[i])) ? " " : "",
			    show(str_of(link_label(cand[i]))), desc);
		}
	}
	for (;;) {
		if (tty != NULL)
			fprintf(tty, "choose 1-%d, auto, or s to stop here: ", n);
		if ((a = answer()) == NULL) {
			if (mode == ASK_FILE)
				diex(EX_DATAERR, "%s: no answer left for the "
				    "question at vertex %llu", answers_name,
				    (unsigned long long)at);
			fprintf(tty, "\nno answer (end of input): stopping here\n");
			*how = "stop";
			return -1;
		}
		if (strcmp(a, "s") == 0 || strcmp(a, "stop") == 0) {
			*how = "stop";
			return -1;
		}
		if (strcmp(a, "rest=auto") == 0)
			mode = ASK_AUTO;
		if (strcmp(a, "auto") == 0 || strcmp(a, "rest=auto") == 0)
			return by_rule(g, at, cand, n, how);
		if (strchr(a, '=') != NULL) {
			*how = mode == ASK_FILE ? "answer" : "user";
			return select_by(g, at, a, cand, n);
		}
		errno = 0;
		k = strtol(a, &end, 10);
		if (*a != '\0' && *end == '\0' && errno == 0 && k >= 1 && k <= n) {
			*how = mode == ASK_FILE ? "answer" : "user";
			return k - 1;
		}
		if (mode == ASK_FILE)
			diex(EX_DATAERR, "%s:%lu: '%s' is not 1 to %d, 'stop', "
			    "'auto' or a selector", answers_name, answers_line, a, n);
		fprintf(tty, "'%s' is not a choice.\n", a);
	}
}
