#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	{ WAKEUP_RULE, LR_WAKES, "",
	    "the waker's vertex -> the wakee's first vertex after its wait" },
	{ WAIT_RULE, LR_WEAK | LR_BACK, "",
	    "the wait -> the vertex that ended it (weak)" },
	{ MESSAGE_RULE, LR_WAKES, "",
	    "a wake-up made by a send: its receiver's" },
	{ REPLY_RULE, 0, "",
	    "a request's receiver -> the vertex that sends the reply" },
	{ COND_RULE, LR_WAKES, "the condition variable",
	    "a wake-up inside pthread_cond_signal (with probes)" },
	{ SIGNAL_RULE, LR_WAKES, "the signal", "a wake-up that delivers a signal" },
	{ STOP_RULE, LR_WEAK, "the signal",
	    "a stop's sender -> the vertex it ends, of a thread it did not wake (weak)" },
	{ LOCK_RULE, LR_WAKES | LR_WEAK, "the mutex (with probes)",
	    "a wake-up that hands over a mutex (weak)" },
	{ TIMER_RULE, LR_WAKES, "the timer's function",
	    "arming vertex -> what the timer's expiry wakes" },
	{ TIMEOUT_RULE, LR_WAKES | LR_TIMEOUT, "the timer's function",
	    "a wait ended by a timer its own thread armed" },
	{ BLOCK_RULE, LR_WAKES, "the device",
	    "issuing vertex -> what the request's completion wakes" },
	{ LISTEN_RULE, LR_WAKES | LR_WEAK, "the listener's address",
	    "a listener's owner -> a connect to it its full queue held up (weak)" },
	{ REFUSED_RULE, LR_WAKES | LR_FLAG, "the listener's address",
	    "a listen -> the next try of a connect the address refused before" },
	{ SOFTIRQ_RULE, LR_WAKES | LR_WEAK, "the vector",
	    "loopback receive -> the sender's vertex; other softirqs weak" },
	{ IRQ_RULE, LR_WAKES | LR_WEAK, "the interrupt",
	    "what an interrupt wakes that no rule explains (weak)" },
	{ ASYNC_RULE, LR_WAKES, "the work function",
	    "queuing vertex -> the callout that runs the work item" },
	{ RUNLOOP_RULE, LR_WAKES, "the source",
	    "attaching a run-loop source -> the callout dispatching it" },
	{ FORK_RULE, LR_WAKES, "",
	    "parent's vertex -> the child's first vertex" },
	{ ORDER_RULE, LR_WEAK | LR_ORDER, "",
	    "each vertex -> the next of its thread (weak)" },
	{ FLAG_RULE, LR_WAKES | LR_FLAG, "the flag's symbol",
	    "a data flag's writer -> each other thread's first read after it" },
	{ FILELOCK_RULE, LR_HOLDS | LR_LOCK, "the file, DEV:INODE",
	    "where a file lock was taken -> a request it made sleep or refused" },
	{ WAITSFOR_RULE, LR_HOLDS, "the relation and the object",
	    "who holds what a thread still waits on (wait-for snapshot)" },
	{ RUNTIME_RULE, LR_HOLDS | LR_LOCK, "the runtime: what it calls the object",
	    "who holds what a thread waits on, by its runtime's word" },
	{ REMOTE_RULE, LR_WAKES, "the sender's address pair",
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

unsigned
lrule_props_padded(const char *name, size_t len)
{
	static struct nameidx idx = NAMEIDX(lrules, ARRAY_LEN(lrules));
	int i = nameidx_find_padded(&idx, name, len);

	return i < 0 ? LR_WAKES : lrules[i].props;
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
housekeeper_comm(const char *comm)
{
	static const char *const housekeepers[] = {
	    "migration/", "ksoftirqd/", "rcu_", "rcuc/", "rcuog/", "rcuop/",
	    "cpuhp/", "idle_inject/", "watchdog/" };
	/* Their first letters: most woken threads have none of them. */
	static unsigned char first[256];
	static int first_made;
	size_t i;

	if (!first_made) {
		for (i = 0; i < ARRAY_LEN(housekeepers); i++)
			first[(unsigned char)housekeepers[i][0]] = 1;
		first_made = 1;
	}
	if (!first[(unsigned char)comm[0]])
		return 0;
	for (i = 0; i < ARRAY_LEN(housekeepers); i++)
		if (comm[0] == housekeepers[i][0] && strncmp(comm,
		    housekeepers[i], strlen(housekeepers[i])) == 0)
			return 1;
	return 0;
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

	if (!meta_is(rec, META_WALLCLOCK))
		return;
	v = rec->f[META_VALUE];
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
	size_t lo = PARTITION_POINT(vv->n, i, id_at(vv, i) < id);

	return lo < vv->n && id_at(vv, lo) == id ? lo : vv->n;
}

int
meta_is(const struct record *rec, const char *key)
{
	return !rec->comment && rec->nf > META_VALUE &&
	    strcmp(rec->f[COL_KIND], KIND_META) == 0 &&
	    strcmp(rec->f[META_KEY], key) == 0;
}

int
summary_of(const struct record *rec, const char *program)
{
	return !rec->comment && rec->nf > SUMMARY_PROGRAM &&
	    record_is(rec, KIND_SUMMARY) &&
	    strcmp(rec->f[SUMMARY_PROGRAM], program) == 0;
}

static const int stop_signals[] = { SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU };

void
signal_label(char *buf, size_t size, int64_t sig)
{
	const char *abbrev = sig > 0 && sig < INT32_MAX ?
	    sigabbrev_np((int)sig) : NULL;

	if (abbrev != NULL)
		snprintf(buf, size, "SIG%s", abbrev);
	else
		snprintf(buf, size, "%" PRId64, sig);
}

int
signal_stops(int64_t sig)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(stop_signals); i++)
		if (sig == stop_signals[i])
			return 1;
	return 0;
}

int
label_stops(const char *label)
{
	char buf[16];
	size_t i;

	for (i = 0; i < ARRAY_LEN(stop_signals); i++) {
		signal_label(buf, sizeof(buf), stop_signals[i]);
		if (strcmp(label, buf) == 0)
			return 1;
	}
	return 0;
}
