/*
 * argus-summary's state machine: each thread's state as the scheduler's
 * events tell it (see argus-summary.c), and what it adds up: time on
 * CPU, blocked, runnable; and each CPU's lost events.  Apart from the
 * records and the report so that the one part with rules of its own
 * reads alone.
 */
#include <stdio.h>
#include <string.h>

#include "summary.h"

/* A name into its field, cut to fit: once an event, so no printf. */
void
copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The part of [from, to] within the window. */
uint64_t
within(uint64_t from, uint64_t to)
{
	if (from < wfrom)
		from = wfrom;
	if (to > wto)
		to = wto;
	return to > from ? to - from : 0;
}

struct thread *
thread(uint32_t tid, uint32_t pid)
{
	struct thread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	if (t == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
	}
	if (pid != 0)
		t->pid = pid;
	return t;
}

/* A new thread by an old one's tid: the old one is kept for the tables. */
static struct thread *
thread_new(uint32_t tid, uint32_t pid)
{
	struct thread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	if (t != NULL && t->state == TS_DEAD) {
		HASH_DEL(threads, t);
		t->retired = retired;
		retired = t;
	}
	t = thread(tid, pid);
	t->state = TS_NEW;
	return t;
}

static struct cpu *
cpu(uint32_t c)
{
	size_t n;

	if (c >= ncpus) {
		n = c + 1 > 2 * ncpus ? c + 1 : 2 * ncpus;
		cpus = xrealloc(cpus, n * sizeof(*cpus));
		memset(cpus + ncpus, 0, (n - ncpus) * sizeof(*cpus));
		ncpus = c + 1;
	}
	return &cpus[c];
}

/* The wait of t ends at `now' (its wake-up), or with the trace (open). */
static void
end_wait(struct thread *t, uint64_t now, int open)
{
	uint64_t len = within(t->since, now);

	if (now < wfrom)
		return;
	t->blocked += len;
	t->waits++;
	t->closed += !open;
	if (len >= t->longest) {
		t->longest = len;
		t->longest_open = open;
		memcpy(t->longest_in, t->blocked_in, sizeof(t->longest_in));
	}
}

static void
switch_in(struct thread *t, uint64_t now)
{
	uint64_t d;

	if (t->state == TS_RUNNABLE && now >= wfrom) {
		d = within(t->since, now);
		t->delay += d;
		t->delays++;
		if (d >= t->delay_max) {
			t->delay_max = d;
			t->delay_max_at = now;
		}
	} else if (t->state == TS_BLOCKED)
		end_wait(t, now, 0);	/* its wake-up was not seen */
	if (now >= wfrom)
		t->runs++;
	t->state = TS_RUNNING;
	t->woken = 0;
}

/* switch,STATE,TPID,TTID,TCOMM: t leaves the CPU to the next. */
static void
take_switch(const struct event *ev, struct thread *t, struct cpu *c)
{
	const char *state = event_str(ev, ECOL(E_SWITCH, STATE));
	struct thread *n;

	n = thread(event_u64(ev, ECOL(E_SWITCH, TTID)),
	    event_pid(ev, ECOL(E_SWITCH, TPID)));
	if (n->comm[0] == '\0')
		copy(n->comm, sizeof(n->comm), event_str(ev,
		    ECOL(E_SWITCH, TCOMM)));
	t->oncpu += within(c->since, ev->time);
	if (t->tid != 0 && t->state != TS_DEAD) {
		if (state_is_exit(state)) {
			/*
			 * Its last switch, its exit event lost (a busy CPU's
			 * buffer overwritten): gone, not waiting.
			 */
			if (ev->time >= wfrom)
				nexited++;
			t->state = TS_DEAD;
		} else if (state[0] == '\0')
			t->state = TS_UNKNOWN;
		else if (state_is_wait(state) && !t->woken) {
			if (ev->time >= wfrom) {
				t->sleeps++;
				t->isleeps += state[0] == 'I';
			}
			t->state = TS_BLOCKED;
			memcpy(t->blocked_in, t->call, sizeof(t->blocked_in));
		} else
			t->state = TS_RUNNABLE;
		t->since = ev->time;
		t->woken = 0;
	}
	if (n->tid != 0)
		switch_in(n, ev->time);
	c->cur = n;
	c->since = ev->time;
}

/*
 * waking, wakeup_new: TPID,TTID,TARGET_CPU,TCOMM, by t on CPU c: in a
 * timer's callback, a timer's doing; in a task, that task's.
 */
static void
take_waking(const struct event *ev, struct thread *t, const struct cpu *c)
{
	struct thread *w;

	w = thread(event_u64(ev, WAKE_COL(TTID)),
	    event_pid(ev, WAKE_COL(TPID)));
	if (ev->time >= wfrom && ev->ctx == '-' && t != w && t->tid != 0)
		t->woke = 1;
	if (w->comm[0] == '\0')
		copy(w->comm, sizeof(w->comm), event_str(ev, WAKE_COL(TCOMM)));
	if (w->tid == 0)
		return;
	switch (w->state) {
	case TS_UNKNOWN:
		if (ev->type == E_WAKEUP_NEW)
			break;
		/* Asleep since before the window, in no call it showed. */
		w->since = wfrom;
		w->blocked_in[0] = '\0';
		/* FALLTHROUGH */
	case TS_BLOCKED:
		end_wait(w, ev->time, 0);
		if (ev->time >= wfrom && c->in_timer)
			w->by_timer++;
		break;
	case TS_RUNNING:
		w->woken = 1;	/* it had not left its CPU yet */
		return;
	case TS_NEW:
		break;
	default:
		return;
	}
	w->state = TS_RUNNABLE;
	w->since = ev->time;
}

void
take_event(const struct event *ev)
{
	struct thread *t = thread(ev->tid, ev->pid);
	struct cpu *c = cpu(ev->cpu);
	const char *name;

	if (ev->time >= wfrom) {
		nevents++;
		ntype[ev->type]++;
	}
	/*
	 * Any event runs on its CPU (one in an interrupt, in the task it
	 * interrupted): the first of a CPU says who runs there, and one of
	 * another thread than the CPU's says a switch was lost.
	 */
	if (!c->seen || c->cur != t) {
		if (c->seen)
			c->cur->oncpu += within(c->since, ev->time);
		c->seen = 1;
		c->cur = t;
		c->since = ev->time;
		if (t->state == TS_UNKNOWN || t->state == TS_NEW)
			t->state = TS_RUNNING;
		else if (t->state != TS_RUNNING && t->state != TS_DEAD &&
		    t->tid != 0)
			switch_in(t, ev->time);
	}
	/* A wake-up that came as it went to sleep, then something else. */
	if (t->woken && ev->ctx == '-' && ev->type != E_SWITCH)
		t->woken = 0;
	switch (ev->type) {
	case E_SWITCH:
		take_switch(ev, t, c);
		break;
	case E_WAKING:
	case E_WAKEUP_NEW:
		take_waking(ev, t, c);
		break;
	case E_HRT_EXPIRE_ENTRY:
	case E_TIMER_EXPIRE_ENTRY:
		c->in_timer = 1;
		break;
	case E_HRT_EXPIRE_EXIT:
	case E_TIMER_EXPIRE_EXIT:
		c->in_timer = 0;
		break;
	case E_FORK:
		t = thread_new(event_u64(ev, ECOL(E_FORK, TTID)),
		    event_pid(ev, ECOL(E_FORK, TPID)));
		copy(t->comm, sizeof(t->comm), event_str(ev,
		    ECOL(E_FORK, TCOMM)));
		break;
	case E_EXEC:
		names_exec(t->comm, event_str(ev, ECOL(E_EXEC, FILENAME)));
		break;
	case E_COMM:
		t = thread(event_u64(ev, ECOL(E_COMM, TTID)),
		    event_pid(ev, ECOL(E_COMM, TPID)));
		copy(t->comm, sizeof(t->comm), event_str(ev,
		    ECOL(E_COMM, NEWCOMM)));
		break;
	case E_EXIT:
		if (t->state != TS_DEAD && ev->time >= wfrom)
			nexited++;
		t->state = TS_DEAD;
		break;
	case E_SYS_ENTER:
		name = event_str(ev, SYSCALL_NAME);
		if (*name != '\0')
			copy(t->call, sizeof(t->call), name);
		else
			snprintf(t->call, sizeof(t->call), "syscall %s",
			    event_str(ev, ECOL(E_SYS_ENTER, NR)));
		break;
	case E_SYS_EXIT:
		t->call[0] = '\0';
		break;
	default:
		break;
	}
}

/* lost,TIME,,,CPU,COUNT; COUNT empty where the trace did not say. */
void
take_lost(const struct record *rec)
{
	uint64_t c = record_u64(rec, LOST_CPU), n = 0;
	int counted = *record_str(rec, LOST_COUNT) != '\0';

	if (counted)
		n = record_u64(rec, LOST_COUNT);	/* a bad one is an error */
	if (c >= MAX_CPUS)
		diex(EX_DATAERR, "%s:%lu: lost record: CPU out of range: %llu",
		    rec->file, rec->line, (unsigned long long)c);
	if (rec->time != NO_TIME && rec->time < wfrom)
		return;
	if (!counted) {
		cpu(c)->uncounted++;
		nuncounted++;
		return;
	}
	cpu(c)->lost += n;
	nlost += n;
}

/* What goes on when the trace ends: a CPU's thread, a wait. */
void
close_all(uint64_t end)
{
	struct thread *t;
	size_t i;

	for (i = 0; i < ncpus; i++)
		if (cpus[i].seen)
			cpus[i].cur->oncpu += within(cpus[i].since, end);
	for (t = threads; t != NULL; t = t->hh.next)
		if (t->state == TS_BLOCKED)
			end_wait(t, end, 1);
}
