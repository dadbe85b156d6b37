/*
 * A thread's name over time.  argus-stream(5): a thread's name at a time
 * is that of its latest task record at or before it (the capture writes
 * one again when a thread execs or is renamed).  Streams written before
 * that rule name a thread once; the fork, exec and comm events that
 * rename it are read too, so both kinds give the same answer.
 */
#ifndef ARGUS_NAMES_H
#define ARGUS_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define NAME_LEN	16		/* the kernel's TASK_COMM_LEN */

struct names;

struct names	*names_new(void);
void		 names_free(struct names *);
/* What a record says of a thread's name, if anything: 1 if it said. */
int		 names_learn(struct names *, const struct record *);
/* The same of an event already parsed: a reader's hot path. */
struct event;
int		 names_event(struct names *, const struct event *);
void		 names_set(struct names *, uint32_t tid, uint64_t time,
		    const char *comm);
/*
 * The name a thread takes when it execs path: the file's base name, cut
 * as the kernel cuts it (NAME_LEN - 1 bytes).
 */
void		 names_exec(char name[NAME_LEN], const char *path);
/*
 * The name tid had at time: its latest name at or before it, or, before
 * the first, the first (a thread met before it was introduced).  NULL
 * when the stream never named it, or not by then (a task record with
 * no name).  NO_TIME: its latest.
 */
const char	*names_at(const struct names *, uint32_t tid, uint64_t time);

#endif
