/*
 * argus-export: a record stream out to the formats other tools open.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export.h"

static const struct exporter *formats[] = {
	&export_ftrace,
	&export_json,
};

static const char usage[] =
"usage: argus-export -f FORMAT [-o FILE] [FILE ...]\n"
"Write a record stream (FILEs merged by time; none or -: standard input)\n"
"in a format other tools open.\n"
"\n"
"  -f, --format FORMAT   one of:\n"
"%s"
"  -o, --output FILE     write to FILE (mode 0600), which appears only\n"
"                        when complete, instead of stdout\n"
"  -h, --help            this text\n"
"  -V, --version         version and record stream version\n"
"\n"
"What a format cannot carry is counted at the end of its output.\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open, 73 cannot create.\n"
"See argus-export(1).\n";

static char	 tmp[PATH_MAX];		/* removed unless complete */

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

static void
remove_tmp(void)
{
	if (tmp[0] != '\0')
		unlink(tmp);
}

/*
 * The output under a temporary name beside FILE, created afresh (never
 * through a symlink, never over another file), renamed when complete.
 */
static FILE *
open_output(const char *path)
{
	FILE *f;
	int fd;

	if (path == NULL || strcmp(path, "-") == 0)
		return stdout;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path,
	    (int)getpid()) >= sizeof(tmp))
		diex(EX_USAGE, "%s: name too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1) {
		tmp[0] = '\0';
		die(EX_CANTCREAT, "%s", path);
	}
	atexit(remove_tmp);
	if ((f = fdopen(fd, "w")) == NULL)
		die(EX_OSERR, "fdopen");
	return f;
}

static void
close_output(FILE *f, const char *path)
{
	if (fflush(f) == EOF || ferror(f))
		die(EX_IOERR, "%s", path ? path : "<stdout>");
	if (f == stdout)
		return;
	if (fsync(fileno(f)) == -1 || fclose(f) == EOF)
		die(EX_IOERR, "%s", path);
	if (rename(tmp, path) == -1)
		die(EX_CANTCREAT, "%s", path);
	tmp[0] = '\0';
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "format",	required_argument, NULL, 'f' },
		{ "output",	required_argument, NULL, 'o' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ "version",	no_argument,	   NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const struct exporter *fmt = NULL;
	struct common com = { NULL, Z_AUTO };
	const struct record *rec;
	struct source *src;
	FILE *out;
	size_t i;
	int ch;

	while ((ch = getopt_long(argc, argv, "f:o:hV", longopts, NULL)) != -1) {
		if (ch != 'f') {
			common_option(&com, ch, optarg, help());
			continue;
		}
		for (i = 0; i < ARRAY_LEN(formats); i++)
			if (strcmp(formats[i]->name, optarg) == 0)
				fmt = formats[i];
		if (fmt == NULL) {
			fprintf(stderr, "argus-export: -f %s: unknown format\n",
			    optarg);
			usage_error(help());
		}
	}
	if (fmt == NULL) {
		fprintf(stderr, "argus-export: -f FORMAT is required\n");
		usage_error(help());
	}
	catch_signals();
	src = source_open(argv + optind, argc - optind);
	out = open_output(com.out);
	while (!interrupted && (rec = source_next(src)) != NULL)
		fmt->record(out, rec);
	if (interrupted)
		return exit_status(1);	/* nothing half-written appears */
	fmt->end(out);
	close_output(out, com.out);
	source_close(src);
	return exit_status(1);
}
