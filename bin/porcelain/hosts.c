/*
 * argus debug across hosts.  --with FILE...: other hosts' recordings of
 * the window.  This host's cut is written to a file of its own first, for
 * argus-cat reads each host twice (once for the clocks' offset, once to
 * merge: argus-cat(1), HOSTS); the diagnosis then reads all of them as
 * one stream, each host's processes apart.
 *
 * And where a diagnosis ends at a thread that waits on a connection whose
 * other end no recording here holds, it says so, with the address: the
 * rest of the chain is on that host.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "event.h"
#include "hosts.h"
#include "porcelain.h"
#include "show.h"
#include "stream.h"
#include "waits.h"

struct pipeline *
hosts_with(struct pipeline *p, char *const with[], int nwith,
    const char *local)
{
	int i, status;

	pipeline_arg(p, "-o");
	pipeline_arg(p, local);
	fprintf(stderr, "argus: this host's recording of the window to %s, "
	    "to merge with %d other%s\n", local, nwith, nwith == 1 ? "" : "s");
	if ((status = pipeline_run(p)) != 0)
		exit(status);
	pipeline_free(p);
	p = pipeline_new();
	pipeline_stage(p, "argus-cat");
	pipeline_arg(p, "--hosts");
	pipeline_arg(p, local);
	for (i = 0; i < nwith; i++)
		pipeline_arg(p, with[i]);
	return p;
}

struct sw {
	uint32_t	 pid, tid;
	char		*object;
	int		 held;
};

/*
 * Whether a socket's address ("10.0.0.7:5432", "[::1]:80") is this
 * host's: a loopback one (every host has its own) or one of its
 * interfaces'.  Its other end is then here, never on another host.
 */
static int
address_here(const char *addr)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t loop6[16] = { [15] = 1 };
	struct ifaddrs *ifs, *i;
	uint8_t a[16];
	char host[64];
	const char *end;
	int here = 0, len;

	if (*addr == '[') {
		addr++;
		end = strchr(addr, ']');
	} else
		end = strrchr(addr, ':');
	if (end == NULL || (size_t)(end - addr) >= sizeof(host))
		return 0;
	snprintf(host, sizeof(host), "%.*s", (int)(end - addr), addr);
	if (inet_pton(AF_INET, host, a) == 1)
		len = 4;
	else if (inet_pton(AF_INET6, host, a) == 1) {
		len = 16;
		if (memcmp(a, v4mapped, 12) == 0) {
			memmove(a, a + 12, 4);
			len = 4;
		}
	} else
		return 0;
	if ((len == 4 && a[0] == 127) || (len == 16 &&
	    memcmp(a, loop6, 16) == 0))
		return 1;
	if (getifaddrs(&ifs) == -1)
		return 0;
	for (i = ifs; i != NULL && !here; i = i->ifa_next)
		if (i->ifa_addr == NULL)
			continue;
		else if (len == 4 && i->ifa_addr->sa_family == AF_INET)
			here = memcmp(&((struct sockaddr_in *)
			    i->ifa_addr)->sin_addr, a, 4) == 0;
		else if (len == 16 && i->ifa_addr->sa_family == AF_INET6)
			here = memcmp(&((struct sockaddr_in6 *)
			    i->ifa_addr)->sin6_addr, a, 16) == 0;
	freeifaddrs(ifs);
	return here;
}

/*
 * The threads a diagnosis ends at (its root records), their waits on a
 * TCP or UDP socket of the last snapshot, and whether any holder answers
 * for the socket's other end.
 */
void
hosts_remote_ends(const char *path)
{
	struct reader *r = reader_open(path);
	struct record rec;
	struct wait_rec w;
	struct holder_rec h;
	struct sock_rec s;
	struct sw *waits = NULL;
	uint32_t *ends = NULL, pid, tid;
	size_t nwaits = 0, nends = 0, i, j;
	const char *host;
	int others = 0;	/* other hosts' recordings in it */

	while (reader_next(r, &rec)) {
		if (rec.comment)
			continue;
		if (wait_parse(&rec, &w)) {
			if (strcmp(w.type, "tcp") != 0 &&
			    strcmp(w.type, "udp") != 0)
				continue;
			waits = xrealloc(waits, (nwaits + 1) * sizeof(*waits));
			waits[nwaits++] = (struct sw){ w.pid, w.tid,
			    xstrdup(w.object), 0 };
		} else if (holder_parse(&rec, &h)) {
			/* A connection not yet accepted: its listener's. */
			for (i = 0; i < nwaits; i++)
				if (strcmp(waits[i].object, h.object) == 0 &&
				    (h.rel == WR_PEER || h.rel == WR_LISTENER))
					waits[i].held = 1;
		} else if (strcmp(rec.f[COL_KIND], KIND_ROOT) == 0) {
			pid = record_pid(&rec, COL_PID);
			tid = record_pid(&rec, COL_TID);
			ends = xrealloc(ends, (nends + 1) * 2 * sizeof(*ends));
			ends[2 * nends] = pid;
			ends[2 * nends++ + 1] = tid;
		} else if (strcmp(rec.f[COL_KIND], KIND_META) == 0 &&
		    strcmp(record_str(&rec, META_KEY), META_HOST) == 0) {
			host_learn(&rec);
			others += record_u64(&rec, HOST_INDEX) > 0;
		}
	}
	reader_close(r);
	/* The sockets' addresses: one more reading, of sock records only. */
	r = reader_open(path);
	while (reader_next(r, &rec)) {
		if (!sock_parse(&rec, &s))
			continue;
		for (i = 0; i < nwaits; i++) {
			if (waits[i].held || waits[i].pid != s.pid ||
			    strcmp(waits[i].object, s.object) != 0)
				continue;
			for (j = 0; j < nends && ends[2 * j + 1] !=
			    waits[i].tid; j++)
				;
			if (j == nends)
				continue;
			/* Said once for a thread's wait on it. */
			for (j = 0; j < nwaits; j++)
				if (waits[j].tid == waits[i].tid &&
				    strcmp(waits[j].object, s.object) == 0)
					waits[j].held = 1;
			/* Its other end is on this host, whoever holds it. */
			if (address_here(s.remote))
				continue;
			host = host_name(s.pid);
			if (others > 0)
				fprintf(stderr, "argus: thread %u%s%s waits on %s "
				    "(%s, from %s): no recording given holds its "
				    "other end (each host's recording is to be cut "
				    "while the hang lasts, for its wait-for "
				    "snapshot)\n", waits[i].tid, host ?
				    " on host " : "", show(host), show(s.remote),
				    show(s.proto), show(s.local));
			else
				fprintf(stderr, "argus: thread %u waits on %s "
				    "(%s, from %s), another host: no recording "
				    "of it here (argus debug --remote HOST, or "
				    "--with ITS-RECORDING)\n", waits[i].tid,
				    show(s.remote), show(s.proto), show(s.local));
		}
	}
	reader_close(r);
	for (i = 0; i < nwaits; i++)
		free(waits[i].object);
	free(waits);
	free(ends);
}

/*
 * --remote: what another host sends is trusted for nothing but being a
 * recording to read (lib/hosts.c checks its clock): its size and its time
 * are bounded here, and what it says on stderr reaches the terminal a
 * line at a time, escaped, under its host's name.
 */
#define REMOTE_SAID_MAX	(64 * 1024)	/* of its stderr shown */
#define REMOTE_GRACE_NS	(1000000000ULL)	/* from SIGTERM to SIGKILL */

/* What a death or a signal leaves: no partial file, no child. */
static char	 part_path[PATH_MAX];
static pid_t	 fetching;

static void
fetch_abandon(void)
{
	if (fetching > 0)
		kill(-fetching, SIGKILL);
	fetching = 0;
	if (*part_path != '\0')
		unlink(part_path);
	*part_path = '\0';
}

struct said {
	const char	*host;
	char		 line[1024];
	size_t		 len;
	uint64_t	 total;
};

static void
said_line(struct said *s)
{
	fprintf(stderr, "argus: %s: %s\n", s->host, show_mem(s->line, s->len));
	s->len = 0;
}

static void
said(struct said *s, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s->total++ == REMOTE_SAID_MAX) {
			if (s->len > 0)
				said_line(s);
			fprintf(stderr, "argus: %s: more on its stderr, not "
			    "shown\n", s->host);
		}
		if (s->total > REMOTE_SAID_MAX)
			continue;
		if (b[i] != '\n')
			s->line[s->len++] = b[i];
		if (b[i] == '\n' || s->len == sizeof(s->line))
			said_line(s);
	}
}

/* Its exit status once it has exited, before deadline; -1 if not. */
static int
reap(pid_t pid, uint64_t deadline)
{
	struct timespec nap = { 0, 20000000 };
	int st;
	pid_t w;

	for (;;) {
		if ((w = waitpid(pid, &st, WNOHANG)) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
			    128 + WTERMSIG(st);
		if (w == -1 && errno != EINTR)
			die(EX_OSERR, "waitpid %d", (int)pid);
		if (interrupted || now_ns() >= deadline)
			return -1;
		nanosleep(&nap, NULL);
	}
}

static void
put(int fd, const char *b, size_t n)
{
	ssize_t w;

	while (n > 0)
		if ((w = write(fd, b, n)) > 0) {
			b += w;
			n -= w;
		} else if (w == -1 && errno != EINTR)
			die(EX_IOERR, "%s", part_path);
}

enum fetched { FETCH_WHOLE, FETCH_SLOW, FETCH_BIG, FETCH_SIGNAL };

/*
 * argv's stdout into fd until it ends and argv exits, within timeout ns
 * and max bytes; else argv's process group ended (SIGTERM, then SIGKILL)
 * and what stopped it said.  *status: argv's exit status.
 */
static enum fetched
fetch(char *const argv[], const char *host, int fd, uint64_t timeout,
    uint64_t max, int *status)
{
	struct said err = { .host = host };
	struct pollfd pfd[2];
	char buf[65536];
	uint64_t deadline = now_ns(), now, got = 0;
	enum fetched why = FETCH_WHOLE;
	int out[2], errp[2], null, i, ms;
	ssize_t n;

	deadline = timeout < UINT64_MAX - deadline ? deadline + timeout :
	    UINT64_MAX;
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(errp, O_CLOEXEC) == -1)
		die(EX_OSERR, "pipe");
	/* ssh reads its stdin for the remote command: not the user's. */
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		die(EX_OSERR, "/dev/null");
	fetching = spawn_group(argv, null, out[1], errp[1]);
	close(null);
	close(out[1]);
	close(errp[1]);
	pfd[0] = (struct pollfd){ .fd = out[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = errp[0], .events = POLLIN };
	while (why == FETCH_WHOLE && (pfd[0].fd != -1 || pfd[1].fd != -1)) {
		if (interrupted) {
			why = FETCH_SIGNAL;
			break;
		}
		if ((now = now_ns()) >= deadline) {
			why = FETCH_SLOW;
			break;
		}
		/* A second at most: a --remote-timeout of years is no int. */
		ms = deadline - now < 1000000000 ? (int)((deadline - now) /
		    1000000) + 1 : 1000;
		if (poll(pfd, 2, ms) == -1) {
			if (errno == EINTR)
				continue;
			die(EX_OSERR, "poll");
		}
		for (i = 0; i < 2 && why == FETCH_WHOLE; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			if ((n = read(pfd[i].fd, buf, sizeof(buf))) == -1) {
				if (errno == EINTR)
					continue;
				die(EX_IOERR, "reading from %s", argv[0]);
			}
			if (n == 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
			} else if (i == 1)
				said(&err, buf, n);
			else if (got + n > max)
				why = FETCH_BIG;
			else {
				got += n;
				put(fd, buf, n);
			}
		}
	}
	for (i = 0; i < 2; i++)
		if (pfd[i].fd != -1)
			close(pfd[i].fd);
	if (err.len > 0)
		said_line(&err);
	/* Its output ended; it exits in the time left, or it is slow too. */
	if (why == FETCH_WHOLE && (*status = reap(fetching, deadline)) == -1)
		why = interrupted ? FETCH_SIGNAL : FETCH_SLOW;
	if (why != FETCH_WHOLE) {
		kill(-fetching, SIGTERM);
		if ((*status = reap(fetching, now_ns() + REMOTE_GRACE_NS)) ==
		    -1) {
			kill(-fetching, SIGKILL);
			*status = run_wait(fetching);
		}
	}
	fetching = 0;
	return why;
}

/*
 * --remote [user@]HOST: that host's recording of the window, cut there by
 * `argus debug --window' over ssh (argus flush, a wait-for snapshot,
 * argus-cat of its ring), the stream back through the ssh pipe into a
 * file of this ring: one more --with file.  ssh is $ARGUS_SSH (its words
 * split at blanks: 'ssh -F FILE'), argus on the other host is
 * $ARGUS_REMOTE (what its shell runs: 'ARGUS_RING=DIR argus').  The file
 * appears under its name only when the stream has come whole, within
 * timeout ns and max bytes; past either, or at a signal, neither it nor
 * ssh is left behind.
 */
char *
hosts_remote(const char *host, uint64_t last, int snap, uint64_t timeout,
    uint64_t max)
{
	char name[PATH_MAX], path[PATH_MAX], cmd[1024];
	char *ssh, *words[32], *w, *save = NULL;
	const char *remote, *env, *c;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction old[3];
	enum fetched why;
	struct stat st;
	int fd, n = 0, status = 0;
	size_t i;

	if (*host == '-' || *host == '\0' || strpbrk(host, " \t\n'\"\\;&|`$") != NULL)
		diex(EX_USAGE, "debug: --remote '%s': not a [user@]host", host);
	remote = (env = getenv("ARGUS_REMOTE")) != NULL && *env != '\0' ?
	    env : "argus";
	snprintf(cmd, sizeof(cmd), "%s debug --window --last %llums%s",
	    remote, (unsigned long long)(last / 1000000), snap ? "" :
	    " --no-snapshot");
	ssh = xstrdup((env = getenv("ARGUS_SSH")) != NULL && *env != '\0' ?
	    env : "ssh");
	for (w = strtok_r(ssh, " \t", &save); w != NULL && n < 26;
	    w = strtok_r(NULL, " \t", &save))
		words[n++] = w;
	if (n == 0 || n >= 26)
		diex(EX_USAGE, "ARGUS_SSH: '%s': not a command", env);
	words[n++] = "-o";
	words[n++] = "BatchMode=yes";
	words[n++] = "--";
	words[n++] = (char *)host;
	words[n++] = cmd;
	words[n] = NULL;

	/* debug-TIME-USER_HOST.gz: the host's name, as a file's. */
	snprintf(name, sizeof(name), "debug-%lld-", (long long)time(NULL));
	for (i = strlen(name), c = host; *c != '\0' && i + 4 < sizeof(name);
	    c++)
		name[i++] = isalnum((unsigned char)*c) || *c == '.' ||
		    *c == '-' ? *c : '_';
	snprintf(name + i, sizeof(name) - i, ".gz");
	ring_path(path, sizeof(path), name);
	if ((size_t)snprintf(part_path, sizeof(part_path), "%s.part", path) >=
	    sizeof(part_path))
		diex(EX_USAGE, "%s: path too long", path);
	hook_add(HOOK_FINISH, fetch_abandon);
	if ((fd = open(part_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1) {
		*part_path = '\0';	/* not ours */
		die(EX_CANTCREAT, "%s.part", path);
	}
	fprintf(stderr, "argus: %s's recording of the window, over ssh "
	    "(%s), within %.0f s and %.0f MiB\n", host, cmd, timeout / 1e9,
	    max / 1048576.0);
	/* Ours while it runs: a ^C or a kill ends ssh, and the file goes. */
	for (i = 0; i < ARRAY_LEN(sigs); i++)
		sigaction(sigs[i], NULL, &old[i]);
	catch_signals();
	why = fetch(words, host, fd, timeout, max, &status);
	for (i = 0; i < ARRAY_LEN(sigs); i++)
		sigaction(sigs[i], &old[i], NULL);
	if (close(fd) == -1)
		die(EX_IOERR, "%s", part_path);
	if (why == FETCH_SIGNAL) {
		fetch_abandon();
		diex(128 + interrupted, "debug: --remote %s: interrupted: "
		    "ssh stopped, its partial window removed", host);
	}
	if (why == FETCH_SLOW)
		diex(EX_UNAVAILABLE, "debug: --remote %s: no whole window in "
		    "%.0f s: ssh stopped, its partial window removed (a longer "
		    "--remote-timeout, or --with a recording taken there)",
		    host, timeout / 1e9);
	if (why == FETCH_BIG)
		diex(EX_UNAVAILABLE, "debug: --remote %s: the window sent is "
		    "more than %.0f MiB: ssh stopped, its partial window "
		    "removed (a larger --remote-size, or a shorter --last)",
		    host, max / 1048576.0);
	if (status == 0 && (stat(part_path, &st) == -1 || st.st_size == 0))
		status = EX_DATAERR;
	if (status != 0)
		diex(EX_UNAVAILABLE, "debug: --remote %s: %s exited %d%s", host,
		    words[0], status, status == 255 ? " (ssh could not "
		    "connect or log in)" : status == 127 ? " (no argus "
		    "there: ARGUS_REMOTE)" : "");
	if (rename(part_path, path) == -1)
		die(EX_CANTCREAT, "%s", path);
	*part_path = '\0';
	free(ssh);
	return xstrdup(path);
}
