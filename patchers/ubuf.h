/*
 * The user-space event buffer: what a patched process (libargus-patch.so)
 * shares with argus-capture.  One file per process, DIR/PID.ubuf, in a
 * directory the capture made for the purpose and named in the process's
 * environment (ARGUS_PATCH_DIR).  The process creates, sizes and maps it,
 * fills the header, and publishes it by storing the magic last; the
 * capture maps it too and reads.
 *
 * Each thread that records claims a slot: a single-producer,
 * single-consumer ring of fixed-size events.  The thread alone advances
 * head, the capture alone tail; an event is written before head moves
 * past it (release), and read before tail does (release), so no lock is
 * ever taken and the recording thread makes no system call.  A ring that
 * is full counts the event lost instead: a capture that stopped, or died,
 * costs the program nothing but those counts.
 *
 * The events of a ring are the file's memory, allocated when a thread
 * claims its slot: UBUF_EVENTS of 64 bytes (8 MiB a thread), or the
 * power of two ARGUS_PATCH_RING gives.  Sized for the recorder's
 * lateness, not its period: a busy thread must not fill its ring in the
 * time a recorder's thread may wait for a CPU on a machine that is busy.
 */
#ifndef ARGUS_UBUF_H
#define ARGUS_UBUF_H

#include <stdint.h>

#define UBUF_MAGIC	0x3142555355475241ULL	/* "ARGUSUB1" */
#define UBUF_SLOTS	64		/* threads recording at once */
#define UBUF_EVENTS	131072		/* per slot by default */
#define UBUF_EVENTS_MIN	1024		/* ARGUS_PATCH_RING's bounds: */
#define UBUF_EVENTS_MAX	(1 << 20)	/* powers of two, 64 MiB at most */
#define UBUF_RING_ENV	"ARGUS_PATCH_RING"
#define UBUF_PROBES	256		/* event names per process */
#define UBUF_NAMELEN	48
#define UBUF_MAXARGS	6

struct ubuf_event {
	uint64_t	 ts;		/* on the header's clock */
	uint32_t	 tid;
	uint8_t		 probe;		/* index into the header's names */
	uint8_t		 nargs;
	uint16_t	 cpu;		/* where it ran (rseq: no system call) */
	uint64_t	 arg[UBUF_MAXARGS];
};

struct ubuf_slot {
	uint32_t	 owner;		/* the tid recording into it; 0: free */
	uint32_t	 pad0;
	uint64_t	 head;		/* events written, ever */
	uint64_t	 lost;		/* events that found the ring full */
	uint64_t	 pad1[5];
	uint64_t	 tail;		/* events read, ever (the capture's) */
	uint64_t	 reported;	/* lost already reported (the capture's) */
	uint64_t	 pad2[6];
	struct ubuf_event ev[];		/* the header's nevents */
};

/* The file: this header, then nslots slots of ubuf_slot_size() bytes. */
struct ubuf_hdr {
	uint64_t	 magic;		/* stored last: the file is ready */
	uint32_t	 version;
	uint32_t	 pid;
	uint32_t	 nslots;
	uint32_t	 nevents;	/* per slot */
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
ubuf_slot_size(uint32_t nevents)
{
	return sizeof(struct ubuf_slot) +
	    (uint64_t)nevents * sizeof(struct ubuf_event);
}

/* A file of rings of nevents, as its size says. */
static inline uint64_t
ubuf_size(uint32_t nevents)
{
	return sizeof(struct ubuf_hdr) + UBUF_SLOTS * ubuf_slot_size(nevents);
}

/* Slot i of a file of rings of nevents (the reader's count, not h's). */
static inline struct ubuf_slot *
ubuf_slot(struct ubuf_hdr *h, int i, uint32_t nevents)
{
	return (struct ubuf_slot *)((char *)h + sizeof(*h) +
	    i * ubuf_slot_size(nevents));
}

#define UBUF_VERSION	3	/* 2: the ring's size in nevents; 3: clock */

#endif
