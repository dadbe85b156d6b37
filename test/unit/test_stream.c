/*
 * Unit tests for the record stream reader and writer.  Each test runs in a
 * child process, because the library's answer to bad input is to exit: the
 * parent checks the exit status and what the child said on stderr.  This
 * file's runner runs the other files' tables too (unit.h).
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "ksym.h"
#include "show.h"
#include "unit.h"
#include "util.h"

static char dir[] = "/tmp/argus-unit.XXXXXX";

char *
path(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

void
put_file(const char *name, const char *text)
{
	FILE *fp = fopen(path(name), "w");

	CHECK(fp != NULL);
	fputs(text, fp);
	fclose(fp);
}

static off_t
file_size(const char *name)
{
	struct stat st;

	CHECK(stat(path(name), &st) == 0);
	return st.st_size;
}

/* Fields that need every kind of quoting, and some that need none. */
static const char *awkward[] = {
	"plain", "with,comma", "with \"quotes\"", "two\nlines", "cr\rhere",
	"", "  spaced  ", "\"", ",", "#not-a-comment", "\n",
};

static void
write_awkward(const char *name, enum zmode z)
{
	struct writer *w = writer_open(path(name), z);
	size_t i;

	for (i = 0; i < 100; i++) {
		writer_begin(w, i % 2 ? "event" : "#odd");
		writer_u64(w, 1000 + i);
		writer_i64(w, -(int64_t)i);
		writer_hex(w, 0xdeadbeef);
		writer_str(w, awkward[i % ARRAY_LEN(awkward)]);
		writer_empty(w);
		writer_end(w);
	}
	writer_close(w);
}

static void
read_awkward(const char *name)
{
	struct reader *r = reader_open(path(name));
	struct record rec;
	char num[32];
	size_t i;

	for (i = 0; i < 100; i++) {
		CHECK(reader_next(r, &rec) == 1);
		CHECK(!rec.comment);
		CHECK(rec.nf == 6);
		CHECK(strcmp(rec.f[0], i % 2 ? "event" : "#odd") == 0);
		CHECK(rec.time == 1000 + i);
		snprintf(num, sizeof(num), "%ld", -(long)i);
		CHECK(strcmp(rec.f[2], num) == 0);
		CHECK(strcmp(rec.f[3], "0xdeadbeef") == 0);
		CHECK(strcmp(rec.f[4], awkward[i % ARRAY_LEN(awkward)]) == 0);
		CHECK(rec.f[5][0] == '\0');
	}
	CHECK(reader_next(r, &rec) == 0);
	reader_close(r);
}

static int
is_gzip(const char *name)
{
	unsigned char magic[2];
	int fd, yes;

	CHECK((fd = open(path(name), O_RDONLY)) != -1);
	yes = read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	close(fd);
	return yes;
}

static void
roundtrip_plain(void)
{
	write_awkward("plain", Z_PLAIN);
	CHECK(!is_gzip("plain"));
	read_awkward("plain");
}

static void
roundtrip_gzip(void)
{
	write_awkward("gz", Z_GZIP);
	CHECK(is_gzip("gz"));
	read_awkward("gz");
}

static void
auto_compresses_regular_files(void)
{
	struct stat st;

	write_awkward("auto", Z_AUTO);
	CHECK(stat(path("auto"), &st) == 0);
	CHECK((st.st_mode & 0777) == 0600);
	CHECK(is_gzip("auto"));
	read_awkward("auto");
}

/* Records with a comma, a quote and a newline, read back through zcat. */
static void
zcat_reads_members(void)
{
	struct writer *w = writer_open(path("members.gz"), Z_GZIP);
	char cmd[512];
	int i;

	for (i = 0; i < 3; i++) {
		writer_begin(w, "event");
		writer_u64(w, i);
		writer_end(w);
		writer_flush(w);	/* a member each */
	}
	writer_close(w);
	snprintf(cmd, sizeof(cmd), "test \"$(zcat %s | wc -l)\" = 4",
	    path("members.gz"));
	CHECK(system(cmd) == 0);
}

/* Cut inside the last member: the members before it are all read. */
static void
truncated_gzip(void)
{
	struct writer *w = writer_open(path("cut.gz"), Z_GZIP);
	struct reader *r;
	struct record rec;
	off_t whole;
	int i, n;

	for (i = 0; i < 10; i++) {
		writer_begin(w, "event");
		writer_u64(w, i);
		writer_str(w, "first member");
		writer_end(w);
	}
	writer_flush(w);
	whole = writer_bytes(w);	/* not under its name until closed */
	for (i = 10; i < 5000; i++) {
		writer_begin(w, "event");
		writer_u64(w, i);
		writer_str(w, "second member, cut in the middle");
		writer_end(w);
	}
	writer_close(w);
	CHECK(truncate(path("cut.gz"), whole + (file_size("cut.gz") - whole) / 2) == 0);

	r = reader_open(path("cut.gz"));
	for (n = 0; n < 10; n++)
		CHECK(reader_next(r, &rec) == 1 && rec.time == (uint64_t)n);
	/* The rest of the output goes on until the cut; then exit 65. */
	while (reader_next(r, &rec) == 1)
		CHECK(rec.time == (uint64_t)n++);
	CHECK(0);	/* never reached: the cut is an error */
}

static void
malformed_line(void)
{
	struct reader *r;
	struct record rec;

	put_file("bad", "argus-stream,1\nevent,1,a\nevent,2,b\"c\nevent,3,d\n");
	r = reader_open(path("bad"));
	CHECK(reader_next(r, &rec) == 1 && rec.time == 1);
	reader_next(r, &rec);
	CHECK(0);
}

static void
bad_time(void)
{
	struct reader *r;
	struct record rec;

	put_file("badtime", "argus-stream,1\n# fine\nevent,12x,a\n");
	r = reader_open(path("badtime"));
	CHECK(reader_next(r, &rec) == 1 && rec.comment);
	reader_next(r, &rec);
	CHECK(0);
}

static void
unknown_version(void)
{
	struct reader *r;
	struct record rec;

	put_file("v2", "argus-stream,2\nevent,1\n");
	r = reader_open(path("v2"));
	reader_next(r, &rec);
	CHECK(0);
}

static void
no_header(void)
{
	struct reader *r;
	struct record rec;

	put_file("nohdr", "event,1,2,3\n");
	r = reader_open(path("nohdr"));
	reader_next(r, &rec);
	CHECK(0);
}

static void
concatenated_headers(void)
{
	struct reader *r;
	struct record rec;

	put_file("cat", "argus-stream,1\nevent,1\n\nargus-stream,1\nevent,2\n");
	r = reader_open(path("cat"));
	CHECK(reader_next(r, &rec) == 1 && rec.time == 1 && rec.line == 2);
	CHECK(reader_next(r, &rec) == 1 && rec.time == 2 && rec.line == 5);
	CHECK(reader_next(r, &rec) == 0);
}

/* Line numbers count physical lines, quoted newlines included. */
static void
line_numbers(void)
{
	struct reader *r;
	struct record rec;

	put_file("lines", "argus-stream,1\nmeta,,,,a,\"x\ny\nz\"\nevent,5\n");
	r = reader_open(path("lines"));
	CHECK(reader_next(r, &rec) == 1 && rec.line == 2);
	CHECK(strcmp(rec.f[5], "x\ny\nz") == 0);
	CHECK(rec.time == NO_TIME);
	CHECK(reader_next(r, &rec) == 1 && rec.line == 5);
}

/* Pass-through is byte for byte, whatever the quoting style was. */
static void
raw_passthrough(void)
{
	struct reader *r;
	struct writer *w;
	struct record rec;
	char cmd[512];

	put_file("raw", "argus-stream,1\nmine,1,,,\"un,needed\",\"\"\"\"\n# hi\n");
	r = reader_open(path("raw"));
	w = writer_open(path("raw.out"), Z_PLAIN);
	while (reader_next(r, &rec))
		writer_record(w, &rec);
	writer_close(w);
	snprintf(cmd, sizeof(cmd), "cmp -s %s %s", path("raw"), path("raw.out"));
	CHECK(system(cmd) == 0);
}

/* A program that dies mid-record leaves only whole records behind. */
static void
die_drops_half_record(void)
{
	struct writer *w = writer_open(path("half.gz"), Z_AUTO);

	writer_begin(w, "event");
	writer_u64(w, 1);
	writer_end(w);
	writer_begin(w, "event");
	writer_u64(w, 2);
	diex(EX_DATAERR, "stop here");
}

static void
die_output_is_whole(void)
{
	struct reader *r;
	struct record rec;

	r = reader_open(path("half.gz"));
	CHECK(reader_next(r, &rec) == 1 && rec.time == 1);
	CHECK(reader_next(r, &rec) == 0);
}

/*
 * Records of every kind of quoting, a flush now and then, and one record
 * larger than the buffers: enough for many hand-overs in the background.
 * After each flush, what the writer counts is what the file holds.
 */
static void
write_many(const char *name, int background)
{
	struct writer *w = writer_create(AT_FDCWD, path(name), Z_GZIP,
	    OUT_LIVE);
	size_t nbig = 600 * 1024;
	char *big = xmalloc(nbig + 1);
	int i;

	memset(big, 'x', nbig);
	big[nbig] = '\0';
	if (background)
		writer_background(w);
	for (i = 0; i < 200000; i++) {
		writer_begin(w, "event");
		writer_u64(w, i);
		writer_i64(w, -i * 7919);
		writer_hex(w, (uint64_t)i * 2654435761u);
		writer_str(w, awkward[i % ARRAY_LEN(awkward)]);
		if (i == 70000)
			writer_str(w, big);
		writer_end(w);
		if (i % 50000 == 49999) {
			writer_flush(w);
			CHECK(writer_bytes(w) == (uint64_t)file_size(name));
		}
	}
	writer_begin(w, "event");
	writer_u64(w, i);	/* unfinished: never written */
	writer_close(w);
	free(big);
}

/* Compressed in the background, the same records. */
static void
background_same_records(void)
{
	char cmd[1024];

	write_many("fg.gz", 0);
	write_many("bg.gz", 1);
	snprintf(cmd, sizeof(cmd), "cd %s && zcat fg.gz >fg && zcat bg.gz >bg "
	    "&& test $(wc -l <fg) -gt 200000 && cmp -s fg bg", dir);
	CHECK(system(cmd) == 0);
}

/*
 * Read back whole: members of at most 256 KiB of text (inflated whole),
 * one larger than the reader's room (the 600 KiB field: streamed), and the
 * same text as a single member by gzip(1), as older writers made them.
 */
static void
read_members_back(void)
{
	static const char *const names[] = { "many.gz", "one.gz" };
	struct reader *r;
	struct record rec;
	char cmd[1024];
	size_t k;
	int n;

	write_many("many.gz", 1);
	snprintf(cmd, sizeof(cmd), "cd %s && zcat many.gz | gzip -1 >one.gz",
	    dir);
	CHECK(system(cmd) == 0);
	for (k = 0; k < ARRAY_LEN(names); k++) {
		r = reader_open(path(names[k]));
		for (n = 0; reader_next(r, &rec) == 1; n++) {
			CHECK(rec.time == (uint64_t)n && rec.nf >= 5);
			CHECK(strcmp(rec.f[4], awkward[n % ARRAY_LEN(awkward)]) == 0);
			CHECK(n != 70000 || (rec.nf == 6 &&
			    strlen(rec.f[5]) == 600 * 1024));
		}
		CHECK(n == 200000);
		reader_close(r);
	}
}

/* A die() of the program keeps what the compressor still had. */
static void
background_die(void)
{
	struct writer *w = writer_open(path("bgdie.gz"), Z_GZIP);
	int i;

	writer_background(w);
	for (i = 0; i < 100000; i++) {
		writer_begin(w, "event");
		writer_u64(w, i);
		writer_str(w, "compressed on another thread");
		writer_end(w);
	}
	writer_begin(w, "event");
	writer_u64(w, i);
	diex(EX_DATAERR, "stop here");
}

static void
background_die_output(void)
{
	struct reader *r;
	struct record rec;
	uint64_t n = 0;

	r = reader_open(path("bgdie.gz"));
	while (reader_next(r, &rec) == 1)
		CHECK(rec.time == n++);
	CHECK(n == 100000);
}

/* A failed write names the file, from the program's thread. */
static void
background_write_error(void)
{
	struct writer *w;
	int fd, i;

	CHECK((fd = open("/dev/full", O_WRONLY)) != -1);
	CHECK(dup2(fd, STDOUT_FILENO) != -1);
	w = writer_open(NULL, Z_GZIP);
	writer_background(w);
	for (i = 0; i < 100000; i++) {
		writer_begin(w, "event");
		writer_u64(w, i);
		writer_end(w);
	}
	writer_flush(w);
	CHECK(0);	/* never reached */
}

/* The compressor takes none of the signals a program handles. */
static void
background_blocks_signals(void)
{
	struct writer *w = writer_open(path("sig.gz"), Z_GZIP);
	char p[64], line[256];
	unsigned long long blk;
	int found = 0, sig;
	struct dirent *de;
	DIR *d;
	FILE *fp;

	writer_background(w);
	/* The thread has run (pthread_create blocks all until it does). */
	writer_begin(w, "event");
	writer_u64(w, 1);
	writer_end(w);
	writer_flush(w);
	/* The thread: the task that is not the process itself. */
	CHECK((d = opendir("/proc/self/task")) != NULL);
	while ((de = readdir(d)) != NULL)
		if (atoi(de->d_name) > 0 && atoi(de->d_name) != getpid())
			found = atoi(de->d_name);
	closedir(d);
	CHECK(found > 0);
	snprintf(p, sizeof(p), "/proc/self/task/%d/status", found);
	CHECK((fp = fopen(p, "r")) != NULL);
	blk = 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "SigBlk: %llx", &blk) == 1)
			break;
	fclose(fp);
	for (sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGPIPE &&
		    sig != SIGXFSZ)
			CHECK(blk & 1ULL << (sig - 1));
	writer_close(w);
}

/* One event record, compressed: "event,7,FIELD". */
static void
write_one(const char *name, const char *field)
{
	struct writer *w = writer_open(path(name), Z_GZIP);

	writer_begin(w, "event");
	writer_u64(w, 7);
	writer_str(w, field);
	writer_end(w);
	writer_close(w);
}

static void
large_record(void)
{
	size_t n = 3 * 1024 * 1024;
	char *big = xmalloc(n + 1);
	struct reader *r;
	struct record rec;
	size_t i;

	for (i = 0; i < n; i++)
		big[i] = "ab,\"\n"[i % 5];
	big[n] = '\0';
	write_one("big", big);
	r = reader_open(path("big"));
	CHECK(reader_next(r, &rec) == 1 && strcmp(rec.f[2], big) == 0);
	CHECK(reader_next(r, &rec) == 0);
}

/*
 * Input that ends inside a record longer than the buffer: reading on moved
 * the buffer, and the end of input must be judged on the record where it
 * is now (fuzzing found the old place read after it was freed).
 */
static void
cut_in_long_record(void)
{
	size_t n = 400000;
	char *text = xmalloc(n + 32);
	struct reader *r;
	struct record rec;

	strcpy(text, "argus-stream,1\n");
	memset(text + strlen(text), 'a', n);
	text[15 + n] = '\0';
	put_file("long-cut", text);
	r = reader_open(path("long-cut"));
	reader_next(r, &rec);
}

/* The same, short: where the record was moved to is where its quote is. */
static void
cut_in_quoted_field(void)
{
	put_file("quote-cut", "argus-stream,1\nx,\"a quoted field that never "
	    "ends");
	reader_next(reader_open(path("quote-cut")), &(struct record){ 0 });
}

/*
 * A pipe whose first read gives one byte (0x1f: maybe gzip) and whose
 * next gives a whole chunk: what the sniffing read must still fit the
 * buffer it is handed on in (fuzzing found it one byte over).
 */
static void
gzip_magic_split(void)
{
	size_t n = 600 * 1024, len, i;
	char *big = xmalloc(n + 1), *gz;
	struct reader *r;
	struct record rec;
	int p[2], fd, avail;
	pid_t pid;

	/* Incompressible, so the compressed stream is larger than a chunk. */
	srand(7);
	for (i = 0; i < n; i++)
		big[i] = "0123456789abcdef"[rand() % 16];
	big[n] = '\0';
	write_one("split.gz", big);
	len = file_size("split.gz");
	CHECK(len > 256 * 1024 + 1);
	gz = xmalloc(len);
	CHECK((fd = open(path("split.gz"), O_RDONLY)) != -1);
	CHECK(read(fd, gz, len) == (ssize_t)len);
	close(fd);

	CHECK(pipe(p) == 0);
	CHECK(fcntl(p[1], F_SETPIPE_SZ, 1024 * 1024) >= (int)len);
	if ((pid = fork()) == 0) {
		close(p[0]);
		CHECK(write(p[1], gz, 1) == 1);
		/* Until the reader took that byte alone, then all the rest. */
		do {
			usleep(1000);
			CHECK(ioctl(p[1], FIONREAD, &avail) == 0);
		} while (avail > 0);
		CHECK(write(p[1], gz + 1, len - 1) == (ssize_t)len - 1);
		_exit(0);
	}
	close(p[1]);
	CHECK(dup2(p[0], STDIN_FILENO) == STDIN_FILENO);
	r = reader_open("-");
	CHECK(reader_next(r, &rec) == 1 && strcmp(rec.f[2], big) == 0);
	CHECK(reader_next(r, &rec) == 0);
	reader_close(r);
	waitpid(pid, NULL, 0);
}

static void
merge_by_time(void)
{
	char *paths[2];
	struct source *s;
	const struct record *rec;
	char got[256] = "";

	put_file("m1", "argus-stream,1\nmeta,,,,a\nevent,1\nevent,4\n#c4\nevent,6\n");
	put_file("m2", "argus-stream,1\nevent,2\nmeta,,,,b\nevent,4\nevent,5\n");
	paths[0] = path("m1");
	paths[1] = path("m2");
	s = source_open(paths, 2);
	while ((rec = source_next(s)) != NULL) {
		strcat(got, rec->comment ? "#" : rec->f[0]);
		strcat(got, rec->time == NO_TIME ? "-" :
		    rec->f[1]);
		strcat(got, " ");
	}
	source_close(s);
	CHECK(strcmp(got, "meta- event1 event2 meta- event4 event4 #- "
	    "event5 event6 ") == 0);
}

/* The word-at-a-time splitter against a byte-at-a-time one. */
static void
split_unquoted(void)
{
	static const char *lines[] = {
		"k,,,", "k,1,-,--,,-,,-,-,-,-,-,-,-,-,-,x", "k,12345678,12345678,",
		"k,,-,,-.,--,,,-,-,,,.,-,,,-,,,.-..,,,-,,,,,", "k",
		"k,2,abcdefghijklmnopqrstuvwxyz0123456789,-+-,,end",
	};
	struct reader *r;
	struct record rec;
	char text[1024], want[64][64];
	const char *p, *c;
	size_t i, n;

	strcpy(text, "argus-stream,1\n");
	for (i = 0; i < ARRAY_LEN(lines); i++)
		strcat(strcat(text, lines[i]), "\n");
	put_file("split", text);
	r = reader_open(path("split"));
	for (i = 0; i < ARRAY_LEN(lines); i++) {
		for (n = 0, p = lines[i]; ; p = c + 1, n++) {
			c = strchr(p, ',');
			snprintf(want[n], sizeof(want[n]), "%.*s",
			    (int)(c ? (size_t)(c - p) : strlen(p)), p);
			if (c == NULL)
				break;
		}
		CHECK(reader_next(r, &rec) == 1);
		CHECK(rec.nf == n + 1);
		for (n = 0; n < rec.nf; n++)
			CHECK(strcmp(rec.f[n], want[n]) == 0);
	}
}

/*
 * Numbers as record_u64_opt() reads them: lengths up to UINT64_MAX's
 * twenty digits, one past it, and a stray character anywhere; quoted
 * (libcsv's fields) as unquoted.
 */
static void
numbers(void)
{
	static const struct { const char *s; int ok; uint64_t v; } cases[] = {
		{ "0", 1, 0 }, { "7", 1, 7 }, { "12345678", 1, 12345678 },
		{ "123456789", 1, 123456789 },
		{ "1234567890123456", 1, 1234567890123456ULL },
		{ "9999999999999999999", 1, 9999999999999999999ULL },
		{ "18446744073709551615", 1, UINT64_MAX },
		{ "18446744073709551616", 0, 0 }, { "99999999999999999999", 0, 0 },
		{ "118446744073709551615", 0, 0 }, { "00000000000000000000042", 0, 0 },
		{ "00000000000000000042", 1, 42 },
		{ "1234567/", 0, 0 }, { "1234567:", 0, 0 }, { "/2345678", 0, 0 },
		{ "123a5678", 0, 0 }, { "1234 678", 0, 0 }, { "12345678-", 0, 0 },
		{ "\260" "2345678", 0, 0 }, { "-1", 0, 0 }, { "0x10", 0, 0 }, { "", 0, 0 },
		{ "+1", 0, 0 }, { "-0", 0, 0 }, { "+0", 0, 0 }, { " 1", 0, 0 },
		{ "1 ", 0, 0 }, { " ", 0, 0 }, { "12345678 ", 0, 0 },
		{ "1234567812345678 ", 0, 0 }, { "123456781234567812", 1,
		    123456781234567812ULL }, { "1\t", 0, 0 },
	};
	struct reader *r;
	struct record rec;
	char text[4096];
	uint64_t v;
	size_t i;
	int q;

	strcpy(text, "argus-stream,1\n");
	for (q = 0; q < 2; q++)
		for (i = 0; i < ARRAY_LEN(cases); i++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text),
			    q ? "n,,\"%s\",x\n" : "n,,%s,x\n", cases[i].s);
	put_file("numbers", text);
	r = reader_open(path("numbers"));
	for (q = 0; q < 2; q++)
		for (i = 0; i < ARRAY_LEN(cases); i++) {
			CHECK(reader_next(r, &rec) == 1);
			v = 0;
			CHECK(record_u64_opt(&rec, 2, &v) == cases[i].ok);
			CHECK(!cases[i].ok || v == cases[i].v);
			CHECK(!record_u64_opt(&rec, 3, &v));
		}
	CHECK(reader_next(r, &rec) == 0);
}

/*
 * Numbers as the writer writes them, as printf() would: every length,
 * each power of ten and its neighbours, both ends of int64_t, and enough
 * others to cross the writer's buffer many times.
 */
static void
numbers_written(void)
{
	struct writer *w = writer_open(path("written"), Z_PLAIN);
	struct reader *r;
	struct record rec;
	uint64_t v[4000], p = 1, x = 88172645463325252ULL;
	char want[32];
	size_t i, n = 0;

	v[n++] = 0;
	v[n++] = UINT64_MAX;
	for (i = 0; i < 20; i++, p *= 10) {
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
	}
	while (n < ARRAY_LEN(v)) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[n++] = x >> (x % 64);		/* of every length */
	}
	for (i = 0; i < n; i++) {
		writer_begin(w, "n");
		writer_u64(w, v[i]);
		writer_i64(w, (int64_t)v[i]);
		writer_i64(w, i % 2 ? INT64_MIN : INT64_MAX);
		writer_end(w);
	}
	writer_close(w);
	r = reader_open(path("written"));
	for (i = 0; i < n; i++) {
		CHECK(reader_next(r, &rec) == 1 && rec.nf == 4);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v[i]);
		CHECK(strcmp(rec.f[1], want) == 0);
		snprintf(want, sizeof(want), "%lld", (long long)(int64_t)v[i]);
		CHECK(strcmp(rec.f[2], want) == 0);
		snprintf(want, sizeof(want), "%lld",
		    (long long)(i % 2 ? INT64_MIN : INT64_MAX));
		CHECK(strcmp(rec.f[3], want) == 0);
	}
	CHECK(reader_next(r, &rec) == 0);
	reader_close(r);
}

/*
 * Event arguments: the fast path for plain decimals and 0x hex reads
 * what strtoull()/strtoll() with base 0 read, and leaves them the rest.
 */
static void
event_numbers(void)
{
	static const char *args[] = {
		"0", "7", "0x5", "0xfF", "0x7ffdad64dfe3", "0xfffffffffffffff",
		"0xffffffffffffffff", "0xffffffff8141e4b0", "0x7fffffffffffffff",
		"0x8000000000000000", "0x0000000000000001", "0x10000000000000000",
		"0X1f", "010", "-1", "-0x10", "+3",
		"123456789012345678", "1234567890123456789",
		"18446744073709551615",
	};
	struct reader *r;
	struct record rec;
	struct event ev;
	char text[2048];
	size_t i;

	strcpy(text, "argus-stream,1\n");
	for (i = 0; i < ARRAY_LEN(args); i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
		    "event,1,1,1,1,0,sys_enter,-,%s\n", args[i]);
	put_file("eargs", text);
	r = reader_open(path("eargs"));
	for (i = 0; i < ARRAY_LEN(args); i++) {
		CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
		CHECK(event_u64(&ev, 0) == strtoull(args[i], NULL, 0));
		CHECK(event_i64(&ev, 0) == strtoll(args[i], NULL, 0));
	}
}

/*
 * A system call's classes, asked by name or of an event (once, however
 * many ask): each list's names, a name in none, and other events.
 */
static void
call_classes(void)
{
	struct reader *r;
	struct record rec;
	struct event ev;

	CHECK(syscall_class("write") == CALL_SEND);
	CHECK(syscall_class("recvmsg_x") == CALL_RECV);
	CHECK(syscall_class("swtch_pri") == CALL_YIELD);
	CHECK(syscall_class("__semwait_signal") == CALL_SLEEP);
	CHECK(syscall_class("pause") == (CALL_DISPATCH | CALL_SIGNAL));
	CHECK(syscall_awaits_signal("rt_sigsuspend") &&
	    !syscall_awaits_signal("rt_sigtimedwait"));
	CHECK(syscall_class("psynch_mutexdrop") == CALL_FUTEX);
	CHECK(syscall_class("connect_nocancel") == CALL_CONNECT);
	CHECK(syscall_class("writ") == 0 && syscall_class("") == 0);
	CHECK(syscall_is_send("sendmmsg") && !syscall_is_send("read"));
	CHECK(syscall_class("connect") & CALL_CONNECT);
	CHECK(!(syscall_class("accept") & CALL_CONNECT));
	CHECK(syscall_exit_read("futex") && syscall_exit_read("connect"));
	CHECK(!syscall_exit_read("read") && !syscall_exit_read("nosuch"));
	put_file("calls", "argus-stream,1\n"
	    "event,1,1,1,1,0,sys_enter,-,1,write,0x3\n"
	    "event,2,1,1,1,0,sys_exit,-,0,read,5\n"
	    "event,3,1,1,1,0,sys_enter,-,42,connect,0x3\n"
	    "event,4,1,1,1,0,sys_enter,-,0,getpid\n"
	    "event,5,1,1,1,0,comm,-,1,1,write,read\n");
	r = reader_open(path("calls"));
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(event_call(&ev) == CALL_SEND && event_call(&ev) == CALL_SEND);
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(event_call(&ev) == CALL_RECV);
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(event_call(&ev) == CALL_CONNECT);
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(event_call(&ev) == 0);
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(event_call(&ev) == 0);
	reader_close(r);
}

/*
 * Where a stack says its thread waited: its program's innermost function
 * and that function's caller, past libraries, unnamed library code and
 * raw addresses.
 */
static void
stack_functions(void)
{
	struct reader *r;
	struct record rec;
	char fn[64];

	put_file("stacks", "argus-stream,1\n"
	    "stack,1,7,7,libc.so.6!__read+0xd,wait_for_reply+0x13,"
	    "ask_server+0x9,main+0xa7,libc.so.6+0x2724a\n"
	    "stack,2,7,7,0x7f00,libglib-2.0.so.0+0x5e1c0,on_idle+0x4\n"
	    "stack,3,7,7,libc.so.6!poll+0x4f,libc.so.6+0x11\n");
	r = reader_open(path("stacks"));
	CHECK(reader_next(r, &rec) == 1);
	CHECK(stack_function(&rec, fn, sizeof(fn)) &&
	    strcmp(fn, "wait_for_reply<ask_server") == 0);
	CHECK(reader_next(r, &rec) == 1);
	CHECK(stack_function(&rec, fn, sizeof(fn)) &&
	    strcmp(fn, "on_idle") == 0);
	CHECK(reader_next(r, &rec) == 1);
	CHECK(!stack_function(&rec, fn, sizeof(fn)));
	/* Too small for both: the innermost alone. */
	reader_close(r);
	r = reader_open(path("stacks"));
	CHECK(reader_next(r, &rec) == 1);
	CHECK(stack_function(&rec, fn, 16) && strcmp(fn, "wait_for_reply") == 0);
}

/*
 * Kernel functions: named by the ksym records read before, by address
 * (not by how it is spelt), the rest as written; a later record wins.
 */
static void
ksym_names(void)
{
	struct reader *r;
	struct record rec;
	struct event ev;

	put_file("ksym", "argus-stream,1\n"
	    "event,1,0,0,,0,hrtimer_start,h,0xa1,0xffffffff8141e4b0,9,9,0\n"
	    "ksym,,,,0xffffffff8141e4b0,hrtimer_wakeup\n"
	    "ksym,,,,0xffffffffc0001000,e1000_watchdog [e1000e]\n"
	    "event,2,0,0,,0,hrtimer_expire_entry,h,0xa1,0xFFFFFFFF8141E4B0,2\n"
	    "event,3,0,0,,0,wq_start,-,0xb1,0xffffffffc0001000\n"
	    "event,4,0,0,,0,wq_end,-,0xb1,vmstat_update\n"
	    "event,5,0,0,,0,timer_start,-,0xc1,0xffffffff81000000,1,1,0x0\n"
	    "event,6,0,0,,0,hrtimer_cancel,-,0xffffffffc0001000\n"
	    "ksym,,,,0xffffffffc0001000,other\n"
	    "event,7,0,0,,0,wq_end,-,0xb1,0xffffffffc0001000\n");
	r = reader_open(path("ksym"));
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(strcmp(event_func(&ev), "0xffffffff8141e4b0") == 0);
	CHECK(reader_next(r, &rec) == 1 && !event_parse(&rec, &ev));
	CHECK(reader_next(r, &rec) == 1 && !event_parse(&rec, &ev));
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(strcmp(event_func(&ev), "hrtimer_wakeup") == 0);
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(strcmp(event_func(&ev), "e1000_watchdog [e1000e]") == 0);
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(strcmp(event_func(&ev), "vmstat_update") == 0);
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(strcmp(event_func(&ev), "0xffffffff81000000") == 0);
	/* A timer's own address is no function. */
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(*event_func(&ev) == '\0');
	CHECK(event_func_column(&rec) == 0);
	CHECK(reader_next(r, &rec) == 1 && !event_parse(&rec, &ev));
	CHECK(reader_next(r, &rec) == 1 && event_parse(&rec, &ev));
	CHECK(strcmp(event_func(&ev), "other") == 0);
	CHECK(strcmp(ksym_name("0xffffffff8141e4b0"), "hrtimer_wakeup") == 0);
	CHECK(strcmp(ksym_name("0x"), "0x") == 0);
	CHECK(strcmp(ksym_name("0x+ffffffff8141e4b0"), "0x+ffffffff8141e4b0") == 0);
	CHECK(strcmp(ksym_name("ffffffff8141e4b0"), "ffffffff8141e4b0") == 0);
	reader_close(r);
}

static void
ksym_bad(void)
{
	struct reader *r;
	struct record rec;
	struct event ev;

	put_file("ksym-bad", "argus-stream,1\nksym,,,,0xf1,x\nksym,,,,12,x\n");
	r = reader_open(path("ksym-bad"));
	while (reader_next(r, &rec))
		event_parse(&rec, &ev);
}

/*
 * The time column, which the reader parses itself, eight digits at a
 * time: every length from one digit to UINT64_MAX's twenty.
 */
static void
time_numbers(void)
{
	static const char *ok[] = {
		"0", "9", "10", "1234567", "12345678", "123456789",
		"1234567812345678", "12345678123456781", "10725843533612",
		"9999999999999999999", "18446744073709551614",
		"00000000000000000001",
	};
	struct reader *r;
	struct record rec;
	char text[2048];
	size_t i;

	strcpy(text, "argus-stream,1\n");
	for (i = 0; i < ARRAY_LEN(ok); i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
		    i % 2 ? "event,%s\n" : "event,%s,x\n", ok[i]);
	put_file("times", text);
	r = reader_open(path("times"));
	for (i = 0; i < ARRAY_LEN(ok); i++)
		CHECK(reader_next(r, &rec) == 1 &&
		    rec.time == strtoull(ok[i], NULL, 10));
	CHECK(reader_next(r, &rec) == 0);
	reader_close(r);
}

/* One past UINT64_MAX in the time column: an error naming file and line. */
static void
time_overflow(void)
{
	struct reader *r;
	struct record rec;

	put_file("time-over", "argus-stream,1\nevent,1,a\n"
	    "event,18446744073709551616,b\n");
	r = reader_open(path("time-over"));
	CHECK(reader_next(r, &rec) == 1 && rec.time == 1);
	reader_next(r, &rec);
	CHECK(0);
}

/* A sign, or a space, is no time either. */
static void
time_signed(void)
{
	struct reader *r;
	struct record rec;

	put_file("time-sign", "argus-stream,1\nevent,+12,a\n");
	r = reader_open(path("time-sign"));
	reader_next(r, &rec);
	CHECK(0);
}

static void
time_space(void)
{
	struct reader *r;
	struct record rec;

	put_file("time-space", "argus-stream,1\n\nevent,12 ,a\n");
	r = reader_open(path("time-space"));
	reader_next(r, &rec);
	CHECK(0);
}

/* Numbers up to UINT64_MAX, and not one more. */
static void
u64_bounds(void)
{
	struct reader *r;
	struct record rec;
	uint64_t v;

	put_file("bounds", "argus-stream,1\n"
	    "x,,18446744073709551615,18446744073709551616,99999999999999999999,"
	    "1844674407370955161,12a,\n");
	r = reader_open(path("bounds"));
	CHECK(reader_next(r, &rec) == 1);
	CHECK(record_u64_opt(&rec, 2, &v) && v == UINT64_MAX);
	CHECK(!record_u64_opt(&rec, 3, &v));
	CHECK(!record_u64_opt(&rec, 4, &v));
	CHECK(record_u64_opt(&rec, 5, &v) && v == UINT64_MAX / 10);
	CHECK(!record_u64_opt(&rec, 6, &v));
	CHECK(!record_u64_opt(&rec, 7, &v));
	reader_close(r);
}

/* The hostile names of issue 29, shown: nothing raw, everything visible. */
static const struct {
	const char	*in, *utf8, *ascii;
} shown[] = {
	{ "plain-name", "plain-name", "plain-name" },
	{ "\033]52;c;SGk=\a", "\\e]52;c;SGk=\\a", "\\e]52;c;SGk=\\a" },
	{ "w\nRoot cause: W,\033[2J", "w\\nRoot cause: W,\\e[2J",
	    "w\\nRoot cause: W,\\e[2J" },
	{ "tab\there\r", "tab\\there\\r", "tab\\there\\r" },
	{ "del\x7f\x01", "del\\x7f\\x01", "del\\x7f\\x01" },
	{ "back\\slash", "back\\\\slash", "back\\\\slash" },
	/* Valid UTF-8, and the kernel's 15-byte cut in a character. */
	{ "caf\xc3\xa9", "caf\xc3\xa9", "caf\\xc3\\xa9" },
	{ "abcdefghijkl\xe4\xb8", "abcdefghijkl\\xe4\\xb8",
	    "abcdefghijkl\\xe4\\xb8" },
	/* C1: U+009B (CSI) in UTF-8, and the lone byte. */
	{ "c1\xc2\x9b", "c1\\xc2\\x9b", "c1\\xc2\\x9b" },
	{ "raw\x9b[2J", "raw\\x9b[2J", "raw\\x9b[2J" },
	/* Overlong, surrogate, beyond U+10FFFF. */
	{ "\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80",
	    "\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80",
	    "\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80" },
};

static void
show_escapes(void)
{
	char buf[256];
	size_t i;
	int u;

	for (u = 0; u < 2; u++) {
		show_utf8(u);
		for (i = 0; i < ARRAY_LEN(shown); i++) {
			const char *want = u ? shown[i].utf8 : shown[i].ascii;

			if (strcmp(show(shown[i].in), want) != 0) {
				fprintf(stderr, "show(%zu, utf8 %d): '%s'\n",
				    i, u, show(shown[i].in));
				CHECK(0);
			}
			CHECK(show_buf(buf, sizeof(buf), shown[i].in,
			    strlen(shown[i].in)) == strlen(want));
			CHECK(strcmp(buf, want) == 0);
		}
	}
}

/* No copy when there is nothing to escape; a cut never halves an escape. */
static void
show_cheap_and_whole(void)
{
	const char *s = "plain", *a, *b;
	char buf[8];

	show_utf8(1);
	CHECK(show(s) == s);
	CHECK(strcmp(show(NULL), "") == 0);
	CHECK(show_buf(buf, 5, "ab\033cd", 5) == 6);
	CHECK(strcmp(buf, "ab\\e") == 0);
	CHECK(show_buf(buf, 4, "ab\x01", 3) == 6);
	CHECK(strcmp(buf, "ab") == 0);
	CHECK(show_buf(buf, 4, "a\xc3\xa9z", 4) == 4);
	CHECK(strcmp(buf, "a\xc3\xa9") == 0);
	CHECK(show_buf(buf, 3, "a\xc3\xa9z", 4) == 4);
	CHECK(strcmp(buf, "a") == 0);
	/* Two results in one printf are both alive. */
	a = show("x\ny");
	b = show("p\tq");
	CHECK(strcmp(a, "x\\ny") == 0 && strcmp(b, "p\\tq") == 0);
	CHECK(strcmp(show_mem("a\0b", 3), "a\\x00b") == 0);
}

/*
 * Plain lines with fields of every width at every place of the reader's
 * blocks of sixteen bytes, more fields than its first array holds, each
 * followed by a quoted record: each field as written, and record_len()
 * its length.
 */
static void
split_offsets(void)
{
	FILE *fp = fopen(path("offsets"), "w");
	struct reader *r;
	struct record rec;
	char want[32];
	size_t n, k, w;

	CHECK(fp != NULL);
	fputs("argus-stream,1\n", fp);
	for (n = 0; n < 120; n++) {
		fputs("x,", fp);
		for (k = 1; k < n + 2; k++) {
			w = (n + k) % 19;
			memset(want, k == 1 ? '1' : 'a' + k % 26, w);
			want[w] = '\0';
			fprintf(fp, "%s%s", want, k + 1 < n + 2 ? "," : "\n");
		}
		fputs("q,5,\"a,b\",c\n", fp);
	}
	CHECK(fclose(fp) == 0);
	r = reader_open(path("offsets"));
	for (n = 0; n < 120; n++) {
		CHECK(reader_next(r, &rec) == 1);
		CHECK(rec.nf == n + 2);
		CHECK(strcmp(rec.f[0], "x") == 0);
		for (k = 1; k < n + 2; k++) {
			w = (n + k) % 19;
			memset(want, k == 1 ? '1' : 'a' + k % 26, w);
			want[w] = '\0';
			CHECK(strcmp(rec.f[k], want) == 0);
			CHECK(record_len(&rec, k) == w);
		}
		CHECK(reader_next(r, &rec) == 1);
		CHECK(rec.nf == 4 && rec.time == 5);
		CHECK(strcmp(rec.f[2], "a,b") == 0 && record_len(&rec, 2) == 3);
		CHECK(strcmp(rec.f[3], "c") == 0 && record_len(&rec, 3) == 1);
	}
	CHECK(reader_next(r, &rec) == 0);
	reader_close(r);
}

static const struct test tests[] = {
	{ "unquoted records split on every comma", split_unquoted, 0, NULL },
	{ "round trip, plain", roundtrip_plain, 0, NULL },
	{ "round trip, gzip", roundtrip_gzip, 0, NULL },
	{ "auto mode compresses a regular file, mode 0600",
	    auto_compresses_regular_files, 0, NULL },
	{ "zcat reads a file of several members", zcat_reads_members, 0, NULL },
	{ "gzip cut short: earlier records read, then an error",
	    truncated_gzip, EX_DATAERR, "compressed data cut short after line" },
	{ "malformed line names file and line", malformed_line, EX_DATAERR,
	    "/bad:3: malformed record" },
	{ "time column: every length up to twenty digits", time_numbers, 0,
	    NULL },
	{ "time column: one past UINT64_MAX names file and line",
	    time_overflow, EX_DATAERR, "/time-over:3: malformed record: time "
	    "'18446744073709551616'" },
	{ "time column: a sign is no number", time_signed, EX_DATAERR,
	    "/time-sign:2: malformed record: time '+12'" },
	{ "time column: a space is no number", time_space, EX_DATAERR,
	    "/time-space:3: malformed record: time '12 '" },
	{ "bad time names file and line", bad_time, EX_DATAERR,
	    "/badtime:3: malformed record: time '12x'" },
	{ "unknown version is refused", unknown_version, EX_DATAERR,
	    "version '2' is not supported" },
	{ "missing header is refused", no_header, EX_DATAERR,
	    "/nohdr:1: not an Argus record stream" },
	{ "concatenated streams", concatenated_headers, 0, NULL },
	{ "line numbers count quoted newlines", line_numbers, 0, NULL },
	{ "pass-through is byte for byte", raw_passthrough, 0, NULL },
	{ "die() mid-record", die_drops_half_record, EX_DATAERR, "stop here" },
	{ "... leaves only whole records", die_output_is_whole, 0, NULL },
	{ "compressed in the background: the same records, exact sizes",
	    background_same_records, 0, NULL },
	{ "many members, one too large to inflate whole, or one member: "
	    "the same records", read_members_back, 0, NULL },
	{ "die() while compressing in the background", background_die,
	    EX_DATAERR, "stop here" },
	{ "... keeps every whole record", background_die_output, 0, NULL },
	{ "a write error in the background dies naming the file",
	    background_write_error, EX_IOERR,
	    "<stdout>: write: No space left on device" },
	{ "the compressor thread blocks the signals", background_blocks_signals,
	    0, NULL },
	{ "a record larger than every buffer", large_record, 0, NULL },
	{ "a stack names its program's function and caller", stack_functions,
	    0, NULL },
	{ "merge by time keeps untimed records in place", merge_by_time, 0,
	    NULL },
	{ "numbers up to UINT64_MAX and not one more", u64_bounds, 0, NULL },
	{ "kernel functions by the ksym records before", ksym_names, 0, NULL },
	{ "a ksym record without a 0x address", ksym_bad, EX_DATAERR,
	    "/ksym-bad:3: ksym: '12' is not a 0x address" },
	{ "input cut in a record longer than the buffer", cut_in_long_record,
	    EX_DATAERR, "/long-cut:2: record cut short" },
	{ "input cut in a quoted field", cut_in_quoted_field, EX_DATAERR,
	    "/quote-cut:2: malformed record: a quoted field is never closed" },
	{ "gzip magic split over two reads, the second a whole chunk",
	    gzip_magic_split, 0, NULL },
	{ "names shown: controls, backslash, bad UTF-8 escaped", show_escapes,
	    0, NULL },
	{ "names shown: no copy when plain, no half escape", show_cheap_and_whole,
	    0, NULL },
	{ "numbers of every length, and one too long", numbers, 0, NULL },
	{ "numbers written as printf writes them", numbers_written, 0, NULL },
	{ "system calls' classes, by name and once an event", call_classes,
	    0, NULL },
	{ "event arguments read as strtoull and strtoll read them",
	    event_numbers, 0, NULL },
	{ "plain lines split at every place of a block, quoted ones after",
	    split_offsets, 0, NULL },
};

static int
run(const struct test *t)
{
	char errpath[300], errtext[4096] = "";
	int status, fd, ok;
	ssize_t n;
	pid_t pid;

	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	if ((pid = fork()) == 0) {
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, STDERR_FILENO);
		t->fn();
		exit(0);
	}
	waitpid(pid, &status, 0);
	if ((fd = open(errpath, O_RDONLY)) != -1) {
		n = read(fd, errtext, sizeof(errtext) - 1);
		errtext[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	ok = WIFEXITED(status) && WEXITSTATUS(status) == t->status &&
	    (t->stderr_has == NULL || strstr(errtext, t->stderr_has) != NULL);
	printf("%s - %s\n", ok ? "ok" : "FAIL", t->name);
	if (!ok)
		printf("  want exit %d%s%s, got %s %d; stderr:\n%s", t->status,
		    t->stderr_has ? " saying " : "",
		    t->stderr_has ? t->stderr_has : "",
		    WIFEXITED(status) ? "exit" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		    errtext);
	fflush(stdout);
	return ok;
}

int
main(void)
{
	size_t i, passed = 0, total;
	char cmd[300];

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	for (i = 0; i < ARRAY_LEN(tests); i++)
		passed += run(&tests[i]);
	for (i = 0; i < nparse_tests; i++)
		passed += run(&parse_tests[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	total = ARRAY_LEN(tests) + nparse_tests;
	printf("%zu passed, %zu failed\n", passed, total - passed);
	return passed == total ? 0 : 1;
}
