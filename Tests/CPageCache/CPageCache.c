#define _GNU_SOURCE
#include "CPageCache.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

// The system call number is the same in the generic table (arm64) and on x86-64; older headers
// do not define it.
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct wg_cachestat_range {
    uint64_t off;
    uint64_t len;
};

struct wg_cachestat {
    uint64_t nr_cache;
    uint64_t nr_dirty;
    uint64_t nr_writeback;
    uint64_t nr_evicted;
    uint64_t nr_recently_evicted;
};

int wg_page_cache_counts(int fd, uint64_t offset, uint64_t length, struct wg_page_cache_counts *counts) {
    struct wg_cachestat_range range = {offset, length};
    struct wg_cachestat stat = {0};
    if (syscall(__NR_cachestat, fd, &range, &stat, 0) != 0) { return errno; }
    counts->cached = stat.nr_cache;
    counts->dirty = stat.nr_dirty;
    counts->writeback = stat.nr_writeback;
    return 0;
}
