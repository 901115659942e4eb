#ifndef CHIRP_CEPOLL_SHIM_H
#define CHIRP_CEPOLL_SHIM_H

// Linux's readiness, wake-up and thread-naming calls, which Glibc's Swift module leaves out.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

// Names the calling thread (what top and perf show; the kernel keeps 15 bytes).
static inline void chirp_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

#endif
