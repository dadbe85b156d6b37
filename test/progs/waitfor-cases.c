/*
 * Waits whose other end is known, for argus-waitfor's tests: each case
 * sets one up between processes (or threads), prints who waits and who
 * holds the other end, and blocks until killed.
 *
 *	waitfor-cases pipe|unix|tcp|tcp-queued|tcp-mapped|udp|unix-full|
 *	    abstract-full|tcp-full|posix|ofd|lease|epoll|mutex|rwlock-r|
 *	    rwlock-w|pshared|exited|ptrace|join|tidword|shm-spin|shm-nap|
 *	    fanotify|fuse|vfork|mq|pidfd|seccomp|userfault
 *
 * prints "waiter PID TID", "holder PID TID" (fuse: and "other PID TID", a
 * daemon that is not the holder; userfault: a process that holds an idle
 * userfaultfd; vfork: no holder, which is the child it makes after) and
 * "ready", or "unsupported" where the kernel cannot (fanotify, fuse,
 * seccomp, userfault).  Every process
 * dies with the first (PR_SET_PDEATHSIG) and after a minute in any case,
 * so a test that fails leaves nothing behind.
 */
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <linux/fanotify.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>

#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fusefile.h"

#define LIFETIME	60

static int
tid(void)
{
	return syscall(SYS_gettid);
}

static void
say(const char *who, int pid, int t)
{
	printf("%s %d %d\n", who, pid, t);
	fflush(stdout);
}

static void
ready(void)
{
	puts("ready");
	fflush(stdout);
}

/* A child that dies with us; it runs fn and never returns. */
static pid_t
child(void (*fn)(void *), void *arg)
{
	pid_t parent = getpid(), pid;

	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		fn(arg);
		_exit(0);
	}
	return pid;
}

static void
hold(void *arg)
{
	(void)arg;
	for (;;)
		pause();
}

static void
hold_closing(void *arg)
{
	close(*(int *)arg);	/* the end the other side uses */
	hold(NULL);
}

/* A thread reads a pipe whose write end only a child holds. */
static void
case_pipe(void)
{
	int p[2];
	pid_t c;
	char b;

	if (pipe(p) == -1)
		err(1, "pipe");
	c = child(hold_closing, &p[0]);
	close(p[1]);
	say("waiter", getpid(), tid());
	say("holder", c, c);
	ready();
	if (read(p[0], &b, 1) == -1)
		err(1, "read");
}

/*
 * A receive on an empty POSIX message queue, which a child holds open
 * for sending; the waiter's own descriptor reads only.
 */
static void
case_mq(void)
{
	struct mq_attr a = { .mq_maxmsg = 4, .mq_msgsize = 16 };
	char name[64], b[16];
	mqd_t q, w;
	pid_t c;

	snprintf(name, sizeof(name), "/waitfor-cases-%d", (int)getpid());
	if ((q = mq_open(name, O_CREAT | O_EXCL | O_RDONLY, 0600, &a)) ==
	    (mqd_t)-1) {
		if (errno == ENOSYS) {
			puts("unsupported");
			fflush(stdout);
			exit(0);
		}
		err(1, "mq_open %s", name);
	}
	if ((w = mq_open(name, O_WRONLY)) == (mqd_t)-1)
		err(1, "mq_open %s", name);
	mq_unlink(name);
	c = child(hold_closing, &q);
	mq_close(w);
	say("waiter", getpid(), tid());
	say("holder", c, c);
	ready();
	if (mq_receive(q, b, sizeof(b), NULL) == -1)
		err(1, "mq_receive");
}

/* A poll of a child's pidfd, which its exit would make readable. */
static void
case_pidfd(void)
{
	struct pollfd p = { .events = POLLIN };
	pid_t c = child(hold, NULL);

	if ((p.fd = syscall(SYS_pidfd_open, c, 0)) == -1) {
		if (errno == ENOSYS) {
			puts("unsupported");
			fflush(stdout);
			exit(0);
		}
		err(1, "pidfd_open");
	}
	say("waiter", getpid(), tid());
	say("holder", c, c);
	ready();
	if (poll(&p, 1, -1) == -1)
		err(1, "poll");
}

static void
case_unix(void)
{
	int sv[2];
	pid_t c;
	char b;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		err(1, "socketpair");
	c = child(hold_closing, &sv[0]);
	close(sv[1]);
	say("waiter", getpid(), tid());
	say("holder", c, c);
	ready();
	if (read(sv[0], &b, 1) == -1)
		err(1, "read");
}

static struct sockaddr_in server;
static int v6_client;		/* tcp-mapped */

/* A client that asks and waits for an answer that never comes. */
static void
client(void *arg)
{
	struct sockaddr_in6 mapped;
	int s;
	char b;

	(void)arg;
	/*
	 * tcp-mapped: an IPv6 socket to the IPv4 server, by its v4-mapped
	 * address (as a JVM connects).
	 */
	memset(&mapped, 0, sizeof(mapped));
	mapped.sin6_family = AF_INET6;
	mapped.sin6_port = server.sin_port;
	mapped.sin6_addr.s6_addr[10] = mapped.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&mapped.sin6_addr.s6_addr[12], &server.sin_addr, 4);
	if (v6_client) {
		if ((s = socket(AF_INET6, SOCK_STREAM, 0)) == -1 ||
		    connect(s, (struct sockaddr *)&mapped,
		    sizeof(mapped)) == -1)
			err(1, "connect");
	} else if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&server, sizeof(server)) == -1)
		err(1, "connect");
	if (write(s, "?", 1) != 1 || read(s, &b, 1) == -1)
		err(1, "client");
}

/* accept: 0 leaves the connection in the listener's queue, unanswered. */
static void
case_tcp(int accepts)
{
	socklen_t len = sizeof(server);
	int l, one = 1, conn;
	pid_t c;

	server.sin_family = AF_INET;
	server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    bind(l, (struct sockaddr *)&server, sizeof(server)) == -1 ||
	    listen(l, 1) == -1 ||
	    getsockname(l, (struct sockaddr *)&server, &len) == -1)
		err(1, "listen");
	c = child(client, NULL);
	if (accepts && (conn = accept(l, NULL, NULL)) == -1)
		err(1, "accept");
	say("waiter", c, c);
	say("holder", getpid(), tid());
	ready();
	hold(NULL);
}

/*
 * A datagram client connected to a server's socket, which is only bound
 * (it answers whoever asks): it asked, and waits for the answer.
 */
static void
datagram_client(void *arg)
{
	int s;
	char b;

	(void)arg;
	if ((s = socket(AF_INET, SOCK_DGRAM, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&server, sizeof(server)) == -1)
		err(1, "connect");
	if (write(s, "?", 1) != 1 || read(s, &b, 1) == -1)
		err(1, "client");
}

static void
case_udp(void)
{
	socklen_t len = sizeof(server);
	int s;
	pid_t c;

	server.sin_family = AF_INET;
	server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_DGRAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&server, sizeof(server)) == -1 ||
	    getsockname(s, (struct sockaddr *)&server, &len) == -1)
		err(1, "bind");
	c = child(datagram_client, NULL);
	say("waiter", c, c);
	say("holder", getpid(), tid());
	ready();
	hold(NULL);
}

static const char *lockfile;

/* A listener's address for case_full(): a file's, an abstract name's, TCP's. */
static struct sockaddr_storage full_addr;
static socklen_t full_len;

/*
 * A client that connects twice: the first fills the queue of a listener
 * that never accepts (backlog 0), the second waits for room in it.
 */
static void
connector(void *arg)
{
	int i, s;

	(void)arg;
	for (i = 0; i < 2; i++)
		if ((s = socket(full_addr.ss_family, SOCK_STREAM, 0)) == -1 ||
		    connect(s, (struct sockaddr *)&full_addr, full_len) == -1)
			err(1, "connect");
	hold(NULL);
}

/* kind: 'f' a unix socket's file, 'a' an abstract name, 't' TCP. */
static void
case_full(int kind)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&full_addr;
	struct sockaddr_in *in = (struct sockaddr_in *)&full_addr;
	int l;
	pid_t c;

	memset(&full_addr, 0, sizeof(full_addr));
	if (kind == 't') {
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		full_len = sizeof(*in);
	} else {
		un->sun_family = AF_UNIX;
		snprintf(un->sun_path + (kind == 'a'), sizeof(un->sun_path) - 1,
		    "%s.sock", lockfile);
		if (kind == 'f')
			unlink(un->sun_path);
		full_len = offsetof(struct sockaddr_un, sun_path) +
		    (kind == 'a') + strlen(un->sun_path + (kind == 'a'));
	}
	if ((l = socket(full_addr.ss_family, SOCK_STREAM, 0)) == -1 ||
	    bind(l, (struct sockaddr *)&full_addr, full_len) == -1 ||
	    listen(l, 0) == -1 ||
	    getsockname(l, (struct sockaddr *)&full_addr, &full_len) == -1)
		err(1, "listen");
	c = child(connector, NULL);
	say("waiter", c, c);
	say("holder", getpid(), tid());
	ready();
	hold(NULL);
}

static void
setlk(int fd, int cmd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (fcntl(fd, cmd, &fl) == -1)
		err(1, "fcntl %s", lockfile);
}

static int held = -1;

static void
lock_waiter(void *cmd)
{
	int fd;

	close(held);	/* the holder's, not ours: the lock is on it */
	fd = open(lockfile, O_RDWR);

	if (fd == -1)
		err(1, "%s", lockfile);
	setlk(fd, *(int *)cmd);
}

/* A lock held by us, waited for by a child: POSIX, or OFD (no pid). */
static void
case_lock(int setlk_cmd, int setlkw_cmd)
{
	int fd;
	pid_t c;

	if ((fd = open(lockfile, O_RDWR | O_CREAT, 0600)) == -1)
		err(1, "%s", lockfile);
	setlk(fd, setlk_cmd);
	held = fd;
	c = child(lock_waiter, &setlkw_cmd);
	say("waiter", c, c);
	say("holder", getpid(), tid());
	/* The child is blocked once the kernel lists it as a waiter. */
	sleep(1);
	ready();
	hold(NULL);
}

static void
lease_breaker(void *arg)
{
	(void)arg;
	close(held);
	if (open(lockfile, O_WRONLY) == -1)
		err(1, "%s", lockfile);
}

/*
 * We hold a read lease on the file and never give it up (SIGIO, which
 * tells us of the break, ignored); a child's open for writing waits in
 * the kernel until we do, or until lease-break-time is over (45 s by
 * default: longer than a test).
 */
static void
case_lease(void)
{
	pid_t c;

	signal(SIGIO, SIG_IGN);
	if ((held = open(lockfile, O_RDONLY | O_CREAT, 0600)) == -1)
		err(1, "%s", lockfile);
	if (fcntl(held, F_SETLEASE, F_RDLCK) == -1)
		err(1, "F_SETLEASE %s", lockfile);
	c = child(lease_breaker, NULL);
	say("waiter", c, c);
	say("holder", getpid(), tid());
	sleep(1);
	ready();
	hold(NULL);
}

static void
case_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int p[2], ep;
	pid_t c;

	if (pipe(p) == -1 || (ep = epoll_create1(0)) == -1)
		err(1, "epoll");
	ev.data.fd = p[0];
	if (epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == -1)
		err(1, "epoll_ctl");
	c = child(hold_closing, &p[0]);
	close(p[1]);
	say("waiter", getpid(), tid());
	say("holder", c, c);
	ready();
	epoll_wait(ep, &out, 1, 100 * 1000);
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile int holder_tid;

/* A thread that holds the mutex, then nothing. */
static void *
owner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mutex);
	say("holder", getpid(), tid());
	holder_tid = tid();
	hold(NULL);
	return NULL;
}

/* A thread that never ends. */
static void *
worker(void *arg)
{
	(void)arg;
	say("holder", getpid(), tid());
	holder_tid = tid();
	hold(NULL);
	return NULL;
}

/* The holder thread started and settled; this one is the waiter. */
static pthread_t
holder_thread(void *(*fn)(void *))
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, NULL) != 0)
		errx(1, "pthread_create");
	while (!holder_tid)
		usleep(1000);
	say("waiter", getpid(), tid());
	return t;
}

static void
case_mutex(void)
{
	holder_thread(owner);
	ready();
	pthread_mutex_lock(&mutex);
}

static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static int rw_write;		/* rwlock-w: we wait to write, not read */

static void *
rw_writer(void *arg)
{
	(void)arg;
	pthread_rwlock_wrlock(&rwlock);
	say("holder", getpid(), tid());
	holder_tid = tid();
	hold(NULL);
	return NULL;
}

/* A thread holds a rwlock for writing; we wait to read it, or write. */
static void
case_rwlock(void)
{
	holder_thread(rw_writer);
	ready();
	if (rw_write)
		pthread_rwlock_wrlock(&rwlock);
	else
		pthread_rwlock_rdlock(&rwlock);
}

static void
lock_and_hold(void *m)
{
	pthread_mutex_lock(m);
	hold(NULL);
}

/*
 * A process-shared mutex in a file both processes map: a child holds it,
 * we wait for it.
 */
static void
case_pshared(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t *m;
	int fd, i;
	pid_t c;

	if ((fd = open(lockfile, O_RDWR | O_CREAT, 0600)) == -1 ||
	    ftruncate(fd, 4096) == -1)
		err(1, "%s", lockfile);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		err(1, "mmap");
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(m, &a);
	c = child(lock_and_hold, m);
	for (i = 0; i < 100 && pthread_mutex_trylock(m) == 0; i++) {
		pthread_mutex_unlock(m);
		usleep(10000);
	}
	say("waiter", getpid(), tid());
	say("holder", c, c);
	ready();
	pthread_mutex_lock(m);
}

static pthread_mutex_t left_locked = PTHREAD_MUTEX_INITIALIZER;

static void *
lock_and_exit(void *arg)
{
	(void)arg;
	holder_tid = tid();
	pthread_mutex_lock(&left_locked);
	return NULL;
}

/* A worker exits holding a mutex (an error path that forgot it). */
static void
case_exited(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, lock_and_exit, NULL) != 0)
		errx(1, "pthread_create");
	pthread_join(t, NULL);
	say("waiter", getpid(), tid());
	say("holder", getpid(), holder_tid);
	ready();
	pthread_mutex_lock(&left_locked);
}

/* pthread_join of a worker that never ends: a futex wait on its id. */
static void
case_join(void)
{
	pthread_t t = holder_thread(worker);

	ready();
	pthread_join(t, NULL);
}

/*
 * A futex wait for a value that is a worker's id, on a word of its own
 * (a counter that came to equal it): no join, nobody named.
 */
static void
case_tidword(void)
{
	static uint32_t word;

	holder_thread(worker);
	word = holder_tid;
	ready();
	syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, word, NULL, NULL, 0);
	hold(NULL);
}

static void
traced(void *arg)
{
	(void)arg;
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == -1)
		err(1, "PTRACE_TRACEME");
	raise(SIGSTOP);
}

/* A child stopped for its tracer (ptrace), which never resumes it. */
static void
case_ptrace(void)
{
	pid_t c = child(traced, NULL);
	int st;

	if (waitpid(c, &st, WUNTRACED) == -1 || !WIFSTOPPED(st))
		errx(1, "the child did not stop");
	say("waiter", c, c);
	say("holder", getpid(), tid());
	ready();
	hold(NULL);
}

static int fan_fd = -1;

/* A child's open of a file in the marked directory: held for our answer. */
static void
open_marked(void *path)
{
	close(fan_fd);	/* the group is its parent's alone */
	close(open(path, O_RDONLY));
	hold(NULL);
}

/*
 * A fanotify listener that takes permission events on a directory's
 * files, reads them and never answers: a child's open there waits for it.
 * "unsupported" where the kernel has no permission events.
 */
static void
case_fanotify(void)
{
	char dir[] = "/tmp/waitfor-fanotify.XXXXXX", path[64], buf[4096];
	int fd, f;
	pid_t c;

	if (mkdtemp(dir) == NULL)
		err(1, "mkdtemp");
	snprintf(path, sizeof(path), "%s/file", dir);
	if ((f = open(path, O_WRONLY | O_CREAT, 0600)) == -1)
		err(1, "%s", path);
	close(f);
	fan_fd = fd = syscall(SYS_fanotify_init,
	    FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (fd == -1 || syscall(SYS_fanotify_mark, fd, FAN_MARK_ADD,
	    FAN_OPEN_PERM | FAN_EVENT_ON_CHILD, AT_FDCWD, dir) == -1) {
		puts("unsupported");
		fflush(stdout);
		unlink(path);
		rmdir(dir);
		return;
	}
	c = child(open_marked, path);
	say("waiter", c, c);
	say("holder", getpid(), tid());
	/*
	 * Once the child's open is held, its files can go: it goes on,
	 * allowed, when we die.
	 */
	if (read(fd, buf, sizeof(buf)) <= 0)
		err(1, "fanotify read");
	unlink(path);
	rmdir(dir);
	ready();
	hold(NULL);
}

static struct fusefile answers = { -1, "f", "data", 4, 0600, 0, 0 },
    holds = { -1, "f", "data", 4, 0600, 1, 0 };

static void
fuse_serving(void *arg)
{
	(void)arg;
	close(holds.fd);
	for (;;)
		fusefile_serve(&answers);
}

static void
read_fuse(void *path)
{
	char b[4];
	int fd;

	close(holds.fd);
	if ((fd = open(path, O_RDONLY)) == -1)
		err(1, "%s", (char *)path);
	if (read(fd, b, sizeof(b)) == -1)
		err(1, "read");
	hold(NULL);
}

/*
 * Two FUSE file systems, each its daemon's: one answers every request,
 * the other never answers a read, and a child's read there waits for it.
 * In a mount namespace of our own on a tmpfs of its own, so that nothing
 * is left mounted when we die.  "unsupported" where there is no FUSE.
 */
static void
case_fuse(void)
{
	pid_t c, other;

	if (unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("waitfor-cases", "/mnt", "tmpfs", 0, "mode=0700") == -1 ||
	    fusefile_mount(&answers, "waitfor-cases", "/mnt/answers", "0") == -1 ||
	    fusefile_mount(&holds, "waitfor-cases", "/mnt/holds", "0") == -1) {
		puts("unsupported");
		fflush(stdout);
		return;
	}
	other = child(fuse_serving, NULL);
	close(answers.fd);
	c = child(read_fuse, "/mnt/holds/f");
	say("waiter", c, c);
	say("holder", getpid(), tid());
	say("other", other, other);
	ready();
	for (;;)
		fusefile_serve(&holds);
}

static void
unmap_and_hold(void *flag)
{
	munmap(flag, 4096);
	hold(NULL);
}

/*
 * A loop that polls a flag in anonymous shared memory, spinning or
 * napping between tries: a child that maps it writable could set it,
 * and never does; another let the mapping go and maps nothing of ours.
 */
static void
case_shm(int nap)
{
	const struct timespec ms = { 0, 1000000 };
	volatile int *flag;
	pid_t c, o;

	flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (flag == MAP_FAILED)
		err(1, "mmap");
	c = child(hold, NULL);
	o = child(unmap_and_hold, (void *)flag);
	say("waiter", getpid(), tid());
	say("holder", c, c);
	say("other", o, o);
	ready();
	while (*flag == 0)
		if (nap)
			nanosleep(&ms, NULL);
		else
			sched_yield();
}

/*
 * posix_spawn of a program whose standard input is a FIFO no one writes,
 * by a thread: the child (made with CLONE_VFORK) blocks in the open of
 * its file action, before its exec, and the thread in posix_spawn until
 * it is done.  The main thread names the child once it is there; the
 * child is not ours to end (no PR_SET_PDEATHSIG before an exec): the
 * test kills it.
 */
static void *
spawn_fifo(void *arg)
{
	char *argv[] = { "true", NULL };
	posix_spawn_file_actions_t fa;
	extern char **environ;
	pid_t pid;

	holder_tid = tid();
	if (posix_spawn_file_actions_init(&fa) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 0, arg, O_RDONLY, 0) != 0 ||
	    posix_spawnp(&pid, "true", &fa, NULL, argv, environ) != 0)
		errx(1, "posix_spawn");
	return NULL;
}

static void
case_vfork(void)
{
	static char fifo[4096];
	char path[64];
	pthread_t t;
	FILE *f;
	int i, pid = 0;

	snprintf(fifo, sizeof(fifo), "%s.fifo", lockfile);
	if (mkfifo(fifo, 0600) == -1 && errno != EEXIST)
		err(1, "%s", fifo);
	if (pthread_create(&t, NULL, spawn_fifo, fifo) != 0)
		errx(1, "pthread_create");
	for (i = 0; i < 500 && pid == 0; i++) {
		usleep(10000);
		snprintf(path, sizeof(path), "/proc/self/task/%d/children",
		    holder_tid);
		if (holder_tid != 0 && (f = fopen(path, "r")) != NULL) {
			if (fscanf(f, "%d", &pid) != 1)
				pid = 0;
			fclose(f);
		}
	}
	if (pid == 0)
		errx(1, "no child spawned");
	say("waiter", getpid(), holder_tid);
	say("holder", pid, pid);
	ready();
	hold(NULL);
}

static void
unsupported(void)
{
	puts("unsupported");
	fflush(stdout);
	exit(0);
}

/* Descriptor fd over UNIX socket s, and back. */
static void
send_fd(int s, int fd)
{
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr a; } u;
	struct iovec iov = { "f", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	if (sendmsg(s, &m, 0) == -1)
		err(1, "sendmsg");
}

static int
recv_fd(int s)
{
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr a; } u;
	char b;
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	int fd;

	if (recvmsg(s, &m, 0) <= 0 || CMSG_FIRSTHDR(&m) == NULL)
		return -1;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(fd));
	return fd;
}

/*
 * A filter whose listener goes to the parent, the supervisor; then a
 * mkdir(2), held for its notification.  Nothing sent where the kernel
 * has no user notification.
 */
static void
mkdir_supervised(void *arg)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdir, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	int s = *(int *)arg, fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    (fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) == -1)
		_exit(0);
	send_fd(s, fd);
	close(fd);
	syscall(SYS_mkdir, "/nonexistent/waitfor-seccomp", 0700);
	hold(NULL);
}

/*
 * A container's supervisor (seccomp_unotify(2)): we take the child's
 * notification and never answer; its mkdir waits for us.
 */
static void
case_seccomp(void)
{
	struct seccomp_notif n;
	int sv[2], fd;
	pid_t c;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		err(1, "socketpair");
	c = child(mkdir_supervised, &sv[1]);
	close(sv[1]);
	if ((fd = recv_fd(sv[0])) == -1)
		unsupported();
	memset(&n, 0, sizeof(n));
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &n) == -1)
		err(1, "SECCOMP_IOCTL_NOTIF_RECV");
	say("waiter", c, c);
	say("holder", getpid(), tid());
	ready();
	hold(NULL);
}

/*
 * A page registered with a userfaultfd, which goes to the parent, the
 * handler; then a read of the page, outside any call, which faults.
 */
static void
fault_handled(void *arg)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register r = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	long pg = sysconf(_SC_PAGESIZE);
	int s = *(int *)arg, fd;
	volatile char *p;

	if ((fd = syscall(SYS_userfaultfd, O_CLOEXEC)) == -1 ||
	    ioctl(fd, UFFDIO_API, &api) == -1)
		_exit(0);
	if ((p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		err(1, "mmap");
	r.range.start = (unsigned long)p;
	r.range.len = pg;
	if (ioctl(fd, UFFDIO_REGISTER, &r) == -1)
		_exit(0);
	send_fd(s, fd);
	close(fd);
	(void)p[0];
	hold(NULL);
}

/* A userfaultfd of its own, with nothing registered: idle. */
static void
idle_handler(void *arg)
{
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC);

	(void)arg;
	if (fd == -1)
		_exit(0);
	hold(NULL);
}

/*
 * Lazy pages (CRIU's lazy-pages daemon, QEMU's postcopy): we read the
 * child's fault from the userfaultfd it gave us and never resolve it;
 * another child holds a userfaultfd of its own with no fault.
 */
static void
case_userfault(void)
{
	struct uffd_msg m;
	int sv[2], fd;
	pid_t c, o;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		err(1, "socketpair");
	o = child(idle_handler, NULL);
	c = child(fault_handled, &sv[1]);
	close(sv[1]);
	if ((fd = recv_fd(sv[0])) == -1)
		unsupported();
	if (read(fd, &m, sizeof(m)) != sizeof(m))
		err(1, "userfaultfd read");
	say("waiter", c, c);
	say("holder", getpid(), tid());
	say("other", o, o);
	ready();
	hold(NULL);
}

int
main(int argc, char *argv[])
{
	const char *c = argc > 1 ? argv[1] : "";

	alarm(LIFETIME);
	lockfile = argc > 2 ? argv[2] : "waitfor-cases.lock";
	if (strcmp(c, "pipe") == 0)
		case_pipe();
	else if (strcmp(c, "unix") == 0)
		case_unix();
	else if (strcmp(c, "tcp") == 0)
		case_tcp(1);
	else if (strcmp(c, "tcp-queued") == 0)
		case_tcp(0);
	else if (strcmp(c, "tcp-mapped") == 0) {
		v6_client = 1;
		case_tcp(1);
	}
	else if (strcmp(c, "udp") == 0)
		case_udp();
	else if (strcmp(c, "unix-full") == 0)
		case_full('f');
	else if (strcmp(c, "abstract-full") == 0)
		case_full('a');
	else if (strcmp(c, "tcp-full") == 0)
		case_full('t');
	else if (strcmp(c, "posix") == 0)
		case_lock(F_SETLK, F_SETLKW);
	else if (strcmp(c, "ofd") == 0)
		case_lock(F_OFD_SETLK, F_OFD_SETLKW);
	else if (strcmp(c, "lease") == 0)
		case_lease();
	else if (strcmp(c, "epoll") == 0)
		case_epoll();
	else if (strcmp(c, "mutex") == 0)
		case_mutex();
	else if (strcmp(c, "rwlock-r") == 0 || strcmp(c, "rwlock-w") == 0) {
		rw_write = c[7] == 'w';
		case_rwlock();
	}
	else if (strcmp(c, "pshared") == 0)
		case_pshared();
	else if (strcmp(c, "exited") == 0)
		case_exited();
	else if (strcmp(c, "ptrace") == 0)
		case_ptrace();
	else if (strcmp(c, "join") == 0)
		case_join();
	else if (strcmp(c, "tidword") == 0)
		case_tidword();
	else if (strcmp(c, "shm-spin") == 0)
		case_shm(0);
	else if (strcmp(c, "shm-nap") == 0)
		case_shm(1);
	else if (strcmp(c, "fanotify") == 0)
		case_fanotify();
	else if (strcmp(c, "fuse") == 0)
		case_fuse();
	else if (strcmp(c, "vfork") == 0)
		case_vfork();
	else if (strcmp(c, "mq") == 0)
		case_mq();
	else if (strcmp(c, "pidfd") == 0)
		case_pidfd();
	else if (strcmp(c, "seccomp") == 0)
		case_seccomp();
	else if (strcmp(c, "userfault") == 0)
		case_userfault();
	else
		errx(64, "usage: waitfor-cases pipe|unix|tcp|tcp-queued|"
		    "tcp-mapped|udp|unix-full|abstract-full|tcp-full|posix|ofd|lease|epoll|"
		    "mutex|rwlock-r|rwlock-w|pshared|exited|ptrace|join|tidword|shm-spin|shm-nap|"
		    "fanotify|fuse|vfork|mq|pidfd|seccomp|userfault "
		    "[LOCKFILE]");
	return 0;
}
