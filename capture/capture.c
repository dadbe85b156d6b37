/*
 * One capture from start to end: the instance, the reader, the merge, the
 * output, and the order these must happen in.
 */
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "graph.h"
#include "hosts.h"
#include "util.h"
#include "capture.h"
#include "dwstack.h"
#include "emit.h"
#include "events.h"
#include "kallsyms.h"
#include "out.h"
#include "patched.h"
#include "probes.h"
#include "spill.h"
#include "spool.h"
#include "tasks.h"
#include "tracefs.h"
#include "waitfor.h"

#define SUBBUF_KB	64
/*
 * The bridge's buffer per CPU (tfs_bridge_create), an eighth of ours and
 * 16 MiB at most: allocated at once, it holds seconds of a quiet
 * machine's events while the kernel allocates ours, which takes it
 * seconds for large buffers, with the instance's tracing stopped
 * (bench/recorder, "start").  Only for buffers of 32 MiB and more.
 */
#define BRIDGE_KB	(16 * 1024)
#define BRIDGE_MIN_KB	(32 * 1024)
#define BATCH		2048	/* records between checks of the ring */
#define SEC		1000000000ULL

static const struct capture_opts *opt;
static int		 ncpu;
static uint64_t		 t_start, t_snap;
static int		 child = -1;
static int		 status_line;
static int		 formatter_tid;
static struct wf_snap	*snap;
static _Atomic uint64_t	 noted;		/* the last request served */
static _Atomic uint64_t	 deepen_to;	/* SIGUSR2's time; 0: none */
static uint64_t		 spill_room(void);
static pthread_t	 grower;
static int		 growing;	/* grower was started */
static int		 ready_fd = -1;	/* --ready-fd, until tracing is on */

static int
count_cpus(void)
{
	char p[64];
	int n;

	/* One per_cpu directory for each CPU the buffer covers. */
	for (n = 0; n < 8192; n++) {
		snprintf(p, sizeof(p), "per_cpu/cpu%d", n);
		if (!tfs_exists(p))
			break;
	}
	if (n == 0)
		diex(EX_UNAVAILABLE, "%s: no per_cpu buffers", tfs_instance());
	return n;
}

/* What every output file starts with, so that each can be read alone. */
static void
preamble(struct writer *w)
{
	struct utsname u;
	char host[256], buf[4096];
	size_t len = 0;
	int i;

	if (emit_last_time() > t_snap)
		t_snap = emit_last_time();
	uname(&u);
	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "%s", u.nodename);
	host[sizeof(host) - 1] = '\0';
	meta_write(w, t_start, "source", "tracefs");
	meta_write(w, t_start, "clock", "mono");
	meta_write(w, t_start, "capture", "argus-capture " ARGUS_VERSION);
	meta_write(w, t_start, "hostname", "%s", host);
	meta_identity(w, t_start);
	snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.release,
	    u.version, u.machine);
	meta_write(w, t_start, "kernel", "%s", buf);
	meta_u64(w, t_start, "cpus", ncpu);
	meta_write(w, t_start, "instance", "%s", tfs_instance());
	meta_u64(w, t_start, "buffer_size_kb", opt->buffer_kb);
	meta_write(w, t_start, "syscalls", "%s", events_syscall_desc());
	meta_u64(w, t_start, "start", t_start);
	meta_wallclock(w, t_start);
	for (i = 0; i < opt->npids; i++)
		meta_u64(w, t_start, "select_pid", opt->pids[i]);
	for (i = 0; i < opt->ncomms; i++)
		meta_write(w, t_start, "select_comm", "%s", opt->comms[i]);
	for (i = 0; i < opt->nstack_pids; i++)
		meta_u64(w, t_start, "stack_pid", opt->stack_pids[i]);
	for (i = 0; i < opt->nstack_comms; i++)
		meta_write(w, t_start, "stack_comm", "%s", opt->stack_comms[i]);
	if (opt->cmd != NULL) {
		for (i = 0; opt->cmd[i] != NULL && len < sizeof(buf) - 1; i++)
			len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
			    i ? " " : "", opt->cmd[i]);
		meta_write(w, t_start, "command", "%s", buf);
		meta_u64(w, t_start, "command_pid", child);
	}
	for (i = 0; i < probes_count(); i++)
		meta_write(w, t_start, "probe", "%s", probes_desc(i));
	for (i = 0; patched_desc(i) != NULL; i++)
		meta_write(w, t_start, "patch", "%s", patched_desc(i));
	task_generation++;	/* threads are introduced as they appear */
	kallsyms_new_file();	/* and functions named */
}

static uint64_t patch_lost_total;	/* said on stderr at the end */

/*
 * Each patched process's events lost since the last report: a record of
 * its pid, the count and the time since which they were (the record's
 * own time: until when), so that a diagnosis whose window holds them
 * says so; and the totals for argus status.
 */
static void
report_patch_lost(struct writer *w)
{
	struct patch_loss l[64];
	int i, n;

	while ((n = patched_losses(l, ARRAY_LEN(l))) > 0)
		for (i = 0; i < n; i++) {
			patch_lost_total += l[i].n;
			writer_begin(w, KIND_META);
			writer_time(w, l[i].to);
			writer_u64(w, l[i].pid);
			writer_empty(w);
			writer_str(w, META_PATCH_LOST);
			writer_u64(w, l[i].n);
			writer_time(w, l[i].from);
			writer_end(w);
			out_patch_lost(l[i].pid, l[i].comm, l[i].n, l[i].from,
			    l[i].to);
		}
}

/*
 * Lost events since the last report, as the kernel counted them; their
 * total since the start.  They are said with the pages, at the first
 * event of the page the kernel marked after them: as the formatter
 * reaches it (emit_run()), or as the spill is read back (emit_spill()),
 * if the page was spilled.  Here, before the end, the count
 * read now may hold losses whose page the formatter has not reached,
 * and would say them where it stands, seconds later when it lags behind
 * a flood, or at a request's moment, in the hang it asks about: so only
 * at the end, what no page said.
 */
static uint64_t
report_lost(struct writer *w, int end)
{
	struct spool_stats st;
	uint64_t total = 0, n;
	int cpu;

	st.lost = xcalloc(ncpu, sizeof(*st.lost));
	spool_lost(&st);
	for (cpu = 0; cpu < ncpu; cpu++) {
		total += st.lost[cpu];
		if (end)
			emit_lost(w, emit_last_time() > t_start ?
			    emit_last_time() : t_start, cpu, st.lost[cpu]);
	}
	free(st.lost);
	/* Patched processes' rings that were full (capture/patched.c). */
	report_patch_lost(w);
	if ((n = patched_lost()) > 0) {
		patch_lost_total += n;
		meta_u64(w, emit_last_time() > t_start ? emit_last_time() :
		    t_start, META_PATCH_LOST, n);
	}
	/* Rings refused: what they claimed, said on stderr. */
	if ((n = patched_refused()) > 0)
		meta_u64(w, emit_last_time() > t_start ? emit_last_time() :
		    t_start, "patch_refused", n);
	return total;
}

static void
human(char *buf, size_t size, double v, const char *unit)
{
	const char *sfx[] = { "", "k", "M", "G", "T" };
	int i = 0;

	while (v >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(buf, size, "%.*f %s%s", i ? 1 : 0, v, sfx[i], unit);
}

/*
 * Parsing at idle priority keeps the traced workload's CPU for itself,
 * but on a saturated machine it may not run at all; a backlog that grows
 * large or old (the hang being traced may be the thing keeping every CPU
 * busy) means we must catch up at normal priority.  The patched rings'
 * events queued count too: with few kernel events (-s none) nothing
 * else says that a burst of theirs beside CPU hogs waits for it.
 */
static int
behind(void)
{
	size_t b = spool_bytes();

	return b >= opt->spool_size / 4 || (b >= (1 << 20) &&
	    spool_watermark() > emit_last_time() + 2 * SEC) ||
	    patched_behind();
}

/* Someone waits for the formatter: it must not wait for idle CPU time. */
static int
asked(void)
{
	return spool_requested() > atomic_load(&noted) ||
	    atomic_load(&deepen_to) != 0;
}

/*
 * Stacks are taken of a process from when the formatter meets it (its
 * fork, its name): at idle priority on a busy machine it met them
 * seconds late, their first waits unsampled (a scenario's renderer
 * forked and blocked unseen beside other sessions' builds).
 */
static int
may_idle(void)
{
	return opt->nstack_pids == 0 && opt->nstack_comms == 0 &&
	    !spool_stopped() && !behind() && !asked();
}

static void
set_idle(int tid, int idle)
{
	struct sched_param sp = { 0 };

	sched_setscheduler(tid, idle ? SCHED_IDLE : SCHED_OTHER, &sp);
}

/* Once a second, from the reader thread: it runs even when we are starved. */
static void
tick(void)
{
	static uint64_t prev_count, prev_t;
	struct spool_stats st;
	uint64_t t = now_ns(), n = emit_count(), lost = 0;
	char rate[32], out[32], backlog[32];
	int cpu;

	if (behind() || asked())
		set_idle(formatter_tid, 0);
	if (!status_line || t_start == 0)
		return;		/* not tracing yet */
	st.lost = xcalloc(ncpu, sizeof(*st.lost));
	spool_lost(&st);
	for (cpu = 0; cpu < ncpu; cpu++)
		lost += st.lost[cpu];
	free(st.lost);
	human(rate, sizeof(rate), prev_t && t > prev_t ?
	    (double)(n - prev_count) * SEC / (t - prev_t) : 0, "ev/s");
	human(out, sizeof(out), out_bytes(), "B");
	human(backlog, sizeof(backlog), spool_bytes(), "B");
	fprintf(stderr, "\r\033[Kargus-capture: %llus, %s, %llu events, "
	    "%s written, backlog %s, lost %llu",
	    (unsigned long long)((t - t_start) / SEC), rate,
	    (unsigned long long)n, out, backlog, (unsigned long long)lost);
	prev_count = n;
	prev_t = t;
}

/*
 * From the reader, as soon as tracing is off: what every blocked thread
 * waits on at the moment the capture was cut, kept until the formatter
 * has written the events before it.  The reader's real-time priority was
 * for keeping up with the buffers, which no longer fill.
 */
static void
snapshot(void)
{
	static struct wf_opts wo;
	static int self;
	struct sched_param sp = { 0 };

	sched_setscheduler(0, SCHED_OTHER, &sp);
	self = getpid();
	wo.pids = opt->pids;
	wo.npids = opt->npids;
	wo.comms = opt->comms;
	wo.ncomms = opt->ncomms;
	wo.skip = &self;
	wo.nskip = 1;
	snap = wf_take(&wo);
}

/*
 * The command, forked now and run once tracing is on.  *go releases it;
 * *why reads its errno if it cannot be run, or end of file once it runs
 * (the descriptor closes on exec): env(1)'s and the shells' distinction
 * between a command that failed and one that never ran.
 */
static int
start_child(int *go, int *why)
{
	int p[2], e[2], eno;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) == -1 || pipe2(e, O_CLOEXEC) == -1)
		die(EX_OSERR, "pipe");
	if ((pid = fork()) == -1)
		die(EX_OSERR, "fork");
	if (pid == 0) {
		close(p[1]);
		close(e[0]);
		/* Wait until tracing is on: the whole run is in the trace. */
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		patched_child_env();
		execvp(opt->cmd[0], opt->cmd);
		eno = errno;
		if (write(e[1], &eno, sizeof(eno)) != sizeof(eno))
			_exit(126);
		_exit(eno == ENOENT ? 127 : 126);
	}
	close(p[0]);
	close(e[1]);
	*go = p[1];
	*why = e[0];
	return pid;
}

/* Whether the command runs: exit 127 (not found) or 126 if it cannot. */
static void
check_exec(int why)
{
	ssize_t n;
	int eno;

	while ((n = read(why, &eno, sizeof(eno))) == -1 && errno == EINTR)
		;
	close(why);
	if (n != sizeof(eno))
		return;
	errno = eno;
	die(eno == ENOENT ? 127 : 126, "%s", opt->cmd[0]);
}

/*
 * The current instance (ours or the bridge) configured, not yet tracing,
 * with a buffer of kb per CPU (0: left as the kernel made it).
 */
static void
configure_instance(const struct capture_opts *o, unsigned kb)
{
	if (tfs_write("tracing_on", "0") == -1)
		die(EX_UNAVAILABLE, "%s/tracing_on", tfs_instance());
	if (tfs_write("trace_clock", "mono") == -1)
		die(EX_UNAVAILABLE, "%s: cannot use the mono trace clock",
		    tfs_instance());
	/*
	 * Bigger sub-buffers: one read(2) moves 64 KiB instead of a 4 KiB
	 * page, which cut the reader's system time by half or more
	 * (kernels before 6.8 lack the file and keep pages).  Before the
	 * size: the kernel allocates the whole buffer again for a new
	 * sub-buffer size, which doubled the time to start.
	 */
	if (tfs_exists("buffer_subbuf_size_kb") &&
	    tfs_write("buffer_subbuf_size_kb", "%u", SUBBUF_KB) == -1)
		warnx_("this kernel keeps its one-page sub-buffers "
		    "(buffer_subbuf_size_kb %u: %s): reading them costs more "
		    "CPU time, nothing else", SUBBUF_KB, strerror(errno));
	if (kb > 0 && tfs_write("buffer_size_kb", "%u", kb) == -1)
		die(EX_UNAVAILABLE, "%s: buffer_size_kb %u", tfs_instance(), kb);
	/* Deferred, the ring is all there is: the newest events in it. */
	if (o->defer && tfs_write("options/overwrite", "1") == -1)
		die(EX_UNAVAILABLE, "%s/options/overwrite", tfs_instance());
	/* Markers written to the top-level trace_marker reach us too. */
	if (tfs_exists("options/copy_trace_marker") &&
	    tfs_write("options/copy_trace_marker", "1") == -1)
		warnx_("cannot copy trace_marker writes into %s: only writes "
		    "to its own trace_marker will be seen", tfs_instance());
}

/*
 * Our instance, configured but not yet tracing.  A deferred recorder's
 * buffers are large: the bridge records while they are allocated (not
 * with probes, whose events are set up once, in ours).
 */
static void
configure(const struct capture_opts *o)
{
	const char *root;
	unsigned bkb = o->buffer_kb / 8 < BRIDGE_KB ? o->buffer_kb / 8 :
	    BRIDGE_KB;
	int bridge;

	root = tfs_root();
	tfs_reap_stale(root);
	probes_reap_stale();	/* after the instances that enabled them */
	tfs_instance_create(root);
	bridge = o->defer && o->buffer_kb >= BRIDGE_MIN_KB &&
	    !probes_wanted() && getenv("ARGUS_CAPTURE_NO_BRIDGE") == NULL;
	configure_instance(o, bridge ? 0 : o->buffer_kb);
	if (bridge) {
		tfs_bridge_create();
		tfs_bridge_select(1);
		configure_instance(o, bkb);
		tfs_bridge_select(0);
	}
	ncpu = count_cpus();
}

/* Our buffers grown to their size, then ours records instead of the bridge. */
static void *
grow(void *arg)
{
	(void)arg;
	if (tfs_write("buffer_size_kb", "%u", opt->buffer_kb) == -1)
		die(EX_UNAVAILABLE, "%s: buffer_size_kb %u", tfs_instance(),
		    opt->buffer_kb);
	/* The bridge's memory back soon: its events out into the ring. */
	if (spool_switch())
		spool_request();
	return NULL;
}

/* Whoever waits for the recording (argus start): since when, in mono ns. */
static void
ready(void)
{
	if (ready_fd < 0)
		return;
	if (dprintf(ready_fd, "ready %llu\n", (unsigned long long)t_start) < 0)
		warnx_("--ready-fd %d: %s", ready_fd, strerror(errno));
	close(ready_fd);
	ready_fd = -1;
}

/* The reader, the events, the command: tracing from here on. */
static void
start(const struct capture_opts *o)
{
	struct spool_conf sc = { 0 };
	char buf[64];
	int self[4], nself, go = -1, why = -1, i, *tgids;

	sc.ncpu = ncpu;
	sc.pagesize = getpagesize();
	if (tfs_read("buffer_subbuf_size_kb", buf, sizeof(buf)) > 0 &&
	    atoi(buf) > 0)
		sc.pagesize = (size_t)atoi(buf) * 1024;
	sc.limit = o->spool_size;
	sc.bufsize = (size_t)o->buffer_kb * 1024;
	sc.tick = tick;
	if (o->nstack_pids > 0 || o->nstack_comms > 0)
		sc.pass = dwstack_collect;
	if (!o->no_snapshot)
		sc.stopped = snapshot;
	sc.defer = o->defer;
	sc.spill = o->spill;
	sc.spill_size = o->spill_size;
	if (o->ring != NULL && o->spill != NULL)
		sc.spill_size = spill_room();
	spool_start(&sc);
	if (tfs_bridge())
		spool_bridge();

	/* Its thread is ours, and left out of the trace as ours are. */
	patched_setup(o->cmd != NULL, ncpu);
	/*
	 * User-space events as far back as the kernel's buffers reach, or
	 * near: a deferred recorder held a million, two seconds of a busy
	 * GLib loop's callbacks, while its buffers kept ten minutes.  Half
	 * their memory (256 MiB beside argus start's 512).
	 */
	patched_hold((uint64_t)o->buffer_kb * 1024 * ncpu / 2);
	self[0] = syscall(SYS_gettid);
	self[1] = spool_reader_tid();
	self[2] = patched_tid();
	nself = self[2] > 0 ? 3 : 2;
	if (spool_spill_tid() > 0)
		self[nself++] = spool_spill_tid();
	events_setup(o->syscalls, self, nself);
	if (tfs_bridge()) {
		tfs_bridge_select(1);
		events_setup(o->syscalls, self, nself);
		tfs_bridge_select(0);
	}
	probes_setup(self, nself);
	if (o->nstack_pids > 0 || o->nstack_comms > 0)
		dwstack_setup();
	emit_init(ncpu);
	if (o->cmd != NULL)
		child = start_child(&go, &why);

	/*
	 * The processes asked for, known before tracing: one that ends just
	 * after is still selected, and its end recorded, not refused.
	 */
	tgids = xcalloc(o->npids + o->nstack_pids, sizeof(*tgids));
	for (i = 0; i < o->npids; i++)
		if ((tgids[i] = task_tgid(o->pids[i])) <= 0)
			diex(EX_USAGE, "--pid %d: no such process", o->pids[i]);
	for (i = 0; i < o->nstack_pids; i++)
		if ((tgids[o->npids + i] = task_tgid(o->stack_pids[i])) <= 0)
			diex(EX_USAGE, "--stacks %d: no such process",
			    o->stack_pids[i]);

	t_start = now_ns();
	tfs_bridge_select(1);
	if (tfs_write("tracing_on", "1") == -1)
		die(EX_UNAVAILABLE, "%s/tracing_on", tfs_instance());
	tfs_bridge_select(0);
	if (tfs_bridge()) {
		if ((errno = pthread_create(&grower, NULL, grow, NULL)) != 0)
			die(EX_OSERR, "pthread_create");
		growing = 1;
	}
	spool_deadline(o->duration ? t_start + o->duration : 0, child);
	/* After tracing is on: a thread born meanwhile is in both. */
	task_snapshot();
	/* The rings' threads are now checked against both (patched.c). */
	patched_read();
	t_snap = t_start;	/* the state as tracing began, in time order */
	for (i = 0; i < o->npids; i++)
		emit_select_pid(tgids[i]);
	for (i = 0; i < o->ncomms; i++)
		emit_select_comm(o->comms[i]);
	for (i = 0; i < o->nstack_pids; i++)
		emit_stack_pid(tgids[o->npids + i]);
	free(tgids);
	for (i = 0; i < o->nstack_comms; i++)
		emit_stack_comm(o->stack_comms[i]);
	/*
	 * The formatter learns of a process a moment after the kernel, too
	 * late to sample it from its start: the command, which may be or
	 * start what --stacks-comm names, is sampled from its first
	 * instruction (samples of others it starts are pruned unasked).
	 */
	if (o->nstack_comms > 0 && child > 0)
		dwstack_follow(child);
	/*
	 * Then whoever waits may go on, as soon as all it asked for is in
	 * place: a process it starts now is selected and its stacks
	 * followed from its fork; and a patched program started at once
	 * (argus run after argus start) need not fill its rings while the
	 * drainer waits for the snapshot.
	 */
	ready();
	if (go != -1) {
		if (write(go, "g", 1) != 1)
			die(EX_OSERR, "starting %s", o->cmd[0]);
		close(go);
		/* Before any output: a capture of nothing run is no capture. */
		check_exec(why);
	}
}

/*
 * A request served (spool_request()): everything up to its moment is
 * written and flushed, and the ring says so for whoever asked.
 */
static void
serve(uint64_t upto)
{
	uint64_t req = spool_requested();

	if (req <= atomic_load(&noted) || upto < req)
		return;
	report_lost(out_writer(), 0);
	out_flush();
	spill_lock();
	out_served(req, emit_spill_reach());
	spill_unlock();
	atomic_store(&noted, req);
}

/*
 * A read back takes no more pages than the ring's size: the ring's files
 * keep no more of them (a page's events take about a seventh of it
 * there), and a deflated spill holds ten times that, minutes to read.
 */
static uint64_t
readback_from(uint64_t t)
{
	uint64_t since = spill_since(opt->ring_size);

	return since > t ? since : t;
}

/*
 * A deepening (SIGUSR2, argus debug): the spilled events from t on, read
 * back into a ring file of their own, since they are older than the
 * newest files' (readers merge the ring's files by time).  The answer,
 * DIR/deepened, says from when on the ring's files now hold every event.
 */
static void
deepen(uint64_t t)
{
	uint64_t n, oldest, reach;

	if (opt->ring == NULL || opt->spill == NULL)
		return;
	spill_lock();
	out_rotate();
	n = emit_spill(out_writer(), out_index(), readback_from(t), &oldest);
	out_rotate();
	out_flush();
	reach = emit_spill_reach();
	/* served's reach is the one readers see: the new one. */
	out_served(atomic_load(&noted), reach);
	out_deepened(t, reach, n, oldest);
	spill_unlock();
}

/* SIGUSR2 with a time (sigqueue(3)): read the spill back to it. */
static void
on_deepen(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_QUEUE)
		atomic_store(&deepen_to, (uint64_t)(uintptr_t)si->si_value.sival_ptr);
	else
		atomic_store(&deepen_to, 1);
}

/*
 * The ring's size covers its files and the spill: while the recorder
 * defers, its files are nearly empty and the spill may take the rest;
 * when they grow, the spill gives way, its oldest pages first.
 */
static uint64_t
spill_room(void)
{
	struct spill_stats ss;
	struct statvfs sv;
	uint64_t used, room, free_;

	used = out_bytes() + opt->ring_size / opt->ring_files;
	room = used >= opt->ring_size ? 0 : opt->ring_size - used;
	if (opt->spill_size < room)
		room = opt->spill_size;
	/*
	 * Nor the disk's last free room: the ring's files need it, or the
	 * recorder stops for a full disk that the spill filled.  Room for
	 * two files' shares stays free.
	 */
	if (statvfs(opt->spill, &sv) == 0 || statvfs(opt->ring, &sv) == 0) {
		spill_stats(&ss);
		free_ = (uint64_t)sv.f_bavail * sv.f_frsize + ss.held;
		used = 2 * (opt->ring_size / opt->ring_files);
		free_ = free_ > used ? free_ - used : 0;
		if (free_ < room)
			room = free_;
	}
	return room;
}

static void
share_budget(void)
{
	if (opt->ring == NULL || opt->spill == NULL)
		return;
	spill_budget(spill_room());
}

/* SIGUSR1: write out what the kernel holds now (argus debug, argus mark). */
static void
on_request(int sig)
{
	(void)sig;
	spool_request();
}

/* Records until the reader has stopped and everything is written. */
static void
format_loop(void)
{
	uint64_t t, last_flush, n, upto;
	sigset_t stop, old;

	/*
	 * The kernel gives a signal for the process to its main thread
	 * first, this one, which runs at idle priority: on a busy machine
	 * its handler runs late, and the recording goes on until it does.
	 * The reader, which stops tracing, takes it instead.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	last_flush = now_ns();
	set_idle(0, may_idle());
	for (;;) {
		upto = spool_watermark();
		n = emit_run(out_writer(), out_index(), upto, BATCH);
		/*
		 * A spool full of pages later than the watermark, which a
		 * CPU the reader cannot read for want of room holds back:
		 * rather than wait forever, write what we have, at the cost
		 * of order (only with a spool far smaller than the kernel's
		 * buffers).
		 */
		if (n == 0 && spool_full())
			n = emit_run(out_writer(), out_index(), UINT64_MAX,
			    BATCH);
		/*
		 * Served up to what is written: the kernel's events wait for
		 * the patched rings' drainer (argus debug reads once served).
		 */
		if (n > 0)
			out_check();
		else {
			serve(emit_bound(upto));
			/* After the kernel's recent events: the older ones. */
			if (atomic_load(&deepen_to) != 0 &&
			    spool_requested() <= atomic_load(&noted)) {
				set_idle(0, 0);
				deepen(atomic_exchange(&deepen_to, 0));
				share_budget();
			}
		}
		t = now_ns();
		if (t - last_flush >= SEC) {
			report_lost(out_writer(), 0);
			out_flush();
			share_budget();
			last_flush = t;
			set_idle(0, may_idle());
		}
		if (spool_error() != NULL)
			diex(EX_SOFTWARE, "reading the trace: %s",
			    spool_error());
		if (n == 0) {
			if (spool_done())
				break;
			/* Someone waits for it: at full speed. */
			if (spool_stopped() || asked())
				set_idle(0, 0);
			spool_wait();
		}
	}
	set_idle(0, 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void
debug_report(void)
{
	struct rusage ru;
	double cpu;

	getrusage(RUSAGE_THREAD, &ru);
	cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	warnx_("formatter: %llu events in %.3f s of CPU, %.0f ns each, %llu "
	    "bytes of pages", (unsigned long long)emit_count(), cpu,
	    emit_count() ? cpu * 1e9 / emit_count() : 0,
	    (unsigned long long)spool_total());
}

/* The closing records, the instance gone, and what the user must know. */
static void
finish(const struct capture_opts *o)
{
	struct spool_stats s;
	struct wf_stats ws;
	char msg[512];
	uint64_t t, lost, stacks, missed, dropped;
	int cpu, len, st;

	/*
	 * What is still spilled, into a file of its own: the recording
	 * stays whole for argus debug after the recorder is gone.
	 */
	if (o->spill != NULL && o->ring != NULL) {
		struct spill_stats ss;
		uint64_t n, oldest, left;

		spill_lock();
		out_rotate();
		n = emit_spill(out_writer(), out_index(), readback_from(0),
		    &oldest);
		out_rotate();
		spill_unlock();
		spill_stats(&ss);
		left = ss.held;
		spill_remove();
		warnx_("spill: %.1f MiB spilled, deflated to %.1f MiB; %.1f MiB "
		    "dropped for the budget; %.3f s of CPU; %llu spilled events "
		    "written at the end", ss.pages / 1048576.0,
		    ss.spilled / 1048576.0, ss.dropped / 1048576.0, ss.cpu,
		    (unsigned long long)n);
		if (left > 0)
			warnx_("spill: the oldest %.1f MiB (deflated) left out: "
			    "more than the ring's %.0f MiB", left / 1048576.0,
			    o->ring_size / 1048576.0);
	}
	lost = report_lost(out_writer(), 1);
	t = emit_last_time() > t_start ? emit_last_time() : now_ns();
	/* After every event: it was taken once tracing was off. */
	if (snap != NULL) {
		wf_write(out_writer(), snap);
		if (out_index() != NULL)
			wf_write(out_index(), snap);
		wf_stats(snap, &ws);
		if (ws.time > t)
			t = ws.time;
	}
	meta_u64(out_writer(), t, "end", now_ns());
	meta_u64(out_writer(), t, "events", emit_count());
	meta_u64(out_writer(), t, META_LOST, lost);
	if (snap != NULL) {
		meta_u64(out_writer(), t, "snapshot_waits", ws.waits);
		meta_u64(out_writer(), t, "snapshot_holders", ws.holders);
		meta_u64(out_writer(), t, "snapshot_ns", ws.ns);
		meta_u64(out_writer(), t, "snapshot_unreadable", ws.unreadable);
		wf_free(snap);
		snap = NULL;
	}
	if (o->nstack_pids > 0 || o->nstack_comms > 0) {
		dwstack_stats(&stacks, &missed, &dropped);
		meta_u64(out_writer(), t, "stacks", stacks);
		meta_u64(out_writer(), t, "stacks_missed", missed);
		meta_u64(out_writer(), t, "stacks_lost", dropped);
		dwstack_close();
	}
	st = spool_child_status();
	if (st != -1)
		meta_u64(out_writer(), t, "command_status", WIFEXITED(st) ?
		    WEXITSTATUS(st) : 128 + WTERMSIG(st));
	out_close();
	if (getenv("ARGUS_CAPTURE_DEBUG") != NULL)
		debug_report();
	/* Its write holds our instance open: it cannot go before. */
	if (growing)
		pthread_join(grower, NULL);
	tfs_instance_remove();
	probes_remove();
	if (status_line) {
		tick();
		fputc('\n', stderr);
	}
	if (lost > 0) {
		s.lost = xcalloc(ncpu, sizeof(*s.lost));
		spool_lost(&s);
		/* Deferred, the oldest go by design: say so, not "lost". */
		len = snprintf(msg, sizeof(msg), o->defer ? "%llu events "
		    "overwritten in the kernel's buffers before they were "
		    "asked for (--defer keeps the newest --buffer-size per "
		    "CPU):" : "lost %llu events (kernel buffer overrun; try a "
		    "larger --buffer-size):", (unsigned long long)lost);
		for (cpu = 0; cpu < ncpu && len < (int)sizeof(msg) - 32; cpu++)
			if (s.lost[cpu])
				len += snprintf(msg + len, sizeof(msg) - len,
				    " cpu%d %llu", cpu,
				    (unsigned long long)s.lost[cpu]);
		warnx_("%s", msg);
		free(s.lost);
	}
	if (patch_lost_total > 0) {
		uint64_t late, pass;

		patched_lateness(&late, &pass);
		warnx_("lost %llu user-space events of patched programs (a ring "
		    "full, or the formatter far behind; ARGUS_PATCH_RING makes "
		    "the rings larger): the rings' drainer woke up to %.1f ms "
		    "late, and its longest pass took %.1f ms",
		    (unsigned long long)patch_lost_total, late / 1e6,
		    pass / 1e6);
	}
	/*
	 * The command ran under us: its failure is not ours (the trace is
	 * whole, its status in command_status), but say so.
	 */
	if (st != -1 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		warnx_("%s exited with status %d", o->cmd[0],
		    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/*
 * The recorder (--ring) is a daemon: its stderr is a file in its ring,
 * which a full disk cannot take.  Why it stops goes where it can be
 * read: to argus start while it waits, to syslog (the journal), and into
 * DIR/stopped for argus status.
 */
static void
last_words(int eno, const char *msg)
{
	char buf[4096 + 512], when[32];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%F %T", localtime(&now));
	snprintf(buf, sizeof(buf), "%s%s; the recorder stopped at %s, what it "
	    "wrote stays in %s%s", msg, eno == ENOSPC ? " (ENOSPC)" : "",
	    when, opt->ring, eno == ENOSPC || eno == EDQUOT ? ": make room "
	    "on its file system and 'argus start' again" : "");
	if (ready_fd >= 0) {
		dprintf(ready_fd, "%s\n", buf);
		close(ready_fd);
		ready_fd = -1;
	}
	syslog(LOG_ERR, "%s", buf);
	out_stopped(buf);
}

int
capture_run(const struct capture_opts *o)
{
	struct out_conf oc = { 0 };

	opt = o;
	formatter_tid = syscall(SYS_gettid);
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe is an error, not death */
	catch_signals();
	/* First of all: `argus debug' may ask as soon as it knows our pid. */
	signal(SIGUSR1, on_request);
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_deepen;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR2, &sa, NULL);
	}
	status_line = isatty(STDERR_FILENO);
	ready_fd = o->ready_fd;
	if (o->ring != NULL) {
		openlog("argus-capture", LOG_PID, LOG_DAEMON);
		die_say = last_words;
	}

	oc.path = o->out;
	oc.z = o->z;
	oc.ring = o->ring;
	oc.ring_size = o->ring_size;
	oc.ring_files = o->ring_files;
	oc.preamble = preamble;
	out_prepare(&oc);
	configure(o);
	start(o);
	out_open();
	format_loop();
	finish(o);
	return 0;
}
