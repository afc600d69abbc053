#ifndef CPAGECACHE_H
#define CPAGECACHE_H

#include <stdint.h>

/// Pages of a file's byte range in the page cache, as the kernel counts them (cachestat(2)).
struct wg_page_cache_counts {
    uint64_t cached;
    uint64_t dirty;
    uint64_t writeback;
};

/// Counts the pages of `fd` from `offset` for `length` bytes (0: to the end) that are cached,
/// dirty (not yet written to disk) and under writeback. Returns 0, or an errno value (ENOSYS
/// before Linux 6.5). A C shim because Swift cannot call the variadic syscall(2), and glibc has
/// no cachestat wrapper.
int wg_page_cache_counts(int fd, uint64_t offset, uint64_t length, struct wg_page_cache_counts *counts);

#endif
