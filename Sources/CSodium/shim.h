#ifndef CHIRP_CSODIUM_SHIM_H
#define CHIRP_CSODIUM_SHIM_H
#include <sodium.h>
#endif
