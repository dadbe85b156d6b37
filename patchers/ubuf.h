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
 */
#ifndef ARGUS_UBUF_H
#define ARGUS_UBUF_H

#include <stdint.h>

#define UBUF_MAGIC	0x3142555355475241ULL	/* "ARGUSUB1" */
#define UBUF_SLOTS	64		/* threads recording at once */
#define UBUF_EVENTS	32768		/* per slot, a power of two */
#define UBUF_PROBES	256		/* event names per process */
#define UBUF_NAMELEN	48
#define UBUF_MAXARGS	6

struct ubuf_event {
	uint64_t	 ts;		/* CLOCK_MONOTONIC, ns */
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
	struct ubuf_event ev[UBUF_EVENTS];
};

struct ubuf_hdr {
	uint64_t	 magic;		/* stored last: the file is ready */
	uint32_t	 version;
	uint32_t	 pid;
	uint32_t	 nslots;
	uint32_t	 nevents;	/* per slot */
	uint32_t	 nprobes;
	uint32_t	 unslotted;	/* events of threads beyond the slots */
	char		 name[UBUF_PROBES][UBUF_NAMELEN];  /* event TYPEs */
	struct ubuf_slot slot[UBUF_SLOTS];
};

#define UBUF_VERSION	1

#endif
