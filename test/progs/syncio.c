/*
 * syncio: a synchronous call over I/O threads through a relay, as a
 * browser's renderer makes one (a sync IPC to its network service, which
 * asks a web server), for test/bats/patterns.bats.
 *
 *	syncio TRUTH
 *
 * In this process the main thread hands each request to a worker and
 * waits for it; the worker sends it to a relay process and waits, with a
 * timeout, on a condition; an I/O thread polls the relay's channel and
 * signals the worker when the answer comes.  The relay's one thread
 * polls too: for each request it connects to a backend process, whose
 * listener starts a thread per connection, and passes the answer back.
 * A peer process pings both I/O threads every 20 ms, so that both talk
 * to someone else all through the hang.  Three quick requests, then one
 * the backend's thread answers after sleeping 3 s: the backend is the
 * cause, not the peer, nor the worker whose wait nobody names, nor the
 * backend's thread of a quick request, which is gone.
 *
 * Appends key=value lines to TRUTH: root_pid (the backend), relay_pid,
 * other_peer, victim_pid, hang_begin_ns and hang_end_ns (CLOCK_MONOTONIC).
 */
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <err.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LIFETIME	20	/* seconds: the children end by then */

static pthread_mutex_t	lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t	reply_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t	done_cv = PTHREAD_COND_INITIALIZER;
static int		work, replied, done;
static char		request;
static int		relay_fd, ping_fd;
static FILE		*truth;
static struct sockaddr_un backend_addr;
static socklen_t	backend_len;

static uint64_t
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
say(const char *key, unsigned long long v)
{
	fprintf(truth, "%s=%llu\n", key, v);
	fflush(truth);
}

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

/* A child that dies with this process, however the test ends it. */
static pid_t
child(void)
{
	pid_t pid;

	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(LIFETIME);
	}
	return pid;
}

static void
add(int ep, int fd)
{
	struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) == -1)
		err(1, "epoll_ctl");
}

/* The answer to one connection's request, a slow one after 3 s. */
static void *
answer(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char c;

	if (read(fd, &c, 1) == 1) {
		if (c == 's')
			nap(3000);
		if (write(fd, "k", 1) != 1)
			warn("backend: write");
	}
	close(fd);
	return NULL;
}

static void
backend(int ls)
{
	pthread_t t;
	int fd;

	while ((fd = accept(ls, NULL, NULL)) != -1)
		if (pthread_create(&t, NULL, answer, (void *)(intptr_t)fd) == 0)
			pthread_detach(t);
	_exit(0);
}

/* One thread: requests from up in, each to the backend, answers back up. */
static void
relay(int up, int ping)
{
	struct epoll_event ev[8];
	char c, buf[8];
	int ep, n, i, fd;

	if ((ep = epoll_create1(0)) == -1)
		err(1, "epoll_create1");
	add(ep, up);
	add(ep, ping);
	for (;;) {
		if ((n = epoll_wait(ep, ev, 8, -1)) == -1)
			continue;
		for (i = 0; i < n; i++) {
			fd = ev[i].data.fd;
			if (fd == ping) {
				if (read(ping, buf, sizeof(buf)) <= 0 ||
				    write(ping, "q", 1) != 1)
					_exit(0);
			} else if (fd == up) {
				if (read(up, &c, 1) != 1)
					_exit(0);
				if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) ==
				    -1 || connect(fd, (struct sockaddr *)
				    &backend_addr, backend_len) == -1)
					err(1, "relay: connect");
				if (write(fd, &c, 1) != 1)
					err(1, "relay: write");
				add(ep, fd);
			} else {
				if (read(fd, &c, 1) == 1 &&
				    write(up, &c, 1) != 1)
					_exit(0);
				close(fd);
			}
		}
	}
}

/* Pings each of its sockets every 20 ms; each answers. */
static void
peer(int a, int b)
{
	char buf[8];

	while (write(a, "p", 1) == 1 && read(a, buf, sizeof(buf)) > 0 &&
	    write(b, "p", 1) == 1 && read(b, buf, sizeof(buf)) > 0)
		nap(20);
	_exit(0);
}

static void *
io(void *arg)
{
	struct epoll_event ev[2];
	char buf[8];
	int ep, n, i;

	(void)arg;
	if ((ep = epoll_create1(0)) == -1)
		err(1, "epoll_create1");
	add(ep, relay_fd);
	add(ep, ping_fd);
	for (;;) {
		if ((n = epoll_wait(ep, ev, 2, -1)) == -1)
			continue;
		for (i = 0; i < n; i++) {
			if (read(ev[i].data.fd, buf, sizeof(buf)) <= 0)
				return NULL;
			if (ev[i].data.fd == ping_fd) {
				if (write(ping_fd, "q", 1) != 1)
					return NULL;
				continue;
			}
			pthread_mutex_lock(&lock);
			replied = 1;
			pthread_cond_signal(&reply_cv);
			pthread_mutex_unlock(&lock);
		}
	}
}

static void *
worker(void *arg)
{
	struct timespec until;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		while (!work)
			pthread_cond_wait(&work_cv, &lock);
		work = replied = 0;
		pthread_mutex_unlock(&lock);
		if (write(relay_fd, &request, 1) != 1)
			err(1, "write");
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 10;
		pthread_mutex_lock(&lock);
		while (!replied &&
		    pthread_cond_timedwait(&reply_cv, &lock, &until) == 0)
			;
		done = 1;
		pthread_cond_signal(&done_cv);
		pthread_mutex_unlock(&lock);
	}
}

static void
call(char req)
{
	pthread_mutex_lock(&lock);
	request = req;
	done = 0;
	work = 1;
	pthread_cond_signal(&work_cv);
	while (!done)
		pthread_cond_wait(&done_cv, &lock);
	pthread_mutex_unlock(&lock);
}

int
main(int argc, char *argv[])
{
	pthread_t t;
	pid_t be, re, pr;
	int ls, up[2], p1[2], p2[2], i;

	if (argc != 2)
		errx(64, "usage: syncio TRUTH");
	if ((truth = fopen(argv[1], "a")) == NULL)
		err(1, "%s", argv[1]);
	/* An abstract address: no file to leave behind. */
	backend_addr.sun_family = AF_UNIX;
	snprintf(backend_addr.sun_path + 1, sizeof(backend_addr.sun_path) - 1,
	    "argus-syncio-%d", (int)getpid());
	backend_len = offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(backend_addr.sun_path + 1);
	if ((ls = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(ls, (struct sockaddr *)&backend_addr, backend_len) == -1 ||
	    listen(ls, 8) == -1)
		err(1, "backend socket");
	/* Before the others' sockets: it holds none of their ends. */
	if ((be = child()) == 0)
		backend(ls);
	close(ls);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, up) == -1 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, p1) == -1 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, p2) == -1)
		err(1, "socketpair");
	if ((re = child()) == 0) {
		close(up[0]);
		close(p1[0]);
		close(p1[1]);
		close(p2[0]);
		relay(up[1], p2[1]);
	}
	close(up[1]);
	close(p2[1]);
	if ((pr = child()) == 0) {
		close(up[0]);
		close(p1[1]);
		peer(p1[0], p2[0]);
	}
	close(p1[0]);
	close(p2[0]);
	relay_fd = up[0];
	ping_fd = p1[1];
	say("root_pid", be);
	say("relay_pid", re);
	say("other_peer", pr);
	if (pthread_create(&t, NULL, io, NULL) != 0 ||
	    pthread_create(&t, NULL, worker, NULL) != 0)
		errx(1, "pthread_create");
	for (i = 0; i < 3; i++) {
		call('g');
		nap(200);
	}
	say("victim_pid", getpid());
	say("hang_begin_ns", mono());
	call('s');
	say("hang_end_ns", mono());
	kill(be, SIGTERM);
	kill(re, SIGTERM);
	kill(pr, SIGTERM);
	waitpid(be, NULL, 0);
	waitpid(re, NULL, 0);
	waitpid(pr, NULL, 0);
	return 0;
}
