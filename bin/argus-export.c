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

#include "file.h"
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
USAGE_VERSION_LINE("         ")
"\n"
"What a format cannot carry is counted at the end of its output.\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open, 73 cannot create.\n"
"See argus-export(1).\n";

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
	struct outfile of;
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
	out = com.out == NULL || strcmp(com.out, "-") == 0 ? stdout :
	    outfile_fopen(&of, com.out);
	while (!interrupted && (rec = source_next(src)) != NULL)
		fmt->record(out, rec);
	if (interrupted) {
		if (out != stdout)
			outfile_discard(&of);	/* nothing half-written */
		return exit_status(1);
	}
	fmt->end(out);
	if (out != stdout)
		outfile_fclose(out, &of);
	else if (fflush(stdout) == EOF || ferror(stdout))
		die(EX_IOERR, "<stdout>");
	source_close(src);
	return exit_status(1);
}
