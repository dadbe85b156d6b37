/*
 * argus-import's inputs: the formats it knows, in the order it tries to
 * recognise them, and each input converted, alone or with others.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "import.h"

#define HEAD	4096		/* bytes a format is recognised by */

const struct importer *const import_formats[] = {
	&import_ftrace,
	&import_perf,
	&import_kdebug,
};
const size_t import_nformats = ARRAY_LEN(import_formats);

const struct importer *
import_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < import_nformats; i++)
		if (strcmp(import_formats[i]->name, name) == 0)
			return import_formats[i];
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
	for (i = 0; *fmt == NULL && i < import_nformats; i++)
		if (import_formats[i]->detect(r->head, r->len))
			*fmt = import_formats[i];
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

void
import_one(const char *path, const struct importer *forced, struct writer *w)
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
void
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
		import_one(paths[i], forced, w);
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
