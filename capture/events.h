/*
 * The tracepoints we enable and where their fields are.  Offsets come from
 * each event's format file, never from our headers: layouts change between
 * kernels, and a field a kernel lacks reads as absent, not as garbage.
 */
#ifndef CAPTURE_EVENTS_H
#define CAPTURE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

/*
 * The capture's types are lib/events.def's, numbered as enum etype; those
 * without a tracepoint come only from uprobes (EV_UPROBE).
 */
enum {
	EV_UPROBE = E_NTYPES,	/* any of our uprobes: see probes.h */
	EV_N,
	EV_NONE = 0xff
};

#define EV_MAXFIELDS	E_MAXCOLS

struct field {
	int16_t		 off;		/* -1: this kernel lacks it */
	int16_t		 size;
	uint8_t		 sign;
	uint8_t		 dyn;		/* __data_loc: off holds the locator */
	uint8_t		 rel;		/* __rel_loc: relative to the field end */
};

/*
 * What this kernel gives of each type of lib/events.def, whose edefs[e]
 * (lib/event.h) says its tracepoint, columns and USEd fields; the column
 * (or field) name's index is edef_col(e, name).
 */
struct evdef {
	int		 ncols;		/* columns written; USEd fields after */
	int		 nfields;
	uint8_t		 kind[EV_MAXFIELDS];	/* its col[].kind, packed */
	int		 enabled;
	int		 id;
	struct field	 f[EV_MAXFIELDS];	/* col[i]'s field is f[i] */
};

extern struct evdef evdefs[EV_N];
extern uint8_t ev_by_id[65536];		/* common_type -> enum ev */
extern int common_flags_off, common_pid_off;

/* Read formats and enable; syscalls is "all", "none" or a list. */
void	 events_setup(const char *syscalls, const int *self, int nself);
char	*events_syscall_desc(void);	/* for the meta record */


/* Field offsets of any event of the instance, by name; 0 or -1. */
int	 events_load_fields(const char *sys, const char *event,
	    const char *const *fields, int nfields, struct field *, int *id);
/* "common_pid != A && ...": a filter that leaves our own threads out. */
void	 self_filter(char *buf, size_t size, const int *self, int nself);

/*
 * Socket events (sockev.c): their columns, and whether a state change is
 * about this host's own end of a connection (1: its address is one of
 * this network namespace's), whatever task it fired in: a receive's
 * protocol work runs in the softirq of whichever task sent the packet.
 * 0 another host's, -1 a loopback address, which every namespace has.
 */
struct writer;
void	 sockev_col(struct writer *, int kind, int i, const char *d,
	    const struct field *);
void	 sockev_check(void);	/* lib/events.def as sockev.c reads it */
int	 sockev_local(int e, const char *d, const struct field *);

#endif
