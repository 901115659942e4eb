#ifndef CHIRP_CLIBPQ_SHIM_H
#define CHIRP_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
