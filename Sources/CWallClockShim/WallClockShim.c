#define _GNU_SOURCE
#include "CWallClockShim.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static const volatile int64_t *offset_nanoseconds;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void set_up(void) {
    real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    const char *path = getenv("WG_WALL_CLOCK_OFFSET_FILE");
    if (path == NULL) return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    void *mapped = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (mapped != MAP_FAILED) offset_nanoseconds = mapped;
}

int clock_gettime(clockid_t clock, struct timespec *time) {
    pthread_once(&once, set_up);
    int result = real_clock_gettime(clock, time);
    if (result != 0 || offset_nanoseconds == NULL || (clock != CLOCK_REALTIME && clock != CLOCK_REALTIME_COARSE)) return result;
    int64_t nanoseconds = (int64_t)time->tv_nsec + *offset_nanoseconds % 1000000000;
    time->tv_sec += (time_t)(*offset_nanoseconds / 1000000000 + nanoseconds / 1000000000);
    nanoseconds %= 1000000000;
    if (nanoseconds < 0) {
        nanoseconds += 1000000000;
        time->tv_sec -= 1;
    }
    time->tv_nsec = (long)nanoseconds;
    return 0;
}

int gettimeofday(struct timeval *restrict value, void *restrict zone) {
    (void)zone;  // obsolete; glibc leaves it alone too
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0) return -1;
    // glibc declares `value` non-null.
    value->tv_sec = now.tv_sec;
    value->tv_usec = now.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *value) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (value != NULL) *value = now.tv_sec;
    return now.tv_sec;
}
