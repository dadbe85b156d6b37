/*
 * Where records go: one stream (a file or stdout), or a ring of files in a
 * directory that never holds more than its size, the newest data kept.
 */
#ifndef CAPTURE_OUT_H
#define CAPTURE_OUT_H

#include <stdint.h>

#include "stream.h"

struct out_conf {
	const char	*path;		/* NULL or "-": stdout */
	enum zmode	 z;
	const char	*ring;		/* a directory, or NULL */
	uint64_t	 ring_size;
	unsigned	 ring_files;
	/* Writes what every file must start with (meta, task snapshot). */
	void		(*preamble)(struct writer *);
};

/*
 * out_prepare() before tracing starts: a ring's directory that is not
 * ours alone is refused before anything else is touched.  out_open() once
 * the preamble can be written.
 */
void		 out_prepare(const struct out_conf *);
void		 out_open(void);
struct writer	*out_writer(void);
struct writer	*out_index(void);	/* the ring file's relation index, or NULL */
void		 out_check(void);	/* rotate when the ring file is full */
void		 out_flush(void);
void		 out_close(void);
/* All before t written, all after reach too: DIR/served. */
void		 out_served(uint64_t t, uint64_t reach);
void		 out_deepened(uint64_t t, uint64_t reach, uint64_t n,
		    uint64_t oldest);
void		 out_rotate(void);	/* a new ring file now */
/* Why the recorder stopped, into DIR/stopped, which a full disk keeps. */
void		 out_stopped(const char *why);
void		 out_patch_lost(int pid, const char *comm, uint64_t n,
		    uint64_t from, uint64_t to);
uint64_t	 out_bytes(void);	/* on disk now; 0 if unknown */
void		 out_ring_usage_check(uint64_t size, unsigned files);

#endif
