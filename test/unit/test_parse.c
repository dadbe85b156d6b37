/*
 * Unit tests of what turns words into numbers and records into meaning:
 * durations and moments from the command line (lib/util.c), the graph's
 * record parsers (lib/graph.c), and the related threads (lib/relate.c).
 * Bad input must be refused, by the exit code its program documents, and
 * every boundary hold on both sides.
 */
#include <sys/wait.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ftwords.h"
#include "graph.h"
#include "names.h"
#include "relate.h"
#include "unit.h"
#include "waits.h"
#include "util.h"

/*
 * The exit status of fn(arg) in a child of its own, its words on stderr
 * thrown away: 0 if it returned.  Many refusals in one test.
 */
static int
status_of(void (*fn)(const char *), const char *arg)
{
	int st, fd;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) != -1)
			dup2(fd, STDERR_FILENO);
		fn(arg);
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void duration(const char *s) { parse_duration_ns("-T", s); }
static void number(const char *s) { parse_u64("-n", s); }
static void moment(const char *s) { struct when w; when_parse(&w, "-s", s); }

/*
 * lib/ftrace.def's FTRACE_WORD lines: argus-export prints by them and
 * argus-import reads them back, so a word or a record's word is said
 * once per conversion, and a flag is one bit.
 */
static void
ftwords_table(void)
{
	static const char *const flagsets[] = { "lockflags", "timerflags" };
	const struct ftword *w, *v;
	char buf[256];
	uint64_t all, x;
	size_t i, j, k;

	CHECK(nftwords > 0);
	for (i = 0; i < nftwords; i++) {
		w = &ftwords[i];
		for (j = i + 1; j < nftwords; j++) {
			v = &ftwords[j];
			if (strcmp(w->conv, v->conv) != 0)
				continue;
			CHECK(strcmp(w->text, v->text) != 0);
			CHECK(w->value != v->value);
			CHECK(w->record == NULL || v->record == NULL ||
			    strcmp(w->record, v->record) != 0);
		}
		for (k = 0; k < ARRAY_LEN(flagsets); k++)
			if (strcmp(w->conv, flagsets[k]) == 0)
				CHECK(w->value != 0 &&
				    (w->value & (w->value - 1)) == 0);
		CHECK(ftword_value(w->conv, w->text, strlen(w->text), &x) &&
		    x == w->value);
		CHECK(w->record == NULL || ftword_by_record(w->conv,
		    w->record) == w);
	}
	CHECK(ftword_flags("lockflags", "FL_POSIX|FL_SLEEP|0x800", 23) ==
	    0x881);
	CHECK(ftword_flags("lockflags", "FL_NOSUCH|", 10) == 0);
	CHECK(ftword_flags("timerflags", "D|I", 3) == 0x280000);
	CHECK(strcmp(ftword_record_flags("lockflags", 0x481, buf,
	    sizeof(buf)), "POSIX|SLEEP|OFD") == 0);
	CHECK(!ftword_value("locktype", "F_EXLCK", 7, &x));
	/* Every lock flag, as a record writes them, back to the value. */
	for (all = 0, i = 0; i < nftwords; i++)
		if (strcmp(ftwords[i].conv, "lockflags") == 0)
			all |= ftwords[i].value;
	ftword_record_flags("lockflags", all, buf, sizeof(buf));
	CHECK(strlen(buf) > 60);
}

static void
durations(void)
{
	CHECK(parse_duration_ns("-T", "1.5s") == 1500000000ULL);
	CHECK(parse_duration_ns("-T", "20ms") == 20000000ULL);
	CHECK(parse_duration_ns("-T", "300us") == 300000ULL);
	CHECK(parse_duration_ns("-T", "7ns") == 7);
	CHECK(parse_duration_ns("-T", "2") == 2000000000ULL);	/* bare: s */
	CHECK(parse_duration_ns("-T", "1m") == 60000000000ULL);
	CHECK(parse_duration_ns("-T", "1h") == 3600000000000ULL);
	CHECK(parse_duration_ns("-T", "0") == 0);
	/* To the nearest ns. */
	CHECK(parse_duration_ns("-T", "0.4ns") == 0);
	CHECK(parse_duration_ns("-T", "0.5ns") == 1);
	CHECK(parse_duration_ns("-T", "1.0000000004s") == 1000000000ULL);
}

static void
durations_refused(void)
{
	static const char *const bad[] = { "", "s", "-1s", "-0.5", "x",
	    "1x", "1 s", "1s ", "1S", "1sec", "nan", "inf", "infs", "1e400",
	    "1..5s" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(bad); i++)
		if (status_of(duration, bad[i]) != EX_USAGE) {
			fprintf(stderr, "'%s' not refused\n", bad[i]);
			CHECK(0);
		}
}

/* ns in a uint64_t: 584 years; one more second is refused, not wrapped. */
static void
durations_bounded(void)
{
	CHECK(parse_duration_ns("-T", "18446744072s") ==
	    18446744072000000000ULL);
	CHECK(status_of(duration, "18446744074s") == EX_USAGE);
	CHECK(status_of(duration, "1e20s") == EX_USAGE);
	CHECK(status_of(duration, "5124096h") == EX_USAGE);
	CHECK(parse_duration_ns("-T", "5124095h") ==
	    5124095ULL * 3600000000000ULL);
}

static void
numbers(void)
{
	static const char *const bad[] = { "", "-1", " -1", " 1", "+1", "1x",
	    "0x10", "18446744073709551616", "99999999999999999999" };
	size_t i;

	CHECK(parse_u64("-n", "0") == 0);
	CHECK(parse_u64("-n", "007") == 7);
	CHECK(parse_u64("-n", "18446744073709551615") == UINT64_MAX);
	for (i = 0; i < ARRAY_LEN(bad); i++)
		if (status_of(number, bad[i]) != EX_USAGE) {
			fprintf(stderr, "'%s' not refused\n", bad[i]);
			CHECK(0);
		}
}

static void
moments(void)
{
	struct when w;
	char buf[64];

	when_parse(&w, "-s", "+1.5s");
	CHECK(w.set && w.relative && !w.wall && w.ns == 1500000000ULL);
	CHECK(when_resolve(&w, 1000) == 1500001000ULL);
	CHECK(when_resolve(&w, NO_TIME) == 1500000000ULL);
	when_parse(&w, "-s", "123");
	CHECK(!w.relative && !w.wall && when_resolve(&w, 1000) == 123);

	/* Clock times: local time, here UTC. */
	setenv("TZ", "UTC0", 1);
	tzset();
	when_parse(&w, "-s", "2026-11-26 12:30:00.25");
	CHECK(w.wall && w.ns == 1795696200ULL * 1000000000ULL + 250000000);
	when_parse(&w, "-s", "2026-11-26T12:30");
	CHECK(w.wall && w.ns == 1795696200ULL * 1000000000ULL);
	/* Mapped through the anchor; before the clock began, 0. */
	wall_offset = 1795696000LL * 1000000000LL;
	wall_set = 1;
	CHECK(when_resolve(&w, NO_TIME) == 200ULL * 1000000000ULL);
	wall_offset = 1795696300LL * 1000000000LL;
	CHECK(when_resolve(&w, NO_TIME) == 0);
	wall_format(buf, sizeof(buf), 1500000001ULL);
	CHECK(strcmp(buf, "2026-11-26T12:31:41.500000001") == 0);
}

static void
moments_refused(void)
{
	static const char *const bad[] = { "+", "+-1s", "+1x", "12:30x",
	    "25:00", "12:60", "12:30.5", "2026-13-01 00:00", "1x", "-5" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(bad); i++)
		if (status_of(moment, bad[i]) != EX_USAGE) {
			fprintf(stderr, "'%s' not refused\n", bad[i]);
			CHECK(0);
		}
}

/* A clock time in a stream without its anchor: the stream's fault. */
static void
moment_without_anchor(void)
{
	struct when w;

	when_parse(&w, "--since", "12:30");
	wall_set = 0;
	when_resolve(&w, NO_TIME);
}

/* The records of a stream file NAME of these lines, one at a time. */
static struct reader *
stream(const char *name, const char *lines)
{
	char *text = xmalloc(strlen(lines) + 32);

	snprintf(text, strlen(lines) + 32, "argus-stream,1\n%s", lines);
	put_file(name, text);
	free(text);
	return reader_open(path(name));
}

/* The one record of a one-line stream. */
static struct record one;

static const struct record *
record_of(const char *name, const char *line)
{
	struct reader *r = stream(name, line);

	CHECK(reader_next(r, &one) == 1);
	return &one;
}

static void
vertex_roundtrip(void)
{
	struct vertex_rec v = { 10, 11, 7, 100, 250, 40, 12, "wakeup", "wait",
	    "S", "a, \"quoted\" name" }, u;
	struct writer *w = writer_open(path("v"), Z_PLAIN);
	struct reader *r;
	struct record rec;

	vertex_write(w, &v);
	writer_close(w);
	r = reader_open(path("v"));
	CHECK(reader_next(r, &rec) == 1);
	CHECK(rec.time == 250);
	CHECK(vertex_parse(&rec, &u) == 1);
	CHECK(u.pid == 10 && u.tid == 11 && u.id == 7 && u.begin == 100 &&
	    u.end == 250 && u.oncpu == 40 && u.events == 12);
	CHECK(strcmp(u.began_by, "wakeup") == 0 &&
	    strcmp(u.ended_by, "wait") == 0 && strcmp(u.wait, "S") == 0 &&
	    strcmp(u.comm, v.comm) == 0);
	/* Another kind, or a comment, is not a vertex. */
	CHECK(link_parse(&rec, &(struct link_rec){ 0 }) == 0);
	reader_close(r);
	CHECK(vertex_parse(record_of("c", "# a comment\n"), &u) == 0);
}

static void
vertex_zero(void)
{
	struct vertex_rec v;

	vertex_parse(record_of("v0", "vertex,5,1,2,0,1,5,0,1,start,exit,,x\n"),
	    &v);
}

static void
vertex_backwards(void)
{
	struct vertex_rec v;

	vertex_parse(record_of("vb", "vertex,5,1,2,3,6,5,0,1,start,exit,,x\n"),
	    &v);
}

static void
vertex_no_thread(void)
{
	struct vertex_rec v;

	vertex_parse(record_of("vt", "vertex,5,1,,3,1,5,0,1,start,exit,,x\n"),
	    &v);
}

/* A TID is 32 bits: one more is bad input, not thread 0. */
static void
vertex_wide_tid(void)
{
	struct vertex_rec v;

	vertex_parse(record_of("vw",
	    "vertex,5,1,4294967296,3,1,5,0,1,start,exit,,x\n"), &v);
}

static void
vertex_bad_number(void)
{
	struct vertex_rec v;

	vertex_parse(record_of("vn", "vertex,5,1,2,3,1x,5,0,1,start,exit,,x\n"),
	    &v);
}

/*
 * A BEGIN or FROM_TIME whose first digits are TIME's is read from its
 * last eight; others as any number.
 */
static void
near_times(void)
{
	struct vertex_rec v;
	struct link_rec l;

	CHECK(vertex_parse(record_of("n1", "vertex,102980693425,1,2,3,"
	    "102980259911,102980693425,0,1,start,exit,,x\n"), &v) == 1);
	CHECK(v.begin == 102980259911ULL && v.end == 102980693425ULL);
	CHECK(vertex_parse(record_of("n2", "vertex,102980693425,1,2,3,"
	    "99999999999,102980693425,0,1,start,exit,,x\n"), &v) == 1);
	CHECK(v.begin == 99999999999ULL);
	CHECK(vertex_parse(record_of("n3", "vertex,102980693425,1,2,3,"
	    "101999999999,102980693425,0,1,start,exit,,x\n"), &v) == 1);
	CHECK(v.begin == 101999999999ULL);
	CHECK(vertex_parse(record_of("n4", "vertex,1000000000000000,1,2,3,"
	    "1000000099999999,1000000099999999,0,1,start,exit,,x\n"), &v) == 1);
	CHECK(v.begin == 1000000099999999ULL && v.end == v.begin);
	CHECK(link_parse(record_of("n5", "link,102980693425,1,2,3,4,strong,"
	    "wakeup,102980000000,7,7,\n"), &l) == 1);
	CHECK(l.from_time == 102980000000ULL && l.props == LR_WAKES);
	CHECK(link_parse(record_of("n6", "link,102980693425,1,2,3,4,weak,"
	    "wait,102980693424,7,7,\n"), &l) == 1);
	CHECK(l.from_time == 102980693424ULL && l.props == (LR_WEAK | LR_BACK));
	CHECK(link_parse(record_of("n7", "link,102980693425,1,2,3,4,strong,"
	    "wakeup,,7,7,\n"), &l) == 1);
	CHECK(l.from_time == 102980693425ULL && l.props == LR_WAKES);
}

/* A thread read before is its numbers again, by both its PID and TID. */
static void
threads_again(void)
{
	static const struct {
		const char	*line;
		uint32_t	 pid, tid;
	} t[] = {
		{ "link,90,5,7,3,4,weak,wait,,,,\n", 5, 7 },
		{ "link,90,6,7,3,4,weak,wait,,,,\n", 6, 7 },
		{ "link,90,7,7,3,4,weak,wait,,,,\n", 7, 7 },
		{ "link,90,,7,3,4,weak,wait,,,,\n", 0, 7 },
		{ "link,90,5,,3,4,weak,wait,,,,\n", 5, 0 },
		{ "link,90,5,7,3,4,weak,wait,,,,\n", 5, 7 },
		{ "link,90,5,0,3,4,weak,wait,,,,\n", 5, 0 },
		{ "link,90,12345678,1234567,3,4,weak,wait,,,,\n", 12345678,
		    1234567 },
		{ "link,90,12345678,1234567,3,4,weak,wait,,,,\n", 12345678,
		    1234567 },
		{ "link,90,1234567,7654321,3,4,weak,wait,,,,\n", 1234567,
		    7654321 },
		{ "link,90,1234567,7654321,3,4,weak,wait,,,,\n", 1234567,
		    7654321 },
		{ "link,90,123,4567,3,4,weak,wait,,,,\n", 123, 4567 },
		{ "link,90,1234,567,3,4,weak,wait,,,,\n", 1234, 567 },
		{ "link,90,123,45,3,4,weak,wait,,,,\n", 123, 45 },
		{ "link,90,12,345,3,4,weak,wait,,,,\n", 12, 345 },
		{ "link,90,123,4567,3,4,weak,wait,,,,\n", 123, 4567 },
	};
	static const struct {
		const char	*line;
		uint32_t	 pid;
		uint64_t	 tid;
	} from[] = {
		{ "link,90,1,1,3,4,weak,wait,80,5,7,\n", 5, 7 },
		{ "link,90,1,1,3,4,weak,wait,80,6,7,\n", 6, 7 },
		{ "link,90,1,1,3,4,weak,wait,80,7,7,\n", 7, 7 },
		{ "link,90,1,1,3,4,weak,wait,80,,7,\n", 0, 7 },
		{ "link,90,1,1,3,4,weak,wait,80,5,,\n", 5, 0 },
		{ "link,90,1,1,3,4,weak,wait,80,,,\n", 0, 0 },
		{ "link,90,1,1,3,4,weak,wait,80,5,7,\n", 5, 7 },
		{ "link,90,1,1,3,4,weak,wait,80,5,7\n", 5, 7 },
		{ "link,90,1,1,3,4,weak,wait,80,5,12345678901,\n", 5,
		    12345678901ULL },
	};
	struct link_rec l;
	size_t i;

	for (i = 0; i < ARRAY_LEN(t); i++) {
		CHECK(link_parse(record_of("ta", t[i].line), &l) == 1);
		CHECK(l.pid == t[i].pid && l.tid == t[i].tid);
	}
	for (i = 0; i < ARRAY_LEN(from); i++) {
		CHECK(link_parse(record_of("tf", from[i].line), &l) == 1);
		CHECK(l.from_pid == from[i].pid && l.from_tid == from[i].tid);
	}
}

/* TIME's first digits, then a byte no digit: malformed all the same. */
static void
vertex_bad_near(void)
{
	struct vertex_rec v;

	vertex_parse(record_of("vm", "vertex,102980693425,1,2,3,"
	    "10298069342x,102980693425,0,1,start,exit,,x\n"), &v);
}

static void
link_fields(void)
{
	struct link_rec l;

	/* FROM_TIME empty: the link's own time; FROM_TID empty: none. */
	CHECK(link_parse(record_of("l1", "link,90,1,2,3,4,weak,wakeup,,,,\n"),
	    &l) == 1);
	CHECK(l.time == 90 && l.from_time == 90 && l.from == 3 && l.to == 4);
	CHECK(l.weak && l.from_pid == 0 && l.from_tid == 0);
	CHECK(l.props == LR_WAKES && *l.label == '\0');
	CHECK(link_parse(record_of("l2",
	    "link,90,1,2,0,4,strong,wait,80,7,8,x\n"), &l) == 1);
	CHECK(!l.weak && l.from == 0 && l.from_time == 80 &&
	    l.from_pid == 7 && l.from_tid == 8 && strcmp(l.label, "x") == 0);
	CHECK(l.props == (LR_WEAK | LR_BACK));
	/* A user's own rule counts as a wake-up; the table's are found. */
	CHECK(lrule_find("my-rule") == NULL && lrule_find("") == NULL);
	CHECK(lrule_props("my-rule") == LR_WAKES);
	CHECK(lrule_find("filelock") != NULL &&
	    lrule_props("filelock") == (LR_HOLDS | LR_LOCK));
}

/*
 * Only the columns asked for are read, and those the check needs: a
 * malformed FROM_TID not asked for is not seen, a vertex's END is.
 */
static void
parse_only(void)
{
	struct vertex_rec v;
	struct link_rec l;

	memset(&l, 0, sizeof(l));
	CHECK(link_parse_only(record_of("o1",
	    "link,90,1,2,3,4,weak,wait,80,7,x8,\n"), &l, RBIT(link, TO)) == 1);
	CHECK(l.to == 4 && l.from == 0 && l.time == 90 && l.pid == 0);
	CHECK(l.props == (LR_WEAK | LR_BACK) && strcmp(l.rule, "wait") == 0);
	CHECK(link_parse_only(record_of("o2", "vertex,5,1,2,3,1,5,0,1,start,"
	    "exit,,x\n"), &l, RBIT(link, TO)) == 0);
	memset(&v, 0, sizeof(v));
	CHECK(vertex_parse_only(record_of("o3", "vertex,5,1,2,3,1,5,0,1x,"
	    "start,exit,,x\n"), &v, RBIT_THREAD) == 1);
	CHECK(v.id == 3 && v.begin == 1 && v.end == 5 && v.tid == 2 &&
	    v.oncpu == 0 && v.events == 0);
}

static void
link_bad_strength(void)
{
	struct link_rec l;

	link_parse(record_of("ls", "link,90,1,2,3,4,maybe,wakeup,,,,\n"), &l);
}

/* An optional number may be empty, never malformed. */
static void
link_bad_from_tid(void)
{
	struct link_rec l;

	link_parse(record_of("lf", "link,90,1,2,3,4,weak,wakeup,80,7,x8,\n"),
	    &l);
}

static void
spin_fields(void)
{
	struct spin_rec s;

	CHECK(spin_parse(record_of("s1", "spin,9,1,2,5,LongWait,3,9,,,,,,"
	    "a-name-longer-than-thirty-one-characters\n"), &s) == 1);
	CHECK(s.vertex == 5 && s.last == 5 && s.class->kind == HK_WAIT);
	CHECK(s.begin == 3 && s.end == 9 && s.oncpu == 0 && s.waker == 0);
	CHECK(strlen(s.comm) == 31 && strncmp(s.comm, "a-name-", 7) == 0);
	CHECK(spin_parse(record_of("s2",
	    "spin,9,1,2,5,RepeatedYield,3,3,1,2,open,4,6,x\n"), &s) == 1);
	CHECK(s.class->kind == HK_POLL && s.last == 6 && s.waits == 2 &&
	    strcmp(s.ended, "open") == 0);
	CHECK(sclass_find("longwait") == NULL);
	CHECK(sclass_of_kind(HK_WORK) == sclass_find("LongRunning"));
}

static void
spin_bad_class(void)
{
	struct spin_rec s;

	spin_parse(record_of("sc", "spin,9,1,2,5,Sleepy,3,9,,,,,,x\n"), &s);
}

static void
spin_backwards(void)
{
	struct spin_rec s;

	spin_parse(record_of("sb", "spin,9,1,2,5,LongWait,9,3,,,,,,x\n"), &s);
}

static void
baseline_fields(void)
{
	struct baseline_rec b;

	CHECK(baseline_parse(record_of("b1", "baseline,9,1,2,5,6,1,0.750,,"
	    "same waker\n"), &b) == 1);
	CHECK(b.spin_vertex == 5 && b.vertex == 6 && b.rank == 1 &&
	    b.score == 0.75 && b.waker == 0);
	CHECK(strcmp(b.reason, "same waker") == 0);
}

static void baseline_score(const char *s)
{
	char line[128];
	struct baseline_rec b;

	snprintf(line, sizeof(line), "baseline,9,1,2,5,6,1,%s,,x\n", s);
	baseline_parse(record_of("bs", line), &b);
}

static void
baseline_bad_scores(void)
{
	static const char *const bad[] = { "", "x", "0.5x", "nan", "inf",
	    "-inf" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(bad); i++)
		if (status_of(baseline_score, bad[i]) != EX_DATAERR) {
			fprintf(stderr, "score '%s' not refused\n", bad[i]);
			CHECK(0);
		}
	CHECK(status_of(baseline_score, "-0.5") == 0);
}

static void
root_fields(void)
{
	struct root_rec r;
	size_t k;

	CHECK(root_parse(record_of("r1", "root,9,1,2,5,culprit,2,3,9,"
	    "LongWait,holds the lock,cw-renderer,render\n"), &r) == 1);
	CHECK(r.vertex == 5 && r.kind == RK_CULPRIT && r.depth == 2 &&
	    r.begin == 3 && r.end == 9 && r.class->kind == HK_WAIT);
	CHECK(strcmp(r.why, "holds the lock") == 0 &&
	    strcmp(r.function, "render") == 0);
	for (k = RK_VICTIM; k <= RK_CYCLE; k++)
		CHECK(*root_kind_name(k) != '\0');
}

/*
 * lib/records.def's kinds: a root kept past the reader's next record, a
 * step and a holder read back as written, the columns by their names.
 */
static void
records_schema(void)
{
	struct step_rec st = { 7, 1, 2, 3, 1, 40, 41, "wakeup", "strong",
	    "rule" }, su;
	struct holder_rec h = { 8, 5, 0, "pipe:12", WR_WRITER, NO_FD, "", "",
	    "sh" }, hu;
	struct writer *w = writer_open(path("rs"), Z_PLAIN);
	struct reader *r;
	struct record rec;
	struct root_rec rr;
	const char *why;

	step_write(w, &st);
	holder_write(w, &h);
	writer_close(w);
	r = reader_open(path("rs"));
	CHECK(reader_next(r, &rec) == 1 && step_parse(&rec, &su) == 1);
	CHECK(su.path == 3 && su.n == 1 && su.vertex == 40 && su.next == 41 &&
	    strcmp(su.rule, "wakeup") == 0 && strcmp(su.how, "rule") == 0);
	CHECK(strcmp(record_str(&rec, RCOL(step, STRENGTH)), "strong") == 0);
	CHECK(reader_next(r, &rec) == 1 && holder_parse(&rec, &hu) == 1);
	CHECK(hu.tid == 0 && hu.rel == WR_WRITER && hu.fd == NO_FD &&
	    strcmp(hu.object, "pipe:12") == 0 && strcmp(hu.comm, "sh") == 0);
	CHECK(*record_str(&rec, COL_TID) == '\0');
	reader_close(r);

	CHECK(root_parse(record_of("rk1", "root,9,1,2,5,root,1,3,9,"
	    "LongWait,asleep,sleep,nap,kernel\n"), &rr) == 1);
	why = rr.why;
	root_keep(&rr);
	record_of("rk2", "root,9,1,2,5,victim,0,3,9,LongWait,other,x,y,\n");
	CHECK(rr.why != why && strcmp(rr.why, "asleep") == 0 && strcmp(rr.comm, "sleep") == 0 &&
	    strcmp(rr.function, "nap") == 0 && rr.evidence == EV_KERNEL);
	root_drop(&rr);

	CHECK(RCOL(vertex, ID) == COL_FIRST_OWN &&
	    RCOLS(step) == RCOL(step, HOW) + 1 &&
	    RCOL(wait, ARG) == RCOLS(wait) - 1);
	CHECK(strcmp(kind_columns("wait"), "STATE,CALL,FD,TYPE,OBJECT,MODE,"
	    "TIMEOUT,DEADLINE,SINCE,VIA,WCHAN,COMM,ARG...") == 0);
	CHECK(strcmp(RJSON(root, WHY), "evidence") == 0);
}

static void
root_bad_kind(void)
{
	struct root_rec r;

	root_parse(record_of("rk", "root,9,1,2,5,villain,2,3,9,LongWait,,,\n"),
	    &r);
}

static void
kinds_documented(void)
{
	CHECK(strcmp(kind_columns("link"), "FROM,TO,STRENGTH,RULE,FROM_TIME,"
	    "FROM_PID,FROM_TID,LABEL") == 0);
	CHECK(kind_columns("vertices") == NULL && kind_columns("") == NULL);
	CHECK(observer_comm("argus") && observer_comm("argus-link") &&
	    !observer_comm("argusx") && !observer_comm("argu"));
	CHECK(kthread_comm("kworker/0:1") && !kthread_comm("kworker"));
}

/* The related threads of a stream of LINES, the target TID's. */
static size_t
related(const char *lines, uint32_t tid, unsigned depth,
    struct relate_life *out, size_t max)
{
	struct reader *r = stream("rel", lines);
	struct relate *rel = relate_new();
	struct record rec;
	struct relate_life *v;
	size_t n, i;

	while (reader_next(r, &rec))
		relate_see(rel, &rec);
	reader_close(r);
	CHECK(relate_target_tid(rel, tid) == 1);
	v = relate_closure(rel, depth, &n);
	CHECK(n <= max);
	for (i = 0; i < n; i++)
		out[i] = v[i];
	free(v);
	relate_free(rel);
	return n;
}

/*
 * 20 wakes the target 30, having been woken by 10; 50 wakes 40, which
 * has nothing to do with it.  Ascending, targets included.
 */
static void
relate_chain(void)
{
	static const char lines[] =
	    "event,100,10,10,,0,waking,-,20,20,0,b\n"
	    "event,150,50,50,,1,waking,-,40,40,1,d\n"
	    "event,200,20,20,,0,waking,-,30,30,0,t\n";
	struct relate_life v[8];

	CHECK(related(lines, 30, 0, v, 8) == 3);
	CHECK(v[0].tid == 10 && v[1].tid == 20 && v[2].tid == 30);
	/* One relation back only. */
	CHECK(related(lines, 30, 1, v, 8) == 2);
	CHECK(v[0].tid == 20 && v[1].tid == 30);
}

/*
 * Segment by segment: 20 woke the target in the segment 60 began (from
 * 300 on); what 10 did for 20's earlier segment does not matter.
 */
static void
relate_segments(void)
{
	static const char lines[] =
	    "event,100,10,10,,0,waking,-,20,20,0,b\n"
	    "event,300,60,60,,0,waking,-,20,20,0,b\n"
	    "event,400,20,20,,0,waking,-,30,30,0,t\n";
	struct relate_life v[8];

	CHECK(related(lines, 30, 0, v, 8) == 3);
	CHECK(v[0].tid == 20 && v[1].tid == 30 && v[2].tid == 60);
}

/*
 * A wake-up in a timer's interrupt is the doing of the thread that armed
 * the timer (70), never of the one it interrupted (80).
 */
static void
relate_interrupt(void)
{
	static const char lines[] =
	    "event,100,70,70,,1,hrtimer_start,-,0xff01,0xf,500,500,0\n"
	    "event,500,80,80,,1,hrtimer_expire_entry,h,0xff01,0xf,500\n"
	    "event,501,80,80,,1,waking,h,30,30,1,t\n"
	    "event,502,80,80,,1,hrtimer_expire_exit,h,0xff01\n"
	    "event,600,80,80,,1,waking,-,90,90,1,u\n";
	struct relate_life v[8];

	CHECK(related(lines, 30, 0, v, 8) == 2);
	CHECK(v[0].tid == 30 && v[1].tid == 70);
}

/*
 * A POSIX lock taken by 90 (ret 0), then 30's request for it put to
 * sleep (1, FILE_LOCK_DEFERRED): 30 waits on 90.  After 90 unlocks, 40's
 * refused request waits on nobody.
 */
static void
relate_lock(void)
{
	static const char lines[] =
	    "event,100,90,90,,0,posix_lock,-,8:1,12,write,0,0,9,90,0xa,0,0\n"
	    "event,200,30,30,,0,posix_lock,-,8:1,12,write,0,0,9,30,0xb,0,1\n"
	    "event,300,90,90,,0,posix_lock,-,8:1,12,unlock,0,0,9,90,0xa,0,0\n"
	    "event,400,40,40,,0,posix_lock,-,8:1,12,write,0,0,9,40,0xc,0,-11\n";
	struct relate_life v[8];

	CHECK(related(lines, 30, 0, v, 8) == 2);
	CHECK(v[0].tid == 30 && v[1].tid == 90);
	CHECK(related(lines, 40, 0, v, 8) == 1 && v[0].tid == 40);
}

/*
 * A dead thread's id given to another: 20 woke the target at 100 and
 * died; at 200 the noise, 50, forked a new 20, whose doing is not the
 * first's.  Then the other way round: the noise's 40 died, and the 40
 * that 60 forked at 300 woke the target at 400.
 */
static void
relate_lives(void)
{
	static const char lines[] =
	    "event,50,50,50,,0,fork,-,40,40,0,sleep\n"
	    "event,100,20,20,,0,waking,-,30,30,0,t\n"
	    "event,110,20,20,,0,switch,-,X,10,10,x\n"
	    "event,200,50,50,,0,fork,-,20,20,0,sleep\n"
	    "event,210,40,40,,0,switch,-,X,10,10,x\n"
	    "event,300,60,60,,0,fork,-,40,40,0,worker\n"
	    "event,400,40,40,,0,waking,-,30,30,0,t\n";
	struct relate_life v[8];

	CHECK(related(lines, 30, 0, v, 8) == 4);
	CHECK(v[0].tid == 20 && v[0].since == 0 && v[0].until == 200);
	CHECK(v[1].tid == 30 && v[1].since == 0 && v[1].until == UINT64_MAX);
	CHECK(v[2].tid == 40 && v[2].since == 300 && v[2].until == UINT64_MAX);
	CHECK(v[3].tid == 60);
}

static void
relate_targets(void)
{
	struct reader *r = stream("tg",
	    "event,100,10,10,,0,fork,-,20,20,0,a-long-name-15c\n"
	    "event,110,20,20,,0,waking,-,20,21,0,a-long-name-15c\n"
	    "event,120,20,20,,0,comm,-,20,20,a-long-name-15c,renamed\n");
	struct relate *rel = relate_new();
	struct record rec;

	while (reader_next(r, &rec))
		relate_see(rel, &rec);
	reader_close(r);
	CHECK(relate_target_tid(rel, 99) == 0);
	CHECK(relate_target_pid(rel, 99) == 0);
	CHECK(relate_target_comm(rel, "nosuch") == 0);
	/* A name is matched on the kernel's 15 characters. */
	CHECK(relate_target_comm(rel, "a-long-name-15c") == 1);
	CHECK(relate_target_comm(rel, "a-long-name-15c-and-more") == 1);
	CHECK(relate_target_comm(rel, "a-long-name-15") == 0);
	/* Every name a thread had. */
	CHECK(relate_target_comm(rel, "renamed") == 1);
	CHECK(relate_nrelations(rel) == 2);
	relate_free(rel);
}

/* Whether set keeps each record of r, as want[] says; then frees both. */
static void
keeps(struct reader *r, struct relset *set, const int *want, size_t n)
{
	struct record rec;
	size_t i = 0;

	while (reader_next(r, &rec)) {
		CHECK(i < n);
		if (relate_keep(&rec, set) != want[i]) {
			fprintf(stderr, "record %zu\n", i + 1);
			CHECK(0);
		}
		i++;
	}
	CHECK(i == n);
	reader_close(r);
	relset_free(set);
}

/*
 * What a selection keeps: the set's records, events that name one of the
 * set, events in interrupt context, records of no thread and task
 * records; not another thread's events.
 */
static void
relate_keeps(void)
{
	struct reader *r = stream("kp",
	    "event,1,5,5,,0,sys_enter,-,0,read\n"		/* in the set */
	    "event,2,6,6,,0,switch,-,S,5,5,x\n"		/* gives 5 the CPU */
	    "event,3,6,6,,0,waking,-,7,7,0,x\n"		/* 6 wakes 7 */
	    "event,4,6,6,,0,irq_entry,h,9,eth0\n"	/* an interrupt */
	    "task,,6,6,x\n"
	    "meta,5,,,k,v\n"
	    "event,6,6,6,,0,waking,-,64,64,0,x\n");	/* past the limit */
	static const int want[] = { 1, 1, 0, 1, 1, 1, 0 };
	struct relset *set = relset_new(64);

	relset_add(set, 5, 0, UINT64_MAX);
	relset_add(set, 63, 0, UINT64_MAX);
	relset_add(set, 64, 0, UINT64_MAX);	/* past the limit: none */
	keeps(r, set, want, ARRAY_LEN(want));
}

/* One life of 20's, from its fork at 200 to the next at 300. */
static void
relate_keeps_life(void)
{
	struct reader *r = stream("kl",
	    "event,100,20,20,,0,sys_enter,-,0,read\n"
	    "event,200,50,50,,0,fork,-,20,20,0,x\n"
	    "event,250,20,20,,0,sys_enter,-,0,read\n"
	    "event,300,50,50,,0,fork,-,20,20,0,x\n"
	    "event,350,20,20,,0,sys_enter,-,0,read\n");
	static const int want[] = { 0, 1, 1, 0, 0 };
	struct relset *set = relset_new(64);

	relset_add(set, 20, 200, 300);
	keeps(r, set, want, ARRAY_LEN(want));
}

/*
 * A thread's name at a time: its latest task record's at or before it;
 * older streams' exec and comm events count; "" is unknown till the next.
 */
static void
names_by_time(void)
{
	struct reader *r = stream("nm",
	    "task,10,5,5,bash\n"
	    "event,20,5,5,,0,exec,-,/usr/bin/flock,5\n"	/* no task record */
	    "task,30,5,5,flock\n"			/* the same again */
	    "event,40,5,5,,0,comm,-,5,5,flock,locker\n"
	    "task,50,6,6,\n"				/* never learnt */
	    "task,60,6,6,worker\n"
	    "meta,70,,,k,v\n");
	struct names *ns = names_new();
	struct record rec;

	while (reader_next(r, &rec))
		names_learn(ns, &rec);
	reader_close(r);
	CHECK(strcmp(names_at(ns, 5, 5), "bash") == 0);	/* before its first */
	CHECK(strcmp(names_at(ns, 5, 19), "bash") == 0);
	CHECK(strcmp(names_at(ns, 5, 20), "flock") == 0);
	CHECK(strcmp(names_at(ns, 5, 39), "flock") == 0);
	CHECK(strcmp(names_at(ns, 5, 40), "locker") == 0);
	CHECK(strcmp(names_at(ns, 5, NO_TIME), "locker") == 0);
	CHECK(names_at(ns, 6, 55) == NULL);
	CHECK(strcmp(names_at(ns, 6, 60), "worker") == 0);
	CHECK(names_at(ns, 7, 60) == NULL);
	/* Merged streams: one a little late goes in its place. */
	names_set(ns, 5, 15, "sh");
	CHECK(strcmp(names_at(ns, 5, 16), "sh") == 0);
	CHECK(strcmp(names_at(ns, 5, 25), "flock") == 0);
	names_free(ns);
}

/*
 * Names compared in line (record kinds, event types, rules): equal only
 * whole, a prefix either way is another name, and every kind of the
 * stream is told from every other.
 */
static void
names_equal(void)
{
	static const char *const kinds[] = { KIND_META, KIND_TASK, KIND_EVENT,
	    KIND_LOST, KIND_STACK, KIND_WAIT, KIND_HOLDER, KIND_SOCK,
	    KIND_BOUNDARY, KIND_CULL, KIND_VERTEX, KIND_LINK, KIND_SPIN,
	    KIND_BASELINE, KIND_STEP, KIND_ROOT, KIND_SUMMARY };
	char buf[16];
	size_t i, j;

	CHECK(name_eq("", ""));
	CHECK(!name_eq("", "a") && !name_eq("a", ""));
	CHECK(!name_eq("link", "links") && !name_eq("links", "link"));
	CHECK(!name_eq("spin", "step") && !name_eq("wake", "Wake"));
	CHECK(!name_eq("\377", "\177"));
	for (i = 0; i < ARRAY_LEN(kinds); i++) {
		snprintf(buf, sizeof(buf), "%s", kinds[i]);
		for (j = 0; j < ARRAY_LEN(kinds); j++)
			CHECK(name_eq(buf, kinds[j]) == (i == j));
	}
}

/*
 * A name looked up padded (a field of the reader's, bytes after its end)
 * has the table's answer, however often and in whatever order it comes:
 * names of every length to past 16, told apart by one byte anywhere, with
 * bytes after them that the lookup must not read as part of them.
 */
static void
names_padded(void)
{
	static const struct { const char *name; } rows[] = { { "sys_enter" },
	    { "sys_exit" }, { "switch" }, { "waking" }, { "s" },
	    { "clock_nanosleep" }, { "clock_nanosleep_" },
	    { "clock_nanosleep_time64" }, { "read" }, { "readv" },
	    { "abcdefgh" }, { "abcdefgi" }, { "bbcdefgh" } };
	static const char *const others[] = { "", "sys_ente", "sys_enteR",
	    "Switch", "switc", "switchx", "clock_nanosleeq", "clock_nanosleep_x",
	    "clock_nanosleep_time65", "rea", "reax", "abcdefghi", "abcdefg",
	    "r" };
	static struct nameidx idx = NAMEIDX(rows, ARRAY_LEN(rows));
	char buf[64];
	const char *name;
	size_t i, k, n;
	int want;

	for (k = 0; k < 3000; k++) {
		i = (k * 7919) % (ARRAY_LEN(rows) + ARRAY_LEN(others));
		name = i < ARRAY_LEN(rows) ? rows[i].name :
		    others[i - ARRAY_LEN(rows)];
		n = strlen(name);
		memset(buf, "x,\0e"[k % 4], sizeof(buf));
		memcpy(buf, name, n + 1);
		want = i < ARRAY_LEN(rows) ? (int)i : -1;
		CHECK(nameidx_find_padded(&idx, buf, n) == want);
		CHECK(nameidx_find_n(&idx, buf, n) == want);
	}
}

const struct test parse_tests[] = {
	{ "durations: units, bare seconds, rounding", durations, 0, NULL },
	{ "durations: bad ones refused", durations_refused, 0, NULL },
	{ "durations: up to 584 years of ns, not one s more",
	    durations_bounded, 0, NULL },
	{ "numbers: digits only, up to UINT64_MAX", numbers, 0, NULL },
	{ "names: equal whole, the stream's kinds told apart", names_equal, 0,
	    NULL },
	{ "names: a padded name's answer is the table's, every time",
	    names_padded, 0, NULL },
	{ "moments: relative, absolute, clock times through the anchor",
	    moments, 0, NULL },
	{ "moments: bad ones refused", moments_refused, 0, NULL },
	{ "moments: a clock time needs the stream's anchor",
	    moment_without_anchor, EX_DATAERR,
	    "--since: a clock time needs the capture's wall-clock anchor" },
	{ "vertex: written and read back, other kinds not", vertex_roundtrip,
	    0, NULL },
	{ "vertex: id 0 refused", vertex_zero, EX_DATAERR,
	    "/v0:2: vertex record: vertex 0 (ids count from 1)" },
	{ "vertex: end before begin refused", vertex_backwards, EX_DATAERR,
	    "/vb:2: vertex 3 ends before it begins" },
	{ "vertex: no thread refused", vertex_no_thread, EX_DATAERR,
	    "/vt:2: vertex record: no thread" },
	{ "vertex: a thread id past 32 bits refused", vertex_wide_tid,
	    EX_DATAERR, "/vw:2: vertex record: thread id '4294967296'" },
	{ "vertex: a malformed number refused", vertex_bad_number, EX_DATAERR,
	    "/vn:2: vertex record: column 6: expected an unsigned integer, "
	    "got '1x'" },
	{ "vertex: a malformed number near the time refused",
	    vertex_bad_near, EX_DATAERR,
	    "/vm:2: vertex record: column 6: expected an unsigned integer, "
	    "got '10298069342x'" },
	{ "vertex, link: times near the record's read", near_times, 0, NULL },
	{ "link: its thread and the other read again", threads_again, 0,
	    NULL },
	{ "link: optional columns, rules known and not", link_fields, 0,
	    NULL },
	{ "records: only the columns asked for read, and the check's",
	    parse_only, 0, NULL },
	{ "link: a strength neither strong nor weak refused",
	    link_bad_strength, EX_DATAERR,
	    "/ls:2: link record: strength 'maybe' (strong or weak)" },
	{ "link: a malformed optional number refused, not taken as none",
	    link_bad_from_tid, EX_DATAERR,
	    "/lf:2: link record: column 11: expected an unsigned integer, "
	    "got 'x8'" },
	{ "spin: classes, optional columns, a long name cut",
	    spin_fields, 0, NULL },
	{ "spin: an unknown class refused", spin_bad_class, EX_DATAERR,
	    "/sc:2: spin record: unknown class 'Sleepy'" },
	{ "spin: end before begin refused", spin_backwards, EX_DATAERR,
	    "/sb:2: spin record: ends before it begins" },
	{ "baseline: its columns", baseline_fields, 0, NULL },
	{ "baseline: a score not a finite number refused",
	    baseline_bad_scores, 0, NULL },
	{ "root: its columns and kinds", root_fields, 0, NULL },
	{ "records: lib/records.def's kinds written, read and kept",
	    records_schema, 0, NULL },
	{ "root: an unknown kind refused", root_bad_kind, EX_DATAERR,
	    "/rk:2: root record: unknown kind 'villain'" },
	{ "kinds: columns by argus-stream(5); observer and kernel threads",
	    kinds_documented, 0, NULL },
	{ "relate: a chain of wake-ups back from the target, to a depth",
	    relate_chain, 0, NULL },
	{ "relate: a thread's earlier segments do not matter",
	    relate_segments, 0, NULL },
	{ "relate: an interrupt's wake-up is its armer's doing",
	    relate_interrupt, 0, NULL },
	{ "relate: a file lock's waiter waits on its holder until unlocked",
	    relate_lock, 0, NULL },
	{ "relate: targets by tid, pid and name, 15 characters",
	    relate_targets, 0, NULL },
	{ "relate: what a selection of threads keeps", relate_keeps, 0, NULL },
	{ "relate: one life of a reused thread id", relate_lives, 0, NULL },
	{ "relate: a selection keeps one life of an id", relate_keeps_life, 0,
	    NULL },
	{ "names: a thread's name at a time, by its task records and renames",
	    names_by_time, 0, NULL },
	{ "ftwords: lib/ftrace.def's words, one bit a flag, read back as printed",
	    ftwords_table, 0, NULL },
};
const size_t nparse_tests = ARRAY_LEN(parse_tests);
