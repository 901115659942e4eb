#ifndef CHIRP_CEPOLL_SHIM_H
#define CHIRP_CEPOLL_SHIM_H

// Linux's readiness and wake-up primitives, which Glibc's Swift module leaves out.
#include <sys/epoll.h>
#include <sys/eventfd.h>

#endif
