/*
 * Chrome trace events (JSON), as the Perfetto UI and chrome://tracing
 * open them: what argus-export -f json (the whole capture) and
 * argus-slice --json (the paths of a diagnosis) both write.  One event a
 * line, so that line tools can read the file too.
 *
 * How Perfetto reads them decides the shapes here.  It binds a flow's
 * start ("s"), and its end with "bp":"e", to the topmost slice open on
 * the same track (pid, tid) at that moment, and drops a flow point that
 * has none; it drops an end met before its start.  So every flow point
 * lies inside a slice of its own thread, its end not before its start,
 * and slices on a track nest.
 */
#ifndef ARGUS_CHROME_H
#define ARGUS_CHROME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct chrome {
	FILE		*fp;
	unsigned long	 n;		/* events so far, for the commas */
};

/* The file's opening, and its closing with otherData's members (or ""). */
void	chrome_open(struct chrome *, FILE *);
void	chrome_close(struct chrome *, const char *other);

/*
 * A JSON string: the kernel's names may hold any byte but NUL; always
 * valid UTF-8, invalid bytes as the text \\xHH (argus-export(1)).
 */
void	chrome_str(FILE *, const char *);
/* ,"key":US with the nanoseconds kept: a decimal, never a float. */
void	chrome_time(FILE *, const char *key, uint64_t ns);
/* An event's opening: {"ph":PH,"pid":PID,"tid":TID; the caller ends it. */
void	chrome_event(struct chrome *, const char *ph, uint32_t pid,
	    uint32_t tid);

/* The names of a track: a thread, and its process when process is set. */
void	chrome_names(struct chrome *, uint32_t pid, uint32_t tid,
	    const char *comm, const char *process);
/* A complete slice; args the members of its "args" object, or NULL. */
void	chrome_slice(struct chrome *, uint32_t pid, uint32_t tid,
	    uint64_t begin, uint64_t end, const char *name, const char *args);

/*
 * A scheduling slice, "running on CPU n", cut at the times cuts holds
 * (sorted: the beginnings and ends of the thread's vertex slices), so
 * that each piece lies inside one vertex or outside all of them.
 */
void	chrome_running(struct chrome *, uint32_t pid, uint32_t tid,
	    uint64_t begin, uint64_t end, uint32_t cpu, const uint64_t *cuts,
	    size_t ncuts);

/*
 * Where a link's flow goes, from the slice [fb, fe] of its FROM vertex
 * to [tb, te] of its TO vertex: it starts at the link's time clamped into
 * FROM and ends at the first moment of TO not before the start.  A link
 * whose TO is over before FROM begins (a wait's link back to its waker)
 * is drawn the other way: 1, and the start lies in TO, the end in FROM.
 */
int	chrome_flow_place(uint64_t fb, uint64_t fe, uint64_t tb, uint64_t te,
	    uint64_t time, uint64_t *start, uint64_t *end);
/* Its two events; args the members of the start's "args", or NULL. */
void	chrome_flow(struct chrome *, unsigned long id, const char *cat,
	    const char *name, uint32_t spid, uint32_t stid, uint64_t start,
	    uint32_t epid, uint32_t etid, uint64_t end, const char *args);

/*
 * Scheduling slices from switch events: each thread's time on a CPU,
 * from the switch that put it there to the one that took it off.
 */
struct chrome_run {
	uint32_t	 tid, cpu;
	uint64_t	 begin, end;
};
struct chrome_runs {
	struct chrome_run *r;		/* closed ones, in the order they end */
	size_t		 n, cap;
	void		*open;		/* by thread: the one on a CPU now */
};
void	chrome_runs_switch(struct chrome_runs *, uint64_t time, uint32_t cpu,
	    uint32_t prev_tid, uint32_t next_tid);
/* Closes the runs still open at time t (the trace's end). */
void	chrome_runs_end(struct chrome_runs *, uint64_t t);
/* Sorts them by thread and time, for chrome_runs_of(). */
void	chrome_runs_sort(struct chrome_runs *);
/* The first run of tid in the sorted runs, and how many follow: n. */
const struct chrome_run *chrome_runs_of(const struct chrome_runs *,
	    uint32_t tid, size_t *n);

#endif
