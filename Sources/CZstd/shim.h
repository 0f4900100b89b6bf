#include <stddef.h>
#include <zstd.h>
