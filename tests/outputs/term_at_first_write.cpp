// LD_PRELOAD into a tool: SIGTERM at its first write() to an output's
// temporary (a file whose name holds ".tmp"), where a user's kill or ^C may
// land. outputs_test.sh then looks for a temporary left behind. The signal
// comes from the write itself, not a clock, so the test is deterministic.

#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

extern "C" ssize_t write(int descriptor, const void* data, size_t size) {
    using Write = ssize_t (*)(int, const void*, size_t);
    static const Write real_write = reinterpret_cast<Write>(dlsym(RTLD_NEXT, "write"));
    if (descriptor > 2) {
        char link[64];
        char target[4096];
        std::snprintf(link, sizeof link, "/proc/self/fd/%d", descriptor);
        const ssize_t length = readlink(link, target, sizeof target - 1);
        if (length > 0) {
            target[length] = '\0';
            if (std::strstr(target, ".tmp") != nullptr) {
                raise(SIGTERM);
            }
        }
    }
    return real_write(descriptor, data, size);
}
