#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event.h"
#include "graph.h"
#include "ksym.h"
#include "show.h"
#include "util.h"
#include "waits.h"

/*
 * The link rules.  argus-link asks them in this order: a wake-up is
 * classified by the first rule that knows it (message before cond before
 * lock), an interrupt's doing attributed by the first that knows the
 * interrupt (timer, block, softirq, and irq last, for what none knows).
 */
const struct lrule lrules[] = {
	{ "wakeup", LR_WAKES, "",
	    "the waker's vertex -> the wakee's first vertex after its wait" },
	{ "wait", LR_WEAK | LR_BACK, "",
	    "the wait -> the vertex that ended it (weak)" },
	{ "message", LR_WAKES, "",
	    "a wake-up made by a send: its receiver's" },
	{ "reply", 0, "",
	    "a request's receiver -> the vertex that sends the reply" },
	{ "cond", LR_WAKES, "the condition variable",
	    "a wake-up inside pthread_cond_signal (with probes)" },
	{ "signal", LR_WAKES, "the signal", "a wake-up that delivers a signal" },
	{ "lock", LR_WAKES | LR_WEAK, "the mutex (with probes)",
	    "a wake-up that hands over a mutex (weak)" },
	{ "timer", LR_WAKES, "the timer's function",
	    "arming vertex -> what the timer's expiry wakes" },
	{ "timeout", LR_WAKES | LR_TIMEOUT, "the timer's function",
	    "a wait ended by a timer its own thread armed" },
	{ "block", LR_WAKES, "the device",
	    "issuing vertex -> what the request's completion wakes" },
	{ "softirq", LR_WAKES | LR_WEAK, "the vector",
	    "loopback receive -> the sender's vertex; other softirqs weak" },
	{ "irq", LR_WAKES | LR_WEAK, "the interrupt",
	    "what an interrupt wakes that no rule explains (weak)" },
	{ "async", LR_WAKES, "the work function",
	    "queuing vertex -> the callout that runs the work item" },
	{ "runloop", LR_WAKES, "the source",
	    "attaching a run-loop source -> the callout dispatching it" },
	{ "fork", LR_WAKES, "",
	    "parent's vertex -> the child's first vertex" },
	{ "order", LR_WEAK | LR_ORDER, "",
	    "each vertex -> the next of its thread (weak)" },
	{ "flag", LR_WAKES | LR_FLAG, "the flag's symbol",
	    "a data flag's writer -> each other thread's first read after it" },
	{ "filelock", LR_HOLDS | LR_LOCK, "the file, DEV:INODE",
	    "where a file lock was taken -> a request it made sleep or refused" },
	{ "waitsfor", LR_HOLDS, "the relation and the object",
	    "who holds what a thread still waits on (wait-for snapshot)" },
	{ RUNTIME_RULE, LR_HOLDS | LR_LOCK, "the runtime: what it calls the object",
	    "who holds what a thread waits on, by its runtime's word" },
	{ "remote", LR_WAKES, "the sender's address pair",
	    "a send on one host -> its receipt, and wake-up, on another" },
};
const size_t nlrules = ARRAY_LEN(lrules);

/* argus-similar keeps a vertex's rules as bits of a 64-bit word. */
_Static_assert(ARRAY_LEN(lrules) < 64, "too many link rules for a rule set");

const struct sheuristic sheuristics[] = {
	{ "cull-interrupts", NULL,
	    "drop interrupts and softirqs from the thread they hit" },
	{ "cull-housekeeping", NULL,
	    "drop wake-ups of the scheduler's per-CPU kernel threads" },
	{ "hints", "hint",
	    "obey boundary and cull hint records from upstream filters" },
	{ "callout", "callout",
	    "give each work item its own vertex; no wait splits it" },
	{ "split-at-wait", NULL,
	    "end a vertex at a blocking wait" },
	{ "peer-set", "peer-set",
	    "split a vertex at a receive from a new channel" },
};
const size_t nsheuristics = ARRAY_LEN(sheuristics);

const struct sclass sclasses[] = {
	{ "RepeatedYield", HK_POLL,
	    "a loop of short naps or yields that no peer ends" },
	{ "LongWait", HK_WAIT,
	    "one long blocking wait" },
	{ "LongRunning", HK_WORK,
	    "busy on a CPU, or runnable more than blocked" },
};
const size_t nsclasses = ARRAY_LEN(sclasses);

/* Looked up once a link record, by every stage after argus-link. */
const struct lrule *
lrule_find(const char *name)
{
	static struct nameidx idx = NAMEIDX(lrules, ARRAY_LEN(lrules));
	int i = nameidx_find(&idx, name);

	return i < 0 ? NULL : &lrules[i];
}

unsigned
lrule_props(const char *name)
{
	const struct lrule *r = lrule_find(name);

	return r != NULL ? r->props : LR_WAKES;
}

const struct sclass *
sclass_find(const char *name)
{
	size_t i;

	for (i = 0; i < nsclasses; i++)
		if (strcmp(sclasses[i].name, name) == 0)
			return &sclasses[i];
	return NULL;
}

int
observer_comm(const char *comm)
{
	return strncmp(comm, "argus", 5) == 0 &&
	    (comm[5] == '\0' || comm[5] == '-');
}

int
kthread_comm(const char *comm)
{
	static const char *const kthreads[] = { "kworker/", "ksoftirqd/",
	    "rcu_", "rcuc/", "rcuog/", "rcuop/", "migration/", "cpuhp/",
	    "idle_inject/", "watchdog/", "kthreadd", "swapper/", "kswapd",
	    "kcompactd", "khugepaged", "jbd2/", "irq/", "kauditd",
	    "khungtaskd", "oom_reaper", "writeback", "kblockd", "kintegrityd",
	    "kdevtmpfs", "pool_workqueue", "ext4-", "scsi_", "napi/" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(kthreads); i++)
		if (strncmp(comm, kthreads[i], strlen(kthreads[i])) == 0)
			return 1;
	return 0;
}

const struct sclass *
sclass_of_kind(enum hang_kind k)
{
	size_t i;

	for (i = 0; i < nsclasses; i++)
		if (sclasses[i].kind == k)
			return &sclasses[i];
	diex(EX_SOFTWARE, "no spin class of kind %d", (int)k);
}

static int
is_kind(const struct record *rec, const char *kind)
{
	return record_is(rec, kind);
}

/*
 * record_u64(), a short number in line: a graph's records are mostly
 * vertex ids and thread ids, and argus-slice reads millions of them.
 */
static inline uint64_t
num(const struct record *rec, size_t col)
{
	uint64_t v;

	return record_small_u64(rec, col, &v) ? v : record_u64(rec, col);
}

/*
 * A column that may be empty: 0 then, as a thread or vertex unknown.
 * Not malformed: that is bad input, not "none".
 */
static uint64_t
opt_u64(const struct record *rec, size_t col)
{
	return *record_str(rec, col) == '\0' ? 0 : num(rec, col);
}

static void
bad(const struct record *rec, const char *fmt, const char *what)
{
	char msg[160];

	snprintf(msg, sizeof(msg), fmt, show(what));
	diex(EX_DATAERR, "%s:%lu: %s record: %s", rec->file, rec->line,
	    show(rec->f[COL_KIND]), msg);
}

/*
 * The thread a record is about: a vertex, a link's TO... 0 if none (an
 * empty TID).  A thread id is 32 bits: a wider one is bad input.
 */
static int
thread_of(const struct record *rec, uint32_t *pid, uint32_t *tid)
{
	uint64_t v;
	int known = *record_str(rec, COL_TID) != '\0';

	if (known && (!record_small_u64(rec, COL_TID, &v) || v > UINT32_MAX))
		bad(rec, "thread id '%s'", record_str(rec, COL_TID));
	*tid = known ? v : 0;
	/* empty: unknown, as record_pid() says */
	*pid = record_small_u64(rec, COL_PID, &v) == 1 ? v :
	    record_pid(rec, COL_PID);
	return known;
}

static void
begin(struct writer *w, const char *kind, uint64_t time, uint32_t pid,
    uint32_t tid)
{
	writer_begin(w, kind);
	writer_time(w, time);
	writer_pid(w, pid, tid);
	writer_u64(w, tid);
}

int
vertex_parse(const struct record *rec, struct vertex_rec *v)
{
	if (!is_kind(rec, KIND_VERTEX))
		return 0;
	if (!thread_of(rec, &v->pid, &v->tid))
		bad(rec, "%s", "no thread");
	v->id = num(rec, VC_ID);
	v->begin = num(rec, VC_BEGIN);
	v->end = num(rec, VC_END);
	v->oncpu = num(rec, VC_ONCPU);
	v->events = num(rec, VC_EVENTS);
	v->began_by = record_str(rec, VC_BEGAN_BY);
	v->ended_by = record_str(rec, VC_ENDED_BY);
	v->wait = record_str(rec, VC_WAIT);
	v->comm = record_str(rec, VC_COMM);
	if (v->id == 0)
		bad(rec, "%s", "vertex 0 (ids count from 1)");
	if (v->end < v->begin)
		diex(EX_DATAERR, "%s:%lu: vertex %llu ends before it begins",
		    rec->file, rec->line, (unsigned long long)v->id);
	return 1;
}

void
vertex_write(struct writer *w, const struct vertex_rec *v)
{
	begin(w, KIND_VERTEX, v->end, v->pid, v->tid);
	writer_u64(w, v->id);
	writer_u64(w, v->begin);
	writer_u64(w, v->end);
	writer_u64(w, v->oncpu);
	writer_u64(w, v->events);
	writer_str(w, v->began_by);
	writer_str(w, v->ended_by);
	writer_str(w, v->wait);
	writer_str(w, v->comm);
	writer_end(w);
}

static int
strength(const struct record *rec, size_t col)
{
	const char *s = record_str(rec, col);

	if (name_eq(s, "weak"))
		return 1;
	if (!name_eq(s, "strong"))
		bad(rec, "strength '%s' (strong or weak)", s);
	return 0;
}

int
link_parse(const struct record *rec, struct link_rec *l)
{
	if (!is_kind(rec, KIND_LINK))
		return 0;
	l->time = rec->time;
	thread_of(rec, &l->pid, &l->tid);
	l->from = num(rec, LC_FROM);
	l->to = num(rec, LC_TO);
	l->weak = strength(rec, LC_STRENGTH);
	l->rule = record_str(rec, LC_RULE);
	l->props = lrule_props(l->rule);
	if (!record_u64_opt(rec, LC_FROM_TIME, &l->from_time))
		l->from_time = rec->time;
	l->from_pid = record_pid(rec, LC_FROM_PID);
	l->from_tid = opt_u64(rec, LC_FROM_TID);
	l->label = record_str(rec, LC_LABEL);
	return 1;
}

void
link_write(struct writer *w, const struct link_rec *l)
{
	begin(w, KIND_LINK, l->time, l->pid, l->tid);
	writer_u64(w, l->from);
	writer_u64(w, l->to);
	writer_str(w, l->weak ? "weak" : "strong");
	writer_str(w, l->rule);
	writer_time(w, l->from_time);
	writer_pid(w, l->from_pid, l->from_tid);
	writer_u64(w, l->from_tid);
	writer_str(w, l->label);
	writer_end(w);
}

static const struct sclass *
class_col(const struct record *rec, size_t col)
{
	const struct sclass *c = sclass_find(record_str(rec, col));

	if (c == NULL)
		bad(rec, "unknown class '%s'", record_str(rec, col));
	return c;
}

int
spin_parse(const struct record *rec, struct spin_rec *s)
{
	if (!is_kind(rec, KIND_SPIN))
		return 0;
	s->time = rec->time;
	thread_of(rec, &s->pid, &s->tid);
	s->vertex = record_u64(rec, SC_VERTEX);
	s->class = class_col(rec, SC_CLASS);
	s->begin = record_u64(rec, SC_BEGIN);
	s->end = record_u64(rec, SC_END);
	s->oncpu = opt_u64(rec, SC_ONCPU);
	s->waits = opt_u64(rec, SC_WAITS);
	snprintf(s->ended, sizeof(s->ended), "%s", record_str(rec, SC_ENDED));
	s->waker = opt_u64(rec, SC_WAKER);
	if (!record_u64_opt(rec, SC_LAST_VERTEX, &s->last))
		s->last = s->vertex;
	snprintf(s->comm, sizeof(s->comm), "%s", record_str(rec, SC_COMM));
	if (s->end < s->begin)
		bad(rec, "%s", "ends before it begins");
	return 1;
}

void
spin_write(struct writer *w, const struct spin_rec *s)
{
	begin(w, KIND_SPIN, s->time, s->pid, s->tid);
	writer_u64(w, s->vertex);
	writer_str(w, s->class->name);
	writer_u64(w, s->begin);
	writer_u64(w, s->end);
	writer_u64(w, s->oncpu);
	writer_u64(w, s->waits);
	writer_str(w, s->ended);
	writer_u64(w, s->waker);
	writer_u64(w, s->last);
	writer_str(w, s->comm);
	writer_end(w);
}

int
baseline_parse(const struct record *rec, struct baseline_rec *b)
{
	const char *s;
	char *end;

	if (!is_kind(rec, KIND_BASELINE))
		return 0;
	b->time = rec->time;
	thread_of(rec, &b->pid, &b->tid);
	b->spin_vertex = record_u64(rec, BC_SPIN_VERTEX);
	b->vertex = record_u64(rec, BC_VERTEX);
	b->rank = record_u64(rec, BC_RANK);
	s = record_str(rec, BC_SCORE);
	b->score = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || !isfinite(b->score))
		bad(rec, "score '%s'", s);
	b->waker = opt_u64(rec, BC_WAKER);
	b->reason = record_str(rec, BC_REASON);
	return 1;
}

void
baseline_write(struct writer *w, const struct baseline_rec *b)
{
	char score[16];

	snprintf(score, sizeof(score), "%.3f", b->score);
	begin(w, KIND_BASELINE, b->time, b->pid, b->tid);
	writer_u64(w, b->spin_vertex);
	writer_u64(w, b->vertex);
	writer_u64(w, b->rank);
	writer_str(w, score);
	writer_u64(w, b->waker);
	writer_str(w, b->reason);
	writer_end(w);
}

void
step_write(struct writer *w, const struct step_rec *s)
{
	begin(w, KIND_STEP, s->time, s->pid, s->tid);
	writer_u64(w, s->path);
	writer_u64(w, s->n);
	writer_u64(w, s->vertex);
	writer_u64(w, s->next);
	writer_str(w, s->rule);
	writer_str(w, s->strength);
	writer_str(w, s->how);
	writer_end(w);
}

static const char *const root_kinds[] = {
	[RK_VICTIM] = "victim", [RK_CULPRIT] = "culprit", [RK_ROOT] = "root",
	[RK_CYCLE] = "cycle",
};

static const struct {
	const char	*word, *phrase;
} evidences[] = {
	[EV_GUESS] = { "guess", "a guess from timing" },
	[EV_WAKEUP] = { "wakeup", "a wake-up" },
	[EV_RUNTIME] = { "runtime", "its runtime says" },
	[EV_CONNECTION] = { "connection", "the connection says" },
	[EV_KERNEL] = { "kernel", "the kernel says" },
};

const char *
evidence_word(enum evidence ev)
{
	return ev == EV_UNSAID ? "" : evidences[ev].word;
}

const char *
evidence_phrase(enum evidence ev)
{
	return ev == EV_UNSAID ? "" : evidences[ev].phrase;
}

const char *
root_kind_name(enum root_kind k)
{
	return root_kinds[k];
}

int
root_parse(const struct record *rec, struct root_rec *r)
{
	const char *kind;
	size_t k;

	if (!is_kind(rec, KIND_ROOT))
		return 0;
	r->time = rec->time;
	thread_of(rec, &r->pid, &r->tid);
	r->vertex = record_u64(rec, RC_VERTEX);
	kind = record_str(rec, RC_KIND);
	for (k = 0; k < ARRAY_LEN(root_kinds); k++)
		if (strcmp(root_kinds[k], kind) == 0)
			break;
	if (k == ARRAY_LEN(root_kinds))
		bad(rec, "unknown kind '%s'", kind);
	r->kind = k;
	r->depth = record_u64(rec, RC_DEPTH);
	r->begin = record_u64(rec, RC_BEGIN);
	r->end = record_u64(rec, RC_END);
	r->class = class_col(rec, RC_CLASS);
	r->why = record_str(rec, RC_WHY);
	r->comm = record_str(rec, RC_COMM);
	r->function = record_str(rec, RC_FUNCTION);
	/* Older streams have no EVIDENCE: unsaid. */
	r->evidence = EV_UNSAID;
	kind = record_str(rec, RC_EVIDENCE);
	for (k = 0; *kind != '\0' && k < ARRAY_LEN(evidences); k++)
		if (strcmp(evidences[k].word, kind) == 0)
			break;
	if (*kind != '\0' && k == ARRAY_LEN(evidences))
		bad(rec, "unknown evidence '%s'", kind);
	if (*kind != '\0')
		r->evidence = k;
	return 1;
}

void
root_write(struct writer *w, const struct root_rec *r)
{
	begin(w, KIND_ROOT, r->time, r->pid, r->tid);
	writer_u64(w, r->vertex);
	writer_str(w, root_kind_name(r->kind));
	writer_u64(w, r->depth);
	writer_u64(w, r->begin);
	writer_u64(w, r->end);
	writer_str(w, r->class->name);
	writer_str(w, r->why);
	writer_str(w, r->comm);
	writer_str(w, r->function);
	writer_str(w, evidence_word(r->evidence));
	writer_end(w);
}

void
summary_begin(struct writer *w, uint64_t time, const char *program)
{
	writer_begin(w, KIND_SUMMARY);
	writer_time(w, time);
	writer_empty(w);
	writer_empty(w);
	writer_str(w, program);
}

void
summary_u64(struct writer *w, const char *key, uint64_t v)
{
	writer_str(w, key);
	writer_u64(w, v);
}

void
meta_write(struct writer *w, uint64_t time, const char *key,
    const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	writer_begin(w, KIND_META);
	writer_time(w, time);
	writer_empty(w);
	writer_empty(w);
	writer_str(w, key);
	writer_str(w, buf);
	writer_end(w);
}

void
meta_u64(struct writer *w, uint64_t time, const char *key, uint64_t v)
{
	meta_write(w, time, key, "%llu", (unsigned long long)v);
}

static const struct {
	const char	*kind, *cols;
} kinds[] = {
	{ KIND_META,	"KEY,VALUE" },
	{ KIND_TASK,	"COMM,CGROUP" },
	{ KIND_EVENT,	"VERTEX,CPU,TYPE,CTX,ARG..." },
	{ KIND_LOST,	"CPU,COUNT" },
	{ KIND_STACK,	"FRAME..." },
	{ KIND_BOUNDARY,	"REASON" },
	{ KIND_CULL,	"END,REASON" },
	{ KIND_VERTEX,	"ID,BEGIN,END,ONCPU,EVENTS,BEGAN_BY,ENDED_BY,WAIT,COMM" },
	{ KIND_LINK,	"FROM,TO,STRENGTH,RULE,FROM_TIME,FROM_PID,FROM_TID,LABEL" },
	{ KIND_SPIN,	"VERTEX,CLASS,BEGIN,END,ONCPU,WAITS,ENDED,WAKER,"
			"LAST_VERTEX,COMM" },
	{ KIND_BASELINE,	"SPIN_VERTEX,VERTEX,RANK,SCORE,WAKER,REASON" },
	{ KIND_STEP,	"PATH,N,VERTEX,NEXT,RULE,STRENGTH,HOW" },
	{ KIND_ROOT,	"VERTEX,KIND,DEPTH,BEGIN,END,CLASS,WHY,COMM,FUNCTION,EVIDENCE" },
	{ KIND_WAIT,	"STATE,CALL,FD,TYPE,OBJECT,MODE,TIMEOUT,DEADLINE,SINCE,"
			"VIA,WCHAN,COMM,ARG..." },
	{ KIND_HOLDER,	"OBJECT,RELATION,FD,THROUGH,DETAIL,COMM" },
	{ KIND_SOCK,	"OBJECT,FD,PROTO,LOCAL,REMOTE,STATE,COMM" },
	{ KIND_SUMMARY,	"PROGRAM,KEY,VALUE..." },
	{ KSYM_KIND,	"ADDRESS,NAME" },
};

const char *
kind_columns(const char *kind)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(kinds); i++)
		if (strcmp(kinds[i].kind, kind) == 0)
			return kinds[i].cols;
	return NULL;
}

int
kind_is_word(const char *kind)
{
	size_t i;

	if (kind[0] < 'a' || kind[0] > 'z')
		return 0;
	for (i = 1; kind[i] != '\0'; i++)
		if (i >= KIND_MAX || !((kind[i] >= 'a' && kind[i] <= 'z') ||
		    (kind[i] >= '0' && kind[i] <= '9') || kind[i] == '_'))
			return 0;
	return 1;
}

void
meta_wallclock(struct writer *w, uint64_t time)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	meta_write(w, time, META_WALLCLOCK, "%lld",
	    (long long)(r.tv_sec - m.tv_sec) * 1000000000LL +
	    (r.tv_nsec - m.tv_nsec));
}

void
wall_learn(const struct record *rec)
{
	const char *v;
	char *end;
	long long off;

	if (rec->comment || rec->nf <= COL_FIRST_OWN + 1 ||
	    strcmp(rec->f[COL_KIND], KIND_META) != 0 ||
	    strcmp(rec->f[COL_FIRST_OWN], META_WALLCLOCK) != 0)
		return;
	v = rec->f[COL_FIRST_OWN + 1];
	off = strtoll(v, &end, 10);
	if (*v == '\0' || *end != '\0')
		diex(EX_DATAERR, "%s:%lu: meta %s: '%s' is not a number",
		    rec->file, rec->line, META_WALLCLOCK, show(v));
	wall_offset = off;
	wall_set = 1;
}

static uint64_t
id_at(const struct vvec *vv, size_t i)
{
	return *(const uint64_t *)((const char *)vv->v + i * vv->size);
}

/* Where id is, or would go: searched from the end, where it nearly is. */
static size_t
place(const struct vvec *vv, uint64_t id)
{
	size_t i = vv->n;

	while (i > 0 && id_at(vv, i - 1) > id)
		i--;
	return i;
}

void *
vvec_get(struct vvec *vv, uint64_t id)
{
	size_t i = place(vv, id);
	char *p;

	if (i > 0 && id_at(vv, i - 1) == id)
		return (char *)vv->v + (i - 1) * vv->size;
	if (vv->n == vv->cap) {
		vv->cap = vv->cap ? 2 * vv->cap : 16;
		vv->v = xrealloc(vv->v, vv->cap * vv->size);
	}
	p = (char *)vv->v + i * vv->size;
	memmove(p + vv->size, p, (vv->n - i) * vv->size);
	memset(p, 0, vv->size);
	*(uint64_t *)p = id;
	vv->n++;
	return p;
}

size_t
vvec_find(const struct vvec *vv, uint64_t id)
{
	size_t lo = 0, hi = vv->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (id_at(vv, mid) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < vv->n && id_at(vv, lo) == id ? lo : vv->n;
}

int
meta_is(const struct record *rec, const char *key)
{
	return !rec->comment && rec->nf > COL_FIRST_OWN + 1 &&
	    strcmp(rec->f[COL_KIND], KIND_META) == 0 &&
	    strcmp(rec->f[COL_FIRST_OWN], key) == 0;
}

int
summary_of(const struct record *rec, const char *program)
{
	return !rec->comment && rec->nf > COL_FIRST_OWN &&
	    record_is(rec, KIND_SUMMARY) &&
	    strcmp(rec->f[COL_FIRST_OWN], program) == 0;
}
