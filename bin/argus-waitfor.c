/*
 * argus-waitfor: what every blocked thread waits on now, and who holds
 * the other end, as a record stream of its own (the snapshot argus-capture
 * takes when it is cut).
 */
#include <sys/utsname.h>

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph.h"
#include "hosts.h"
#include "util.h"
#include "waits.h"
#include "../capture/waitfor.h"

static const char usage[] =
"usage: argus-waitfor [-q] [-p PID[,PID]] [-t TID[,TID]] [-c COMM] [-o FILE]\n"
"Write what every blocked thread waits on now, and who holds the other end\n"
"of it, as an Argus record stream (argus-stream(5): wait and holder records).\n"
"\n"
"  -p, --pid LIST      only these processes (any state), and transitively\n"
"                      the blocked threads of whoever holds what they wait on\n"
"  -t, --tid LIST      the same from these threads\n"
"  -c, --comm NAME     the same from processes or threads named NAME\n"
"      --providers DIR ask the runtime providers in DIR (repeatable), not\n"
"                      those of $ARGUS_PROVIDERS or the default directories\n"
"      --no-providers  ask no runtime\n"
"      --provider-timeout DURATION\n"
"                      kill a provider past DURATION (default 1s)\n"
"  -q, --quiet         no figures on stderr\n"
"      --relations     list the holder relations and what waits each ends\n"
"  -o, --output FILE   write to FILE (mode 0600, gzip); default stdout\n"
"  -z, --compress      gzip even into a pipe\n"
"  -Z, --no-compress   plain even into a file\n"
"  -h, --help          this text\n"
USAGE_VERSION("       ") "\n"
"\n"
"Reads /proc, /proc/locks and sock_diag, and asks runtime providers (a JVM,\n"
"InnoDB, PostgreSQL) who holds what their threads wait on; as root it sees\n"
"every process.\n"
"Exit: 0 ok, 64 usage, 69 unavailable (no /proc), 73 cannot create FILE.\n"
"See argus-waitfor(1).\n";

enum { O_RELATIONS = 256, O_PROVIDERS, O_NO_PROVIDERS, O_PROVIDER_TIMEOUT };

static void
add_ids(const char *arg, const char *opt, int **v, int *n)
{
	char *list = xstrdup(arg), *tok, *save;
	uint64_t id;

	for (tok = strtok_r(list, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		id = parse_u64(opt, tok);
		if (id == 0 || id > 4194304)
			diex(EX_USAGE, "%s: not a process or thread id: '%s'",
			    opt, tok);
		if (kill(id, 0) == -1 && errno == ESRCH)
			diex(EX_USAGE, "%s %s: no such process or thread", opt,
			    tok);
		*v = xrealloc(*v, (*n + 1) * sizeof(int));
		(*v)[(*n)++] = id;
	}
	free(list);
}

static void
relations(void)
{
	int r, m;

	printf("%-12s %-24s %s\n", "RELATION", "ENDS", "MEANING");
	for (r = 0; r < WR_N; r++) {
		char ends[64] = "";
		size_t n = 0;

		for (m = 0; m < WM_N; m++)
			if (wrel_ends(r, m))
				n += snprintf(ends + n, sizeof(ends) - n, "%s%s",
				    n ? "," : "", wmode_names[m]);
		/* A runtime's holder ends whatever the waiter is in. */
		if (m == WM_N && wrels[r].ends == ((1u << WM_N) - 2))
			snprintf(ends, sizeof(ends), "any");
		printf("%-12s %-24s %s\n", wrels[r].name, n ? ends : "-",
		    wrels[r].help);
	}
	exit(0);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		COMMON_LONG,
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "comm",	required_argument, NULL, 'c' },
		{ "quiet",	no_argument,	   NULL, 'q' },
		{ "relations",	no_argument,	   NULL, O_RELATIONS },
		{ "providers",	required_argument, NULL, O_PROVIDERS },
		{ "no-providers", no_argument,	   NULL, O_NO_PROVIDERS },
		{ "provider-timeout", required_argument, NULL,
		    O_PROVIDER_TIMEOUT },
		{ NULL, 0, NULL, 0 }
	};
	struct wf_opts o = { 0 };
	struct common c = { 0 };
	struct wf_stats st;
	struct wf_snap *snap;
	struct writer *w;
	struct utsname u;
	char **comms = NULL, **dirs = NULL, host[256];
	int ch, quiet = 0, self = getpid(), i;

	while ((ch = getopt_long(argc, argv, COMMON_SHORT "p:t:c:q", longopts,
	    NULL)) != -1) {
		if (common_option(&c, ch, optarg, usage))
			continue;
		switch (ch) {
		case 'p':
			add_ids(optarg, "--pid", (int **)&o.pids, &o.npids);
			break;
		case 't':
			add_ids(optarg, "--tid", (int **)&o.tids, &o.ntids);
			break;
		case 'c':
			comms = xrealloc(comms, (o.ncomms + 1) * sizeof(*comms));
			comms[o.ncomms++] = optarg;
			o.comms = comms;
			break;
		case 'q':
			quiet = 1;
			break;
		case O_RELATIONS:
			relations();
			break;
		case O_PROVIDERS:
			dirs = xrealloc(dirs, (o.nprovider_dirs + 1) *
			    sizeof(*dirs));
			dirs[o.nprovider_dirs++] = optarg;
			o.provider_dirs = dirs;
			break;
		case O_NO_PROVIDERS:
			o.no_providers = 1;
			break;
		case O_PROVIDER_TIMEOUT:
			o.provider_ns = parse_duration_ns("--provider-timeout",
			    optarg);
			if (o.provider_ns == 0)
				diex(EX_USAGE, "--provider-timeout: not a "
				    "duration above 0: '%s'", optarg);
			break;
		default:
			usage_error(usage);
		}
	}
	if (optind != argc)
		usage_error(usage);
	if (access("/proc/self/stat", R_OK) == -1)
		die(EX_UNAVAILABLE, "/proc");
	if (geteuid() != 0 && !quiet)
		warnx_("not root: other users' processes are left out");
	o.skip = &self;
	o.nskip = 1;
	catch_signals();
	/* The output is opened first: a bad path costs no snapshot. */
	w = writer_open(c.out, c.z);
	snap = wf_take(&o);
	wf_stats(snap, &st);
	uname(&u);
	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "%s", u.nodename);
	host[sizeof(host) - 1] = '\0';
	meta_write(w, st.time, "source", "procfs");
	meta_write(w, st.time, "clock", "mono");
	meta_write(w, st.time, "capture", "argus-waitfor " ARGUS_VERSION);
	meta_write(w, st.time, "hostname", "%s", host);
	meta_identity(w, st.time);
	meta_u64(w, st.time, "start", st.time);
	for (i = 0; i < o.npids; i++)
		meta_u64(w, st.time, "select_pid", o.pids[i]);
	for (i = 0; i < o.ntids; i++)
		meta_u64(w, st.time, "select_tid", o.tids[i]);
	for (i = 0; i < o.ncomms; i++)
		meta_write(w, st.time, "select_comm", "%s", o.comms[i]);
	wf_write(w, snap);
	meta_u64(w, st.time, "snapshot_waits", st.waits);
	meta_u64(w, st.time, "snapshot_holders", st.holders);
	meta_u64(w, st.time, "snapshot_ns", st.ns);
	meta_u64(w, st.time, "snapshot_unreadable", st.unreadable);
	writer_close(w);
	if (!quiet)
		warnx_("%llu threads, %llu descriptors: %llu waits, %llu "
		    "holders in %.1f ms", (unsigned long long)st.threads,
		    (unsigned long long)st.fds, (unsigned long long)st.waits,
		    (unsigned long long)st.holders, st.ns / 1e6);
	if (!quiet && st.unreadable > 0)
		warnx_("%llu blocked threads left out: their system calls are "
		    "not ours to read", (unsigned long long)st.unreadable);
	wf_free(snap);
	free(comms);
	free(dirs);
	return exit_status(1);
}
