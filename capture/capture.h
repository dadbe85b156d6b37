/* argus-capture's back end on Linux tracefs: what main() hands it. */
#ifndef CAPTURE_CAPTURE_H
#define CAPTURE_CAPTURE_H

#include <stdint.h>

#include "stream.h"

struct capture_opts {
	uint64_t	 duration;	/* ns; 0: until a signal */
	const char	*out;		/* NULL or "-": stdout */
	enum zmode	 z;
	const char	*ring;		/* --ring DIR */
	uint64_t	 ring_size;
	unsigned	 ring_files;
	int		*pids;
	int		 npids;
	char		**comms;
	int		 ncomms;
	int		*stack_pids;	/* --stacks */
	int		 nstack_pids;
	char		**stack_comms;	/* --stacks-comm */
	int		 nstack_comms;
	const char	*syscalls;	/* "default", "all", "none", a list */
	unsigned	 buffer_kb;	/* per CPU */
	uint64_t	 spool_size;
	char		**cmd;		/* -- COMMAND ARGS, or NULL */
	int		 no_snapshot;	/* --no-snapshot: no wait-for records */
	int		 defer;		/* --defer: read the kernel's ring when asked */
	const char	*spill;		/* --spill DIR, with --defer */
	uint64_t	 spill_size;	/* --spill-size */
	int		 ready_fd;	/* --ready-fd: "ready T" once tracing, or why not; -1 */
};

int	 capture_run(const struct capture_opts *);	/* an exit code */

#endif
