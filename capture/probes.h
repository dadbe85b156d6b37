/*
 * User-space probes: probe sets (the .probes files of patchers/) and --probe specs
 * become uprobes in tracefs's global uprobe_events, in a group of our own
 * (argus_PID), enabled in our instance only and removed when we exit.
 */
#ifndef CAPTURE_PROBES_H
#define CAPTURE_PROBES_H

#include "events.h"
#include "probeset.h"

#define PROBE_GROUP	"argus_"
#define PROBE_MAXARGS	PROBESET_MAXARGS

struct uprobe {
	char		*event;		/* the TYPE column */
	char		 name[64];	/* its tracefs event, in our group */
	int		 id;
	int		 nf;
	struct field	 f[PROBE_MAXARGS];
};

/* At option parsing: exit 64 on a malformed spec or line, 66 no file. */
void	 probes_add_file(const char *path);
void	 probes_add_spec(const char *spec);	/* LIB:SYM[+OFF][%return][=EVENT] */
int	 probes_wanted(void);
void	 probes_forget(void);	/* --patch: the sets are the patcher's */
const char *probes_event(int i);	/* spec i's EVENT; NULL past the last */

/* Probes of captures that died (SIGKILL); after their instances went. */
void	 probes_reap_stale(void);
/* Create, enable in our instance; what cannot be placed is warned about. */
void	 probes_setup(const int *self, int nself);
void	 probes_remove(void);		/* idempotent; also at exit */
const struct uprobe *probe_by_id(int id);

/* "EVENT LIB:SYMBOL" of each probe placed, for meta records. */
int	 probes_count(void);
const char *probes_desc(int i);

#endif
