/*
 * The spill (--defer --spill DIR): while nobody asks, whole sub-buffers
 * of the kernel's per-CPU rings moved by splice(2) into files of a private
 * directory, so that what overwriting would lose is kept on disk within a
 * budget, deflated.  No parsing: the pages are read back and
 * parsed only when asked, newest first down to the time asked for
 * (spill_tail, emit_spill), into a ring file of their own.
 */
#ifndef CAPTURE_SPILL_H
#define CAPTURE_SPILL_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

struct spill_stats {
	uint64_t	 spilled;	/* bytes moved to disk since the start */
	uint64_t	 dropped;	/* bytes dropped, oldest first, for the budget */
	uint64_t	 held;		/* bytes on disk now */
	uint64_t	 pages;		/* bytes of pages spilled, deflated to spilled */
	double		 cpu;		/* the spiller's CPU time, s */
};

/*
 * Opens (or makes, 0700) DIR and starts the spiller thread on fds (one
 * trace_pipe_raw per CPU, O_NONBLOCK); exits on failure.  lost() gives
 * the events lost before each page spilled (spool_page_lost()).
 */
void	 spill_start(const char *dir, uint64_t budget, int ncpu,
	    size_t pgsize, const int *fds,
	    uint64_t (*lost)(int cpu, const char *page, size_t len));
int	 spill_tid(void);		/* 0 before the thread runs */
/* The reader's turn: the spiller waits (priority inheritance). */
void	 spill_lock(void);
void	 spill_unlock(void);
void	 spill_stop(void);	/* the thread ended; pages stay readable */
void	 spill_remove(void);	/* every file gone, and DIR if we made it */
void	 spill_stats(struct spill_stats *);
/*
 * Deepening, under spill_lock(): spill_tail() puts cpu's cursor on the
 * page that holds t (or its first after t), 1 if there is one;
 * spill_tail_read() gives the pages from there on, oldest first, as
 * the kernel gives them, and in *lost the events lost just before the
 * page, else 0; spill_tail_cut() removes what the cursor covered, the
 * older pages staying for a deeper request.
 */
int	 spill_tail(int cpu, uint64_t t);
ssize_t	 spill_tail_read(int cpu, void *buf, uint64_t *lost);
void	 spill_tail_cut(int cpu);
ssize_t	 spill_newest(int cpu, void *buf);	/* its newest page, or 0 */
uint64_t spill_since(uint64_t bytes);	/* where bytes of pages read back begin */
size_t	 spill_pagesize(void);
/* The most it may hold now (the ring's files took the rest). */
void	 spill_budget(uint64_t);

#endif
