/*
 * The probe-file parser (argus-capture --probes), up to the probes
 * wanted: nothing is placed.  Input: a probe file.  probes.c is included
 * for its list of probes, which a capture fills once and a fuzzer once per
 * input, and to give back what a capture leaves to exit(3) when a file is
 * bad: the file and its line buffer.
 */
#include <sys/types.h>

#include <stdio.h>

#include "util.h"

static FILE	*open_file;
static char	*line_buf;

static FILE *
fuzz_fopen(const char *path, const char *mode)
{
	return open_file = fopen(path, mode);
}

static int
fuzz_fclose(FILE *f)
{
	open_file = NULL;
	return fclose(f);
}

static ssize_t
fuzz_getline(char **line, size_t *cap, FILE *f)
{
	ssize_t n = getline(line, cap, f);

	line_buf = *line;
	return n;
}

/*
 * The last strings made, among them those of the probe being read, which
 * die() leaves behind (a probe has four).
 */
static char	*strs[8];
static int	 nstrs;

static char *
fuzz_xstrdup(const char *s)
{
	char *p = xstrdup(s);

	strs[nstrs++ % 8] = p;
	return p;
}

#define fopen	fuzz_fopen
#define fclose	fuzz_fclose
#define getline	fuzz_getline
#define xstrdup	fuzz_xstrdup
#include "../../capture/probes.c"
#undef fopen
#undef fclose
#undef getline
#undef xstrdup

#include "fuzz.h"

static void
forget(void)
{
	int i;

	for (i = 0; i < nspecs; i++) {
		free(specs[i].lib);
		free(specs[i].sym);
		free(specs[i].event);
		free(specs[i].where);
	}
	free(specs);
	specs = NULL;
	nspecs = 0;
}

static int
kept(const char *p)
{
	int i;

	for (i = 0; i < nspecs; i++)
		if (p == specs[i].lib || p == specs[i].sym ||
		    p == specs[i].event || p == specs[i].where)
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int i;

	nstrs = 0;
	if (FUZZ_GUARD())
		probes_add_file(fuzz_file(data, size));
	else {
		/* die() left them: the program would have exited. */
		if (open_file != NULL)
			fclose(open_file);
		free(line_buf);
		for (i = 0; i < nstrs && i < 8; i++)
			if (!kept(strs[i]))
				free(strs[i]);
	}
	open_file = NULL;
	line_buf = NULL;
	forget();
	return 0;
}
