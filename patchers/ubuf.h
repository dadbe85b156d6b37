/*
 * The user-space event buffer: what a patched process (libargus-patch.so)
 * shares with argus-capture.  One file per process, DIR/PID.ubuf, in a
 * directory the capture made for the purpose and named in the process's
 * environment (ARGUS_PATCH_DIR).  The process creates, sizes and maps it,
 * fills the header, and publishes it by storing the magic last; the
 * capture maps it too and reads.
 *
 * Each thread that records claims a slot: a single-producer,
 * single-consumer ring.  The thread alone advances head, the capture
 * alone tail; an event's cells are written before head moves past them
 * (release), and read before tail does (release), so no lock is ever
 * taken and the recording thread makes no system call.  A ring that is
 * full counts the event lost instead: a capture that stopped, or died,
 * costs the program nothing but those counts.
 *
 * A ring is of cells of 32 bytes: an event of up to two arguments takes
 * one, an event of more two, its other arguments in the next cell (which
 * may be the ring's first).  Half a 64-byte event's lines for the events
 * most probes make (a callback's object, a return value): the line a
 * thread writes next is what an event costs most, beside its clock.
 * The cells are the file's memory, allocated when a thread claims its
 * slot: UBUF_CELLS (8 MiB a thread), or the power of two
 * ARGUS_PATCH_RING gives.  Sized for the recorder's lateness, not its
 * period: a busy thread must not fill its ring in the time a recorder's
 * thread may wait for a CPU on a machine that is busy.
 */
#ifndef ARGUS_UBUF_H
#define ARGUS_UBUF_H

#include <stdint.h>

#define UBUF_MAGIC	0x3142555355475241ULL	/* "ARGUSUB1" */
#define UBUF_SLOTS	64		/* threads recording at once */
#define UBUF_CELLS	262144		/* per slot by default */
#define UBUF_CELLS_MIN	1024		/* ARGUS_PATCH_RING's bounds: */
#define UBUF_CELLS_MAX	(1 << 21)	/* powers of two, 64 MiB at most */
#define UBUF_RING_ENV	"ARGUS_PATCH_RING"
#define UBUF_PROBES	256		/* event names per process */
#define UBUF_NAMELEN	48
#define UBUF_MAXARGS	6
#define UBUF_HEADARGS	2		/* in an event's first cell */

/* An event's first cell; the next holds arguments UBUF_HEADARGS on. */
struct ubuf_head {
	uint64_t	 ts;		/* on the header's clock */
	uint32_t	 tid;
	uint8_t		 probe;		/* index into the header's names */
	uint8_t		 nargs;
	uint16_t	 cpu;		/* where it ran (rseq: no system call) */
	uint64_t	 arg[UBUF_HEADARGS];
};

union ubuf_cell {
	struct ubuf_head head;
	uint64_t	 more[UBUF_MAXARGS - UBUF_HEADARGS];
};

/* The cells an event of nargs arguments takes. */
#define UBUF_NCELLS(nargs)	((nargs) > UBUF_HEADARGS ? 2 : 1)

/* An event as the recorder reads it out of its cells. */
struct ubuf_event {
	uint64_t	 ts;
	uint32_t	 tid;
	uint8_t		 probe;
	uint8_t		 nargs;
	uint16_t	 cpu;
	uint64_t	 arg[UBUF_MAXARGS];
};

struct ubuf_slot {
	uint32_t	 owner;		/* the tid recording into it; 0: free */
	uint32_t	 pad0;
	uint64_t	 head;		/* cells written, ever */
	uint64_t	 lost;		/* events that found the ring full */
	uint64_t	 seen;		/* tail, as the writer read it last */
	uint64_t	 pad1[4];
	uint64_t	 tail;		/* cells read, ever (the capture's) */
	uint64_t	 reported;	/* lost already reported (the capture's) */
	uint64_t	 pad2[6];
	union ubuf_cell	 cell[];	/* the header's ncells */
};

/* The file: this header, then nslots slots of ubuf_slot_size() bytes. */
struct ubuf_hdr {
	uint64_t	 magic;		/* stored last: the file is ready */
	uint32_t	 version;
	uint32_t	 pid;
	uint32_t	 nslots;
	uint32_t	 ncells;	/* per slot */
	uint32_t	 nprobes;
	uint32_t	 unslotted;	/* events of threads beyond the slots */
	char		 name[UBUF_PROBES][UBUF_NAMELEN];  /* event TYPEs */
	uint32_t	 clock;		/* UBUF_CLOCK_* */
	uint8_t		 pad[28];	/* slots on a cache line's start */
};

/*
 * The events' clock.  Where the kernel keeps time by the TSC, the TSC
 * itself, read raw: half the cost of a vDSO clock_gettime(), and the
 * recorder converts it (capture/ringread.h: ring_clock).  Elsewhere, or
 * with UBUF_CLOCK_ENV=mono, CLOCK_MONOTONIC in ns.
 */
#define UBUF_CLOCK_MONO	0
#define UBUF_CLOCK_TSC	1
#define UBUF_CLOCK_ENV	"ARGUS_PATCH_CLOCK"

static inline uint64_t
ubuf_slot_size(uint32_t ncells)
{
	return sizeof(struct ubuf_slot) +
	    (uint64_t)ncells * sizeof(union ubuf_cell);
}

/* A file of rings of ncells, as its size says. */
static inline uint64_t
ubuf_size(uint32_t ncells)
{
	return sizeof(struct ubuf_hdr) + UBUF_SLOTS * ubuf_slot_size(ncells);
}

/* Slot i of a file of rings of ncells (the reader's count, not h's). */
static inline struct ubuf_slot *
ubuf_slot(struct ubuf_hdr *h, int i, uint32_t ncells)
{
	return (struct ubuf_slot *)((char *)h + sizeof(*h) +
	    i * ubuf_slot_size(ncells));
}

#define UBUF_VERSION	4	/* 3: clock; 4: cells of 32 bytes */

#endif
