/*
 * io-timer: a thread waits on I/O that a kernel worker completes after a
 * kernel timer.  The paper's TextEdit case: its main thread waited on
 * I/O; in the trace a kernel thread, woken from blocking I/O by another
 * kernel thread, processed a timer TextEdit had armed and then woke
 * TextEdit up.  The chain runs through the kernel twice, through a timer
 * and a worker, and a tracer that stops at either loses the cause.
 *
 * The mechanism is io_uring, with nothing beyond the kernel's own header:
 * an autosave thread (it-autosave) submits a timeout linked to a write of
 * the document (IORING_OP_TIMEOUT with IORING_TIMEOUT_ETIME_SUCCESS, so
 * that the write runs when the timeout expires, then IORING_OP_WRITE with
 * IOSQE_ASYNC, so that it runs on an io-wq worker).  The kernel then:
 *  1. arms an hrtimer (io_timeout_fn) in the autosave thread's
 *     io_uring_enter: the timer is the application's;
 *  2. when it fires, in hard-interrupt context, hands the timeout's
 *     completion to the autosave thread as task_work, waking it;
 *  3. the autosave thread, running that task_work on its way back to its
 *     read(2), queues the linked write to io-wq and wakes a worker;
 *  4. the worker (iou-wrk-TID) writes the document and posts the
 *     completion, which signals the ring's eventfd and so wakes the main
 *     thread (it-textedit) blocked reading it.
 * The main thread waits on the eventfd, not in io_uring_enter: a waiter
 * in io_uring_enter is also woken when any timeout of the ring completes
 * (the ring's timeout count changes), which would end its long wait at
 * step 3, from the autosave thread, and leave the worker a 0.1 ms wait of
 * its own.  The eventfd is signalled only when a completion is posted,
 * and the timeout posts none (IOSQE_CQE_SKIP_SUCCESS).
 * The main thread's wait is ended by the kernel worker; the worker ran
 * because the timer fired; the timer was armed by schedule_autosave.
 * Normally the autosave delay is 2 ms; in the hang it is -H seconds.
 *
 * Why this and not another mechanism:
 *  - dm-delay or null_blk (irqmode=2) put a real kernel timer and a
 *    kworker in the block I/O path, but need a module, dmsetup and a loop
 *    device: not something a container CI has.
 *  - A pty's reader is woken by a real kworker (flush_to_ldisc), but no
 *    kernel timer is in that path: the timer would be a user sleep.
 *  - Dirty-page writeback is a timer and a kworker, but on the kernel's
 *    schedule (dirty_writeback_centisecs, not writable here) and not
 *    something a thread waits on.
 * What differs from TextEdit: an io-wq worker is a kernel thread (it
 * never returns to user space, has no user stack) but it belongs to the
 * submitting process's thread group, named iou-wrk-<submitter tid>, not a
 * system-wide kworker; and the hand-off from timer to worker goes through
 * the submitting thread's task_work, so that thread appears twice on the
 * path (arming the timer, then queueing the work), where in TextEdit a
 * kernel thread processed the timer.
 *
 * io_uring must be allowed: kernel.io_uring_disabled 0 (or 1 and the
 * right group), and no seccomp profile blocking io_uring_setup (Docker's
 * default does).  Without it this program says so and exits 69.
 */
#include <linux/io_uring.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <dirent.h>

#include "scenario.h"

#define DOC_SIZE	(64 * 1024)
#define NORMAL_DELAY_NS	(2 * MS)

struct ring {
	int			 fd;
	unsigned		*sq_tail, *sq_mask, *sq_array;
	unsigned		*cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe	*sqes;
	struct io_uring_cqe	*cqes;
};

struct save {				/* main -> autosave thread */
	int		seq;		/* 0: quit */
	long long	delay_ns;
};

static struct ring	ring;
static int		doc_fd;
static int		done_fd;	/* eventfd: a completion was posted */
static char		document[DOC_SIZE];
static int		saves[2];	/* main -> autosave thread */
static pid_t		autosave_tid;

static void *
map_ring(size_t len, off_t what)
{
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
	    ring.fd, what);
	if (p == MAP_FAILED)
		err(1, "mmap io_uring");
	return p;
}

static void
setup_ring(void)
{
	struct io_uring_params p;
	size_t sqlen, cqlen;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	if ((ring.fd = syscall(__NR_io_uring_setup, 8, &p)) == -1) {
		warn("io_uring_setup: io_uring is disabled or filtered here, "
		    "and this scenario needs it");
		exit(69);
	}
	sqlen = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cqlen = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		sqlen = cqlen = sqlen > cqlen ? sqlen : cqlen;
		sq = cq = map_ring(sqlen, IORING_OFF_SQ_RING);
	} else {
		sq = map_ring(sqlen, IORING_OFF_SQ_RING);
		cq = map_ring(cqlen, IORING_OFF_CQ_RING);
	}
	ring.sqes = map_ring(p.sq_entries * sizeof(struct io_uring_sqe),
	    IORING_OFF_SQES);
	ring.sq_tail = (unsigned *)(sq + p.sq_off.tail);
	ring.sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	ring.sq_array = (unsigned *)(sq + p.sq_off.array);
	ring.cq_head = (unsigned *)(cq + p.cq_off.head);
	ring.cq_tail = (unsigned *)(cq + p.cq_off.tail);
	ring.cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	ring.cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);

	if ((done_fd = eventfd(0, EFD_CLOEXEC)) == -1)
		err(1, "eventfd");
	if (syscall(__NR_io_uring_register, ring.fd, IORING_REGISTER_EVENTFD,
	    &done_fd, 1) == -1)
		err(1, "io_uring_register eventfd");
}

static FRAME int
ring_submit(unsigned n)
{
	int r;

	while ((r = syscall(__NR_io_uring_enter, ring.fd, n, 0, 0, NULL, 0)) ==
	    -1 && errno == EINTR)
		;
	if (r == -1)
		err(1, "io_uring_enter");
	return r;
}

/* --- the autosave thread -------------------------------------------- */

/*
 * The root cause: the write is held behind a timer, and in the hang the
 * delay is seconds.  Only this thread touches the submission queue.
 */
static FRAME void
schedule_autosave(const struct save *s)
{
	static struct __kernel_timespec ts;
	struct io_uring_sqe *timeout, *write;
	unsigned tail = *ring.sq_tail, mask = *ring.sq_mask;

	ts.tv_sec = s->delay_ns / SEC;
	ts.tv_nsec = s->delay_ns % SEC;
	timeout = &ring.sqes[tail & mask];
	memset(timeout, 0, sizeof(*timeout));
	timeout->opcode = IORING_OP_TIMEOUT;
	timeout->fd = -1;
	timeout->addr = (uintptr_t)&ts;
	timeout->len = 1;
	timeout->timeout_flags = IORING_TIMEOUT_ETIME_SUCCESS;
	timeout->flags = IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
	timeout->user_data = 0;
	ring.sq_array[tail & mask] = tail & mask;

	write = &ring.sqes[(tail + 1) & mask];
	memset(write, 0, sizeof(*write));
	write->opcode = IORING_OP_WRITE;
	write->fd = doc_fd;
	write->addr = (uintptr_t)document;
	write->len = DOC_SIZE;
	write->off = 0;
	write->flags = IOSQE_ASYNC;
	write->user_data = s->seq;
	ring.sq_array[(tail + 1) & mask] = (tail + 1) & mask;

	__atomic_store_n(ring.sq_tail, tail + 2, __ATOMIC_RELEASE);
	if (ring_submit(2) != 2)
		errx(1, "autosave: io_uring took less than both requests");
}

/* 0 at end of file.  The timer's task_work runs while we block here. */
static FRAME int
wait_for_edit(struct save *s)
{
	ssize_t n;

	while ((n = read(saves[0], s, sizeof(*s))) == -1 && errno == EINTR)
		;
	if (n == -1)
		err(1, "autosave: read");
	if (n != 0 && n != sizeof(*s))
		errx(1, "autosave: short request");
	return n != 0;
}

static FRAME void *
autosave_main(void *arg)
{
	struct save s;

	(void)arg;
	name_thread("it-autosave");
	__atomic_store_n(&autosave_tid, gettid(), __ATOMIC_RELEASE);
	while (wait_for_edit(&s) && s.seq != 0)
		schedule_autosave(&s);
	return NULL;
}

/* --- the main thread ------------------------------------------------ */

static FRAME void
request_save(int seq, long long delay_ns)
{
	struct save s = { .seq = seq, .delay_ns = delay_ns };

	if (write(saves[1], &s, sizeof(s)) != sizeof(s))
		err(1, "textedit: write");
}

/* The wait itself: blocks until the ring posts a completion. */
static FRAME void
wait_for_completion(void)
{
	uint64_t n;

	while (read(done_fd, &n, sizeof(n)) == -1)
		if (errno != EINTR)
			err(1, "textedit: read eventfd");
}

/* Until the document's write has completed: its result. */
static FRAME int
wait_for_save(int seq)
{
	struct io_uring_cqe *cqe;
	unsigned head, tail;
	int res;

	for (;;) {
		head = *ring.cq_head;
		tail = __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE);
		while (head != tail) {
			cqe = &ring.cqes[head & *ring.cq_mask];
			head++;
			if (cqe->user_data == 0 && cqe->res != -ETIME)
				errx(1, "io_uring timeout: %s",
				    strerror(-cqe->res));
			if (cqe->user_data == (uint64_t)seq) {
				res = cqe->res;
				__atomic_store_n(ring.cq_head, head,
				    __ATOMIC_RELEASE);
				return res;
			}
		}
		__atomic_store_n(ring.cq_head, head, __ATOMIC_RELEASE);
		wait_for_completion();
	}
}

static FRAME void
save_document(int seq, long long delay_ns)
{
	int res;

	request_save(seq, delay_ns);
	if ((res = wait_for_save(seq)) != DOC_SIZE)
		errx(1, "save %d: %s", seq, res < 0 ? strerror(-res) :
		    "short write");
}

/* The io-wq workers of the autosave thread: iou-wrk-<its tid>. */
static void
truth_io_workers(void)
{
	char path[64], comm[32], want[32], tids[256];
	struct dirent *d;
	size_t n = 0;
	DIR *dir;
	FILE *f;

	snprintf(want, sizeof(want), "iou-wrk-%d\n", (int)autosave_tid);
	tids[0] = '\0';
	if ((dir = opendir("/proc/self/task")) == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.16s/comm",
		    d->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) != NULL &&
		    strcmp(comm, want) == 0 && n < sizeof(tids) - 20)
			n += snprintf(tids + n, sizeof(tids) - n, "%s%.16s",
			    n ? "," : "", d->d_name);
		fclose(f);
	}
	closedir(dir);
	want[strlen(want) - 1] = '\0';
	truth("kworker_comm", "%s", want);
	truth("kworker_tids", "%s", tids);
}

int
main(int argc, char *argv[])
{
	struct save quit = { .seq = 0 };
	pthread_t autosave;
	char path[] = "/tmp/argus-io-timer.XXXXXX";
	long long t;
	int i;

	scenario_init(argc, argv, "io-timer", "LongWait");
	setup_ring();
	if ((doc_fd = mkostemp(path, O_CLOEXEC)) == -1)
		err(1, "mkstemp");
	unlink(path);
	for (i = 0; i < DOC_SIZE; i++)
		document[i] = "the quick brown fox jumps over the lazy dog\n"
		    [i % 44];
	if (pipe2(saves, O_CLOEXEC) == -1)
		err(1, "pipe");

	name_thread("it-textedit");
	truth_thread("victim", "it-textedit");
	truth("victim_function", "wait_for_save");
	if ((errno = pthread_create(&autosave, NULL, autosave_main, NULL)))
		err(1, "pthread_create");
	while (__atomic_load_n(&autosave_tid, __ATOMIC_ACQUIRE) == 0)
		sleep_ns(MS);
	truth("root_pid", "%d", (int)getpid());
	truth("root_tid", "%d", (int)autosave_tid);
	truth("root_comm", "it-autosave");
	truth("root_function", "schedule_autosave");
	truth("timer_function", "io_timeout_fn");
	truth_ns("normal_delay_ns", NORMAL_DELAY_NS);
	truth_ns("timer_delay_ns", sc.hang_ns);

	for (i = 1; i <= sc.episodes; i++) {
		sleep_ns(SPACING_NS);
		truth_ns("episode_begin_ns", now_ns());
		mark_episode(i);
		save_document(i, NORMAL_DELAY_NS);
		truth_ns("episode_end_ns", now_ns());
	}
	if (sc.hang) {
		sleep_ns(SPACING_NS);
		t = now_ns();
		truth_ns("hang_begin_ns", t);
		mark("hang-begin");
		save_document(i, sc.hang_ns);
		truth_ns("hang_end_ns", now_ns());
		truth("save_result", "%d", DOC_SIZE);
	}
	truth_io_workers();
	request_save(quit.seq, 0);
	if ((errno = pthread_join(autosave, NULL)))
		err(1, "pthread_join");
	return 0;
}
