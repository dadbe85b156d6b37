/*
 * argus-cat's selection and output (argus-cat.c says what it does):
 * select.c holds the selections (-k, -p, -t, -c, -r, -s, -u) and whether
 * a record passes them; early.c the task records kept from before -s and
 * put out before their thread's first record; row.c a row of the table
 * (-H); stream.c the pass over the inputs, each record put out as asked
 * (-W, -y, -H).
 */
#ifndef ARGUS_CAT_H
#define ARGUS_CAT_H

#include <stddef.h>
#include <stdint.h>

#include <uthash.h>

#include "event.h"
#include "relate.h"
#include "util.h"

#define TID_LIMIT	(1 << 22)	/* the kernel's PID_MAX_LIMIT */

struct select {
	char		**kinds;
	size_t		  nkinds;
	uint64_t	 *pids, *tids;
	size_t		  npids, ntids;
	char		**comms;
	size_t		  ncomms;
	uint8_t		 *named;	/* --comm: threads that took a name, a bit each */
	struct relset	 *related;	/* --related */
	struct when	  since, until;	/* relative: to the first time seen */
	uint64_t	  first;
};

/*
 * -s: a thread's latest task record before the window, put out before its
 * first record in it, as a ring's file introduces it: a thread's name is
 * that of its latest task record (argus-stream(5)).
 */
struct early {
	uint64_t	 tid;
	char		**f;
	size_t		 nf;
	UT_hash_handle	 hh;
};

extern struct early	*early;

/* select.c */
void	 parse_list(const char *, char *, uint64_t **, size_t *);
void	 parse_names(char ***, size_t *, char *);
void	 related(struct select *, char *);
void	 check_kinds(const struct select *);
int	 selected(struct select *, const struct record *);

/* early.c */
void	 early_keep(const struct record *);
void	 introduce(struct writer *, const struct record *, size_t, int);

/* row.c */
void	 write_row(struct writer *, const struct record *, size_t,
	    const char *, size_t);

/* stream.c */
void	 cat_stream(struct select *, char **, int, const struct common *,
	    int, int, int, int);

#endif
