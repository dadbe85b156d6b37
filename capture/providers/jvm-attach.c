/*
 * jvm-attach PID: HotSpot's thread dump with its locks (jcmd PID
 * Thread.print -l) by the attach protocol itself, for the jvm provider:
 * jcmd is a JVM of its own, whose start takes most of a second on a busy
 * machine, and a provider has one.
 *
 * The JVM listens on /tmp/.java_pidNSPID once its attach listener runs.
 * If it does not yet, a file .attach_pidNSPID in its working directory
 * and a SIGQUIT start it, and only then: a JVM that does not catch
 * SIGQUIT (-Xrs) would die of it, and one with its attach mechanism off
 * would print a thread dump on its own stdout, so those are left alone.
 * Run as the JVM's own user: the listener wants its peer to be.
 * Read-only: the request is "1 threaddump -l", the answer its status
 * line and the dump.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
nspid(int pid)
{
	char path[64], line[256];
	int ns = pid;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, "NSpid:", 6) == 0) {
			char *last = strrchr(line, '\t');

			ns = atoi(last != NULL ? last + 1 : line + 6);
		}
	fclose(fp);
	return ns;
}

/* Whether the process catches SIGQUIT: else the signal would kill it. */
static int
catches_quit(int pid)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, "SigCgt:", 7) == 0)
			mask = strtoull(line + 7, NULL, 16);
	fclose(fp);
	return (mask & (1ULL << (SIGQUIT - 1))) != 0;
}

/*
 * Whether the JVM was started with its attach mechanism off: then a
 * SIGQUIT is no attach request but a thread dump on its stdout, the
 * program's own output.  Its command line, and the options the launcher
 * reads from the environment.
 */
static int
attach_disabled(int pid)
{
	static const char *const files[] = { "cmdline", "environ" };
	static const char flag[] = "-XX:+DisableAttachMechanism";
	char path[64], *buf;
	size_t n, i, k;
	FILE *fp;
	int off = 0;

	if ((buf = malloc(1 << 20)) == NULL)
		return 1;
	for (k = 0; k < 2 && !off; k++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, files[k]);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		n = fread(buf, 1, (1 << 20) - 1, fp);
		fclose(fp);
		for (i = 0; i + sizeof(flag) - 1 <= n && !off; i++)
			off = memcmp(buf + i, flag, sizeof(flag) - 1) == 0;
	}
	free(buf);
	return off;
}

static int
try_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

int
main(int argc, char *argv[])
{
	static const char req[] = "1\0threaddump\0-l\0\0";
	char sock[128], trigger[128], buf[65536];
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	int pid, ns, fd = -1, tfd, i;
	ssize_t n;

	if (argc != 2 || (pid = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: jvm-attach PID\n");
		return 64;
	}
	if ((ns = nspid(pid)) <= 0) {
		fprintf(stderr, "jvm-attach: %d: no such process\n", pid);
		return 69;
	}
	snprintf(sock, sizeof(sock), "/proc/%d/root/tmp/.java_pid%d", pid, ns);
	if ((fd = try_connect(sock)) == -1) {
		if (attach_disabled(pid)) {
			fprintf(stderr, "jvm-attach: %d runs with "
			    "-XX:+DisableAttachMechanism: not attached\n", pid);
			return 69;
		}
		if (!catches_quit(pid)) {
			fprintf(stderr, "jvm-attach: %d does not catch SIGQUIT "
			    "(-Xrs?): not attached\n", pid);
			return 69;
		}
		snprintf(trigger, sizeof(trigger), "/proc/%d/cwd/.attach_pid%d",
		    pid, ns);
		tfd = open(trigger, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (tfd == -1) {
			snprintf(trigger, sizeof(trigger),
			    "/proc/%d/root/tmp/.attach_pid%d", pid, ns);
			tfd = open(trigger, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		}
		if (tfd == -1) {
			fprintf(stderr, "jvm-attach: %s: %s\n", trigger,
			    strerror(errno));
			return 73;
		}
		close(tfd);
		kill(pid, SIGQUIT);
		for (i = 0; i < 500 && (fd = try_connect(sock)) == -1; i++)
			nanosleep(&nap, NULL);
		unlink(trigger);
		if (fd == -1) {
			fprintf(stderr, "jvm-attach: %d: no attach listener\n",
			    pid);
			return 69;
		}
	}
	/* Version, command, three arguments: each ends in a NUL. */
	if (write(fd, req, sizeof(req)) != (ssize_t)sizeof(req)) {
		fprintf(stderr, "jvm-attach: %d: %s\n", pid, strerror(errno));
		return 74;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			return 74;
	close(fd);
	return n == 0 ? 0 : 74;
}
