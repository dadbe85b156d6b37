/*
 * argus-import: whole traces of other tools into the record stream.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "import/import.h"

static const char usage[] =
"usage: argus-import [-zZ] [-f FORMAT] [-o FILE] [FILE ...]\n"
"Convert whole traces of other tools into the Argus record stream, so that\n"
"argus-segment, argus-link and the rest diagnose them.  The format of each\n"
"FILE (none or -: standard input) is recognised by its first bytes.\n"
"\n"
"  -f, --format FORMAT   read every FILE as FORMAT:\n"
"%s"
USAGE_COMMON
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

	for (i = 0; i < import_nformats; i++)
		len += snprintf(list + len, sizeof(list) - len,
		    "        %-7s %s\n", import_formats[i]->name,
		    import_formats[i]->what);
	snprintf(buf, sizeof(buf), usage, list);
	return buf;
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
			if ((forced = import_by_name(optarg)) == NULL) {
				size_t i;

				fprintf(stderr, "argus-import: -f %s: unknown "
				    "format; known:", optarg);
				for (i = 0; i < import_nformats; i++)
					fprintf(stderr, " %s",
					    import_formats[i]->name);
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
		import_one(optind < argc ? argv[optind] : "-", forced, out);
	else
		import_many(argv + optind, argc - optind, forced, out);
	writer_close(out);
	return exit_status(1);
}
