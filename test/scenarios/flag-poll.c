/*
 * flag-poll: the main thread polls a data flag, yielding and napping,
 * until another thread sets it.  The paper's System Preferences case:
 * disabling a monitor froze the Displays panel because its main thread
 * looped on thread_switch waiting for _gCGDidReconfigureSeen, a flag that
 * was set late (there: never, in that run).  No wake-up connects the
 * setter to the poller; only the flag does, and a trace sees that edge
 * only with a watchpoint on the flag's address.
 *
 * The preferences window (fp-prefs, main thread) clears settings_ready,
 * asks the display thread (fp-display) to apply the new settings, and
 * polls the flag: sched_yield, then a 1 ms nap, again and again.  The
 * display thread reconfigures the monitor, which means waiting for the
 * monitor to acknowledge: a millisecond for a live one; in the hang the
 * monitor is being disabled and the wait runs to its timeout.  Only then
 * does it set the flag.
 *
 * settings_ready is a plain global, volatile so that every poll is a real
 * load and the set a real store: a hardware watchpoint on its address
 * (flag_address in the truth file; the binary is PIE, so read it there)
 * sees the main thread's reads and clears and the display thread's set.
 */
#include "scenario.h"

volatile int	settings_ready;

#define NORMAL_ACK_NS	(1 * MS)

enum { REQ_APPLY, REQ_QUIT };

struct request {
	int		kind;
	int		seq;
	int		disable;	/* the hang: ground truth, not semantics */
	long long	ack_ns;		/* how long the monitor takes to answer */
};

static int		requests[2];	/* main -> display thread */
static pid_t		display_tid;

/* --- the display thread --------------------------------------------- */

/* Waiting for the monitor to acknowledge the new mode. */
static FRAME void
reconfigure_monitor(const struct request *r)
{
	sleep_ns(r->ack_ns);
}

static FRAME void
apply_settings(const struct request *r)
{
	reconfigure_monitor(r);
	settings_ready = 1;
	if (r->disable)
		truth_ns("flag_set_ns", now_ns());
}

/* 0 at end of file. */
static FRAME int
wait_for_request(struct request *r)
{
	ssize_t n;

	while ((n = read(requests[0], r, sizeof(*r))) == -1 && errno == EINTR)
		;
	if (n == -1)
		err(1, "display: read");
	if (n != 0 && n != sizeof(*r))
		errx(1, "display: short request");
	return n != 0;
}

static FRAME void *
display_main(void *arg)
{
	struct request r;

	(void)arg;
	name_thread("fp-display");
	__atomic_store_n(&display_tid, gettid(), __ATOMIC_RELEASE);
	while (wait_for_request(&r) && r.kind == REQ_APPLY)
		apply_settings(&r);
	return NULL;
}

/* --- the preferences window ----------------------------------------- */

static FRAME void
send_request(const struct request *r)
{
	if (write(requests[1], r, sizeof(*r)) != sizeof(*r))
		err(1, "prefs: write");
}

static FRAME void
yield_to_display(void)
{
	sched_yield();
	sleep_ns(MS);
}

/* The loop that spins: returns the number of polls it took. */
static FRAME long
wait_for_settings(void)
{
	long polls = 0;

	while (!settings_ready) {
		polls++;
		yield_to_display();
	}
	return polls;
}

static FRAME long
change_display_settings(int seq, int disable)
{
	struct request r = { .kind = REQ_APPLY, .seq = seq,
	    .disable = disable, .ack_ns = disable ? sc.hang_ns : NORMAL_ACK_NS };

	settings_ready = 0;
	send_request(&r);
	return wait_for_settings();
}

int
main(int argc, char *argv[])
{
	struct request quit = { .kind = REQ_QUIT };
	pthread_t display;
	long polls;
	int i;

	scenario_init(argc, argv, "flag-poll", "RepeatedYield");
	if (pipe2(requests, O_CLOEXEC) == -1)
		err(1, "pipe");
	name_thread("fp-prefs");
	truth_thread("victim", "fp-prefs");
	truth("victim_function", "wait_for_settings");
	truth("flag_symbol", "settings_ready");
	truth("flag_address", "%p", (void *)&settings_ready);
	truth("flag_size", "%zu", sizeof(settings_ready));
	truth("flag_set_value", "1");

	if ((errno = pthread_create(&display, NULL, display_main, NULL)))
		err(1, "pthread_create");
	while (__atomic_load_n(&display_tid, __ATOMIC_ACQUIRE) == 0)
		sleep_ns(MS);
	truth("root_pid", "%d", (int)getpid());
	truth("root_tid", "%d", (int)display_tid);
	truth("root_comm", "fp-display");
	truth("root_function", "reconfigure_monitor");
	truth("flag_writer_tid", "%d", (int)display_tid);
	truth("flag_writer_function", "apply_settings");

	for (i = 1; i <= sc.episodes; i++) {
		sleep_ns(SPACING_NS);
		truth_ns("episode_begin_ns", now_ns());
		mark_episode(i);
		polls = change_display_settings(i, 0);
		truth_ns("episode_end_ns", now_ns());
		truth("episode_polls", "%ld", polls);
	}
	if (sc.hang) {
		sleep_ns(SPACING_NS);
		truth_ns("hang_begin_ns", now_ns());
		mark("hang-begin");
		polls = change_display_settings(i, 1);
		truth_ns("hang_end_ns", now_ns());
		truth("polls", "%ld", polls);
	}
	send_request(&quit);
	if ((errno = pthread_join(display, NULL)))
		err(1, "pthread_join");
	return 0;
}
