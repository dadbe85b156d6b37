/*
 * argus-import's ftrace importer: ftrace text (trace, trace_pipe, trace-cmd report, systrace HTML).
 * See import.h.
 */
#include "import.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(&import_ftrace, data, size);
}
