/*
 * argus-slice's answers file: the questions of a walk, a choice among two
 * causes or a yes or no, asked until the answers run out, stop, or one is
 * bad.  Input: an answers file.  ask.c is included for its state, which a
 * program sets once and a fuzzer once per input.
 */
#include "../../bin/slice/ask.c"
#include "fuzz.h"

static const char graph_text[] =
    "argus-stream,1\n"
    "vertex,100,10,10,1,0,100,50,2,start,wait,S,alpha\n"
    "link,105,20,20,1,2,strong,wakeup,95,10,10,\n"
    "vertex,110,20,20,2,105,110,4,2,wakeup,wait,S,beta\n"
    "link,200,30,30,1,3,strong,message,90,10,10,\n"
    "link,200,30,30,2,3,strong,message,108,20,20,\n"
    "vertex,300,30,30,3,200,300,90,2,wakeup,open,,gamma\n";

static struct graph	 g;
static struct link	*cand[2];

/* The graph of test/bats/slice.bats: vertex 3 has two causes. */
static void
graph_once(void)
{
	char *path[1];
	struct stage st = { NULL, NULL, NO_TIME, NO_TIME, 0, 0, NULL };

	if (cand[0] != NULL)
		return;
	path[0] = (char *)fuzz_file((const uint8_t *)graph_text,
	    sizeof(graph_text) - 1);
	st.src = source_open(path, 1);
	st.out = writer_open("/dev/null", Z_PLAIN);
	graph_read(&g, &st, 0);
	stage_close(&st);
	if (g.nl != 3)
		abort();
	cand[0] = &g.l[1];
	cand[1] = &g.l[2];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *how;
	volatile int i;
	int k;

	graph_once();
	if (FUZZ_GUARD()) {
		ask_init(ASK_FILE, fuzz_file(data, size));
		answers_line = 0;
		nmemo = 0;
		/* A vertex each: one already answered is not asked again. */
		for (i = 0; i < 64; i++) {
			k = ask_link(&g, 1000 + i, cand, 2, &how);
			if (k < 0 && strcmp(how, "stop") == 0)
				break;
		}
	}
	if (in != NULL)
		fclose(in);
	in = NULL;
	return 0;
}
