#ifndef BBSARCHIVE_CZLIB_SHIM_H
#define BBSARCHIVE_CZLIB_SHIM_H

#include <zlib.h>

#endif
