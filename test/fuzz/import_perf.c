/*
 * argus-import's perf importer: perf.data, file and pipe mode, with its tracing data's event formats.
 * See import.h.
 */
#include "import.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(&import_perf, data, size);
}
