/*
 * server-loop: one server thread serves several clients in one loop, and
 * sends each reply right before it receives the next request.  Two of the
 * paper's over-connections at once: fontd runs its whole server loop
 * inside one dispatch callout, serving every app in turn, and WindowServer
 * sends the reply to one request and receives the next, from another
 * process, in the same mach_msg call.  A tracer that takes a thread's run
 * between two waits for one piece of work links every client to every
 * other; the peer-set rule (a segment ends when the thread turns to a
 * different peer) is what splits it.
 *
 * The font server (sl-fontd, forked) has two clients: the editor
 * (sl-editor, the process started, whose main thread hangs) and an
 * indexer (sl-indexer, forked).  Both ask for glyphs; normally each
 * request takes a fraction of a millisecond, and the two often arrive
 * together and are served in one pass.  In the hang the indexer asks for
 * a whole font to be rendered, the server computes for seconds, and the
 * editor's request, sent just after, waits in its socket: the editor's
 * main thread is blocked on a server that is busy with someone else.
 * When the server is done it replies to the indexer and, in the same
 * pass and without waiting, receives the editor's request.
 *
 * How long the slow rendering takes is given in the request, so that the
 * hang lasts -H seconds on any machine; the work itself is real CPU.
 */
#include <sys/socket.h>

#include <poll.h>

#include "scenario.h"

/*
 * One connected socket pair per client, so that a tracer resolves every
 * message's peer from the descriptor (socket:[inode] and its peer).
 * fontd looks at its clients in a fixed order, indexer first: with the
 * indexer's request queued before the editor's, it is served first even
 * if fontd wakes to find both.
 */
enum { INDEXER, EDITOR, NCLIENTS };

struct request {
	int		seq;
	int		heavy;		/* the hang: ground truth, not semantics */
	long long	work_ns;	/* how big the job is, as time */
};

struct reply {
	int		seq;
	unsigned long	glyphs;
};

struct command {			/* editor -> indexer, and back: ack */
	int		seq;
	int		heavy;
};

#define LIGHT_WORK_NS	(300 * 1000LL)
#define HEAD_START_NS	(30 * MS)	/* server busy before the editor asks */

static FRAME void
send_all(int fd, const void *p, size_t len)
{
	if (send(fd, p, len, 0) != (ssize_t)len)
		err(1, "send");
}

/* 0 at end of file. */
static FRAME int
recv_all(int fd, void *p, size_t len)
{
	ssize_t n;

	while ((n = recv(fd, p, len, 0)) == -1 && errno == EINTR)
		;
	if (n == -1)
		err(1, "recv");
	if (n != 0 && n != (ssize_t)len)
		errx(1, "recv: short message");
	return n != 0;
}

/* --- the font server ------------------------------------------------ */

static FRAME unsigned long
rasterize_glyphs(long long work_ns)
{
	long long end = now_ns() + work_ns;
	unsigned long h = 0, n = 0;
	int i;

	do {
		for (i = 0; i < 512; i++)
			h = (h ^ (h >> 31)) * 0x94d049bb133111ebUL + n;
		n++;
	} while (now_ns() < end);	/* vDSO: no syscall */
	return n + (h & 1);
}

static FRAME void
lookup_glyphs(const struct request *req, struct reply *rep)
{
	rep->glyphs = rasterize_glyphs(req->work_ns);
}

/* The root cause: seconds of work for one client while others wait. */
static FRAME void
serve_slow_client(const struct request *req, struct reply *rep)
{
	truth_ns("slow_serve_begin_ns", now_ns());
	rep->glyphs = rasterize_glyphs(req->work_ns);
	truth_ns("slow_serve_end_ns", now_ns());
}

static FRAME void
serve_request(const struct request *req, struct reply *rep)
{
	rep->seq = req->seq;
	if (req->heavy)
		serve_slow_client(req, rep);
	else
		lookup_glyphs(req, rep);
}

static int		clients[NCLIENTS];
static int		open_clients = NCLIENTS;

/* A request already queued, from the first client in order that has one. */
static FRAME int
receive_queued(struct request *req)
{
	ssize_t n;
	int c;

	for (c = 0; c < NCLIENTS; c++) {
		if (clients[c] == -1)
			continue;
		n = recv(clients[c], req, sizeof(*req), MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n == -1)
			err(1, "fontd: recv");
		if (n == 0) {		/* that client is gone */
			close(clients[c]);
			clients[c] = -1;
			open_clients--;
			continue;
		}
		if (n != sizeof(*req))
			errx(1, "fontd: short request");
		return c;
	}
	return -1;
}

static FRAME void
wait_for_clients(void)
{
	struct pollfd pfd[NCLIENTS];
	int c;

	for (c = 0; c < NCLIENTS; c++) {
		pfd[c].fd = clients[c];
		pfd[c].events = POLLIN;
	}
	if (poll(pfd, NCLIENTS, -1) == -1 && errno != EINTR)
		err(1, "fontd: poll");
}

/*
 * Send the reply to the last request, then take the next request, from
 * whichever client has one queued: WindowServer does both in one
 * mach_msg; Linux has no such call, so here they are back to back, and
 * the server waits only if nothing is queued.  Returns the client, or -1
 * when all are gone.
 */
static FRAME int
reply_and_receive(int to, const struct reply *rep, struct request *req,
    int *waited)
{
	int c;

	if (to != -1)
		send_all(clients[to], rep, sizeof(*rep));
	*waited = 0;
	while ((c = receive_queued(req)) == -1) {
		if (open_clients == 0)
			return -1;
		wait_for_clients();
		*waited = 1;
	}
	return c;
}

static FRAME void
serve_clients(void)
{
	struct request req;
	struct reply rep;
	int c, to = -1, slow = 0, waited;

	while ((c = reply_and_receive(to, &rep, &req, &waited)) != -1) {
		if (slow && c == EDITOR && !waited)
			truth("reply_then_receive", "1");
		serve_request(&req, &rep);
		slow = req.heavy;
		to = c;
	}
}

/* --- the indexer ---------------------------------------------------- */

static FRAME void
request_font_render(int fontd, const struct command *cmd)
{
	struct request req = { .seq = cmd->seq, .heavy = cmd->heavy,
	    .work_ns = cmd->heavy ? sc.hang_ns + HEAD_START_NS : LIGHT_WORK_NS };

	send_all(fontd, &req, sizeof(req));
}

static FRAME void
indexer_main(int fontd, int ctl)
{
	struct command cmd;
	struct reply rep;

	name_thread("sl-indexer");
	while (recv_all(ctl, &cmd, sizeof(cmd))) {
		request_font_render(fontd, &cmd);
		send_all(ctl, &cmd, sizeof(cmd));	/* sent: go on */
		if (!recv_all(fontd, &rep, sizeof(rep)))
			errx(1, "indexer: fontd gone");
	}
}

/* --- the editor ----------------------------------------------------- */

/* Tell the indexer to ask fontd for something; back once it has asked. */
static FRAME void
start_indexing(int ctl, int seq, int heavy)
{
	struct command cmd = { .seq = seq, .heavy = heavy };

	send_all(ctl, &cmd, sizeof(cmd));
	if (!recv_all(ctl, &cmd, sizeof(cmd)))
		errx(1, "editor: indexer gone");
}

/* The editor's main thread asks fontd to measure a line, and waits. */
static FRAME void
measure_text_with_fontd(int fontd, int seq)
{
	struct request req = { .seq = seq, .work_ns = LIGHT_WORK_NS };
	struct reply rep;

	send_all(fontd, &req, sizeof(req));
	if (!recv_all(fontd, &rep, sizeof(rep)) || rep.seq != seq)
		errx(1, "editor: bad reply from fontd");
}

int
main(int argc, char *argv[])
{
	int ed[2], ix[2], ctl[2], i;
	pid_t fontd, indexer;

	scenario_init(argc, argv, "server-loop", "LongWait");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ed) == -1 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ix) == -1 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) == -1)
		err(1, "socketpair");
	name_thread("sl-editor");
	truth_thread("victim", "sl-editor");
	truth("victim_function", "measure_text_with_fontd");

	if ((fontd = fork_child()) == 0) {
		name_thread("sl-fontd");
		close(ed[0]);
		close(ix[0]);
		close(ctl[0]);
		close(ctl[1]);
		clients[EDITOR] = ed[1];
		clients[INDEXER] = ix[1];
		serve_clients();
		_exit(0);
	}
	truth("root_pid", "%d", (int)fontd);
	truth("root_tid", "%d", (int)fontd);
	truth("root_comm", "sl-fontd");
	truth("root_function", "serve_slow_client");
	truth("server_loop_function", "reply_and_receive");
	if ((indexer = fork_child()) == 0) {
		close(ed[0]);
		close(ed[1]);
		close(ix[1]);
		close(ctl[0]);
		indexer_main(ix[0], ctl[1]);
		_exit(0);
	}
	truth("trigger_pid", "%d", (int)indexer);
	truth("trigger_tid", "%d", (int)indexer);
	truth("trigger_comm", "sl-indexer");
	truth("trigger_function", "request_font_render");
	close(ed[1]);
	close(ix[0]);
	close(ix[1]);
	close(ctl[1]);

	for (i = 1; i <= sc.episodes; i++) {
		sleep_ns(SPACING_NS);
		truth_ns("episode_begin_ns", now_ns());
		mark_episode(i);
		start_indexing(ctl[0], i, 0);
		measure_text_with_fontd(ed[0], i);
		truth_ns("episode_end_ns", now_ns());
	}
	if (sc.hang) {
		/* The indexer's big request is queued before the editor's. */
		sleep_ns(SPACING_NS);
		start_indexing(ctl[0], i, 1);
		sleep_ns(HEAD_START_NS);
		truth_ns("hang_begin_ns", now_ns());
		mark("hang-begin");
		measure_text_with_fontd(ed[0], i);
		truth_ns("hang_end_ns", now_ns());
	}
	close(ctl[0]);		/* the indexer leaves, then fontd */
	close(ed[0]);
	reap_children();
	return 0;
}
