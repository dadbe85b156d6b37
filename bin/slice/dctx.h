/*
 * argus-slice's Diagnose (Algorithm 1), a concern a file, each calling only
 * those above it here: state.c, what a thread was doing through the hang
 * (and whether a kill ended its wait); baseline.c, the normal waits
 * argus-similar ranked; request.c, whom the waiter asked; blame.c, the
 * chain (a culprit added, a circle closed, a wake-up path walked);
 * holders.c, whom the kernel or a runtime names as holding what a thread
 * waits on; kin.c, its relatives; death.c, a wait a death ended;
 * wait.c, a long wait's diagnosis; diagnose.c, the dispatch by the hang's
 * kind.  A culprit is diagnosed in turn through dctx's diagnose_in_turn,
 * so that blame.c need not know diagnose.c.
 */
#ifndef ARGUS_SLICE_DCTX_H
#define ARGUS_SLICE_DCTX_H

#include "slice.h"

#define MAX_DEPTH	8		/* culprits of culprits */
#define MAX_CHAIN	(MAX_DEPTH + 2)
#define KERNEL_SAYS	2		/* blame()'s strongest evidence */
#define HELD_BY_LINE	(-2)		/* holders(): an ancestor holds it */
#define MAX_EPISODES	3		/* ranked baselines a wait is tried on */
#define MAX_ROUNDS	8		/* a periodic wait's rounds looked back */

/* One diagnosis: the hang, what is known so far, the chain of threads. */
struct dctx {
	struct graph	*g;
	struct diagnosis *d;
	uint64_t	 threshold;	/* a normal wait is shorter */
	int		 interactive;
	uint64_t	 hb, he;	/* the hang */
	uint64_t	 sb;		/* stuck since: hb, or a later
					   culprit's wait's begin (in_turn()) */
	uint32_t	 chain[MAX_CHAIN];	/* threads blamed so far, victim first */
	uint8_t		 waits[MAX_CHAIN];	/* each one blocked on the next */
	uint8_t		 ev[MAX_CHAIN];		/* how sure it is the one before */
	uint8_t		 multi[MAX_CHAIN];	/* waits on it, among others */
	uint64_t	 vx[MAX_CHAIN];		/* each one's stuck vertex */
	uint32_t	 replied[MAX_CHAIN];	/* whose message woke it in the
						   baseline: the process its
						   answer came from; 0 none */
	uint32_t	 next_replied;	/* blame_ev(): replied[] of the next */
	uint8_t		*woke;		/* by place in g->v: it woke another */
	struct sentpids {		/* request.c's sent_pids(), by vertex */
		uint64_t vertex;
		uint32_t *pids;
		int	 n;
	}		*sent;
	int		 nsent;
	uint32_t	 killers[4];	/* threads that ended a wait by a kill */
	int		 nkillers;
	uint64_t	 spin;		/* the spin record's VERTEX */
	int		 nchain;
	const char	*says;		/* blame_ev() of EV_RUNTIME: who; of
					   EV_GUESS: from what, not timing */
	int		 held;		/* blame_ev(): named as a lock's holder */
	/* diagnose.c's diagnose_vertex: a culprit is diagnosed in turn */
	int		(*diagnose_in_turn)(struct dctx *, uint64_t,
		    const struct sclass *, int depth);
};

/* What a thread was doing, which decides whether the chain goes on. */
enum tstate {
	TS_WORK,	/* on a CPU, or wanting one: the work is the cause */
	TS_SLEEP,	/* asleep on its own timer: it chose to wait */
	TS_DISPATCH,	/* in its service loop, waiting for what comes next */
	TS_WAIT,	/* blocked on someone: the chain goes on */
	TS_STOPPED	/* does not run: stopped or frozen (stopped.c) */
};

/* state.c */
const struct sclass	*classify(const struct vertex *v);
uint64_t	 round_before(struct dctx *x, const struct vertex *w);
uint64_t	 rounds_begin(struct dctx *x, const struct vertex *w);
uint64_t	 stuck(struct dctx *x, uint32_t tid);
uint64_t	 stuck_thread_of(struct dctx *x, uint32_t pid, uint32_t but,
		    uint64_t *i);
uint64_t	 stuck_sibling(struct dctx *x, const struct vertex *v,
		    uint64_t *i);
int		 same_program(const struct vertex *, const struct vertex *);
int		 same_wait(const struct vertex *v, const struct vertex *u,
		    int exact);
enum tstate	 state_of(struct dctx *x, const struct vertex *w);
int		 runtime_sleep(const struct graph *g, const struct vertex *w,
		    char *buf, size_t size);
uint64_t	 overlap(const struct vertex *w, uint64_t hb, uint64_t he);
uint64_t	 ran_within(const struct vertex *w, uint64_t hb, uint64_t he);
int		 a_kill(const struct link *l);
uint64_t	 reaped_in(struct graph *g, uint64_t first, uint64_t last);
int		 reap_round(const struct vertex *w);
int		 io_rounds(struct dctx *x, uint64_t u, uint64_t *waited,
		    const char **dev);
int		 dies(struct graph *g, const struct vertex *f);
int		 woke_by_death(struct graph *g, const struct link *l);
uint64_t	 last_vertex(struct graph *g, uint32_t tid);
int		 died_by(struct graph *g, uint32_t tid, uint64_t t);
int		 killed_by(struct graph *g, const struct vertex *f,
		    const struct link *l);
int		 killed_in_wait(struct graph *g, const struct vertex *f);

/* baseline.c */
uint64_t	 own_baseline(struct dctx *x, uint64_t id, uint64_t *waker);
uint64_t	 ranked_baseline(struct graph *g, uint64_t spin_vertex,
		    uint64_t rank, uint64_t *waker);

/* request.c */
int		 asked_by(struct dctx *x, int at, uint32_t tid, uint32_t pid);
int		 asked(struct dctx *x, int at, const struct vertex *w);
#define BY_POLLER	(-1)	/* request_went(): the poller's own messages */
#define BY_BASELINE	(-2)	/* where the baseline's answer came from */
int		 sent_for_poller(struct dctx *x, const struct vertex *v, int at,
		    uint32_t pid);
int		 request_went(struct dctx *x, const struct vertex *v,
		    uint32_t pid, int how);
int		 replied_from(struct dctx *x, uint32_t pid);
int		 serves_request(struct dctx *x, const struct vertex *w,
		    int at);
int		 held_across_timed_wait(struct dctx *x, const struct vertex *w,
		    int ci);
int		 holds_request(struct dctx *x, const struct vertex *w, int at);
#define PASSED_BEFORE	2	/* passed_to(): before the hang began */
int		 passed_to(struct dctx *x, int at, const struct vertex **into);
int		 handed_to(struct dctx *x, int at, const struct vertex **into);
int		 guesses_beyond(struct dctx *x, int ci);
int		 beyond_in(struct dctx *x, int ci, uint32_t pid);
int		 request_unread(struct dctx *x, uint64_t id, int depth);

/* blame.c */
const char	*runtime_label(const struct link *l, char *says, size_t size);
struct culprit	*add(struct diagnosis *d, uint64_t vertex, int depth,
		    enum root_kind kind, const struct sclass *class);
int		 new_path(struct diagnosis *d, int depth);
int		 ancestor(struct dctx *x, const struct vertex *w);
int		 on_chain(const struct dctx *x, uint32_t tid);
int		 blame_ev(struct dctx *x, uint64_t u, const char *why,
		    int depth, int strong, enum evidence ev, int multi);
int		 blame(struct dctx *x, uint64_t u, const char *why, int depth,
		    int strong);
int		 blame_siblings(struct dctx *x, const struct vertex *v,
		    int (*suspect)(struct dctx *, const struct vertex *v,
		    const struct vertex *w), const char *what, int depth);
int		 blame_path(struct dctx *x, int pi, uint32_t hung,
		    const char *why, int depth, enum evidence ev0);

/*
 * retry.c: vertex id tried a send or a receive again and again, failing
 * with EAGAIN: the process at its other end, stuck through the hang, is
 * blamed as a guess.  1 if it was.
 */
int		 retried(struct dctx *x, uint64_t id, int depth);

/* orphan.c */
int		 orphan_wait(struct dctx *x, uint64_t id, int depth);

/* holders.c */
int		 lock_holders(struct dctx *x, uint64_t id, int depth);
int		 path_lock_holder(struct dctx *x, uint64_t id, int depth);
int		 holders(struct dctx *x, uint64_t id, int depth);
uint64_t	 now_of(struct dctx *x, uint32_t tid, uint64_t fallback);
uint64_t	 at_cut(struct dctx *, uint64_t);
int		 named(struct graph *g, uint64_t id);
int		 parties_on_chain(struct dctx *x, uint64_t id);

/*
 * shared.c: a poller's suspects, the processes that map the memory its
 * process shares writable, where the snapshot names them: 1 if one,
 * stuck through the hang, was blamed.
 */
int		 shared_mappers(struct dctx *x, const struct spin_rec *s);

/* kin.c */
int		 busy_siblings(struct dctx *x, uint64_t id, int depth);
int		 awaits_child_signal(struct dctx *x, uint64_t id, int depth);
int		 busy_threads(struct dctx *x, uint64_t id, int depth);
int		 own_ends(struct dctx *x, uint64_t id, int depth);
int		 unnamed_kin(struct dctx *x, uint64_t id, int depth);
int		 counterparts(struct dctx *x, uint64_t id, uint64_t base,
		    uint64_t waker, int depth);
int		 polls_child(struct dctx *x, const struct vertex *v,
		    uint64_t asked, int depth);
int		 listener_counterpart(struct dctx *x, uint64_t id,
		    const struct link *by, int depth);
int		 loop_counterpart(struct dctx *x, uint64_t id, int depth);

/* death.c */
void		 add_killer(struct dctx *x, uint32_t tid);
int		 peer_died(struct dctx *x, uint64_t id, const struct link *l,
		    int depth);
int		 last_reader(struct dctx *x, uint64_t id, int depth);
int		 waker_gone(struct dctx *x, uint64_t id, uint64_t waker,
		    int depth);
int		 counterpart_gone(struct dctx *x, uint64_t id, uint32_t now,
		    uint32_t then, uint32_t comm, const char *relation,
		    int depth);
int		 request_lost(struct dctx *x, uint64_t id, int depth);
int		 message_since(struct graph *g, uint32_t tid, uint32_t from,
		    uint64_t t);

/* wait.c */
int		 long_wait(struct dctx *x, uint64_t id, int depth);

#endif
