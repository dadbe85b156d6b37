/*
 * circular-wait: a circular wait across two processes, broken by a
 * timeout.  The paper's Chromium case: typing with an input method while
 * a page loads froze the browser for the length of a timeout, every key.
 *
 * The browser (cw-browser, the process started) asks the renderer
 * (cw-renderer, forked) where the text caret is and waits for the answer
 * with a timeout, as the browser waited 1500 ms for FirstRectForCharacter-
 * Range.  Pages also run scripts in the renderer, and a script needs the
 * browser's help: the renderer asks and blocks until the browser answers.
 * Normally the browser is idle in its loop when a script asks, so it
 * answers at once, and the renderer answers a caret question at once.
 * In the hang the key press comes while a script is starting: the
 * renderer is blocked asking the browser for help, the browser is
 * blocked asking the renderer for the caret and not listening, and the
 * browser's timeout is what breaks the cycle.  Then the browser helps,
 * the script ends and the caret answer arrives, too late.
 *
 * Two socket pairs: "view" carries the browser's requests to the
 * renderer and their answers, "host" the renderer's requests to the
 * browser and theirs.
 */
#include <sys/socket.h>

#include <poll.h>

#include "scenario.h"

enum { MSG_SCRIPT, MSG_RECT, MSG_RECT_REPLY, MSG_HELP, MSG_HELP_REPLY,
    MSG_QUIT };

struct msg {
	int	type;
	int	seq;
	int	x, y, w, h;
};

static FRAME void
send_struct(int fd, const struct msg *m)
{
	if (send(fd, m, sizeof(*m), 0) != sizeof(*m))
		err(1, "send");
}

static FRAME void
send_msg(int fd, int type, int seq)
{
	struct msg m = { .type = type, .seq = seq };

	send_struct(fd, &m);
}

/* 0 at end of file: the peer is gone. */
static FRAME int
recv_msg(int fd, struct msg *m)
{
	ssize_t n;

	if ((n = recv(fd, m, sizeof(*m), 0)) == -1)
		err(1, "recv");
	if (n != 0 && n != sizeof(*m))
		errx(1, "recv: short message");
	return n != 0;
}

/* 0 if the timeout came first. */
static FRAME int
wait_readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	while ((n = poll(&pfd, 1, timeout_ms)) == -1 && errno == EINTR)
		;
	if (n == -1)
		err(1, "poll");
	return n;
}

/* --- the renderer --------------------------------------------------- */

/* A script that needs the browser: blocks until the browser answers. */
static FRAME void
ask_browser_for_help(int host, int seq)
{
	struct msg m;

	send_msg(host, MSG_HELP, seq);
	if (!recv_msg(host, &m) || m.type != MSG_HELP_REPLY)
		errx(1, "renderer: no help from the browser");
}

static FRAME void
run_page_script(int host, int seq)
{
	ask_browser_for_help(host, seq);
}

/*
 * Laying out the text to find the caret takes the renderer a moment; so
 * the browser always comes to wait for the answer, as a real browser
 * does, rather than finding it already there on an idle second CPU.
 */
static FRAME void
answer_text_rect(int view, int seq)
{
	struct msg m = { .type = MSG_RECT_REPLY, .seq = seq,
	    .x = 10 * seq, .y = 20, .w = 2, .h = 16 };

	sleep_ns(2 * MS);
	send_struct(view, &m);
}

static FRAME void
renderer_main(int view, int host)
{
	struct msg m;

	name_thread("cw-renderer");
	while (recv_msg(view, &m)) {
		switch (m.type) {
		case MSG_SCRIPT:
			run_page_script(host, m.seq);
			break;
		case MSG_RECT:
			answer_text_rect(view, m.seq);
			break;
		case MSG_QUIT:
			return;
		}
	}
}

/* --- the browser ---------------------------------------------------- */

static int	timeout_ms;
static int	owed_replies;	/* caret answers that came too late */
static int	scripts_running; /* each will ask for help once */

static FRAME void
answer_renderer_help(int host, int seq)
{
	send_msg(host, MSG_HELP_REPLY, seq);
}

/*
 * The browser's loop while idle: help the renderer, drop stale caret
 * answers, until the deadline and until every running script has had its
 * help and every owed answer is in (however slow a loaded machine makes
 * the renderer: a normal episode must never meet a script half done).
 */
static FRAME void
serve_renderer(int view, int host, long long until)
{
	struct pollfd pfd[2] = {
		{ .fd = host, .events = POLLIN },
		{ .fd = view, .events = POLLIN },
	};
	struct msg m;
	long long left;
	int n;

	while ((left = until - now_ns()) > 0 || owed_replies > 0 ||
	    scripts_running > 0) {
		if (left <= 0)
			n = poll(pfd, 2, 5000);
		else
			n = poll(pfd, 2, (left + MS - 1) / MS);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			err(1, "poll");
		if (n == 0 && left <= 0)
			errx(1, "browser: the renderer is silent for 5 s");
		if (pfd[0].revents) {
			if (!recv_msg(host, &m))
				errx(1, "browser: renderer gone");
			answer_renderer_help(host, m.seq);
			scripts_running--;
		}
		if (pfd[1].revents) {
			if (!recv_msg(view, &m))
				errx(1, "browser: renderer gone");
			if (m.type == MSG_RECT_REPLY && owed_replies > 0) {
				owed_replies--;
				truth_ns("late_reply_ns", now_ns());
			}
		}
	}
}

/* A page starts loading: its script will ask the browser for help. */
static FRAME void
load_page(int view, int seq)
{
	send_msg(view, MSG_SCRIPT, seq);
	scripts_running++;
}

/* The key press: where is the caret?  1 if answered, 0 if timed out. */
static FRAME int
ask_renderer_for_text_rect(int view, int seq)
{
	struct msg m;

	send_msg(view, MSG_RECT, seq);
	if (!wait_readable(view, timeout_ms)) {
		owed_replies++;
		return 0;
	}
	if (!recv_msg(view, &m) || m.type != MSG_RECT_REPLY || m.seq != seq)
		errx(1, "browser: bad caret answer");
	return 1;
}

int
main(int argc, char *argv[])
{
	int view[2], host[2], i, answered;
	pid_t renderer;

	scenario_init(argc, argv, "circular-wait", "LongWait");
	timeout_ms = sc.hang_ns / MS;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, view) == -1 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, host) == -1)
		err(1, "socketpair");
	if ((renderer = fork_child()) == 0) {
		close(view[0]);
		close(host[0]);
		renderer_main(view[1], host[1]);
		_exit(0);
	}
	close(view[1]);
	close(host[1]);
	name_thread("cw-browser");

	truth_thread("victim", "cw-browser");
	truth("victim_function", "ask_renderer_for_text_rect");
	truth("root_pid", "%d", (int)renderer);
	truth("root_tid", "%d", (int)renderer);
	truth("root_comm", "cw-renderer");
	truth("root_function", "ask_browser_for_help");
	truth("cycle", "%d,%d", (int)getpid(), (int)renderer);
	truth("cycle_functions", "ask_renderer_for_text_rect,"
	    "ask_browser_for_help");
	truth("helper_function", "answer_renderer_help");
	truth("timeout_ms", "%d", timeout_ms);

	for (i = 1; i <= sc.episodes; i++) {
		load_page(view[0], i);
		serve_renderer(view[0], host[0], now_ns() + SPACING_NS / 2);
		truth_ns("episode_begin_ns", now_ns());
		mark_episode(i);
		answered = ask_renderer_for_text_rect(view[0], i);
		truth_ns("episode_end_ns", now_ns());
		if (!answered)
			errx(1, "episode %d timed out: a normal episode must not",
			    i);
		serve_renderer(view[0], host[0], now_ns() + SPACING_NS / 2);
	}
	if (sc.hang) {
		/* A key press while the page's script is starting. */
		load_page(view[0], i);
		truth_ns("hang_begin_ns", now_ns());
		mark("hang-begin");
		answered = ask_renderer_for_text_rect(view[0], i);
		truth_ns("hang_end_ns", now_ns());
		truth("timed_out", "%d", !answered);
		/* Back in its loop, the browser helps, and the answer comes. */
		serve_renderer(view[0], host[0], now_ns());
	}
	send_msg(view[0], MSG_QUIT, 0);
	reap_children();
	return 0;
}
