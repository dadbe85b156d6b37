/*
 * argus-import: traces from other tools into the record stream, so that
 * argus-segment ... argus-slice diagnose them unchanged.  One importer per
 * format, in bin/import/; this file picks one and runs it.
 */
#include <sys/stat.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "util.h"

static const struct importer *formats[] = {
	&import_kdebug,
};

static const char usage_head[] =
"usage: argus-import [-zZ] [-f FORMAT] [-o FILE] [FILE ...]\n"
"Read traces other tools wrote and write them as one Argus record stream.\n"
"\n"
"  -f, --format FORMAT  the input's format; without it, each FILE's first\n"
"                       bytes say\n"
"  -o, --output FILE    write to FILE (mode 0600) instead of stdout\n"
"  -z, --compress       gzip the output even into a pipe or terminal\n"
"  -Z, --no-compress    plain output even into a regular file\n"
"  -h, --help           this text\n"
"  -V, --version        version and record stream version\n"
"\n"
"Formats:\n";

static const char usage_tail[] =
"\n"
"Without FILE, or with -, read stdin.  What each format provides, and what\n"
"it cannot, is in argus-import(1).\n"
"Exit: 0 ok, 64 usage, 65 bad input (the message names file and offset),\n"
"66 cannot open.\n";

static char usage[2048];

static void
make_usage(void)
{
	size_t i, n;

	n = snprintf(usage, sizeof(usage), "%s", usage_head);
	for (i = 0; i < ARRAY_LEN(formats) && n < sizeof(usage); i++)
		n += snprintf(usage + n, sizeof(usage) - n, "  %-19s%s\n",
		    formats[i]->name, formats[i]->what);
	if (n < sizeof(usage))
		snprintf(usage + n, sizeof(usage) - n, "%s", usage_tail);
}

static const struct importer *
by_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(formats); i++)
		if (strcmp(formats[i]->name, name) == 0)
			return formats[i];
	fprintf(stderr, "argus-import: unknown format '%s'; formats:", name);
	for (i = 0; i < ARRAY_LEN(formats); i++)
		fprintf(stderr, " %s", formats[i]->name);
	fputc('\n', stderr);
	exit(EX_USAGE);
}

/*
 * Detection reads the first bytes; a pipe cannot seek back, so the
 * importer reads them again from this buffer, then from the input.
 */
#define HEAD	64

struct peeked {
	FILE		*f;
	unsigned char	 head[HEAD];
	size_t		 len, pos;
};

static ssize_t
peeked_read(void *cookie, char *buf, size_t n)
{
	struct peeked *p = cookie;
	size_t k;

	if (p->pos < p->len) {
		k = p->len - p->pos < n ? p->len - p->pos : n;
		memcpy(buf, p->head + p->pos, k);
		p->pos += k;
		return k;
	}
	k = fread(buf, 1, n, p->f);
	return k == 0 && ferror(p->f) ? -1 : (ssize_t)k;
}

static int
peeked_close(void *cookie)
{
	struct peeked *p = cookie;

	return p->f == stdin ? 0 : fclose(p->f);
}

static void
import(const char *path, const struct importer *fmt, struct writer *out)
{
	static const cookie_io_functions_t io = { peeked_read, NULL, NULL,
	    peeked_close };
	struct peeked p = { 0 };
	const char *name = path;
	size_t i;
	FILE *f;

	if (strcmp(path, "-") == 0) {
		p.f = stdin;
		name = "<stdin>";
	} else if ((p.f = fopen(path, "rb")) == NULL)
		die(EX_NOINPUT, "%s", path);
	p.len = fread(p.head, 1, sizeof(p.head), p.f);
	if (ferror(p.f))
		die(EX_IOERR, "%s", name);
	for (i = 0; fmt == NULL && i < ARRAY_LEN(formats); i++)
		if (formats[i]->detect(p.head, p.len))
			fmt = formats[i];
	if (fmt == NULL)
		diex(EX_DATAERR, "%s: offset 0: not a format argus-import knows "
		    "(try -f; formats in --help)", name);
	if ((f = fopencookie(&p, "r", io)) == NULL)
		die(EX_OSERR, "%s", name);
	fmt->convert(f, name, out);
	if (fclose(f) != 0)
		die(EX_IOERR, "%s", name);
}

/* -o must not truncate an input before it is read. */
static void
not_an_input(const char *out, char **in, int nin)
{
	struct stat so, si;
	int i;

	if (out == NULL || stat(out, &so) == -1)
		return;
	for (i = 0; i < nin; i++)
		if (stat(in[i], &si) == 0 && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino)
			diex(EX_USAGE, "-o %s: is also an input", out);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "format",	required_argument, NULL, 'f' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	const struct importer *fmt = NULL;
	struct writer *out;
	int ch, i;

	make_usage();
	while ((ch = getopt_long(argc, argv, "f:" COMMON_SHORT, longopts,
	    NULL)) != -1) {
		if (ch == 'f')
			fmt = by_name(optarg);
		else
			common_option(&com, ch, optarg, usage);
	}
	not_an_input(com.out, argv + optind, argc - optind);
	catch_signals();
	out = writer_open(com.out, com.z);
	if (optind == argc)
		import("-", fmt, out);
	for (i = optind; i < argc && !interrupted; i++)
		import(argv[i], fmt, out);
	writer_close(out);
	return exit_status(1);
}
