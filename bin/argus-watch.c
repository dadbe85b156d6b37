/*
 * argus-watch: trace the reads and writes of a data flag with hardware
 * watchpoints, as events that merge into a capture's stream.
 */
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "graph.h"
#include "watch/watch.h"

static const char usage[] =
"usage: argus-watch [-zZ] (-p PID | -- COMMAND ...) (-s SYMBOL | -a ADDRESS)\n"
"                   [-l BYTES] [-d TIME] [-o FILE]\n"
"Trace reads and writes of a data flag with hardware watchpoints.\n"
"\n"
"  -p, --pid PID        the process to watch (all its threads, and new ones)\n"
"  -s, --symbol NAME    the flag: a symbol of the process's executable\n"
"  -a, --address ADDR   the flag: an address in the process (0x...)\n"
"  -l, --length BYTES   1, 2, 4 or 8 (default: the symbol's size, else 4)\n"
"  -d, --duration TIME  stop after TIME (default: until the process exits\n"
"                       or SIGINT)\n"
"  -o, --output FILE    write to FILE (mode 0600) instead of stdout\n"
"  -z, --compress       gzip even into a pipe or terminal\n"
"  -Z, --no-compress    plain even into a regular file\n"
"  -h, --help           this text\n"
USAGE_VERSION_LINE("        ")
"  -- COMMAND ARG ...   run COMMAND and watch it from its first instruction\n"
"\n"
"Writes flag_write and flag_read events on CLOCK_MONOTONIC: merge them\n"
"with a capture of the same time (argus-cat capture.gz flags.gz) before\n"
"argus-segment.  Needs root (or perf_event_paranoid <= 1).\n"
"Exit: 0 ok, 64 usage, 65 no such symbol, 66 no such process, 69 no\n"
"watchpoints here.  See argus-watch(1).\n";


/* The command, stopped at its exec so that nothing runs unwatched. */
static pid_t
start(char **argv)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == -1)
		die(EX_OSERR, "fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == -1)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) == -1 || !WIFSTOPPED(status))
		diex(EX_NOINPUT, "%s: did not start", argv[0]);
	return pid;
}

static void
emit(struct writer *out, const struct hit *h, uint64_t addr, uint64_t value,
    const char *symbol)
{
	writer_begin(out, KIND_EVENT);
	writer_u64(out, h->time);
	writer_u64(out, h->pid);
	writer_u64(out, h->tid);
	writer_empty(out);
	writer_u64(out, h->cpu);
	writer_str(out, h->write ? "flag_write" : "flag_read");
	writer_str(out, "-");
	writer_hex(out, addr);
	writer_u64(out, value);
	writer_hex(out, h->ip);
	writer_str(out, symbol);
	writer_end(out);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "pid",	required_argument, NULL, 'p' },
		{ "symbol",	required_argument, NULL, 's' },
		{ "address",	required_argument, NULL, 'a' },
		{ "length",	required_argument, NULL, 'l' },
		{ "duration",	required_argument, NULL, 'd' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	const char *symbol = NULL;
	uint64_t addr = 0, size = 0, dur = 0, end, value, t;
	struct hit *hits;
	struct watch *w;
	struct writer *out;
	int ch, i, n, len = 0, done = 0, status = 0;
	pid_t pid = 0, child = 0;

	while ((ch = getopt_long(argc, argv, "+p:s:a:l:d:" COMMON_SHORT,
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			pid = parse_u64("--pid", optarg);
			break;
		case 's':
			symbol = optarg;
			break;
		case 'a':
			addr = strtoull(optarg, NULL, 0);
			if (addr == 0)
				diex(EX_USAGE, "--address: not an address: '%s'",
				    optarg);
			break;
		case 'l':
			len = parse_u64("--length", optarg);
			break;
		case 'd':
			dur = parse_duration_ns("--duration", optarg);
			break;
		default:
			common_option(&com, ch, optarg, usage);
		}
	}
	if ((pid != 0) == (optind < argc) || (symbol != NULL) == (addr != 0))
		usage_error(usage);
	if (pid != 0 && kill(pid, 0) == -1 && errno == ESRCH)
		diex(EX_NOINPUT, "no process %d", (int)pid);
	watch_selftest();
	if (optind < argc)
		pid = child = start(argv + optind);
	if (symbol != NULL)
		addr = symbol_address(pid, symbol, &size);
	if (len == 0)
		len = size == 1 || size == 2 || size == 8 ? (int)size : 4;
	w = watch_open(pid, addr, len);
	if (child != 0 && ptrace(PTRACE_DETACH, child, NULL, NULL) == -1)
		die(EX_OSERR, "ptrace detach");

	catch_signals();
	out = writer_open(com.out, com.z);
	t = now_ns();
	meta_write(out, t, "source", "perf-breakpoint");
	meta_write(out, t, "clock", "mono");
	meta_write(out, t, "watch_pid", "%d", (int)pid);
	meta_write(out, t, "watch_address", "0x%llx", (unsigned long long)addr);
	meta_write(out, t, "watch_symbol", "%s", symbol ? symbol : "");
	writer_flush(out);

	end = dur ? now_ns() + dur : UINT64_MAX;
	while (!done) {
		done = !watch_poll(w, 100) || interrupted || now_ns() >= end ||
		    (child != 0 && waitpid(child, &status, WNOHANG) == child);
		/* The value as it is after the batch: a read-back, not a trace. */
		n = watch_hits(w, &hits);
		value = watch_value(w);
		for (i = 0; i < n; i++)
			emit(out, &hits[i], addr, value, symbol ? symbol : "");
		writer_flush(out);
	}
	watch_close(w);
	writer_close(out);
	if (child != 0 && !WIFEXITED(status) && !WIFSIGNALED(status))
		kill(child, SIGTERM), waitpid(child, &status, 0);
	return exit_status(1);
}
