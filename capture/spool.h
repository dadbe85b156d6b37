/*
 * The reader: a thread that copies raw ring-buffer pages out of the kernel
 * as they fill, into per-CPU queues in memory.  Copying a page costs about
 * what `cat trace_pipe_raw` costs; parsing and writing records costs much
 * more, so it happens in the other thread, at idle priority, and catches up
 * when the traced workload leaves CPU time free.  Bursts land in the spool
 * instead of overrunning the kernel's per-CPU buffers.
 */
#ifndef CAPTURE_SPOOL_H
#define CAPTURE_SPOOL_H

#include <stddef.h>
#include <stdint.h>

/*
 * The kernel's sub-buffer (page) header, 64-bit: the time of its first
 * event, then its commit word: the bytes of its events, and two flags,
 * set on the first page after events the kernel lost, and where their
 * count is stored after its events.
 */
#define PAGE_HEADER		16
#define PAGE_COMMIT		((1ULL << 27) - 1)
#define PAGE_MISSED_EVENTS	(1ULL << 31)
#define PAGE_MISSED_STORED	(1ULL << 30)

struct page {
	uint64_t	 len;		/* keeps data 8-byte aligned, as in the kernel */
	/*
	 * The events lost just before its first (spool_page_lost()): said
	 * there however far behind the kernel the formatter is.
	 */
	uint64_t	 lost;
	char		 data[];
};

struct spool_stats {
	uint64_t	*lost;		/* per CPU, since the start */
};

struct spool_conf {
	int		 ncpu;
	size_t		 pagesize;	/* of the kernel's sub-buffers */
	size_t		 limit;		/* bytes queued at most */
	size_t		 bufsize;	/* the kernel's, per CPU */
	uint64_t	 stop_at;	/* CLOCK_MONOTONIC ns; 0: no deadline */
	int		 child;		/* stop when it exits; 0: none */
	int		 defer;		/* read only when asked, and at the end */
	void		(*tick)(void);	/* once a second, from the reader */
	void		(*pass)(void);	/* after each pass, from the reader */
	void		(*stopped)(void);	/* tracing just turned off */
	const char	*spill;		/* deferred: full pages to this DIR */
	uint64_t	 spill_size;	/* bytes it may hold */
};

/*
 * The reader decides when to stop (a signal, the deadline, the command's
 * exit) because it runs at high priority: the formatter may be starved
 * for seconds by the workload it traces.  Stopping turns tracing off and
 * takes what is left in the kernel's buffers.
 */
void	 spool_start(const struct spool_conf *);
/*
 * With a bridge instance (tfs_bridge_create): its buffers are read too,
 * each CPU's before ours, until spool_switch() turned it off and ours on.
 */
void	 spool_bridge(void);
int	 spool_switch(void);	/* 0: tracing was stopped already */
void	 spool_deadline(uint64_t stop_at, int child);	/* once tracing is on */
int	 spool_stopped(void);		/* tracing is off */
int	 spool_child_status(void);	/* wait(2) status, -1 if none */
int	 spool_done(void);		/* stopped, drained, nothing queued */
int	 spool_reader_tid(void);
int	 spool_spill_tid(void);		/* 0 without a spill */
/* Events at or before the returned time are all in the queues. */
uint64_t spool_watermark(void);
struct page *spool_take(int cpu);	/* NULL when that queue is empty */
void	 spool_give(struct page *);	/* back to the free list */
void	 spool_wait(void);		/* a while, for news from the reader */
int	 spool_full(void);		/* the reader cannot read on */
size_t	 spool_bytes(void);		/* queued now */
uint64_t spool_total(void);		/* read since the start */
void	 spool_lost(struct spool_stats *);	/* latest counters */
/*
 * Whether the kernel marked a page of len bytes as the first after
 * events it lost: 1 and *n the count it stored on the page, or 0 where
 * there was no room for it.
 */
int	 page_mark(const char *page, size_t len, uint64_t *n);
/*
 * The events cpu lost just before a page taken from its buffer (read or
 * spilled), each loss given to one page: 0 unless marked; the count the
 * page holds; else the CPU's count since the start beyond those given.
 */
uint64_t spool_page_lost(int cpu, const char *page, size_t len);
/*
 * Ask for everything the kernel holds up to now (async-signal-safe); the
 * request is served once the watermark passes the time it returns.  In
 * deferred mode this is the only time the reader reads, but at the end.
 */
void	 spool_request(void);
uint64_t spool_requested(void);		/* the latest request's time, or 0 */
const char *spool_error(void);		/* the reader's failure, or NULL */

#endif
