/*
 * The tracepoints we enable and where their fields are.  Offsets come from
 * each event's format file, never from our headers: layouts change between
 * kernels, and a field a kernel lacks reads as absent, not as garbage.
 */
#ifndef CAPTURE_EVENTS_H
#define CAPTURE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

enum ev {
	EV_SWITCH, EV_WAKING, EV_WAKEUP_NEW, EV_NEWTASK, EV_EXEC, EV_EXIT,
	EV_RENAME, EV_SYS_ENTER, EV_SYS_EXIT, EV_IRQ_ENTRY, EV_IRQ_EXIT,
	EV_SOFTIRQ_ENTRY, EV_SOFTIRQ_EXIT, EV_HRT_START, EV_HRT_EXPIRE_ENTRY,
	EV_HRT_EXPIRE_EXIT, EV_HRT_CANCEL, EV_TIMER_START,
	EV_TIMER_EXPIRE_ENTRY, EV_TIMER_EXPIRE_EXIT, EV_TIMER_CANCEL,
	EV_WQ_QUEUE, EV_WQ_START, EV_WQ_END, EV_BLOCK_ISSUE,
	EV_BLOCK_COMPLETE, EV_SIGNAL_GENERATE, EV_SIGNAL_DELIVER, EV_MARKER,
	EV_FLOCK_LOCK, EV_POSIX_LOCK, EV_FCNTL_SETLK, EV_POSIX_REMOVE,
	/* Connections: a TCP socket's state changes, a send, a receive. */
	EV_SOCK_STATE, EV_SOCK_SEND, EV_SOCK_RECV,
	EV_UPROBE,		/* any of our uprobes: see probes.h */
	EV_N,
	EV_NONE = 0xff
};

#define EV_MAXFIELDS	12

struct field {
	int16_t		 off;		/* -1: this kernel lacks it */
	int16_t		 size;
	uint8_t		 sign;
	uint8_t		 dyn;		/* __data_loc: off holds the locator */
	uint8_t		 rel;		/* __rel_loc: relative to the field end */
};

struct evdef {
	const char	*sys, *name;	/* tracepoint */
	const char	*type;		/* TYPE column */
	const char	*fields[EV_MAXFIELDS];
	int		 required;	/* no capture without it */
	int		 enabled;
	int		 id;
	struct field	 f[EV_MAXFIELDS];
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
void	 sockev_args(struct writer *, int e, const char *d,
	    const struct field *);
int	 sockev_local(int e, const char *d, const struct field *);

#endif
