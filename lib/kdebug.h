/*
 * kdebug, the macOS kernel's trace facility, as Argus reads it: the debug
 * ID of an event, the codes Argus maps, the codes xnu-diff/argus.diff adds,
 * and the layouts of the files trace(1) and ktrace(1) write.  Values are
 * XNU's (bsd/sys/kdebug.h, kdebug_private.h, bsd/kern/kdebug.c,
 * libkdd/kcdata.h, ktrace(5)); layouts are byte offsets, little-endian,
 * because the files are read on machines that did not write them.  Shared
 * by argus-import(1) and the test programs that write kdebug files.
 */
#ifndef ARGUS_KDEBUG_H
#define ARGUS_KDEBUG_H

#include <stdint.h>

/*
 * A debug ID: class (8 bits), subclass (8), code (14), function (2).
 * The event ID is the debug ID without the function bits.
 */
#define KD_EVENTID(class, sub, code) \
	((uint32_t)(class) << 24 | (uint32_t)(sub) << 16 | (uint32_t)(code) << 2)
#define KD_CLASS(id)		((id) >> 24)
#define KD_CSC(id)		((id) >> 16)		/* class and subclass */
#define KD_CODE(id)		(((id) >> 2) & 0x3fff)
#define KD_FUNC(id)		((id) & 3)
#define KD_ID(id)		((id) & ~3u)
#define KD_START		1u
#define KD_END			2u

/* Classes and subclasses. */
#define KD_MACH			1
#define KD_SUB_INTR		0x05	/* interrupts */
#define KD_SUB_DECI		0x09	/* timers (DECR_*) */
#define KD_SUB_MSC		0x0c	/* Mach traps */
#define KD_SUB_IPC		0x20
#define KD_SUB_SCHED		0x40
#define KD_SUB_ARGUS		0xc0	/* xnu-diff/argus.diff */
#define KD_BSD			4
#define KD_SUB_BSC		0x0c	/* BSD system calls */
#define KD_TRACE		7
#define KD_SUB_DATA		0
#define KD_SUB_STRING		1
#define KD_SUB_INFO		2
#define KD_APPS			33
#define KD_SUB_APPS_ARGUS	0xa0	/* xnu-diff/argus.diff, user space */
#define KD_DISPATCH		46
#define KD_SUB_QOS		5	/* libdispatch's QOS_TRACE */

/* Stock events Argus maps (event IDs). */
#define KD_MACH_SCHED		KD_EVENTID(KD_MACH, KD_SUB_SCHED, 0x00)
#define KD_MACH_HANDOFF		KD_EVENTID(KD_MACH, KD_SUB_SCHED, 0x02)
#define KD_MACH_CALLOUT		KD_EVENTID(KD_MACH, KD_SUB_SCHED, 0x04)
#define KD_MACH_MAKERUNNABLE	KD_EVENTID(KD_MACH, KD_SUB_SCHED, 0x06)
#define KD_MACH_IDLE		KD_EVENTID(KD_MACH, KD_SUB_SCHED, 0x09)
#define KD_MACH_WAIT		KD_EVENTID(KD_MACH, KD_SUB_SCHED, 0x10)
#define KD_MACH_INTR		KD_EVENTID(KD_MACH, KD_SUB_INTR, 0)
#define KD_DECR_TIMER_CALLOUT	KD_EVENTID(KD_MACH, KD_SUB_DECI, 2)
#define KD_DECR_TIMER_ENTER	KD_EVENTID(KD_MACH, KD_SUB_DECI, 7)
#define KD_DECR_TIMER_CANCEL	KD_EVENTID(KD_MACH, KD_SUB_DECI, 8)
#define KD_IPC_MSG_SEND		KD_EVENTID(KD_MACH, KD_SUB_IPC, 0x3)
#define KD_IPC_MSG_RECV		KD_EVENTID(KD_MACH, KD_SUB_IPC, 0x4)
#define KD_IPC_MSG_RECV_VREF	KD_EVENTID(KD_MACH, KD_SUB_IPC, 0x5)
#define KD_DATA_NEWTHREAD	KD_EVENTID(KD_TRACE, KD_SUB_DATA, 1)
#define KD_DATA_EXEC		KD_EVENTID(KD_TRACE, KD_SUB_DATA, 2)
#define KD_DATA_TERMINATE	KD_EVENTID(KD_TRACE, KD_SUB_DATA, 3)
#define KD_DATA_TERMINATE_PID	KD_EVENTID(KD_TRACE, KD_SUB_DATA, 4)
#define KD_STRING_GLOBAL	KD_EVENTID(KD_TRACE, KD_SUB_STRING, 0)
#define KD_STRING_NEWTHREAD	KD_EVENTID(KD_TRACE, KD_SUB_STRING, 1)
#define KD_STRING_EXEC		KD_EVENTID(KD_TRACE, KD_SUB_STRING, 2)
#define KD_STRING_PROC_EXIT	KD_EVENTID(KD_TRACE, KD_SUB_STRING, 3)
#define KD_STRING_THREADNAME	KD_EVENTID(KD_TRACE, KD_SUB_STRING, 4)
#define KD_LOST_EVENTS		KD_EVENTID(KD_TRACE, KD_SUB_INFO, 2)
#define KD_DISPATCH_PUSH_EB	KD_EVENTID(KD_DISPATCH, KD_SUB_QOS, 5)
#define KD_DISPATCH_PUSH_AB	KD_EVENTID(KD_DISPATCH, KD_SUB_QOS, 6)
#define KD_DISPATCH_PUSH_F	KD_EVENTID(KD_DISPATCH, KD_SUB_QOS, 7)
#define KD_DISPATCH_POP		KD_EVENTID(KD_DISPATCH, KD_SUB_QOS, 9)
#define KD_DISPATCH_COMPLETE	KD_EVENTID(KD_DISPATCH, KD_SUB_QOS, 11)

/* System calls: the code is the call's number. */
#define KD_BSC(nr)		KD_EVENTID(KD_BSD, KD_SUB_BSC, nr)
#define KD_MSC(nr)		KD_EVENTID(KD_MACH, KD_SUB_MSC, nr)

/* MACH_SCHED's first argument: why the thread left the CPU (ast_t). */
#define KD_AST_PREEMPTION	0x07	/* PREEMPT | QUANTUM | URGENT */
#define KD_AST_HANDOFF		0x08
#define KD_AST_YIELD		0x10

/* Wait results (kern_types.h) and interruptibility of a wait. */
#define KD_THREAD_AWAKENED	0
#define KD_THREAD_TIMED_OUT	1
#define KD_THREAD_INTERRUPTED	2
#define KD_THREAD_RESTART	3
#define KD_THREAD_UNINT		0

/* The stock interrupt event's kind (DBG_INTR_TYPE_*). */
#define KD_INTR_IPI		1
#define KD_INTR_TIMER		2
#define KD_INTR_OTHER		3
#define KD_INTR_PMI		4

/*
 * The tracepoints of xnu-diff/argus.diff (DBG_MACH_ARGUS), and the codes
 * instrumented user-space libraries emit with kdebug_trace(2)
 * (DBG_APPS, DBG_APP_ARGUS).  xnu-diff/README documents the arguments.
 */
#define ARGUS_MSG_SEND		KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x01)
#define ARGUS_MSG_RECV		KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x02)
#define ARGUS_MSG_BACKTRACE	KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x03)
#define ARGUS_WAIT		KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x04)
#define ARGUS_WAKE		KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x05)
#define ARGUS_CLEAR_WAIT	KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x06)
#define ARGUS_TCALL_ARM		KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x07)
#define ARGUS_TCALL_INVOKE	KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x08)
#define ARGUS_INTR_HANDLER	KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x09)
#define ARGUS_INTR_TIMERS	KD_EVENTID(KD_MACH, KD_SUB_ARGUS, 0x0a)
#define ARGUS_RUNLOOP_SUBMIT	KD_EVENTID(KD_APPS, KD_SUB_APPS_ARGUS, 0x01)
#define ARGUS_RUNLOOP_CALLOUT	KD_EVENTID(KD_APPS, KD_SUB_APPS_ARGUS, 0x02)

/* ARGUS_WAKE's flags. */
#define ARGUS_WAKE_HANDOFF	0x1	/* the waker hands its CPU to the wakee */
#define ARGUS_WAKE_INTR		0x2	/* made runnable in interrupt context */
#define ARGUS_WAKE_TIMER	0x4	/* the wait had a timeout armed */

/* Waitq kinds, ARGUS_WAIT's (waitq.h: WQT_*). */
#define KD_WQT_QUEUE		1
#define KD_WQT_TURNSTILE	2
#define KD_WQT_PORT		3
#define KD_WQT_SELECT		4
#define KD_WQT_PORT_SET		5
#define KD_WQT_SELECT_SET	6

/*
 * One event as the kernel records it (kd_buf, 64-bit kernels).
 */
#define KD_BUF_SIZE		64
#define KD_BUF_TIMESTAMP	0
#define KD_BUF_ARG1		8	/* arg2..arg4 follow, 8 bytes each */
#define KD_BUF_THREAD		40	/* arg5: the thread it ran in */
#define KD_BUF_DEBUGID		48
#define KD_BUF_CPUID		52

/* A thread map entry (kd_threadmap, 64-bit): thread, pid, process name. */
#define KD_MAP_SIZE		32
#define KD_MAP_THREAD		0
#define KD_MAP_PID		8	/* 1 for kernel_task */
#define KD_MAP_COMMAND		12
#define KD_MAP_COMMAND_LEN	20

/*
 * RAW version 1 (trace -b/-R, ktrace --raw): a header, the thread map, and
 * zeros up to the next 4 KB boundary, which hold the CPU map; then events
 * to the end of the file.  RAW_header is 24 bytes: version, thread count,
 * wall-clock seconds and microseconds.
 */
#define KD_RAW_V0		0x55aa0000u
#define KD_RAW_V1		0x55aa0101u
#define KD_RAW_V2		0x55aa0200u
#define KD_RAW_HEADER_SIZE	24
#define KD_RAW_EVENTS_ALIGN	4096
#define KD_CPUMAP_HEADER_SIZE	8	/* version (KD_RAW_V1), count */

/*
 * Version 3 (ktrace(5)): 16-byte chunks, tag, version (sub-tag), length,
 * each 8-byte aligned.  The first is the header, whose tag is the magic
 * number (the kernel wrote 0x1000, libktrace writes 0x55aa0300); its
 * payload starts with the fixed fields below, then sub-chunks.  An events
 * chunk's payload starts with an 8-byte timestamp, which newer kernels
 * leave out of the length (see bin/import/kdebug_file.c).
 */
#define KD_V3_KERNEL_MAGIC	0x00001000u
#define KD_V3_MAGIC		0x55aa0300u
#define KD_CHUNK_SIZE		16
#define KD_V3_HEADER_FIXED	40	/* after the chunk header */
#define KD_V3_TIMEBASE_NUMER	16	/* offsets from the file's start */
#define KD_V3_TIMEBASE_DENOM	20
#define KD_V3_FLAGS		52
#define KD_V3_FLAG_64BIT	0x1
#define KD_V3_CONFIG		0x1b00u
#define KD_V3_CPU_MAP		0x1c00u
#define KD_V3_THREAD_MAP	0x1d00u
#define KD_V3_RAW_EVENTS	0x1e00u
#define KD_V3_NULL_CHUNK	0x2000u
#define KD_V3_EVENTS_STAMP	8

/*
 * kcdata (libkdd/kcdata.h): the stackshot a ktrace file may carry, a
 * sequence of 16-byte items (type, size, flags) each followed by size
 * bytes.  Argus reads the tasks and threads out of it.
 */
#define KCD_ITEM_SIZE		16
#define KCD_BEGIN_STACKSHOT	0x59a25807u
#define KCD_BEGIN_DELTA		0xde17a59au
#define KCD_CONTAINER_BEGIN	0x13u
#define KCD_CONTAINER_END	0x14u
#define KCD_BUFFER_END		0xf19158edu
#define KCD_TASK_CONTAINER	0x903u
#define KCD_THREAD_CONTAINER	0x904u
#define KCD_TASK_SNAPSHOT	0x905u
#define KCD_THREAD_SNAPSHOT	0x906u
#define KCD_THREAD_NAME		0x909u
#define KCD_TASK_PID		84	/* task_snapshot_v2.ts_pid */
#define KCD_TASK_COMM		88	/* .ts_p_comm[32] */
#define KCD_TASK_COMM_LEN	32
#define KCD_THREAD_ID		0	/* thread_snapshot_v2.ths_thread_id */

#endif
