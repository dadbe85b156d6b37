/*
 * The event graph as the stages write and read it: the columns of the
 * vertex, link, spin, baseline, step and root records (argus-stream(5)),
 * and the words those records share, each defined once: the link rules,
 * the segment heuristics, the spin classes.  A stage names a column or a
 * rule here, never by a number or a string of its own.
 */
#ifndef ARGUS_GRAPH_H
#define ARGUS_GRAPH_H

#include <stddef.h>
#include <stdint.h>

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
#define LR_FLAG		0x20	/* a data flag's write to a read of it */
#define LR_HOLDS	0x40	/* FROM holds what TO waits for, which may go on */
#define LR_LOCK		0x80	/* ... a lock: FROM owes TO its release, no answer */

struct lrule {
	const char	*name;		/* RULE, and argus-link's --no-NAME */
	unsigned	 props;		/* LR_* */
	const char	*label;		/* what its LABEL holds; "" nothing */
	const char	*help;		/* one line for --help */
};

extern const struct lrule lrules[];
extern const size_t nlrules;

/*
 * NULL for a rule the table does not hold: a user's filter may add links
 * of its own rules, and those count as wake-ups (lrule_props).
 */
const struct lrule *lrule_find(const char *name);
unsigned	 lrule_props(const char *name);

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

/*
 * Records.  A parser returns 0 for a record of another kind and 1 after
 * filling its structure; bad input (a missing or malformed number, an
 * unknown class) exits naming the file and line.  Strings point into the
 * record and last until the reader's next record, as with events.
 */

/* vertex,TIME,PID,TID,ID,BEGIN,END,ONCPU,EVENTS,BEGAN_BY,ENDED_BY,WAIT,COMM */
enum { VC_ID = COL_FIRST_OWN, VC_BEGIN, VC_END, VC_ONCPU, VC_EVENTS,
    VC_BEGAN_BY, VC_ENDED_BY, VC_WAIT, VC_COMM };

struct vertex_rec {
	uint32_t	 pid, tid;
	uint64_t	 id, begin, end, oncpu, events;
	const char	*began_by, *ended_by, *wait, *comm;
};

int	 vertex_parse(const struct record *, struct vertex_rec *);
void	 vertex_write(struct writer *, const struct vertex_rec *);	/* TIME = END */

/* link,TIME,PID,TID,FROM,TO,STRENGTH,RULE,FROM_TIME,FROM_PID,FROM_TID,LABEL */
enum { LC_FROM = COL_FIRST_OWN, LC_TO, LC_STRENGTH, LC_RULE, LC_FROM_TIME,
    LC_FROM_PID, LC_FROM_TID, LC_LABEL };

struct link_rec {
	uint64_t	 time;
	uint32_t	 pid, tid;	/* TO's thread */
	uint64_t	 from, to;	/* FROM 0: outside any vertex */
	int		 weak;
	const char	*rule;
	unsigned	 props;		/* the rule's, as lrule_props() */
	uint64_t	 from_time;
	uint32_t	 from_pid, from_tid;
	const char	*label;
};

int	 link_parse(const struct record *, struct link_rec *);
void	 link_write(struct writer *, const struct link_rec *);

/* spin,TIME,PID,TID,VERTEX,CLASS,BEGIN,END,ONCPU,WAITS,ENDED,WAKER,LAST_VERTEX,COMM */
enum { SC_VERTEX = COL_FIRST_OWN, SC_CLASS, SC_BEGIN, SC_END, SC_ONCPU,
    SC_WAITS, SC_ENDED, SC_WAKER, SC_LAST_VERTEX, SC_COMM };

/* Whole, unlike the others: the stages that read spins keep them. */
struct spin_rec {
	uint64_t	 time;
	uint32_t	 pid, tid;
	uint64_t	 vertex, last;	/* the episode's first and last vertices */
	const struct sclass *class;
	uint64_t	 begin, end, oncpu;
	uint32_t	 waits;
	char		 ended[32];
	uint64_t	 waker;
	char		 comm[32];
};

int	 spin_parse(const struct record *, struct spin_rec *);
void	 spin_write(struct writer *, const struct spin_rec *);

/* baseline,TIME,PID,TID,SPIN_VERTEX,VERTEX,RANK,SCORE,WAKER,REASON */
enum { BC_SPIN_VERTEX = COL_FIRST_OWN, BC_VERTEX, BC_RANK, BC_SCORE,
    BC_WAKER, BC_REASON };

struct baseline_rec {
	uint64_t	 time;
	uint32_t	 pid, tid;
	uint64_t	 spin_vertex, vertex, rank;
	double		 score;
	uint64_t	 waker;
	const char	*reason;
};

int	 baseline_parse(const struct record *, struct baseline_rec *);
void	 baseline_write(struct writer *, const struct baseline_rec *);

/* step,TIME,PID,TID,PATH,N,VERTEX,NEXT,RULE,STRENGTH,HOW */
enum { STC_PATH = COL_FIRST_OWN, STC_N, STC_VERTEX, STC_NEXT, STC_RULE,
    STC_STRENGTH, STC_HOW };

struct step_rec {
	uint64_t	 time;
	uint32_t	 pid, tid;
	uint64_t	 path, n, vertex, next;
	const char	*rule;		/* "" where the slice ended */
	const char	*strength;	/* strong, weak, or "" */
	const char	*how;
};

void	 step_write(struct writer *, const struct step_rec *);

/*
 * root,TIME,PID,TID,VERTEX,KIND,DEPTH,BEGIN,END,CLASS,WHY,COMM,FUNCTION,
 * EVIDENCE
 */
enum { RC_VERTEX = COL_FIRST_OWN, RC_KIND, RC_DEPTH, RC_BEGIN, RC_END,
    RC_CLASS, RC_WHY, RC_COMM, RC_FUNCTION, RC_EVIDENCE };

enum root_kind { RK_VICTIM, RK_CULPRIT, RK_ROOT, RK_CYCLE };

/*
 * How sure a hop of a diagnosis's chain is, weakest to strongest: a
 * report says its chain as sure as its least sure hop, in the phrase;
 * a root record's EVIDENCE is the word.  A circular wait needs better
 * than a guess on every hop.
 */
enum evidence {
	EV_GUESS,	/* a baseline's path, a suspect: timing */
	EV_WAKEUP,	/* a wake-up or request of this wait: a strong link */
	EV_RUNTIME,	/* a runtime names the holder (a provider) */
	EV_CONNECTION,	/* a connection both hosts' recordings hold */
	EV_KERNEL,	/* the kernel names the holder */
	EV_UNSAID = -1	/* the victim: no hop */
};
const char	*evidence_word(enum evidence);	/* "" for EV_UNSAID */
const char	*evidence_phrase(enum evidence);	/* "the kernel says" */

struct root_rec {
	uint64_t	 time;
	uint32_t	 pid, tid;
	uint64_t	 vertex;
	enum root_kind	 kind;
	uint64_t	 depth, begin, end;
	const struct sclass *class;
	const char	*why, *comm, *function;
	enum evidence	 evidence;	/* EV_UNSAID: the victim, or older streams */
};

int	 root_parse(const struct record *, struct root_rec *);
void	 root_write(struct writer *, const struct root_rec *);
const char *root_kind_name(enum root_kind);

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
 * The columns after KIND,TIME,PID,TID of each kind argus-stream(5)
 * documents, as it names them, for a header row (argus-cat --header); a
 * last name ending in "..." repeats (ARG...: ARG1, ARG2, ...).  NULL for
 * a kind it does not document.
 */
const char *kind_columns(const char *kind);

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
