// A wall clock that tests can step for a child process, preloaded into it with LD_PRELOAD
// (libWallClockShim.so): clock_gettime(CLOCK_REALTIME, CLOCK_REALTIME_COARSE), gettimeofday
// and time add the offset in nanoseconds stored (a native int64) at the start of the file
// named by WG_WALL_CLOCK_OFFSET_FILE, read afresh on every call through a shared mapping.
// The monotonic clocks, and timed waits on them, are left alone: the child sees what an
// NTP step or a resumed virtual machine shows it.
#pragma once
