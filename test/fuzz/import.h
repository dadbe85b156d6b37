/*
 * The importers' fuzz targets: the input read as from a pipe (fmemopen:
 * the importer's copy of it is on the heap, where ASan sees every byte
 * past its end), converted into records written nowhere.
 */
#ifndef ARGUS_FUZZ_IMPORT_H
#define ARGUS_FUZZ_IMPORT_H

#include "../../bin/import/import.h"
#include "fuzz.h"

static int
fuzz_import(const struct importer *imp, const uint8_t *data, size_t size)
{
	static struct writer *w;
	FILE *volatile f = NULL;

	if (w == NULL)
		w = writer_open("/dev/null", Z_PLAIN);
	if (size == 0)
		return 0;	/* fmemopen wants a buffer */
	if (FUZZ_GUARD()) {
		if ((f = fmemopen((void *)data, size, "r")) == NULL)
			abort();
		imp->convert(f, "fuzz", w);
	}
	if (f != NULL)
		fclose(f);
	return 0;
}

#endif
