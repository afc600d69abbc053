#if canImport(Glibc)
import Glibc
#endif

/// The calling OS thread.
public enum CurrentThread {
    /// Names the calling thread as `top -H`, `ps -L`, `perf` and `/proc/<pid>/task/*/comm` show
    /// it. Foundation's `Thread.name` does not reach the OS thread on Linux, and Linux keeps at
    /// most 15 bytes of a name, so a longer one is cut (at a character boundary).
    public static func setName(_ name: String) {
        #if canImport(Glibc)
        var clipped = ""
        for character in name {
            guard clipped.utf8.count + String(character).utf8.count <= 15 else { break }
            clipped.append(character)
        }
        // pthread_setname_np needs _GNU_SOURCE, which the Glibc module is not built with; the
        // kernel's own file for the calling thread's name does the same.
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = clipped.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
        #endif
    }
}
