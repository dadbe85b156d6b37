/*
 * argus-import: whole traces of other tools into the record stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "import/import.h"

#define HEAD	4096		/* bytes a format is recognised by */

static const struct importer *formats[] = {
	&import_ftrace,
	&import_perf,
	&import_kdebug,
};

static const char usage[] =
"usage: argus-import [-zZ] [-f FORMAT] [-o FILE] [FILE ...]\n"
"Convert whole traces of other tools into the Argus record stream, so that\n"
"argus-segment, argus-link and the rest diagnose them.  The format of each\n"
"FILE (none or -: standard input) is recognised by its first bytes.\n"
"\n"
"  -f, --format FORMAT   read every FILE as FORMAT:\n"
"%s"
"  -o, --output FILE     write to FILE (mode 0600) instead of stdout\n"
"  -z, --compress        gzip the output even into a pipe or terminal\n"
"  -Z, --no-compress     plain output even into a regular file\n"
"  -h, --help            this text\n"
"  -V, --version         version and record stream version\n"
"\n"
"Events become the records argus-capture writes for the same tracepoints;\n"
"meta records say the source and what it lacks (lacks,...).  Several FILEs\n"
"are merged by time.\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.  See argus-import(1).\n";

static char *
help(void)
{
	static char buf[4096];
	char list[2048];
	size_t i, len = 0;

	for (i = 0; i < ARRAY_LEN(formats); i++)
		len += snprintf(list + len, sizeof(list) - len,
		    "        %-7s %s\n", formats[i]->name,
		    formats[i]->what);
	snprintf(buf, sizeof(buf), usage, list);
	return buf;
}

static const struct importer *
by_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(formats); i++)
		if (strcmp(formats[i]->name, name) == 0)
			return formats[i];
	return NULL;
}

/* A pipe cannot be rewound: its first bytes are read again from here. */
struct replay {
	FILE		*f;
	unsigned char	 head[HEAD];
	size_t		 len, off;
};

static ssize_t
replay_read(void *c, char *buf, size_t size)
{
	struct replay *r = c;
	size_t n;

	if (r->off < r->len) {
		n = r->len - r->off < size ? r->len - r->off : size;
		memcpy(buf, r->head + r->off, n);
		r->off += n;
		return n;
	}
	n = fread(buf, 1, size, r->f);
	return n == 0 && ferror(r->f) ? -1 : (ssize_t)n;
}

static int
replay_close(void *c)
{
	struct replay *r = c;

	if (r->f != stdin)
		fclose(r->f);
	free(r);
	return 0;
}

/* The input, positioned at its start, and its format. */
static FILE *
open_input(const char *path, const struct importer *forced,
    const struct importer **fmt)
{
	cookie_io_functions_t io = { replay_read, NULL, NULL, replay_close };
	struct replay *r = xcalloc(1, sizeof(*r));
	size_t i;
	FILE *f;

	if (strcmp(path, "-") == 0)
		f = stdin;
	else if ((f = fopen(path, "re")) == NULL)
		die(EX_NOINPUT, "%s", path);
	else
		file_note(fileno(f), path, 0);
	r->f = f;
	r->len = fread(r->head, 1, sizeof(r->head), f);
	if (ferror(f))
		die(EX_IOERR, "%s: read", path);
	*fmt = forced;
	for (i = 0; *fmt == NULL && i < ARRAY_LEN(formats); i++)
		if (formats[i]->detect(r->head, r->len))
			*fmt = formats[i];
	if (*fmt == NULL)
		diex(EX_DATAERR, "%s: not a trace argus-import knows (%s); "
		    "see -f in --help", path, r->len == 0 ? "empty" :
		    "unrecognised first bytes");
	if (f != stdin && fseeko(f, 0, SEEK_SET) == 0) {
		free(r);
		return f;
	}
	if ((f = fopencookie(r, "r", io)) == NULL)
		die(EX_OSERR, "fopencookie");
	return f;
}

static void
import(const char *path, const struct importer *forced, struct writer *w)
{
	const struct importer *fmt;
	FILE *f = open_input(path, forced, &fmt);

	fmt->convert(f, strcmp(path, "-") == 0 ? "<stdin>" : path, w);
	if (f != stdin)
		fclose(f);
}

/*
 * Several traces: each is converted alone (its threads are its own), then
 * all are merged by time, as argus-cat merges streams.
 */
static void
import_many(char **paths, int n, const struct importer *forced,
    struct writer *out)
{
	char dir[PATH_MAX], **tmp;
	const struct record *rec;
	struct source *src;
	struct writer *w;
	const char *t;
	int i;

	if ((t = getenv("TMPDIR")) == NULL || *t == '\0')
		t = "/tmp";
	snprintf(dir, sizeof(dir), "%s/argus-import.XXXXXX", t);
	if (mkdtemp(dir) == NULL)
		die(EX_CANTCREAT, "%s", dir);
	tmp = xcalloc(n, sizeof(*tmp));
	for (i = 0; i < n; i++) {
		if (asprintf(&tmp[i], "%s/%d", dir, i) == -1)
			die(EX_OSERR, "asprintf");
		w = writer_open(tmp[i], Z_PLAIN);
		import(paths[i], forced, w);
		writer_close(w);
	}
	src = source_open(tmp, n);
	while ((rec = source_next(src)) != NULL)
		if (!rec->comment)
			writer_record(out, rec);
	source_close(src);
	for (i = 0; i < n; i++) {
		unlink(tmp[i]);
		free(tmp[i]);
	}
	free(tmp);
	rmdir(dir);
}

static void
note_input(const char *path)
{
	int fd;

	if (strcmp(path, "-") == 0)
		return;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		die(EX_NOINPUT, "%s", path);
	file_note(fd, path, 0);
	close(fd);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	const struct importer *forced = NULL;
	struct common com = { NULL, Z_AUTO };
	struct writer *out;
	int ch;

	while ((ch = getopt_long(argc, argv, "f:" COMMON_SHORT, longopts,
	    NULL)) != -1) {
		if (ch == 'f') {
			if ((forced = by_name(optarg)) == NULL) {
				size_t i;

				fprintf(stderr, "argus-import: -f %s: unknown "
				    "format; known:", optarg);
				for (i = 0; i < ARRAY_LEN(formats); i++)
					fprintf(stderr, " %s", formats[i]->name);
				fputc('\n', stderr);
				usage_error(help());
			}
		} else
			common_option(&com, ch, optarg, help());
	}
	/*
	 * Every input is noted before the output is made, so that -o naming
	 * one (through a link of ours, written in place) is refused before
	 * anything is truncated.
	 */
	for (ch = optind; ch < argc; ch++)
		note_input(argv[ch]);
	catch_signals();
	out = writer_open(com.out, com.z);
	if (argc - optind <= 1)
		import(optind < argc ? argv[optind] : "-", forced, out);
	else
		import_many(argv + optind, argc - optind, forced, out);
	writer_close(out);
	return exit_status(1);
}
