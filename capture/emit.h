/*
 * The merge and the records: per-CPU pages, in timestamp order across
 * CPUs, become event records on the writer.
 */
#ifndef CAPTURE_EMIT_H
#define CAPTURE_EMIT_H

#include <stdint.h>

struct writer;

void	 emit_init(int ncpu);
/*
 * Writes events stamped at or before upto, at most max of them; returns
 * how many were written.  last is set to the time of the latest one.
 * Those a relation needs go to idx too, unless it is NULL.
 */
uint64_t emit_run(struct writer *, struct writer *idx, uint64_t upto,
	    uint64_t max);
/*
 * How far emit_run can write given the spool's watermark: less while the
 * patched rings' drainer has not passed (patched_horizon()).  Once
 * emit_run wrote nothing, everything up to this is written.
 */
uint64_t emit_bound(uint64_t upto);
uint64_t emit_last_time(void);
/*
 * A lost record at ts of cpu's events lost up to total, its count since
 * the start, for those not said yet: the losses the kernel marked on a
 * page are said at its first event as the stream reaches them
 * (emit_run(), emit_spill()); the rest where the caller knows no better
 * place.
 */
void	 emit_lost(struct writer *, uint64_t ts, int cpu, uint64_t total);
uint64_t emit_count(void);
/* Deepening (capture/spill.h): spilled events from t on, into w. */
uint64_t emit_spill(struct writer *, struct writer *idx, uint64_t t,
    uint64_t *oldest);
uint64_t emit_spill_reach(void);	/* every event after it written */

/* Restriction: none of these set means everything. */
void	 emit_select_pid(int pid);	/* with its descendants */
void	 emit_select_comm(const char *comm);

/* User stacks (--stacks) after blocking waits and system calls of these. */
void	 emit_stack_pid(int pid);	/* with its descendants */
void	 emit_stack_comm(const char *comm);

#endif
