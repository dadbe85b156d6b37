/*
 * argus-capture: trace the whole system (or some processes) through a
 * tracefs instance of its own, into one time-ordered record stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "../capture/capture.h"
#include "../capture/out.h"
#include "../capture/patched.h"
#include "../capture/probes.h"

static const char usage[] =
"usage: argus-capture [-d SECONDS] [-o FILE | --ring DIR] [-p PID] [-c COMM]\n"
"                     [-s all|none|default|LIST] [--probes FILE]\n"
"                     [--probe LIB:SYMBOL[+OFF][%return][=EVENT]]\n"
"                     [--stacks PID[,PID] | --stacks-comm NAME]\n"
"                     [-- COMMAND [ARG ...]]\n"
"Trace the whole system into an Argus record stream (argus-stream(5)).\n"
"\n"
"  -d, --duration TIME    stop after TIME (1.5s, 200ms; bare: seconds);\n"
"                         default: until SIGINT or SIGTERM\n"
"  -o, --output FILE      write to FILE (mode 0600, gzip); default stdout\n"
"  -z, --compress         gzip even into a pipe\n"
"  -Z, --no-compress      plain even into a file\n"
"      --ring DIR         flight recorder: a ring of files in DIR, a\n"
"                         directory of yours alone (made 0700 if missing)\n"
"      --ring-size SIZE   the most DIR may hold (default 2G)\n"
"      --ring-files N     files the ring is cut into (default 16)\n"
"      --defer            leave the events in the kernel's buffers (-b, in\n"
"                         overwrite mode) and write them out only when\n"
"                         asked, by SIGUSR1, and at the end: the kernel's\n"
"                         own cost while nobody asks\n"
"      --spill DIR        with --defer: the kernel's full pages moved to\n"
"                         files in DIR (yours alone, made 0700 if missing)\n"
"                         while nobody asks; read back from a time on when\n"
"                         SIGUSR2 asks (sigqueue), all at the end\n"
"      --spill-size SIZE  the most DIR may hold, oldest dropped first\n"
"                         (default 2G; with --ring, within its size)\n"
"  -p, --pid PID[,PID]    only these processes and their descendants\n"
"  -c, --comm NAME        only processes or threads named NAME\n"
"  -s, --syscalls SET     all, none, default (blocking and IPC calls),\n"
"                         or a comma list of names or numbers\n"
"      --probes FILE      a probe set (patchers/*.probes): uprobes whose\n"
"                         hits become events of their own types\n"
"      --probe LIB:SYMBOL[+OFF][%return][=EVENT]\n"
"                         one uprobe; EVENT defaults to SYMBOL\n"
"      --patch            apply the --probes sets to COMMAND in process\n"
"                         (libargus-patch.so, argus-patch(7)) instead of\n"
"                         as uprobes: a hit costs ns, not us\n"
"      --patch-dir DIR    read the events of programs started with\n"
"                         LD_PRELOAD=libargus-patch.so and\n"
"                         ARGUS_PATCH_DIR=DIR (services)\n"
"      --stacks PID[,PID] user call stacks of these processes (and their\n"
"                         children) after blocking waits and system calls\n"
"      --stacks-comm NAME the same for processes or threads named NAME\n"
"  -b, --buffer-size SIZE kernel buffer per CPU (default 16M)\n"
"      --spool-size SIZE  memory for pages read but not yet written\n"
"                         (default 1G, at most an eighth of RAM)\n"
"      --no-snapshot      no wait-for snapshot (argus-waitfor(1)) at the end\n"
"      --ready-fd FD      once tracing, write \"ready T\" (T: CLOCK_MONOTONIC\n"
"                         ns of the start) to FD and close it; or why not\n"
"  -h, --help             this text\n"
USAGE_VERSION("          ") "\n"
"  -- COMMAND ARG ...     trace while COMMAND runs; stop when it exits\n"
"\n"
"Needs root and tracefs.  ARGUS_TRACEFS names the tracefs mount to use.\n"
"Exit: 0 captured (whatever COMMAND's status), 64 usage, 69 no tracing,\n"
"73 cannot create, 77 DIR not yours alone, 126/127 COMMAND cannot run.\n";

enum { O_RING = 256, O_RING_SIZE, O_RING_FILES, O_SPOOL, O_PROBES, O_PROBE,
	O_STACKS, O_STACKS_COMM, O_NO_SNAPSHOT, O_DEFER, O_PATCH, O_PATCH_DIR,
	O_READY_FD, O_SPILL, O_SPILL_SIZE };

static void
add_pids(const char *arg, const char *opt, int **pids, int *npids)
{
	char *list = xstrdup(arg), *tok, *save;
	uint64_t pid;

	for (tok = strtok_r(list, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		pid = parse_u64(opt, tok);
		if (pid == 0 || pid > 4194304)
			diex(EX_USAGE, "%s: not a process id: '%s'", opt, tok);
		if (kill(pid, 0) == -1 && errno == ESRCH)
			diex(EX_USAGE, "%s %s: no such process", opt, tok);
		*pids = xrealloc(*pids, (*npids + 1) * sizeof(int));
		(*pids)[(*npids)++] = pid;
	}
	free(list);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		COMMON_LONG,
		{ "duration",	 required_argument, NULL, 'd' },
		{ "pid",	 required_argument, NULL, 'p' },
		{ "comm",	 required_argument, NULL, 'c' },
		{ "syscalls",	 required_argument, NULL, 's' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "ring",	 required_argument, NULL, O_RING },
		{ "ring-size",	 required_argument, NULL, O_RING_SIZE },
		{ "ring-files",	 required_argument, NULL, O_RING_FILES },
		{ "spool-size",	 required_argument, NULL, O_SPOOL },
		{ "probes",	 required_argument, NULL, O_PROBES },
		{ "probe",	 required_argument, NULL, O_PROBE },
		{ "stacks",	 required_argument, NULL, O_STACKS },
		{ "stacks-comm", required_argument, NULL, O_STACKS_COMM },
		{ "no-snapshot", no_argument,	    NULL, O_NO_SNAPSHOT },
		{ "defer",	 no_argument,	    NULL, O_DEFER },
		{ "spill",	 required_argument, NULL, O_SPILL },
		{ "spill-size",	 required_argument, NULL, O_SPILL_SIZE },
		{ "patch",	 no_argument,	    NULL, O_PATCH },
		{ "patch-dir",	 required_argument, NULL, O_PATCH_DIR },
		{ "ready-fd",	 required_argument, NULL, O_READY_FD },
		{ NULL, 0, NULL, 0 }
	};
	struct capture_opts o = { 0 };
	struct common c = { 0 };
	uint64_t b = 16 << 20, ram;
	long pages = sysconf(_SC_PHYS_PAGES);
	char **sets = NULL;
	int ch, nsets = 0, patch = 0, spec = 0, i;

	o.syscalls = "default";
	o.ready_fd = -1;
	o.ring_size = 2ULL << 30;
	o.ring_files = 16;
	o.spool_size = 1ULL << 30;
	o.spill_size = 2ULL << 30;
	ram = pages > 0 ? (uint64_t)pages * getpagesize() : 0;
	if (ram > 0 && ram / 8 < o.spool_size)
		o.spool_size = ram / 8;
	/* "+": options end at the command, whose own options are its own. */
	while ((ch = getopt_long(argc, argv, "+" COMMON_SHORT "d:p:c:s:b:",
	    longopts, NULL)) != -1) {
		if (common_option(&c, ch, optarg, usage))
			continue;
		switch (ch) {
		case 'd':
			o.duration = parse_duration_ns("-d", optarg);
			if (o.duration == 0)
				diex(EX_USAGE, "-d: must be more than 0");
			break;
		case 'p':
			add_pids(optarg, "--pid", &o.pids, &o.npids);
			break;
		case 'c':
			o.comms = xrealloc(o.comms,
			    (o.ncomms + 1) * sizeof(char *));
			o.comms[o.ncomms++] = optarg;
			break;
		case 's':
			o.syscalls = optarg;
			break;
		case 'b':
			b = parse_size("--buffer-size", optarg);
			break;
		case O_RING:
			o.ring = optarg;
			break;
		case O_RING_SIZE:
			o.ring_size = parse_size("--ring-size", optarg);
			break;
		case O_RING_FILES:
			o.ring_files = parse_u64("--ring-files", optarg);
			break;
		case O_SPOOL:
			o.spool_size = parse_size("--spool-size", optarg);
			break;
		case O_PROBES:
			probes_add_file(optarg);	/* checked either way */
			sets = xrealloc(sets, (nsets + 1) * sizeof(*sets));
			sets[nsets++] = optarg;
			break;
		case O_PROBE:
			probes_add_spec(optarg);
			spec = 1;
			break;
		case O_PATCH:
			patch = 1;
			break;
		case O_PATCH_DIR:
			patched_dir(optarg);
			break;
		case O_STACKS:
			add_pids(optarg, "--stacks", &o.stack_pids,
			    &o.nstack_pids);
			break;
		case O_DEFER:
			o.defer = 1;
			break;
		case O_SPILL:
			o.spill = optarg;
			break;
		case O_SPILL_SIZE:
			o.spill_size = parse_size("--spill-size", optarg);
			break;
		case O_READY_FD:
			o.ready_fd = parse_u64("--ready-fd", optarg);
			if (o.ready_fd < 3 || fcntl(o.ready_fd, F_GETFD) == -1)
				diex(EX_USAGE, "--ready-fd %s: not an open "
				    "descriptor above 2", optarg);
			break;
		case O_NO_SNAPSHOT:
			o.no_snapshot = 1;
			break;
		case O_STACKS_COMM:
			o.stack_comms = xrealloc(o.stack_comms,
			    (o.nstack_comms + 1) * sizeof(char *));
			o.stack_comms[o.nstack_comms++] = optarg;
			break;
		default:
			usage_error(usage);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 0)
		o.cmd = argv;
	if (patch) {
		if (spec)
			diex(EX_USAGE, "--patch takes probe sets (--probes), "
			    "not --probe");
		if (nsets == 0)
			diex(EX_USAGE, "--patch: which probe sets (--probes)?");
		/* The sets go to the patcher instead of to uprobes, and
		 * their events are all its rings may name. */
		for (i = 0; probes_event(i) != NULL; i++)
			patched_allow(probes_event(i));
		probes_forget();
		for (i = 0; i < nsets; i++)
			patched_set(sets[i]);
	}
	free(sets);
	if (b < 64 * 1024)
		diex(EX_USAGE, "--buffer-size: at least 64K");
	o.buffer_kb = b / 1024;
	if (o.ring != NULL && c.out != NULL)
		diex(EX_USAGE, "-o and --ring: choose one");
	if (o.ring != NULL)
		out_ring_usage_check(o.ring_size, o.ring_files);
	if (o.spill != NULL && !o.defer)
		diex(EX_USAGE, "--spill: only with --defer (a live capture "
		    "reads every page already)");
	if (o.defer && (o.nstack_pids > 0 || o.nstack_comms > 0))
		diex(EX_USAGE, "--defer and --stacks: stacks are sampled as "
		    "events come; choose one");
	if (o.spool_size < (1 << 20))
		diex(EX_USAGE, "--spool-size: at least 1M");
	o.out = c.out;
	o.z = c.z;
	return capture_run(&o);
}
