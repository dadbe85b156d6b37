/*
 * The threads' vertices as the stream goes by, the rules' hooks, and the
 * link records.  A link is written when its destination vertex begins,
 * so the stream stays in time order: TIME, PID and TID are the
 * destination's, the source's time and thread are columns of their own.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym.h"
#include "link.h"
#include "waits.h"


static struct link_rule	**rules;	/* in table order */

/* Those switched on that have each hook, in table order, NULL-ended. */
static struct link_rule	**by_type[E_NTYPES];	/* whose see() wants it */
static uint64_t		  retyped;	/* by_type[]'s to make again (link_types()) */
static struct link_rule	**begins, **attributes, **classifies, **wokens,
			**records, **finishes;
/* Those switched on that have see() or next(): for an event asked for. */
static struct link_rule	**sees;
/*
 * The kinds of record that records[] are given, NULL-ended; or any_kind:
 * the others (a vertex a segment, in argus-segment's output) go by
 * without a call.
 */
static const char	**record_kinds;
static int		  any_kind;
static int		  nasked;
static struct lthread	*threads;
static struct lthread	*wakee;		/* this event's, once asked */
/*
 * The event being linked: most links are made at the event they follow,
 * and repeat its TIME, which link_out() copies as the reader read it.
 * NULL from a record that is not an event on, and at the end.
 */
static const struct event *now;
/*
 * Its TIME's text as now_time() found it, for the next links the event
 * makes (a wake-up's three name it five times): v NO_TIME until then.
 */
static struct {
	uint64_t	 v;
	size_t		 n;
	const char	*s;
} now_text = { NO_TIME, 0, NULL };
static struct writer	*out;
static uint64_t		 nstrong, nweak;
static size_t		 thread_bytes, cpu_bytes;	/* all rules' state */

/*
 * Numbers as text, kept for link_out() in slots by a number's hash: the
 * times that causes were made at, vertices' ids, and threads' PID,TID
 * pairs (key pid << 32 | tid).  Every slot starts as 0's text, true of
 * 0 wherever it is found, so that a look-up is one compare.
 */
struct text {
	uint64_t	 v;
	size_t		 n;
	char		 s[24];
};
#define TIMES		16	/* each a power of 2 */
#define VERTICES	64
#define PTIDS		64	/* sets of two: see emit_ptid() */
static struct text	 times[TIMES], vertices[VERTICES], ptids[PTIDS][2];

/* Per-CPU state of all rules, one block a CPU. */
static char		*cpus;
static uint32_t		 ncpus;

#define ROUND(n)	(((n) + alignof(max_align_t) - 1) / \
			    alignof(max_align_t) * alignof(max_align_t))

/*
 * A rule's STRENGTH,RULE blocks.  Its name is a word of lrules[], which
 * no writer would quote.
 */
static void
blocks(struct link_rule *r)
{
	int n, weak;

	for (weak = 0; weak < 2; weak++) {
		n = snprintf(r->block[weak], sizeof(r->block[weak]), "%s,%s,",
		    weak ? LINK_WEAK : LINK_STRONG, r->name);
		if (n < 0 || (size_t)n >= sizeof(r->block[weak]) ||
		    strpbrk(r->name, ",\"\r\n") != NULL)
			diex(EX_SOFTWARE, "link rule '%s': no word", r->name);
		r->blen[weak] = n;
	}
}

struct link_rule **
link_rules(void)
{
	size_t i;

	if (rules != NULL)
		return rules;
	rules = xcalloc(nlrules, sizeof(*rules));
	set_bind(SET_BEGIN(link_rules), SET_END(link_rules), lrules, nlrules,
	    sizeof(lrules[0]), (void **)rules, "link rule");
	for (i = 0; i < nlrules; i++) {
		rules[i]->row = &lrules[i];
		rules[i]->thread_off = thread_bytes;
		rules[i]->cpu_off = cpu_bytes;
		thread_bytes += ROUND(rules[i]->thread_size);
		cpu_bytes += ROUND(rules[i]->cpu_size);
		blocks(rules[i]);
	}
	return rules;
}

static struct link_rule **
list(void)
{
	return xcalloc(nlrules + 1, sizeof(struct link_rule *));
}

static void
add(struct link_rule **l, struct link_rule *r)
{
	while (*l != NULL)
		l++;
	*l = r;
}

/* What see() is given: types 0 is every type. */
static int
wants(const struct link_rule *r, int t)
{
	return r->see != NULL && !r->off && (r->types == 0 ||
	    (r->types & EV(t)));
}

/* by_type[t] made again, as the rules' types now say. */
static void
make_type(int t)
{
	struct link_rule **l = by_type[t];
	size_t i;

	for (i = 0; i < nlrules; i++)
		if (wants(rules[i], t))
			*l++ = rules[i];
	*l = NULL;
}

void
link_types(struct link_rule *r, uint64_t types)
{
	retyped |= (r->types == 0 ? ~0ULL : r->types) ^
	    (types == 0 ? ~0ULL : types);
	r->types = types;
}

/* After the options: who is asked what, in table order. */
void
link_init(struct writer *w)
{
	struct link_rule *r;
	size_t i, j, k, nkinds = 0;
	int t;

	out = w;
	for (i = 0; i < TIMES; i++)
		times[i] = (struct text){ 0, 1, "0" };
	for (i = 0; i < VERTICES; i++)
		vertices[i] = (struct text){ 0, 1, "0" };
	for (i = 0; i < PTIDS; i++)
		ptids[i][0] = ptids[i][1] = (struct text){ 0, 4, "0,0," };
	for (t = 0; t < E_NTYPES; t++) {
		by_type[t] = list();
		make_type(t);
	}
	retyped = 0;
	begins = list();
	attributes = list();
	classifies = list();
	wokens = list();
	records = list();
	finishes = list();
	sees = list();
	record_kinds = xcalloc(nlrules * ARRAY_LEN(rules[0]->kinds) + 1,
	    sizeof(*record_kinds));
	for (i = 0; i < nlrules; i++) {
		if ((r = rules[i])->off)
			continue;
		if (r->see != NULL || r->next != NULL)
			add(sees, r);
		if (r->begin != NULL)
			add(begins, r);
		if (r->attribute != NULL)
			add(attributes, r);
		if (r->classify != NULL)
			add(classifies, r);
		if (r->woken != NULL)
			add(wokens, r);
		if (r->record != NULL) {
			add(records, r);
			any_kind |= r->kinds[0] == NULL;
			for (k = 0; k < ARRAY_LEN(r->kinds) &&
			    r->kinds[k] != NULL; k++) {
				for (j = 0; j < nkinds &&
				    strcmp(record_kinds[j], r->kinds[k]) != 0; j++)
					;
				if (j == nkinds)
					record_kinds[nkinds++] = r->kinds[k];
			}
		}
		if (r->finish != NULL)
			add(finishes, r);
	}
}

/*
 * An event asks for its thread, and for the thread it wakes, a few times
 * over (the rules): the threads asked for last, by the low bits of their
 * ids, answer most of it without the table.  A thread is never forgotten,
 * so what they point to stays.
 */
#define RECENT		64

static struct lthread *recent[RECENT];

/*
 * Out of line: the table's code, its registers saved and restored, would
 * cost the recent ones more than their lookup.
 */
static struct lthread * __attribute__((noinline))
lthread_find(uint32_t tid)
{
	struct lthread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	if (t == NULL) {
		t = xcalloc(1, ROUND(sizeof(*t)) + thread_bytes);
		t->tid = tid;
		HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
	}
	return recent[tid % RECENT] = t;
}

struct lthread *
lthread_get(uint32_t tid, uint32_t pid)
{
	struct lthread *t = recent[tid % RECENT];

	if (t == NULL || t->tid != tid)
		t = lthread_find(tid);
	if (pid != 0)
		t->pid = pid;
	return t;
}

/*
 * Its ids are short numbers, read as event_parse() reads an event's own;
 * but a thread id with a leading 0 is octal to event_u64().  A process's
 * first thread is woken most: its PID the bytes of its TID, read once
 * (same_field(), which says its bytes fit a word).
 */
_Static_assert(WAKE_COL(TPID) < WAKE_COL(TTID),
    "same_field() is given the earlier column first");

/*
 * Such a wakee by its TID's bytes, as one word: a few threads are woken
 * over and over, and a word compared costs less than its digits read.
 */
#define WAKEE_WORDS	16	/* a power of 2 */
static struct {
	uint64_t	 w;	/* 0: empty (a TID's first byte is not NUL) */
	struct lthread	*t;
} wakee_words[WAKEE_WORDS];

static inline size_t
wakee_slot(uint64_t w)
{
	return (w * GOLDEN64) >> 60 & (WAKEE_WORDS - 1);
}

/*
 * Out of line: the rules a wake-up is given after the first to ask find
 * it read, where this one's registers, saved and restored, would cost
 * each of them more than the test.
 */
static struct lthread * __attribute__((noinline))
wakee_read(const struct event *ev)
{
	const struct record *rec = ev->rec;
	const size_t col = EC_ARG + WAKE_COL(TTID);
	uint64_t tid, pid, w = 0;
	size_t i = 0;

	if (same_field(rec, EC_ARG + WAKE_COL(TPID), col) &&
	    field_word(rec, col, &w)) {
		i = wakee_slot(w);
		if (w != 0 && wakee_words[i].w == w) {
			wakee = wakee_words[i].t;
			if (wakee->tid != 0)
				wakee->pid = wakee->tid;
			return wakee;
		}
	}
	if (record_small_u64(rec, col, &tid) != 1 ||
	    (tid != 0 && *event_str(ev, WAKE_COL(TTID)) == '0'))
		tid = event_u64(ev, WAKE_COL(TTID));
	else if (w != 0) {
		wakee_words[i].w = w;
		return wakee = wakee_words[i].t = lthread_get(tid, tid);
	}
	if (record_small_u64(ev->rec, EC_ARG + WAKE_COL(TPID), &pid) != 1 ||
	    pid > UINT32_MAX)
		pid = event_pid(ev, WAKE_COL(TPID));
	return wakee = lthread_get(tid, pid);
}

struct lthread *
link_wakee(const struct event *ev)
{
	return wakee != NULL ? wakee : wakee_read(ev);
}

void *
link_thread(const struct link_rule *r, struct lthread *t)
{
	return (char *)t + ROUND(sizeof(*t)) + r->thread_off;
}

/* Out of line: a CPU not seen before is rare, link_cpu() is not. */
static void __attribute__((noinline))
cpus_grow(uint32_t cpu)
{
	uint32_t n = cpu + 1;

	cpus = xrealloc(cpus, n * cpu_bytes);
	memset(cpus + ncpus * cpu_bytes, 0, (n - ncpus) * cpu_bytes);
	ncpus = n;
}

void *
link_cpu(const struct link_rule *r, uint32_t cpu)
{
	if (cpu >= ncpus)
		cpus_grow(cpu);
	return cpus + cpu * cpu_bytes + r->cpu_off;
}

/*
 * A link's columns written here rather than by link_write(): STRENGTH and
 * RULE are one of a rule's two blocks, copied whole, and the numbers go
 * straight to the writer's buffer, where link_write() would make a dozen
 * calls for a dozen short fields.  Its columns are lib/records.def's
 * link, as link_write() lays them out.
 */
#define LINK_NUMS	8	/* TIME,PID,TID,FROM,TO,FROM_TIME,FROM_PID,FROM_TID */
_Static_assert(3 * WRITER_AT_U64 >= sizeof(((struct link_rule *)0)->block[0]),
    "a rule's block is copied whole, into the room of the numbers after it");

/*
 * The TIME of the event being linked as the reader read it, if it is v
 * and as the writer would put v (no leading 0), and 16 bytes of it are
 * readable (7 to 16 digits, and 8 past its NUL): 1 and *s, *n.
 */
static inline int
now_read(uint64_t v, const char **s, size_t *n)
{
	const struct record *rec;

	/* An event has its columns to CTX (event_parse()). */
	if (now == NULL || v != now->time || !(rec = now->rec)->padded)
		return 0;
	*s = rec->f[COL_TIME];
	*n = rec->f[COL_TIME + 1] - *s - 1;
	return *n >= 7 && *n <= 16 && **s != '0';
}

/* The same for a link's, kept for the event's next (now_text). */
static inline int
now_time(uint64_t v, const char **s, size_t *n)
{
	if (v == now_text.v) {
		*s = now_text.s;
		*n = now_text.n;
		return 1;
	}
	if (!now_read(v, s, n))
		return 0;
	now_text.v = v;
	now_text.n = *n;
	now_text.s = *s;
	return 1;
}

/*
 * The times of the events that causes were made at (link_cause()), as
 * read: a cause is linked at its effect, when the event it was made at
 * is gone, and a wake-up's time is seldom written before.
 */
static inline size_t
time_slot(uint64_t v)
{
	return (v * GOLDEN64) >> 60 & (TIMES - 1);
}

static inline void
time_note(uint64_t v)
{
	const char *s;
	size_t n, i = time_slot(v);

	if (times[i].v == v || !now_read(v, &s, &n))
		return;
	times[i].v = v;
	times[i].n = n;
	memcpy(times[i].s, s, 16);
}

/* A time: the event's text, or a cause's, else its digits. */
_Static_assert(WRITER_AT_U64 >= 16 + 1, "a time's 16 bytes fit its room");
static inline char *
emit_time(char *p, uint64_t v)
{
	const char *s;
	size_t n, i;

	if (v == NO_TIME)
		return writer_at_empty(p);
	if (!now_time(v, &s, &n)) {
		i = time_slot(v);
		if (times[i].v != v)
			return writer_at_u64(out, p, v);
		s = times[i].s;
		n = times[i].n;
	}
	memcpy(p, s, 16);
	p[n] = ',';
	return p + n + 1;
}

static inline size_t
vertex_slot(uint64_t v)
{
	return (v * GOLDEN64) >> 58 & (VERTICES - 1);
}

/*
 * A vertex's id as text, made once: a link names two vertices, each
 * named again by the links in and out of it.  A vertex begun at the event
 * being linked keeps its VERTEX's text as read, for the links into it
 * (program order's at least, where its thread had one before), where the
 * writer would put it so and 8 bytes hold it (8 more are readable past
 * its NUL).
 */
static inline void
vertex_note(const struct event *ev)
{
	const struct record *rec = ev->rec;
	const char *s;
	size_t n, i;

	if (!rec->padded)
		return;
	s = rec->f[EC_VERTEX];
	n = rec->f[EC_VERTEX + 1] - s - 1;
	if (n == 0 || n > 8 || *s == '0')
		return;
	i = vertex_slot(ev->vertex);
	vertices[i].v = ev->vertex;
	vertices[i].n = n;
	memcpy(vertices[i].s, s, 8);
}

/*
 * Any other, in digits.  An id of more than 8 digits, which a trace of
 * years would need, is put as any number.  Out of line: a vertex new to
 * the memo is one link's in several.
 */
static char * __attribute__((noinline))
vertex_make(char *p, uint64_t v)
{
	char tmp[28];
	size_t n, i = vertex_slot(v);

	n = u64_str(tmp, v);
	if (n > 8)
		return writer_at_u64(out, p, v);
	vertices[i].v = v;
	vertices[i].n = n;
	memcpy(vertices[i].s, tmp, 8);
	memcpy(p, tmp, 8);
	p[n] = ',';
	return p + n + 1;
}

static inline char *
emit_vertex(char *p, uint64_t v)
{
	size_t i = vertex_slot(v), n;

	if (vertices[i].v != v)
		return vertex_make(p, v);
	n = vertices[i].n;
	memcpy(p, vertices[i].s, 8);
	p[n] = ',';
	return p + n + 1;
}

/*
 * A thread's PID,TID as text, made once and copied whole into the room
 * of the two numbers: a link names two threads, and a few threads are
 * most of those named.  In a set of two by the TID's hash, the newest
 * first: with one slot each, two busy threads whose slots met made
 * their text again at every other link (half the links of a pipe's
 * ping-pong, in bench/graph's capture).
 */
/* Out of line: a thread not seen lately is rare, a link is not. */
static void __attribute__((noinline))
ptid_make(struct text *set, uint64_t key, uint32_t pid, uint32_t tid)
{
	char tmp[2 * 28];
	size_t n = 0;

	/* An unknown process is empty, as link_write() writes it. */
	if (pid != 0 || tid == 0)
		n = u64_str(tmp, pid);
	tmp[n++] = ',';
	n += u64_str(tmp + n, tid);
	tmp[n++] = ',';
	_Static_assert(sizeof(set->s) >= 2 * 10 + 2 &&
	    sizeof(set->s) <= 2 * WRITER_AT_U64, "PID,TID, fits");
	set[1] = set[0];	/* the older of the two goes */
	memcpy(set->s, tmp, sizeof(set->s));
	set->n = n;
	set->v = key;
}

static inline char *
emit_ptid(char *p, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	struct text *set = ptids[(tid * GOLDEN64) >> 58 & (PTIDS - 1)], *t;

	if (set[0].v == key)
		t = &set[0];
	else if (set[1].v == key)
		t = &set[1];
	else {
		ptid_make(set, key, pid, tid);
		t = &set[0];
	}
	memcpy(p, t->s, sizeof(t->s));
	return p + t->n;
}

__attribute__((flatten)) void
link_out(uint64_t time, uint32_t pid, uint32_t tid, uint64_t to,
    const struct cause *c)
{
	_Static_assert(RCOL(link, FROM) == COL_FIRST_OWN &&
	    RCOL(link, TO) == COL_FIRST_OWN + 1 &&
	    RCOL(link, STRENGTH) == COL_FIRST_OWN + 2 &&
	    RCOL(link, RULE) == COL_FIRST_OWN + 3 &&
	    RCOL(link, FROM_TIME) == COL_FIRST_OWN + 4 &&
	    RCOL(link, FROM_PID) == COL_FIRST_OWN + 5 &&
	    RCOL(link, FROM_TID) == COL_FIRST_OWN + 6 &&
	    RCOL(link, LABEL) == COL_FIRST_OWN + 7 &&
	    RCOLS(link) == COL_FIRST_OWN + 8, "link_write()'s columns");
	struct link_rule *r = rules[c->rule - lrules];
	int weak = c->weak != 0;
	/* Most links have none: no call for it. */
	size_t nlabel = c->label[0] != '\0' ? strlen(c->label) : 0;
	char *p;

	p = writer_at_begin(out, KIND_LINK, LINK_NUMS * WRITER_AT_U64 +
	    r->blen[weak] + nlabel + 1);
	p = emit_time(p, time);
	p = emit_ptid(p, pid, tid);
	p = emit_vertex(p, c->vertex);
	p = emit_vertex(p, to);
	/*
	 * The whole array, a constant size copied in line: the numbers' room
	 * after it is more than its tail, which they write over.
	 */
	memcpy(p, r->block[weak], sizeof(r->block[weak]));
	p += r->blen[weak];
	p = emit_time(p, c->time);
	p = emit_ptid(p, c->pid, c->tid);
	p = nlabel == 0 ? writer_at_empty(p) :
	    writer_at_strn(out, p, c->label, nlabel);
	writer_at_end(out, p);
	if (weak) {
		r->weak++;
		nweak++;
	} else {
		r->strong++;
		nstrong++;
	}
}

void
cause_name(struct cause *c, const struct link_rule *r)
{
	c->rule = r->row;
	c->weak |= (r->row->props & LR_WEAK) != 0;
}

void
cause_in(struct cause *c, const struct lthread *t, uint64_t time,
    const struct link_rule *r)
{
	cause_clear(c);
	c->vertex = t->vertex;
	c->pid = t->pid;
	c->tid = t->tid;
	c->time = time;
	cause_name(c, r);
}

/*
 * Not snprintf(): its cost was a tenth of a timer's arming.  Not a loop
 * either, a byte a turn, but strnlen() and memcpy(); out of line, as
 * inlined by link-time optimisation into a caller whose s is a shorter
 * array, strnlen()'s bound would be a warning (an error here).
 */
__attribute__((noinline)) void
cause_label(struct cause *c, const char *s)
{
	size_t n = strnlen(s, sizeof(c->label) - 1);

	memcpy(c->label, s, n);
	c->label[n] = '\0';
}

/*
 * A timer is armed again and again for one function (half a million
 * times in bench/graph's capture), and its name, found (event_func())
 * and copied (cause_label()), cost as much as the rest of the arming:
 * the last one's label is kept, for the same text of the field (up to
 * 24 bytes, three words compared; 8 more are readable past each field of
 * the reader's) while no name was learnt since.
 */
static struct {
	uint64_t	 w[3];
	size_t		 len;		/* 0: none yet */
	unsigned	 learnt;
	size_t		 llen;		/* strlen(label) */
	char		 label[sizeof(((struct cause *)0)->label)];
	/* The function's column of the type asked last (event_func_arg()). */
	int		 type, arg;
} func_memo = { .type = -1 };

/* ev's function field as the memo's key: 1 and w, *len if it can be one. */
static inline int
func_key(const struct event *ev, uint64_t w[3], size_t *len)
{
	const struct record *rec = ev->rec;
	const char *s;
	size_t col;

	if ((int)ev->type != func_memo.type) {
		func_memo.arg = event_func_arg(ev->type);
		func_memo.type = ev->type;
	}
	if (func_memo.arg < 0 || !rec->padded ||
	    (col = EC_ARG + func_memo.arg) >= rec->nf ||
	    (*len = record_len(rec, col)) < 8 || *len > 24)
		return 0;
	s = rec->f[col];
	memcpy(&w[0], s, 8);
	memcpy(&w[1], s + 8, 8);
	memcpy(&w[2], s + *len - 8, 8);
	return 1;
}

static inline int
func_known(const uint64_t w[3], size_t len)
{
	return len == func_memo.len && w[0] == func_memo.w[0] &&
	    w[1] == func_memo.w[1] && w[2] == func_memo.w[2] &&
	    func_memo.learnt == ksym_learnt;
}

void
cause_func(struct cause *c, const struct event *ev)
{
	uint64_t w[3];
	size_t len;

	if (!func_key(ev, w, &len)) {
		cause_label(c, event_func(ev));
		return;
	}
	if (!func_known(w, len)) {
		cause_label(c, event_func(ev));
		memcpy(func_memo.label, c->label, sizeof(func_memo.label));
		memcpy(func_memo.w, w, sizeof(func_memo.w));
		func_memo.len = len;
		func_memo.llen = strlen(c->label);
		func_memo.learnt = ksym_learnt;
		return;
	}
	/* The whole array, a constant size: past its NUL, never read. */
	memcpy(c->label, func_memo.label, sizeof(c->label));
}

/*
 * Whether label a is the memo's, by its n bytes and its NUL (n < the
 * array's size) a word at a time, not strcmp(): a shorter a differs at
 * its NUL, a longer at the memo's.  a's bytes past the last word's
 * compared ones are masked off, never looked at.
 */
static inline int
label_is_memo(const char *a, size_t n)
{
	const char *b = func_memo.label;
	uint64_t x, y;
	size_t i;

	_Static_assert(sizeof(func_memo.label) % 8 == 0,
	    "the label's array is whole words");
	for (i = 0; i + 8 <= n + 1; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	if (i == n + 1)
		return 1;
	memcpy(&x, a + i, 8);
	memcpy(&y, b + i, 8);
	return ((le64toh(x) ^ le64toh(y)) &
	    (~0ULL >> (64 - 8 * (n + 1 - i)))) == 0;
}

int
cause_func_is(const struct cause *c, const struct event *ev)
{
	uint64_t w[3];
	size_t len;

	return func_key(ev, w, &len) && func_known(w, len) &&
	    label_is_memo(c->label, func_memo.llen);
}

int
link_cause(const struct event *ev, struct cause *c)
{
	struct link_rule **r;

	cause_clear(c);
	c->time = ev->time;
	c->pid = ev->pid;
	c->tid = ev->tid;
	time_note(ev->time);
	if (ev->ctx == '-') {
		c->vertex = ev->vertex;
		return 1;
	}
	for (r = attributes; *r != NULL; r++)
		if ((*r)->attribute(*r, ev, c))
			return 1;
	return 0;
}

/* The first rule that knows what the wake-up is names it. */
void
link_classify(const struct event *ev, struct lthread *waker,
    struct lthread *wakee, struct cause *c)
{
	struct link_rule **r;

	for (r = classifies; *r != NULL; r++)
		if ((*r)->classify(*r, ev, waker, wakee, c))
			return;
}

/* Only the first wake-up of a wait counts. */
void
link_wake(struct lthread *w, const struct cause *c)
{
	if (w->woken)
		return;
	w->woken = 1;
	w->waker = *c;
	w->wait_vertex = w->vertex;
	w->woke_into = NO_VERTEX;
}

/* t's wake-up, linked into vertex to. */
static void
woken_now(const struct event *ev, struct lthread *t, uint64_t to)
{
	struct link_rule **r;

	t->woken = 0;
	t->waker.held = 0;
	t->woke_into = NO_VERTEX;
	link_emit(ev->time, t->pid, t->tid, to, &t->waker);
	for (r = wokens; *r != NULL; r++)
		(*r)->woken(*r, ev, t);
}

/*
 * A rule lets go of a wake-up it held: linked now into the vertex it ran
 * in, or, if the wakee has not run yet, at its first event as any other.
 */
void
link_release(const struct event *ev, struct lthread *t)
{
	if (!t->woken)
		return;
	t->waker.held = 0;
	if (t->woke_into != NO_VERTEX)
		woken_now(ev, t, t->woke_into);
}

void
link_next(struct link_rule *r)
{
	if (!r->asked) {
		r->asked = 1;
		nasked++;
	}
}

/* The classes a rule's calls are matched against: all but a sys_enter's. */
static inline unsigned
event_calls(const struct event *ev, const struct lthread *t)
{
	return ev->type == E_SYS_ENTER ? t->call : ~0u;
}

/* The rules asked for this event, and those whose type it is, in order. */
static void
see_asked(const struct event *ev, struct lthread *t)
{
	struct link_rule **r;

	for (r = sees; *r != NULL; r++) {
		if ((*r)->asked) {
			(*r)->asked = 0;
			nasked--;
			(*r)->next(*r, ev, t);
		}
		if ((*r)->see != NULL && ((*r)->types == 0 ||
		    ((*r)->types & EV(ev->type))) && ((*r)->calls == 0 ||
		    ((*r)->calls & event_calls(ev, t))))
			(*r)->see(*r, ev, t);
	}
}

/*
 * An event's thread is most often the last event's (a CPU runs a thread
 * for many events): that one is asked first, in line.
 */
static inline struct lthread *
event_thread(const struct event *ev)
{
	static struct lthread *last;
	struct lthread *t = last;

	if (t == NULL || t->tid != ev->tid)
		return last = lthread_get(ev->tid, ev->pid);
	if (ev->pid != 0)
		t->pid = ev->pid;
	return t;
}

/*
 * A sys_enter's classes (event_call()), found by its name among the two
 * its thread called last, and kept in ev for the rules that ask it.
 */
static inline unsigned
thread_call(struct event *ev, struct lthread *t)
{
	uint64_t w;
	unsigned c;

	if (!field_word(ev->rec, EC_ARG + SYSCALL_NAME, &w) || w == 0)
		return event_call(ev);
	if (w == t->call_name[0])
		c = t->call_class[0];
	else if (w == t->call_name[1]) {
		c = t->call_class[1];
		t->call_name[1] = t->call_name[0];
		t->call_class[1] = t->call_class[0];
		t->call_name[0] = w;
		t->call_class[0] = c;
	} else {
		c = event_call(ev);
		t->call_name[1] = t->call_name[0];
		t->call_class[1] = t->call_class[0];
		t->call_name[0] = w;
		t->call_class[0] = c;
	}
	ev->call = CALL_KNOWN | c;
	return c;
}

/*
 * The types whose rules changed, between two events: not while an
 * event's list is being walked.
 */
static void __attribute__((noinline))
retype(void)
{
	int t;

	for (t = 0; t < E_NTYPES; t++)
		if (retyped & EV(t))
			make_type(t);
	retyped = 0;
}

void
link_event(struct event *ev)
{
	struct lthread *t = event_thread(ev);
	struct link_rule **r;
	unsigned calls;

	if (retyped != 0)
		retype();
	now = ev;
	now_text.v = NO_TIME;
	wakee = NULL;
	if (ev->type == E_SYS_ENTER) {
		t->call = thread_call(ev, t);
		t->calls++;
	} else if (ev->type == E_SYS_EXIT || ev->type == E_EXIT)
		t->call = 0;
	/* Interrupt-context events (vertex 0) leave the thread's vertex be. */
	t->fresh = 0;
	if (ev->vertex != NO_VERTEX && ev->vertex != t->vertex) {
		t->prev = t->vertex;
		t->vertex = ev->vertex;
		t->fresh = 1;
		vertex_note(ev);
	}
	/*
	 * Woken: the wake-up is linked at its first event in a vertex, or,
	 * held by a rule, into that vertex when the rule lets go.
	 */
	if (t->woken && ev->ctx == '-' && ev->vertex != NO_VERTEX) {
		if (!t->waker.held)
			woken_now(ev, t, t->vertex);
		else if (t->woke_into == NO_VERTEX)
			t->woke_into = t->vertex;
	}
	if (t->fresh)
		for (r = begins; *r != NULL; r++)
			(*r)->begin(*r, ev, t);
	if (nasked > 0) {
		see_asked(ev, t);
		return;
	}
	/* Only a sys_enter is asked about by its call's classes. */
	if (ev->type != E_SYS_ENTER) {
		for (r = by_type[ev->type]; *r != NULL; r++)
			(*r)->see(*r, ev, t);
		return;
	}
	calls = t->call;
	for (r = by_type[E_SYS_ENTER]; *r != NULL; r++)
		if ((*r)->calls == 0 || ((*r)->calls & calls))
			(*r)->see(*r, ev, t);
}

void
link_record(const struct record *rec)
{
	struct link_rule **r;
	const char **k;

	now = NULL;
	now_text.v = NO_TIME;
	if (!any_kind) {
		for (k = record_kinds; *k != NULL &&
		    !name_eq(rec->f[COL_KIND], *k); k++)
			;
		if (*k == NULL)
			return;
	}
	for (r = records; *r != NULL; r++)
		(*r)->record(*r, rec);
}

void
link_summary(struct writer *w, uint64_t end, int to_stderr)
{
	struct link_rule **r;
	size_t i;

	now = NULL;
	now_text.v = NO_TIME;
	for (r = finishes; *r != NULL; r++)
		(*r)->finish(*r, end);
	summary_begin(w, end, "argus-link");
	summary_u64(w, "strong", nstrong);
	summary_u64(w, "weak", nweak);
	for (i = 0; i < nlrules; i++)
		summary_u64(w, rules[i]->name, rules[i]->strong + rules[i]->weak);
	summary_end(w);
	if (!to_stderr)
		return;
	fprintf(stderr, "argus-link: %llu strong and %llu weak links; by rule:",
	    (unsigned long long)nstrong, (unsigned long long)nweak);
	for (i = 0; i < nlrules; i++)
		fprintf(stderr, " %s %llu/%llu%s", rules[i]->name,
		    (unsigned long long)rules[i]->strong,
		    (unsigned long long)rules[i]->weak,
		    rules[i]->off ? " (off)" : "");
	fputc('\n', stderr);
}

struct pending {
	char		 key[PENDING_KEY];
	struct cause	 c;
	/* Taken: still in its table, on the list of the taken, oldest first. */
	struct pending	**taken_from;	/* NULL while it holds a cause */
	struct pending	*older, *newer;
	UT_hash_handle	 hh;
};

/*
 * A circle through taken, newest at taken.older, oldest at taken.newer.
 * A taken cause stays in its table, marked, for its key to be put again:
 * a timer is armed and taken again a few times a millisecond, a client's
 * requests to its server one after another, and a deletion and an
 * insertion cost several times what a find does.  TAKEN_KEPT of them at
 * most, the oldest deleted for a new one: keys never seen again (a block
 * request's sector) hold no more than that.  The deleted are spares for
 * the next new key, where malloc() and free() would cost as much as the
 * table.
 */
#define TAKEN_KEPT	16384
static struct pending	 taken = { .older = &taken, .newer = &taken };
static size_t		 ntaken;
static struct pending	*spare;

/*
 * The causes of 8-byte keys found last, by table and key: a timer is
 * armed, cancelled and armed again, a client and its server trade
 * requests, and a compare of two words costs less than the table's
 * find.  A cause deleted from its table is forgotten here too.
 */
#define RECENT_CAUSES	16	/* a power of 2 */
static struct {
	struct pending	**table;
	uint64_t	 key;
	struct pending	*p;
} recent_causes[RECENT_CAUSES];

static inline size_t
recent_slot(struct pending **table, uint64_t key)
{
	return ((key ^ (uintptr_t)table) * GOLDEN64) >> 60 &
	    (RECENT_CAUSES - 1);
}

static inline struct pending *
pending_lookup(struct pending **table, const void *key, size_t len)
{
	struct pending *p;
	uint64_t k;
	size_t i;

	if (len != sizeof(k)) {
		HASH_FIND(hh, *table, key, len, p);
		return p;
	}
	memcpy(&k, key, sizeof(k));
	i = recent_slot(table, k);
	if (recent_causes[i].table == table && recent_causes[i].key == k)
		return recent_causes[i].p;
	HASH_FIND(hh, *table, key, len, p);
	if (p != NULL) {
		recent_causes[i].table = table;
		recent_causes[i].key = k;
		recent_causes[i].p = p;
	}
	return p;
}

/* p, of 8 bytes' key, was just deleted from table. */
static void
pending_forget(struct pending **table, struct pending *p)
{
	uint64_t k;
	size_t i;

	if (p->hh.keylen != sizeof(k))
		return;
	memcpy(&k, p->key, sizeof(k));
	i = recent_slot(table, k);
	if (recent_causes[i].p == p) {
		recent_causes[i].table = NULL;
		recent_causes[i].p = NULL;
	}
}

static void
unlist(struct pending *p)
{
	p->older->newer = p->newer;
	p->newer->older = p->older;
	p->taken_from = NULL;
	ntaken--;
}

struct cause *
pending_find(struct pending **table, const void *key, size_t len)
{
	struct pending *p = pending_lookup(table, key, len);

	return p != NULL && p->taken_from == NULL ? &p->c : NULL;
}

struct cause *
pending_at(struct pending **table, const void *key, size_t len)
{
	struct pending *p = pending_lookup(table, key, len);

	if (p != NULL) {
		if (p->taken_from != NULL)
			unlist(p);
		return &p->c;
	}
	if (len > PENDING_KEY)
		diex(EX_SOFTWARE, "pending_put: a key of %zu bytes", len);
	/* All a spare had is written again, but for the key's unused tail. */
	if ((p = spare) != NULL)
		spare = p->hh.next;
	else
		p = xcalloc(1, sizeof(*p));
	memcpy(p->key, key, len);
	p->taken_from = NULL;
	HASH_ADD(hh, *table, key, len, p);
	return &p->c;
}

void
pending_put(struct pending **table, const void *key, size_t len,
    const struct cause *c)
{
	*pending_at(table, key, len) = *c;
}

/*
 * An address's text as a key (listen.c, refused.c): one length for all,
 * as a table wants.
 */
static const char *
addr_key(char k[PENDING_KEY], const char *addr)
{
	memset(k, 0, PENDING_KEY);
	memcpy(k, addr, strnlen(addr, PENDING_KEY - 1));
	return k;
}

void
pending_put_addr(struct pending **table, const char *addr,
    const struct cause *c)
{
	char k[PENDING_KEY];

	pending_put(table, addr_key(k, addr), PENDING_KEY, c);
}

void
pending_take_addr(struct pending **table, const char *addr)
{
	char k[PENDING_KEY];

	pending_take(table, addr_key(k, addr), PENDING_KEY, NULL);
}

struct cause *
pending_find_addr(struct pending **table, const char *addr)
{
	const char *port = strrchr(addr, ':');
	char k[PENDING_KEY], any[PENDING_KEY];
	struct cause *c;

	if ((c = pending_find(table, addr_key(k, addr), PENDING_KEY)) != NULL ||
	    port == NULL)
		return c;
	snprintf(any, sizeof(any), "0.0.0.0%s", port);
	if ((c = pending_find(table, addr_key(k, any), PENDING_KEY)) != NULL)
		return c;
	snprintf(any, sizeof(any), "[::]%s", port);
	return pending_find(table, addr_key(k, any), PENDING_KEY);
}

const struct cause *
pending_taken(struct pending **table, const void *key, size_t len)
{
	struct pending *p = pending_lookup(table, key, len), *old;

	if (p == NULL || p->taken_from != NULL)
		return NULL;
	p->taken_from = table;
	p->older = taken.older;
	p->newer = &taken;
	taken.older->newer = p;
	taken.older = p;
	/* The oldest goes, never p, the newest. */
	_Static_assert(TAKEN_KEPT > 0, "the cause just taken is kept");
	if (++ntaken > TAKEN_KEPT) {
		old = taken.newer;
		table = old->taken_from;
		unlist(old);
		HASH_DEL(*table, old);
		pending_forget(table, old);
		old->hh.next = spare;
		spare = old;
	}
	return &p->c;
}

int
pending_take(struct pending **table, const void *key, size_t len,
    struct cause *c)
{
	const struct cause *p = pending_taken(table, key, len);

	if (p == NULL)
		return 0;
	if (c != NULL)
		*c = *p;
	return 1;
}

/*
 * A return probe's event ends the call whatever it returned; an entry
 * without its return (a capture begun or ended mid-call) is harmless.
 * The entries that inside_see() is given name their OBJECT alike.
 */
#define ENTRY_OBJECT	ECOL(E_MUTEX_LOCK, OBJECT)
_Static_assert(ECOL_SAME(E_MUTEX_LOCK, E_MUTEX_UNLOCK, OBJECT) &&
    ECOL_SAME(E_MUTEX_LOCK, E_COND_SIGNAL, OBJECT),
    "the pthread entries name their object in one column");
void
inside_see(struct inside *in, const struct event *ev, enum etype entry,
    enum etype ret)
{
	if (ev->type == entry) {
		in->in = 1;
		in->object = event_nargs(ev) > 0 &&
		    *event_str(ev, ENTRY_OBJECT) != '\0' ?
		    event_u64(ev, ENTRY_OBJECT) : 0;
	} else if (ev->type == ret)
		memset(in, 0, sizeof(*in));
}

void
inside_label(const struct inside *in, struct cause *c)
{
	if (in->object != 0)
		snprintf(c->label, sizeof(c->label), "0x%llx",
		    (unsigned long long)in->object);
}

void
snap_past(struct snapshot *s, struct link_rule *r, uint64_t t)
{
	struct lthread *waiter;
	size_t i;

	if (s->time == NO_TIME || t == s->time)
		return;
	for (i = 0; i < s->nwaits; i++) {
		waiter = lthread_get(s->waits[i].tid, s->waits[i].pid);
		if (waiter->vertex != 0)
			s->join(r, &s->waits[i], waiter);
	}
	for (i = 0; i < s->nwaits; i++)
		free(s->waits[i].object);
	for (i = 0; i < s->nholders; i++)
		free(s->holders[i].object);
	s->nwaits = s->nholders = 0;
	s->time = NO_TIME;
}

struct snap_wait *
snap_wait(struct snapshot *s, struct link_rule *r, const struct wait_rec *w)
{
	s->time = w->time;
	link_next(r);
	s->waits = xrealloc(s->waits, (s->nwaits + 1) * sizeof(*s->waits));
	s->waits[s->nwaits] = (struct snap_wait){ .pid = w->pid,
	    .tid = w->tid, .since = NO_TIME, .mode = w->mode,
	    .object = xstrdup(w->object) };
	return &s->waits[s->nwaits++];
}

struct snap_holder *
snap_holder(struct snapshot *s, struct link_rule *r,
    const struct holder_rec *h)
{
	s->time = h->time;
	link_next(r);
	s->holders = xrealloc(s->holders, (s->nholders + 1) *
	    sizeof(*s->holders));
	s->holders[s->nholders] = (struct snap_holder){ .pid = h->pid,
	    .tid = h->tid, .rel = h->rel, .fd = h->fd,
	    .object = xstrdup(h->object) };
	return &s->holders[s->nholders++];
}
