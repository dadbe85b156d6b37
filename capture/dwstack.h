/*
 * User call stacks (--stacks) that need no frame pointers: perf copies
 * the registers and the top of the user stack of the chosen processes at
 * each of their blocking switches and system call entries, and libdwfl
 * (elfutils) unwinds the copy with the call frame information of the
 * mapped files (.eh_frame, which Debian's binaries keep even stripped).
 * The frames are named by ustack.c.
 */
#ifndef CAPTURE_DWSTACK_H
#define CAPTURE_DWSTACK_H

#include <stdint.h>

enum dwstack_kind { DW_SWITCH, DW_SYSCALL };

/* The tracepoints' ids, from tracefs; exits 69 where perf cannot do it. */
void	 dwstack_setup(void);

/* Sample this process's threads (and what they spawn later), once. */
void	 dwstack_follow(int tgid);
/* A child process of a followed one: inherit sampled it already. */
void	 dwstack_inherit(int parent, int child);
/* It exec'd: its mappings are new. */
void	 dwstack_forget(int tgid);
/* It exited: close its events (their samples stay) and forget it. */
void	 dwstack_exit(int tgid);

#define DWSTACK_MAXFRAMES	32

/*
 * The frames of tid's event of this kind at ts (its time in the stream),
 * innermost first, unwound from the sample perf took there: how many, 0
 * if there is no such sample.  pcs[0] is where the thread was; the others
 * are return addresses.  The sample is the one with the event's own
 * key, nkey of: a switch's prev_state and next_pid, a system call's
 * number and first argument (if it has one), sign-extended.
 */
#define DWSTACK_MAXKEY		2
int	 dwstack_unwind(uint64_t ts, int tid, int tgid, enum dwstack_kind,
	    const int64_t *key, int nkey, uint64_t pcs[DWSTACK_MAXFRAMES]);

/*
 * Move samples from the kernel's buffers to memory, so that they do not
 * overrun while the formatter is behind: from the capture's reader
 * thread, which is not traced.
 */
void	 dwstack_collect(void);

/* Stacks written; events without a sample; samples the kernel dropped. */
void	 dwstack_stats(uint64_t *written, uint64_t *missed, uint64_t *lost);

/* Close every event. */
void	 dwstack_close(void);

#endif
