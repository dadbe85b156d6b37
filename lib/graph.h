/*
 * The event graph as the stages write and read it: its records are
 * lib/records.def's (vertex, link, spin, baseline, step, root), and the
 * words those records share, each defined once here: the link rules,
 * the segment heuristics, the spin classes.  A stage names a column or a
 * rule here, never by a number or a string of its own.
 */
#ifndef ARGUS_GRAPH_H
#define ARGUS_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "records.h"
#include "stream.h"

/* A hang lasts this long by default: the paper's 2 s, past a user's patience. */
#define HANG_NS		2000000000ULL

/*
 * Link rules: the RULE column of a link record.  A rule's row says what its
 * links mean to the later stages; argus-link's code for it is bin/link/,
 * bound to the row by name, and asked in the order of the table.
 */
#define LR_WEAK		0x01	/* weak unless the rule knows better */
#define LR_WAKES	0x02	/* ends the wait of the TO vertex's thread */
#define LR_TIMEOUT	0x04	/* ... by its own timer: no peer woke it */
#define LR_ORDER	0x08	/* program order: followed when nothing else is */
#define LR_BACK		0x10	/* from a wait back to its waker: not a cause */
#define LR_FLAG		0x20	/* what a polling loop waits for: a data
				   flag's write to a read of it, a listen
				   to a connect it had refused */
#define LR_HOLDS	0x40	/* FROM holds what TO waits for, which may go on */
#define LR_LOCK		0x80	/* ... a lock: FROM owes TO its release, no answer */

struct lrule {
	const char	*name;		/* RULE, and argus-link's --no-NAME */
	unsigned	 props;		/* LR_* */
	const char	*label;		/* what its LABEL holds; "" nothing */
	const char	*help;		/* one line for --help */
};

/*
 * The rules' names, each spelled once: lrules (lib/graph.c), argus-link's code for
 * each (bin/link/) and the stages that single a rule out name them so.
 * RUNTIME_RULE is lib/waits.h's.
 */
#define WAKEUP_RULE	"wakeup"
#define WAIT_RULE	"wait"
#define MESSAGE_RULE	"message"
#define REPLY_RULE	"reply"
#define COND_RULE	"cond"
#define SIGNAL_RULE	"signal"
#define STOP_RULE	"stop"
#define LOCK_RULE	"lock"
#define TIMER_RULE	"timer"
#define TIMEOUT_RULE	"timeout"
#define BLOCK_RULE	"block"
#define LISTEN_RULE	"listen"
#define REFUSED_RULE	"refused"
#define SOFTIRQ_RULE	"softirq"
#define IRQ_RULE	"irq"
#define ASYNC_RULE	"async"
#define RUNLOOP_RULE	"runloop"
#define FORK_RULE	"fork"
#define ORDER_RULE	"order"
#define FLAG_RULE	"flag"
#define FILELOCK_RULE	"filelock"
#define WAITSFOR_RULE	"waitsfor"
#define REMOTE_RULE	"remote"

/*
 * The LABEL of the signal and stop rules' links: SIGSTOP, or the
 * signal's number where the C library has no name for it.  Whether a
 * signal, or a link so labelled, stops its target (STOP, TSTP, TTIN,
 * TTOU).
 */
void	 signal_label(char *buf, size_t size, int64_t sig);
int	 signal_stops(int64_t sig);
int	 label_stops(const char *label);

extern const struct lrule lrules[];
extern const size_t nlrules;

/*
 * NULL for a rule the table does not hold: a user's filter may add links
 * of its own rules, and those count as wake-ups (lrule_props).
 */
const struct lrule *lrule_find(const char *name);
unsigned	 lrule_props(const char *name);
/* The same for a field of the reader's own (lib/util.h: padded). */
unsigned	 lrule_props_padded(const char *name, size_t len);

/*
 * What woke a thread into a vertex is the first link into the vertex, in
 * stream order, whose rule has LR_WAKES: every stage asks it so.
 */

/*
 * Argus' own processes (argus-capture, the porcelain, the stages it runs,
 * all named argus or argus-*) are the observer: present in every trace
 * of a hang, never its cause.  No stage makes one a suspect.
 */
int		 observer_comm(const char *comm);

/*
 * A kernel thread, by the names the kernel gives them: per-CPU workers,
 * RCU, softirqs, writeback.  Busy on behalf of everyone, it is a culprit
 * only where a strong link says so.
 */
int		 kthread_comm(const char *comm);
/*
 * Of those, the scheduler's housekeepers (the paper's
 * Sharetime_maintenance): the per-CPU threads that balance load, run
 * deferred softirqs and advance RCU, which any thread wakes at a tick or
 * on its way back to user space.  Such a wake-up is the kernel's
 * bookkeeping, not the waker's work: no edge, no relation.
 */
int		 housekeeper_comm(const char *comm);

/* Segment heuristics: argus-segment's --no-NAME, asked in table order. */
struct sheuristic {
	const char	*name;
	const char	*cut;		/* BEGAN_BY/ENDED_BY when it cuts; NULL never */
	const char	*help;
};

extern const struct sheuristic sheuristics[];
extern const size_t nsheuristics;

/* BEGAN_BY and ENDED_BY words besides a heuristic's. */
#define VB_START	"start"		/* the thread's first vertex in the trace */
#define VB_WAKEUP	"wakeup"	/* after a wait */
#define VB_FORK		"fork"		/* a new thread's first */
#define VE_WAIT		"wait"		/* a blocking wait */
#define VE_EXIT		"exit"
#define VE_OPEN		"open"		/* still going on when the trace ended */
/*
 * A vertex's WAIT where its thread left the CPU with no switch-out in the
 * trace (the kernel lost it): off the CPU, in a state nobody recorded.
 */
#define WAIT_UNSEEN	"?"

/*
 * Spin classes: the CLASS of a spin record, what argus-spin calls a hang.
 * A class's kind says how a hang of it is diagnosed (argus-slice) and
 * compared (argus-similar); argus-spin asks the classes in table order.
 */
enum hang_kind {
	HK_WORK,	/* busy: the work itself, and the input that started it */
	HK_WAIT,	/* blocked: whose wake-up is missing */
	HK_POLL,	/* a loop no peer ends: who should have set the flag */
};

struct sclass {
	const char	*name;
	enum hang_kind	 kind;
	const char	*help;
};

extern const struct sclass sclasses[];
extern const size_t nsclasses;

const struct sclass *sclass_find(const char *name);	/* NULL if unknown */
const struct sclass *sclass_of_kind(enum hang_kind);	/* the first such */

/* The records' words: "victim", "wakeup" ("" for EV_UNSAID), "a wake-up". */
const char	*root_kind_name(enum root_kind);
const char	*evidence_word(enum evidence);
const char	*evidence_phrase(enum evidence);

/* summary,TIME,,,PROGRAM,KEY,VALUE,...: a stage's closing figures. */
void	 summary_begin(struct writer *, uint64_t time, const char *program);
void	 summary_u64(struct writer *, const char *key, uint64_t);
#define	 summary_end(w)	writer_end(w)
int	 summary_of(const struct record *, const char *program);	/* its? */

/* meta,TIME,,,KEY,VALUE: what a program says of its input or output. */
void	 meta_write(struct writer *, uint64_t time, const char *key,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void	 meta_u64(struct writer *, uint64_t time, const char *key, uint64_t);
/*
 * The wall-clock anchor: meta wallclock, CLOCK_REALTIME less
 * CLOCK_MONOTONIC in ns when captured.  wall_learn() takes it from a
 * record, if it is that one (lib/util.h: wall_offset).
 */

/*
 * A word that can be a KIND (argus-stream(5): a short lowercase word, a
 * user's own kinds too): a letter, then letters, digits or '_', at most
 * KIND_MAX bytes.
 */
#define KIND_MAX	32
int		 kind_is_word(const char *kind);

#define META_WALLCLOCK	"wallclock"
/* argus-spin's: the moment it took, "now|mark|at NS" or "every" (none). */
#define META_MOMENT	"moment"
/* Events the kernel dropped (or a source said it lost), in all. */
#define META_LOST	"lost"
/*
 * A patched process's user-space events lost (capture/patched.c):
 * meta,UNTIL,PID,,patch_lost,N,SINCE; without a PID, events of no
 * process in particular (meta,TIME,,,patch_lost,N).
 */
#define META_PATCH_LOST	"patch_lost"
/* The recorder's totals of them, for argus status: "PID N FROM TO COMM". */
#define PATCH_LOST_FILE	"patch-lost"
int	 meta_is(const struct record *, const char *key);	/* meta KEY,... */
void	 meta_wallclock(struct writer *, uint64_t time);
void	 wall_learn(const struct record *);

/*
 * A thread's vertices by id, in an array kept sorted.  Ids grow with time
 * within a thread, so lookups and insertions are nearly always at the
 * end.  Elements are of any type whose first member is the uint64_t id.
 */
struct vvec {
	void		*v;
	size_t		 n, cap, size;	/* size: of an element */
};
void	*vvec_get(struct vvec *, uint64_t id);	/* zero-filled if new */
size_t	 vvec_find(const struct vvec *, uint64_t id);	/* n if none */
#define	 VVEC_AT(vv, type, i)	(&((type *)(vv)->v)[i])

#endif
