/*
 * argus-summary's figures: what sched.c and stream.c count as the
 * records go by and report.c prints.  One file with no code, so that the
 * three share it without needing each other.
 */
#include "summary.h"

struct thread	*threads, *retired;
struct cpu	*cpus;
size_t		 ncpus;		/* seen: the highest CPU + 1 */
struct kind	 kinds[32];
size_t		 nkinds;
uint64_t	 ntype[E_NTYPES], nevents, nlost, nuncounted, nexited;
uint64_t	 npending;	/* meta records before the window */

/* The window: from its first record, or -s, to its last, or -u. */
struct when	 since, until;
uint64_t	 wfrom = NO_TIME, wto = UINT64_MAX, first = NO_TIME,
		 last = NO_TIME;

/* What the stream says of itself (meta records), the latest of each. */
struct meta	 meta;

/* The tables' choice of threads (-a, -p, -t, -c): main's options. */
int		 all;
uint64_t	 only_pid, only_tid;
const char	*only_comm;
