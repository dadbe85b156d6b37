/*
 * argus-export: a record stream out to the formats other tools open, one
 * format per file, chosen by -f NAME.
 */
#ifndef ARGUS_EXPORT_H
#define ARGUS_EXPORT_H

#include <stdio.h>

#include "util.h"
#include "event.h"

struct exporter {
	const char *name;	/* -f NAME */
	const char *what;	/* one line of --help */
	/* Each record of the input in order, then the end of it. */
	void (*record)(FILE *out, const struct record *);
	void (*end)(FILE *out);
};

extern const struct exporter export_ftrace;	/* bin/export/ftrace.c */
extern const struct exporter export_json;	/* bin/export/json.c */

/*
 * Threads as the stream says them (task records, forks, execs, renames),
 * for the formats that name each thread: thread_learn() sees every record.
 */
void		 thread_learn(const struct record *);
const char	*thread_comm(uint32_t tid);	/* NULL if never said */
/* Its name at a time (names.h). */
const char	*thread_comm_at(uint32_t tid, uint64_t time);
int		 thread_pid(uint32_t tid);	/* -1 if never said */
/* Every thread met, in tid order. */
void		 thread_foreach(void (*fn)(uint32_t tid, int pid,
		    const char *comm, void *), void *);

/* Records the format cannot carry, by kind: said at the end. */
void		 not_carried(const char *kind);
/* "task 12, vertex 30": empty if none. */
void		 not_carried_list(char *buf, size_t size);

#endif
