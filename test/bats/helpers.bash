# Shared by every .bats file: the programs under test come first on PATH.
ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
PATH="$ROOT/bin:$PATH"

# A stream from here-document lines, header included.
stream() {
	printf 'argus-stream,1\n'
	cat
}
