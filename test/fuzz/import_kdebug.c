/*
 * argus-import's kdebug importer: kdebug traces, RAW 1 and version 3 with their chunks.
 * See import.h.
 */
#include "import.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(&import_kdebug, data, size);
}
