/*
 * mutex-contention: the main thread wakes several workers at once, they
 * contend on a mutex, and one of them holds it for seconds.  The paper's
 * Installer case, where the main thread woke three workers and waited for
 * them: each worker's wake-up then has two causes in the trace, the main
 * thread's broadcast and the unlock of the worker before it, and only the
 * first is intent (a lock hand-off is mutual exclusion, not causality).
 * There the hang came from a worker blocked on authd while it held the
 * lock; here, too, the worker holding the lock waits for an authorization
 * that does not come, until a timeout.
 *
 * The installer's main thread (mc-installer) broadcasts one condition to
 * three workers (mc-worker-1..3) and waits on another until all three
 * are done.  Each worker takes install_lock, copies its part of the
 * payload (about a millisecond) and lets go.  In the hang the first
 * worker to get the lock waits for authorization for -H seconds with the
 * lock held; the other two block on the lock, and the main thread on
 * them.
 */
#include "scenario.h"

#define NWORKERS	3
#define COPY_NS		(1 * MS)

pthread_mutex_t		install_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t	state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	work_ready = PTHREAD_COND_INITIALIZER;
static pthread_cond_t	work_done = PTHREAD_COND_INITIALIZER;
static int		generation, done_count, hang_now, quitting;

static int		holder_chosen;		/* under install_lock */
static pid_t		worker_tids[NWORKERS];
static long long	lock_wait_ns[NWORKERS];

/* --- the workers ---------------------------------------------------- */

static FRAME void
take_lock(pthread_mutex_t *m)
{
	if ((errno = pthread_mutex_lock(m)))
		err(1, "pthread_mutex_lock");
}

static FRAME void
release_lock(pthread_mutex_t *m)
{
	if ((errno = pthread_mutex_unlock(m)))
		err(1, "pthread_mutex_unlock");
}

static volatile unsigned long payload_sum;

static FRAME void
copy_payload(int part)
{
	long long end = now_ns() + COPY_NS;
	unsigned long h = part;

	while (now_ns() < end)
		h = (h ^ (h >> 27)) * 0x3c79ac492ba7b653UL + 1;
	payload_sum += h;
}

/* The authorization that never comes: waited out to its timeout. */
static FRAME void
authorize_install(void)
{
	sleep_ns(sc.hang_ns);
}

static FRAME void
hold_install_lock(int part, int hang)
{
	long long t0 = now_ns();
	char comm[16];

	take_lock(&install_lock);
	lock_wait_ns[part] = now_ns() - t0;
	if (hang && !holder_chosen) {
		holder_chosen = 1;
		snprintf(comm, sizeof(comm), "mc-worker-%c", '1' + part);
		truth_thread("root", comm);
		truth("root_function", "hold_install_lock");
		authorize_install();
	} else
		copy_payload(part);
	release_lock(&install_lock);
}

static FRAME void
install_component(int part, int hang)
{
	hold_install_lock(part, hang);
}

static FRAME void *
worker_main(void *arg)
{
	int part = (int)(intptr_t)arg, seen = 0, hang, quit;
	char name[16];

	snprintf(name, sizeof(name), "mc-worker-%c", '1' + part);
	name_thread(name);
	__atomic_store_n(&worker_tids[part], gettid(), __ATOMIC_RELEASE);
	for (;;) {
		take_lock(&state_lock);
		while (generation == seen && !quitting)
			pthread_cond_wait(&work_ready, &state_lock);
		seen = generation;
		hang = hang_now;
		quit = quitting;
		release_lock(&state_lock);
		if (quit)
			return NULL;

		install_component(part, hang);

		take_lock(&state_lock);
		if (++done_count == NWORKERS)
			pthread_cond_signal(&work_done);
		release_lock(&state_lock);
	}
}

/* --- the main thread ------------------------------------------------ */

/* The one wake-up: every worker starts on its part at once. */
static FRAME void
wake_workers(int hang)
{
	take_lock(&state_lock);
	generation++;
	done_count = 0;
	hang_now = hang;
	pthread_cond_broadcast(&work_ready);
	release_lock(&state_lock);
}

static FRAME void
wait_for_workers(void)
{
	take_lock(&state_lock);
	while (done_count < NWORKERS)
		pthread_cond_wait(&work_done, &state_lock);
	release_lock(&state_lock);
}

static FRAME void
install_package(int hang)
{
	wake_workers(hang);
	wait_for_workers();
}

int
main(int argc, char *argv[])
{
	pthread_t workers[NWORKERS];
	char waits[128];
	int i, n, contenders;

	scenario_init(argc, argv, "mutex-contention", "LongWait");
	name_thread("mc-installer");
	truth_thread("victim", "mc-installer");
	truth("victim_function", "wait_for_workers");
	truth("lock_symbol", "install_lock");
	truth("lock_address", "%p", (void *)&install_lock);
	truth("waker_function", "wake_workers");

	for (i = 0; i < NWORKERS; i++)
		if ((errno = pthread_create(&workers[i], NULL, worker_main,
		    (void *)(intptr_t)i)))
			err(1, "pthread_create");
	for (i = 0; i < NWORKERS; i++)
		while (__atomic_load_n(&worker_tids[i], __ATOMIC_ACQUIRE) == 0)
			sleep_ns(MS);
	truth("workers", "%d,%d,%d", (int)worker_tids[0], (int)worker_tids[1],
	    (int)worker_tids[2]);

	for (i = 1; i <= sc.episodes; i++) {
		sleep_ns(SPACING_NS);
		truth_ns("episode_begin_ns", now_ns());
		mark_episode(i);
		install_package(0);
		truth_ns("episode_end_ns", now_ns());
	}
	if (sc.hang) {
		sleep_ns(SPACING_NS);
		truth_ns("hang_begin_ns", now_ns());
		mark("hang-begin");
		install_package(1);
		truth_ns("hang_end_ns", now_ns());
		/* Who blocked on the lock for most of the hang. */
		for (i = contenders = n = 0; i < NWORKERS; i++) {
			n += snprintf(waits + n, sizeof(waits) - n, "%s%lld",
			    i ? "," : "", lock_wait_ns[i] / MS);
			if (lock_wait_ns[i] > sc.hang_ns / 2)
				contenders++;
		}
		truth("lock_waits_ms", "%s", waits);
		truth("contenders", "%d", contenders);
	}

	take_lock(&state_lock);
	quitting = 1;
	pthread_cond_broadcast(&work_ready);
	release_lock(&state_lock);
	for (i = 0; i < NWORKERS; i++)
		pthread_join(workers[i], NULL);
	return 0;
}
