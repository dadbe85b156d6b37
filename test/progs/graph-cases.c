/*
 * Small programs whose event graphs are known, for test/bats/graph.bats:
 *
 *   graph-cases pingpong   two processes, a byte back and forth over pipes
 *   graph-cases tcp        a request and its reply over loopback TCP
 *   graph-cases mutex      one thread hands a mutex to another
 *   graph-cases sleep      a timed sleep
 *   graph-cases server     one server loop answers two clients in a row
 *
 * Each prints "key=value" lines with the ids a test needs, and spaces its
 * steps by tens of milliseconds so that they are apart in a trace.
 */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <err.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS	5

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1)
		;
}

static int
tid(void)
{
	return syscall(SYS_gettid);
}

static void
xwrite(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		err(1, "write");
}

static void
xread(int fd, void *p, size_t n)
{
	if (read(fd, p, n) != (ssize_t)n)
		err(1, "read");
}

static void
reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		errx(1, "child %d failed", (int)pid);
}

/* The parent pings, the child pongs; the child's reads always block. */
static int
pingpong(void)
{
	int ping[2], pong[2], i;
	char c = 'x';
	pid_t pid;

	if (pipe(ping) == -1 || pipe(pong) == -1)
		err(1, "pipe");
	if ((pid = fork()) == 0) {
		for (i = 0; i < ROUNDS; i++) {
			xread(ping[0], &c, 1);
			/*
			 * Not at once: woken on the pinger's CPU, the ponger
			 * preempts it and would answer before the pinger
			 * reads, every round on a busy machine.
			 */
			nap(20);
			xwrite(pong[1], &c, 1);
		}
		_exit(0);
	}
	printf("ping_pid=%d\npong_pid=%d\nrounds=%d\n", getpid(), pid, ROUNDS);
	fflush(stdout);
	for (i = 0; i < ROUNDS; i++) {
		nap(20);
		xwrite(ping[1], &c, 1);
		xread(pong[0], &c, 1);
	}
	reap(pid);
	return 0;
}

/* A client asks a server over loopback TCP, and waits for the answer. */
static int
tcp(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int l, s, c, one = 1, i;
	char buf[64];
	pid_t pid;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) == -1 ||
	    listen(l, 1) == -1 ||
	    getsockname(l, (struct sockaddr *)&a, &len) == -1)
		err(1, "listen");
	if ((pid = fork()) == 0) {
		if ((s = accept(l, NULL, NULL)) == -1)
			err(1, "accept");
		for (i = 0; i < ROUNDS; i++) {
			xread(s, buf, 8);
			nap(5);		/* the work the request asks for */
			xwrite(s, "answer!!", 8);
		}
		_exit(0);
	}
	if ((c = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1 ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)) == -1)
		err(1, "connect");
	printf("client_pid=%d\nserver_pid=%d\nrounds=%d\n", getpid(), pid,
	    ROUNDS);
	fflush(stdout);
	for (i = 0; i < ROUNDS; i++) {
		nap(20);
		xwrite(c, "request!", 8);
		xread(c, buf, 8);
	}
	reap(pid);
	return 0;
}

/* The main thread holds the mutex while the other blocks on it. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int waiter_tid;

static void *
waiter(void *arg)
{
	(void)arg;
	waiter_tid = tid();
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static int
mutex(void)
{
	pthread_t t;

	pthread_mutex_lock(&lock);
	if (pthread_create(&t, NULL, waiter, NULL) != 0)
		errx(1, "pthread_create");
	nap(50);		/* long enough for the waiter to block */
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	printf("pid=%d\nholder_tid=%d\nwaiter_tid=%d\n", getpid(), tid(),
	    waiter_tid);
	return 0;
}

static int
sleeper(void)
{
	printf("pid=%d\nsleep_ms=100\n", getpid());
	fflush(stdout);
	nap(100);
	return 0;
}

/*
 * Two clients send their requests first; then the server, without waiting
 * in between, reads and answers one, then the other: one loop, two peers.
 */
static int
server(void)
{
	int a[2], b[2];
	pid_t ca, cb;
	char buf[8];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, a) == -1 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, b) == -1)
		err(1, "socketpair");
	if ((ca = fork()) == 0) {
		xwrite(a[1], "client-a", 8);
		xread(a[1], buf, 8);
		_exit(0);
	}
	if ((cb = fork()) == 0) {
		xwrite(b[1], "client-b", 8);
		xread(b[1], buf, 8);
		_exit(0);
	}
	nap(100);		/* both requests are queued, both clients wait */
	xread(a[0], buf, 8);
	xwrite(a[0], "answer-a", 8);
	xread(b[0], buf, 8);
	xwrite(b[0], "answer-b", 8);
	printf("server_pid=%d\nclient_a=%d\nclient_b=%d\n", getpid(), ca, cb);
	fflush(stdout);
	reap(ca);
	reap(cb);
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct {
		const char *name;
		int (*run)(void);
	} cases[] = {
		{ "pingpong", pingpong }, { "tcp", tcp }, { "mutex", mutex },
		{ "sleep", sleeper }, { "server", server },
	};
	size_t i;

	for (i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(argv[1], cases[i].name) == 0)
			return cases[i].run();
	fprintf(stderr, "usage: graph-cases pingpong|tcp|mutex|sleep|server\n");
	return 64;
}
